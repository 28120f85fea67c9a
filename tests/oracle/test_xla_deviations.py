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


# ------------------------------------------------------------------------------------------------
# the classifier on outcomes whose XLA side is edited: it names a class only for what the class
# explains, and anything else is a bug of ours ("new")
# ------------------------------------------------------------------------------------------------


def _outcome(source: str, args: tuple, theirs_edit=None, family="elementwise_unary", ops=("negate",),
             dtype="float32"):
    from tests.differential.generator import Case
    from tests.differential.runner import Outcome

    case = Case(-1, 0, family, ops, source, tuple(np.asarray(a) for a in args), {"dtype": dtype})
    with jax.enable_x64(True), np.errstate(all="ignore"):
        lowered = lower(case.fn(), case.args)
        theirs = run_xla(lowered, case.args)
        ours = run_ours(lowered.as_text(), case.args)
    if theirs_edit is not None:
        theirs = theirs_edit([t.copy() for t in theirs])
    return Outcome(case, "mismatch", text=lowered.as_text(), ours=ours, theirs=theirs)


def _classify(out):
    from tests.differential.xla_deviations import classify

    res = cmp.compare(out.ours, out.theirs, cmp.tolerance(out.case))
    assert not res.ok
    with jax.enable_x64(True), np.errstate(all="ignore"):
        return classify(out, res)


def _set(i, value):
    def edit(ts):
        ts[0].reshape(-1)[i] = value
        return ts

    return edit


def test_a_wrong_value_is_a_new_bug() -> None:
    out = _outcome("lambda x0: lax.exp(x0)", (np.array([1.0, 2.0], np.float32),), ops=("exponential",))
    out.ours[0][1] = 7.5  # ours wrong, XLA's right
    assert _classify(out) == ("bug", "new")


def test_ftz_emulation_flushes_intermediates_only_while_installed() -> None:
    from tests.differential.xla_deviations import run_ours_ftz

    text = lower(lambda x: (x * x) * np.float32(1e20), (np.array([1e-20], np.float32),)).as_text()
    args = (np.array([1e-20], np.float32),)
    assert run_ours_ftz(text, args)[0][0] == 0
    assert run_ours(text, args)[0][0] == np.float32(9.999946e-21)  # the hook is gone
    # the emulation explains XLA's 0, not another value
    wrong = _outcome("lambda x: (x * x) * np.float32(1e20)", args, _set(0, 5e-21), family="elementwise_binary",
                     ops=("multiply", "chain"))
    assert _classify(wrong) == ("bug", "new")


def test_complex_zero_sign_within_tolerance_only() -> None:
    z = (np.array([-0.0 - 0.0227043j], np.complex64),)

    def flip(ts):
        ts[0].real = 0.0  # +0 where ours (tan is odd) is -0
        return ts

    out = _outcome("lambda x0: lax.tan(x0)", z, flip, ops=("tan",), dtype="complex64")
    assert np.signbit(out.ours[0].real[0])
    assert _classify(out) == ("implementation_defined", "complex_zero_sign")

    out.ours[0].imag = out.ours[0].imag * np.float32(1.001)  # and ours off beyond the tolerance
    assert _classify(out) == ("bug", "new")


def test_iota_without_zero() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")

    def smallest(ts):
        ts[0].reshape(-1)[0] = ml_dtypes.float8_e8m0fnu(2.0**-127)
        return ts

    src = "lambda: lax.broadcasted_iota(jnp.float8_e8m0fnu, (2,), 0)"
    out = _outcome(src, (), smallest, family="data_movement", ops=("iota",), dtype="float8_e8m0fnu")
    assert np.isnan(out.ours[0][0].astype(np.float32))
    assert _classify(out) == ("implementation_defined", "iota_zero_without_zero")
    assert _classify(_outcome(src, (), _set(1, ml_dtypes.float8_e8m0fnu(2.0)), family="data_movement",
                              ops=("iota",), dtype="float8_e8m0fnu")) == ("bug", "new")


def test_chlo_departure_needs_ours_exact() -> None:
    """The CHLO class holds only where ours is within 16 ulps of the exact value and XLA's is not."""
    z = (np.array([1e-30 + 1j, 0.5 + 0.5j], np.complex64),)
    edit = _set(1, np.complex64(0.6 + 0.4j))  # XLA made wrong where ours is right: not the class
    out = _outcome("lambda x0: lax.atan(x0)", z, edit, ops=("atan",), dtype="complex64")
    out.ours[0][1] = np.complex64(0.7 + 0.4j)  # and ours wrong too
    assert _classify(out) == ("bug", "new")


