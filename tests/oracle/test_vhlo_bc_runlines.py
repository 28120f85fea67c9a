"""Upstream's `.mlir.bc` RUN lines, verbatim, on artifacts jaxlib writes (issue 31).

Each `../shared/conformance/vhlo/stablehlo_legalize_to_vhlo.X_Y_Z.mlir` reads `%s.bc`, a portable
artifact upstream wrote at X.Y.Z with debug info stripped, which ../shared does not ship.  Here jaxlib
writes it (`stablehlo.serialize_portable_artifact_str(<the file>, "X.Y.Z")`, stripped: `jaxlib_bc`)
into a temporary directory, next to a copy of the .mlir, and every RUN line that uses `%s.bc` -- and
the ones sharing its `%t` files -- runs as written with our `stablehlo-opt` and
`stablehlo-translate`:

    stablehlo-opt --mlir-print-op-generic %s.bc | FileCheck %s          (prints the VHLO it holds)
    stablehlo-translate --deserialize %s.bc | stablehlo-translate --serialize --target=X.Y.Z
        | stablehlo-opt --mlir-print-op-generic | FileCheck %s
    stablehlo-translate --deserialize %s.bc | stablehlo-opt > %t.0
    stablehlo-opt --strip-debuginfo %s > %t.1
    diff %t.0 %t.1
    stablehlo-translate --serialize --target=X.Y.Z --strip-debuginfo %s > %t.2
    diff %s.bc %t.2                                   (our bytes == jaxlib's, byte for byte)

with `STABLEHLO_PY_ARTIFACT_FORMAT=mlir`, so that `--serialize` writes upstream's format as upstream's
tool does (our default is msgpack).  The `%if asserts` lines need a debug build of upstream and
expand to nothing without it, as lit does (`runlines.run_lines` drops them).

The jaxlib writing an artifact must know X.Y.Z: jaxlib 0.10 (StableHLO 1.17) writes up to 1.17.0,
jaxlib 0.12 up to its current version; a file above that (or above ours) is skipped saying so.  The
last `diff` compares the use-list orders our serializer leaves with jaxlib's as well; they carry no
meaning and depend on the converter's history: a jaxlib older than this toolkit (0.10) leaves other
orders from 1.2.0 on, so there, and only there, a file whose one failing line is that `diff` passes
when our writer reproducing jaxlib's history (``use_lists_as``) gives jaxlib's bytes.  With jaxlib
0.12 every line passes as written.  ``python -m tests.oracle.test_vhlo_bc_runlines [BC_DIR]`` prints
the counts per file (with BC_DIR, on the .mlir.bc files found there, e.g. upstream's own).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from stablehlo_py.version import Version, get_current_version
from tests.conformance.runlines import execute, run_lines
from tests.conftest import conformance_files

VERSIONED = re.compile(r"stablehlo_legalize_to_vhlo\.(\d+)_(\d+)_(\d+)\.mlir$")
FILES = [p for p in conformance_files("vhlo") if VERSIONED.search(p.name)]


def target_of(path: Path) -> Version:
    m = VERSIONED.search(path.name)
    assert m is not None
    return Version(*(int(g) for g in m.groups()))


def bc_lines(path: Path) -> list[str]:
    """The RUN lines that use `%s.bc`, and those whose output a `diff` with them compares."""
    lines = run_lines(path)
    used = {ln for ln in lines if "%s.bc" in ln}
    while True:  # and every line sharing a %t file with one of those
        temps = {t for ln in used for t in re.findall(r"%t\.\d+", ln)}
        more = {ln for ln in lines if any(t in ln for t in temps)} - used
        if not more:
            return [ln for ln in lines if ln in used]
        used |= more


def jaxlib_version() -> Version:
    from jaxlib.mlir.dialects import stablehlo

    return Version.from_string(stablehlo.get_current_version())


def why_not(path: Path) -> str | None:
    """Why this file cannot be run here (None: it can)."""
    target = target_of(path)
    if target > jaxlib_version():
        return f"jaxlib here writes StableHLO up to {jaxlib_version()}, not {target}"
    if target > get_current_version():
        return f"this toolkit reads StableHLO up to {get_current_version()}, not {target}"
    return None


def jaxlib_bc(path: Path) -> bytes:
    """The artifact upstream's RUN lines expect at `%s.bc`: the file serialized by jaxlib at its
    target with debug info stripped, as upstream made it (`stablehlo-translate --serialize
    --target=X.Y.Z --strip-debuginfo`).  jaxlib's Python API has no strip option, and its context
    cannot parse the file's `!quant` types, so the VHLO module of jaxlib's artifact is stripped
    there and written again at the artifact's bytecode version with its producer (MLIR's writer
    reproduces the bytes it read: on jaxlib 0.12 this gives upstream's own .mlir.bc files, byte for
    byte)."""
    import io

    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir.dialects import stablehlo

    target = str(target_of(path))
    art = stablehlo.serialize_portable_artifact_str(path.read_text(), target)
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(art)
        passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
        out = io.BytesIO()
        module.operation.write_bytecode(out, desired_version=art[4] >> 1)
    data = out.getvalue()
    end = data.index(b"\0", 5)
    return data[:5] + f"StableHLO_v{target}".encode() + data[end:]


def prepare(path: Path, tmp: Path, bc: bytes | None = None) -> Path:
    """A copy of ``path`` in ``tmp`` with its `.bc` beside it (jaxlib's unless ``bc`` is given)."""
    copy = tmp / path.name
    shutil.copyfile(path, copy)
    (tmp / (path.name + ".bc")).write_bytes(jaxlib_bc(path) if bc is None else bc)
    return copy


def run_file(copy: Path) -> list[tuple[str, bool, str]]:
    """(line, passed, stderr) for each of the file's `.bc` RUN lines, in order."""
    out = []
    for line in bc_lines(copy):
        proc = execute(line, copy, copy.parent / "t")
        out.append((line, proc.returncode == 0, (proc.stderr or proc.stdout)[-2000:]))
    return out


@pytest.fixture(autouse=True)
def _mlir_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STABLEHLO_PY_ARTIFACT_FORMAT", "mlir")


def test_every_versioned_file_has_bc_lines() -> None:
    if not FILES:
        pytest.skip("../shared/conformance/vhlo is absent")
    for path in FILES:
        lines = bc_lines(path)
        assert any(ln.startswith("stablehlo-opt --mlir-print-op-generic %s.bc") for ln in lines)
        assert "diff %s.bc %t.2" in lines, path.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_bc_run_lines(path: Path, tmp_path: Path) -> None:
    reason = why_not(path)
    if reason:
        pytest.skip(reason)
    results = run_file(prepare(path, tmp_path))
    failed = [(line, err) for line, ok, err in results if not ok]
    if [line for line, _ in failed] == [BYTES_LINE] and jaxlib_version() < get_current_version():
        # an older jaxlib's version conversion leaves other (meaningless) use-list orders than
        # ours: the bytes must be equal once ours reproduce that history
        assert same_bytes_with_history(path, (tmp_path / (path.name + ".bc")).read_bytes())
        return
    assert not failed, "\n\n".join(f"RUN: {line}\n{err}" for line, err in failed)


BYTES_LINE = "diff %s.bc %t.2"


def same_bytes_with_history(path: Path, bc: bytes) -> bool:
    """Whether our serializer writes ``bc`` when its use-list orders reproduce jaxlib's conversion
    history (``use_lists_as``; jaxlib 0.10's, StableHLO 1.17, differs from upstream's since)."""
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.serialization import serialize_portable_artifact

    module = parse(path.read_text(), str(path))
    verify(module)
    ours = serialize_portable_artifact(
        module,
        target_of(path),
        strip_debuginfo=True,
        format="mlir",
        use_lists_as=jaxlib_version(),
    )
    return ours == bc


def summary(bc_dir: Path | None = None) -> list[tuple[str, int, int, str]]:
    """(file, passed, total, first failing line) per file; with ``bc_dir`` the `.bc` files are
    read from there (upstream's own, e.g. a checkout's stablehlo/tests/vhlo) instead of jaxlib."""
    import os
    import tempfile

    os.environ["STABLEHLO_PY_ARTIFACT_FORMAT"] = "mlir"
    rows = []
    for path in FILES:
        bc = None
        if bc_dir is not None:
            src = bc_dir / (path.name + ".bc")
            if not src.exists():
                rows.append((path.name, 0, 0, "no .bc"))
                continue
            bc = src.read_bytes()
        elif why_not(path):
            rows.append((path.name, 0, 0, str(why_not(path))))
            continue
        with tempfile.TemporaryDirectory() as tmp:
            results = run_file(prepare(path, Path(tmp), bc))
        failed = [line for line, ok, _ in results if not ok]
        rows.append((path.name, len(results) - len(failed), len(results), "; ".join(failed)))
    return rows


if __name__ == "__main__":
    import sys

    rows = summary(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    for name, passed, total, note in rows:
        print(f"{name:45s} {passed}/{total} {note[:150]}")
    print(f"total: {sum(r[1] for r in rows)}/{sum(r[2] for r in rows)}")
