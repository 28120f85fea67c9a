"""Deliberate producer mistakes (issue 26, plan docs/plans/issue-26-builder.md section 3): each one
raises a BuildError while the function is being built -- never another exception type, never only at
`Module.verify()` -- pointing at the line of this file that made it, naming the op, the operand(s)
and the types; a failed call leaves nothing in the module.

One row per mistake: (argument types of the function, the function -- a one-line lambda, so that its
line is the line of the mistake --, fragments the error's text must contain).
"""

from __future__ import annotations

import pytest

from stablehlo_py.builder import BuildError, Module, tensor
from stablehlo_py.builder import stablehlo as hlo

F2 = tensor((2,), "f32")
F16 = tensor((2,), "f16")
I2 = tensor((2,), "i32")
I64_2 = tensor((2,), "i64")
U8 = tensor((2,), "ui8")
BF2 = tensor((2,), "bf16")
F23 = tensor((2, 3), "f32")
F32_ = tensor((3, 2), "f32")
F45 = tensor((4, 5), "f32")
F44 = tensor((4, 4), "f32")
F0 = tensor((), "f32")
I0 = tensor((), "i32")
I64_0 = tensor((), "i64")
P2 = tensor((2,), "i1")
FD = tensor((-1, 4), "f32")
ID = tensor((-1, 4), "i32")
X4 = tensor((1, 8, 8, 4), "f32")
W4 = tensor((3, 3, 4, 4), "f32")
X3 = tensor((1, 8, 8), "f32")
W3 = tensor((3, 3, 4), "f32")
IDX = tensor((2, 1), "i32")
IDX_F = tensor((2, 1), "f32")
C3 = tensor((3,), "complex<f32>")

GATHER = {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0], "index_vector_dim": 1}
SCATTER = {"inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0], "index_vector_dim": 1}
CONV = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
CONTRACT_1x0 = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}

# fmt: off
Row = tuple[tuple[object, ...], object, tuple[str, ...]]