def test_chain_origin_needs_the_first_ops_value_to_explain_it() -> None:
    """A chain's mismatch takes its first op's class only when our program fed XLA's value of that op
    gives XLA's result; an edit of the chain's result is explained by nothing."""
    args = (np.array([0.5, 1.5], np.float32),)
    out = _outcome("lambda x0: lax.sqrt(lax.abs(lax.exp(x0)))", args, _set(0, 9.0),
                   ops=("exponential", "chain"))
    assert _classify(out) == ("bug", "new")


def test_xla_less_accurate_needs_ours_beside_numpy() -> None:
    x = np.array([-0.3929295404756191, 0.25])
    far = _set(0, np.nextafter(np.log1p(x[0]), 0.0) + 64 * np.spacing(np.log1p(x[0])))
    out = _outcome("lambda x0: lax.log1p(x0)", (x,), far, ops=("log_plus_one",), dtype="float64")
    assert _classify(out) == ("implementation_defined", "xla_less_accurate")
    out.ours[0][0] = out.ours[0][0] + 8 * np.spacing(out.ours[0][0])  # ours 8 ulps from numpy's
    assert _classify(out) == ("bug", "new")


def test_dot_fma_overflow_on_float64() -> None:
    """float64 has no wider type: the operands scaled by 2**-512 keep the products finite.  XLA's
    fused multiply-add keeps 1e300 * 1e300 exact, so inf + 1e600 = inf where the spec's rounded
    product gives inf - inf = NaN (XLA's value is set here, whatever this jaxlib computes)."""
    args = (np.array([[np.inf, -1e300]]), np.array([[1.0], [1e300]]))
    out = _outcome("lambda x0, x1: lax.dot(x0, x1)", args, _set(0, np.inf), family="dot_conv",
                   ops=("dot_general",), dtype="float64")
    assert np.isnan(out.ours[0][0, 0])
    assert _classify(out) == ("xla_deviation", "fma_contraction")
    # a NaN of ours that the exact products do not remove (inf * 0) is not the class
    nan = _outcome("lambda x0, x1: lax.dot(x0, x1)", (np.array([[np.inf, 1.0]]), np.array([[0.0], [1.0]])),
                   _set(0, np.inf), family="dot_conv", ops=("dot_general",), dtype="float64")
    assert _classify(nan) == ("bug", "new")


def test_complex_power_zero_sign_with_extremes() -> None:
    """x ** (-0 - 0j) = 1 -+ 0j (the sign of the zero part follows the formula) beside an overflowing
    element: one class; a wrong finite value beside them is a bug."""
    x = np.array([65536 + 3.21475j, 75.21992 - 8.847786e-05j], np.complex64)
    y = np.array([complex(-0.0, -0.0), 3.4028235e38 - 0.12844098j], np.complex64)

    def edit(ts):
        ts[0][0] = np.complex64(complex(1.0, -np.copysign(0.0, out_ours_imag[0])))
        ts[0][1] = np.complex64(complex(-np.inf, np.inf)) if np.signbit(ts[0][1].imag) else np.complex64(
            complex(-np.inf, -np.inf))
        return ts

    plain = _outcome("lambda x0, x1: lax.pow(x0, x1)", (x, y), family="elementwise_binary", ops=("power",),
                     dtype="complex64")
    out_ours_imag = [plain.ours[0][0].imag]
    out = _outcome("lambda x0, x1: lax.pow(x0, x1)", (x, y), edit, family="elementwise_binary", ops=("power",),
                   dtype="complex64")
    assert _classify(out) == ("implementation_defined", "complex_power_extremes")
    out.theirs[0][0] = np.complex64(1.5)
    assert _classify(out) == ("bug", "new")


def test_expanded_logistic_amplifies_the_exponential() -> None:
    """JAX lowers complex logistic as 1 / (1 + exp(-x)); near a pole the division amplifies a 1-ulp
    difference of exp (jaxlib 0.10's exp differs from ours there, 0.12's does not).  Our program fed
    XLA's exp gives XLA's result: chain_amplified_accuracy; an XLA value that exp does not explain is
    a bug."""
    from tests.differential.xla_deviations import classify

    z = (np.array([6881500233726070430], dtype=np.uint64).view(np.complex64).reshape(()),)
    out = _outcome("lambda x0: lax.logistic(x0)", z, ops=("logistic",), dtype="complex64")
    assert "stablehlo.logistic" not in out.text and "stablehlo.exponential" in out.text
    res = cmp.compare(out.ours, out.theirs, cmp.tolerance(out.case))
    if not res.ok:
        with jax.enable_x64(True), np.errstate(all="ignore"):
            assert classify(out, res) == ("implementation_defined", "chain_amplified_accuracy")
    out.theirs = [t * np.float32(1.01) for t in out.theirs]
    assert _classify(out) == ("bug", "new")
