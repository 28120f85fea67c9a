"""Elementwise and CHLO semantics against upstream's test data, read from ../shared/conformance.

Two sources, both skipped cleanly when the shared folder is absent (e.g. in a user's clone):

* ``interpret/<op>.mlir``: the single-op ``// -----`` chunks (constants, one op, a
  ``check.expect_eq_const``/``expect_almost_eq_const``) of the elementwise ops this package implements;
* ``testdata/*_chlo.mlir``: the JAX programs that apply one CHLO op to ``@inputs()`` and compare with
  ``@expected()`` (``expect_close``: 3 ulp, ``expect_almost_eq``: 1e-3, ``expect_eq``: exact).

The tiny literal parser below only reads ``dense<...>`` constants (lists, splats, hex, complex pairs);
it is test scaffolding, not the IR layer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from stablehlo_py.semantics import dtypes as dt
from stablehlo_py import semantics as S
from stablehlo_py.semantics import _common, chlo

from tests.conftest import CONFORMANCE  # noqa: E402
INTERPRET = CONFORMANCE / "interpret"
TESTDATA = CONFORMANCE / "testdata"

TENSOR = r"tensor<(?:[^<>]|<[^<>]*>)*>"


# --- literals ----------------------------------------------------------------------------------------


def parse_type(text: str) -> tuple[tuple[int, ...], np.dtype[Any]]:
    m = re.fullmatch(r"tensor<((?:\d+x)*)(.+)>", text.strip())
    assert m, text
    return tuple(int(d) for d in m.group(1).split("x") if d), dt.as_dtype(m.group(2))


def _scalar(token: str, dtype: np.dtype[Any]) -> Any:
    if token.startswith("0x") and not dt.is_float(dtype):
        return int(token, 16)
    if token.startswith("0x"):
        return _common.from_bits(np.asarray(int(token, 16), dtype=np.uint64), dtype)
    if token in ("true", "false"):
        return token == "true"
    if dt.is_int(dtype) or dt.is_bool(dtype):
        return int(token)
    return _common.round_float(np.asarray(float(token)), dtype)


def parse_dense(body: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    body = body.strip()
    count = int(np.prod(shape)) if shape else 1
    if body.startswith('"0x'):
        flat = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=dtype)
        return np.resize(flat, count).reshape(shape)
    tokens = re.findall(
        r"0x[0-9A-Fa-f]+|true|false|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)", body
    )
    if dt.is_complex(dtype):
        part = dt.complex_element_type(dtype)
        parts = [np.asarray(_scalar(t, part)) for t in tokens]
        flat = np.empty(len(parts) // 2, dtype=dtype)
        flat.real = np.array([p.astype(np.float64) for p in parts[0::2]]).astype(part)
        flat.imag = np.array([p.astype(np.float64) for p in parts[1::2]]).astype(part)
    elif dt.is_float(dtype):
        flat = np.array(
            [_common.to_bits(np.asarray(_scalar(t, dtype))) for t in tokens], dtype=np.uint64
        )
        flat = _common.from_bits(flat, dtype)
    elif dt.is_bool(dtype):
        flat = np.array([bool(_scalar(t, dtype)) for t in tokens])
    else:
        values = [_scalar(t, dtype) for t in tokens]
        flat = _common.from_bits(
            np.array([v & (2**64 - 1) for v in values], dtype=np.uint64), dtype
        )
    return np.resize(flat, count).reshape(shape)


# --- comparisons (upstream's check dialect) ----------------------------------------------------------


def _approx_equal(got: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    """``areApproximatelyEqual`` of Element.cpp."""
    g, e = got.astype(np.float64), expected.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(e)
    with np.errstate(invalid="ignore"):
        close = (np.abs(g - e) <= tolerance) & (np.signbit(g) == np.signbit(e))
    return (g == e) | both_nan | (close & np.isfinite(g) & np.isfinite(e))


def _ulp_close(got: np.ndarray, expected: np.ndarray, max_ulp: int) -> np.ndarray:
    both_nan = np.isnan(got.astype(np.float64)) & np.isnan(expected.astype(np.float64))
    distance = np.abs(_common.totalorder_key(got) - _common.totalorder_key(expected))
    return both_nan | (distance <= max_ulp)


def matches(got: np.ndarray, expected: np.ndarray, check: str) -> np.ndarray:
    if dt.is_complex(got.dtype):
        re_ok = matches(np.real(got).copy(), np.real(expected).copy(), check)
        return re_ok & matches(np.imag(got).copy(), np.imag(expected).copy(), check)
    if not dt.is_float(got.dtype):
        return np.asarray(got == expected)
    if check in ("expect_eq", "expect_eq_const"):
        return _approx_equal(got, expected, 0.0)
    if check == "expect_close":
        return _ulp_close(got, expected, 3)
    tolerance = 1e-3 if check == "expect_almost_eq" else 1e-4
    return _approx_equal(got, expected, tolerance)


# --- interpret/*.mlir: single-op chunks --------------------------------------------------------------

BINARY = {
    "add": S.add,
    "subtract": S.subtract,
    "multiply": S.multiply,
    "divide": S.divide,
    "remainder": S.remainder,
    "power": S.power,
    "maximum": S.maximum,
    "minimum": S.minimum,
    "atan2": S.atan2,
    "and": S.and_,
    "or": S.or_,
    "xor": S.xor,
    "shift_left": S.shift_left,
    "shift_right_arithmetic": S.shift_right_arithmetic,
    "shift_right_logical": S.shift_right_logical,
    "complex": S.complex,
}
UNARY = {
    "abs": S.abs,
    "cbrt": S.cbrt,
    "ceil": S.ceil,
    "cosine": S.cosine,
    "exponential": S.exponential,
    "exponential_minus_one": S.exponential_minus_one,
    "floor": S.floor,
    "imag": S.imag,
    "is_finite": S.is_finite,
    "log": S.log,
    "log_plus_one": S.log_plus_one,
    "logistic": S.logistic,
    "negate": S.negate,
    "not": S.not_,
    "popcnt": S.popcnt,
    "count_leading_zeros": S.count_leading_zeros,
    "real": S.real,
    "round_nearest_afz": S.round_nearest_afz,
    "round_nearest_even": S.round_nearest_even,
    "rsqrt": S.rsqrt,
    "sign": S.sign,
    "sine": S.sine,
    "sqrt": S.sqrt,
    "tan": S.tan,
    "tanh": S.tanh,
}
OTHER = ("clamp", "select", "compare", "convert", "bitcast_convert", "reduce_precision")
OP_FILES = sorted(set(BINARY) | set(UNARY) | set(OTHER))


def _run_op(op: str, operands: list[np.ndarray], text: str) -> np.ndarray:
    result_shape, result_dtype = parse_type(re.findall(TENSOR, text)[-1])
    if op in BINARY:
        return BINARY[op](*operands)
    if op in UNARY:
        return UNARY[op](*operands)
    if op in ("clamp", "select"):
        return getattr(S, op)(*operands)
    if op == "compare":
        words = re.findall(r"\b(EQ|NE|GE|GT|LE|LT|FLOAT|TOTALORDER|SIGNED|UNSIGNED)\b", text)
        return S.compare(*operands, words[0], words[1] if len(words) > 1 else None)
    if op == "convert":
        return S.convert(operands[0], result_dtype)
    if op == "bitcast_convert":
        return S.bitcast_convert(operands[0], result_dtype, result_shape)
    if op == "reduce_precision":
        e, m = re.search(r"format = e(\d+)m(\d+)", text).groups()
        return S.reduce_precision(operands[0], int(e), int(m))
    raise AssertionError(op)


def interpret_cases(op: str) -> list[tuple[str, Any]]:
    path = INTERPRET / f"{op}.mlir"
    cases = []
    for index, chunk in enumerate(path.read_text().split("// -----")):
        chunk = "\n".join(line for line in chunk.splitlines() if not line.strip().startswith("//"))
        constants = {
            m.group(1): parse_dense(m.group(2), *parse_type(m.group(3)))
            for m in re.finditer(
                rf"(%\w+) = stablehlo\.constant dense<(.*?)>\s*:\s*({TENSOR})", chunk, re.DOTALL
            )
        }
        ops = [
            m
            for m in re.finditer(r"(%\w+) = \"?stablehlo\.(\w+)\"?(.*?)\n", chunk)
            if m.group(2) != "constant"
        ]
        checks = list(
            re.finditer(
                rf"check\.(expect_eq_const|expect_almost_eq_const) (%\w+),\s*"
                rf"dense<(.*?)>\s*:\s*({TENSOR})",
                chunk,
                re.DOTALL,
            )
        )
        if len(ops) != 1 or len(checks) != 1 or ops[0].group(2) != op:
            continue
        operand_names = re.findall(r"%\w+", ops[0].group(3).split(" : ")[0])
        if not all(name in constants for name in operand_names):
            continue
        check = checks[0]
        expected = parse_dense(check.group(3), *parse_type(check.group(4)))
        cases.append(
            (f"{op}#{index}", (operand_names, ops[0].group(3), constants, check.group(1), expected))
        )
    return cases


@pytest.mark.skipif(not INTERPRET.is_dir(), reason="../shared/conformance is not available")
@pytest.mark.parametrize("op", OP_FILES)
def test_interpret_file(op):
    cases = interpret_cases(op)
    assert cases, f"no single-op chunk recognised in interpret/{op}.mlir"
    failures = []
    for name, (operand_names, text, constants, check, expected) in cases:
        got = _run_op(op, [constants[n] for n in operand_names], text)
        assert isinstance(got, np.ndarray), name
        ok = (
            got.shape == expected.shape
            and got.dtype == expected.dtype
            and bool(np.all(matches(got, expected, check)))
        )
        if not ok:
            failures.append(f"{name}: got {got!r}, expected {expected!r}")
    assert not failures, "\n".join(failures)


# --- testdata/*_chlo.mlir: one CHLO op on @inputs() against @expected() -------------------------------

CHLO_UNARY = {
    "acos": chlo.acos,
    "acosh": chlo.acosh,
    "asin": chlo.asin,
    "asinh": chlo.asinh,
    "atan": chlo.atan,
    "atanh": chlo.atanh,
    "bessel_i1e": chlo.bessel_i1e,
    "cosh": chlo.cosh,
    "digamma": chlo.digamma,
    "erf": chlo.erf,
    "erf_inv": chlo.erf_inv,
    "erfc": chlo.erfc,
    "lgamma": chlo.lgamma,
    "sinh": chlo.sinh,
    "tan": chlo.tan,
}


def _function_constants(text: str, name: str) -> list[np.ndarray]:
    block = re.search(rf"func\.func private @{name}\(\)(.*?)\n  }}", text, re.DOTALL).group(1)
    constants = {
        m.group(1): parse_dense(m.group(2), *parse_type(m.group(3)))
        for m in re.finditer(
            rf"(%\w+) = stablehlo\.constant dense<(.*?)>\s*:\s*({TENSOR})", block, re.DOTALL
        )
    }
    returned = re.search(r"return (.*?) :", block).group(1)
    return [constants[r.strip()] for r in returned.split(",")]


def chlo_cases() -> list[Path]:
    return sorted(TESTDATA.glob("*_chlo.mlir")) if TESTDATA.is_dir() else []


def _apply_chlo(body: list[str], inputs: list[np.ndarray]) -> list[np.ndarray] | None:
    if (
        len(body) == 1
        and (m := re.match(r"%\d+ = chlo\.(\w+) %0 :", body[0]))
        and m.group(1) in CHLO_UNARY
    ):
        return [CHLO_UNARY[m.group(1)](inputs[0])]
    if len(body) == 1 and "chlo.next_after %0#0, %0#1" in body[0]:
        return [chlo.next_after(inputs[0], inputs[1])]
    if len(body) == 2 and "chlo.next_after %0#0, %2" in body[1]:
        return [chlo.next_after(inputs[0], np.broadcast_to(inputs[1], inputs[0].shape))]
    if len(body) == 1 and "chlo.top_k" in body[0]:
        return list(chlo.top_k(inputs[0], int(re.search(r"k = (\d+)", body[0]).group(1))))
    return None


@pytest.mark.skipif(not TESTDATA.is_dir(), reason="../shared/conformance is not available")
def test_chlo_testdata():
    ran, failures = [], []
    for path in chlo_cases():
        text = path.read_text()
        main = re.search(r"func\.func public @main\(\)(.*?)\n  }", text, re.DOTALL).group(1)
        lines = [line.strip() for line in main.strip().splitlines()[1:]]
        body = [
            line
            for line in lines
            if not line.startswith(("%0", "%1", "return")) and "custom_call" not in line
        ]
        checks = re.findall(r"@check\.(\w+)\(", main)
        inputs = _function_constants(text, "inputs")
        got = _apply_chlo(body, inputs)
        if got is None:
            continue  # composite programs (igamma, random_gamma, ...) belong to the conformance suite
        expected = _function_constants(text, "expected")
        ran.append(path.name)
        for g, e, check in zip(got, expected, checks):
            if not (g.dtype == e.dtype and bool(np.all(matches(g, e, check)))):
                failures.append(path.name)
    assert len(ran) >= 60, ran
    assert not failures, failures
