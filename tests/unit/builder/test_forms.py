"""Forms a producer expects (issue 26, Deliver 3): ``convert(x, "f32")``, ``Module.serialize``
with an explicit ``format=`` (and CHLO refused before it), ``Module.lower()``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from stablehlo_py.api import deserialize_portable_artifact
from stablehlo_py.builder import BuildError, Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.ir import print_ir

HERE = __file__


def _types(m: Module, name: str = "main") -> str:
    return str(m.functions[name].op.function_type)


# ------------------------------------------------------------------------ convert(x, "f32")
@pytest.mark.parametrize(
    "make, result",
    [
        (lambda x: hlo.convert(x, "f16"), "tensor<2x?xf16>"),
        (lambda x: hlo.convert(x, element_type="i32"), "tensor<2x?xi32>"),
        (lambda x: hlo.convert(x, np.float64), "tensor<2x?xf64>"),
        (lambda x: hlo.convert(x, "complex<f32>"), "tensor<2x?xcomplex<f32>>"),
        (lambda x: hlo.convert(x, result_type="bf16"), "tensor<2x?xbf16>"),
        (lambda x: hlo.convert(x, result_type=tensor((2, None), "i8")), "tensor<2x?xi8>"),
        (lambda x: hlo.bitcast_convert(x, "i32"), "tensor<2x?xi32>"),
        (lambda x: hlo.bitcast_convert(x, result_type="ui32"), "tensor<2x?xui32>"),
    ],
)
def test_element_type_alone_keeps_the_operands_shape(make: object, result: str) -> None:
    m = Module()
    m.func(tensor((2, None), "f32"))(make)  # type: ignore[arg-type]
    m.verify()
    assert _types(m, "<lambda>").endswith(f"-> {result}"), _types(m, "<lambda>")


def test_element_type_alone_keeps_bounds() -> None:
    m = Module()

    @m.func("tensor<?x3xf32, #stablehlo.bounds<5, ?>>")
    def main(x):
        return hlo.convert(x, "i8")

    assert "tensor<?x3xi8, #stablehlo.bounds<5, ?>>" in m.text()


def test_dtype_form_runs() -> None:
    m = Module()

    @m.func(tensor((3,), "f32"))
    def main(x):
        return hlo.convert(x, "i32"), hlo.bitcast_convert(x, "ui32")

    x = np.array([1.5, -2.5, 3.0], np.float32)
    as_int, bits = m.run(x)
    assert as_int.dtype == np.int32 and as_int.tolist() == x.astype(np.int32).tolist()
    assert bits.tolist() == x.view(np.uint32).tolist()


def test_convert_signature_shows_the_element_type() -> None:
    params = list(inspect.signature(hlo.convert).parameters)
    assert params[:2] == ["operand", "element_type"]
    assert "element_type" not in inspect.signature(hlo.reshape).parameters


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda x: hlo.convert(x, "f33"), "convert: element_type 'f33' is not an element type"),
        (lambda x: hlo.convert(x), "stablehlo.convert: give the result's element type"),
        (
            lambda x: hlo.convert(x, "f16", result_type="f16"),
            "give the element type ('f16') or result_type=, not both",
        ),
        (lambda x: hlo.bitcast_convert(x, "f64"), "f64 has another bit width than f32"),
        (lambda x: hlo.convert(1.0, "f16"), "needs a tensor operand to take the shape from"),
        (
            lambda x: hlo.reshape(x, result_type="f32"),
            "result_type f32 is an element type; stablehlo.reshape needs a tensor type",
        ),
        (lambda x: hlo.abs(x, result_type="i32"), "abs: result_type i32 is an element type"),
    ],
)
def test_element_type_mistakes(make: object, words: str) -> None:
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(make, [tensor((2,), "f32")], "main")  # type: ignore[arg-type]
    assert type(info.value) is BuildError
    assert words in str(info.value)
    assert info.value.location is not None and info.value.location.startswith(f"{HERE}:")
    assert not m.functions


# ------------------------------------------------------------------------------ serialize
def _plain() -> Module:
    m = Module()

    @m.func(tensor((2,), "f32"))
    def main(x):
        return hlo.add(x, x)

    return m


def test_serialize_needs_a_format() -> None:
    m = _plain()
    with pytest.raises(BuildError) as info:
        m.serialize("1.0.0")
    line = inspect.currentframe().f_lineno - 1  # type: ignore[union-attr]
    e = info.value
    assert type(e) is BuildError and e.location is not None
    assert e.location.startswith(f"{HERE}:{line}:")
    words = ('format="mlir"', "XLA", "IREE", "upstream's tools", 'format="msgpack"', "archive")
    for w in words:
        assert w in str(e), w


@pytest.mark.parametrize("fmt, magic", [("mlir", b"ML\xefR"), ("msgpack", None)])
def test_serialize_in_each_format(fmt: str, magic: bytes | None) -> None:
    m = _plain()
    data = m.serialize("1.0.0", format=fmt)
    if magic is not None:
        assert data[:4] == magic
    else:
        assert data[:4] != b"ML\xefR"
    assert print_ir(deserialize_portable_artifact(data)) == m.text()


def _with_chlo() -> Module:
    m = Module()

    @m.func(tensor((3,), "f32"))
    def main(x):
        y = chlo.erf(x)
        return hlo.composite(y, name="my.double", decomposition=lambda a: hlo.add(a, a))

    return m


@pytest.mark.parametrize("fmt", ["mlir", "msgpack"])
def test_serialize_refuses_chlo_and_points_at_lower(fmt: str) -> None:
    m = _with_chlo()
    with pytest.raises(BuildError) as info:
        m.serialize("current", format=fmt)
    e = info.value
    assert type(e) is BuildError and e.location is not None and e.location.startswith(HERE)
    assert "chlo.erf in @main has no portable form" in str(e)
    assert "m.lower()" in str(e)


def test_serialize_keeps_chlo_with_allow_other_dialects() -> None:
    m = _with_chlo()
    data = m.serialize("current", format="mlir", allow_other_dialects=True)
    assert "chlo.erf" in print_ir(deserialize_portable_artifact(data))


# ---------------------------------------------------------------------------------- lower
def test_lower_returns_a_new_module_without_chlo() -> None:
    m = _with_chlo()
    before = m.text()
    low = m.lower()
    assert low is not m and low.op is not m.op
    assert m.text() == before  # unchanged
    assert "chlo." not in low.text() and "chlo.erf" in before
    assert "stablehlo.composite" in low.text()  # composites stay unless asked
    assert set(low.functions) == {"main", "my.double"}
    assert low.functions["main"].op.parent is low.op.body.block
    low.verify()
    x = np.array([-0.5, 0.25, 2.0], np.float32)
    np.testing.assert_allclose(low.run(x)[0], m.run(x)[0], rtol=1e-6)
    data = low.serialize("1.0.0", format="mlir")
    assert "chlo." not in print_ir(deserialize_portable_artifact(data))


def test_lower_named_steps() -> None:
    m = _with_chlo()
    calls = m.lower("chlo", "composites").text()
    assert "stablehlo.composite" not in calls and "call @my.double" in calls
    flat = m.lower("chlo", "composites", "inline")
    assert "call" not in flat.text() and set(flat.functions) == {"main"}
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(flat.run(x)[0], m.run(x)[0], rtol=1e-6)


def test_lower_mistakes() -> None:
    m = _with_chlo()
    with pytest.raises(BuildError, match=r"unknown step 'nope'; the steps: \"chlo\""):
        m.lower("nope")
    dyn = Module()

    @dyn.func(tensor((None,), "f32"))
    def main(x):
        return chlo.erf(x)

    with pytest.raises(BuildError) as info:
        dyn.lower()
    e = info.value
    assert type(e) is BuildError and e.location is not None and e.location.startswith(HERE)
    assert "not a statically shaped tensor" in str(info.value)


# ---------------------------------------------------------------------------- convolution
CONV_CASES = [
    # lhs, rhs, dimension_numbers, padding, strides, rhs dilation -> the pads and the dims text
    # jax.lax.conv_general_dilated emits (jax 0.12: lax.padtype_to_pads, conv_general_permutations)
    ((2, 9, 7, 3), (3, 2, 3, 4), ("NHWC", "HWIO", "NHWC"), "SAME", (2, 1), (1, 2),
     [[1, 1], [1, 1]], "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"),
    ((2, 3, 9, 7), (4, 3, 3, 2), ("NCHW", "OIHW", "NHWC"), "SAME_LOWER", (2, 3), (2, 1),
     [[2, 2], [1, 0]], "[b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f]"),
    ((9, 2, 7, 3), (3, 4, 2, 3), ("WNHC", "IOWH", "CNWH"), "VALID", (1, 2), (1, 1),
     [[0, 0], [0, 0]], "[0, b, 1, f]x[i, o, 0, 1]->[f, b, 0, 1]"),
    ((2, 3, 7, 7), (4, 3, 2, 2), None, "SAME", (2, 2), (1, 1),
     [[0, 1], [0, 1]], "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"),
]


@pytest.mark.parametrize("lhs, rhs, dn, padding, strides, dil, pads, dims", CONV_CASES)
def test_convolution_layout_strings_padding_and_defaults(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    dn: tuple[str, str, str] | None,
    padding: str,
    strides: tuple[int, ...],
    dil: tuple[int, ...],
    pads: list[list[int]],
    dims: str,
) -> None:
    m = Module()

    @m.func(tensor(lhs, "f32"), tensor(rhs, "f32"))
    def main(x, w):
        return hlo.convolution(
            x, w, dimension_numbers=dn, padding=padding, window_strides=strides, rhs_dilation=dil
        )

    m.verify()
    explicit = Module()

    @explicit.func(tensor(lhs, "f32"), tensor(rhs, "f32"))
    def main2(x, w):  # the same convolution with every attribute written out
        return hlo.convolution(
            x,
            w,
            dimension_numbers=dims,
            padding=pads,
            window_strides=strides,
            rhs_dilation=dil,
            feature_group_count=1,
            batch_group_count=1,
        )

    assert m.text() == explicit.text().replace("@main2", "@main")
    assert f"dim_numbers = {dims}" in m.text()


def test_convolution_signature_shows_the_defaults() -> None:
    params = inspect.signature(hlo.convolution).parameters
    assert params["dimension_numbers"].default is None  # NCHW/OIHW/NCHW, as jax.lax
    for name in ("feature_group_count", "batch_group_count"):
        assert params[name].default == 1
    assert inspect.signature(hlo.dynamic_conv).parameters["feature_group_count"].default == 1
    # all of them positional too, in upstream's (and jax.lax's) order
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for n, p in params.items() if n not in ("result_type", "loc"))


def test_dynamic_conv_defaults() -> None:
    m = Module()

    @m.func(tensor((1, 3, 5, 5), "f32"), tensor((2, 3, 3, 3), "f32"))
    def main(x, w):
        return hlo.dynamic_conv(x, w, np.array([[1, 1], [1, 1]], np.int32))

    m.verify()
    assert "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]" in m.text()
    assert "tensor<1x2x5x5xf32>" in m.text()


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"padding": "SAME", "dimension_numbers": "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"},
         "needs dimension_numbers as layout strings"),
        ({"padding": "SAME", "lhs_dilation": [2, 2]}, "is a transposed convolution"),
        ({"dimension_numbers": ("NCHW", "OIHW")}, "must be length 3, got 2"),
        ({"dimension_numbers": ("NCHH", "OIHW", "NCHW")}, "cannot have duplicate characters"),
    ],
)
def test_convolution_form_mistakes(kwargs: dict[str, object], words: str) -> None:
    m = Module()
    with pytest.raises(BuildError) as info:
        m.add_function(
            lambda x, w: hlo.convolution(x, w, **kwargs),
            [tensor((1, 3, 5, 5), "f32"), tensor((2, 3, 3, 3), "f32")],
            "main",
        )
    e = info.value
    assert type(e) is BuildError and words in str(e), str(e)
    assert e.location is not None and e.location.startswith(HERE)


# ----------------------------------------------------------- one function per reused callable
def _double(a):  # type: ignore[no-untyped-def]
    return hlo.add(a, a)


def _square(a):  # type: ignore[no-untyped-def]
    return hlo.multiply(a, a)


def test_one_function_per_callable_and_types() -> None:
    from stablehlo_py.builder import call

    m = Module()

    @m.func(tensor((2,), "f32"), tensor((3,), "f32"))
    def main(x, y):
        a = hlo.composite(x, name="my.double", decomposition=_double)
        b = hlo.composite(a, name="my.double", decomposition=_double)  # same types: reused
        c = hlo.composite(y, name="my.double", decomposition=_double)  # other types: another
        d = call(_square, a)
        e = call(_square, b)  # reused
        f = call(_square, 2.0)  # a number takes JAX's default type (f32)
        return a, b, c, d, e, f

    m.verify()
    assert set(m.functions) == {"main", "my.double", "my.double_1", "_square", "_square_1"}
    text = m.text()
    assert text.count("{decomposition = @my.double}") == 2
    assert text.count("call @_square(") == 2 and "call @_square_1(" in text
    outs = m.run(np.array([1, 2], np.float32), np.array([1, 2, 3], np.float32))
    assert [o.tolist() for o in outs] == [
        [2, 4], [4, 8], [2, 4, 6], [4, 16], [16, 64], 4.0
    ]


def test_failed_call_keeps_the_shared_function_and_forgets_a_new_one() -> None:
    m = Module()
    seen: dict[str, object] = {}

    @m.func(tensor((2,), "f32"))
    def main(x):
        a = hlo.composite(x, name="my.double", decomposition=_double)
        with pytest.raises(BuildError):  # the shared function is found, the composite fails
            hlo.composite(x, name="my.double", decomposition=_double, version="one")
        assert "my.double" in m.functions
        with pytest.raises(BuildError):  # a new function is made, then the composite fails
            hlo.composite(a, name="my.sq", decomposition=_square, version="one")
        assert "my.sq" not in m.functions
        seen["b"] = hlo.composite(a, name="my.sq", decomposition=_square)  # made again
        return seen["b"]

    m.verify()
    assert set(m.functions) == {"main", "my.double", "my.sq"}


def test_call_needs_a_callable() -> None:
    from stablehlo_py.builder import call

    m = Module()
    with pytest.raises(BuildError, match="a builder Function .* or a Python callable; got 3"):
        m.add_function(lambda x: call(3, x), [tensor((2,), "f32")], "main")


def test_lower_starts_its_own_memo() -> None:
    m = Module()

    @m.func(tensor((2,), "f32"))
    def main(x):
        return hlo.composite(x, name="my.double", decomposition=_double)

    low = m.lower("composites")
    assert "_made_functions" not in low.__dict__
    assert "call @my.double" in low.text()


def test_help_says_where_result_types_come_from() -> None:
    assert "Result type: the operand's shape with the element type given" in hlo.convert.__doc__
    assert "Result type: the decomposition's result types" in hlo.composite.__doc__
    assert "Result type: result_type= required" in hlo.reshape.__doc__
