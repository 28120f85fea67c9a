"""The expansions of `stablehlo-complex-math-expander` against upstream's DRR source.

upstream's test file checks the printed expansion of log_plus_one only; the other patterns' op
order (which fixes the printed value numbering and the order of the hoisted constants) is checked
here against the result DAGs of ../shared/reference/upstream/transforms/
StablehloComplexMathExpanderPatterns.td, read at test time: a DRR result DAG creates its ops
depth first, operands left to right, a bound `:$name` once where it first appears.  Each expansion
must create exactly those ops, in that order, with the same comparison directions, the same
constants (rounded to the element type) and the same operands.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.passes.patterns.complex_math import EXPANSIONS, Emitter
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.dense import dense_values

TD = (
    Path(__file__).resolve().parents[3].parent
    / "shared/reference/upstream/transforms/StablehloComplexMathExpanderPatterns.td"
)
needs_td = pytest.mark.skipif(not TD.is_file(), reason="../shared/reference is absent")

PATTERNS = {
    "log_plus_one": "Log1pOp_ComplexElementType_ComplexMathExpander",
    "sqrt": "SqrtOp_ComplexElementType_ComplexMathExpander",
    "log": "LogOp_ComplexElementType_ComplexMathExpander",
    "exponential": "ExpOp_ComplexElementType_ComplexMathExpander",
}
DRR_OPS = {
    "AbsOp": "abs",
    "AddOp": "add",
    "AndOp": "and",
    "Atan2Op": "atan2",
    "CompareOp": "compare",
    "ComplexOp": "complex",
    "CosineOp": "cosine",
    "DivOp": "divide",
    "ExpOp": "exponential",
    "ImagOp": "imag",
    "Log1pOp": "log_plus_one",
    "LogOp": "log",
    "MaxOp": "maximum",
    "MinOp": "minimum",
    "MulOp": "multiply",
    "NegOp": "negate",
    "OrOp": "or",
    "RealOp": "real",
    "SelectOp": "select",
    "SineOp": "sine",
    "SqrtOp": "sqrt",
    "SubtractOp": "subtract",
}
Rec = tuple[str, object, tuple[object, ...]]
Node = tuple[str, list["Node | str"]]


# ------------------------------------------------------------------------ the DRR side
def _tokens(text: str) -> list[str]:
    return re.findall(
        r'\(|\)|,|[A-Za-z_]\w*(?:<"[^"]*">)?(?::\$\w+)?|\$\w+',
        text,
    )


def _dag(tokens: list[str], i: int) -> tuple[Node, int]:
    assert tokens[i] == "(", tokens[i : i + 5]
    head, args, i = tokens[i + 1], [], i + 2
    while tokens[i] != ")":
        if tokens[i] == ",":
            i += 1
        elif tokens[i] == "(":
            node, i = _dag(tokens, i)
            args.append(node)
        else:
            args.append(tokens[i])
            i += 1
    return (head, args), i + 1


def _result_dag(pattern: str) -> Node:
    text = "\n".join(
        line for line in TD.read_text().splitlines() if not line.lstrip().startswith("//")
    )
    start = re.search(rf"def {pattern}\s*:\s*Pat<", text)
    assert start is not None, pattern
    tokens = _tokens(text[start.end() :])
    _, i = _dag(tokens, 0)  # the source pattern
    while tokens[i] == ",":
        i += 1
    result, _ = _dag(tokens, i)
    return result


def _drr_ops(pattern: str, real: type) -> list[Rec]:
    """The ops the result DAG creates, in order: (op, direction or constant, operand indices)."""
    out: list[Rec] = []
    env: dict[str, object] = {"z": "z"}
    fi = np.finfo(real)

    def const(value: float) -> Rec:
        with np.errstate(over="ignore"):
            return ("constant", float(np.array([value]).astype(real)[0]), ())

    def ev(node: Node | str) -> object:
        if isinstance(node, str):
            return env[node[1:]] if node.startswith("$") else None  # attributes make no op
        head, args = node
        head, _, bind = head.partition(":$")
        if head == "STABLEHLO_DEFAULT_COMPARISON_TYPE":
            return None
        operands = tuple(v for v in (ev(a) for a in args) if v is not None)
        if head.startswith("StableHLO_ConstantLike<"):
            rec = const(float(head.split('"')[1]))
        elif head == "StableHLO_ConstantLikeMaxFiniteValue":
            rec = const(float(fi.max))
        elif head == "StableHLO_ConstantLikePosInfValue":
            rec = const(float("inf"))
        else:
            op = DRR_OPS[head.removeprefix("StableHLO_")]
            direction = next(
                (a.split('"')[1] for a in args if isinstance(a, str) and "Direction" in a), None
            )
            rec = (op, direction, operands)
        out.append(rec)
        if bind:
            env[bind] = len(out) - 1
        return len(out) - 1

    ev(_result_dag(pattern))
    return out


# ------------------------------------------------------------------------ our side
def _our_ops(op: str, t: str) -> list[Rec]:
    ty = f"tensor<2xcomplex<{t}>>"
    module = parse(f"""func.func @main(%z: {ty}) -> {ty} {{
  %r = stablehlo.{op} %z : {ty}
  return %r : {ty}
}}""")
    root = next(o for o in module.walk() if o.name == f"stablehlo.{op}")
    z = root.operands[0]
    EXPANSIONS[f"stablehlo.{op}"](Emitter(PatternRewriter(root), root), z)
    created: list[Operation] = []
    cur = root.prev_op
    while cur is not None:
        created.append(cur)
        cur = cur.prev_op
    created.reverse()
    index: dict[SSAValue, object] = {z: "z"}
    out: list[Rec] = []
    for i, o in enumerate(created):
        name = o.name.split(".", 1)[1]
        if name == "constant":
            out.append((name, float(dense_values(o.properties["value"]).reshape(-1)[0]), ()))
        else:
            d = o.properties.get("comparison_direction")
            direction = d.data if d is not None else None  # type: ignore[attr-defined]
            out.append((name, direction, tuple(index[v] for v in o.operands)))
        index[o.results[0]] = i
    return out


@needs_td
@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(PATTERNS))
def test_expansion_creates_the_drr_result_dag(op: str, t: str) -> None:
    real = np.float32 if t == "f32" else np.float64
    want = _drr_ops(PATTERNS[op], real)
    got = _our_ops(op, t)
    for i, (w, g) in enumerate(zip(want, got)):
        assert w == g, f"op #{i} of the expansion of {op}: upstream creates {w}, we create {g}"
    assert len(got) == len(want)


@needs_td
def test_every_upstream_pattern_is_expanded() -> None:
    defined = re.findall(r"^def (\w+_ComplexMathExpander)\s*:", TD.read_text(), re.MULTILINE)
    assert sorted(defined) == sorted(PATTERNS.values())
    assert sorted(EXPANSIONS) == sorted(f"stablehlo.{op}" for op in PATTERNS)
