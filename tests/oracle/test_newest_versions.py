"""StableHLO 1.21.0 and 1.22.0 against the newest jaxlib (issue 31): how the release log's entries
were established, kept as a test so it is re-checked whenever the oracle moves.

No upstream source newer than 1.20.0 is within reach; jaxlib 0.12 (StableHLO 1.22.0) is the oracle.
With it installed (Python >= 3.12) this checks:

* jaxlib's current and minimum versions are ours, and it refuses a target exactly when we do
  (patch targets too: `1.16.3` is a target, `1.22.1` is not);
* a program with every feature up to 1.20.0 (our golden program, every op, attribute, enum value
  and type the release log introduces) and a sample of the conformance testdata serialize to the
  same bytes at 1.20.0, 1.21.0 and 1.22.0 apart from the producer string -- nothing VHLO sees
  changed -- and our bytes at 1.21.0 / 1.22.0 are jaxlib's;
* WEEK_4 / WEEK_12: jaxlib's anchors are frozen in its build; ours, computed from the tag dates,
  give the same versions on the days those anchors were chosen.

With an older jaxlib (0.10 on Python 3.11, StableHLO 1.17.0) the checks that need 1.21.0 are
skipped with that reason; the version-range check runs on any jaxlib.
"""

from __future__ import annotations

import datetime

import pytest

pytest.importorskip("jax")

from stablehlo_py import specs
from stablehlo_py.errors import VersionError
from stablehlo_py.ir import parse
from stablehlo_py.serialization import serialize_portable_artifact
from stablehlo_py.version import (
    CompatibilityRequirement,
    Version,
    get_current_version,
    get_minimum_version,
    get_version_from_compatibility_requirement,
    validate_target,
)
from tests.conformance.test_roundtrip import TESTDATA
from tests.golden.programs import program


def _stablehlo():  # type: ignore[no-untyped-def]
    from jaxlib.mlir.dialects import stablehlo

    return stablehlo


def _jaxlib_version() -> Version:
    return Version.from_string(str(_stablehlo().get_current_version()))


NEWEST = pytest.mark.skipif(
    "_jaxlib_version() < Version(1, 22, 0)",
    reason="needs the newest jaxlib (0.12, StableHLO 1.22.0; Python >= 3.12)",
)


def _theirs(text: str, target: str) -> bytes | None:
    try:
        return _stablehlo().serialize_portable_artifact_str(text, target)
    except Exception:  # noqa: BLE001 - jaxlib's refusal is a plain error
        return None


def _ours(text: str, target: str) -> bytes | None:
    try:
        return serialize_portable_artifact(parse(text, "-"), target, format="mlir")
    except VersionError:
        return None


def test_jaxlib_range_is_within_ours() -> None:
    jaxlib = _jaxlib_version()
    assert jaxlib <= get_current_version()
    assert str(_stablehlo().get_minimum_version()) == str(get_minimum_version())


@NEWEST
def test_current_and_minimum_are_jaxlibs() -> None:
    assert _jaxlib_version() == get_current_version() == Version(1, 22, 0)


@NEWEST
@pytest.mark.parametrize(
    "target", ["0.8.0", "0.9.0", "1.16.3", "1.20.0", "1.20.7", "1.21.0", "1.22.0", "1.22.1", "1.23.0"]
)
def test_targets_refused_exactly_when_jaxlib_refuses(target: str) -> None:
    text = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"
    theirs = _theirs(text, target)
    try:
        validate_target(target)
        ours: bytes | None = _ours(text, target)
    except VersionError:
        ours = None
    assert ours == theirs  # both refuse, or the same bytes (the producer keeps the patch)


def _programs() -> list[tuple[str, str]]:
    out = [("golden_1.20.0", program("1.20.0"))]
    out += [(p.name, p.read_text()) for p in TESTDATA[::40] if "chlo." not in p.read_text()]
    return out


@NEWEST
@pytest.mark.parametrize(("name", "text"), _programs(), ids=lambda x: x if len(x) < 80 else "")
def test_nothing_vhlo_sees_changed_after_1_20(name: str, text: str) -> None:
    by_target = {t: _theirs(text, t) for t in ("1.20.0", "1.21.0", "1.22.0")}
    if all(b is None for b in by_target.values()):
        pytest.skip(f"{name}: jaxlib refuses it at every target (not this test's subject)")
    same = {
        t: None if b is None else b.replace(f"StableHLO_v{t}".encode(), b"StableHLO_vX")
        for t, b in by_target.items()
    }
    assert len(set(same.values())) == 1, f"{name}: jaxlib's bytes differ between 1.20 and 1.22"
    for target in ("1.21.0", "1.22.0"):
        assert _ours(text, target) == by_target[target], f"{name} at {target}"


def test_compatibility_anchors_on_the_day_jaxlib_chose_them() -> None:
    """jaxlib answers with the anchors of its build on any day; the tag dates say when they were
    chosen.  jaxlib 0.12: 1.18.0 / 1.16.3 (2026-08-14 .. 2026-09-09); jaxlib 0.10 has its own."""
    s = _stablehlo()
    theirs = {
        r: Version.from_string(
            str(s.get_version_from_compatibility_requirement(getattr(s.StablehloCompatibilityRequirement, r)))
        )
        for r in ("WEEK_4", "WEEK_12")
    }
    # the days on which our computed answers are jaxlib's anchors: there must be some
    log = specs.releases()
    start = min(r.date for r in log if r.date is not None)
    days = [start + datetime.timedelta(d) for d in range((datetime.date(2027, 1, 1) - start).days)]
    matching = [
        day
        for day in days
        if all(
            get_version_from_compatibility_requirement(CompatibilityRequirement[r], day) == v
            for r, v in theirs.items()
        )
    ]
    assert matching, f"no day gives jaxlib's anchors {theirs}"
    if _jaxlib_version() == Version(1, 22, 0):
        assert (matching[0], matching[-1]) == (datetime.date(2026, 8, 14), datetime.date(2026, 9, 9))
