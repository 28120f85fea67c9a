"""Bad input to the builder: upstream's inference messages for bad operand types, and a clear
error naming the op and the attribute (or operand, region, keyword) for everything else."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stablehlo_py.builder import BuildError, Module, constant, tensor, to_type
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.errors import StableHLOError, VerifyError


def build(body, *arg_types):  # type: ignore[no-untyped-def]
    m = Module()
    m.add_function(body, list(arg_types) or [tensor((2, 3), "f32")], "main")
    return m


def raises(match: str, body, *arg_types) -> BuildError:  # type: ignore[no-untyped-def]
    """Building ``body`` raises BuildError whose message (without the note) matches ``match``."""
    with pytest.raises(BuildError) as e:
        build(body, *arg_types)
    assert isinstance(e.value, StableHLOError)
    assert re.search(match, e.value.message), e.value.message
    return e.value


# ------------------------------------------------------------ operand types: upstream's messages
def test_incompatible_shapes_give_the_inference_message() -> None:
    raises(
        r"^stablehlo\.add: Mismatched dimension sizes 2 and 4 in dimension 0$",
        lambda x, y: hlo.add(x, y),
        tensor((2, 3), "f32"),
        tensor((4, 5), "f32"),
    )


def test_dot_general_contracting_sizes() -> None:
    raises(
        r"^stablehlo\.dot_general: contracting dimension sizes must match for lhs/rhs$",
        lambda x, y: hlo.dot_general(
            x, y, {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
        ),
        tensor((2, 3), "f32"),
        tensor((4, 5), "f32"),
    )


def test_concatenate_shapes() -> None:
    raises(
        r"^stablehlo\.concatenate: shapes of operand \(0\) and \(1\) are not compatible",
        lambda x, y: hlo.concatenate([x, y], dimension=0),
        tensor((2, 3), "f32"),
        tensor((4, 5), "f32"),
    )


def test_element_type_mismatch_is_reported_at_the_call() -> None:
    # upstream infers add's type from its operands' shapes; the element types are checked by the
    # verifier (verifyAddOp), which the builder runs on each op it builds (issue 26)
    e = raises(
        r"^stablehlo\.add: requires the same element type for all operands and results$",
        lambda x, y: hlo.add(x, y),
        tensor((2,), "f32"),
        tensor((2,), "i32"),
    )
    assert e.note is not None
    operands, hint = e.note.splitlines()
    assert operands == "operand 'lhs' is tensor<2xf32>; operand 'rhs' is tensor<2xi32>"
    assert hint.startswith("to combine element types, convert one operand first: hlo.convert(")
    assert not isinstance(e, VerifyError)
    assert e.op == "stablehlo.add"
    assert e.operands == [("lhs", tensor((2,), "f32")), ("rhs", tensor((2,), "i32"))]


# -------------------------------------------------------------------------------- attributes
def test_bad_enum_names_op_attribute_and_cases() -> None:
    e = raises(
        r"^stablehlo\.compare: attribute 'comparison_direction' expects one of EQ, NE, GE, GT, LE, LT; got 'BIGGER'$",
        lambda x: hlo.compare(x, x, "BIGGER"),
    )
    assert e.note and "stablehlo_py.builder.attrs" in e.note


def test_single_int_for_an_array_attribute() -> None:
    raises(
        r"^stablehlo\.transpose: attribute 'permutation' expects a sequence of ints \(wrap a single value in a list: \[1\]\); got 1$",
        lambda x: hlo.transpose(x, permutation=1),
    )


def test_unknown_dimension_number_field() -> None:
    raises(
        r"^stablehlo\.gather: attribute 'dimension_numbers' has no field 'offset_dim' \(fields: offset_dims, ",
        lambda x: hlo.gather(
            x, constant(np.zeros((1, 1), np.int32)), {"offset_dim": [1]}, slice_sizes=[1, 3]
        ),
    )


def test_bad_attribute_text() -> None:
    raises(
        r"^stablehlo\.transpose: attribute 'permutation' cannot read 'junk' as this attribute: expected '\['",
        lambda x: hlo.transpose(x, permutation="junk"),
    )


def test_wrong_python_type_for_an_integer_attribute() -> None:
    raises(
        r"^stablehlo\.concatenate: attribute 'dimension' expects an int; got 0\.5$",
        lambda x: hlo.concatenate([x, x], dimension=0.5),
    )


def test_bool_attribute_refuses_ints() -> None:
    raises(
        r"^stablehlo\.sort: attribute 'is_stable' expects a bool; got 1$",
        lambda x: hlo.sort(
            x, dimension=0, is_stable=1, comparator=lambda a, b: hlo.compare(a, b, "LT")
        ),
    )


# ------------------------------------------------------------- operands, regions, keywords, types
def test_missing_result_type_names_the_keyword() -> None:
    e = raises(
        r"^stablehlo\.reshape: the result type is not inferred \(upstream does not infer it\); pass result_type=$",
        lambda x: hlo.reshape(x),
    )
    assert e.note and "result_type=" in e.note


def test_wrong_number_of_result_types() -> None:
    raises(
        r"^stablehlo\.reshape: result_type gives 2 type\(s\); the op has 1 result\(s\)$",
        lambda x: hlo.reshape(x, result_type=["tensor<6xf32>", "tensor<6xf32>"]),
    )


def test_unknown_keyword_lists_the_parameters() -> None:
    e = raises(
        r"^stablehlo\.add has no operand, attribute or region 'foo'$",
        lambda x: hlo.add(x, x, foo=1),
    )
    assert e.note == "its parameters: lhs, rhs"


def test_missing_pieces() -> None:
    raises(r"^stablehlo\.add: missing operand 'rhs'$", lambda x: hlo.add(x))
    raises(r"^stablehlo\.transpose: missing attribute 'permutation'$", lambda x: hlo.transpose(x))
    raises(
        r"^stablehlo\.reduce: missing region 'body' \(give a callable\)$",
        lambda x: hlo.reduce(x, 0.0, dimensions=[0]),
    )
    raises(r"^stablehlo\.add: 'rhs' given twice", lambda x: hlo.add(x, x, rhs=x))


def test_bad_operand_value() -> None:
    raises(
        r"^stablehlo\.reduce: operand 'init_values' must be a value built by the builder",
        lambda x: hlo.reduce(x, "zero", dimensions=[0], body=hlo.add),
    )


def test_region_must_be_callable() -> None:
    raises(
        r"^stablehlo\.reduce: region 'body' must be a callable \(or an xDSL Region\); got 3$",
        lambda x: hlo.reduce(x, 0.0, dimensions=[0], body=3),
    )


def test_op_outside_a_function() -> None:
    x = tensor((2,), "f32")
    with pytest.raises(BuildError, match="no function is being built"):
        hlo.iota(iota_dimension=0, result_type=x)


def test_bad_types() -> None:
    with pytest.raises(
        BuildError, match=r"cannot read the type 'tensor<2xfoo>': unknown element type"
    ):
        to_type("tensor<2xfoo>")
    with pytest.raises(BuildError, match=r"bad dimension -3 in shape \(2, -3\)"):
        tensor((2, -3))
    with pytest.raises(BuildError, match=r"'float128' is not an element type"):
        tensor((2,), "float128")


def test_call_checks_argument_types() -> None:
    m = Module()

    @m.func(tensor((2,), "f32"))
    def f(x):
        return x

    with pytest.raises(
        BuildError,
        match=r"call @f: argument #0 has type tensor<3xf32>; the function takes tensor<2xf32>",
    ):

        @m.func(tensor((3,), "f32"))
        def main(x):
            return f(x)

    assert "main" not in m.functions  # a failed function leaves no trace in the module
    assert "@main" not in m.text()


def test_duplicate_function_and_bad_visibility() -> None:
    m = Module()
    m.add_function(lambda: None, [], "f")
    with pytest.raises(BuildError, match="already has a function @f"):
        m.add_function(lambda: None, [], "f")
    with pytest.raises(
        BuildError, match="visibility must be one of public, private, nested; got 'open'"
    ):
        m.func(visibility="open")


@pytest.mark.parametrize(
    ("loc", "fragment"),
    [
        (123, "loc= is 123"),
        ("", "loc= is ''"),
        ('x")', "is not an MLIR location (unterminated string in location)"),
    ],
)
def test_an_explicit_location_must_be_location_text(loc: object, fragment: str) -> None:
    m = Module()
    with pytest.raises(BuildError, match=re.escape(fragment)) as info:
        m.add_function(lambda x: hlo.abs(x, loc=loc), [tensor((2,), "f32")], "main")
    assert "test_errors.py" in str(info.value) and "stablehlo.abs" in str(info.value)
    assert m.functions == {}


def test_an_explicit_location_prints_and_parses_back() -> None:
    from stablehlo_py.ir import parse, print_ir

    m = Module()
    m.add_function(lambda x: hlo.abs(x, loc='"model.py":3:1'), [tensor((2,), "f32")], "main")
    text = m.text(debuginfo=True)
    assert 'loc("model.py":3:1)' in text
    assert print_ir(parse(text), debuginfo=True) == text
