"""What JAX's cuSOLVER / hipSOLVER targets share, and how they run on the LAPACK kernels.

JAX lowers a decomposition for CUDA and ROCm with the same `_linalg_ffi_lowering` it uses for the
CPU (`jax/_src/lax/linalg.py`): the same operands, results, layouts (column-major for the largest
rank) and `info` outputs, with two differences:
- one target name per routine for every element type (`cusolver_potrf_ffi`), where LAPACK has one
  per type (`lapack_spotrf_ffi`): the element type is the operand's;
- boolean attributes (`lower = true`) where LAPACK's kernels take character codes (`uplo = 76`).
cuSOLVER and hipSOLVER compute what LAPACK computes (same definitions, same pivoting and Householder
conventions, `info` > 0 naming the failing minor or pivot), so each GPU target is its LAPACK
kernel, called with the attributes translated (`on_lapack`).  Where a GPU routine's result is
unique only up to signs or rotations (eigenvectors), LAPACK's is one valid result.

The vendor prefixes: `cu` / `cusolver` for CUDA, `hip` / `hipsolver` for ROCm (`linalg.py`'s
`target_name_prefix`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    PREFIX_DTYPES,
    bool_attr,
    ffi_attributes,
)

from stablehlo_py.errors import InterpreterError

VENDORS: dict[str, str] = {"cuda": "cu", "rocm": "hip"}
"""Platform -> JAX's target-name prefix."""

def ffi_form(since: str) -> str:
    """The current form's description: typed FFI, first written by jax `since`."""
    return f"typed FFI, attributes in mhlo.backend_config (jax >= {since})"

NOT_STABLE = "; not in JAX's export stable list (an export needs DisabledSafetyCheck.custom_call)"
"""The end of a form's description for the targets JAX's export refuses unless told."""

_DTYPES = frozenset(PREFIX_DTYPES.values())


def operand_dtype(ctx: Any, operand: Any = None, *, matrix: bool = False) -> np.dtype:
    """The element type of `operand` (by default the call's operand #0): one of the four that
    LAPACK, the GPU solvers and the TPU's decompositions work on; with `matrix`, the operand must
    also be a (batch of) matrices.  Anything else is a clear error (the one check of the GPU and
    TPU targets)."""
    if operand is None:
        if not ctx.operands:
            raise InterpreterError(f"custom_call @{ctx.target_name} needs an operand")
        operand = ctx.operands[0]
    a = np.asarray(operand)
    if a.dtype not in _DTYPES or (matrix and a.ndim < 2):
        raise InterpreterError(
            f"custom_call @{ctx.target_name} works on (batches of) f32, f64, complex64 or "
            f"complex128 matrices, got {a.dtype}{list(a.shape)}"
        )
    return a.dtype


def flag(ctx: Any, name: str, default: bool | None = None) -> bool:
    """The boolean attribute `name` of the call's typed-FFI dictionary (`default` when absent, if
    given)."""
    if default is not None and name not in ffi_attributes(ctx):
        return default
    return bool_attr(ctx, name)


def on_lapack(
    ctx: Any,
    kernel: Callable[..., list[np.ndarray]],
    chars: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
) -> list[np.ndarray]:
    """Run the LAPACK kernel `kernel(ctx, dtype=...)` for this GPU call: the element type from the
    operand, the attributes LAPACK's kernel reads given as its character codes (`chars`) or as
    they are (`values`: ormqr's `left`, `transpose`)."""
    dtype = operand_dtype(ctx)
    attributes = {k: v for k, v in ctx.attributes.items() if k != "mhlo.backend_config"}
    config = {name: ord(c) for name, c in (chars or {}).items()} | (values or {})
    return kernel(replace(ctx, backend_config=config, attributes=attributes), dtype=dtype)


def magma(ctx: Any) -> str:
    """The `magma` attribute of JAX's hybrid (host LAPACK or MAGMA) kernels: "on", "off" or "auto"
    (MAGMA for 2048 columns or more when the library is found).  It picks the library, not the
    result: both compute LAPACK's decomposition, which is what runs here."""
    value = ffi_attributes(ctx).get("magma")
    if not isinstance(value, str):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: needs the string attribute 'magma' (JAX writes \"auto\", "
            f"\"on\" or \"off\") in its backend_config dictionary, got {value!r}"
        )
    return value


def family(
    routine_targets: dict[str, tuple[Callable[[Any], list[np.ndarray]], str]],
) -> tuple[tuple[dict[str, Callable[[Any], list[np.ndarray]]], frozenset[str], tuple[str, ...]], ...]:
    """(targets, platforms, forms) for `builtins.load`, one per target and vendor, from
    `{"solver_potrf_ffi": (fn, its form)}` (the name after the vendor prefix)."""
    return tuple(
        ({prefix + name: fn}, frozenset({platform}), (form,))
        for name, (fn, form) in routine_targets.items()
        for platform, prefix in VENDORS.items()
    )
