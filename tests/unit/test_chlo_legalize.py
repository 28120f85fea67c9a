"""`chlo-legalize-to-stablehlo`: every CHLO op it lowers computes, as StableHLO, the same bits as the
interpreter's native CHLO op (on random values and the edge cases: ±0, ±inf, NaN, tiny, huge), leaves
no CHLO op behind, keeps the op's location; what it cannot lower is a clear "not supported" error.
"""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.passes import run_pipeline

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.text.printer import attr_to_str
from stablehlo_py.ir.types import simple_type, storage_dtype, tensor_type

PASS = "chlo-legalize-to-stablehlo"
R = np.random.default_rng(7)

FLOATS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
COMPLEX = {"complex<f32>": np.complex64, "complex<f64>": np.complex128}
INTS = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e30,
           -1e30, 1e300, 0.9999, -0.9999, 1.0001, 7.5, -7.5, 30.0, 1e-8]


def _floats(dtype: object, n: int = 48) -> np.ndarray:
    rnd = np.concatenate([R.normal(scale=3.0, size=n // 2), R.uniform(-1.2, 1.2, size=n // 2)])
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(SPECIAL), rnd]).astype(dtype)


def _complex(dtype: object) -> np.ndarray:
    re, im = _floats(np.float64), R.permutation(_floats(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        return (re + 1j * im).astype(dtype)


def _ints(dtype: object, n: int = 64) -> np.ndarray:
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, info.max // 2 + 1]
    if info.min < 0:
        edges += [-1, info.min + 1]
    rnd = R.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(edges, dtype=dtype), rnd])


def _const(name: str, values: np.ndarray, type_name: str) -> str:
    el = simple_type(type_name) if not type_name.startswith("complex") else None
    if el is None:
        from xdsl.dialects.builtin import ComplexType

        el = ComplexType(simple_type(type_name[len("complex<") : -1]))
    t = tensor_type(el, values.shape)
    dense = make_dense(t, values.astype(storage_dtype(el)))
    return f"    %{name} = stablehlo.constant {attr_to_str(dense)}\n"


def _tensor(shape: tuple[int, ...], el: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{el}>"


def _program(body: str, results: list[tuple[str, str]]) -> str:
    names = ", ".join(n for n, _ in results)
    types = ", ".join(t for _, t in results)
    return (
        f"func.func @main() -> ({types}) {{\n{body}    func.return {names} : {types}\n}}\n"
    )


def _erf_of_argument(t: str) -> str:
    """@main(%a: T) returning chlo.erf of %a (the op on line 2)."""
    return f"func.func @main(%a: {t}) -> {t} {{\n  %0 = chlo.erf %a : {t} -> {t}\n  func.return %0 : {t}\n}}\n"


def _bits(module: object) -> list[bytes]:
    ev = Evaluator(module)  # type: ignore[arg-type]
    return [np.asarray(r).tobytes() + str(np.asarray(r).dtype).encode() for r in ev.call("main", [])]


def _same_bits(text: str) -> str:
    """Interpret natively and lowered; both must agree bit for bit.  Returns the lowered text."""
    native = parse(text, "native.mlir")
    lowered = run_pipeline(parse(text, "lowered.mlir"), [(PASS, {})])
    printed = print_ir(lowered)
    assert "chlo." not in printed, printed
    assert _bits(native) == _bits(lowered)
    return printed


UNARY_FLOAT = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "cosh", "sinh", "tan",
               "digamma", "erf", "erf_inv", "erfc", "lgamma", "is_inf", "is_neg_inf", "is_pos_inf",
               "conj", "square"]
UNARY_COMPLEX = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "conj",
                 "square", "_asin_acos_kernel"]


@pytest.mark.parametrize("op", UNARY_FLOAT)
@pytest.mark.parametrize("el", list(FLOATS))
def test_unary_float(op: str, el: str) -> None:
    x = _floats(FLOATS[el])
    t = _tensor(x.shape, el)
    rt = _tensor(x.shape, "i1") if op.startswith("is_") else t
    body = _const("x", x, el) + f"    %r = chlo.{op} %x : {t} -> {rt}\n"
    _same_bits(_program(body, [("%r", rt)]))


@pytest.mark.parametrize("op", UNARY_COMPLEX)
@pytest.mark.parametrize("el", list(COMPLEX))
def test_unary_complex(op: str, el: str) -> None:
    z = _complex(COMPLEX[el])
    t = _tensor(z.shape, el)
    body = _const("z", z, el) + f"    %r = chlo.{op} %z : {t} -> {t}\n"
    _same_bits(_program(body, [("%r", t)]))