MISTAKES: dict[str, Row] = {
    # wrong element types (D)
    "D1": ((F2, I2), lambda x, y: hlo.add(x, y), ("stablehlo.add: requires the same element type for all operands and results", "operand 'lhs' is tensor<2xf32>", "operand 'rhs' is tensor<2xi32>")),
    "D2": ((I2, F2), lambda p, x: hlo.select(p, x, x), ("stablehlo.select:", "operand #0 ('pred')", "tensor<2xi32>", "operand 'on_true' is tensor<2xf32>")),
    "D3": ((I2,), lambda x: hlo.sqrt(x), ("stablehlo.sqrt:", "operand #0 ('operand')", "float", "tensor<2xi32>")),
    "D4": ((F2, F2), lambda x, y: hlo.and_(x, y), ("stablehlo.and:", "operand #0 ('lhs')", "integer", "tensor<2xf32>")),
    "D5": ((F2, F2), lambda x, y: hlo.shift_left(x, y), ("stablehlo.shift_left:", "integer", "tensor<2xf32>")),
    "D6": ((F2, I2), lambda x, y: hlo.compare(x, y, "LT"), ("stablehlo.compare:", "element type", "operand 'lhs' is tensor<2xf32>", "operand 'rhs' is tensor<2xi32>")),
    "D7": ((F2, F16), lambda x, y: hlo.complex(x, y), ("stablehlo.complex:", "('rhs')", "tensor<2xf16>")),
    "D8": ((I0,), lambda n: hlo.while_([n], cond=lambda i: hlo.convert(i, result_type=F0), body=lambda i: i), ("stablehlo.while:", "i1", "tensor<f32>", "region 'cond' is the callable defined at")),
    "D9": ((F0, F2), lambda p, x: hlo.if_(p, true_branch=lambda: x, false_branch=lambda: x), ("stablehlo.if:", "('pred')", "tensor<f32>")),
    "D10": ((I2, F2), lambda y, x: hlo.clamp(y, x, x), ("stablehlo.clamp:", "element type", "operand 'min' is tensor<2xi32>", "operand 'operand' is tensor<2xf32>")),
    "D11": ((F2,), lambda x: hlo.bitcast_convert(x, result_type=((2,), "i64")), ("stablehlo.bitcast_convert:", "operand 'operand' is tensor<2xf32>", "result_type= tensor<2xi64>")),
    "D12": ((F2,), lambda x: hlo.convert(x, result_type="f33"), ("stablehlo.convert: result_type: cannot read the type 'f33'",)),
    "M1": ((F2,), lambda x: hlo.reshape(x, result_type="f32"), ("stablehlo.reshape: result_type f32 is an element type", "needs a tensor type")),
    "M5": ((F2,), lambda x: hlo.convert(x, "f33"), ("stablehlo.convert: element_type 'f33' is not an element type",)),
    "M6": ((F2,), lambda x: hlo.bitcast_convert(x, "f16"), ("stablehlo.bitcast_convert: f16 has another bit width than f32", "result_type=")),
    "D14": ((C3,), lambda x: hlo.complex(x, x), ("stablehlo.complex: operand #0 ('lhs') must be ranked tensor of 32/64-bit float values, but got 'tensor<3xcomplex<f32>>'",)),
    # wrong shapes (S)
    "S1": ((F23, F32_), lambda x, y: hlo.add(x, y), ("stablehlo.add: Mismatched dimension sizes 2 and 3 in dimension 0", "operand 'lhs' is tensor<2x3xf32>", "operand 'rhs' is tensor<3x2xf32>")),
    "S2": ((F23,), lambda x: hlo.reshape(x, result_type=((4, 2), "f32")), ("stablehlo.reshape: number of output elements (8) doesn't match expected number of elements (6)", "operand 'operand' is tensor<2x3xf32>", "result_type= tensor<4x2xf32>")),
    "S3": ((F2,), lambda x: hlo.broadcast_in_dim(x, [2], result_type=F23), ("stablehlo.broadcast_in_dim:", "broadcast_dimensions contains invalid value 2 for result with rank 2", "operand 'operand' is tensor<2xf32>")),
    "S4": ((F23, F45), lambda x, y: hlo.concatenate([x, y], dimension=0), ("stablehlo.concatenate:", "operand 'inputs[0]' is tensor<2x3xf32>", "operand 'inputs[1]' is tensor<4x5xf32>")),
    "S5": ((F23,), lambda x: hlo.transpose(x, [0, 0]), ("stablehlo.transpose:", "permutation", "operand 'operand' is tensor<2x3xf32>")),
    "S6": ((F23,), lambda x: hlo.slice(x, [0, 0], [3, 3], [1, 1]), ("stablehlo.slice:", "limit index 3 is larger than dimension size 2 in dimension 0")),
    "S7": ((F23, F23), lambda x, w: hlo.dot_general(x, w, CONTRACT_1x0), ("stablehlo.dot_general:", "contracting dimension sizes must match", "operand 'lhs' is tensor<2x3xf32>", "operand 'rhs' is tensor<2x3xf32>")),
    "S8": ((F23,), lambda x: hlo.reduce([x], [0.0], dimensions=[2], body=hlo.add), ("stablehlo.reduce:", "Out-of-bounds dimension 2", "operand 'inputs[0]' is tensor<2x3xf32>")),
    "S9": ((F44, IDX), lambda x, i: hlo.gather(x, i, GATHER, slice_sizes=[1, 9]), ("stablehlo.gather:", "slice size (9) is out of bounds for operand dimension (4) at index 1")),
    "S10": ((F44, I0), lambda x, i: hlo.dynamic_slice(x, [i, i], slice_sizes=[5, 1]), ("stablehlo.dynamic_slice:", "slice size 5 greater than dimension size 4 in dimension 0")),
    "S11": ((F2,), lambda x: hlo.pad(x, 0.0, [0], [0], [-1]), ("stablehlo.pad:", "Interior padding cannot be negative: -1")),
    "S12": ((), lambda: hlo.iota(3, result_type=F23), ("stablehlo.iota:", "iota dimension cannot go beyond the output rank", "result_type= tensor<2x3xf32>")),
    "S13": ((FD, tensor((-1, 5), "f32")), lambda x, y: hlo.add(x, y), ("stablehlo.add:", "Mismatched dimension sizes 4 and 5 in dimension 1", "operand 'lhs' is tensor<?x4xf32>", "operand 'rhs' is tensor<?x5xf32>")),
    "S14": ((ID, FD), lambda p, x: hlo.select(p, x, x), ("stablehlo.select:", "('pred')", "tensor<?x4xi32>")),
    # wrong arity (A)
    "A1": ((F2,), lambda x: hlo.reduce([x], [0.0], dimensions=[0], body=lambda a: a), ("stablehlo.reduce: region 'body' gets 2 block arguments (tensor<f32>, tensor<f32>); the callable takes 1 argument", "region 'body' is the callable defined at")),
    "A2": ((F2,), lambda x: hlo.sort([x], dimension=0, comparator=lambda a: a), ("stablehlo.sort: region 'comparator' gets 2 block arguments (tensor<f32>, tensor<f32>); the callable takes 1 argument",)),
    "A3": ((I0,), lambda n: hlo.while_([n, n], cond=lambda i, j: hlo.compare(i, j, "LT"), body=lambda i: i), ("stablehlo.while: region 'body' gets 2 block arguments (tensor<i32>, tensor<i32>); the callable takes 1 argument",)),
    "A4": ((F2,), lambda x: hlo.abs(x, x), ("stablehlo.abs takes at most 1 positional arguments (operand); got 2",)),
    "A5": ((F2,), lambda x: hlo.reduce([x], [0.0], dimensions=[0], body=lambda a, b: (a, b)), ("stablehlo.reduce:", "Reduction-region", "must produce 1 tensors, but produces 2 instead", "region 'body' is the callable defined at")),
    "A6": ((I0,), lambda n: hlo.while_([n, n], cond=lambda i, j: hlo.compare(i, j, "LT"), body=lambda i, j: i), ("stablehlo.while:", "body", "operand 'operand[0]' is tensor<i32>")),
    "A8": ((F2,), lambda x: CALLEE(x, x), ("call @callee: takes 1 argument(s); got 2",)),
    "A9": ((F2,), lambda x: hlo.map([x], dimensions=[0], computation=lambda a, b, c: a), ("stablehlo.map: region 'computation' gets 1 block argument (tensor<f32>); the callable takes 3 arguments",)),
    "A10": ((F2,), lambda x: hlo.reduce([x], [0.0], dimensions=[0], body=hlo.abs), ("stablehlo.reduce: region 'body' gets 2 block arguments", "the callable takes (operand, *, result_type=None, loc=None)")),
    # wrong attributes (T)
    "T1": ((F2,), lambda x: hlo.compare(x, x, "BIGGER"), ("stablehlo.compare: attribute 'comparison_direction' expects one of EQ, NE, GE, GT, LE, LT",)),
    "T2": ((F23,), lambda x: hlo.reduce([x], [0.0], dimensions=[-1], body=hlo.add), ("stablehlo.reduce:", "Out-of-bounds dimension -1")),
    "T3": ((X4, W4), lambda x, w: hlo.convolution(x, w, dimension_numbers=CONV, feature_group_count=0, batch_group_count=1), ("stablehlo.convolution:", "feature_group_count", "positive")),
    "T4": ((F23,), lambda x: hlo.transpose(x, "10"), ("stablehlo.transpose:", "permutation")),
    "T5": ((F2,), lambda x: hlo.abs(x, axis=0), ("stablehlo.abs has no operand, attribute or region 'axis'",)),
    "T6": ((F23,), lambda x: hlo.concatenate([x, x], dimension=0.5), ("stablehlo.concatenate: attribute 'dimension' expects an int; got 0.5",)),
    "T7": ((X3, W3), lambda x, w: hlo.convolution(x, w, dimension_numbers=("NHWC", "HWIO", "NHWC")), ("stablehlo.convolution: convolution dimension_numbers[0] must have len equal to the ndim of lhs and rhs, got 4 for lhs and rhs shapes",)),
    "T8": ((X4, W4), lambda x, w: hlo.convolution(x, w, dimension_numbers=("NHWD", "HWIO", "NHWC")), ("stablehlo.convolution: convolution dimension_numbers[0] must contain the characters 'N' and 'C' exactly once, got NHWD.",)),
    "T9": ((X4, W4), lambda x, w: hlo.convolution(x, w, dimension_numbers=("NHWC", "HWIO", "NHWC"), padding="FULL"), ("stablehlo.convolution: padding 'FULL' is not a padding type", "'SAME', 'SAME_LOWER' or 'VALID'")),
    "T10": ((X4, W4), lambda x, w: hlo.convolution(x, w, dimension_numbers=("NHWC", "HWIO", "NDWC")), ("convolution dimension_numbers elements must each have the same set of spatial characters",)),
    "T9": ((F23,), lambda x: hlo.slice(x, [0, 0], [1, 1], [1]), ("stablehlo.slice:", "operand 'operand' is tensor<2x3xf32>")),
    # region signatures (R)
    "R1": ((F2,), lambda x: hlo.reduce([x], [0.0], dimensions=[0], body=lambda a, b: hlo.convert(a, result_type=I0)), ("stablehlo.reduce:", "The type of reduction-region's parameter at index 0 is different than the corresponding result type: 'tensor<f32>' vs 'tensor<i32>'", "region 'body' is the callable defined at")),
    "R2": ((F2,), lambda x: hlo.sort([x], dimension=0, comparator=lambda a, b: a), ("stablehlo.sort:", "comparator", "tensor<f32>")),
    "R3": ((tensor((), "i1"), F0, I0), lambda p, x, y: hlo.if_(p, true_branch=lambda: x, false_branch=lambda: y), ("stablehlo.if:", "branch 0 and branch 1", "tensor<f32>", "tensor<i32>")),
    "R4": ((I0,), lambda n: hlo.while_([n], cond=lambda i: hlo.compare(i, i, "LT"), body=lambda i: hlo.convert(i, result_type=F0)), ("stablehlo.while:", "'tensor<i32>' vs 'tensor<f32>'", "region 'body' is the callable defined at")),
    "R5": ((F2, IDX, F2), lambda b, i, u: hlo.scatter([b], i, [u], SCATTER, update_computation=lambda a, c: hlo.compare(a, c, "LT")), ("stablehlo.scatter:", "'tensor<f32>' vs 'tensor<i1>'")),
    # index operands of the wrong type (I)
    "I2": ((F44, I0, I64_0), lambda x, i, j: hlo.dynamic_slice(x, [i, j], slice_sizes=[1, 1]), ("stablehlo.dynamic_slice:", "start indices must have same element type", "operand 'start_indices[0]' is tensor<i32>", "operand 'start_indices[1]' is tensor<i64>")),
    "I3": ((F44, IDX_F), lambda x, i: hlo.gather(x, i, GATHER, slice_sizes=[1, 4]), ("stablehlo.gather:", "('start_indices')", "tensor<2x1xf32>")),
    # Python numbers and numpy scalars (N, I1/I4/I5, B): the number rule (builder.numbers)
    "N1": ((I2,), lambda x: hlo.add(x, 0.5), ("stablehlo.add:", "0.5", "i32")),
    "N2": ((I2,), lambda x: hlo.reduce([x], [0.5], dimensions=[0], body=hlo.add), ("stablehlo.reduce:", "0.5", "i32")),
    "N3": ((U8,), lambda x: hlo.add(x, 300), ("stablehlo.add:", "300", "ui8")),
    "N4": ((U8,), lambda x: hlo.add(x, -1), ("stablehlo.add:", "-1", "ui8")),
    "N5": ((I2,), lambda x: hlo.add(x, 2**40), ("stablehlo.add:", "1099511627776", "i32")),
    "N6": ((F2,), lambda x: hlo.add(x, 1j), ("stablehlo.add:", "1j", "f32")),
    "N7": ((BF2,), lambda x: hlo.multiply(x, NP_F64_2), ("stablehlo.multiply:", "float64", "bf16")),
    "N8": ((F2,), lambda x: hlo.add(x, True), ("stablehlo.add:", "True", "i1")),
    "N9": ((F2,), lambda x: hlo.add(x, 1e40), ("stablehlo.add:", "1e+40", "f32")),
    "N10": ((I2,), lambda x: hlo.pad(x, 0.5, [0], [0], [0]), ("stablehlo.pad:", "0.5", "i32")),
    "N11": ((I2,), lambda x: hlo.reduce([x], [0], dimensions=[0], body=lambda a, b: 0.5), ("stablehlo.reduce:", "0.5", "tensor<i32>")),
    "N12": ((F2,), lambda x: hlo.add(x, NP_I32_1), ("stablehlo.add:", "int32", "f32")),
    "I1": ((F44,), lambda x: hlo.dynamic_slice(x, [1.5, 0], slice_sizes=[1, 1]), ("stablehlo.dynamic_slice:", "1.5")),
    "I4": ((F44, I0), lambda x, i: hlo.dynamic_slice(x, [2**40, i], slice_sizes=[1, 1]), ("stablehlo.dynamic_slice:", "1099511627776", "i32")),
    "I5": ((F0,), lambda x: hlo.case(1.0, branches=[lambda: x]), ("stablehlo.case:", "1.0")),
    "B1": ((ID,), lambda x: hlo.maximum(x, 0.5), ("stablehlo.maximum:", "0.5", "i32")),
    "B4": ((I0,), lambda n: hlo.dynamic_broadcast_in_dim(hlo.convert(n, result_type=F0), [n, 4.0], [], result_type=FD), ("stablehlo.dynamic_broadcast_in_dim:", "output_dimensions[1]", "4.0")),
}
"""id -> (argument types, the body, fragments of the error's text)."""
# fmt: on

