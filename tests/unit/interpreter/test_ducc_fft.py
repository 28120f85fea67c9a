"""JAX's DUCC FFT custom calls (`interpreter/custom_calls/ducc_fft.py`) with descriptors built here
with the `flatbuffers` package from jaxlib's schema (`jaxlib/cpu/ducc_fft.fbs`): the static
`ducc_fft` form (jaxlib <= 0.4.12, no artifact of it can be written by a jax with an export API),
DUCC's `scale` and `forward` on top of what JAX passes, axes that are not the trailing ones, and the
errors.  The dynamic form runs from real jax 0.4.20 artifacts in test_cpu_old_forms.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

flatbuffers = pytest.importorskip("flatbuffers")

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse

C2C, C2R, R2C = 0, 1, 2
C64, C128, F32, F64 = (np.dtype(t) for t in (np.complex64, np.complex128, np.float32, np.float64))
TYPES = {C64: "complex<f32>", F32: "f32", C128: "complex<f64>", F64: "f64"}


def _vector(builder: object, values: list[int], size: int) -> int:
    builder.StartVector(size, len(values), size)
    for v in reversed(values):
        (builder.PrependUint64 if size == 8 else builder.PrependUint32)(v)
    return builder.EndVector()


def descriptor(
    shape: list[int],
    fft_type: int,
    axes: list[int],
    forward: bool,
    scale: float,
    double: bool = False,
    strides: tuple[list[int], list[int]] | None = None,
) -> np.ndarray:
    """jaxlib's `DuccFftDescriptor` for a row-major array of (real-side) `shape`."""
    half = list(shape)
    if fft_type != C2C:
        half[axes[-1]] = shape[axes[-1]] // 2 + 1
    shape_in, shape_out = {C2C: (shape, shape), C2R: (half, shape), R2C: (shape, half)}[fft_type]
    row_major = [[math.prod(s[i + 1 :]) for i in range(len(s))] for s in (shape_in, shape_out)]
    strides_in, strides_out = strides or row_major
    b = flatbuffers.Builder(0)
    vectors = [_vector(b, v, 8) for v in (shape, strides_in, strides_out)] + [_vector(b, axes, 4)]
    b.StartObject(8)
    b.PrependUint8Slot(0, int(double), 0)
    b.PrependUint8Slot(1, fft_type, 0)
    for slot, vec in zip((2, 3, 4, 5), vectors):
        b.PrependUOffsetTRelativeSlot(slot, vec, 0)
    b.PrependBoolSlot(6, forward, False)
    b.PrependFloat64Slot(7, scale, 0.0)
    b.Finish(b.EndObject())
    return np.frombuffer(bytes(b.Output()), np.uint8).copy()


def _call(desc: np.ndarray, x: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """`ducc_fft(desc, x)` -> tensor<shape x dtype>, run as a program."""

    def t(shape: tuple[int, ...], dtype: np.dtype) -> str:
        return f"tensor<{'x'.join(map(str, shape))}x{TYPES[np.dtype(dtype)]}>"

    d_type, x_type, out = f"tensor<{desc.size}xui8>", t(x.shape, x.dtype), t(shape, dtype)
    text = (
        f"func.func @main(%d: {d_type}, %x: {x_type}) -> {out} {{\n"
        f"  %0 = stablehlo.custom_call @ducc_fft(%d, %x) {{api_version = 2 : i32}} : "
        f"({d_type}, {x_type}) -> {out}\n"
        f"  return %0 : {out}\n}}\n"
    )
    (out,) = run(parse(text), desc, x)
    return out


R = np.random.default_rng(0)
X = (R.normal(size=(3, 8)) + 1j * R.normal(size=(3, 8))).astype(np.complex64)
REAL = R.normal(size=(3, 8)).astype(np.float32)

REAL64 = REAL.astype(np.float64)

# name -> (descriptor, operand, numpy's answer, the result's element type)
CASES = {
    "fft": (descriptor([3, 8], C2C, [1], True, 1.0), X, np.fft.fft(X), C64),
    "ifft as JAX passes it (scale 1/n)": (
        descriptor([3, 8], C2C, [1], False, 1 / 8), X, np.fft.ifft(X), C64
    ),
    "fft2": (descriptor([3, 8], C2C, [0, 1], True, 1.0), X, np.fft.fft2(X), C64),
    "fft over the leading axis": (
        descriptor([3, 8], C2C, [0], True, 1.0), X, np.fft.fft(X, axis=0), C64
    ),
    "scaled forward": (descriptor([3, 8], C2C, [1], True, 0.5), X, 0.5 * np.fft.fft(X), C64),
    "unnormalized backward": (descriptor([3, 8], C2C, [1], False, 1.0), X, 8 * np.fft.ifft(X), C64),
    "rfft": (descriptor([3, 8], R2C, [1], True, 1.0), REAL, np.fft.rfft(REAL), C64),
    "irfft": (descriptor([3, 8], C2R, [1], False, 1 / 8), np.fft.rfft(REAL).astype(C64), REAL, F32),
    "irfft2 in double": (descriptor([3, 8], C2R, [0, 1], False, 1 / 24, double=True),
                         np.fft.rfft2(REAL64), REAL64, F64),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_ducc_fft(name: str) -> None:
    desc, x, want, dtype = CASES[name]
    got = _call(desc, x, want.shape, dtype)
    assert got.dtype == dtype and got.shape == want.shape
    tol = 1e-5 if dtype in (F32, C64) else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


BAD = {
    # name -> (descriptor, operand, error substring)
    "truncated descriptor": (descriptor([3, 8], C2C, [1], True, 1.0)[:20], X,
                             "is not a FlatBuffers table of jaxlib's ducc_fft.fbs"),
    "shape of another operand": (
        descriptor([3, 4], C2C, [1], True, 1.0), X,
        "the operand is complex64[3, 8], the descriptor says complex64[3, 4]",
    ),
    "column-major strides": (descriptor([3, 8], C2C, [1], True, 1.0, strides=([1, 3], [1, 3])), X,
                             "strides [1, 3], [1, 3] are not row-major"),
    "axes out of range": (descriptor([3, 8], C2C, [2], True, 1.0), X,
                          "descriptor axes [2] are not increasing dimensions of a rank-2 array"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_descriptor_is_a_clear_error(name: str) -> None:
    desc, x, message = BAD[name]
    with pytest.raises(InterpreterError, match="custom_call @ducc_fft") as info:
        _call(desc, x, x.shape, x.dtype)
    assert message in str(info.value)


def test_wrong_operand_count() -> None:
    text = (
        "func.func @main(%x: tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>> {\n"
        "  %0 = stablehlo.custom_call @ducc_fft(%x) {api_version = 2 : i32} : "
        "(tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>\n"
        "  return %0 : tensor<3x8xcomplex<f32>>\n}\n"
    )
    with pytest.raises(InterpreterError, match="takes 2 operands, got 1"):
        run(parse(text), X)


def test_registered_for_cpu_with_their_forms() -> None:
    from stablehlo_py.interpreter.custom_calls import REGISTRY

    for name, since in (("ducc_fft", "jaxlib <= 0.4.12"), ("dynamic_ducc_fft", "jaxlib 0.4.13 - 0.4.20")):
        target = REGISTRY.get(name)
        assert target is not None and target.platforms == frozenset({"cpu"}), name
        assert len(target.forms) == 1 and since in target.forms[0], target.forms
