"""Golden artifacts: one per StableHLO minor version, committed, never regenerated silently.

* every release of the log has a golden, and each file still has the hash its manifest recorded;
* the expected outputs are an independent oracle's (``generate.py``): the manifest names one for
  every interpreted feature -- XLA through jaxlib, or a hand-checked numpy reference in
  ``programs.py``, which is recomputed here and must give the stored values bit for bit (XLA is
  re-run on the stored values by ``tests/oracle/test_golden_oracles.py``);
* backward compatibility: each golden deserializes with today's toolkit, decodes to the program its
  source compiles to today, and interprets to the stored expected outputs within the tolerance of
  each dtype (``generate.TOLERANCE_ULPS``; bit-exact for integers, booleans and narrow floats), a
  difference naming the output's feature and oracle;
* the checks can fail: an edited expected value, an edited expected file and a changed interpreter
  result are each rejected;
* forward compatibility: writing each golden's program for its version today produces only what is
  legal at that version (the reader checks every op, type and attribute against the header's
  version), the same VHLO as the golden, and a consumer at that version accepts it; a consumer one
  release older is refused exactly when the program uses that release's new features.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py import specs
from stablehlo_py.ir import print_ir
from stablehlo_py.version import Version
from tests.golden import programs
from tests.golden.generate import (
    HERE,
    TOLERANCE_ULPS,
    check_outputs,
    load_expected,
    load_manifest,
    npz_bytes,
    output_labels,
    reference_name,
    tolerance_ulps,
)
from tests.golden.programs import FEATURES, features_at, outputs_of, program

RELEASES = [str(r.version) for r in specs.releases()]
MANIFEST = load_manifest()


def _entry(version: str) -> dict:
    entry = MANIFEST["goldens"].get(version)
    if entry is None:
        pytest.fail(f"no golden artifact for {version}: run python tests/golden/generate.py")
    return entry


def _artifact(version: str) -> bytes:
    return (HERE / _entry(version)["artifact"]).read_bytes()


def test_every_release_has_a_golden() -> None:
    missing = [v for v in RELEASES if v not in MANIFEST["goldens"]]
    assert not missing, (
        f"releases without a golden artifact: {missing} (run python tests/golden/generate.py)"
    )


def file_problems(entry: dict[str, Any], root: Path = HERE) -> list[str]:
    """The golden's files that are missing or differ from the hashes its manifest entry records."""
    problems = []
    for key in ("artifact", "expected"):
        path = root / entry[key]
        if not path.exists():
            problems.append(f"{path} is missing")
            continue
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry[f"{key}_sha256"]:
            problems.append(
                f"{path.name} changed since it was committed; goldens are never regenerated "
                "silently (restore it, or regenerate it on purpose with generate.py --force "
                "--version, or --expected-only for the expected values, and say why)"
            )
    return problems


@pytest.mark.parametrize("version", RELEASES)
def test_golden_files_are_unchanged(version: str) -> None:
    problems = file_problems(_entry(version))
    assert not problems, "\n".join(problems)


_XLA = re.compile(r"xla \(jaxlib \d+\.\d+\.\d+(\.\d+)?\)")


def oracle_problems(version: str, entry: dict[str, Any]) -> list[str]:
    """Interpreted features of the golden with no oracle, or one the feature cannot have: a feature
    with a numpy ``reference`` names that function, every other names XLA with jaxlib's version."""
    oracles = entry.get("oracles", {})
    problems = []
    for f in features_at(version):
        if not f.run:
            if f.name in oracles:
                problems.append(f"{f.name}: not interpreted, yet has an oracle")
            continue
        oracle = oracles.get(f.name)
        if oracle is None:
            problems.append(f"{f.name}: no oracle recorded (regenerate with generate.py)")
        elif f.reference is not None and oracle != reference_name(f):
            problems.append(f"{f.name}: oracle {oracle!r}, but its oracle is {reference_name(f)!r}")
        elif f.reference is None and not _XLA.fullmatch(oracle):
            problems.append(f"{f.name}: oracle {oracle!r} is neither XLA nor a numpy reference")
    unknown = sorted(set(oracles) - {f.name for f in features_at(version)})
    problems += [f"{n}: oracle recorded for no feature of the golden" for n in unknown]
    return problems


