"""The builder's table and conventions: one function per op with the op's own names, every attribute
kind converts, enums as strings or members, locations from the call site, type specifications."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from stablehlo_py.builder import (
    ENUMS,
    ComparisonDirection,
    Module,
    Precision,
    attrs,
    chlo,
    constant,
    opgen,
    stablehlo,
    tensor,
    to_attribute,
    to_type,
)
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.builder import forms
from stablehlo_py.ir import parse
from stablehlo_py.ir.dialects import default_registry


@pytest.mark.parametrize("dialect", opgen.BUILT_DIALECTS)
def test_every_registered_op_has_a_function_with_its_names(dialect: str) -> None:
    ns = {"stablehlo": stablehlo, "chlo": chlo}[dialect]
    ops = {n: c for n, c in default_registry().ops.items() if n.split(".", 1)[0] == dialect}
    fns = {f.spec.name: f for f in ns.functions().values()}
    assert set(fns) == set(ops)
    for name, cls in ops.items():
        d = cls.get_irdl_definition()
        params = list(inspect.signature(fns[name]).parameters)
        operands = [opgen.py_name(n) for n, _ in d.operands]
        props = [n for n in d.properties if n not in ("operandSegmentSizes", "resultSegmentSizes")]
        order = getattr(cls, "ATTRIBUTE_ORDER", ())  # upstream's order (test_signature_order.py)
        props = [opgen.py_name(n) for n in sorted(props, key=lambda n: order.index(n) if n in order else len(order))]
        regions = [opgen.py_name(n) for n, _ in d.regions]
        dtype_form = [forms.ELEMENT_TYPE] if name in forms.DTYPE_FORM else []  # convert(x, "f32")
        assert params == [*operands, *dtype_form, *props, *regions, "result_type", "loc"], name


def test_spec_names_for_reserved_python_words() -> None:
    assert {"and_", "or_", "not_", "if_", "while_", "return_", "cross_replica_sum"} <= set(
        dir(stablehlo)
    )
    assert list(inspect.signature(hlo.all_gather).parameters)[:1] == ["operands"]  # not operands_


def test_every_attribute_of_every_op_has_a_converter() -> None:
    missing = [
        f"{f.spec.name}.{a.name}"
        for ns in (stablehlo, chlo)
        for f in ns.functions().values()
        for a in f.spec.attrs
        if a.converter is attrs._unknown
    ]
    assert missing == []


def test_enums_as_strings_members_or_attributes() -> None:
    m = Module()

    @m.func(tensor((2,), "f32"))
    def main(x):
        a = hlo.compare(x, x, "LT")
        b = hlo.compare(x, x, ComparisonDirection.LT)
        c = hlo.compare(
            x, x, attrs.ENUM_CLASSES[("stablehlo", "comparison_direction")].get_case("LT")
        )
        return a, b, c

    lines = [line for line in m.text().splitlines() if "compare" in line]
    assert len({line.split("=", 1)[1] for line in lines}) == 1
    assert Precision.HIGHEST.value == "HIGHEST"
    assert set(ENUMS) >= {
        "ComparisonDirection",
        "ComparisonType",
        "Precision",
        "FftType",
        "RngAlgorithm",
    }


def test_attribute_text_is_read_with_the_op_syntax() -> None:
    m = Module()

    @m.func(tensor((1, 4, 4, 1), "f32"), tensor((2, 2, 1, 1), "f32"))
    def main(x, k):
        a = hlo.convolution(
            x,
            k,
            dimension_numbers="#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
            feature_group_count=1,
            batch_group_count=1,
        )
        b = hlo.convolution(
            x,
            k,
            dimension_numbers={
                "input_batch_dimension": 0,
                "input_feature_dimension": 3,
                "input_spatial_dimensions": [1, 2],
                "kernel_input_feature_dimension": 2,
                "kernel_output_feature_dimension": 3,
                "kernel_spatial_dimensions": [0, 1],
                "output_batch_dimension": 0,
                "output_feature_dimension": 3,
                "output_spatial_dimensions": [1, 2],
            },
            feature_group_count=1,
            batch_group_count=1,
        )
        return a, b

    m.verify()
    lines = [line.split("=", 1)[1] for line in m.text().splitlines() if "convolution" in line]
    assert lines[0] == lines[1]


def test_to_attribute_plain_values() -> None:
    from stablehlo_py.ir.text.printer import attr_to_str

    got = attr_to_str(to_attribute({"b": 3, "e": "s", "f": [1, 2], "g": None}))
    assert got == '{b = 3 : i64, e = "s", f = [1, 2], g}'
    m = Module(
        attributes={"x.flags": {"on": True, "n": np.int32(4), "r": 0.5, "names": ["a", "b"]}}
    )
    assert m.text().startswith(
        'module attributes {x.flags = {n = 4 : i32, names = ["a", "b"], on = true, r = 5.000000e-01 : f64}} {'
    )


def test_type_specifications() -> None:
    t = to_type("tensor<2x3xf32>")
    assert to_type(((2, 3), "f32")) == t == tensor((2, 3), np.float32) == to_type(t)
    assert str(to_type(((None, 3), "bf16"))) == "tensor<?x3xbf16>"  # MLIR text (was xDSL's -1)
    bounded = to_type("tensor<?x3xf32, #stablehlo.bounds<8, ?>>")
    assert bounded.get_shape() == (-1, 3)
    assert to_type("!stablehlo.token").name == "stablehlo.token"


def test_python_numbers_among_operands() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((2, 3), "i1"))
    def main(x, p):
        a = hlo.add(x, 1)  # an int next to an f32 tensor: f32 splat of x's shape
        b = hlo.select(p, 0.5, x)  # the first non-i1 operand sets the type
        c = hlo.pad(x, 0.0, [0, 1], [0, 0], [0, 0])  # not elementwise: 0-d
        d = hlo.select(True, x, x)  # a bool predicate: i1
        return a, b, c, d

    text = m.verify().text()
    assert "stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>" in text
    assert "stablehlo.constant dense<5.000000e-01> : tensor<2x3xf32>" in text
    assert "stablehlo.constant dense<0.000000e+00> : tensor<f32>" in text
    assert "stablehlo.constant dense<true> : tensor<2x3xi1>" in text


def test_constant_defaults() -> None:
    m = Module()

    @m.func()
    def main():
        return (
            constant(1),
            constant(1.0),
            constant(True),
            constant(np.float64(1)),
            constant([1, 2], "ui8"),
        )

    text = m.text()
    for t in ("tensor<i32>", "tensor<f32>", "tensor<i1>", "tensor<f64>", "tensor<2xui8>"):
        assert f": {t}" in text


def test_locations_from_the_call_site() -> None:
    m = Module(locations=True)

    @m.func(tensor((2,), "f32"))
    def main(x):
        return hlo.negate(x)  # this line is the op's location

    line = inspect.getsourcelines(test_locations_from_the_call_site)[1] + 5
    text = m.text(debuginfo=True)
    assert f'test_api.py":{line}:' in text
    assert str(parse(text)) is not None  # the text with locations parses back
    assert "loc(" not in m.text()  # off in the plain text
    plain = Module()

    @plain.func(tensor((2,), "f32"))
    def main2(x):
        return hlo.negate(x)

    assert "test_api.py" not in plain.text(debuginfo=True)


def test_explicit_location_and_multiple_results() -> None:
    m = Module()

    @m.func(tensor((4,), "f32"))
    def main(x):
        v, i = chlo.top_k(x, k=2, loc='"model.py":3:1')
        return v, i

    assert 'loc("model.py":3:1)' in m.text(debuginfo=True)
    v, i = m.run(np.array([1, 4, 2, 3], np.float32))
    assert v.tolist() == [4, 3] and i.tolist() == [1, 3]


def test_serialize_to_every_format() -> None:
    from stablehlo_py.api import deserialize_portable_artifact
    from stablehlo_py.ir import print_ir

    m = Module()

    @m.func(tensor((2,), "f32"))
    def main(x):
        return hlo.add(x, x)

    for target in ("current", "1.0.0", "0.9.0"):
        for fmt in ("msgpack", "mlir"):
            data = m.serialize(target, format=fmt)
            assert print_ir(deserialize_portable_artifact(data)) == m.text()


def test_result_type_forms() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((2,), "ui64"))
    def main(x, state):
        a = hlo.reshape(x, result_type=((3, 2), "f32"))  # (shape, dtype)
        b = hlo.reshape(x, result_type="tensor<6xf32>")  # text
        c = hlo.reshape(x, result_type=tensor((1, 6), "f32"))  # an xDSL type
        s, bits = hlo.rng_bit_generator(
            state, "DEFAULT", result_type=(state.type, "tensor<4xui32>")
        )  # several
        return a, b, c, s, bits

    types = [r.type for r in m.functions["main"].op.body.block.last_op.operands]
    assert [str(t.get_shape()) for t in types] == ["(3, 2)", "(6,)", "(1, 6)", "(2,)", "(4,)"]
    m.verify()


def test_verify_errors_name_the_python_line_when_locations_are_on() -> None:
    from stablehlo_py.errors import VerifyError

    m = Module(locations=True)

    @m.func(tensor((2,), "f32"), tensor((2,), "i32"))
    def main(x, y):
        # element types differ: the builder checks the op when it is built (issue 26)
        return hlo.add(x, hlo.convert(y, result_type=tensor((2,), "f32")))

    # an op changed after it was built (here: its rhs becomes the i32 argument) is checked by
    # Module.verify, whose error names the op's Python line when locations are on
    block = m.functions["main"].op.body.block
    add = block.last_op.operands[0].owner
    add.operands = [block.args[0], block.args[1]]
    line = (
        inspect.getsourcelines(test_verify_errors_name_the_python_line_when_locations_are_on)[1] + 8
    )
    with pytest.raises(VerifyError) as e:
        m.verify()
    assert e.value.location is not None and e.value.location.endswith(f"test_api.py:{line}:16")
    assert f'test_api.py":{line}:16' in m.text(debuginfo=True)