@pytest.mark.parametrize("op", ["next_after", "polygamma", "zeta"])
@pytest.mark.parametrize("el", list(FLOATS))
def test_binary_float(op: str, el: str) -> None:
    x = _floats(FLOATS[el])
    y = R.permutation(x)
    if op == "polygamma":
        x = np.concatenate([np.array([0, 1, 2, 3, 4, -1, 1.5]), R.integers(0, 5, x.size - 7)])
        x = x.astype(FLOATS[el])
    t = _tensor(x.shape, el)
    body = _const("x", x, el) + _const("y", y, el)
    body += f"    %r = chlo.{op} %x, %y : {t}, {t} -> {t}\n"
    _same_bits(_program(body, [("%r", t)]))


@pytest.mark.parametrize("el", list(INTS))
def test_mulhi(el: str) -> None:
    a = _ints(INTS[el])
    b = R.permutation(a)
    t = _tensor(a.shape, el)
    body = _const("a", a, el) + _const("b", b, el) + f"    %r = chlo.mulhi %a, %b : {t}, {t} -> {t}\n"
    _same_bits(_program(body, [("%r", t)]))


BROADCAST = ["add", "atan2", "divide", "maximum", "minimum", "multiply", "power", "remainder",
             "subtract", "next_after", "polygamma", "zeta", "complex"]


@pytest.mark.parametrize("op", BROADCAST)
@pytest.mark.parametrize("dims", [None, [1]])
def test_broadcast_binary_float(op: str, dims: list[int] | None) -> None:
    lhs = np.abs(_floats(np.float32, 16)[:12]).reshape(3, 4) + 0.5
    rhs = np.abs(_floats(np.float32, 8)[:4]) + 0.25
    lt, rt = _tensor((3, 4), "f32"), _tensor((4,), "f32")
    res = _tensor((3, 4), "complex<f32>" if op == "complex" else "f32")
    attr = f" {{broadcast_dimensions = array<i64: {dims[0]}>}}" if dims else ""
    body = _const("l", lhs, "f32") + _const("r", rhs, "f32")
    body += f"    %0 = chlo.broadcast_{op} %l, %r{attr} : ({lt}, {rt}) -> {res}\n"
    printed = _same_bits(_program(body, [("%0", res)]))
    assert "stablehlo.broadcast_in_dim" in printed


@pytest.mark.parametrize("op", ["and", "or", "xor", "shift_left", "shift_right_arithmetic",
                                "shift_right_logical", "add", "remainder", "maximum"])
def test_broadcast_binary_int(op: str) -> None:
    lhs = _ints(np.int32, 12)[:12].reshape(3, 4)
    rhs = np.array([0, 1, 5, 31], dtype=np.int32) if op.startswith("shift") else _ints(np.int32, 0)[:4]
    if op == "remainder":
        rhs = np.array([3, -7, 1, 100], dtype=np.int32)
    lt, rt = _tensor((3, 4), "i32"), _tensor((4,), "i32")
    body = _const("l", lhs, "i32") + _const("r", rhs, "i32")
    body += f"    %0 = chlo.broadcast_{op} %l, %r : ({lt}, {rt}) -> {lt}\n"
    _same_bits(_program(body, [("%0", lt)]))


def test_broadcast_compare_and_select() -> None:
    lhs = _floats(np.float32, 8)[:12].reshape(3, 4)
    rhs = _floats(np.float32, 8)[4:8]
    ft, vt, pt = _tensor((3, 4), "f32"), _tensor((4,), "f32"), _tensor((3, 4), "i1")
    body = _const("l", lhs, "f32") + _const("r", rhs, "f32")
    body += (
        f"    %p = chlo.broadcast_compare %l, %r {{broadcast_dimensions = array<i64: 1>, "
        f"comparison_direction = #chlo<comparison_direction LT>, "
        f"compare_type = #chlo<comparison_type TOTALORDER>}} : ({ft}, {vt}) -> {pt}\n"
        f"    %s = chlo.broadcast_select %p, %l, %r : ({pt}, {ft}, {vt}) -> {ft}\n"
    )
    printed = _same_bits(_program(body, [("%p", pt), ("%s", ft)]))
    assert "stablehlo.compare LT" in printed and "TOTALORDER" in printed


@pytest.mark.parametrize("el", ["f32", "bf16", "i32", "ui8", "i1"])
def test_top_k(el: str) -> None:
    dtype = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "ui8": np.uint8,
             "i1": np.bool_}[el]
    if el in ("f32", "bf16"):
        x = _floats(dtype, 40)[:40].reshape(5, 8)
    elif el == "i1":
        x = R.integers(0, 2, size=(5, 8)).astype(np.bool_)
    else:
        x = _ints(dtype, 40)[:40].reshape(5, 8)
    t = _tensor((5, 8), el)
    vt, it = _tensor((5, 3), el), _tensor((5, 3), "i32")
    body = _const("x", x, el) + f"    %v, %i = chlo.top_k(%x, k = 3) : {t} -> ({vt}, {it})\n"
    printed = _same_bits(_program(body, [("%v", vt), ("%i", it)]))
    assert "stablehlo.sort" in printed and "stablehlo.iota" in printed