NP_F64_2 = __import__("numpy").float64(2.0)
NP_I32_1 = __import__("numpy").int32(1)
_CALLEE_MODULE = Module()
CALLEE = _CALLEE_MODULE.add_function(lambda x: x, [F2], "callee")


def _build_fails(types: tuple[object, ...], body: object) -> BuildError:
    """Building ``body`` into a fresh module raises a BuildError (exactly that class) that points at
    the body's line in this file; the module is left empty."""
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(body, list(types), "main")  # type: ignore[arg-type]
    e = info.value
    assert type(e) is BuildError, type(e)
    assert e.location is not None, str(e)
    file, line, col = e.location.rsplit(":", 2)
    assert file == __file__, e.location
    assert int(line) == body.__code__.co_firstlineno, (e.location, body.__code__.co_firstlineno)  # type: ignore[attr-defined]
    assert int(col) >= 1
    assert str(e).startswith(f"{e.location}: error: "), str(e)
    assert m.functions == {} and not list(m.op.body.block.ops)
    return e


def _check_row(table: dict[str, Row], case: str) -> None:
    types, body, fragments = table[case]
    text = str(_build_fails(types, body))
    for fragment in fragments:
        assert fragment in text, f"{case}: {fragment!r} not in\n{text}"


@pytest.mark.parametrize("case", list(MISTAKES))
def test_mistake_is_a_build_error_at_the_line_that_made_it(case: str) -> None:
    _check_row(MISTAKES, case)


