"""Every stablehlo/chlo op of upstream's interpreter suite (../shared/conformance/interpret) and of the
smallest testdata program using each op (../shared/conformance/testdata), rebuilt
through its builder function from its own operands, attributes and regions, gets the result types
the program declares (result types inferred wherever upstream infers them) and keeps its
attributes."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Block, Operation

from stablehlo_py.builder import chlo, stablehlo
from stablehlo_py.builder.core import inserting
from stablehlo_py.builder.opgen import OpFunction
from stablehlo_py.ir import parse
from stablehlo_py.ir.infer.shapes import types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import tensor_type
from tests.conftest import conformance_files, split_input_file

FUNCTIONS: dict[str, OpFunction] = {
    f.spec.name: f for ns in (stablehlo, chlo) for f in ns.functions().values()
}
FILES = conformance_files("interpret")


def _smallest_testdata_per_op() -> list[Path]:
    """For each op with a builder function, the smallest testdata program that uses it."""
    files = sorted(conformance_files("testdata"), key=lambda p: p.stat().st_size)
    texts = [(p, p.read_text()) for p in files if p.stat().st_size < 200_000]
    picked: set[Path] = set()
    for name in sorted(FUNCTIONS):
        for p, text in texts:
            if f"{name} " in text or f'"{name}"' in text:
                picked.add(p)
                break
    return sorted(picked)


SHAPE_ONLY = frozenset(
    {"stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution", "stablehlo.dynamic_conv"}
)
"""Upstream infers only the result shape of these (the element type is the producer's choice, e.g.
i8 x i8 -> i32); the builder defaults it to the lhs element type."""


def rebuild(op: Operation) -> Operation:
    """The op built again by its builder function, in a fresh block whose arguments stand for its
    operands; attributes are passed as the xDSL attributes they are, regions as copies."""
    fn = FUNCTIONS[op.name]
    spec = fn.spec
    block = Block(arg_types=[v.type for v in op.operands])
    args = iter(block.args)
    kwargs: dict[str, object] = {}
    for o in spec.operands:
        got = getattr(op, o.field)
        if o.variadic:
            kwargs[o.name] = [next(args) for _ in got]
        elif o.optional:
            kwargs[o.name] = None if got is None else next(args)
        else:
            kwargs[o.name] = next(args)
    for a in spec.attrs:
        if a.prop in op.properties:
            kwargs[a.name] = op.properties[a.prop]
    regions = iter(op.regions)
    for r in spec.regions:
        kwargs[r.name] = (
            [next(regions).clone() for _ in range(len(op.regions))]
            if r.variadic
            else next(regions).clone()
        )
    result_type = None if spec.inferred or spec.result_segments else [r.type for r in op.results]
    with inserting(block):
        fn(**kwargs, result_type=result_type)
    new = block.last_op
    assert new is not None
    return new


TESTDATA = _smallest_testdata_per_op()


@pytest.mark.skipif(not FILES, reason="../shared/conformance is absent")
@pytest.mark.parametrize("path", FILES + TESTDATA, ids=lambda p: p.name)
def test_rebuild_every_op(path: Path) -> None:
    checked = 0
    for offset, chunk in split_input_file(path.read_text()):
        module = parse(chunk, str(path), offset)
        for op in module.walk():
            if op.name not in FUNCTIONS or op.name == "stablehlo.return":
                continue
            new = rebuild(op)
            declared = [r.type for r in op.results]
            built = [r.type for r in new.results]
            if op.name in SHAPE_ONLY:
                assert built[0].element_type == op.operands[0].type.element_type  # type: ignore[attr-defined]
                built = [
                    tensor_type(d.element_type, b.get_shape()) for b, d in zip(built, declared)
                ]  # type: ignore[attr-defined]
            where = f"{path.name}: {op.name}"
            assert types_compatible(built, declared), (
                f"{where}: built {[type_to_str(t) for t in built]}, declared {[type_to_str(t) for t in declared]}"
            )
            assert len(new.regions) == len(op.regions), where
            # every property the op has is passed through unchanged (the rebuilt op may add the
            # defaults MLIR populates on creation)
            assert all(new.properties.get(k) == v for k, v in op.properties.items()), where
            checked += 1
    assert checked, f"{path.name} has no stablehlo/chlo op"
