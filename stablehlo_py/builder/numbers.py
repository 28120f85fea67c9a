"""Python numbers and numpy scalars written where an op takes a tensor (issue 26, plan section 2.2).

The rule is JAX's weak typing *without promotion*: a number never changes the op's type, and is
refused when its value would change.  One function, :func:`to_element`, says what a value becomes
as one element of type T, or why it cannot:

- a Python ``bool`` is an ``i1`` value only (bool is strong in jax.lax);
- a Python ``int`` into an integer type must fit its range; into a float or complex type it must
  be held exactly (``2**24 + 1`` is not an f32);
- a Python ``float`` into a float or complex type is rounded to nearest, but a finite value that
  overflows (or becomes NaN: f8E4M3FN has no inf) is refused; ``inf``/``nan`` pass where T has
  them; into an integer type it is refused: never truncated;
- a Python ``complex`` goes into complex types only (overflow refused as for floats);
- a numpy scalar or 0-d array of dtype D: D must be T's dtype, or the 64-bit dtype that JAX's
  default (x64 off) canonicalizes to it (f64 -> f32, i64 -> i32, u64 -> u32, c128 -> c64), with
  a value that fits.

Which T a number takes (the op's operands by role: elements, indices, predicates) is the builder's
business (``builder.opgen``); this module only knows values and element types.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import ComplexType, IntegerType, Signedness
from xdsl.ir import Attribute

from stablehlo_py.ir.types import FLOAT_NAME, element_type_name, storage_dtype

_CANONICAL_64 = {
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}
"""JAX's default (x64 off) canonicalization of 64-bit numpy scalars."""


class NumberError(Exception):
    """A value that cannot be an element of the type: ``reason`` completes "<value> ..."."""

    def __init__(self, reason: str, hint: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


def type_name(t: Attribute) -> str:
    name = element_type_name(t)
    if name is not None:
        return name
    from stablehlo_py.ir.verify.constraints import t2s

    return t2s(t)


def describe(value: Any) -> str:
    """How a message names the value: ``the Python float 0.5``, ``a numpy float64 scalar (2.0)``."""
    if isinstance(value, np.ndarray):
        if value.ndim:
            return f"a numpy {value.dtype} array of shape {value.shape}"
        return f"a numpy {value.dtype} 0-d array ({value.item()!r})"
    if isinstance(value, np.generic):  # before Python's types: np.float64 is a float
        return f"a numpy {value.dtype} scalar ({value.item()!r})"
    if isinstance(value, bool | int | float | complex):
        return f"the Python {type(value).__name__} {value!r}"
    return repr(value)


def is_number(value: Any) -> bool:
    """A Python number, a numpy scalar or a numpy 0-d array (what :func:`to_element` takes)."""
    if isinstance(value, bool | int | float | complex | np.generic):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0


def _int_range(t: IntegerType) -> tuple[int, int]:
    w = t.width.data
    if w == 1:
        return 0, 1
    if t.signedness.data == Signedness.UNSIGNED:
        return 0, 2**w - 1
    return -(2 ** (w - 1)), 2 ** (w - 1) - 1


def _kind(t: Attribute) -> str | None:
    if isinstance(t, IntegerType):
        return "i1" if t.width.data == 1 else "int"
    if type(t) in FLOAT_NAME:
        return "float"
    if isinstance(t, ComplexType):
        return "complex"
    return None


def to_element(value: Any, t: Attribute, needs: str = "the op needs") -> np.ndarray:
    """``value`` as a 0-d array of ``t``'s storage dtype, or NumberError saying why it cannot
    (``needs`` says who needs ``t`` in the reason: "but the op needs i32; ...")."""
    kind = _kind(t)
    name = type_name(t)
    if kind is None:
        raise NumberError(
            f"but the op's elements are {name}", "build the value with constant() instead"
        )
    if isinstance(value, np.ndarray | np.generic):
        return _numpy(value, t, kind, name, needs)
    if isinstance(value, bool):
        if kind != "i1":
            raise NumberError(
                f"but {needs} {name}; a bool is only an i1 value",
                "write a number of the op's kind (1 or 1.0)",
            )
        return np.asarray(value, np.bool_)
    if isinstance(value, int):
        if kind in ("int", "i1"):
            return _fit_int(value, t, name)
        return _to_float(value, t, name, exact=True)
    if isinstance(value, float):
        if kind in ("int", "i1"):
            raise NumberError(
                f"but {needs} {name}; a float is never truncated into an integer",
                "write an integer (or convert the integer operands with hlo.convert first)",
            )
        return _to_float(value, t, name, exact=False)
    if isinstance(value, complex):
        if kind != "complex":
            raise NumberError(f"but {needs} {name}; the imaginary part would be lost")
        return _to_float(value, t, name, exact=False)
    raise NumberError(f"which is not a number ({needs} {name})")


def _fit_int(value: int, t: IntegerType, name: str) -> np.ndarray:
    lo, hi = _int_range(t)
    if not lo <= value <= hi:
        raise NumberError(f"which does not fit {name} ({lo}..{hi})")
    return np.asarray(value, storage_dtype(t))


def _to_float(value: Any, t: Attribute, name: str, exact: bool) -> np.ndarray:
    dt = storage_dtype(t)
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(value).astype(dt) if not exact else np.asarray(float(value)).astype(dt)
    except OverflowError:
        raise NumberError(f"which overflows {name}") from None
    parts = [(complex(value).real, out.real), (complex(value).imag, out.imag)]
    for want, got in parts:
        got = float(got)
        if np.isfinite(want) and not np.isfinite(got):
            raise NumberError(f"which overflows {name}")
        if np.isinf(want) and not np.isinf(got):
            raise NumberError(f"but {name} has no infinity")
    if exact and int(float(out.real)) != value:
        raise NumberError(
            f"which {name} cannot hold exactly (it would become {float(out.real)!r})"
        )
    return out


def to_elements(arr: np.ndarray, t: Attribute, needs: str = "the op needs") -> np.ndarray:
    """An n-d numpy array written where an op takes a tensor of element type ``t``: its dtype must
    be ``t``'s, or the 64-bit dtype JAX's default canonicalizes to it (as for numpy scalars, see
    :func:`to_element`), and every value must fit; the array in ``t``'s storage dtype, or
    NumberError saying why not."""
    kind = _kind(t)
    name = type_name(t)
    want = storage_dtype(t) if kind is not None else None
    d = arr.dtype
    if want is None:
        return to_element(arr, t, needs)  # raises: the op's elements are not numbers
    if d != want and _CANONICAL_64.get(d) != want:
        raise NumberError(
            f"but {needs} {name}; numpy values keep their type (as in jax.lax)",
            f"convert the array first: x.astype({_numpy_name(want)})",
        )
    return cast_exact(arr, t)


def cast_exact(arr: np.ndarray, t: Attribute) -> np.ndarray:
    """A numpy array converted to ``t``'s storage dtype on request (``constant(x, dtype=...)``):
    every value must survive -- into an integer or i1 type exactly (no fraction, NaN or value out
    of range), into a float type without overflowing (finite stays finite; integers exactly), the
    imaginary part only into complex types -- else NumberError naming the first value lost."""
    kind = _kind(t)
    name = type_name(t)
    if kind is None:
        return to_element(arr, t)  # raises: the type's elements are not numbers
    want = storage_dtype(t)
    if arr.dtype == want:
        return arr
    if arr.dtype.kind == "c" and kind != "complex":
        if np.any(arr.imag != 0):
            bad = arr[arr.imag != 0].flat[0].item()
            raise NumberError(f"whose value {bad!r} would lose its imaginary part in {name}")
        arr = arr.real
    with np.errstate(all="ignore"):
        out = arr.astype(want)
        if kind in ("int", "i1") or arr.dtype.kind in "iub":
            lost = out.astype(arr.dtype) != arr
        else:
            lost = np.isfinite(arr) & ~np.isfinite(out.astype(arr.dtype))
    if np.any(lost):
        bad = arr[lost].flat[0].item()
        if kind == "int" and arr.dtype.kind in "iu":
            lo, hi = _int_range(t)  # type: ignore[arg-type]
            raise NumberError(f"whose value {bad!r} does not fit {name} ({lo}..{hi})")
        if kind in ("float", "complex") and np.isfinite(bad) and arr.dtype.kind in "fc":
            raise NumberError(f"whose value {bad!r} overflows {name}")
        raise NumberError(f"whose value {bad!r} would change in {name}")
    return out


def _numpy(value: Any, t: Attribute, kind: str, name: str, needs: str) -> np.ndarray:
    arr = np.asarray(value)
    want = storage_dtype(t)
    d = arr.dtype
    if d != want and _CANONICAL_64.get(d) != want:
        py = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}.get(d.kind, "a")
        raise NumberError(
            f"but {needs} {name}; numpy values keep their type (as in jax.lax)",
            f"write a Python {py} ({py}(v)), or a numpy value of the op's type",
        )
    item = arr.item()
    if kind in ("int", "i1") and d.kind in "iu":
        return _fit_int(int(item), t, name)  # type: ignore[arg-type]
    if d == want:
        return arr
    return _to_float(item, t, name, exact=False)