@pytest.mark.parametrize("version", RELEASES)
def test_every_output_has_an_independent_oracle(version: str) -> None:
    problems = oracle_problems(version, _entry(version))
    assert not problems, f"golden {version}: " + "; ".join(problems)


def _expected(version: str) -> list[Any]:
    return load_expected((HERE / _entry(version)["expected"]).read_bytes())


def reference_problems(version: str, expected: list[Any]) -> list[str]:
    """Outputs from a numpy reference whose stored value is not the reference recomputed now,
    bit for bit."""
    problems = []
    for i, (f, j) in enumerate(outputs_of(version)):
        if f.reference is None:
            continue
        got = np.asarray(f.reference()[j])
        want = expected[i]
        if (
            got.dtype != want.dtype
            or got.shape != want.shape
            or got.tobytes() != np.asarray(want, order="C").tobytes()
        ):
            problems.append(
                f"golden {version} output {i} (feature `{f.name}` result {j}): the stored value "
                f"{want!r} is not what its oracle, {reference_name(f)}, computes: {got!r}"
            )
    return problems


@pytest.mark.parametrize("version", RELEASES)
def test_numpy_references_give_the_stored_values(version: str) -> None:
    problems = reference_problems(version, _expected(version))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("version", RELEASES)
def test_backward_compatibility(version: str) -> None:
    from stablehlo_py.interpreter import run
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        deserialize_portable_artifact_str,
        get_portable_artifact_version,
        serialize_portable_artifact_str,
    )

    data = _artifact(version)
    assert get_portable_artifact_version(data) == Version.from_string(version)
    module = deserialize_portable_artifact(data, name=f"stablehlo_v{version}.shlo")
    # the same program as today's round trip of its source at the current version (a round trip
    # writes defaults out and erases them again, so `stride = [1, 1]` in the source reads back absent)
    today = deserialize_portable_artifact_str(
        serialize_portable_artifact_str(program(version), "current")
    )
    assert print_ir(module) == today, "the golden decodes to a different program"
    problems = check_outputs(
        run(module), _expected(version), output_labels(version, _entry(version).get("oracles", {}))
    )
    assert not problems, "the interpreter's results differ from the oracle's:\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("version", RELEASES)
def test_forward_compatibility(version: str) -> None:
    from stablehlo_py.serialization import (
        check_compat,
        read_artifact,
        serialize_portable_artifact_str,
    )

    target = Version.from_string(version)
    data = serialize_portable_artifact_str(program(version), version)
    header, vhlo = read_artifact(data)  # refuses any op, type or attribute not in `version`
    assert header.version == target
    for op in vhlo.walk():
        if op.name.startswith("vhlo."):
            assert specs.op(op.name).is_legal_at(target), op.name
    _, golden = read_artifact(_artifact(version))
    assert print_ir(vhlo, generic=True) == print_ir(golden, generic=True), (
        f"writing this program for {version} today gives other VHLO than the committed golden (old "
        "consumers would read something else); if the change is intended and compatible, regenerate "
        f"with tests/golden/generate.py --force --version {version} and say why in the commit"
    )
    assert check_compat(data, version).compatible
    index = RELEASES.index(version)
    if index == 0:
        return
    previous = RELEASES[index - 1]
    new_here = [f.name for f in FEATURES if f.since == version]
    report = check_compat(data, previous)
    assert not report.compatible  # written for `version`: an older consumer refuses it
    can_rewrite = any("re-serialize" in n for n in report.notes)
    assert can_rewrite == (not new_here), (version, new_here, report.render())


def test_features_are_cumulative() -> None:
    for older, newer in itertools.pairwise(RELEASES):
        assert {f.name for f in features_at(older)} <= {f.name for f in features_at(newer)}


