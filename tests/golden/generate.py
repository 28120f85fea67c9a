"""Generate the golden portable artifacts: one per minor StableHLO version, never regenerated silently.

    python tests/golden/generate.py                 # write the goldens that are missing (new releases)
    python tests/golden/generate.py --check         # rebuild every golden in memory, compare, write nothing
    python tests/golden/generate.py --force --version 1.20.0   # overwrite one (needs a reason in the commit)
    python tests/golden/generate.py --expected-only # rewrite the expected values from their oracles

For each release V (``specs/releases.toml``) the program ``tests/golden/programs.py:program(V)`` --
every feature introduced up to V -- is serialized for target V into ``artifacts/stablehlo_vV.shlo``,
and the results of ``@main`` are stored in ``expected/stablehlo_vV.npz`` (``out0``, ``out1``, ...).

The expected results come from an independent oracle, never from our interpreter: each interpreted
feature is run by XLA through jaxlib (the ``oracle`` extra is needed to write goldens), or, for the
features XLA cannot run, by the feature's hand-checked numpy ``reference`` (``programs.py``).  Our
interpreter is run too, and a golden it disagrees with is not written: the disagreement is to be
investigated (an interpreter bug, or an XLA deviation from the spec, for which the feature gets a
numpy reference that follows the spec).  ``MANIFEST.json`` records each file's sha256, the features,
the oracle of each interpreted feature (``oracles``) and the toolkit that wrote the artifact;
``tests/golden/test_golden.py`` checks the files against their hashes, the interpreter against the
expected values (``TOLERANCE_ULPS``), and recomputes the numpy references;
``tests/oracle/test_golden_oracles.py`` re-runs XLA on the stored values.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

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


    members: list[tuple[str, Any]] = []
    names = []
    for i, a in enumerate(arrays):
        a = np.asarray(a, order="C")  # C order whatever the producer's memory layout
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


# ----------------------------------------------------------------------------- tolerances
# How far the interpreter's result may be from the oracle's, per result dtype, in units in the
# last place of that dtype (ordered bit patterns: adjacent floats are 1 apart).  Complex types:
# each part, in its component type.  Every other type -- integers, booleans, and floats of 8 bits
# or fewer -- must be bit-exact.  For every float type: a NaN must be the same NaN (sign and
# payload), an infinity the same infinity, and a zero must have the same sign.
TOLERANCE_ULPS: dict[str, int] = {
    "float64": 2,
    "float32": 2,
    "complex128": 2,
    "complex64": 2,
    "float16": 1,
    "bfloat16": 1,
}


def tolerance_ulps(dtype: Any) -> int:
    return TOLERANCE_ULPS.get(np.dtype(dtype).name, 0)


def _bits(a: Any) -> Any:
    return np.asarray(a, order="C").view(np.dtype(f"u{a.dtype.itemsize}"))


def _ordered(a: Any) -> Any:
    """Bit patterns of a float array (sign bit on top) as integers ordered like the values, with
    adjacent floats 1 apart (+0 and -0 both 0)."""
    bits = _bits(a).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(8 * a.dtype.itemsize - 1)
    magnitude = (bits & ~sign).astype(np.int64)
    return np.where((bits & sign) != 0, -magnitude, magnitude)


def difference(got: Any, want: Any) -> str | None:
    """Why ``got`` is not ``want`` within the tolerance of their dtype, or None when it is."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"
    if got.dtype.kind == "c":
        parts = [("real", got.real, want.real), ("imag", got.imag, want.imag)]
        tol = tolerance_ulps(got.dtype)
        for name, g, w in parts:
            why = _float_difference(np.asarray(g, order="C"), np.asarray(w, order="C"), tol)
            if why is not None:
                return f"{name} part: {why}"
        return None
    tol = tolerance_ulps(got.dtype)
    if tol > 0:
        return _float_difference(got, want, tol)
    bad = _bits(got) != _bits(want)
    if not bad.any():
        return None
    return _describe(got, want, bad, "not bit-exact")


def _float_difference(got: Any, want: Any, tol: int) -> str | None:
    wide_g, wide_w = got.astype(np.float64), want.astype(np.float64)
    g_nan, w_nan = np.isnan(wide_g), np.isnan(wide_w)
    special = w_nan | g_nan | np.isinf(wide_w) | np.isinf(wide_g) | ((wide_g == 0) & (wide_w == 0))
    ulps = np.abs(_ordered(got) - _ordered(want))
    bad_special = special & (_bits(got) != _bits(want))  # NaN, infinity, signed zero: bit-exact
    bad_ulps = ~special & (ulps > tol)
    bad = bad_special | bad_ulps
    if not bad.any():
        return None
    what = []
    if bad_ulps.any():
        what.append(f"beyond {tol} ULP (up to {int(ulps[bad_ulps].max())} ULP)")
    if bad_special.any():
        what.append("not the same NaN, infinity or signed zero")
    return _describe(got, want, bad, " or ".join(what))