def test_constants() -> None:
    text = (
        "func.func @main(%a: tensor<3xf32>) -> (tensor<2xi32>, tensor<3xf32>) {\n"
        "  %0 = chlo.constant dense<[1, 2]> : tensor<2xi32>\n"
        '  %1 = "chlo.constant_like"(%a) {value = 2.5 : f32} : (tensor<3xf32>) -> tensor<3xf32>\n'
        "  func.return %0, %1 : tensor<2xi32>, tensor<3xf32>\n}\n"
    )
    printed = print_ir(run_pipeline(parse(text, "c.mlir"), [(PASS, {})]))
    assert "stablehlo.constant dense<[1, 2]> : tensor<2xi32>" in printed
    assert "stablehlo.constant dense<2.500000e+00> : tensor<3xf32>" in printed
    assert "chlo." not in printed


def test_nested_regions_and_locations() -> None:
    """CHLO inside a while body is lowered in place; new ops carry the CHLO op's location."""
    text = (
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %c = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %r:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<4xf32>\n"
        "  cond {\n"
        "    %lim = stablehlo.constant dense<2> : tensor<i32>\n"
        "    %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %p : tensor<i1>\n"
        "  } do {\n"
        "    %one = stablehlo.constant dense<1> : tensor<i32>\n"
        "    %n = stablehlo.add %i, %one : tensor<i32>\n"
        '    %e = chlo.erf %v : tensor<4xf32> -> tensor<4xf32> loc("erf_here")\n'
        "    stablehlo.return %n, %e : tensor<i32>, tensor<4xf32>\n"
        "  }\n"
        "  func.return %r#1 : tensor<4xf32>\n}\n"
    )
    module = run_pipeline(parse(text, "w.mlir"), [(PASS, {})])
    printed = print_ir(module, debuginfo=True)
    assert "chlo." not in printed
    clamp_lines = [ln for ln in printed.splitlines() if "stablehlo.clamp" in ln]
    assert clamp_lines and all('loc("erf_here")' in ln or "loc(#loc" in ln for ln in clamp_lines)
    x = np.linspace(-3, 3, 4, dtype=np.float32)
    native = Evaluator(parse(text, "w.mlir")).call("main", [x])
    lowered = Evaluator(module).call("main", [x])
    assert np.asarray(native[0]).tobytes() == np.asarray(lowered[0]).tobytes()


SCAN = """func.func @main(%x: tensor<3x5xf32>, %y: tensor<3x5xi32>) -> (tensor<3x5xf32>, tensor<3x5xi32>, tensor<3xf32>, tensor<3xi32>) {
  %c0 = stablehlo.constant dense<1.5> : tensor<3xf32>
  %c1 = stablehlo.constant dense<0> : tensor<3xi32>
  %0:4 = chlo.scan(%x, %y) inits(%c0, %c1) dimension=1 attributes {is_reverse = REVERSE} {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xi32>, %s: tensor<3xf32>, %t: tensor<3xi32>):
    %m = stablehlo.multiply %s, %a : tensor<3xf32>
    %n = stablehlo.add %t, %b : tensor<3xi32>
    stablehlo.return %m, %n, %m, %n : tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi32>
  } : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<3x5xf32>, tensor<3x5xi32>, tensor<3xf32>, tensor<3xi32>)
  func.return %0#0, %0#1, %0#2, %0#3 : tensor<3x5xf32>, tensor<3x5xi32>, tensor<3xf32>, tensor<3xi32>
}
"""


@pytest.mark.parametrize("reverse", ["false", "true"])
def test_scan_becomes_a_while_loop(reverse: str) -> None:
    text = SCAN.replace("REVERSE", reverse)
    module = run_pipeline(parse(text, "scan.mlir"), [(PASS, {})])
    printed = print_ir(module)
    assert "chlo." not in printed and "stablehlo.while" in printed
    args = [R.normal(size=(3, 5)).astype(np.float32), R.integers(-9, 9, size=(3, 5)).astype(np.int32)]
    native = Evaluator(parse(text, "scan.mlir")).call("main", args)
    lowered = Evaluator(module).call("main", args)
    assert [np.asarray(r).tobytes() for r in native] == [np.asarray(r).tobytes() for r in lowered]