def test_the_table_is_large_enough() -> None:
    # issue 26's Done-when asks for at least 40 mistakes
    assert len(MISTAKES) >= 40


def test_function_arity_is_a_build_error_at_the_decorator() -> None:
    m = Module()
    with pytest.raises(BuildError) as info:

        @m.func(F2)
        def main(x, y):  # type: ignore[no-untyped-def]
            return x

    e = info.value
    assert type(e) is BuildError
    assert e.message == "function @main: 1 argument type is given; main takes 2 arguments"
    assert e.note is not None and e.note.startswith("the Python function is defined at " + __file__)
    assert e.location is not None and e.location.startswith(__file__ + ":")
    assert m.functions == {} and not list(m.op.body.block.ops)


def test_a_failed_call_leaves_no_op_in_the_block() -> None:
    m = Module()

    @m.func(I2, F2)
    def main(p, x):  # type: ignore[no-untyped-def]
        with pytest.raises(BuildError):
            hlo.select(p, x, 0.0)  # the constant made for 0.0 is erased with the failed select
        with pytest.raises(BuildError):
            hlo.reduce([x], [0.0], dimensions=[0], body=lambda a, b: hlo.convert(a, result_type=I0))
        with pytest.raises(BuildError):
            CALLEE(1)  # a 0-d f32 constant for 1, then the shape mismatch: the constant is erased
        return x

    ops = [op.name for op in m.functions["main"].op.body.block.ops]
    assert ops == ["func.return"]
    m.verify()


