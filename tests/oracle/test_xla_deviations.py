"""Each of XLA CPU's known deviations from the spec (tests/differential/xla_deviations.py, the one list)
still shows on the installed jaxlib: XLA's result for the entry's reproducer differs from the spec's,
our interpreter gives the spec's, and the fuzzer's classifier names the mismatch after the entry.  An
entry whose `jaxlibs` does not list the installed jaxlib must NOT deviate there (so the table follows
XLA when it changes)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jaxlib = pytest.importorskip("jaxlib")

from tests.differential import compare as cmp  # noqa: E402
from tests.differential.runner import lower, run_case, run_ours, run_xla  # noqa: E402
from tests.differential.xla_deviations import DEVIATIONS, IMPLEMENTATION_DEFINED, KNOWN_BUGS  # noqa: E402

JAXLIB = ".".join(jaxlib.__version__.split(".")[:2])


def _run(entry):
    case = entry.case()
    with jax.enable_x64(True), np.errstate(all="ignore"):
        lowered = lower(case.fn(), case.args)
        return case, run_xla(lowered, case.args), run_ours(lowered.as_text(), case.args)


@pytest.mark.parametrize("entry", DEVIATIONS, ids=lambda e: e.name)
def test_xla_still_deviates(entry) -> None:
    case, theirs, ours = _run(entry)
    spec = entry.spec_result()
    assert cmp.compare(ours, spec, cmp.EXACT).ok, f"our interpreter no longer gives the spec's result: {ours}"
    xla_is_spec = cmp.compare(theirs, spec, cmp.EXACT).ok
    if JAXLIB in entry.jaxlibs:
        assert not xla_is_spec, f"XLA (jaxlib {JAXLIB}) now follows the spec: {theirs}; update {entry.name}"
    else:
        assert xla_is_spec, f"XLA (jaxlib {JAXLIB}) deviates though {entry.name} lists only {entry.jaxlibs}"


@pytest.mark.parametrize("entry", DEVIATIONS, ids=lambda e: e.name)
def test_classifier_names_the_deviation(entry) -> None:
    if JAXLIB not in entry.jaxlibs:
        pytest.skip(f"{entry.name} does not show on jaxlib {JAXLIB}")  # the test above checks XLA agrees
    out = run_case(entry.case())
    assert (out.status, out.cls, out.name) == ("mismatch", "xla_deviation", entry.name), out.report()


def test_one_table_with_unique_names() -> None:
    names = [e.name for e in DEVIATIONS + IMPLEMENTATION_DEFINED + KNOWN_BUGS]
    assert len(names) == len(set(names))
    for e in DEVIATIONS:
        assert e.description and e.source and e.args and e.spec and set(e.jaxlibs) <= {"0.10", "0.12"}
    for e in IMPLEMENTATION_DEFINED:
        assert e.description
