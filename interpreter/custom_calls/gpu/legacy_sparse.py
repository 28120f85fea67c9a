"""The older forms of `cusparse_gtsv2_ffi` / `hipsparse_gtsv2_ffi` (`jax.lax.linalg.tridiagonal_solve`
for m >= 3 on the GPU), one target per element type:

- `cusparse_gtsv2_f32` / `_f64` (and `hipsparse_…`; jax <= 0.5.0): `api_version = 2`, the
  `backend_config` string the packed `Gtsv2Descriptor{int batch, m, n, ldb}` (jax 0.4.30,
  `jaxlib/gpu_sparse.py` `_gtsv2_hlo`, `jaxlib/gpu/sparse_kernels.h`);
- `cusparse_gtsv2_f32_ffi` / `_f64_ffi` (and `hipsparse_…`; jax 0.5.1 - 0.6.1): the same bytes as the
  typed-FFI attribute `opaque` (`mhlo.backend_config = {opaque = "…"}`, jax 0.5.3's `_gtsv2_hlo`).

Both: operands `dl`, `d`, `du` (`[batch…, m]`) and `B` (`[batch…, ldb, n]`, column-major; JAX's
`ldb` is `m`); results the solution (alias of `B`) and the kernel's workspace (`i8[buffer size]`,
zeros here).  The solve is the current form's (`tridiagonal.gtsv2`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu import legacy_descriptors as descriptors
from stablehlo_py.interpreter.custom_calls.gpu.common import operand_dtype
from stablehlo_py.interpreter.custom_calls.gpu.tridiagonal import gtsv2
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    ffi_attributes,
    flat_result_types,
    zeros_of_type,
)

from stablehlo_py.errors import InterpreterError

DTYPES = {"f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}

# form suffix -> (where the descriptor is, how to read it, the form's description)
FORMS: dict[str, tuple[str, Callable[[Any], Any], str]] = {
    "": (
        "backend_config",
        lambda ctx: ctx.backend_config,
        "opaque Gtsv2Descriptor, api_version 2, a workspace result (jax <= 0.5.0)",
    ),
    "_ffi": (
        "mhlo.backend_config's 'opaque'",
        lambda ctx: ffi_attributes(ctx).get("opaque"),
        "typed FFI {opaque = <Gtsv2Descriptor>}, a workspace result (jax 0.5.1 - 0.6.1)",
    ),
}


def gtsv2_old(ctx: Any, dtype: np.dtype, suffix: str) -> list[np.ndarray]:
    where, raw_of, _ = FORMS[suffix]
    ctx = descriptors.without_shape_operands(ctx)
    d = descriptors.descriptor(ctx, "gtsv2", raw_of(ctx), where)
    if operand_dtype(ctx) != dtype:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} solves {dtype} systems (its name says so), the "
            f"operands are {operand_dtype(ctx)}"
        )
    types = flat_result_types(ctx)
    if len(ctx.operands) != 4 or len(types) != 2:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes dl, d, du, B and gives the solution and a "
            f"workspace; got {len(ctx.operands)} operands and {len(types)} results"
        )
    b = np.shape(ctx.operands[3])
    if len(b) < 2:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: B must be a (batch of) m x n matrices, got shape "
            f"{list(b)}"
        )
    sizes = {"batch": math.prod(b[:-2]), "m": b[-2], "n": b[-1], "ldb": b[-2]}
    descriptors.check_fields(ctx, d, sizes, "the right-hand sides' shape")
    return [*gtsv2(descriptors.kernel_context(ctx, 4, 1)), zeros_of_type(types[1])]


def _bind(dtype: np.dtype, suffix: str) -> Any:
    return lambda ctx: gtsv2_old(ctx, dtype, suffix)


FAMILIES = tuple(
    ({f"{vendor}sparse_gtsv2_{name}{suffix}": _bind(dtype, suffix)}, frozenset({platform}), (form,))
    for vendor, platform in (("cu", "cuda"), ("hip", "rocm"))
    for name, dtype in DTYPES.items()
    for suffix, (_, _, form) in FORMS.items()
)
"""(targets, platforms, forms) for `builtins.load` (through `legacy.LEGACY_FAMILIES`)."""
