"""The golden expected values against their oracle, re-run (`oracle` extra): XLA through the
installed jaxlib runs every interpreted golden feature whose oracle is XLA, and its results must be
the stored values of every golden holding the feature, within ``generate.TOLERANCE_ULPS`` -- so an
expected value edited together with its manifest hash still fails (``tests/golden/test_golden.py``
recomputes the numpy references the same way).  The features with a numpy reference are those
XLA:CPU cannot run; if a jaxlib learns to run one, its result must agree with the reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

from tests.golden.generate import (  # noqa: E402
    HERE,
    check_outputs,
    load_expected,
    load_manifest,
    reference_name,
    xla_name,
    xla_outputs,
)
from tests.golden.programs import FEATURES, outputs_of  # noqa: E402

MANIFEST = load_manifest()["goldens"]
RUN = [f for f in FEATURES if f.run]
_EXPECTED: dict[str, list[Any]] = {}


def _stored(version: str) -> list[Any]:
    if version not in _EXPECTED:
        _EXPECTED[version] = load_expected((HERE / MANIFEST[version]["expected"]).read_bytes())
    return _EXPECTED[version]


def stored_values(feature: str) -> list[tuple[str, str, list[Any]]]:
    """(golden version, recorded oracle, the feature's stored results), each golden holding it."""
    out = []
    for version, entry in MANIFEST.items():
        rows = [i for i, (f, _) in enumerate(outputs_of(version)) if f.name == feature]
        if rows:
            stored = _stored(version)
            out.append((version, entry["oracles"][feature], [stored[i] for i in rows]))
    return out


@pytest.mark.parametrize("feature", [f for f in RUN if f.reference is None], ids=lambda f: f.name)
def test_xla_gives_the_stored_values(feature: Any) -> None:
    ours = xla_outputs(feature)
    goldens = stored_values(feature.name)
    assert goldens, f"no golden holds {feature.name}"
    problems = []
    for version, recorded, stored in goldens:
        assert recorded.startswith("xla (jaxlib "), (version, recorded)
        labels = [
            f"golden {version} feature `{feature.name}` result {j} (stored from {recorded}, "
            f"re-run by {xla_name()})"
            for j in range(len(stored))
        ]
        problems += check_outputs(ours, stored, labels)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "feature", [f for f in RUN if f.reference is not None], ids=lambda f: f.name
)
def test_xla_cannot_run_the_reference_features_or_agrees(feature: Any) -> None:
    """Why the feature has a numpy reference: XLA refuses it (said in the test's output); should a
    jaxlib run it, its result must be the reference's."""
    try:
        theirs = xla_outputs(feature)
    except Exception as e:  # noqa: BLE001 - XLA refusing the program is the expected outcome
        print(f"{feature.name}: {xla_name()} cannot run it: {type(e).__name__}: {str(e)[:120]}")
        return
    want = [np.asarray(a) for a in feature.reference()]
    labels = [
        f"{feature.name} result {j}: {xla_name()} vs {reference_name(feature)}"
        for j in range(len(want))
    ]
    problems = check_outputs(theirs, want, labels)
    assert not problems, "\n".join(problems)


def test_an_edited_xla_value_is_rejected() -> None:
    """The comparison above fails for a stored value edited one bit pattern beyond the tolerance."""
    from tests.golden.generate import tolerance_ulps
    from tests.golden.test_golden import _nudge

    for feature in [f for f in RUN if f.reference is None]:
        ours = xla_outputs(feature)
        for j, value in enumerate(ours):
            edited = list(ours)
            edited[j] = _nudge(value, tolerance_ulps(value.dtype) + 1)
            labels = [f"{feature.name} {k}" for k in range(len(ours))]
            problems = check_outputs(ours, edited, labels)
            assert problems == [problems[0]] and problems[0].startswith(f"{feature.name} {j}:"), (
                feature.name,
                j,
                problems,
            )
