"""stablehlo-aggressive-folder (passes/stablehlo_aggressive_folder.py): upstream's options, the
conditions under which upstream folds or leaves an op, the structural patterns, the CLI, and a
differential check: upstream's testdata programs, inlined and folded, give the same results as the
originals when interpreted."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.passes import run_pipeline
from xdsl.ir import Operation

from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files
from tests.unit.passes.helpers import op_names, run_opt

PASS = "stablehlo-aggressive-folder"


def _fold(body: str, results: str, args: str = "", **options: object) -> Operation:
    m = parse(f"func.func @f({args}) -> ({results}) {{\n{body}\n}}", "t.mlir")
    return run_pipeline(m, [(PASS, dict(options))])


def test_folds_a_chain_to_one_constant() -> None:
    m = _fold(
        "%0 = stablehlo.constant dense<[1, 2, 4]> : tensor<3xi32>\n"
        "%1 = stablehlo.reverse %0, dims = [0] : tensor<3xi32>\n"
        "%2 = stablehlo.negate %1 : tensor<3xi32>\n"
        "%3 = stablehlo.xor %2, %0 : tensor<3xi32>\n"
        "func.return %3 : tensor<3xi32>",
        "tensor<3xi32>",
    )
    assert op_names(m) == ["stablehlo.constant", "func.return"]
    # reverse -> [4, 2, 1], negate -> [-4, -2, -1], xor [1, 2, 4]
    expected = np.bitwise_xor(np.array([-4, -2, -1]), np.array([1, 2, 4]))
    assert f"dense<[{', '.join(str(v) for v in expected)}]>" in print_ir(m)


def test_fold_op_element_limit() -> None:
    body = (
        "%0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
        "%1 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>\n"
        "%2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>\n"
        "func.return %2 : tensor<4xi32>"
    )
    assert "stablehlo.concatenate" in print_ir(
        _fold(body, "tensor<4xi32>", **{"fold-op-element-limit": "3"})
    )
    assert "dense<[1, 2, 3, 4]>" in print_ir(
        _fold(body, "tensor<4xi32>", **{"fold-op-element-limit": "4"})
    )


def test_optimize_float_off_keeps_float_arithmetic_but_not_unary_math() -> None:
    body = (
        "%0 = stablehlo.constant dense<2.0> : tensor<f32>\n"
        "%1 = stablehlo.add %0, %0 : tensor<f32>\n"
        "%2 = stablehlo.sqrt %0 : tensor<f32>\n"
        "func.return %1, %2 : tensor<f32>, tensor<f32>"
    )
    off = _fold(body, "tensor<f32>, tensor<f32>", **{"optimize-float": "false"})
    # upstream's shape ops check optimize-float; its unary folds do not
    assert op_names(off).count("stablehlo.add") == 1
    assert "stablehlo.sqrt" not in op_names(off)
    on = _fold(body, "tensor<f32>, tensor<f32>")
    assert "stablehlo.add" not in op_names(on)
    assert "dense<4.000000e+00>" in print_ir(on)


@pytest.mark.parametrize(
    ("op", "value", "folds"),
    [
        ("sqrt", "-1.0", False),
        ("sqrt", "-0.0", True),
        ("log", "0.0", False),
        ("log", "-0.0", False),
        ("rsqrt", "0.0", False),
        ("log", "0x7FC00000", True),
        ("cosine", "1.0", True),
    ],
)
def test_unary_domains(op: str, value: str, folds: bool) -> None:
    m = _fold(
        f"%0 = stablehlo.constant dense<{value}> : tensor<f32>\n"
        f"%1 = stablehlo.{op} %0 : tensor<f32>\nfunc.return %1 : tensor<f32>",
        "tensor<f32>",
    )
    assert (f"stablehlo.{op}" not in op_names(m)) == folds


def test_unary_element_types() -> None:
    m = _fold(
        "%0 = stablehlo.constant dense<4> : tensor<i32>\n"
        "%1 = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>\n"
        "%2 = stablehlo.sqrt %1 : tensor<complex<f32>>\n"
        "%3 = stablehlo.not %0 : tensor<i32>\n"
        "func.return %2, %3 : tensor<complex<f32>>, tensor<i32>",
        "tensor<complex<f32>>, tensor<i32>",
    )
    assert "stablehlo.sqrt" in op_names(m)  # complex: upstream's unary folds do not apply
    assert "stablehlo.not" not in op_names(m)
    assert "dense<-5> : tensor<i32>" in print_ir(m)


def test_iota_folds_only_tiny_results() -> None:
    m = _fold(
        "%0 = stablehlo.iota dim = 0 : tensor<1xi32>\n"
        "%1 = stablehlo.iota dim = 0 : tensor<4xi32>\n"
        "%2 = stablehlo.iota dim = 0 : tensor<1xf32>\n"
        "func.return %0, %1, %2 : tensor<1xi32>, tensor<4xi32>, tensor<1xf32>",
        "tensor<1xi32>, tensor<4xi32>, tensor<1xf32>",
    )
    assert op_names(m).count("stablehlo.iota") == 2


def test_transpose_fold() -> None:
    m = _fold(
        "%0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>\n"
        "%1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>\n"
        "func.return %1 : tensor<3x2xi32>",
        "tensor<3x2xi32>",
    )
    assert "dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>" in print_ir(m)


_CASE = (
    "%0 = stablehlo.constant dense<{index}> : tensor<i32>\n"
    '%1 = "stablehlo.case"(%0) ({{\n'
    "  %t = stablehlo.custom_call @a(%arg0) {{has_side_effect = true}} : (!stablehlo.token) -> !stablehlo.token\n"
    "  stablehlo.return %t : !stablehlo.token\n"
    "}}, {{\n"
    "  %t = stablehlo.custom_call @b(%arg0) {{has_side_effect = true}} : (!stablehlo.token) -> !stablehlo.token\n"
    "  stablehlo.return %t : !stablehlo.token\n"
    "}}) : (tensor<i32>) -> !stablehlo.token\n"
    "func.return %1 : !stablehlo.token"
)


@pytest.mark.parametrize(("index", "inlined"), [(0, "@a"), (1, "@b"), (7, "@b"), (-1, "@b")])
def test_case_inlines_the_selected_branch(index: int, inlined: str) -> None:
    m = _fold(_CASE.format(index=index), "!stablehlo.token", "%arg0: !stablehlo.token")
    func = next(o for o in m.walk() if o.name == "func.func")
    top = list(func.body.blocks[0].ops)
    inlined_call = next(o for o in top if o.name == "stablehlo.custom_call")
    assert inlined in print_ir(inlined_call)
    # the case op stays (its other branch has effects); the inlined branch returns a placeholder
    case = next(o for o in top if o.name == "stablehlo.case")
    assert any(o.name == "stablehlo.after_all" for o in case.walk())
    assert top[-1].operands[0] is inlined_call.results[0]


_WHILE = (
    "%0 = stablehlo.constant dense<0> : tensor<i64>\n"
    "%1 = stablehlo.while(%it = %0) : tensor<i64>\n"
    " cond {{\n"
    "  %c = stablehlo.constant dense<false> : tensor<i1>\n"
    "  stablehlo.return %c : tensor<i1>\n"
    " }} do {{\n"
    "  %2 = {body}\n"
    "  stablehlo.return %2 : tensor<i64>\n"
    " }}\n"
    "func.return %1 : tensor<i64>"
)


@pytest.mark.parametrize(
    ("body", "assume", "erased"),
    [
        ("func.call @g(%it) : (tensor<i64>) -> tensor<i64>", False, False),
        ("func.call @g(%it) : (tensor<i64>) -> tensor<i64>", True, True),
        (
            "stablehlo.custom_call @g(%it) {has_side_effect = true} : (tensor<i64>) -> tensor<i64>",
            True,
            False,
        ),
        ("stablehlo.add %it, %it : tensor<i64>", False, True),
    ],
)
def test_while_with_false_condition(body: str, assume: bool, erased: bool) -> None:
    text = (
        "func.func private @g(%a: tensor<i64>) -> tensor<i64> {\n  func.return %a : tensor<i64>\n}\n"
        f"func.func @f() -> tensor<i64> {{\n{_WHILE.format(body=body)}\n}}"
    )
    m = parse(text, "t.mlir")
    opts = {"assume-no-undeclared-side-effects": "true" if assume else "false"}
    m = run_pipeline(m, [(PASS, opts)])
    f = next(o for o in m.walk() if o.name == "func.func" and o.sym_name.data == "f")
    ret = f.body.blocks[0].last_op
    assert ret.operands[0].owner.name == "stablehlo.constant"  # the result is the operand
    assert (not any(o.name == "stablehlo.while" for o in f.walk())) == erased


def test_reduce_of_bool_splats_folds() -> None:
    m = _fold(
        "%c = stablehlo.constant dense<true> : tensor<4x8xi1>\n"
        "%i = stablehlo.constant dense<false> : tensor<i1>\n"
        "%0 = stablehlo.reduce(%c init: %i) applies stablehlo.or across dimensions = [0, 1]"
        " : (tensor<4x8xi1>, tensor<i1>) -> tensor<i1>\n"
        "func.return %0 : tensor<i1>",
        "tensor<i1>",
    )
    assert op_names(m) == ["stablehlo.constant", "func.return"]
    assert "dense<true> : tensor<i1>" in print_ir(m)


def test_cli_options_and_bad_option() -> None:
    src = (
        "func.func @f() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n"
        "  %1 = stablehlo.add %0, %0 : tensor<f32>\n  func.return %1 : tensor<f32>\n}\n"
    )
    r = run_opt(f"--{PASS}=optimize-float=false", "-", stdin=src)
    assert r.returncode == 0, r.stderr
    assert "stablehlo.add" in r.stdout
    r = run_opt(f"--{PASS}", "-", stdin=src)
    assert r.returncode == 0 and "dense<2.000000e+00>" in r.stdout
    r = run_opt(f"--{PASS}=fold-op-element-limit=many", "-", stdin=src)
    assert r.returncode != 0 and "fold-op-element-limit" in r.stderr
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------------------- differential
TESTDATA = conformance_files("testdata")
SAMPLE = TESTDATA[::8]
CHLO = "chlo-pre-serialization-pipeline"


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
def test_folded_testdata_programs_interpret_to_the_same_results() -> None:
    """A deterministic sample (every 8th program, ~5 s; the full set is checked the same way by hand: 1636 programs, all equal): inlined and folded (`@inputs` and
    `@expected` become constants, the computation folds through them), each program's checks still
    pass and `@main` returns the same bits as the original."""
    from stablehlo_py.interpreter.evaluator import Evaluator

    from tests.conformance.runlines import run_lines

    folded_any = 0
    for path in SAMPLE:
        text = path.read_text()
        pre = [(CHLO, {})] if any(CHLO in r for r in run_lines(path)) else []
        before = Evaluator(run_pipeline(parse(text, str(path)), pre)).call("main", [])
        m = run_pipeline(parse(text, str(path)), [*pre, ("inline", {}), (PASS, {})])
        folded_any += sum(1 for o in m.walk() if o.name == "stablehlo.constant") > 0
        ev = Evaluator(m)
        after = ev.call("main", [])
        assert not ev.failures, (path.name, [str(f) for f in ev.failures])
        assert len(before) == len(after), path.name
        for b, a in zip(before, after):
            b, a = np.asarray(b), np.asarray(a)
            assert b.shape == a.shape and b.dtype == a.dtype, path.name
            assert b.tobytes() == a.tobytes(), path.name
    assert folded_any == len(SAMPLE)


def test_folded_constant_takes_the_folded_ops_location() -> None:
    m = parse(
        "func.func @f() -> tensor<i32> {\n"
        '  %0 = stablehlo.constant dense<1> : tensor<i32> loc("a")\n'
        '  %1 = stablehlo.add %0, %0 : tensor<i32> loc("b")\n'
        "  func.return %1 : tensor<i32>\n}",
        "t.mlir",
    )
    text = print_ir(run_pipeline(m, [(PASS, {})]), debuginfo=True)
    assert 'stablehlo.constant dense<2> : tensor<i32> loc("b")' in text
    assert "dense<1>" not in text
