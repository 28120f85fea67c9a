"""JAX's GPU Threefry-2x32 kernels: `cu_threefry2x32_ffi` / `hip_threefry2x32_ffi` and their older
opaque-descriptor forms `cu_threefry2x32` / `hip_threefry2x32`.  A PRNG kernel: its bits are its
semantics, so the result here is bit for bit the kernel's.

What JAX writes (`jax/_src/random/threefry2x32.py`, `_threefry2x32_gpu_lowering_rule`, jax 0.12):
`threefry2x32(k1, k2, x1, x2) -> (y1, y2)`, four uint32 operands broadcast to the result shape
first (`mlir.broadcast_in_dim` of each to the output aval), two uint32 results of that shape.
- FFI form (jax >= 0.4.31): `api_version = 1` (typed FFI attributes in `mhlo.backend_config`, here
  none), four operands.
- Opaque form (jax <= 0.4.31; the default GPU lowering until 0.4.26, behind
  `jax_threefry_gpu_kernel_lowering` after): `api_version = 2`, `backend_config` the packed
  `ThreeFry2x32Descriptor{int64 n}` (the element count; -1 when the shape is dynamic, and then a
  fifth operand `i64[1]` holds it, and the two result shapes follow as shape operands,
  `indices_of_shape_operands`).  The count only sizes the kernel's launch: every element is
  computed alike, so the result is the same function of the first four operands.

The function is the Threefry-2x32 block cipher with 20 rounds (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", SC 2011), keyed as JAX keys it: the key schedule is (k1, k2,
k1 ^ k2 ^ 0x1BD11BDA), injected after every four rounds with the injection counter added to the
second word; rotations 13, 15, 26, 6 then 17, 29, 16, 24.  Arithmetic is modulo 2**32 (numpy
uint32 wraps)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import TupleType

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.custom_calls.jax_targets import split_shape_operands

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _rotl(x: np.ndarray, d: int) -> np.ndarray:
    return (x << np.uint32(d)) | (x >> np.uint32(32 - d))


def threefry2x32(
    k1: np.ndarray, k2: np.ndarray, x1: np.ndarray, x2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 (20 rounds) of the counters (x1, x2) under the keys (k1, k2), elementwise
    (numpy broadcasting), as uint32 arrays."""
    k1, k2, x1, x2 = (np.asarray(a, dtype=np.uint32) for a in (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    with np.errstate(over="ignore"):  # (wrapping is the arithmetic: numpy warns on 0-d values)
        a = x1 + ks[0]
        b = x2 + ks[1]
        for i in range(5):  # five groups of four rounds, each followed by a key injection
            for r in _ROTATIONS[i % 2]:
                a = a + b
                b = _rotl(b, r) ^ a
            a = a + ks[(i + 1) % 3]
            b = b + ks[(i + 2) % 3] + np.uint32(i + 1)
    return np.asarray(a, dtype=np.uint32), np.asarray(b, dtype=np.uint32)


def _threefry_target(ctx: Any) -> list[np.ndarray]:
    """Both forms: the first four operands are (k1, k2, x1, x2) at the result shape; a fifth (the
    opaque form's dynamic element count) only sized the kernel's launch, and result-shape operands
    are dropped."""
    name = ctx.target_name
    operands, _ = split_shape_operands(ctx.operands, ctx.attributes.get("indices_of_shape_operands"))
    results = ctx.result_types
    if len(results) == 1 and isinstance(results[0], TupleType):  # (2023: one tuple-typed result)
        results = results[0].types.data
    if len(operands) not in (4, 5) or len(results) != 2:
        raise InterpreterError(
            f"custom_call @{name} (JAX's Threefry-2x32 kernel) takes four uint32 operands (k1, k2, "
            f"x1, x2; the old form may add the element count) and gives two results; got "
            f"{len(operands)} operands and {len(results)} results"
        )
    k1, k2, x1, x2 = operands[:4]
    shapes = {np.shape(v) for v in (k1, k2, x1, x2)}
    bad = [np.asarray(v).dtype for v in (k1, k2, x1, x2) if np.asarray(v).dtype != np.uint32]
    if bad or len(shapes) != 1:
        raise InterpreterError(
            f"custom_call @{name}: JAX's Threefry-2x32 kernel takes four uint32 operands of one "
            f"shape (JAX broadcasts them first); got {[str(np.asarray(v).dtype) for v in operands[:4]]} "
            f"of shapes {[np.shape(v) for v in operands[:4]]}"
        )
    y1, y2 = threefry2x32(k1, k2, x1, x2)
    return [y1, y2]


FFI_FORM = "typed FFI: (k1, k2, x1, x2) -> (y1, y2), uint32 (jax >= 0.4.31)"
OPAQUE_FORM = (
    "opaque ThreeFry2x32Descriptor{int64 n}, api_version 2, a 5th operand i64[1] when n = -1 "
    "(jax <= 0.4.31; JAX's default GPU lowering until 0.4.26)"
)

PRNG_FAMILIES: tuple[tuple[dict[str, Any], frozenset[str], tuple[str, ...]], ...] = (
    ({"cu_threefry2x32_ffi": _threefry_target}, frozenset({"cuda"}), (FFI_FORM,)),
    ({"hip_threefry2x32_ffi": _threefry_target}, frozenset({"rocm"}), (FFI_FORM,)),
    ({"cu_threefry2x32": _threefry_target}, frozenset({"cuda"}), (OPAQUE_FORM,)),
    ({"hip_threefry2x32": _threefry_target}, frozenset({"rocm"}), (OPAQUE_FORM,)),
)
"""(targets, their platforms, the forms they accept), as `builtins.load` registers families."""

__all__ = ["PRNG_FAMILIES", "threefry2x32"]
