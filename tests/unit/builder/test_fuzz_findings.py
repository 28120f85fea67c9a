"""Findings of the builder fuzzer (tests/fuzz/test_fuzz_builder.py), one regression test each: an
input that made an op function raise another exception than BuildError (or build an op whose module
does not verify or round-trip), fixed at its root.

Each row: (argument types, the body -- a one-line lambda --, fragments of the BuildError's text).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, UnrankedTensorType, i32
from xdsl.ir import Region

from stablehlo_py.builder import BuildError, Module, chlo, tensor, to_attribute
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.ir import parse, print_ir

F2 = tensor((2,), "f32")
F3 = tensor((3,), "f32")
F23 = tensor((2, 3), "f32")
F44 = tensor((4, 4), "f32")
I2 = tensor((2,), "i32")
U4 = tensor((4,), "ui8")
IDX = tensor((2, 1), "i32")
C2 = tensor((2,), "complex<f32>")
GATHER = {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1}

# fmt: off
FINDINGS: dict[str, tuple[tuple[object, ...], object, tuple[str, ...]]] = {
    # a Python number with no operand to take the type of: JAX's default type by the number rule
    # (was OverflowError / a silent inf)
    "int-default-overflow": ((), lambda: hlo.floor(-2**200, result_type="tensor<i32>"), ("stablehlo.floor: operand 'operand' is the Python int", "does not fit i32", "JAX's default")),
    "float-default-overflow": ((), lambda: hlo.add(1e40, 1.0), ("stablehlo.add: operand 'lhs' is the Python float 1e+40, which overflows f32",)),
    # a numpy value whose dtype is no element type (was a BuildError naming no op)
    "numpy-str": ((F2,), lambda x: hlo.sqrt(np.str_("x")), ("stablehlo.sqrt: operand 'operand' is a numpy <U1 scalar ('x'), whose dtype is not an element type",)),
    "numpy-datetime": ((), lambda: hlo.sign(np.datetime64("2020-01-01")), ("stablehlo.sign: operand 'operand'", "whose dtype is not an element type")),
    "numpy-object-array": ((), lambda: hlo.abs(np.array([None], dtype=object)), ("stablehlo.abs: operand 'operand'", "whose dtype is not an element type")),
    # integer attributes out of their type's range (was xDSL's VerifyException / ValueError, or
    # a value silently wrapped: top_k(x, 2**63) said k = -9223372036854775808)
    "i64-attr-low": ((F23,), lambda x: chlo.top_k(x, -2**63 - 1), ("chlo.top_k: attribute 'k' expects an int of the i64 range; -9223372036854775809 does not fit",)),
    "i64-attr-wraps": ((F23,), lambda x: chlo.top_k(x, 2**63), ("chlo.top_k: attribute 'k'", "9223372036854775808 does not fit")),
    "i64-array": ((F23,), lambda x: hlo.transpose(x, [2**64, 0]), ("stablehlo.transpose: attribute 'permutation' expects a sequence of ints of the i64 range",)),
    "i32-attr": ((F2,), lambda x: hlo.reduce_precision(x, 2**31, 10), ("stablehlo.reduce_precision: attribute 'exponent_bits' expects an int of the i32 range",)),
    "layout": ((F2,), lambda x: hlo.custom_call([x], "f", operand_layouts=[[2**70]], result_type=F2), ("stablehlo.custom_call: attribute 'operand_layouts'", "i64 range")),
    "accuracy-ulps": ((F2,), lambda x: hlo.log(x, {"ulps": 2**70, "mode": "TOLERANCE"}), ("stablehlo.log: attribute 'result_accuracy' expects ulps to be an int of the i64 range",)),
    # float attributes (was ParseError for nan/inf, OverflowError for 10**400, a silent inf)
    "float-attr-overflow": ((F23, F3), lambda x, s: hlo.batch_norm_training(x, s, s, 1e300, 1), ("stablehlo.batch_norm_training: attribute 'epsilon' is the Python float 1e+300, which overflows f32",)),
    "float-attr-huge-int": ((F23, F3), lambda x, s: hlo.batch_norm_training(x, s, s, 10**400, 1), ("stablehlo.batch_norm_training: attribute 'epsilon' is the Python int", "overflows f32")),
    # dictionary attributes holding what is no attribute (was a BuildError naming no op, or
    # xDSL's VerifyException for an int out of i64)
    "dict-object": ((F2,), lambda x: hlo.custom_call([x], "f", backend_config={"a": object()}, result_type=F2), ("stablehlo.custom_call: attribute 'backend_config' holds a value that is not an attribute: cannot make an attribute of <object",)),
    "dict-huge-int": ((F2,), lambda x: hlo.composite([x], "my.op", {"a": 2**70}, decomposition=lambda a: a), ("stablehlo.composite: attribute 'composite_attributes'", "an int attribute is an i64")),
    # chlo.constant_like's value by the number rule (was OverflowError / VerifyException)
    "constant-like-inf-int": ((I2,), lambda x: chlo.constant_like(x, float("inf")), ("chlo.constant_like: attribute 'value' is the Python float inf, but the operand is i32",)),
    "constant-like-huge": ((I2,), lambda x: chlo.constant_like(x, 2**70), ("chlo.constant_like: attribute 'value'", "does not fit i32")),
    "constant-like-overflow": ((F2,), lambda x: chlo.constant_like(x, 1e300), ("chlo.constant_like: attribute 'value' is the Python float 1e+300, which overflows f32",)),
    "constant-like-complex": ((C2,), lambda x: chlo.constant_like(x, 1.0), ("chlo.constant_like: attribute 'value' takes an integer or float operand; the operand's elements are complex<f32>",)),
    # unhashable values where an element type is read (was TypeError from the memo)
    "result-type-dict": ((F2,), lambda x: hlo.convert(x, result_type={"a": 1}), ("stablehlo.convert: result_type: cannot make a type of {'a': 1}",)),
    "struct-field-type": ((F23, tensor((3, 2), "f32")), lambda x, y: hlo.dot_general(x, y, {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}, algorithm={"lhs_precision_type": [2]}), ("stablehlo.dot_general: attribute 'algorithm' expects lhs_precision_type to be an element type",)),
    # a region whose block argument types come from an empty operand group (was ValueError)
    "region-of-no-operand": ((), lambda: hlo.all_reduce([], replica_groups=[[0]], computation=lambda a, b: a), ("stablehlo.all_reduce: region 'computation' takes its block argument types from the first value of operand 'operands', which has none",)),
    # composite: what its verifier checks against the module, at the call (was accepted, then
    # Module.verify() failed); a decomposition of the wrong arity (was an error naming no op)
    "composite-name": ((F2,), lambda x: hlo.composite([x], "#bad", decomposition=lambda a: a), ("stablehlo.composite: name must be a valid namespaced op name",)),
    "composite-result-type": ((F2,), lambda x: hlo.composite([x], "my.op", decomposition=lambda a: a, result_type=I2), ("stablehlo.composite: result at index 0 has type 'tensor<2xi32>', but decomposition has type 'tensor<2xf32>'",)),
    "composite-arity": ((F2,), lambda x: hlo.composite([], "my.op", decomposition=lambda a: a), ("stablehlo.composite: the decomposition gets the 0 input(s); the callable takes 1 argument", "the decomposition is defined at")),
    # an attribute given as is or as text of another kind than the op declares (was
    # AttributeError in inference)
    "attr-text-kind": ((F44, IDX), lambda x, i: hlo.dynamic_gather(x, i, [1, 4], "array<i64: 1, 2>"), ("stablehlo.dynamic_gather: attribute 'dimension_numbers' is not of the kind the op declares",)),
    "attr-object-kind": ((F23,), lambda x: hlo.transpose(x, IntegerAttr(1, i32)), ("stablehlo.transpose: attribute 'permutation' is not of the kind the op declares",)),
    # convolution's default dimension numbers need a batch and a feature dimension (was IndexError)
    "conv-default-dims-0d": ((tensor((), "bf16"),), lambda x: hlo.convolution(x, x), ("stablehlo.convolution: the default dimension_numbers (batch, feature, spatial...) need an lhs of rank 2 or more; lhs is tensor<bf16>",)),
    # a complex shape operand (was numpy's ComplexWarning in inference: see the test below)
    "rng-complex-shape": ((), lambda: hlo.rng(0.0, 1.0, 3 + 0j, "UNIFORM"), ("stablehlo.rng: operand #2 ('shape') must be", "tensor<complex<f32>>")),
    # chlo.scan's results from a body given as an empty xDSL Region (was xDSL's ValueError)
    "scan-empty-region": ((tensor((4,), "bf16"),), lambda x: chlo.scan([], [x], 1, body=Region()), ("chlo.scan: the body returns 0 values; it must return the outputs, then 1 carries",)),
    # bytes are not a sequence of sizes or of operands (was ValueError, or b'x' read as [120])
    "bytes-shape": ((F2,), lambda x: hlo.dynamic_reshape(x, b"x", result_type=F2), ("stablehlo.dynamic_reshape: output_shape must be a value built by the builder", "got b'x'")),
    "bytes-operands": ((), lambda: hlo.tuple(b"x"), ("stablehlo.tuple: operand 'val", "got b'x'")),
}
# fmt: on


def _build_fails(types: tuple[object, ...], body: object) -> BuildError:
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(body, list(types), "main")  # type: ignore[arg-type]
    e = info.value
    assert type(e) is BuildError
    assert e.location is not None and e.location.rsplit(":", 2)[0] == __file__, e.location
    assert m.functions == {} and not list(m.op.body.block.ops)
    return e


@pytest.mark.parametrize("case", list(FINDINGS))
def test_finding_is_a_build_error_naming_the_op(case: str) -> None:
    types, body, fragments = FINDINGS[case]
    text = str(_build_fails(types, body))
    for fragment in fragments:
        assert fragment in text, f"{case}: {fragment!r} not in\n{text}"


def _round_trips(m: Module) -> str:
    m.verify()
    text = m.text()
    assert print_ir(parse(text)) == text
    return text


def test_a_float_or_complex_constant_is_no_constant_shape() -> None:
    # ir/infer/reify.py constant_ints (MLIR's m_Constant of integers, read by inference for shape
    # operands): a float or complex constant is no match; its values were truncated to ints
    from stablehlo_py.builder import constant
    from stablehlo_py.ir.infer.reify import constant_ints

    seen = []
    m = Module()
    m.add_function(
        lambda: seen.extend(constant_ints(constant(v)) for v in ([2.5, 3.0], [2, 3], 3 + 0j)),
        [],
        "main",
    )
    assert seen == [None, (2, 3), None]


def test_float_attributes_take_nan_and_inf() -> None:
    # were ParseError: the value was printed with repr() and read back with the attribute syntax
    m = Module()

    @m.func(F23, F3)
    def main(x, s):  # type: ignore[no-untyped-def]
        a = hlo.batch_norm_training(x, s, s, float("nan"), 1)[0]
        return hlo.batch_norm_training(a, s, s, float("inf"), 1)[0]

    text = _round_trips(m)
    assert "epsilon = 0x7FC00000 : f32" in text and "epsilon = 0x7F800000 : f32" in text


def test_numpy_float_attribute_is_still_taken() -> None:
    m = Module()
    m.add_function(
        lambda x, s: hlo.batch_norm_training(x, s, s, np.float64(1e-3), 1)[0], [F23, F3], "main"
    )
    assert "epsilon = 1.000000e-03 : f32" in _round_trips(m)


def test_an_int_attribute_out_of_i64_is_a_build_error() -> None:
    # was xDSL's VerifyException (Module attributes, arg_attrs, composite_attributes)
    with pytest.raises(BuildError, match="an int attribute is an i64"):
        to_attribute({"n": 2**64})
    assert to_attribute(2**63 - 1) == IntegerAttr(2**63 - 1, 64)


def test_chlo_broadcast_with_a_negative_dimension_is_unranked() -> None:
    # ir/infer/chlo.py: a negative broadcast dimension is illegal as one beyond the rank (an
    # unranked result, as upstream signals it); was IndexError, and -1 read as the last dimension
    m = Module()

    @m.func(U4)
    def main(x):  # type: ignore[no-untyped-def]
        a = chlo.broadcast_add(x, x, broadcast_dimensions=[-1])
        b = chlo.broadcast_add(x, x, broadcast_dimensions=[-5])
        c = chlo.broadcast_add(x, x, broadcast_dimensions=[4])
        assert a.type == b.type == c.type == UnrankedTensorType(U4.element_type)
        return a

    _round_trips(m)


def test_a_0d_dynamic_slice_round_trips() -> None:
    # upstream prints `%x, , sizes = []` for no start index and cannot read it back: the parser
    # reads it (ir/directives.py VariadicOperandWithAttribute)
    m = Module()
    m.add_function(lambda x: hlo.dynamic_slice(x, [], slice_sizes=[]), [tensor((), "i32")], "main")
    assert "stablehlo.dynamic_slice %arg0, , sizes = []" in _round_trips(m)


def test_composite_of_a_function_defined_later_is_checked_by_verify() -> None:
    # the decomposition named by a string not yet in the module: only the name is checked now
    m = Module()

    @m.func(F2)
    def main(x):  # type: ignore[no-untyped-def]
        with pytest.raises(BuildError, match="name must be a valid namespaced op name"):
            hlo.composite([x], "bad", decomposition="later", result_type=F2)
        return hlo.composite([x], "my.op", decomposition="later", result_type=F2)

    m.add_function(lambda a: a, [F2], "later")
    _round_trips(m)