def test_a_failed_call_leaves_no_use_of_outer_values() -> None:
    m = Module()

    @m.func(F2, F0)
    def main(x, y):  # type: ignore[no-untyped-def]
        with pytest.raises(BuildError):  # the body uses y, then the reduce fails (i32 result)
            hlo.reduce(
                [x], [0.0], dimensions=[0], body=lambda a, b: hlo.convert(hlo.add(a, y), result_type=I0)
            )
        with pytest.raises(BuildError):  # the body uses y, then the reduce fails (bad dimension)
            hlo.reduce([x], [0.0], dimensions=[3], body=lambda a, b: hlo.add(a, y))
        assert not y.uses
        return x

    m.verify()


def test_a_failed_composite_leaves_no_decomposition_function() -> None:
    m = Module()

    @m.func(F2)
    def main(x):  # type: ignore[no-untyped-def]
        with pytest.raises(BuildError):
            hlo.composite([x], name="my.double", decomposition=lambda a: hlo.add(a, a), version="x")
        return x

    assert list(m.functions) == ["main"]
    assert [op.sym_name.data for op in m.op.body.block.ops] == ["main"]  # type: ignore[attr-defined]


def test_an_error_inside_a_region_points_at_the_callable_line() -> None:
    m = Module()

    def body(a, b):  # type: ignore[no-untyped-def]
        return hlo.add(a, hlo.convert(b, result_type=I0))  # the mistake: this line

    with pytest.raises(BuildError) as info:
        m.add_function(
            lambda x: hlo.reduce([x], [0.0], dimensions=[0], body=body), [F2], "main"
        )
    assert info.value.location is not None
    assert info.value.location.startswith(f"{__file__}:{body.__code__.co_firstlineno + 1}:")
    assert "stablehlo.add:" in info.value.message