def test_dynamic_shape_is_not_supported() -> None:
    text = _erf_of_argument("tensor<?xf32>")
    with pytest.raises(NotSupportedError) as e:
        run_pipeline(parse(text, "dyn.mlir"), [(PASS, {})])
    msg = str(e.value)
    assert "chlo.erf" in msg and "tensor<?xf32>" in msg and "dyn.mlir:2" in msg


DYNAMIC = """func.func @main(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
"""


def test_cli_reports_unsupported_op_without_traceback(tmp_path: object) -> None:
    path = tmp_path / "dynamic.mlir"  # type: ignore[operator]
    path.write_text(DYNAMIC)
    for flag in ("--chlo-legalize-to-stablehlo", "--chlo-pre-serialization-pipeline"):
        r = subprocess.run(
            [sys.executable, "-m", "stablehlo_py.cli.opt", flag, str(path)],
            check=False,
            capture_output=True,
            text=True,
        )
        assert r.returncode != 0
        assert "Traceback" not in r.stderr
        assert "chlo.broadcast_add" in r.stderr and "tensor<?x3xf32>" in r.stderr
        assert "not supported" in r.stderr and "dynamic.mlir:2" in r.stderr


def test_cli_lowers_then_serializes(tmp_path: object) -> None:
    """The testdata RUN line, in small: stablehlo-opt --chlo-pre-serialization-pipeline | serialize |
    deserialize gives back the lowered program."""
    path = tmp_path / "p.mlir"  # type: ignore[operator]
    path.write_text(
        "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %0 = chlo.lgamma %a : tensor<3xf32> -> tensor<3xf32>\n"
        "  func.return %0 : tensor<3xf32>\n}\n"
    )
    opt = [sys.executable, "-m", "stablehlo_py.cli.opt"]
    tr = [sys.executable, "-m", "stablehlo_py.cli.translate"]
    lowered = subprocess.run([*opt, "--chlo-pre-serialization-pipeline", str(path)],
                             capture_output=True, text=True, check=True).stdout
    data = subprocess.run([*tr, "--serialize", "--target=current"], input=lowered.encode(),
                          capture_output=True, check=True).stdout
    back = subprocess.run([*tr, "--deserialize"], input=data, capture_output=True, check=True).stdout
    again = subprocess.run(opt, input=back, capture_output=True, check=True).stdout.decode()
    assert again == lowered and "chlo." not in lowered


def test_serializing_chlo_says_how_to_lower_it() -> None:
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from stablehlo_py.errors import StableHLOError

    text = _erf_of_argument("tensor<3xf32>")
    with pytest.raises(StableHLOError) as e:
        serialize_portable_artifact_str(text, "current", name="erf.mlir")
    assert "chlo.erf" in str(e.value) and "--chlo-pre-serialization-pipeline" in str(e.value)
    lowered = print_ir(run_pipeline(parse(text, "erf.mlir"), [("chlo-pre-serialization-pipeline", {})]))
    assert serialize_portable_artifact_str(lowered, "current")


_NON_CONTRACTING = (
    "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
    "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]"
)
_CONTRACTING = (
    "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]"
)
_BATCH = (
    "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
    "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]"
)
_BATCHED_GROUPS = (
    "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
    "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]"
)
RAGGED_CASES = {
    # name: (lhs shape, rhs shape, group sizes, result shape, dimension numbers)
    "non_contracting": ((11, 5), (3, 5, 7), [4, 0, 5], (11, 7), _NON_CONTRACTING),
    "contracting": ((4, 10), (10, 6), [3, 5, 1], (3, 4, 6), _CONTRACTING),
    "batch": ((6, 3, 4), (6, 4, 5), [2, 3], (6, 3, 5), _BATCH),
    "batched_group_sizes": ((2, 11, 5), (3, 2, 5, 7), [[4, 0, 5], [1, 6, 4]], (2, 11, 7), _BATCHED_GROUPS),
}


@pytest.mark.parametrize("case", list(RAGGED_CASES))
def test_ragged_dot_becomes_masked_dots(case: str) -> None:
    ls, rs, groups, res, dims = RAGGED_CASES[case]
    g = np.array(groups, dtype=np.int64)
    lt, rt, gt, ot = (_tensor(s, e) for s, e in ((ls, "f32"), (rs, "f32"), (g.shape, "i64"), (res, "f32")))
    body = (
        _const("l", R.normal(size=ls).astype(np.float32), "f32")
        + _const("r", R.normal(size=rs).astype(np.float32), "f32")
        + _const("g", g, "i64")
        + f'    %o = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>, '
        f"precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]}} : ({lt}, {rt}, {gt}) -> {ot}\n"
    )
    printed = _same_bits(_program(body, [("%o", ot)]))
    assert "stablehlo.dot_general" in printed
