"""The parser's fast-path constructor (`xdsl_compat.construct.new_plain_op`, through
`StableHLOOp.plain_builder`) makes what `new_op` and xDSL's `Operation.create` make: the same
fields, operand uses (in use-list order), result owners and defaults; and `TYPE_FIELD` is the field
behind `SSAValue.type`."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, OpResult

from stablehlo_py.builder import tensor
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.enums import ComparisonDirectionAttr
from stablehlo_py.ir.types import TOKEN
from stablehlo_py.ir.xdsl_compat.construct import TYPE_FIELD, new_op, new_plain_op

OPS = default_registry().ops
T = tensor((2, 3), "f32")
I64 = IntegerType(64)

CASES = {
    "add": ("stablehlo.add", (0, 1), [T], {}),
    "add same operand": ("stablehlo.add", (0, 0), [T], {}),
    "transpose": (
        "stablehlo.transpose",
        (1,),
        [tensor((3, 2), "f32")],
        {"permutation": DenseArrayBase.from_list(I64, [1, 0])},
    ),
    "compare": (
        "stablehlo.compare",
        (0, 1),
        [tensor((2, 3), "i1")],
        {"comparison_direction": ComparisonDirectionAttr("LT")},
    ),
    "create_token": ("stablehlo.create_token", (), [TOKEN], {}),
    "composite (IRDL defaults)": (
        "stablehlo.composite",
        (0,),
        [T],
        {"name": StringAttr("a.b"), "decomposition": SymbolRefAttr("f")},
    ),
}


def _uses(v: object) -> list[tuple[int, int]]:
    """The value's use list in order: (id of the using op's position marker, operand index)."""
    out = []
    u = v.first_use  # type: ignore[attr-defined]
    while u is not None:
        out.append((u.operation.name, u.index))
        assert u._next_use is None or u._next_use._prev_use is u
        u = u._next_use
    return out


def _fields(op: Operation) -> dict[str, object]:
    return {
        "type": type(op),
        "operands": list(op.operands),
        "results": [(r.type, r.index, r.name_hint, r.first_use) for r in op.results],
        "properties": op.properties,
        "attributes": op.attributes,
        "location": op.location,
        "successors": list(op.successors),
        "regions": list(op.regions),
        "links": (op.parent, op.next_op, op.prev_op),
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_plain_op_equals_new_op_and_create(case: str) -> None:
    name, picks, results, props = CASES[case]
    made = []
    for make in ("plain", "builder", "new_op", "create"):
        block = Block(arg_types=[T, T])
        operands = [block.args[i] for i in picks]
        cls = OPS[name]
        if make == "plain":
            op = new_plain_op(cls, operands, results, dict(props))
        elif make == "builder":
            op = cls.plain_builder()(operands, results, dict(props))
        elif make == "new_op":
            op = new_op(cls, operands, results, dict(props))
        else:
            op = cls.create(operands=operands, result_types=results, properties=dict(props))
        assert all(r.op is op and isinstance(r, OpResult) for r in op.results)
        made.append((_fields(op) | {"operands": picks}, [_uses(a) for a in block.args]))
        assert vars(op.results[0]).keys() == vars(OpResult(T, op, 0)).keys() if op.results else True
        op.verify()
    assert all(m == made[-1] for m in made), made


def test_plain_op_keeps_its_properties_dict() -> None:
    props = {"permutation": DenseArrayBase.from_list(I64, [0, 1])}
    block = Block(arg_types=[T])
    op = new_plain_op(OPS["stablehlo.transpose"], [block.args[0]], [T], props)
    assert op.properties is props and op.attributes == {}


def test_type_field_is_behind_the_type_property() -> None:
    block = Block(arg_types=[T])
    v = block.args[0]
    assert getattr(v, TYPE_FIELD) is v.type
    op = new_plain_op(OPS["stablehlo.abs"], [v], [T], {})
    assert getattr(op.results[0], TYPE_FIELD) is op.results[0].type is T
