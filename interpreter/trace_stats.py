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

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import Token
from stablehlo_py.semantics import dtypes

__all__ = ["Summary", "merge", "summarize"]


@dataclass(frozen=True)
class Summary:
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
    try:
        row = dtypes.element_type(arr.dtype)
    except Exception:  # noqa: BLE001 - not an element type of ours: described by numpy's name
        return Summary("other", shape=tuple(arr.shape), dtype=str(arr.dtype))
    base = Summary("tensor", shape=tuple(arr.shape), dtype=row.name, size=int(arr.size))
    if quantized:
        base = replace(base, quantized=quantized)
    if arr.size == 0:
        return base
    if row.kind == "bool":
        n = int(np.count_nonzero(arr))
        return replace(
            base, min=int(n == arr.size), max=int(n > 0), mean=n / arr.size, finite=int(arr.size)
        )
    if row.kind in ("sint", "uint"):
        wide = arr.astype(np.uint64 if row.kind == "uint" else np.int64)
        return replace(
            base,
            min=int(wide.min()),
            max=int(wide.max()),
            mean=float(wide.mean(dtype=np.float64)),
            finite=int(arr.size),
        )
    if row.kind == "complex":
        return _complex(arr, base)
    wide = arr if arr.dtype.type.__module__ == "numpy" else arr.astype(np.float32)
    nan = np.isnan(wide)
    inf = np.isinf(wide)
    n_nan, n_inf = int(np.count_nonzero(nan)), int(np.count_nonzero(inf))
    out = replace(base, nan=n_nan, inf=n_inf, finite=int(arr.size) - n_nan - n_inf)
    if n_nan < arr.size:
        kept = wide[~nan] if n_nan else wide
        out = replace(out, min=float(kept.min()), max=float(kept.max()))
    if out.finite:
        finite = wide[~(nan | inf)] if n_nan or n_inf else wide
        out = replace(out, mean=float(finite.mean(dtype=np.float64)))
    return out


def _complex(arr: np.ndarray, base: Summary) -> Summary:
    parts = (arr.real, arr.imag)
    nan = np.isnan(parts[0]) | np.isnan(parts[1])
    inf = (np.isinf(parts[0]) | np.isinf(parts[1])) & ~nan
    n_nan, n_inf = int(np.count_nonzero(nan)), int(np.count_nonzero(inf))
    out = replace(base, nan=n_nan, inf=n_inf, finite=int(arr.size) - n_nan - n_inf)
    if out.finite:
        finite = arr[~(nan | inf)] if n_nan or n_inf else arr.reshape(-1)
        out = replace(
            out,
            mean=complex(finite.astype(np.complex128).mean()),
            abs_max=float(np.abs(finite).max()),
        )
    return out


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
    return replace(
        b,
        size=a.size + b.size,
        min=_pick(min, a.min, b.min),
        max=_pick(max, a.max, b.max),
        abs_max=_pick(max, a.abs_max, b.abs_max),
        mean=mean,
        nan=a.nan + b.nan,
        inf=a.inf + b.inf,
        finite=finite,
    )


def _pick(fn: Any, x: Any, y: Any) -> Any:
    if x is None:
        return y
    if y is None:
        return x
    return fn(x, y)
