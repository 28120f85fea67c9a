"""`stablehlo-wrap-in-composite{op-names=... version=N}`: upstream's StablehloWrapInComposite.cpp.

Every op whose name is in `op-names` becomes a `stablehlo.composite` named after the op, with the op's
attributes (properties and attributes, as MLIR's `getAttrs()`) as `composite_attributes`, the given
`version`, and a `decomposition` function that holds a copy of the op:

    %0 = stablehlo.add %a, %b : tensor<2xf32>
    ->
    %0 = stablehlo.composite "stablehlo.add" %a, %b {decomposition = @stablehlo.add.impl} : ...
    func.func private @stablehlo.add.impl(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
      return %0 : tensor<2xf32>
    }

As upstream:
* the decomposition is a private function appended at the end of the enclosing module, named
  `<op name>.impl`; a name already taken gets MLIR's SymbolTable uniquing suffix `_0`, `_1`, ...
  (the first free one); the function, its copy of the op and its return carry the op's location;
* the rewrite goes through the greedy driver (`drivers/greedy.py`, bottom-up) on the module with
  MLIR's `ExistingOps` strictness: only ops present before the pass are wrapped (the copies inside
  the decomposition functions are not), so the ops are visited last-first and the decomposition
  functions appear in that order; ops nested in an op that is wrapped go with it;
* an op without an enclosing `builtin.module` is left as it is;
* a name in `op-names` that is not a registered operation is skipped with upstream's warning on
  stderr ("Warning: Unknown op name in opNamesOption: 'x' is not a registered operation.").
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from stablehlo_py.passes.drivers._common import carry_location, enclosing
from stablehlo_py.passes.drivers.greedy import GreedyConfig, apply_patterns_greedily
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.passes.drivers.options import PassOption

__all__ = [
    "WrapInCompositePattern",
    "registered_op_names",
    "run",
    "unique_symbol_name",
    "wrap_in_composite",
]

PASS_NAME = "stablehlo-wrap-in-composite"
SUMMARY = "Wraps a non-composite  StableHLO op in a composite op."
OPTIONS = (
    PassOption("op-names", "list", [], "The names of the ops to wrap."),
    PassOption("version", "int32", 0, "The version number of the composite op."),
)

IMPL_SUFFIX = ".impl"


def run(op: Operation, options: dict[str, object]) -> Operation:
    names = options["op-names"]
    version = options["version"]
    assert isinstance(names, list) and isinstance(version, int)
    return wrap_in_composite(op, [str(n) for n in names], version)


def registered_op_names(op_names: Sequence[str]) -> list[str]:
    """The names of `op_names` (trimmed) that are registered operations; each other one gets
    upstream's warning on stderr."""
    from stablehlo_py.ir.dialects import default_registry

    known = default_registry().ops
    out: list[str] = []
    for raw in op_names:
        name = raw.strip()
        if name not in known:
            print(
                f"Warning: Unknown op name in opNamesOption: '{name}' is not a registered "
                "operation.",
                file=sys.stderr,
            )
            continue
        out.append(name)
    return out


def wrap_in_composite(module: Operation, op_names: Sequence[str], version: int = 0) -> Operation:
    """Wrap the ops of `module` named in `op_names` in composites (in place); returns `module`."""
    names = frozenset(registered_op_names(op_names))
    if not names:
        return module
    existing = frozenset(o for o in module.walk() if o is not module)
    pattern = WrapInCompositePattern(names, version, existing)
    # the pass has no failure of its own; the driver's iteration limit is never reached as the
    # pattern only applies to ops present at the start
    apply_patterns_greedily(module, [pattern], config=GreedyConfig())
    return module


def unique_symbol_name(taken: set[str], name: str) -> str:
    """MLIR's SymbolTable::insert renaming: `name` when free, else `name_0`, `name_1`, ... (the
    first free one)."""
    if name not in taken:
        return name
    counter = 0
    while f"{name}_{counter}" in taken:
        counter += 1
    return f"{name}_{counter}"


def _symbol_names(module: ModuleOp) -> set[str]:
    out: set[str] = set()
    for o in module.body.block.ops:
        sym = o.properties.get("sym_name") or o.attributes.get("sym_name")
        if isinstance(sym, StringAttr):
            out.add(sym.data)
    return out


def build_decomposition(op: Operation, module: ModuleOp) -> FuncOp:
    """upstream's buildFuncOpWrappingOperation: a private function at the end of `module` whose body
    is a copy of `op` on the function's arguments, returning its results."""
    name = unique_symbol_name(_symbol_names(module), op.name + IMPL_SUFFIX)
    operand_types = [v.type for v in op.operands]
    result_types = [r.type for r in op.results]
    block = Block(arg_types=operand_types)
    clone = op.clone()
    for i, arg in enumerate(block.args):
        clone.operands[i] = arg  # type: ignore[index]
    block.add_op(clone)
    ret = carry_location(ReturnOp(*clone.results), op)
    block.add_op(ret)
    func = FuncOp.create(
        properties={
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(operand_types, result_types),
            "sym_visibility": StringAttr("private"),
        },
        regions=[Region(block)],
    )
    carry_location(func, op)
    module.body.block.add_op(func)
    return func


def composite_attributes(op: Operation) -> DictionaryAttr:
    """The op's inherent and discardable attributes (MLIR's `getAttrs()`), as one dictionary."""
    attrs: dict[str, Attribute] = {**op.properties, **op.attributes}
    return DictionaryAttr(dict(sorted(attrs.items())))


class WrapInCompositePattern(RewritePattern):
    """upstream's ConvertGenericOp for the ops named in `names` (present in `existing`)."""

    def __init__(self, names: frozenset[str], version: int, existing: frozenset[Operation]):
        self.names = names
        self.version = version
        self.existing = existing

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        from stablehlo_py.ir.ops.control_flow import CompositeOp

        if op.name not in self.names or op not in self.existing:
            return
        module = enclosing(op, ModuleOp)
        if module is None:
            return  # upstream: notifyMatchFailure "Failed to find enclosing module"
        decomposition = build_decomposition(op, module)
        composite = CompositeOp.create(
            operands=list(op.operands),
            result_types=[r.type for r in op.results],
            properties={
                "name": StringAttr(op.name),
                "composite_attributes": composite_attributes(op),
                "decomposition": SymbolRefAttr(decomposition.sym_name.data),
                "version": IntegerAttr(self.version, IntegerType(32)),
            },
        )
        carry_location(composite, op)
        rewriter.replace(op, composite)
