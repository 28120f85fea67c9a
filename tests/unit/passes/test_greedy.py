"""The greedy rewrite driver (passes/drivers/greedy.py): MLIR's applyPatternsGreedily order --
constants uniqued and hoisted to the function's entry block when the worklist is filled, bottom-up
(LIFO) processing, folders materializing constants at the folded op, trivially dead ops erased, the
iteration limit."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.passes.drivers.greedy import (
    IN_PLACE,
    GreedyConfig,
    GreedyRewriteError,
    apply_patterns_greedily,
    raise_if_not_converged,
)
from stablehlo_py.passes.patterns.shape_folder import FoldOptions, ShapeFolderPattern
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.dense import make_dense
from tests.unit.passes.helpers import op_names


def _func(body: str, sig: str = "() -> tensor<i32>") -> Operation:
    return parse(
        f"func.func @f{sig.split(' ->')[0]} ->{sig.split('->')[1]} {{\n{body}\n}}", "t.mlir"
    )


def test_constants_deduplicated_and_hoisted() -> None:
    m = _func(
        "%0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "%1 = stablehlo.add %0, %0 : tensor<i32>\n"
        "%2 = stablehlo.constant dense<2> : tensor<i32>\n"
        "%3 = stablehlo.constant dense<1> : tensor<i32>\n"
        "%4 = stablehlo.multiply %1, %2 : tensor<i32>\n"
        "%5 = stablehlo.add %4, %3 : tensor<i32>\n"
        "func.return %5 : tensor<i32>"
    )
    assert apply_patterns_greedily(m, [])
    text = print_ir(m)
    # dense<2> moves before dense<1> (MLIR: a constant not directly after an owned one goes to the
    # front); the second dense<1> is replaced by the first
    assert text.index("dense<2>") < text.index("dense<1>")
    assert text.count("stablehlo.constant") == 2
    assert op_names(m) == [
        "stablehlo.constant",
        "stablehlo.constant",
        "stablehlo.add",
        "stablehlo.multiply",
        "stablehlo.add",
        "func.return",
    ]


def test_shape_folder_pattern_folds_to_one_constant() -> None:
    m = _func(
        "%0 = stablehlo.constant dense<3> : tensor<i32>\n"
        "%1 = stablehlo.constant dense<4> : tensor<i32>\n"
        "%2 = stablehlo.add %0, %1 : tensor<i32>\n"
        "%3 = stablehlo.multiply %2, %0 : tensor<i32>\n"
        "func.return %3 : tensor<i32>"
    )
    assert apply_patterns_greedily(m, [ShapeFolderPattern(FoldOptions())])
    assert op_names(m) == ["stablehlo.constant", "func.return"]
    assert "dense<21>" in print_ir(m)


def test_dead_ops_erased_but_not_effects() -> None:
    m = _func(
        "%0 = stablehlo.constant dense<3> : tensor<i32>\n"
        "%1 = stablehlo.add %0, %0 : tensor<i32>\n"
        "%2 = stablehlo.custom_call @foo(%0) {has_side_effect = true} : (tensor<i32>) -> tensor<i32>\n"
        "%3 = stablehlo.custom_call @bar(%0) : (tensor<i32>) -> tensor<i32>\n"
        "func.return %0 : tensor<i32>"
    )
    assert apply_patterns_greedily(m, [])
    # upstream's custom_call declares effects only with has_side_effect = true
    assert op_names(m) == ["stablehlo.constant", "stablehlo.custom_call", "func.return"]
    assert "@foo" in print_ir(m)


def test_folder_materializes_at_the_op_with_its_location() -> None:
    m = _func(
        '%0 = stablehlo.abs %arg0 : tensor<i32> loc("here")\n'
        "%1 = stablehlo.add %0, %arg0 : tensor<i32>\n"
        "func.return %1 : tensor<i32>",
        "(%arg0: tensor<i32>) -> tensor<i32>",
    )

    def fold_abs(op: Operation):
        return [make_dense(op.results[0].type, np.array(7, dtype=np.int32))]

    # one iteration: the constant stays where abs was (hoisting happens when the next iteration
    # fills its worklist), so the driver reports no convergence within 1 iteration
    config = GreedyConfig(max_iterations=1)
    assert not apply_patterns_greedily(m, [], folders={"stablehlo.abs": fold_abs}, config=config)
    text = print_ir(m, debuginfo=True)
    assert 'dense<7> : tensor<i32> loc("here")' in text
    assert apply_patterns_greedily(m, [], folders={"stablehlo.abs": fold_abs})
    assert op_names(m) == ["stablehlo.constant", "stablehlo.add", "func.return"]


def test_in_place_fold_counts_as_change() -> None:
    m = _func(
        "%0 = stablehlo.abs %arg0 : tensor<i32>\nfunc.return %0 : tensor<i32>",
        "(%arg0: tensor<i32>) -> tensor<i32>",
    )
    calls = []

    def fold(op: Operation):
        calls.append(op)
        return IN_PLACE if len(calls) == 1 else None

    assert apply_patterns_greedily(m, [], folders={"stablehlo.abs": fold})
    # the modified op re-enters the worklist (2nd call), and the change means a second iteration
    assert len(calls) == 3


class _Flip(RewritePattern):
    """Swaps add's operands forever: never converges."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "stablehlo.add":
            a, b = op.operands
            op.operands = [b, a]
            rewriter.notify_op_modified(op)