def _describe(got: Any, want: Any, bad: Any, what: str) -> str:
    idx = [tuple(int(i) for i in ix) for ix in np.argwhere(bad)[:3]]
    shown = ", ".join(
        f"at {list(ix)} got {got[ix]!r} (0x{int(_bits(got)[ix]):x}), want {want[ix]!r} "
        f"(0x{int(_bits(want)[ix]):x})"
        for ix in idx
    )
    return f"{int(bad.sum())} of {bad.size} elements {what}: {shown}"


def check_outputs(got: list[Any], want: list[Any], labels: list[str]) -> list[str]:
    """One line per output of ``got`` that differs from ``want`` (the oracle's values) beyond its
    dtype's tolerance; ``labels[i]`` names output i (its feature and oracle)."""
    if len(got) != len(want) or len(want) != len(labels):
        return [f"{len(got)} outputs, {len(want)} expected values, {len(labels)} labels"]
    problems = []
    for label, g, w in zip(labels, got, want):
        why = difference(g, w)
        if why is not None:
            problems.append(f"{label}: {why}")
    return problems


# ----------------------------------------------------------------------------- oracles
class OracleUnavailable(Exception):
    """XLA (jaxlib) is not installed, and a feature needs it as its oracle."""


def reference_name(f: Any) -> str:
    return f"numpy reference tests.golden.programs.{f.reference.__name__}"


def xla_name() -> str:
    import jaxlib

    return f"xla (jaxlib {jaxlib.__version__})"


def xla_outputs(f: Any) -> list[Any]:
    """The feature's results computed by XLA:CPU through jaxlib (raises what XLA raises when it
    cannot run it; OracleUnavailable without jaxlib)."""
    try:
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir as jmlir
        from jax._src.lib import xla_client as xc
        from jaxlib.mlir import ir
    except ImportError as e:
        raise OracleUnavailable(
            f"feature {f.name!r} has XLA as its oracle, and jax is not importable ({e}): install "
            "the oracle extra (pip install -e '.[oracle]') to write or re-check goldens"
        ) from None
    from tests.golden.programs import feature_module

    backend = xla_bridge.get_backend("cpu")
    module = ir.Module.parse(feature_module(f), jmlir.make_ir_context())
    exe = backend.compile_and_load(
        module, xc.DeviceList(tuple(backend.devices()[:1])), xc.CompileOptions()
    )
    return [np.asarray(x) for x in exe.execute([])]


def oracle_outputs(f: Any) -> tuple[list[Any], str]:
    """(the feature's results, the oracle's name): its numpy reference if it has one, else XLA."""
    if f.reference is not None:
        return [np.asarray(a) for a in f.reference()], reference_name(f)
    return xla_outputs(f), xla_name()


def output_labels(version: str, oracles: dict[str, str]) -> list[str]:
    """``output i (feature `name` result j; oracle: ...)`` for each output of the golden."""
    from tests.golden.programs import outputs_of

    return [
        f"golden {version} output {i} (feature `{f.name}` result {j}; oracle: "
        f"{oracles.get(f.name, 'NONE RECORDED')})"
        for i, (f, j) in enumerate(outputs_of(version))
    ]


def expected_from_oracles(version: str) -> tuple[list[Any], dict[str, str]]:
    """Every output of the golden of ``version`` from its feature's oracle, and the oracles."""
    from tests.golden.programs import features_at

    outputs: list[Any] = []
    oracles: dict[str, str] = {}
    for f in features_at(version):
        if f.run:
            values, oracles[f.name] = _oracle_cached(f)
            outputs += values
    return outputs, oracles


_ORACLE_CACHE: dict[str, tuple[list[Any], str]] = {}


def _oracle_cached(f: Any) -> tuple[list[Any], str]:
    if f.name not in _ORACLE_CACHE:
        _ORACLE_CACHE[f.name] = oracle_outputs(f)
    return _ORACLE_CACHE[f.name]


class Disagreement(Exception):
    """Our interpreter disagrees with a golden's oracle: investigate, never store either."""


def interpreter_outputs(version: str) -> list[Any]:
    from stablehlo_py.interpreter import run
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from tests.golden.programs import program

    module = parse(program(version), f"golden_v{version}.mlir")
    verify(module)
    return run(module)


def build_expected(version: str) -> tuple[bytes, dict[str, str]]:
    """(expected .npz from the oracles, the oracle of each feature); raises Disagreement when our
    interpreter's results are not the oracle's within TOLERANCE_ULPS."""
    expected, oracles = expected_from_oracles(version)
    labels = output_labels(version, oracles)
    problems = check_outputs(interpreter_outputs(version), expected, labels)
    if problems:
        raise Disagreement(
            f"golden {version}: the interpreter disagrees with the oracle (investigate; if the "
            "oracle deviates from the spec, give the feature a numpy reference that follows "
            "it):\n  "
            + "\n  ".join(problems)
        )
    return npz_bytes(expected), oracles


