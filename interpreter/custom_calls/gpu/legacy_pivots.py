"""`cu_lu_pivots_to_permutation` / `hip_lu_pivots_to_permutation` in every form JAX wrote (the
kernel is `lu.lu_pivots_to_permutation`; this module registers the targets, since one name carries
all forms):

- (a) jax <= 0.4.26: `api_version = 2`, `backend_config` the packed
  `LuPivotsToPermutationDescriptor{int64 batch_size; int32 pivot_size, permutation_size}`
  (`jaxlib/gpu_linalg.py`, `jaxlib/gpu/lu_pivot_kernels.h` of 0.4.26);
- (b) jax 0.4.27 - 0.4.30: typed FFI, `mhlo.backend_config = {batch_size : i64, pivot_size : i32,
  permutation_size : i32}` (0.4.30's `jaxlib/gpu_linalg.py`);
- (b') jax 0.4.31 - 0.4.33: `{permutation_size : i32}` (JAX's 2024-08-08 CUDA artifact);
- (c) jax >= 0.4.32: an empty dictionary (the sizes come from the buffers).

Whatever sizes a form carries are checked against the operand's and the result's shapes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.legacy_descriptors import check_fields, descriptor
from stablehlo_py.interpreter.custom_calls.gpu.lu import PIVOTS_FORM, lu_pivots_to_permutation
from stablehlo_py.interpreter.custom_calls.lapack.common import ffi_attributes

from stablehlo_py.errors import InterpreterError

FORMS = (
    PIVOTS_FORM,
    "typed FFI, {permutation_size} (jax 0.4.31 - 0.4.33)",
    "typed FFI, {batch_size, pivot_size, permutation_size} (jax 0.4.27 - 0.4.30)",
    "opaque LuPivotsToPermutationDescriptor, api_version 2 (jax <= 0.4.26)",
)


def lu_pivots_to_permutation_any_form(ctx: Any) -> list[np.ndarray]:
    config = ctx.backend_config
    if isinstance(config, str) and config:  # (a)
        fields = descriptor(ctx, "lu_pivots_to_permutation")
    else:  # (b), (b'), (c)
        fields = ffi_attributes(ctx)
    if ctx.operands and ctx.result_types and fields:
        pivots = np.shape(ctx.operands[0])
        result = tuple(getattr(ctx.result_types[0], "get_shape", tuple)())
        sizes = {
            "batch_size": math.prod(pivots[:-1]),
            "pivot_size": pivots[-1] if pivots else 0,
            "permutation_size": result[-1] if result else 0,
        }
        unknown = sorted(set(fields) - set(sizes))
        if unknown:
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: attribute(s) {', '.join(unknown)} are in no form "
                f"JAX wrote (it wrote {', '.join(sizes)}, a subset, or none)"
            )
        wrong = [k for k, v in fields.items() if not isinstance(v, (int, np.integer))]
        if wrong:
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: attribute(s) {', '.join(wrong)} must be integers "
                f"(JAX wrote i64 / i32), got {', '.join(repr(fields[k]) for k in wrong)}"
            )
        check_fields(ctx, {k: int(v) for k, v in fields.items()}, sizes,
                     "the pivots' and the permutation's shapes")
    return lu_pivots_to_permutation(ctx)


FAMILIES = tuple(
    ({f"{vendor}_lu_pivots_to_permutation": lu_pivots_to_permutation_any_form},
     frozenset({platform}), FORMS)
    for vendor, platform in (("cu", "cuda"), ("hip", "rocm"))
)
"""(targets, platforms, forms) for `builtins.load` (through `legacy.LEGACY_FAMILIES`)."""
