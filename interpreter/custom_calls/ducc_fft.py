"""JAX's CPU FFT custom calls of jaxlib <= 0.4.20: `ducc_fft` and `dynamic_ducc_fft`.

Until jaxlib 0.4.21 (jax's lowering checked `xla_extension_version < 211` until jax 0.4.26),
`jnp.fft` on the CPU did not lower to `stablehlo.fft` but to a call of jaxlib's DUCC kernel
(`jaxlib/ducc_fft.py`, `jaxlib/cpu/ducc_fft_kernels.cc`; removed from jaxlib in 0.4.29),
`api_version = 2`, with the transform described by a FlatBuffers table passed as operand #0 (a
`tensor<Nxui8>` constant; schema `jaxlib/cpu/ducc_fft.fbs`):

- `ducc_fft(descriptor, x)` (jaxlib <= 0.4.12): `DuccFftDescriptor {dtype: byte (0 complex64,
  1 complex128); fft_type: byte (0 C2C, 1 C2R, 2 R2C); shape, strides_in, strides_out: [uint64];
  axes: [uint32]; forward: bool; scale: double}`;
- `dynamic_ducc_fft(descriptor, x, shape, strides_in, strides_out, scale[, result shape])`
  (jaxlib 0.4.13 - 0.4.20, also for shape-polymorphic exports): `DynamicDuccFftDescriptor {ndims:
  uint32; dtype; fft_type; axes: [uint32]; forward: bool}`, the shape and strides as i32 operands,
  the scale as an f64[1] operand.

`shape` is the real side's (the output of C2R, the input of R2C); strides count elements, in the
row-major layout JAX gives the operand and result (a different layout is refused).  DUCC computes
`scale` times the unnormalized transform over `axes` (sign by `forward`); JAX passes scale 1 forward
and 1/prod(lengths) backward, i.e. the spec's `fft` (FFT, IFFT, RFFT, IRFFT), which computes it here
(`stablehlo_py.semantics.fft`) with any other scale applied on top."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.semantics.fft import fft

from stablehlo_py.errors import InterpreterError

C2C, C2R, R2C = 0, 1, 2
DTYPES = {
    0: (np.dtype(np.float32), np.dtype(np.complex64)),
    1: (np.dtype(np.float64), np.dtype(np.complex128)),
}
"""The descriptor's dtype -> (the real, the complex element type)."""

# table -> field -> (slot, kind): kinds "u8", "bool", "u32", "f64" scalars, "[u64]", "[u32]" vectors
SCHEMAS: dict[str, dict[str, tuple[int, str]]] = {
    "ducc_fft": {
        "dtype": (0, "u8"),
        "fft_type": (1, "u8"),
        "shape": (2, "[u64]"),
        "strides_in": (3, "[u64]"),
        "strides_out": (4, "[u64]"),
        "axes": (5, "[u32]"),
        "forward": (6, "bool"),
        "scale": (7, "f64"),
    },
    "dynamic_ducc_fft": {
        "ndims": (0, "u32"),
        "dtype": (1, "u8"),
        "fft_type": (2, "u8"),
        "axes": (3, "[u32]"),
        "forward": (4, "bool"),
    },
}
_SCALAR = {"u8": "<B", "bool": "<?", "u32": "<I", "f64": "<d"}
_VECTOR = {"[u64]": "Q", "[u32]": "I"}


def read_table(data: bytes, schema: dict[str, tuple[int, str]], where: str) -> dict[str, Any]:
    """The fields of the FlatBuffers root table in `data` (absent scalars are 0, absent vectors
    empty: FlatBuffers' defaults), every offset checked against the buffer's size."""

    def unpack(fmt: str, pos: int) -> Any:
        if pos < 0 or pos + struct.calcsize(fmt) > len(data):
            raise InterpreterError(
                f"custom_call @{where}: its descriptor ({len(data)} bytes) is not a FlatBuffers "
                "table of jaxlib's ducc_fft.fbs (an offset points outside it); the artifact is "
                "damaged"
            )
        return struct.unpack_from(fmt, data, pos)[0]

    table = unpack("<I", 0)
    vtable = table - unpack("<i", table)
    vtable_size = unpack("<H", vtable)
    out: dict[str, Any] = {}
    for name, (slot, kind) in schema.items():
        entry = 4 + 2 * slot
        offset = unpack("<H", vtable + entry) if entry < vtable_size else 0
        if kind in _SCALAR:
            out[name] = unpack(_SCALAR[kind], table + offset) if offset else 0
            continue
        if not offset:
            out[name] = []
            continue
        start = table + offset + unpack("<I", table + offset)
        count = unpack("<I", start)
        fmt = f"<{count}{_VECTOR[kind]}"
        unpack(fmt, start + 4)  # (bounds)
        out[name] = list(struct.unpack_from(fmt, data, start + 4))
    return out


def _row_major(shape: list[int]) -> list[int]:
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


