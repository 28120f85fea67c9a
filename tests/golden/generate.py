"""Generate the golden portable artifacts: one per minor StableHLO version, never regenerated silently.

    python tests/golden/generate.py                 # write the goldens that are missing (new releases)
    python tests/golden/generate.py --check         # rebuild every golden in memory, compare, write nothing
    python tests/golden/generate.py --force --version 1.20.0   # overwrite one (needs a reason in the commit)

For each release V (``specs/releases.toml``) the program ``tests/golden/programs.py:program(V)`` --
every feature introduced up to V -- is serialized for target V into ``artifacts/stablehlo_vV.shlo``,
and ``@main`` is interpreted to store its results in ``expected/stablehlo_vV.npz`` (``out0``, ``out1``,
...).  ``MANIFEST.json`` records each file's sha256, the features and the toolkit that wrote it;
``tests/golden/test_golden.py`` fails when a golden is missing or differs from its manifest entry.

When jaxlib is installed, each interpreted feature is also run by XLA and compared (an independent
check of the expected outputs; features XLA's parser cannot read are skipped and listed).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

MANIFEST = HERE / "MANIFEST.json"
ARTIFACTS = HERE / "artifacts"
EXPECTED = HERE / "expected"


def artifact_path(version: str) -> Path:
    return ARTIFACTS / f"stablehlo_v{version}.shlo"


def expected_path(version: str) -> Path:
    return EXPECTED / f"stablehlo_v{version}.npz"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_manifest() -> dict[str, Any]:
    if MANIFEST.exists():
        return json.loads(MANIFEST.read_text(encoding="utf-8"))
    return {"goldens": {}}


def save_manifest(manifest: dict[str, Any]) -> None:
    manifest["about"] = (
        "Golden portable artifacts, one per StableHLO minor version (tests/golden/generate.py). "
        "Never edit or regenerate silently: tests/golden/test_golden.py checks these hashes."
    )
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def npz_bytes(arrays: list[Any]) -> bytes:
    """A deterministic .npz (fixed member order and timestamps): ``out<i>.npy`` holds output i --
    as raw unsigned integers of the same width when numpy cannot name its dtype (bfloat16, the f8
    types: ml_dtypes) -- and ``dtypes.npy`` the dtype names, so :func:`load_expected` restores them."""
    import zipfile

    import numpy as np

    members: list[tuple[str, Any]] = []
    names = []
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        names.append(a.dtype.name)
        if (
            a.dtype.kind == "V"
            or type(a.dtype).__module__.startswith("ml_dtypes")
            or a.dtype.name not in np.sctypeDict
        ):
            a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
        members.append((f"out{i}.npy", a))
    members.append(("dtypes.npy", np.asarray(names, dtype="U32")))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for name, a in members:
            member = io.BytesIO()
            np.lib.format.write_array(member, a, allow_pickle=False)
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), member.getvalue())
    return buf.getvalue()


def load_expected(data: bytes) -> list[Any]:
    """The outputs stored by :func:`npz_bytes`, with their dtypes."""
    import ml_dtypes
    import numpy as np

    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        names = [str(n) for n in z["dtypes.npy" if "dtypes.npy" in z.files else "dtypes"]]
        out = []
        for i, name in enumerate(names):
            a = z[f"out{i}"]
            want = (
                np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)
            )
            out.append(a.view(want) if a.dtype != want else a)
    return out


def build(version: str) -> tuple[bytes, bytes, dict[str, Any]]:
    """(artifact, expected .npz, manifest entry) for one version."""
    from stablehlo_py.interpreter import run
    from stablehlo_py.serialization import serialize_portable_artifact_str
    from stablehlo_py.serialization.format import toolkit_string

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from tests.golden.programs import features_at, program

    text = program(version)
    module = parse(text, f"golden_v{version}.mlir")
    verify(module)
    outputs = run(module)
    artifact = serialize_portable_artifact_str(text, version, name=f"golden_v{version}.mlir")
    expected = npz_bytes(outputs)
    feats = features_at(version)
    entry = {
        "artifact": str(artifact_path(version).relative_to(HERE)),
        "artifact_sha256": sha256(artifact),
        "expected": str(expected_path(version).relative_to(HERE)),
        "expected_sha256": sha256(expected),
        "features": [f.name for f in feats],
        "interpreted": [f.name for f in feats if f.run],
        "toolkit": toolkit_string(),
    }
    return artifact, expected, entry


def xla_check(version: str) -> tuple[list[str], list[str]]:
    """Run each interpreted feature with XLA and compare with our interpreter: (agreed, skipped)."""
    try:
        import numpy as np
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir as jmlir
        from jax._src.lib import xla_client as xc
        from jaxlib.mlir import ir
    except ImportError:
        return [], ["(jax not installed)"]
    from stablehlo_py.interpreter import run

    from stablehlo_py.ir import parse
    from tests.golden.programs import features_at

    backend = xla_bridge.get_backend("cpu")
    agreed, skipped = [], []
    for f in features_at(version):
        if not f.run:
            continue
        text = (
            "module {\n"
            + f"  func.func public @main() -> ({f.results}) {{{f.body}\n  }}\n"
            + f.extra
            + "\n}\n"
        )
        try:
            ours = run(parse(text))
            m = ir.Module.parse(text, jmlir.make_ir_context())
            exe = backend.compile_and_load(
                m, xc.DeviceList(tuple(backend.devices()[:1])), xc.CompileOptions()
            )
            theirs = [np.asarray(x) for x in exe.execute([])]
        except Exception as e:  # noqa: BLE001 - XLA cannot run it: skip, and say so
            skipped.append(f"{f.name} ({type(e).__name__}: {str(e).splitlines()[0][:80]})")
            continue
        ok = len(ours) == len(theirs) and all(_close(a, b) for a, b in zip(ours, theirs))
        (agreed if ok else skipped).append(f.name if ok else f"{f.name} (XLA DISAGREES)")
    return agreed, skipped


def _close(a: Any, b: Any) -> bool:
    import numpy as np

    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        wide = np.complex128 if "c" in (a.dtype.kind, b.dtype.kind) else np.float64
        return bool(
            np.allclose(a.astype(wide), b.astype(wide), rtol=1e-5, atol=1e-6, equal_nan=True)
        )
    return bool(np.array_equal(a, b))


def main(argv: list[str] | None = None) -> int:
    from stablehlo_py import specs

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--version", action="append", default=[], help="only this version (repeatable)")
    ap.add_argument(
        "--force", action="store_true", help="overwrite existing goldens (needs --version)"
    )
    ap.add_argument(
        "--check", action="store_true", help="rebuild in memory and compare; write nothing"
    )
    ap.add_argument("--xla", action="store_true", help="also check the expected outputs with XLA")
    args = ap.parse_args(argv)
    if args.force and not args.version:
        ap.error("--force overwrites goldens; name each with --version")
    versions = args.version or [str(r.version) for r in specs.releases()]
    manifest = load_manifest()
    status = 0
    for v in versions:
        have = v in manifest["goldens"] and artifact_path(v).exists()
        if have and not (args.force or args.check):
            continue
        artifact, expected, entry = build(v)
        if args.check:
            old = manifest["goldens"].get(v)
            same = (
                old is not None
                and old["artifact_sha256"] == entry["artifact_sha256"]
                and old["expected_sha256"] == entry["expected_sha256"]
            )
            print(f"{v}: {'same' if same else 'DIFFERENT (the writer or the interpreter changed)'}")
            status |= 0 if same else 1
            continue
        ARTIFACTS.mkdir(exist_ok=True)
        EXPECTED.mkdir(exist_ok=True)
        artifact_path(v).write_bytes(artifact)
        expected_path(v).write_bytes(expected)
        if args.xla:
            agreed, skipped = xla_check(v)
            entry["xla_agrees"] = agreed
            entry["xla_skipped"] = skipped
        manifest["goldens"][v] = entry
        print(
            f"{v}: wrote {artifact_path(v).name} ({len(artifact)} bytes), {len(entry['features'])} features"
        )
    if not args.check:
        save_manifest(manifest)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
