"""The spec's total order on the FNUZ float types: their one NaN (0x80, the sign bit alone) is -NaN,
below every other value (IEEE totalOrder; XLA CPU sorts it first), and every other value orders as its
number.  Found by the differential fuzzer (tests/differential): sort put the NaN between the negative
numbers and +0."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.semantics.total_order import total_order_key

FNUZ = ["float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz"]


@pytest.mark.parametrize("name", FNUZ)
def test_fnuz_nan_is_least(name: str) -> None:
    dt = np.dtype(getattr(ml_dtypes, name))
    x = np.arange(256, dtype=np.uint8).view(dt)
    order = np.argsort(total_order_key(x), kind="stable")
    assert order[0] == 0x80
    rest = x[order[1:]].astype(np.float64)
    assert not np.isnan(rest).any()
    assert (np.diff(rest) > 0).all()  # strictly increasing: no -0, every value distinct


def test_ieee_types_unchanged() -> None:
    x = np.array([np.nan, -np.nan, -np.inf, -0.0, 0.0, 1.0], np.float32)
    keys = total_order_key(x)
    assert list(np.argsort(keys, kind="stable")) == [1, 2, 3, 4, 5, 0]


@pytest.mark.parametrize("name", FNUZ)
def test_compare_totalorder_puts_fnuz_nan_first(name: str) -> None:
    """elementwise compare TOTALORDER (what JAX's sort comparator calls) orders the NaN first too."""
    from stablehlo_py.semantics.elementwise import compare

    dt = np.dtype(getattr(ml_dtypes, name))
    nan = np.array([0x80], np.uint8).view(dt)
    others = np.arange(256, dtype=np.uint8)
    others = others[others != 0x80].view(dt)
    assert compare(np.repeat(nan, others.size), others, "LT", "TOTALORDER").all()
    assert not compare(others, np.repeat(nan, others.size), "LT", "TOTALORDER").any()