def transform(
    where: str,
    x: np.ndarray,
    d: dict[str, Any],
    shape: list[int],
    strides: tuple[list[int], list[int]],
    scale: float,
) -> np.ndarray:
    """DUCC's transform of `x` as the descriptor fields `d` (and the shape, strides, scale the
    form gives) describe it, checked against the operand."""
    kind, axes, forward = d["fft_type"], list(d["axes"]), bool(d["forward"])
    if kind not in (C2C, C2R, R2C) or d["dtype"] not in DTYPES:
        raise InterpreterError(
            f"custom_call @{where}: descriptor fft_type {kind} / dtype {d['dtype']} is not one of "
            "jaxlib's (C2C 0, C2R 1, R2C 2 / complex64 0, complex128 1); the artifact is damaged"
        )
    if not axes or sorted(set(axes)) != axes or axes[-1] >= len(shape):
        raise InterpreterError(
            f"custom_call @{where}: descriptor axes {axes} are not increasing dimensions of a "
            f"rank-{len(shape)} array; the artifact is damaged"
        )
    real, cplx = DTYPES[d["dtype"]]
    half = list(shape)
    half[axes[-1]] = shape[axes[-1]] // 2 + 1
    shape_in, shape_out = {C2C: (shape, shape), C2R: (half, shape), R2C: (shape, half)}[kind]
    dtype_in = real if kind == R2C else cplx
    problems = []
    if x.dtype != dtype_in or list(x.shape) != shape_in:
        problems.append(
            f"the operand is {x.dtype}{list(x.shape)}, the descriptor says {dtype_in}{shape_in}"
        )
    if strides != (_row_major(shape_in), _row_major(shape_out)):
        problems.append(f"strides {strides[0]}, {strides[1]} are not row-major (JAX's layout)")
    if problems:
        raise InterpreterError(f"custom_call @{where}: " + "; ".join(problems))
    trailing = list(range(len(shape) - len(axes), len(shape)))
    y = np.moveaxis(x, axes, trailing)
    lengths = [shape[a] for a in axes]
    if kind == C2C:
        out = fft(y, "FFT" if forward else "IFFT", lengths)
    elif kind == R2C:  # (a real signal: the backward transform is the forward one conjugated)
        out = fft(y, "RFFT", lengths)
        out = out if forward else np.conj(out)
    else:  # C2R of a Hermitian spectrum: forward = backward of the conjugate
        out = fft(np.conj(y) if forward else y, "IRFFT", lengths)
    # the spec's IFFT/IRFFT carry 1/prod(lengths), FFT/RFFT nothing: DUCC's scale on top of that
    factor = scale if forward else scale * math.prod(lengths)
    if factor != 1.0:
        out = (out * factor).astype(out.dtype)
    return np.moveaxis(out, trailing, axes)


def _descriptor(ctx: Any, target: str) -> dict[str, Any]:
    raw = np.asarray(ctx.operands[0])
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise InterpreterError(
            f"custom_call @{target}: operand #0 must be the descriptor as a tensor<Nxui8> "
            f"(jaxlib's FlatBuffers table), got {raw.dtype}{list(raw.shape)}"
        )
    return read_table(raw.tobytes(), SCHEMAS[target], target)


def _operands(ctx: Any, target: str, counts: tuple[int, ...]) -> list[np.ndarray]:
    if len(ctx.operands) not in counts:
        raise InterpreterError(
            f"custom_call @{target} (JAX's DUCC FFT kernel) takes {' or '.join(map(str, counts))} "
            f"operands, got {len(ctx.operands)}"
        )
    return [np.asarray(v) for v in ctx.operands]


def ducc_fft(ctx: Any) -> list[np.ndarray]:
    _, x = _operands(ctx, "ducc_fft", (2,))
    d = _descriptor(ctx, "ducc_fft")
    strides = (d["strides_in"], d["strides_out"])
    return [transform("ducc_fft", x, d, d["shape"], strides, d["scale"])]


def dynamic_ducc_fft(ctx: Any) -> list[np.ndarray]:
    # (a 7th operand is the result's shape, for shape refinement: `indices_of_shape_operands`)
    _, x, shape, strides_in, strides_out, scale, *_ = _operands(ctx, "dynamic_ducc_fft", (6, 7))
    d = _descriptor(ctx, "dynamic_ducc_fft")
    vectors = [v.reshape(-1).tolist() for v in (shape, strides_in, strides_out)]
    if any(len(v) != d["ndims"] for v in vectors) or scale.size != 1:
        raise InterpreterError(
            f"custom_call @dynamic_ducc_fft: shape, strides_in, strides_out must have ndims = "
            f"{d['ndims']} entries and scale one, got {[len(v) for v in vectors]} and {scale.size}"
        )
    factor = float(scale.reshape(()))
    return [transform("dynamic_ducc_fft", x, d, vectors[0], (vectors[1], vectors[2]), factor)]


TARGETS: dict[str, Callable[[Any], list[np.ndarray]]] = {
    "ducc_fft": ducc_fft,
    "dynamic_ducc_fft": dynamic_ducc_fft,
}
FORMS = {
    "ducc_fft": "api_version 2, FlatBuffers DuccFftDescriptor as operand #0 (jaxlib <= 0.4.12)",
    "dynamic_ducc_fft": "api_version 2, FlatBuffers DynamicDuccFftDescriptor as operand #0, shape, "
    "strides and scale as operands (jaxlib 0.4.13 - 0.4.20)",
}
FAMILIES = tuple(({name: fn}, frozenset({"cpu"}), (FORMS[name],)) for name, fn in TARGETS.items())
"""(targets, platforms, forms) for `builtins.load`."""

__all__ = ["FAMILIES", "TARGETS", "read_table", "transform"]