def test_valid_mesh_replica_groups_build_before_the_module_is_known() -> None:
    # the mesh symbol is looked up by Module.verify (MLIR verifies symbol uses within a symbol
    # table): a detached op being built is not refused for it
    from xdsl.dialects.builtin import SymbolRefAttr

    from stablehlo_py.errors import VerifyError
    from stablehlo_py.ir.attrs.axis_ref import AxisRefAttr
    from stablehlo_py.ir.attrs.replica_group_mesh_axes import ReplicaGroupMeshAxesAttr

    mesh = ReplicaGroupMeshAxesAttr(SymbolRefAttr("mesh"), [AxisRefAttr("x", (1, 2))])
    for declared, ok in (("mesh", True), ("other", False)):
        m = Module()
        m.add_function(lambda: None, [], declared, "private")
        m.add_function(
            lambda x: hlo.all_reduce([x], replica_groups=mesh, computation=hlo.add), [F2], "main"
        )
        if ok:
            m.verify()
        else:
            with pytest.raises(VerifyError, match="mesh symbol 'mesh' not found"):
                m.verify()


def test_a_bad_constant_points_at_the_line() -> None:
    from stablehlo_py.builder import constant

    m = Module()
    body = lambda x: constant("one")  # noqa: E731
    with pytest.raises(BuildError) as info:
        m.add_function(body, [F2], "main")
    assert info.value.location is not None
    assert info.value.location.startswith(f"{__file__}:{body.__code__.co_firstlineno}:")


