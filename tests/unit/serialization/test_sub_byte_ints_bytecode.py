"""i2/i4 tensors in MLIR bytecode artifacts: MLIR's raw data holds each element's bits only
(jaxlib writes `dense<[-2, -1, 0, 1]> : tensor<4xi2>` as 02 03 00 01), where the toolkit stores
signed sub-byte integers sign-extended.  Found by comparing our bytes with jaxlib 0.12's on the
golden program (tests/oracle/test_newest_versions.py); before, we wrote fe ff 00 01 and refused
jaxlib's bytes ("holds values outside -2..1")."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse
from stablehlo_py.serialization import deserialize_portable_artifact, serialize_portable_artifact

PROGRAM = """func.func @main() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %x = stablehlo.constant dense<[-2, -1, 0, 1]> : tensor<4xi2>
  %u = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xui2>
  %y = stablehlo.constant dense<[-8, -3, 0, 7]> : tensor<4xi4>
  %0 = stablehlo.convert %x : (tensor<4xi2>) -> tensor<4xi32>
  %1 = stablehlo.convert %u : (tensor<4xui2>) -> tensor<4xi32>
  %2 = stablehlo.convert %y : (tensor<4xi4>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}"""
WANT = [[-2, -1, 0, 1], [0, 1, 2, 3], [-8, -3, 0, 7]]


@pytest.mark.parametrize("target", ["1.2.0", "current"])
def test_sub_byte_integers_hold_their_bits_only(target: str) -> None:
    data = serialize_portable_artifact(parse(PROGRAM), target, format="mlir")
    assert b"\x02\x03\x00\x01" in data  # i2: -2, -1, 0, 1
    assert b"\x08\x0d\x00\x07" in data  # i4: -8, -3, 0, 7
    assert b"\xfe\xff\x00\x01" not in data and b"\xf8\xfd\x00\x07" not in data
    got = run(deserialize_portable_artifact(data))
    for g, w in zip(got, WANT, strict=True):
        np.testing.assert_array_equal(g, np.array(w, np.int32))


def test_msgpack_keeps_its_own_storage() -> None:
    got = run(deserialize_portable_artifact(serialize_portable_artifact(parse(PROGRAM), "current")))
    for g, w in zip(got, WANT, strict=True):
        np.testing.assert_array_equal(g, np.array(w, np.int32))
