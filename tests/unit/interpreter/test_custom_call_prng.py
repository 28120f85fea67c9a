"""JAX's GPU Threefry-2x32 kernels (interpreter/custom_calls/prng.py): the FFI form and the older
opaque form, bit for bit (a PRNG: the bits are the semantics).  Real CUDA/ROCm artifacts and exports:
tests/oracle/test_prng_targets.py."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.prng import threefry2x32

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

# Random123's known-answer tests for Threefry-2x32, 20 rounds (key, counter) -> output
KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize(("key", "ctr", "out"), KAT)
def test_known_answers(key: tuple[int, int], ctr: tuple[int, int], out: tuple[int, int]) -> None:
    y1, y2 = threefry2x32(*(np.uint32(v) for v in (*key, *ctr)))
    assert (int(y1), int(y2)) == out


def _program(target: str, extra: str = "", extra_type: str = "", api: int = 1) -> str:
    cfg = "mhlo.backend_config = {}" if api == 1 else 'api_version = 2 : i32, backend_config = "\\04\\00\\00\\00\\00\\00\\00\\00"'
    return f"""
func.func @main(%k1: tensor<4xui32>, %k2: tensor<4xui32>, %x1: tensor<4xui32>, %x2: tensor<4xui32>{extra}) -> (tensor<4xui32>, tensor<4xui32>) {{
  %0:2 = stablehlo.custom_call @{target}(%k1, %k2, %x1, %x2{", %n" if extra else ""}) {{{cfg}}} : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>{extra_type}) -> (tensor<4xui32>, tensor<4xui32>)
  return %0#0, %0#1 : tensor<4xui32>, tensor<4xui32>
}}
"""


ARGS = [np.full(4, 0x13198A2E, np.uint32), np.full(4, 0x03707344, np.uint32),
        np.array([0x243F6A88, 0, 1, 0xFFFFFFFF], np.uint32), np.array([0x85A308D3, 0, 2, 7], np.uint32)]


@pytest.mark.parametrize("target", ["cu_threefry2x32_ffi", "hip_threefry2x32_ffi"])
def test_ffi_form_runs_elementwise(target: str) -> None:
    y1, y2 = run(parse(_program(target)), *ARGS)
    assert (int(y1[0]), int(y2[0])) == KAT[2][2]
    for i in range(4):
        want = threefry2x32(*(a[i] for a in ARGS))
        assert (int(y1[i]), int(y2[i])) == (int(want[0]), int(want[1]))


@pytest.mark.parametrize("target", ["cu_threefry2x32", "hip_threefry2x32"])
def test_opaque_form_gives_the_same_bits(target: str) -> None:
    """jax <= 0.4.31: api_version 2 with the packed descriptor (n = 4 elements here); and with
    n = -1 a fifth operand holds the count."""
    ffi = run(parse(_program(target + "_ffi")), *ARGS)
    old = run(parse(_program(target, api=2)), *ARGS)
    dyn = run(parse(_program(target, ", %n: tensor<1xi64>", ", tensor<1xi64>", api=2)),
              *ARGS, np.array([4], np.int64))
    for a, b, c in zip(ffi, old, dyn):
        assert a.dtype == np.uint32 and np.array_equal(a, b) and np.array_equal(a, c)


def test_bad_operands_are_a_clear_error() -> None:
    text = _program("cu_threefry2x32_ffi").replace("tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) ->", "tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xi32>) ->").replace("%x2: tensor<4xui32>", "%x2: tensor<4xi32>")
    with pytest.raises(InterpreterError, match=r"four uint32 operands of one shape"):
        run(parse(text), *ARGS[:3], ARGS[3].astype(np.int32))


TUPLE_FORM = """
func.func @main(%k1: tensor<4xui32>, %k2: tensor<4xui32>, %x1: tensor<4xui32>, %x2: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
  %0 = stablehlo.custom_call @cu_threefry2x32(%k1, %k2, %x1, %x2) {api_version = 2 : i32, backend_config = "\\04\\00\\00\\00\\00\\00\\00\\00"} : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> tuple<tensor<4xui32>, tensor<4xui32>>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<4xui32>, tensor<4xui32>>) -> tensor<4xui32>
  %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<4xui32>, tensor<4xui32>>) -> tensor<4xui32>
  return %1, %2 : tensor<4xui32>, tensor<4xui32>
}
"""


def test_opaque_form_with_one_tuple_result() -> None:
    """JAX's 2023 artifacts (cuda_threefry2x32.py of 2023-03-15) give the two outputs as one
    tuple-typed result."""
    y1, y2 = run(parse(TUPLE_FORM), *ARGS)
    want = threefry2x32(*ARGS)
    assert np.array_equal(y1, want[0]) and np.array_equal(y2, want[1])