def test_checked_signatures_are_remembered() -> None:
    from stablehlo_py.ir.verify.driver import BUILT, CACHE

    CACHE.clear()
    m = Module()

    @m.func(F2, F2)
    def main(x, y):  # type: ignore[no-untyped-def]
        a = hlo.add(x, y)
        b = hlo.add(a, y)  # same class, operand types and properties: neither inferred nor checked
        return hlo.broadcast_in_dim(b, [0], result_type=F23)

    assert len(BUILT) == 2  # the add's signature, and the broadcast's with its result type
    ops = list(m.functions["main"].op.body.block.ops)
    assert ops[0].results[0].type is ops[1].results[0].type
    with pytest.raises(BuildError, match="requires the same element type"):
        m.add_function(lambda x, y: hlo.add(x, y), [F2, I2], "other")  # a new signature: checked
    assert len(BUILT) == 2  # failures are not remembered


@pytest.mark.parametrize(
    ("fn", "n", "problem"),
    [
        (lambda a, b: a, 2, None),
        (lambda a, b: a, 1, "takes 2 arguments"),
        (lambda a: a, 2, "takes 1 argument"),
        (lambda a, b=1: a, 1, None),
        (lambda a, b=1: a, 3, "takes 1 to 2 arguments"),
        (lambda *a: a, 5, None),
        (lambda a, *b: a, 0, "takes at least 1 argument"),
        (lambda a, *, k: a, 1, "needs the keyword-only argument(s) k"),
        (__import__("functools").partial(lambda a, b: a, 1), 1, None),
        (__import__("functools").partial(lambda a, b: a, 1), 2, "takes (b)"),
        (max, 2, None),
    ],
)
def test_arity_problem(fn: object, n: int, problem: str | None) -> None:
    from stablehlo_py.builder.sites import arity_problem

    assert arity_problem(fn, n) == problem


def test_locations_name_each_call_of_a_line_by_its_column() -> None:
    # call sites are remembered per Python instruction: two calls on one line keep their own
    # columns, and a loop's repeated call keeps its line
    m = Module(locations=True)
    body = lambda x: hlo.add(hlo.abs(x), hlo.negate(x))  # noqa: E731
    m.add_function(body, [F2], "main")
    line = body.__code__.co_firstlineno
    ops = list(m.functions["main"].op.body.block.ops)[:3]
    cols = [op.location.data.rsplit(":", 1)[1] for op in ops]  # type: ignore[attr-defined]
    assert all(op.location.data.startswith(f'"{__file__}":{line}:') for op in ops)  # type: ignore[attr-defined]
    assert len(set(cols)) == 3, cols

    m2 = Module(locations=True)

    def loop(x):  # type: ignore[no-untyped-def]
        for _ in range(3):
            x = hlo.negate(x)
        return x

    m2.add_function(loop, [F2], "main")
    locs = {op.location.data for op in list(m2.functions["main"].op.body.block.ops)[:3]}  # type: ignore[attr-defined]
    assert locs == {f'"{__file__}":{loop.__code__.co_firstlineno + 2}:17'}


def test_a_number_beside_a_token_is_not_typed_after_the_token() -> None:
    # found by a sweep of every op's parameters: a number among outfeed's inputs used to take the
    # token as its model and fail with "dense elements of type !stablehlo.token" (not a BuildError)
    m = Module()

    @m.func(F2)
    def main(x):  # type: ignore[no-untyped-def]
        hlo.outfeed([1.5], hlo.create_token())  # the token is the only value operand
        return x

    assert "stablehlo.constant dense<1.500000e+00> : tensor<f32>" in m.text()
