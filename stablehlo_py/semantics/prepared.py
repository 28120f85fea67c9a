"""Elementwise semantics prepared for one element type, chosen once when an op is compiled.

``prepare(name, dtypes, **attrs)`` returns a function equal, bit for bit, to the semantics
function ``name`` (``elementwise.py``, ``bitwise.py``, ``conversion.convert``) on operands of the
numpy dtypes ``dtypes``, or None when this module has nothing better than the general function.
What a prepared function skips, and why the bits stay the same:

* the per-call dispatch on the element type (``element_type`` lookups, ``np.asarray`` copies);
* the float64 round trip where the element type's own operation is the same: IEEE ``+ - * / fmod``
  on f32/f64 are correctly rounded in numpy as in APFloat, comparisons, ``maximum``/``minimum``
  and ``select`` are exact in any float type, ``negate``/``abs`` are the same sign-bit flip;
* functions computed in double (``tanh``, ``exp``, ...) still are, on a fresh float64 copy, with
  the same numpy call; rounding to f16/f32 is one numpy cast (correctly rounded, as ``round_float``).

Each prepared function tests its operands' dtypes first (one identity test each: the dtypes
it was prepared for) and calls the general semantics function for anything else, so it is never
less correct than that function.  Prepared functions do not enter ``np.errstate``: the evaluator
runs programs with numpy's floating-point warnings off (``Evaluator.run_func``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import bitwise, conversion, elementwise
from ._common import round_float

Array = np.ndarray
Fn = Callable[..., Any]

_ND = np.ndarray
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)
# The dtypes whose IEEE arithmetic numpy computes in the type itself (see _common.round_float).
_NATIVE = (_F32, _F64)
# Float types a float64 value rounds to by one numpy cast (correctly rounded).
_ONE_CAST = (_F16, _F32, _F64)
# Float types whose values compare, select and flip signs exactly in numpy.
_IEEE = (_F16, _F32, _F64)
_INTS = tuple(
    np.dtype(t)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
)
_UINT_OF_SIZE = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}

_asarray = np.asarray
_isnan = np.isnan
_where = np.where
_vdot = np.vdot
_scalar_isnan = math.isnan
_signbit = np.signbit


def _general(name: str) -> Fn:
    fn = getattr(elementwise, name, None) or getattr(bitwise, name + "_", None)
    if fn is None:
        fn = getattr(bitwise, name)
    return fn


# --------------------------------------------------------------------------------- builders


def _unary(fast: Fn, general: Fn, d: np.dtype[Any]) -> Fn:
    def run(operand: Any) -> Any:
        if type(operand) is _ND and operand.dtype is d:
            return fast(operand)
        return general(operand)

    return run


def _binary(fast: Fn, general: Fn, d: np.dtype[Any]) -> Fn:
    def run(lhs: Any, rhs: Any) -> Any:
        if type(lhs) is _ND and type(rhs) is _ND and lhs.dtype is d and rhs.dtype is d:
            return fast(lhs, rhs)
        return general(lhs, rhs)

    return run


def _ieee_arith(ufunc: Any, d: np.dtype[Any]) -> Fn:
    """``elementwise._float_binary`` on a native float type: the ufunc in the type, then an
    invalid operation's NaN (x86's -qNaN) replaced by APFloat's +qNaN.  ``vdot(r, r)`` is NaN
    exactly when some element of ``r`` is (a sum of squares has no inf - inf)."""
    qnan = round_float(np.asarray(np.nan), d)

    def fast(lhs: Array, rhs: Array) -> Array:
        r = ufunc(lhs, rhs)
        if _scalar_isnan(_vdot(r, r)):
            invalid = _isnan(r) & ~_isnan(lhs) & ~_isnan(rhs)
            r = _where(invalid, qnan, r)
        return _asarray(r)

    return fast


def _ufunc(ufunc: Any) -> Fn:
    def fast(*args: Array) -> Array:
        return _asarray(ufunc(*args))

    return fast


def _via_double(fn: Fn, d: np.dtype[Any]) -> Fn:
    """``elementwise._via_double`` on f16/f32/f64: ``fn`` on a float64 copy, rounded by one cast."""
    if d is _F64:

        def fast64(x: Array) -> Array:
            return _asarray(fn(x.astype(_F64)))

        return fast64

    def fast(x: Array) -> Array:
        return _asarray(_asarray(fn(x.astype(_F64))).astype(d))

    return fast


def _sign_bit_op(ufunc: Any, d: np.dtype[Any], keep_sign: bool) -> Fn:
    """negate (flip the sign bit) or abs (clear it) as ``elementwise`` does, on the bits."""
    u = _UINT_OF_SIZE[d.itemsize]
    bit = 1 << (8 * d.itemsize - 1)
    mask = u.type(bit - 1 if keep_sign else bit)

    def fast(x: Array) -> Array:
        return _asarray(ufunc(x.view(u), mask)).view(d)

    return fast


def _extremum(pick: Fn) -> Fn:
    """``elementwise._float_extremum`` without the float64 copies (comparisons are exact)."""

    def fast(lhs: Array, rhs: Array) -> Array:
        chosen = _where(pick(lhs, rhs), lhs, rhs)
        return _asarray(_where(_isnan(lhs), lhs, _where(_isnan(rhs), rhs, chosen)))

    return fast


def _pick_max(a: Array, b: Array) -> Array:
    return (a > b) | ((a == b) & ~_signbit(a))


def _pick_min(a: Array, b: Array) -> Array:
    return (a < b) | ((a == b) & _signbit(a))


# ------------------------------------------------------------------------------------ tables

_ARITH = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "remainder": np.fmod,
}
_VIA_DOUBLE: dict[str, Fn] = {
    "cbrt": np.cbrt,
    "cosine": np.cos,
    "sine": np.sin,
    "tan": np.tan,
    "tanh": np.tanh,
    "exponential": np.exp,
    "exponential_minus_one": np.expm1,
    "log": np.log,
    "log_plus_one": np.log1p,
    "sqrt": np.sqrt,
    "rsqrt": lambda v: 1.0 / np.sqrt(v),
}
# Integer ops whose numpy ufunc wraps exactly as the spec on 8..64-bit integers.
_INT_UFUNCS = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "not": np.invert,
}
_BOOL_UFUNCS = {
    "add": np.logical_or,
    "multiply": np.logical_and,
    "maximum": np.logical_or,
    "minimum": np.logical_and,
    "and": np.logical_and,
    "or": np.logical_or,
    "xor": np.logical_xor,
    "not": np.logical_not,
}
_FLOAT_EXTREMA = {"maximum": _pick_max, "minimum": _pick_min}
_SIGN_BIT = {"negate": (np.bitwise_xor, False), "abs": (np.bitwise_and, True)}
_UNARY = frozenset({"not", "negate", "abs", *_VIA_DOUBLE})


def prepare(name: str, dtypes: list[np.dtype[Any]], **attrs: Any) -> Fn | None:
    """The semantics function ``name`` prepared for operands of ``dtypes`` (None: none better
    than the general one).  ``attrs``: ``comparison_direction``/``compare_type`` for compare,
    ``result_dtype`` for convert."""
    if not dtypes or any(d is None for d in dtypes):
        return None
    d = dtypes[0]
    if name == "compare":
        return _compare(d, dtypes, attrs.get("comparison_direction"), attrs.get("compare_type"))
    if name == "select":
        return _select(dtypes)
    if name == "convert":
        return _convert(d, attrs.get("result_dtype"))
    if name == "logistic":
        return _logistic(d)
    if any(x is not d for x in dtypes):
        return None
    fast = _fast(name, d)
    if fast is None:
        return None
    general = _general(name)
    return _unary(fast, general, d) if name in _UNARY else _binary(fast, general, d)


def _fast(name: str, d: np.dtype[Any]) -> Fn | None:
    if d in _NATIVE and name in _ARITH:
        return _ieee_arith(_ARITH[name], d)
    if d in _ONE_CAST and name in _VIA_DOUBLE:
        return _via_double(_VIA_DOUBLE[name], d)
    if d in _IEEE and name in _FLOAT_EXTREMA:
        return _extremum(_FLOAT_EXTREMA[name])
    if d in _IEEE and name in _SIGN_BIT:
        ufunc, keep_sign = _SIGN_BIT[name]
        return _sign_bit_op(ufunc, d, keep_sign)
    if d in _INTS and name in _INT_UFUNCS:
        return _ufunc(_INT_UFUNCS[name])
    if d is _BOOL and name in _BOOL_UFUNCS:
        return _ufunc(_BOOL_UFUNCS[name])
    return None


def _enum_name(value: Any) -> str:
    return elementwise._enum_name(value)  # the same spelling rules


def _compare(
    d: np.dtype[Any], dtypes: list[np.dtype[Any]], direction: Any, compare_type: Any
) -> Fn | None:
    """``compare`` on integers, booleans and IEEE floats (not TOTALORDER): the numpy comparison
    of the values themselves (exact, as of their int64/float64 copies)."""
    cmp = elementwise.COMPARISON_DIRECTIONS.get(_enum_name(direction))
    if cmp is None or len(dtypes) != 2 or dtypes[1] is not d:
        return None
    if d in _IEEE:
        if _enum_name(compare_type) == "TOTALORDER":
            return None
    elif d not in _INTS and d is not _BOOL:
        return None
    general = elementwise.compare

    def run(lhs: Any, rhs: Any) -> Any:
        if type(lhs) is _ND and type(rhs) is _ND and lhs.dtype is d and rhs.dtype is d:
            return _asarray(cmp(lhs, rhs))
        return general(lhs, rhs, direction, compare_type)

    return run


def _select(dtypes: list[np.dtype[Any]]) -> Fn | None:
    if len(dtypes) != 3 or dtypes[0] is not _BOOL or dtypes[1] is not dtypes[2]:
        return None
    d = dtypes[1]
    general = elementwise.select

    def run(pred: Any, on_true: Any, on_false: Any) -> Any:
        if (
            type(pred) is _ND
            and type(on_true) is _ND
            and type(on_false) is _ND
            and pred.dtype is _BOOL
            and on_true.dtype is d
            and on_false.dtype is d
        ):
            return _asarray(_where(pred, on_true, on_false))
        return general(pred, on_true, on_false)

    return run


def _convert(d: np.dtype[Any], result: Any) -> Fn | None:
    """float <-> float among f16/f32/f64: through float64, one cast (``round_float``)."""
    if result is None or d not in _ONE_CAST:
        return None
    target = np.dtype(result)
    if target not in _ONE_CAST:
        return None
    general = conversion.convert
    if target is _F64:

        def fast(x: Array) -> Array:
            return x.astype(_F64)
    else:

        def fast(x: Array) -> Array:
            return x.astype(_F64).astype(target)

    def run(operand: Any) -> Any:
        if type(operand) is _ND and operand.dtype is d:
            return fast(operand)
        return general(operand, result)

    return run


def _logistic(d: np.dtype[Any]) -> Fn | None:
    """``1 / (1 + exp(-x))`` with each step the prepared op of the element type (as
    ``elementwise.logistic`` composes the general ones)."""
    if d not in _NATIVE:
        return None
    negate = _sign_bit_op(np.bitwise_xor, d, False)
    exp = _via_double(np.exp, d)
    add = _ieee_arith(np.add, d)
    divide = _ieee_arith(np.divide, d)
    one = round_float(np.asarray(1.0), d)
    general = elementwise.logistic

    def run(operand: Any) -> Any:
        if type(operand) is _ND and operand.dtype is d:
            return divide(one, add(one, exp(negate(operand))))
        return general(operand)

    return run
