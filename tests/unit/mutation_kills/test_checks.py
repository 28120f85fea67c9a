"""interpreter/checks.py: what the mutation run of the `checks` group found unchecked.

The check ops decide the conformance verdicts, so their *messages* are part of the contract (the
CLI prints them; a message that names the wrong element or the wrong count misleads whoever reads
a failing test).  The expected strings below are written out by hand from the format
"N element(s) differ[ by more than T]: at [i]: got A, expected E; ... (and K more)".  Tolerances
are compared in float64 as upstream's ``areApproximatelyEqual`` (stablehlo/reference/Element.cpp:
``fabs(double(f) - double(g)) <= tolerance``), never in the operands' own type."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.interpreter.checks import expect_almost_eq, expect_close, expect_eq


def test_message_names_each_differing_element_with_got_and_expected() -> None:
    msg = expect_eq(np.float32([1.0, 5.0, 0.1]), np.float32([1.0, 6.0, 0.2]))
    # numpy's shortest float32 text ("0.1"), not the widened double 0.10000000149011612
    assert msg == "2 element(s) differ: at [1]: got 5.0, expected 6.0; at [2]: got 0.1, expected 0.2"


def test_message_of_a_scalar() -> None:
    assert expect_eq(np.int32(3), np.int32(4)) == "1 element(s) differ: at []: got 3, expected 4"


@pytest.mark.parametrize(
    "n,tail",
    [
        (5, ""),  # exactly the number shown: nothing more to count
        (6, " (and 1 more)"),
        (8, " (and 3 more)"),
    ],
)
def test_message_shows_five_and_counts_the_rest(n: int, tail: str) -> None:
    got = np.arange(1, n + 1, dtype=np.int64)
    want = np.zeros(n, dtype=np.int64)
    shown = "; ".join(f"at [{i}]: got {i + 1}, expected 0" for i in range(5))
    assert expect_eq(got, want) == f"{n} element(s) differ: {shown}{tail}"


def test_message_two_dimensional_index() -> None:
    got = np.array([[1, 2], [3, 4]], dtype=np.int8)
    want = np.array([[1, 2], [3, 5]], dtype=np.int8)
    assert expect_eq(got, want) == "1 element(s) differ: at [1, 1]: got 4, expected 5"


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_expect_eq_nan_against_a_number_and_signed_zeros(dt: type) -> None:
    # whether NaN equals NaN is upstream's APFloat `==` (it does not); that is checked with the
    # check ops' own tests -- here only what every reading agrees on
    assert expect_eq(np.array([np.nan], dt), np.array([1.0], dt)) == (
        "1 element(s) differ: at [0]: got nan, expected 1.0"
    )
    assert expect_eq(np.array([1.0], dt), np.array([np.nan], dt)) is not None
    assert expect_eq(np.array([-0.0, 2.0], dt), np.array([0.0, 2.0], dt)) is None


def test_expect_eq_complex() -> None:
    c = np.array([1 + 2j, -3.5j], np.complex64)
    assert expect_eq(c, c.copy()) is None
    assert expect_eq(c, np.array([1 + 2.5j, -3.5j], np.complex64)) == (
        "1 element(s) differ: at [0]: got (1+2j), expected (1+2.5j)"
    )
    assert expect_eq(np.array([complex(np.nan, 0.0)], np.complex64), np.array([1 + 0j], np.complex64)) is not None


def test_expect_almost_eq_message() -> None:
    msg = expect_almost_eq(np.float32([0.1, 1.0]), np.float32([0.2, 1.0]))
    assert msg == "1 element(s) differ by more than 0.0001: at [0]: got 0.1, expected 0.2"


def test_expect_almost_eq_integers_compare_exactly() -> None:
    assert expect_almost_eq(np.int32([1, 2]), np.int32([1, 2])) is None
    assert expect_almost_eq(np.int32([1, 2]), np.int32([1, 3])) == (
        "1 element(s) differ: at [1]: got 2, expected 3"
    )


def test_expect_almost_eq_compares_in_double_not_in_the_operand_type() -> None:
    # f16(0.1) = 0.0999755859375 is 5.6e-6 above the tolerance 0.09997; rounded to f16 the
    # tolerance would become 0.0999755859375 itself and the check would wrongly hold.
    assert expect_almost_eq(np.float16([0.0]), np.float16([0.1]), tolerance=0.09997) == (
        "1 element(s) differ by more than 0.09997: at [0]: got 0.0, expected 0.1"
    )
    assert expect_almost_eq(np.float16([0.0]), np.float16([0.1]), tolerance=0.09998) is None


def test_expect_almost_eq_raises_no_floating_point_error() -> None:
    # inf - inf (invalid) and max - (-max) (overflow) are part of the comparison; a caller that
    # makes numpy raise on them must still get a verdict
    big = np.finfo(np.float64).max
    with np.errstate(all="raise"):
        assert expect_almost_eq(np.float64([np.inf]), np.float64([np.inf])) is None
        assert expect_almost_eq(np.float64([big]), np.float64([-big])) is not None
        assert expect_almost_eq(np.float64([np.inf]), np.float64([-np.inf])) is not None


def test_expect_close_integers_compare_exactly() -> None:
    assert expect_close(np.int32([1, 2]), np.int32([1, 2])) is None
    assert expect_close(np.int32([1, 2]), np.int32([1, 3])) == "1 element(s) differ: at [1]: got 2, expected 3"


def test_expect_close_message_names_a_non_finite_difference() -> None:
    assert expect_close(np.float32([np.inf, 1.0]), np.float32([1.0, 1.0])) == (
        "1 element(s) differ by more than 1 ULP (largest difference: non-finite): "
        "at [0]: got inf, expected 1.0"
    )


def test_expect_close_message_counts_ulps() -> None:
    one = np.float32(1.0)
    three_up = np.nextafter(np.nextafter(np.nextafter(one, 2), 2), 2)
    assert expect_close(np.float32([three_up]), np.float32([one])) == (
        "1 element(s) differ by more than 1 ULP (largest difference: 3 ULP): "
        "at [0]: got 1.0000004, expected 1.0"
    )
