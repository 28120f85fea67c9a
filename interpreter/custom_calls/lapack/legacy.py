"""JAX's pre-FFI CPU LAPACK targets (jax 0.4.30 writes all of them; the last lowering paths went in
jax 0.4.34 to 0.5.1, `Form.last`): `lapack_{s,d,c,z}potrf`, `getrf`, `geqrf`, `orgqr`/`ungqr`, `gesdd`, `syevd`/`heevd`,
`geev`, `gees`, `gehrd`, `sytrd`/`hetrd` and `blas_{s,d,c,z}trsm`.

The form (`jaxlib/lapack.py` and `jaxlib/cpu/lapack_kernels.cc` at jax-v0.4.30): `api_version = 2`
(a plain custom call, `backend_config` empty); the routine's parameters are the first operands, 0-d
tensors with the empty layout (`tensor<i32>`: batch size, `m`, `n`, `lwork`, flags as 0/1;
`tensor<ui8>`: LAPACK's job characters), then the matrices in the column-major batch layout; the
results are the FFI kernel's outputs in another order, with `info` and the workspaces LAPACK was
given (`work`, `iwork`, `rwork`: sized at lowering time) as extra results.  jaxlib dropped these
kernels in jax 0.6.0, so only StableHLO's 5-year compatibility window keeps such artifacts alive.

Each target here reads its scalar operands, checks them against the shapes they describe (a
mismatch is a clear error: the kernel would have read or written other memory than the shapes
give), and runs the FFI form's kernel (`potrf` in `cholesky.py`, ...) with the scalars turned into
its attributes: the numbers are the same LAPACK calls.  Its results go back in the old order;
workspaces are zeros (JAX discards them; XLA leaves what LAPACK scribbled there), and `info` is
LAPACK's, as the old kernels returned it (`geqrf` and `orgqr` have no `info` in the FFI form:
LAPACK's is 0 for every valid call).  Scalars JAX always writes as 0/1 or as a job character must be
one of those values (the old kernels read any non-zero flag as true; a value JAX never writes is
refused as damage).

Two variants of 2023's artifacts (jax's back-compat data of 2023-03 to 2023-07) are read too: the
results as one `tuple<...>` (the dispatcher packs ours into it), and a `tensor<i64>` batch size
(getrf).  Checked with `tools/check_history_artifacts.py` against every CPU data dict in the jax
repository's history (39 commits, 2023-03 to 2025-06; the 46 dicts with a pre-FFI target were
serialized 2023-03-17 to 2024-09-03): all pass."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, is_dataclass, replace
from types import SimpleNamespace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.cholesky import potrf
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    PREFIX_DTYPES,
    flat_result_types,
    zeros_of_type,
)
from stablehlo_py.interpreter.custom_calls.lapack.eig import geev
from stablehlo_py.interpreter.custom_calls.lapack.eigh import syevd
from stablehlo_py.interpreter.custom_calls.lapack.hessenberg import gehrd
from stablehlo_py.interpreter.custom_calls.lapack.lu import getrf
from stablehlo_py.interpreter.custom_calls.lapack.qr import geqrf, orgqr
from stablehlo_py.interpreter.custom_calls.lapack.schur import gees
from stablehlo_py.interpreter.custom_calls.lapack.svd import gesdd
from stablehlo_py.interpreter.custom_calls.lapack.triangular import trsm
from stablehlo_py.interpreter.custom_calls.lapack.tridiagonal import sytrd

from stablehlo_py.errors import InterpreterError


def form_text(last: str) -> str:
    """The form description `--list-custom-calls` shows: the old form, last written by jax `last`."""
    return f"pre-FFI: api_version 2, scalar operands, workspace results (jax <= {last})"


I32, I64, U8 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8)

# scalar operand -> (its element type, the values JAX writes; None: any, checked against the shapes).
# An i32 scalar may come as tensor<i64>: jax's 2023 getrf lowering wrote `batch` so, and the kernel
# read its low 4 bytes (the value, on the little-endian CPUs XLA runs on).
SCALARS: dict[str, tuple[np.dtype, tuple[Any, ...] | None]] = {
    **dict.fromkeys(("lower", "left_side", "diag", "full_matrices", "compute_uv"), (I32, (0, 1))),
    "trans_a": (I32, (0, 1, 2)),  # N, T, C
    **dict.fromkeys(("batch", "m", "n", "k", "lwork", "ilo", "ihi", "lda"), (I32, None)),
    **dict.fromkeys(("jobvl", "jobvr", "jobvs"), (U8, ("V", "N"))),
    "sort": (U8, ("N", "S")),
}


@dataclass(frozen=True)
class Operands:
    """What the shapes say: the matrices (by operand name) and the declared result shapes."""

    arrays: Mapping[str, np.ndarray]
    result_shapes: Mapping[str, tuple[int, ...]]

    def matrix(self) -> np.ndarray:
        """The operand whose shape gives `batch`, `m`, `n` (the right-hand sides for trsm)."""
        return self.arrays["b"] if "b" in self.arrays else self.arrays["a"]


# scalar operand -> (what it must equal, in words; its value from the shapes)
EXPECTED: dict[str, tuple[str, Callable[[Operands], int]]] = {
    "batch": ("the product of the batch dimensions of the matrix operand",
              lambda o: math.prod(o.matrix().shape[:-2])),
    "m": ("the matrix operand's number of rows", lambda o: o.matrix().shape[-2]),
    "n": ("the matrix operand's number of columns", lambda o: o.matrix().shape[-1]),
    "k": ("the length of operand 'tau' (the number of reflectors)", lambda o: o.arrays["tau"].shape[-1]),
    "lda": ("the leading dimension max(1, n) of the column-major matrices",
            lambda o: max(1, o.matrix().shape[-1])),
    "lwork": ("the length of the declared 'work' result",
              lambda o: math.prod(o.result_shapes["work"])),
}
ALSO_ACCEPTED = {"lda": lambda o: o.matrix().shape[-1]}
"""Another value a scalar may have: JAX's gehrd lowering passes `lda = n` (0 for an empty matrix;
no LAPACK call is made then), its sytrd lowering max(1, n)."""

Results = tuple[tuple[str, int | None], ...]
"""The old kernel's results in order: (name, index of the FFI kernel's result, or None: zeros)."""


@dataclass(frozen=True)
class Form:
    """One pre-FFI target family: its operands, results and how they map onto the FFI kernel."""

    routine: tuple[str, str]  # the old name's routine for real and complex types ("syevd", "heevd")
    kernel: Callable[..., list[np.ndarray]]  # the FFI kernel, fn(ctx, dtype=...)
    scalars: tuple[str, ...]  # the scalar operands, in order
    arrays: tuple[str, ...]  # then the array operands, in order
    attributes: Callable[[dict[str, Any]], dict[str, Any]]  # scalars -> the FFI kernel's attributes
    real: Results
    complex: Results | None = None  # (None: as `real`)
    ffi_operands: tuple[str, ...] = ("a",)  # the FFI kernel's operands, by name
    family: str = "lapack"
    last: str = "0.5.0"  # the last jax release whose lowering could write it (plan 2.1)

    def results(self, dtype: np.dtype) -> Results:
        return self.complex if self.complex is not None and dtype.kind == "c" else self.real


def _uplo(s: dict[str, Any]) -> dict[str, Any]:
    return {"uplo": "L" if s["lower"] else "U"}


def _none(_s: dict[str, Any]) -> dict[str, Any]:
    return {}


def _syevd(s: dict[str, Any]) -> dict[str, Any]:
    return {"mode": "V", **_uplo(s)}  # the old kernel always asks for the vectors (jobz 'V')


def _gesdd(s: dict[str, Any]) -> dict[str, Any]:
    return {"mode": ("A" if s["full_matrices"] else "S") if s["compute_uv"] else "N"}


def _geev(s: dict[str, Any]) -> dict[str, Any]:
    return {"compute_left": s["jobvl"], "compute_right": s["jobvr"]}


def _gees(s: dict[str, Any]) -> dict[str, Any]:
    return {"mode": s["jobvs"], "sort": s["sort"]}


def _gehrd(s: dict[str, Any]) -> dict[str, Any]:
    return {"low": s["ilo"], "high": s["ihi"]}


def _trsm(s: dict[str, Any]) -> dict[str, Any]:
    return {
        "side": "L" if s["left_side"] else "R",
        **_uplo(s),
        "trans_x": "NTC"[s["trans_a"]],
        "diag": "U" if s["diag"] else "N",
    }


_A, _INFO, _WORK = ("a", 0), ("info", None), ("work", None)
_ZERO = None  # (a result the FFI kernel does not have: zeros)

FORMS: dict[str, Form] = {
    "potrf": Form(("potrf", "potrf"), potrf, ("lower", "batch", "n"), ("a",), _uplo,
                  real=(_A, ("info", 1))),
    "getrf": Form(("getrf", "getrf"), getrf, ("batch", "m", "n"), ("a",), _none,
                  real=(_A, ("ipiv", 1), ("info", 2)), last="0.4.33"),
    "geqrf": Form(("geqrf", "geqrf"), geqrf, ("batch", "m", "n", "lwork"), ("a",), _none,
                  real=(_A, ("tau", 1), _INFO, _WORK), last="0.4.34"),
    "orgqr": Form(("orgqr", "ungqr"), orgqr, ("batch", "m", "n", "k", "lwork"), ("a", "tau"), _none,
                  real=(_A, _INFO, _WORK), ffi_operands=("a", "tau"), last="0.4.34"),
    "gesdd": Form(("gesdd", "gesdd"), gesdd,
                  ("full_matrices", "compute_uv", "batch", "m", "n", "lwork"), ("a",), _gesdd,
                  real=(_A, ("s", 1), ("u", 2), ("vt", 3), ("info", 4), ("iwork", _ZERO), _WORK),
                  complex=(_A, ("s", 1), ("u", 2), ("vt", 3), ("info", 4), ("iwork", _ZERO),
                           ("rwork", _ZERO), _WORK), last="0.4.34"),
    "syevd": Form(("syevd", "heevd"), syevd, ("lower", "batch", "n"), ("a",), _syevd,
                  real=(("v", 0), ("w", 1), ("info", 2), _WORK, ("iwork", _ZERO)),
                  complex=(("v", 0), ("w", 1), ("info", 2), _WORK, ("rwork", _ZERO),
                           ("iwork", _ZERO)), last="0.4.34"),
    "geev": Form(("geev", "geev"), geev, ("batch", "n", "jobvl", "jobvr"), ("a",), _geev,
                 real=(("a_work", _ZERO), ("vl_work", _ZERO), ("vr_work", _ZERO), ("wr", 0),
                       ("wi", 1), ("vl", 2), ("vr", 3), ("info", 4)),
                 complex=(("a_work", _ZERO), ("rwork", _ZERO), ("w", 0), ("vl", 1), ("vr", 2),
                          ("info", 3))),
    "gees": Form(("gees", "gees"), gees, ("batch", "n", "jobvs", "sort"), ("a",), _gees,
                 real=(("t", 0), ("wr", 2), ("wi", 3), ("vs", 1), ("sdim", 4), ("info", 5)),
                 complex=(("t", 0), ("rwork", _ZERO), ("w", 2), ("vs", 1), ("sdim", 3),
                          ("info", 4))),
    "gehrd": Form(("gehrd", "gehrd"), gehrd, ("n", "ilo", "ihi", "lda", "batch", "lwork"), ("a",),
                  _gehrd, real=(_A, ("tau", 1), ("info", 2), _WORK)),
    "sytrd": Form(("sytrd", "hetrd"), sytrd, ("n", "lower", "lda", "batch", "lwork"), ("a",),
                  _uplo, real=(_A, ("d", 1), ("e", 2), ("tau", 3), ("info", 4), _WORK)),
    "trsm": Form(("trsm", "trsm"), trsm,
                 ("left_side", "lower", "trans_a", "diag", "m", "n", "batch"), ("alpha", "a", "b"),
                 _trsm, real=(("b", 0),), ffi_operands=("a", "b", "alpha"), family="blas"),
}
"""Routine -> its pre-FFI form: operand and result orders of `jaxlib/lapack.py` at jax-v0.4.30
(`real`: s, d; `complex`: c, z, which add a real `rwork` workspace where LAPACK needs one), the
FFI kernel that computes it, and the last jax release with the old lowering path (`lapack.getrf_hlo`
left `jax/_src/lax/linalg.py` in 0.4.34; geqrf, orgqr, syevd, gesdd in 0.4.35; the rest in 0.5.1)."""


def _scalar(ctx: Any, index: int, name: str) -> Any:
    """Scalar operand `index` (`name`): an int, or a job character."""
    dtype, allowed = SCALARS[name]
    x = np.asarray(ctx.operands[index])
    if x.shape != () or x.dtype not in ((I32, I64) if dtype == I32 else (dtype,)):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: operand #{index} ('{name}') must be a "
            f"tensor<{'ui8' if dtype == U8 else 'i32'}> scalar as JAX's pre-FFI lowering writes it, "
            f"got {x.dtype}{list(x.shape)}; "
            "the operands are out of order or the program was not written by JAX"
        )
    value: Any = chr(int(x)) if dtype == U8 else int(x)
    if dtype == I32 and not -(2**31) <= value < 2**31:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: operand #{index} ('{name}') is {value}, which the kernel "
            "cannot read as a 32-bit integer; fix the constant that feeds it"
        )
    if allowed is not None and value not in allowed:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: operand #{index} ('{name}') is {value!r}, JAX writes one "
            f"of {', '.join(repr(v) for v in allowed)}; fix the constant that feeds it"
        )
    return value


def _check_counts(ctx: Any, form: Form, results: Results, types: tuple[Any, ...]) -> None:
    want = len(form.scalars) + len(form.arrays)
    if len(ctx.operands) != want:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} (JAX's pre-FFI form) takes {want} operands "
            f"({', '.join(form.scalars + form.arrays)}), got {len(ctx.operands)}; "
            "a program with the FFI form's operands calls the target with the `_ffi` suffix"
        )
    if len(types) != len(results):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} (JAX's pre-FFI form) gives {len(results)} results "
            f"({', '.join(name for name, _ in results)}), the op declares {len(types)}"
        )


# array operand -> (its least rank, its greatest rank)
RANKS: dict[str, tuple[int, int | None]] = {"a": (2, None), "b": (2, None), "tau": (1, None), "alpha": (0, 0)}


def _check_arrays(ctx: Any, form: Form, arrays: dict[str, np.ndarray], dtype: np.dtype) -> None:
    """The array operands have the target's element type and a rank the kernel can read."""
    first = len(form.scalars)
    for i, name in enumerate(form.arrays, first):
        x = arrays[name]
        least, most = RANKS[name]
        if x.dtype != dtype or x.ndim < least or (most is not None and x.ndim > most):
            rank = f"rank {least}" if most == least else f"rank >= {least}"
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: operand #{i} ('{name}') must be a {rank} tensor of "
                f"{dtype} (the type the target's name promises), got {x.dtype}{list(x.shape)}"
            )


