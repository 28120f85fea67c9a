"""The element-type table: MLIR spelling <-> numpy dtype and predicates."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.semantics import dtypes as dt

from stablehlo_py.errors import NotSupportedError
from tests.unit.interpreter.helpers import FLOAT_TYPES, INT_TYPES

SPEC_ELEMENT_TYPES = [
    "i1",
    *INT_TYPES,
    *FLOAT_TYPES[:11],
    "f8E8M0FNU",
    *FLOAT_TYPES[11:],
    "complex<f32>",
    "complex<f64>",
]


def test_table_covers_every_spec_element_type():
    assert set(SPEC_ELEMENT_TYPES) <= set(dt.ELEMENT_TYPES)
    for name in SPEC_ELEMENT_TYPES:
        assert dt.name_of(dt.dtype_of(name)) == name


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("i1", np.bool_),
        ("i2", ml_dtypes.int2),
        ("i4", ml_dtypes.int4),
        ("ui4", ml_dtypes.uint4),
        ("ui64", np.uint64),
        ("bf16", ml_dtypes.bfloat16),
        ("f16", np.float16),
        ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
        ("f4E2M1FN", ml_dtypes.float4_e2m1fn),
        ("complex<f64>", np.complex128),
    ],
)
def test_spelling_to_dtype(name, dtype):
    assert dt.dtype_of(name) == np.dtype(dtype)


def test_tf32_is_a_clear_not_supported():
    if "tf32" in dt.ELEMENT_TYPES:
        pytest.skip("this ml_dtypes provides tf32")
    with pytest.raises(NotSupportedError, match="tf32"):
        dt.dtype_of("tf32")


def test_unknown_type_is_not_supported():
    with pytest.raises(NotSupportedError):
        dt.element_type("f7")
    with pytest.raises(NotSupportedError):
        dt.element_type(np.dtype("U3"))


def test_predicates_partition_the_table():
    predicates = (dt.is_bool, dt.is_signed_int, dt.is_unsigned_int, dt.is_float, dt.is_complex)
    for name in dt.ELEMENT_TYPES:
        assert sum(p(name) for p in predicates) == 1, name
    assert dt.is_int("i4") and dt.is_int("ui64") and not dt.is_int("i1")
    assert dt.is_float(np.float32) and dt.is_float(np.zeros(2, ml_dtypes.bfloat16))


@pytest.mark.parametrize(
    ("name", "bits"),
    [
        ("i1", 1),
        ("i2", 2),
        ("ui4", 4),
        ("i64", 64),
        ("bf16", 16),
        ("f6E3M2FN", 6),
        ("f4E2M1FN", 4),
        ("f8E8M0FNU", 8),
        ("complex<f32>", 64),
        ("complex<f64>", 128),
    ],
)
def test_bitwidth(name, bits):
    assert dt.bitwidth(name) == bits


def test_min_max_values():
    assert (dt.min_value("i4"), dt.max_value("i4")) == (-8, 7)
    assert (dt.min_value("ui2"), dt.max_value("ui2")) == (0, 3)
    assert (dt.min_value("i64"), dt.max_value("i64")) == (-(2**63), 2**63 - 1)
    assert dt.max_value("ui64") == 2**64 - 1
    assert (dt.min_value("i1"), dt.max_value("i1")) == (False, True)
    assert dt.max_value("f8E4M3FN") == 448.0
    assert dt.max_value("bf16") == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert dt.min_value("f16") == -65504.0
    with pytest.raises(NotSupportedError):
        dt.max_value("complex<f32>")


def test_complex_parts():
    assert dt.complex_element_type("complex<f32>") == np.float32
    assert dt.complex_type_of("f64") == np.complex128
    with pytest.raises(NotSupportedError):
        dt.complex_type_of("bf16")
    assert dt.mantissa_bits("f32") == 23 and dt.mantissa_bits("bf16") == 7