# ----------------------------------------------------------------------------- the checks can fail
NEWEST = RELEASES[-1]


def _nudge(a: Any, steps: int) -> Any:
    """A copy of ``a`` whose first element's bit pattern is moved by ``steps``: that many units in
    the last place for floats (away from zero when positive; each part of a complex), that much for
    integers (wrapping), a flip for booleans."""
    a = np.array(a, copy=True)
    flat = a.reshape(-1)
    if a.dtype == np.bool_:
        flat[0] = not flat[0]
        return a
    parts = flat.view(np.finfo(a.dtype).dtype) if a.dtype.kind == "c" else flat
    bits = parts.view(f"u{parts.dtype.itemsize}")
    first = bits[: 2 if a.dtype.kind == "c" else 1]
    if steps >= 0:
        first += np.array(steps, dtype=bits.dtype)
    else:
        first -= np.array(-steps, dtype=bits.dtype)
    return a


def _edited_outputs() -> list[tuple[int, Any, Any]]:
    """(output index, stored value, the stored value edited just beyond its dtype's tolerance) for
    each output of the newest golden."""
    out = []
    for i, want in enumerate(_expected(NEWEST)):
        out.append((i, want, _nudge(want, tolerance_ulps(want.dtype) + 1)))
    return out


def test_every_dtype_of_the_goldens_has_a_stated_tolerance() -> None:
    for want in _expected(NEWEST):
        if want.dtype.kind in "iub" or want.dtype.itemsize == 1:
            assert tolerance_ulps(want.dtype) == 0, want.dtype  # exact
        else:
            assert want.dtype.name in TOLERANCE_ULPS, f"no tolerance stated for {want.dtype}"


def test_an_edited_expected_value_is_rejected_naming_its_oracle() -> None:
    expected = _expected(NEWEST)
    labels = output_labels(NEWEST, _entry(NEWEST)["oracles"])
    for i, want, edited in _edited_outputs():
        changed = list(expected)
        changed[i] = edited
        problems = check_outputs(expected, changed, labels)
        assert len(problems) == 1, (i, want, edited, problems)
        feature, _ = outputs_of(NEWEST)[i]
        assert f"output {i} (feature `{feature.name}`" in problems[0]
        assert f"oracle: {_entry(NEWEST)['oracles'][feature.name]}" in problems[0]


def test_values_within_the_tolerance_are_accepted() -> None:
    expected = _expected(NEWEST)
    labels = output_labels(NEWEST, _entry(NEWEST)["oracles"])
    for i, want in enumerate(expected):
        tol = tolerance_ulps(want.dtype)
        if tol == 0 or not np.isfinite(want.reshape(-1)[0]) or want.reshape(-1)[0] == 0:
            continue
        changed = list(expected)
        changed[i] = _nudge(want, -tol)  # toward zero: the largest finite value stays finite
        assert not check_outputs(expected, changed, labels), (i, want, changed[i])


@pytest.mark.parametrize(
    ("dtype", "want", "got"),
    [
        (np.float32, np.float32(np.nan), np.float32(-np.nan)),  # NaN sign
        (np.float64, np.float64(0.0), np.float64(-0.0)),  # zero sign
        (np.float32, np.float32(np.inf), np.finfo(np.float32).max),  # infinity vs largest finite
        (np.float32, np.float32(1.0), np.float32(np.nan)),
        (ml_dtypes.bfloat16, ml_dtypes.bfloat16(1.0), ml_dtypes.bfloat16(1.0078125)),  # 1 ULP: ok
        (ml_dtypes.bfloat16, ml_dtypes.bfloat16(1.0), ml_dtypes.bfloat16(1.015625)),  # 2 ULP
        (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fn(1.0), ml_dtypes.float8_e4m3fn(1.125)),
    ],
)
def test_special_values_must_match(dtype: Any, want: Any, got: Any) -> None:
    w, g = np.array([want], dtype=dtype), np.array([got], dtype=dtype)
    problems = check_outputs([g], [w], ["x"])
    one_ulp_bf16 = dtype is ml_dtypes.bfloat16 and float(got) == 1.0078125
    assert (not problems) == one_ulp_bf16, problems


