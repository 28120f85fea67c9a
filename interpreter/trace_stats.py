"""A short description of an interpreter value for per-op traces: shape, element type, min / max /
mean, and how many elements are NaN or infinite.

- ``dtype`` is the MLIR spelling (``f32``, ``bf16``, ``i1``, ``complex<f32>``, ``f8E4M3FN``);
- ``min``/``max`` are over the elements that are not NaN (Python ``int`` for integer types, exact
  for ``ui64``/``i64``; ``float`` otherwise, ``-inf``/``inf`` included); ``mean`` over the finite
  elements (a ``float``); a boolean tensor counts ``true`` as 1 (``mean``: the fraction true);
- a complex tensor has no ``min``/``max``: ``mean`` is a ``complex``, ``abs_max`` the largest
  magnitude of a finite element; an element counts as NaN (infinite) when either part is;
- an empty tensor, or one without a value of the kind (all NaN), has None there;
- narrow floats (``bf16``, ``f8``, ``f6``, ``f4`` of ``ml_dtypes``) and ``i2``/``i4`` are widened
  to compute;
- a token is ``kind="token"``; a tuple is ``kind="tuple"`` with one summary per element; a value
  of a quantized type is summarized by its stored integers (``quantized`` is its element type's
  text, given by the caller who knows the IR type);
- anything else is ``kind="other"`` (its Python type in ``dtype``).

:func:`merge` combines the summaries of one op's result over several runs of it (a loop body):
min of mins, max of maxes, means weighted by their finite elements; ``size``, ``nan``, ``inf`` and
``finite`` become totals over the runs, ``shape`` is the last run's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import Token
from stablehlo_py.semantics import dtypes

__all__ = ["Summary", "merge", "summarize"]


@dataclass(slots=True)  # not frozen: a frozen dataclass is several times slower to make
class Summary:
    """One value's summary (read-only by convention: merged, never changed)."""

    kind: str
    """``tensor``, ``token``, ``tuple`` or ``other``."""
    shape: tuple[int, ...] = ()
    dtype: str = ""
    size: int = 0
    min: int | float | None = None
    max: int | float | None = None
    mean: float | complex | None = None
    nan: int = 0
    inf: int = 0
    finite: int = 0
    """How many elements ``mean`` is over (for :func:`merge`)."""
    abs_max: float | None = None
    """Complex tensors: the largest magnitude of a finite element."""
    quantized: str = ""
    elements: tuple[Summary, ...] = field(default=())
    """A tuple's elements."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (a complex mean as ``[re, im]``; floats may be ``inf``/``nan``, which
        Python's json writes and reads)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "tuple":
            out["elements"] = [e.as_dict() for e in self.elements]
            return out
        if self.kind != "tensor":
            if self.dtype:
                out["dtype"] = self.dtype
            return out
        out.update(shape=list(self.shape), dtype=self.dtype, size=self.size)
        for name in ("min", "max", "abs_max"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if isinstance(self.mean, complex):
            out["mean"] = [self.mean.real, self.mean.imag]
        elif self.mean is not None:
            out["mean"] = self.mean
        out.update(nan=self.nan, inf=self.inf, finite=self.finite)
        if self.quantized:
            out["quantized"] = self.quantized
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Summary:
        """The inverse of :meth:`as_dict` (KeyError/TypeError/ValueError on a malformed dict)."""
        kind = str(d["kind"])
        if kind == "tuple":
            return cls("tuple", elements=tuple(cls.from_dict(e) for e in d["elements"]))
        if kind != "tensor":
            return cls(kind, dtype=str(d.get("dtype", "")))
        mean = d.get("mean")
        if isinstance(mean, list):
            mean = complex(float(mean[0]), float(mean[1]))
        return cls(
            "tensor",
            shape=tuple(int(n) for n in d["shape"]),
            dtype=str(d["dtype"]),
            size=int(d["size"]),
            min=d.get("min"),
            max=d.get("max"),
            mean=mean,
            nan=int(d.get("nan", 0)),
            inf=int(d.get("inf", 0)),
            finite=int(d.get("finite", 0)),
            abs_max=d.get("abs_max"),
            quantized=str(d.get("quantized", "")),
        )

    def format(self) -> str:
        """One line: ``f32[2,4] min -1 max 3.5 mean 0.25`` (``nan 2 inf 1`` when there are any)."""
        if self.kind == "tuple":
            return "tuple(" + ", ".join(e.format() for e in self.elements) + ")"
        if self.kind != "tensor":
            return self.kind if not self.dtype else f"{self.kind} {self.dtype}"
        text = f"{self.dtype}[{','.join(str(n) for n in self.shape)}]"
        if self.quantized:
            text += f" ({self.quantized}, stored values)"
        if self.size == 0:
            return text + " empty"
        parts = [text]
        if self.min is not None:
            parts.append(f"min {_num(self.min)} max {_num(self.max)}")
        if self.abs_max is not None:
            parts.append(f"|max| {_num(self.abs_max)}")
        if self.mean is not None:
            parts.append(f"mean {_num(self.mean)}")
        if self.nan:
            parts.append(f"nan {self.nan}")
        if self.inf:
            parts.append(f"inf {self.inf}")
        return " ".join(parts)


def _num(x: Any) -> str:
    if isinstance(x, complex):
        sign = "-" if x.imag < 0 else "+"
        return f"({_num(x.real)}{sign}{_num(abs(x.imag))}j)"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def summarize(value: Any, quantized: str = "") -> Summary:
    """The summary of one interpreter value (see the module doc)."""
    if isinstance(value, tuple):
        return Summary("tuple", elements=tuple(summarize(v) for v in value))
    if isinstance(value, Token):
        return Summary("token")
    if not isinstance(value, np.ndarray | np.generic):
        return Summary("other", dtype=type(value).__name__)
    arr = np.asarray(value)
    row = dtypes.BY_DTYPE.get(arr.dtype)
    if row is None:  # not an element type of ours: described by numpy's name
        return Summary("other", shape=tuple(arr.shape), dtype=str(arr.dtype))
    shape, size = tuple(arr.shape), int(arr.size)
    if size == 0:
        return Summary("tensor", shape, row.name, 0, quantized=quantized)
    nan = inf = 0
    low: int | float | None
    high: int | float | None
    abs_max = None
    if row.kind == "bool":
        n = int(np.count_nonzero(arr))
        low, high, mean = int(n == size), int(n > 0), n / size
    elif row.kind in ("sint", "uint"):
        wide = arr.astype(np.uint64 if row.kind == "uint" else np.int64)
        low, high, mean = int(_min(wide, None)), int(_max(wide, None)), _mean(wide)
    elif row.kind == "complex":
        low = high = None
        nan, inf, mean, abs_max = _complex(arr)
    else:
        wide = arr if arr.dtype.type.__module__ == "numpy" else arr.astype(np.float32)
        low, high = float(_min(wide, None)), float(_max(wide, None))  # NaN/inf if any is
        if math.isfinite(low) and math.isfinite(high):
            mean = _mean(wide)
        else:
            nan, inf, low, high, mean = _nonfinite_floats(wide)
    return Summary(
        "tensor",
        shape,
        row.name,
        size,
        low,
        high,
        mean,
        nan,
        inf,
        size - nan - inf,
        abs_max,
        quantized,
    )


# the ufuncs' reductions: the array methods (`a.min()`, `a.mean()`) cost more than the work on the
# small arrays most ops make
_min, _max, _sum = np.minimum.reduce, np.maximum.reduce, np.add.reduce


def _mean(a: np.ndarray) -> float:
    return float(_sum(a, None, np.float64)) / a.size


def _nonfinite_floats(wide: np.ndarray) -> tuple[int, int, float | None, float | None, Any]:
    """(NaN count, inf count, min and max of the non-NaN, mean of the finite) of a float array."""
    nan = np.isnan(wide)
    inf = np.isinf(wide)
    n_nan, n_inf = int(np.count_nonzero(nan)), int(np.count_nonzero(inf))
    low = high = mean = None
    if n_nan < wide.size:
        kept = wide[~nan]
        low, high = float(_min(kept, None)), float(_max(kept, None))
    if n_nan + n_inf < wide.size:
        mean = _mean(wide[~(nan | inf)])
    return n_nan, n_inf, low, high, mean


def _complex(arr: np.ndarray) -> tuple[int, int, complex | None, float | None]:
    """(NaN count, inf count, mean and largest magnitude of the finite) of a complex array."""
    re, im = arr.real, arr.imag
    nan = np.isnan(re) | np.isnan(im)
    inf = (np.isinf(re) | np.isinf(im)) & ~nan
    n_nan, n_inf = int(np.count_nonzero(nan)), int(np.count_nonzero(inf))
    if n_nan + n_inf == arr.size:
        return n_nan, n_inf, None, None
    finite = arr[~(nan | inf)]
    return n_nan, n_inf, complex(finite.astype(np.complex128).mean()), float(np.abs(finite).max())


def merge(a: Summary, b: Summary) -> Summary:
    """One summary of two values of the same op result (``b`` the later: its shape is kept)."""
    if a.kind != b.kind or a.kind == "tuple" and len(a.elements) != len(b.elements):
        return b
    if a.kind == "tuple":
        return replace(b, elements=tuple(map(merge, a.elements, b.elements)))
    if a.kind != "tensor":
        return b
    finite = a.finite + b.finite
    mean = b.mean
    if a.mean is not None and b.mean is not None and finite:
        mean = (a.mean * a.finite + b.mean * b.finite) / finite
    elif b.mean is None:
        mean = a.mean
    return Summary(
        "tensor",
        b.shape,
        b.dtype,
        a.size + b.size,
        _pick(min, a.min, b.min),
        _pick(max, a.max, b.max),
        mean,
        a.nan + b.nan,
        a.inf + b.inf,
        finite,
        _pick(max, a.abs_max, b.abs_max),
        b.quantized,
    )


def _pick(fn: Any, x: Any, y: Any) -> Any:
    if x is None:
        return y
    if y is None:
        return x
    return fn(x, y)