def check_arguments(function: str, arg_types: list[Attribute], args: tuple[Any, ...]) -> None:
    """``Module.run``'s strict arguments: a numpy array or scalar must have its parameter's dtype
    exactly (never cast: ``float64`` for ``tensor<2xf32>`` is refused), a Python number or list
    follows :func:`to_element`, and the number of arguments must match.  Shapes are checked by
    the interpreter.  Raises InterpreterError naming the argument, both types and the fix."""
    from xdsl.dialects.builtin import TensorType

    from stablehlo_py.errors import InterpreterError
    from stablehlo_py.ir.types import element_type
    from stablehlo_py.ir.verify.constraints import t2s

    if len(args) != len(arg_types):
        raise InterpreterError(
            f"@{function} takes {len(arg_types)} argument(s); Module.run got {len(args)}"
        )
    for i, (a, t) in enumerate(zip(args, arg_types)):
        if not isinstance(t, TensorType):
            continue
        elem = element_type(t)
        if _kind(elem) is None:
            continue
        want = storage_dtype(elem)
        if isinstance(a, np.ndarray | np.generic):
            if a.dtype != want:
                raise InterpreterError(
                    f"argument {i} of @{function} is {a.dtype}; its type {t2s(t)} needs {want}",
                    note=f"Module.run does not cast: pass x.astype({_numpy_name(want)})",
                )
            continue
        items = a if isinstance(a, list | tuple) else [a]
        flat = list(np.asarray(items, dtype=object).ravel()) if items else []
        for v in flat:
            try:
                to_element(v, elem, "the parameter needs")
            except NumberError as e:
                raise InterpreterError(
                    f"argument {i} of @{function} holds {describe(v)}, {e.reason}",
                    note=f"its type is {t2s(t)}",
                ) from None


def _numpy_name(dtype: np.dtype) -> str:
    name = dtype.name
    return f"np.{name}" if hasattr(np, name) else f"ml_dtypes.{name}"
