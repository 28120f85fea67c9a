"""Python numbers and numpy scalars among an op's operands (issue 26 step 2, plan section 2.2 and
the lead's decisions in section 8): JAX's weak typing without promotion -- a number never changes
the op's type, and is refused when its value would change (never truncated, wrapped or overflowed);
numpy scalars and 0-d arrays are strong, with JAX's x64-off canonicalization of 64-bit scalars."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.builder import BuildError, Module, tensor
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.builder.numbers import NumberError, to_element
from stablehlo_py.builder.types import element_type_of

# fmt: off
ACCEPTED = [
    # (value, element type, the stored element)
    (True, "i1", True),
    (False, "i1", False),
    (1, "i1", True),
    (0, "i8", 0),
    (-128, "i8", -128),
    (127, "i8", 127),
    (255, "ui8", 255),
    (7, "i4", 7),
    (-8, "i4", -8),
    (15, "ui4", 15),
    (2**31 - 1, "i32", 2**31 - 1),
    (2**63 - 1, "i64", 2**63 - 1),
    (2**64 - 1, "ui64", 2**64 - 1),
    (2, "f32", 2.0),
    (2**24, "f32", 2.0**24),
    (-3, "bf16", -3.0),
    (2, "complex<f32>", 2 + 0j),
    (0.5, "f32", 0.5),
    (0.1, "f32", float(np.float32(0.1))),  # rounded to nearest: not a change of type
    (0.1, "bf16", float(ml_dtypes.bfloat16(0.1))),
    (448.0, "f8E4M3FN", 448.0),
    (math.inf, "f32", math.inf),
    (-math.inf, "f16", -math.inf),
    (0.5, "complex<f64>", 0.5 + 0j),
    (1 + 2j, "complex<f32>", 1 + 2j),
    (np.float32(1.5), "f32", 1.5),
    (np.float64(1.5), "f32", 1.5),  # x64 off: f64 scalars are f32
    (np.int64(7), "i32", 7),  # x64 off: i64 scalars are i32
    (np.uint64(7), "ui32", 7),
    (np.complex128(1j), "complex<f32>", 1j),
    (np.int64(7), "i64", 7),
    (np.bool_(True), "i1", True),
    (ml_dtypes.bfloat16(2.0), "bf16", 2.0),
    (np.array(3, np.int32), "i32", 3),  # a 0-d array is a scalar
]

REFUSED = [
    # (value, element type, fragments of the reason)
    (True, "f32", ("bool is only an i1 value",)),
    (True, "i32", ("bool is only an i1 value",)),
    (2, "i1", ("does not fit i1 (0..1)",)),
    (300, "ui8", ("does not fit ui8 (0..255)",)),
    (-1, "ui8", ("does not fit ui8 (0..255)",)),
    (128, "i8", ("does not fit i8 (-128..127)",)),
    (8, "i4", ("does not fit i4 (-8..7)",)),
    (2**40, "i32", ("does not fit i32 (-2147483648..2147483647)",)),
    (2**64, "ui64", ("does not fit ui64",)),
    (2**24 + 1, "f32", ("f32 cannot hold exactly", "16777216.0")),
    (257, "bf16", ("bf16 cannot hold exactly",)),
    (10**400, "f64", ("overflows f64",)),
    (0.5, "i32", ("never truncated",)),
    (1.0, "i32", ("never truncated",)),  # even an integral float: floats are not integers
    (0.0, "i1", ("never truncated",)),
    (1e40, "f32", ("overflows f32",)),
    (70000.0, "f16", ("overflows f16",)),
    (1000.0, "f8E4M3FN", ("overflows f8E4M3FN",)),  # it has no inf: NaN is a change of value too
    (math.inf, "f8E4M3FN", ("f8E4M3FN has no infinity",)),
    (1j, "f32", ("imaginary part would be lost",)),
    (1 + 0j, "i32", ("imaginary part would be lost",)),
    (1e40j, "complex<f32>", ("overflows complex<f32>",)),
    (np.float64(2.0), "bf16", ("numpy values keep their type",)),
    (np.float16(2.0), "f32", ("numpy values keep their type",)),
    (np.int32(1), "f32", ("numpy values keep their type",)),
    (np.float32(1.0), "i32", ("numpy values keep their type",)),
    (np.int32(1), "i64", ("numpy values keep their type",)),  # only 64-bit scalars canonicalize
    (np.int64(2**40), "i32", ("does not fit i32",)),
    (np.float64(1e40), "f32", ("overflows f32",)),
    (np.bool_(True), "i32", ("numpy values keep their type",)),
    ("1", "f32", ("not a number",)),
]
# fmt: on


@pytest.mark.parametrize(("value", "elem", "stored"), ACCEPTED)
def test_accepted(value: object, elem: str, stored: object) -> None:
    out = to_element(value, element_type_of(elem))
    assert out.shape == ()
    assert out.item() == stored
    assert out.dtype == _storage(elem)


@pytest.mark.parametrize(("value", "elem", "fragments"), REFUSED)
def test_refused(value: object, elem: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(NumberError) as info:
        to_element(value, element_type_of(elem))
    for f in fragments:
        assert f in info.value.reason, info.value.reason


def _storage(elem: str) -> np.dtype:
    from stablehlo_py.ir.types import storage_dtype

    return storage_dtype(element_type_of(elem))


def _text(arg_types: list[object], body: object) -> str:
    m = Module()
    m.add_function(body, arg_types, "main")  # type: ignore[arg-type]
    m.verify()
    return m.text()


F2 = tensor((2,), "f32")
I2 = tensor((2,), "i32")
BF2 = tensor((2,), "bf16")
F44 = tensor((4, 4), "f32")
I0 = tensor((), "i32")
I64_0 = tensor((), "i64")


def test_a_number_takes_the_op_type_and_shape() -> None:
    text = _text([F2], lambda x: hlo.multiply(hlo.add(x, 2), np.sqrt(2.0)))
    assert "stablehlo.constant dense<2.000000e+00> : tensor<2xf32>" in text
    assert "stablehlo.constant dense<1.41421354> : tensor<2xf32>" in text  # np.float64 -> f32
    assert "f64" not in text


def test_a_number_in_a_bf16_op_stays_bf16() -> None:
    text = _text([BF2], lambda x: hlo.maximum(x, 0.0))
    assert "dense<0.000000e+00> : tensor<2xbf16>" in text


@pytest.mark.parametrize(("index_type", "elem"), [(I0, "i32"), (I64_0, "i64")])
def test_index_numbers_take_the_other_indices_type(index_type: object, elem: str) -> None:
    # the data operand is f32: the 0 is an index, of the type of the other index (issue 26 pain 3)
    text = _text([F44, index_type], lambda x, i: hlo.dynamic_slice(x, [i, 0], slice_sizes=[2, 2]))
    assert f"stablehlo.constant dense<0> : tensor<{elem}>" in text


def test_index_numbers_alone_are_i32() -> None:
    def body(x, u):  # type: ignore[no-untyped-def]
        return hlo.dynamic_update_slice(x, hlo.reshape(u, result_type=((1, 2), "f32")), [1, 1])

    text = _text([F44, F2], body)
    assert text.count("stablehlo.constant dense<1> : tensor<i32>") == 2


def test_a_case_index_and_a_select_predicate() -> None:
    text = _text([F2], lambda x: hlo.case(1, branches=[lambda: x, lambda: x]))
    assert "dense<1> : tensor<i32>" in text
    text = _text([F2], lambda x: hlo.select(True, x, 0.0))  # i1, of the data's shape
    assert "dense<true> : tensor<2xi1>" in text


def test_region_results_take_the_region_type() -> None:
    # a reduce over i32 returning the number 0: the accumulator's type; a comparator's bool: i1
    text = _text([I2], lambda x: hlo.reduce([x], [0], dimensions=[0], body=lambda a, b: 0))
    assert text.count("dense<0> : tensor<i32>") == 2
    text = _text([F2], lambda x: hlo.sort([x], dimension=0, comparator=lambda a, b: True))
    assert "dense<true> : tensor<i1>" in text


def test_the_error_names_op_operand_number_and_type_at_the_line() -> None:
    m = Module()
    body = lambda x: hlo.add(x, 0.5)  # noqa: E731
    with pytest.raises(BuildError) as info:
        m.add_function(body, [I2], "main")
    e = info.value
    line = body.__code__.co_firstlineno
    assert e.location is not None and e.location.startswith(f"{__file__}:{line}:")
    assert e.message == (
        "stablehlo.add: operand 'rhs' is the Python float 0.5, but the op needs i32; "
        "a float is never truncated into an integer"
    )
    assert "operand 'lhs' is tensor<2xi32>" in str(e)
    assert m.functions == {}


def test_numpy_arrays_keep_their_dtype() -> None:
    text = _text([F2], lambda x: hlo.add(x, np.ones(2, np.float32)))
    assert "dense<1.000000e+00> : tensor<2xf32>" in text


def test_64_bit_numpy_arrays_canonicalize_as_scalars_do() -> None:
    # as JAX's default (x64 off): float64 -> f32, int64 -> i32; other dtypes keep theirs (below)
    floats = _text([F2], lambda x: hlo.add(x, np.asarray([1.5, 2.0])))
    assert "dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>" in floats
    ints = _text([I2], lambda x: hlo.add(x, np.asarray([1, -2], np.int64)))
    assert "dense<[1, -2]> : tensor<2xi32>" in ints


@pytest.mark.parametrize(
    ("array", "elem", "fragments"),
    [
        (np.asarray([1, 2], np.int64), F2, ("numpy int64 array of shape (2,)", "needs f32",
                                            "x.astype(np.float32)")),
        (np.asarray([1, 2], np.float16), F2, ("float16 array", "numpy values keep their type")),
        (np.asarray([1, 2**40]), I2, ("value 1099511627776 does not fit i32",)),
        (np.asarray([1.0, 1e40]), F2, ("value 1e+40 overflows f32",)),
        (np.asarray([1.0, 2.0], np.float32), I2, ("needs i32",)),
    ],
)
def test_numpy_arrays_of_another_type_are_refused(
    array: np.ndarray, elem: object, fragments: tuple[str, ...]
) -> None:
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(lambda x: hlo.add(x, array), [elem], "main")
    for f in fragments:
        assert f in str(info.value)
    assert "test_numbers.py" in str(info.value)


def test_a_numpy_array_keeps_its_shape() -> None:
    m = Module()
    with pytest.raises(BuildError, match="Mismatched ranks"):
        m.add_function(lambda x: hlo.add(x, np.ones(3)), [tensor((2, 3), "f32")], "main")


def test_call_numbers_take_the_parameter_type() -> None:
    m = Module()
    callee = m.add_function(lambda a: a, [tensor((), "f32")], "callee", "private")
    m.add_function(lambda x: callee(2), [F2], "main")
    assert "stablehlo.constant dense<2.000000e+00> : tensor<f32>" in m.verify().text()
    with pytest.raises(BuildError, match=r"call @f: argument #0 is the Python float 0.5"):
        m2 = Module()
        f = m2.add_function(lambda a: a, [I0], "f", "private")
        m2.add_function(lambda x: f(0.5), [F2], "main")


FD = tensor((-1, 4), "f32")


def test_a_number_broadcasts_against_a_dynamic_shape() -> None:
    # as JAX's mlir.shape_tensor: a 0-d constant, the shape from get_dimension_size and constants,
    # concatenate, dynamic_broadcast_in_dim to the operand's type (issue 26 pain 4)
    m = Module()
    m.add_function(lambda x: hlo.maximum(x, 0.0), [FD], "main")
    ops = [op.name for op in m.functions["main"].op.body.block.ops]
    assert ops == [
        "stablehlo.constant",
        "stablehlo.get_dimension_size",
        "stablehlo.reshape",
        "stablehlo.constant",
        "stablehlo.concatenate",
        "stablehlo.dynamic_broadcast_in_dim",
        "stablehlo.maximum",
        "func.return",
    ]
    text = m.verify().text()
    assert (
        "stablehlo.dynamic_broadcast_in_dim %cst, %2, dims = [] : "
        "(tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>"
    ) in text
    x = np.array([[-1, 2, 3, -4], [5, -6, 7, 8], [0, 1, -2, 3]], np.float32)
    (out,) = m.run(x)
    np.testing.assert_array_equal(out, np.maximum(x, 0))


def test_a_dynamic_predicate_number_stays_0d() -> None:
    text = _text([FD], lambda x: hlo.select(True, x, x))
    assert "dense<true> : tensor<i1>" in text


def test_a_failed_call_erases_the_dynamic_broadcast_it_made() -> None:
    m = Module()

    def main(x, p):  # type: ignore[no-untyped-def]
        with pytest.raises(BuildError, match="pred"):  # 0.0 is broadcast, then the i32 pred fails
            hlo.select(p, x, 0.0)
        return x

    m.add_function(main, [FD, tensor((-1, 4), "i32")], "main")
    ops = [op.name for op in m.functions["main"].op.body.block.ops]
    assert ops == ["func.return"]
    m.verify()


def test_shape_operands_take_sequences_of_sizes() -> None:
    # as JAX's mlir.shape_tensor: all ints -> one constant; values converted to i32 and reshaped
    m = Module()

    def main(x, n):  # type: ignore[no-untyped-def]
        a = hlo.dynamic_broadcast_in_dim(x, [n, 4], [], result_type=FD)
        b = hlo.dynamic_iota([3, 4], iota_dimension=0, result_type=tensor((3, 4), "i32"))
        return a, b

    m.add_function(main, [tensor((), "f32"), I64_0], "main")
    text = m.verify().text()
    assert "stablehlo.convert %arg1 : (tensor<i64>) -> tensor<i32>" in text
    assert "stablehlo.constant dense<[3, 4]> : tensor<2xi32>" in text
    a, b = m.run(np.float32(2), np.int64(3))
    assert a.shape == (3, 4) and b.shape == (3, 4)


@pytest.mark.parametrize(
    ("sizes", "fragment"),
    [
        ([4.0], "output_shape[0] is the Python float 4.0"),
        ([True], "output_shape[0] is True; sizes are integers"),
        ([2**40], "does not fit i32"),
    ],
)
def test_bad_sizes(sizes: list[object], fragment: str) -> None:
    m = Module()
    v1 = tensor((-1,), "i32")
    body = lambda: hlo.dynamic_iota(sizes, iota_dimension=0, result_type=v1)  # noqa: E731
    with pytest.raises(BuildError, match="stablehlo.dynamic_iota: ") as info:
        m.add_function(body, [], "main")
    assert fragment in info.value.message


def _runner() -> Module:
    m = Module()
    m.add_function(
        lambda x, s: hlo.add(x, hlo.broadcast_in_dim(s, [], result_type=x.type)),
        [F2, tensor((), "f32")],
        "main",
    )
    return m


def test_run_takes_arguments_of_the_parameter_types() -> None:
    m = _runner()
    (out,) = m.run(np.ones(2, np.float32), np.float32(2))
    np.testing.assert_array_equal(out, [3.0, 3.0])
    (out,) = m.run([1, 2], 0.5)  # Python values follow the number rule
    np.testing.assert_array_equal(out, [1.5, 2.5])


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (
            (np.ones(2), np.float32(1)),
            ("argument 0 of @main is float64", "tensor<2xf32> needs float32", "astype(np.float32)"),
        ),
        ((np.ones(2, np.float32), np.float64(1)), ("argument 1 of @main is float64",)),
        ((np.ones(2, np.int32), np.float32(1)), ("argument 0 of @main is int32",)),
        ((np.ones(3, np.float32), np.float32(1)), ("argument 0 of @main: dimension 0 is 3",)),
        (([1, 2], 1j), ("argument 1 of @main holds the Python complex 1j", "parameter needs f32")),
        (([1, 2], 1e40), ("overflows f32",)),
        ((np.ones(2, np.float32),), ("@main takes 2 argument(s); Module.run got 1",)),
    ],
)
def test_run_refuses_other_dtypes_and_shapes(
    args: tuple[object, ...], fragments: tuple[str, ...]
) -> None:
    from stablehlo_py.errors import InterpreterError

    with pytest.raises(InterpreterError) as info:
        _runner().run(*args)
    for f in fragments:
        assert f in str(info.value), str(info.value)


def test_the_interpreter_api_still_casts() -> None:
    from stablehlo_py.interpreter import run

    (out,) = run(_runner().op, np.ones(2), np.float32(1))  # upstream's interpreter casts
    assert out.dtype == np.float32


GATHER = {
    "offset_dims": [1],
    "collapsed_slice_dims": [0],
    "start_index_map": [0],
    "index_vector_dim": 1,
}


def test_index_tensors_written_as_nested_lists() -> None:
    m = Module()
    m.add_function(lambda x: hlo.gather(x, [[1], [3]], GATHER, slice_sizes=[1, 4]), [F44], "main")
    assert "stablehlo.constant dense<[[1], [3]]> : tensor<2x1xi32>" in m.verify().text()
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_array_equal(m.run(x)[0], x[[1, 3]])


@pytest.mark.parametrize(
    ("indices", "fragment"),
    [
        ([[1.5], [3]], "operand 'start_indices[0][0]' is the Python float 1.5"),
        ([[1], [2**40]], "operand 'start_indices[1][0]' is the Python int 1099511627776"),
        ([[1], [2, 3]], "must be a (nested) list of integers"),
    ],
)
def test_bad_index_lists(indices: object, fragment: str) -> None:
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(lambda x: hlo.gather(x, indices, GATHER, slice_sizes=[1, 4]), [F44], "main")
    assert fragment in info.value.message


def test_operand_roles_name_existing_operands() -> None:
    # every row of the roles table names an op and one of its operands (a renamed operand in the
    # op classes shows up here, not as a number silently typed after the data)
    from stablehlo_py.builder import chlo
    from stablehlo_py.builder.opgen import OPERAND_ROLES

    functions = {f.spec.name: f for ns in (hlo, chlo) for f in ns.functions().values()}
    for (op, operand), role in OPERAND_ROLES.items():
        assert op in functions, op
        assert operand in [o.name for o in functions[op].spec.operands], (op, operand)
        assert role in ("index", "shape", "pred")


# ------------------------------------------------------------------ constant() and hlo.constant
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ((2**40,), ("the Python int 1099511627776", "does not fit i32")),  # JAX: OverflowError
        ((0.5, "i32"), ("never truncated",)),
        (([1, 2**40],), ("at [1]", "does not fit i32")),
        ((1e40,), ("overflows f32",)),
        ((300, "ui8"), ("does not fit ui8 (0..255)",)),
        ((float("nan"), "i32"), ("never truncated",)),
        (([1, [2]],), ("the lists are ragged",)),
        (([[1, 2], [3]],), ("the lists are ragged",)),
        ((np.array([1.5]), "i32"), ("type i32", "value 1.5 would change in i32", "np.round")),
        ((np.array([1e40]), "f32"), ("value 1e+40 overflows f32",)),
        ((np.array([1 + 1j]), "f32"), ("imaginary part",)),
        ((np.array([300]), "ui8"), ("value 300 does not fit ui8 (0..255)",)),
    ],
)
def test_constant_never_changes_a_value(args: tuple[object, ...], fragments: tuple[str, ...]) -> None:
    from stablehlo_py.builder import constant

    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(lambda: constant(*args), [], "main")
    for f in fragments:
        assert f in str(info.value)
    assert "test_numbers.py" in str(info.value)


@pytest.mark.parametrize(
    ("args", "stored"),
    [
        ((np.array([1.0, 2.0]), "i32"), "dense<[1, 2]> : tensor<2xi32>"),  # exact: converted
        ((np.array([1.5]), "f16"), "dense<1.500000e+00> : tensor<1xf16>"),  # rounded, as floats are
        (((1, 2),), "dense<[1, 2]> : tensor<2xi32>"),
        ((3, "f32"), "dense<3.000000e+00> : tensor<f32>"),
        ((np.int64(3),), "dense<3> : tensor<i64>"),  # constant() keeps numpy's dtype
    ],
)
def test_constant_converts_what_survives(args: tuple[object, ...], stored: str) -> None:
    from stablehlo_py.builder import constant

    m = Module()
    m.add_function(lambda: constant(*args), [], "main")
    assert stored in m.verify().text()


def test_hlo_constant_takes_what_constant_takes() -> None:
    from stablehlo_py.builder import chlo

    text = _text(
        [],
        lambda: (
            hlo.constant(np.array([1.0, 2.0], np.float32)),
            hlo.constant([[1, 2], [3, 4]]),
            hlo.constant("dense<1.0> : tensor<f64>"),
            chlo.constant(np.float64(2.0)),
        ),
    )
    assert "stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>" in text
    assert "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>" in text
    assert "chlo.constant dense<2.000000e+00> : tensor<f64>" in text
    m = Module()
    with pytest.raises(BuildError, match="stablehlo.constant: attribute 'value': cannot make a constant"):
        m.add_function(lambda: hlo.constant([[0], [1, 2]]), [], "main")
