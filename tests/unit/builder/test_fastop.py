"""The builder's op constructor (stablehlo_py.builder.fastop.new_op) makes exactly what xDSL's
Operation.create makes: the same fields, operand uses, result owners and region parents, for ops
with and without properties, IRDL defaults, variadic operands and regions."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region

from stablehlo_py.builder import tensor
from stablehlo_py.builder.fastop import FIELDS, new_op, operation_fields
from stablehlo_py.ir.enums import ComparisonDirectionAttr
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.types import TOKEN

OPS = default_registry().ops
T = tensor((2, 3), "f32")
S = tensor((), "f32")
I64 = IntegerType(64)


def test_fields_are_xdsl_operation_fields() -> None:
    # an xDSL upgrade that adds or renames a field of Operation must revisit new_op
    assert set(FIELDS) == set(operation_fields())


def _body(op_name: str, result: Attribute, props: dict[str, Attribute]) -> Callable[[], Region]:
    """A fresh one-op region (two 0-d f32 arguments) each call."""

    def make() -> Region:
        b = Block(arg_types=[S, S])
        inner = OPS[op_name].create(operands=list(b.args), result_types=[result], properties=props)
        b.add_op(inner)
        b.add_op(OPS["stablehlo.return"].create(operands=[inner.results[0]]))
        return Region(b)

    return make


ADD_BODY = _body("stablehlo.add", S, {})
LESS_BODY = _body(
    "stablehlo.compare", tensor((), "i1"), {"comparison_direction": ComparisonDirectionAttr("LT")}
)

CASES = {
    "add": ("stablehlo.add", (0, 1), [T], {}, []),
    "transpose": (
        "stablehlo.transpose",
        (0,),
        [tensor((3, 2), "f32")],
        {"permutation": DenseArrayBase.from_list(I64, [1, 0])},
        [],
    ),
    "concatenate": (
        "stablehlo.concatenate",
        (0, 1),
        [tensor((4, 3), "f32")],
        {"dimension": IntegerAttr(0, I64)},
        [],
    ),
    "sort": ("stablehlo.sort", (0,), [T], {"dimension": IntegerAttr(0, I64)}, [LESS_BODY]),
    "reduce": (
        "stablehlo.reduce",
        (0, 2),
        [tensor((3,), "f32")],
        {"dimensions": DenseArrayBase.from_list(I64, [0])},
        [ADD_BODY],
    ),
    "create_token": ("stablehlo.create_token", (), [TOKEN], {}, []),
}


def _same(a: Operation, b: Operation) -> None:
    assert type(a) is type(b)
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert all(r.op is a and r.index == i for i, r in enumerate(a.results))
    assert a.properties == b.properties
    assert a.attributes == b.attributes
    assert a.location == b.location
    assert list(a.successors) == list(b.successors) == []
    assert len(a.regions) == len(b.regions)
    assert all(r.parent is a for r in a.regions)
    assert a.parent is None and a.next_op is None and a.prev_op is None
    for i, v in enumerate(a.operands):
        assert sum(1 for u in v.uses if u.operation is a and u.index == i) == 1
    a.verify()


@pytest.mark.parametrize("case", sorted(CASES))
def test_new_op_equals_create(case: str) -> None:
    name, picks, results, props, regions = CASES[case]
    block = Block(arg_types=[T, T, S])
    x, y, s = block.args
    operands = [block.args[i] for i in picks]
    cls = OPS[name]
    fast = new_op(cls, operands, results, dict(props), [make() for make in regions])
    slow = cls.create(
        operands=operands,
        result_types=results,
        properties=dict(props),
        regions=[make() for make in regions],
    )
    _same(fast, slow)
    fast.erase()  # erasing drops its uses, as for an op made by create
    slow.erase()
    assert all(not list(v.uses) for v in (x, y, s))


def test_irdl_defaults_are_filled() -> None:
    cls = OPS["stablehlo.composite"]
    props = {"name": StringAttr("a.b"), "decomposition": SymbolRefAttr("f")}
    assert (
        new_op(cls, [], [], dict(props)).properties == cls.create(properties=dict(props)).properties
    )