def test_iteration_limit_reports_clear_error() -> None:
    m = _func(
        "%0 = stablehlo.add %arg0, %arg1 : tensor<i32>\nfunc.return %0 : tensor<i32>",
        "(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32>",
    )
    config = GreedyConfig(max_iterations=3, max_num_rewrites=1)
    converged = apply_patterns_greedily(m, [_Flip()], config=config)
    assert not converged
    with pytest.raises(GreedyRewriteError, match="did not converge after 3 iterations"):
        raise_if_not_converged(converged, "test-pass", config)


class _Record(RewritePattern):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.seen.append(op.name)


@pytest.mark.parametrize(
    ("top_down", "expected"),
    [
        # MLIR's addToWorklist also pushes the op's ancestors: func.func enters right after the
        # first op of its body
        (False, ["func.return", "stablehlo.multiply", "func.func", "stablehlo.add"]),
        (True, ["func.func", "stablehlo.add", "stablehlo.multiply", "func.return"]),
    ],
)
def test_worklist_order(top_down: bool, expected: list[str]) -> None:
    m = _func(
        "%0 = stablehlo.add %arg0, %arg0 : tensor<i32>\n"
        "%1 = stablehlo.multiply %0, %0 : tensor<i32>\n"
        "func.return %1 : tensor<i32>",
        "(%arg0: tensor<i32>) -> tensor<i32>",
    )
    rec = _Record()
    assert apply_patterns_greedily(m, [rec], config=GreedyConfig(top_down=top_down))
    assert rec.seen == expected


def test_constants_in_nested_regions_hoisted_to_function() -> None:
    m = _func(
        "%0 = stablehlo.constant dense<0> : tensor<i32>\n"
        "%1 = stablehlo.while(%iter = %0) : tensor<i32>\n"
        " cond {\n"
        "  %c = stablehlo.constant dense<10> : tensor<i32>\n"
        "  %p = stablehlo.compare LT, %iter, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  stablehlo.return %p : tensor<i1>\n"
        " } do {\n"
        "  %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  %n = stablehlo.add %iter, %c1 : tensor<i32>\n"
        "  stablehlo.return %n : tensor<i32>\n"
        " }\n"
        "func.return %1 : tensor<i32>"
    )
    assert apply_patterns_greedily(m, [])
    func = next(o for o in m.walk() if o.name == "func.func")
    top = [o.name for o in func.body.blocks[0].ops]
    assert top == ["stablehlo.constant"] * 3 + ["stablehlo.while", "func.return"]


def test_merged_constant_loses_its_location() -> None:
    """FoldUtils' erasedFoldedLocation: the kept constant of a merged pair is at loc(unknown); a
    constant right after an owned one stays where it is, with its location."""
    m = _func(
        '%0 = stablehlo.constant dense<1> : tensor<i32> loc("a")\n'
        '%1 = stablehlo.constant dense<1> : tensor<i32> loc("b")\n'
        '%2 = stablehlo.constant dense<2> : tensor<i32> loc("c")\n'
        "func.return %1, %2 : tensor<i32>, tensor<i32>",
        "() -> (tensor<i32>, tensor<i32>)",
    )
    assert apply_patterns_greedily(m, [])
    text = print_ir(m, debuginfo=True)
    assert "dense<1> : tensor<i32> loc(unknown)" in text
    assert 'dense<2> : tensor<i32> loc("c")' in text
    assert text.index("dense<1>") < text.index("dense<2>")


class _Named(RewritePattern):
    def __init__(self, log: list[str], tag: str, root: str | None, benefit: int = 1) -> None:
        self.log, self.tag, self.root, self.benefit = log, tag, root, benefit

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "stablehlo.abs":
            self.log.append(self.tag)


def test_pattern_order_is_mlirs_pattern_applicator() -> None:
    m = _func(
        "%0 = stablehlo.abs %arg0 : tensor<i32>\nfunc.return %0 : tensor<i32>",
        "(%arg0: tensor<i32>) -> tensor<i32>",
    )
    log: list[str] = []
    patterns = [
        _Named(log, "any1", None),
        _Named(log, "abs1", "stablehlo.abs"),
        _Named(log, "neg", "stablehlo.negate"),
        _Named(log, "any2", None, benefit=2),
        _Named(log, "abs2", "stablehlo.abs"),
    ]
    assert apply_patterns_greedily(m, patterns)
    assert log[:4] == ["any2", "abs1", "abs2", "any1"]