def build(version: str) -> tuple[bytes, bytes, dict[str, Any]]:
    """(artifact, expected .npz, manifest entry) for one version."""
    from stablehlo_py.serialization import serialize_portable_artifact_str
    from stablehlo_py.serialization.format import toolkit_string

    from tests.golden.programs import features_at, program

    text = program(version)
    artifact = serialize_portable_artifact_str(text, version, name=f"golden_v{version}.mlir")
    expected, oracles = build_expected(version)
    feats = features_at(version)
    entry = {
        "artifact": str(artifact_path(version).relative_to(HERE)),
        "artifact_sha256": sha256(artifact),
        "expected": str(expected_path(version).relative_to(HERE)),
        "expected_sha256": sha256(expected),
        "features": [f.name for f in feats],
        "interpreted": [f.name for f in feats if f.run],
        "oracles": oracles,
        "toolkit": toolkit_string(),
    }
    return artifact, expected, entry


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
        "--check",
        action="store_true",
        help="rebuild in memory and compare (artifact bytes; expected values with the oracle "
        "within the tolerance); write nothing",
    )
    ap.add_argument(
        "--expected-only",
        action="store_true",
        help="rewrite the expected values (and their oracles in the manifest) of existing goldens "
        "from the oracles, keeping the artifacts",
    )
    args = ap.parse_args(argv)
    if args.force and not args.version:
        ap.error("--force overwrites goldens; name each with --version")
    versions = args.version or [str(r.version) for r in specs.releases()]
    manifest = load_manifest()
    status = 0
    try:
        for v in versions:
            have = v in manifest["goldens"] and artifact_path(v).exists()
            if args.check:
                status |= _check(v, manifest["goldens"].get(v))
                continue
            if args.expected_only:
                if not have:
                    print(f"{v}: no golden yet (run without --expected-only to write it)")
                    status = 1
                    continue
                expected, oracles = build_expected(v)
                entry = manifest["goldens"][v]
                changed = sha256(expected) != entry["expected_sha256"]
                EXPECTED.mkdir(exist_ok=True)
                expected_path(v).write_bytes(expected)
                entry["expected_sha256"] = sha256(expected)
                entry["oracles"] = oracles
                for stale in ("xla_agrees", "xla_skipped"):
                    entry.pop(stale, None)
                verdict = "CHANGED" if changed else "unchanged"
                print(f"{v}: expected values {verdict} ({_summary(oracles)})")
                continue
            if have and not args.force:
                continue
            artifact, expected, entry = build(v)
            ARTIFACTS.mkdir(exist_ok=True)
            EXPECTED.mkdir(exist_ok=True)
            artifact_path(v).write_bytes(artifact)
            expected_path(v).write_bytes(expected)
            manifest["goldens"][v] = entry
            print(
                f"{v}: wrote {artifact_path(v).name} ({len(artifact)} bytes), "
                f"{len(entry['features'])} features ({_summary(entry['oracles'])})"
            )
    except (Disagreement, OracleUnavailable) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not args.check:
        save_manifest(manifest)
    return status


def _summary(oracles: dict[str, str]) -> str:
    counts: dict[str, int] = {}
    for name in oracles.values():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(
        f"{o}: {n} feature{'s' if n > 1 else ''}" for o, n in sorted(counts.items())
    )


def _check(version: str, old: dict[str, Any] | None) -> int:
    """Rebuild one golden in memory and say how it compares with the committed one."""
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from tests.golden.programs import program

    if old is None:
        print(f"{version}: MISSING")
        return 1
    artifact = serialize_portable_artifact_str(
        program(version), version, name=f"golden_v{version}.mlir"
    )
    art = "same" if sha256(artifact) == old["artifact_sha256"] else "DIFFERENT (the writer changed)"
    stored = load_expected((HERE / old["expected"]).read_bytes())
    try:
        expected, oracles = expected_from_oracles(version)
    except OracleUnavailable as e:
        print(f"{version}: artifact {art}; expected values not re-checked: {e}")
        return 0 if art == "same" else 1
    problems = check_outputs(expected, stored, output_labels(version, oracles))
    problems += check_outputs(
        interpreter_outputs(version),
        expected,
        [f"{lab} [interpreter]" for lab in output_labels(version, oracles)],
    )
    verdict = "agree" if not problems else "DISAGREE:\n  " + "\n  ".join(problems)
    print(
        f"{version}: artifact {art}; stored values, oracles ({_summary(oracles)}) and "
        f"interpreter {verdict}"
    )
    return 0 if art == "same" and not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