def _check_scalars(ctx: Any, form: Form, scalars: dict[str, Any], operands: Operands) -> None:
    for i, name in enumerate(form.scalars):
        if name not in EXPECTED:
            continue
        what, expected = EXPECTED[name]
        want = expected(operands)
        also = ALSO_ACCEPTED.get(name)
        if scalars[name] != want and (also is None or scalars[name] != also(operands)):
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: scalar operand #{i} ('{name}') is {scalars[name]}, "
                f"but it must be {what}: {want} here; the kernel would read other memory than the "
                f"shapes give. Fix the constant that feeds operand #{i} (or the operand/result shapes)"
            )


def _with(ctx: Any, **changes: Any) -> Any:
    """`ctx` with fields changed (the registry's frozen CallContext, or a plain namespace)."""
    if is_dataclass(ctx):
        return replace(ctx, **changes)
    return SimpleNamespace(**{**vars(ctx), **changes})


def run_legacy(ctx: Any, *, form: Form, dtype: np.dtype) -> list[np.ndarray]:
    """Run one pre-FFI call on the FFI form's kernel."""
    results = form.results(dtype)
    types = flat_result_types(ctx)
    _check_counts(ctx, form, results, types)
    first = len(form.scalars)
    scalars = {name: _scalar(ctx, i, name) for i, name in enumerate(form.scalars)}
    index = {name: first + i for i, name in enumerate(form.arrays)}
    names = [name for name, _ in results]
    if not all(hasattr(t, "get_shape") for t in types):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} (JAX's pre-FFI form) gives tensors ({', '.join(names)}), "
            f"the op declares {', '.join(str(t) for t in types)}"
        )
    shapes = {name: tuple(t.get_shape()) for name, t in zip(names, types)}
    arrays = {name: np.asarray(ctx.operands[i]) for name, i in index.items()}
    _check_arrays(ctx, form, arrays, dtype)
    _check_scalars(ctx, form, scalars, Operands(arrays, shapes))
    ffi_results = sorted((src, i) for i, (_, src) in enumerate(results) if src is not None)
    picked = [i for _, i in ffi_results]
    in_idx = [index[name] for name in form.ffi_operands]

    def pick(values: Any, idx: list[int]) -> Any:
        return None if values is None else tuple(values[i] for i in idx)

    kernel_ctx = _with(
        ctx,
        operands=pick(ctx.operands, in_idx),
        operand_types=pick(ctx.operand_types, in_idx),
        operand_layouts=pick(ctx.operand_layouts, in_idx),
        result_types=pick(types, picked),
        result_layouts=pick(ctx.result_layouts, picked),
        backend_config=form.attributes(scalars),
        attributes={k: v for k, v in ctx.attributes.items() if k != "mhlo.backend_config"},
    )
    computed = form.kernel(kernel_ctx, dtype=dtype)
    return [
        computed[src] if src is not None else zeros_of_type(t)
        for (_, src), t in zip(results, types)
    ]


Targets = dict[str, Callable[[Any], list[np.ndarray]]]


def _families() -> tuple[tuple[Targets, frozenset[str], tuple[str, ...]], ...]:
    families = []
    for form in FORMS.values():
        table: Targets = {}
        for prefix, dtype in PREFIX_DTYPES.items():
            name = f"{form.family}_{prefix}{form.routine[dtype.kind == 'c']}"
            table[name] = lambda ctx, form=form, dtype=dtype: run_legacy(ctx, form=form, dtype=dtype)
        families.append((table, frozenset({"cpu"}), (form_text(form.last),)))
    return tuple(families)


FAMILIES = _families()
"""(targets, platforms, forms) for `builtins.load`: per routine, `lapack_<p><routine>` /
`blas_<p>trsm` -> its pre-FFI kernel."""

TARGETS = {name: fn for table, _, _ in FAMILIES for name, fn in table.items()}
"""All 44 names (11 routines x 4 types)."""

__all__ = ["FAMILIES", "FORMS", "TARGETS", "form_text", "run_legacy"]