def test_an_edited_expected_file_is_rejected(tmp_path: Path) -> None:
    entry = _entry(NEWEST)
    for key in ("artifact", "expected"):
        (tmp_path / entry[key]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / entry[key]).write_bytes((HERE / entry[key]).read_bytes())
    assert not file_problems(entry, tmp_path)
    for i, _, edited in _edited_outputs()[:3]:
        changed = _expected(NEWEST)
        changed[i] = edited
        (tmp_path / entry["expected"]).write_bytes(npz_bytes(changed))
        problems = file_problems(entry, tmp_path)
        assert len(problems) == 1 and "changed since it was committed" in problems[0], problems


def test_an_edited_reference_value_is_rejected_even_with_its_hash_updated() -> None:
    """An expected value edited together with its manifest hash: the recomputed numpy reference
    disagrees (values from XLA are re-run by tests/oracle/test_golden_oracles.py)."""
    expected = _expected(NEWEST)
    refs = [i for i, (f, _) in enumerate(outputs_of(NEWEST)) if f.reference is not None]
    assert len(refs) == 3, refs  # collective_broadcast, promotable_reduce, per_axis_quantization
    for i in refs:
        changed = list(expected)
        changed[i] = _nudge(expected[i], 1)
        problems = reference_problems(NEWEST, changed)
        assert len(problems) == 1 and f"output {i} " in problems[0], problems
        assert "numpy reference tests.golden.programs.ref_" in problems[0]


def test_a_missing_or_wrong_oracle_is_rejected() -> None:
    entry = dict(_entry(NEWEST))
    oracles = dict(entry["oracles"])
    del oracles["tan"]
    oracles["collective_broadcast"] = "xla (jaxlib 0.12.0.1)"  # XLA:CPU cannot run it
    oracles["elementwise"] = "stablehlo-py interpreter"  # our own output is no oracle
    problems = oracle_problems(NEWEST, {**entry, "oracles": oracles})
    assert len(problems) == 3, problems
    assert any(p.startswith("tan: no oracle") for p in problems)
    assert any(p.startswith("collective_broadcast: oracle") for p in problems)
    assert any(p.startswith("elementwise: oracle") for p in problems)


@pytest.mark.parametrize(
    ("op", "feature"),
    [
        ("stablehlo.tan", "tan"),  # f32 results
        ("stablehlo.popcnt", "integers"),  # integer results
        ("stablehlo.collective_broadcast", "collective_broadcast"),  # numpy-reference oracle
        ("stablehlo.uniform_dequantize", "per_axis_quantization"),
        ("stablehlo.reduce", "promotable_reduce"),
    ],
)
def test_a_changed_interpreter_result_is_rejected(op: str, feature: str) -> None:
    """The interpreter with one op's result moved just beyond the tolerance (an IMPL_WRAPPERS
    hook, as a semantic change would): the golden check names the feature and its oracle."""
    from stablehlo_py.interpreter import run
    from stablehlo_py.interpreter.compiled import IMPL_WRAPPERS
    from stablehlo_py.ir import parse

    def wrap(o: Any, impl: Any) -> Any:
        if o.name != op or impl is None:
            return impl

        def changed(*args: Any) -> list[Any]:
            return [_nudge(r, tolerance_ulps(np.asarray(r).dtype) + 1) for r in impl(*args)]

        return changed

    IMPL_WRAPPERS.append(wrap)
    try:
        outputs = run(parse(program(NEWEST)))
    finally:
        IMPL_WRAPPERS.remove(wrap)
    labels = output_labels(NEWEST, _entry(NEWEST)["oracles"])
    problems = check_outputs(outputs, _expected(NEWEST), labels)
    assert problems, f"changing {op} went unnoticed"
    oracle = _entry(NEWEST)["oracles"][feature]
    assert any(f"(feature `{feature}` " in p and f"; oracle: {oracle})" in p for p in problems), (
        problems
    )
