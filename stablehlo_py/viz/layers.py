"""Where each op of a program sits in the graph view: its function, its node id and its layer.

- :func:`functions`: the functions of a module (``func.func``, and ``vhlo.func_v1`` in a VHLO
  view), nested modules included, by symbol name;
- :func:`node_keys`: a node id per op, the op key of :func:`~stablehlo_py.ir.text.name_stack.op_keys`
  (``<name-stack scope>/<op name>#<n>``; the same rule, over VHLO functions too), so node data
  recorded by op key (traces) lands on the right node;
- :func:`namespaces`: the layer of each op (Model Explorer's ``namespace``): the op's name-stack
  scope, and for an op inside a region, the layer of the region: ``<layer of the region
  op>/<label>_<k>/<region name>`` (``k`` counts the region ops of that label in that layer), then
  the part of the op's own scope below the region op's name stack, without its first segment (JAX
  names the region there: ``jit(f)/while/body/inner/add`` in a while op named ``jit(f)/while``
  sits in ``jit(f)/while_0/body/inner``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation

from stablehlo_py.ir.text.name_stack import NameStack, keyed_name_stacks, name_stack

__all__ = [
    "FUNCTION_OPS",
    "functions",
    "keys_and_stacks",
    "namespaces",
    "node_keys",
    "op_label",
    "region_names",
    "symbol_names",
]

FUNCTION_OPS = ("func.func", "vhlo.func_v1")
"""Ops that are functions: one graph each."""


def op_label(op: Operation) -> str:
    """The op name without its dialect prefix (``stablehlo.dot_general`` -> ``dot_general``)."""
    return op.name.partition(".")[2] or op.name


def symbol_names(attr: Attribute | None) -> list[str]:
    """The symbols an attribute names: ``@f`` (a symbol reference), ``"f"`` (a string, as VHLO
    writes callees), or an array of those; [] for anything else."""
    if attr is None:
        return []
    root = getattr(attr, "root_reference", None)
    if root is not None:
        return [root.data]
    data = getattr(attr, "data", None)
    if isinstance(data, str):
        return [data]
    if isinstance(data, tuple):
        return [name for item in data if isinstance(item, Attribute) for name in symbol_names(item)]
    return []


def _function_name(op: Operation) -> str | None:
    names = symbol_names(op.properties.get("sym_name") or op.attributes.get("sym_name"))
    return names[0] if names else None


def functions(module: Operation) -> list[tuple[str, Operation]]:
    """(symbol name, function op) for every function of ``module`` (or ``module`` itself when it
    is a function), nested modules included, in program order."""
    return list(_functions(module))


def _functions(root: Operation) -> Iterator[tuple[str, Operation]]:
    if root.name in FUNCTION_OPS:
        name = _function_name(root)
        if name is not None:
            yield name, root
        return
    if isinstance(root, ModuleOp):
        for op in root.body.block.ops:
            yield from _functions(op)


def node_keys(module: Operation) -> dict[Operation, str]:
    """The op key of every op inside the functions of ``module``: what ``op_keys`` gives for
    ``func.func`` bodies, by the same rule for the other function ops (VHLO's)."""
    return keys_and_stacks(module)[0]


def keys_and_stacks(
    module: Operation,
) -> tuple[dict[Operation, str], dict[Operation, NameStack]]:
    """(:func:`node_keys`, the name stack of every op), reading each location once
    (:func:`~stablehlo_py.ir.text.name_stack.keyed_name_stacks` over :func:`functions`)."""
    return keyed_name_stacks(functions(module))


def region_names(op: Operation) -> list[str]:
    """A name per region of ``op``: the op definition's (``cond``, ``body``, ``comparator``), with
    an index for a variadic one (``branches_0``); ``region<i>`` for ops without definitions
    (unregistered ops)."""
    count = len(op.regions)
    defs = _region_defs(type(op))
    if len(defs) == count and not any(variadic for _, variadic in defs):
        return [name for name, _ in defs]
    if len(defs) == 1 and defs[0][1]:
        return [f"{defs[0][0]}_{i}" for i in range(count)]
    return [f"region{i}" for i in range(count)]


def _region_defs(cls: type) -> list[tuple[str, bool]]:
    """(name, variadic) per region group of an op class: its IRDL definition's, or the table row
    of a VHLO op (``SPEC``)."""
    spec = getattr(cls, "SPEC", None)
    if spec is not None:
        return [(g.name, g.variadic) for g in spec.regions]
    definition = getattr(cls, "get_irdl_definition", None)
    if definition is None:
        return []
    return [
        (name, type(d).__name__.startswith(("Var", "Opt"))) for name, d in definition().regions
    ]


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


def _below(scope: str, parent: str) -> str:
    """The part of ``scope`` inside the region op named ``parent``, without the first segment (the
    region's own name in JAX's name stacks); "" for a scope not below it."""
    if not parent:
        return scope
    if scope.startswith(parent + "/"):
        return scope[len(parent) + 1 :].partition("/")[2]
    return ""


def namespaces(
    func: Operation, stacks: Callable[[Operation], NameStack] = name_stack
) -> tuple[dict[Operation, str], dict[Block, str]]:
    """(the layer of every op in ``func``'s body, the layer of every block inside a region op),
    as the module docstring says."""
    ops: dict[Operation, str] = {}
    blocks: dict[Block, str] = {}
    counters: dict[tuple[str, str], int] = {}
    for block in func.regions[0].blocks if func.regions else ():
        _assign(block, "", None, stacks, ops, blocks, counters)
    return ops, blocks


def _assign(
    block: Block,
    layer: str,
    parent: str | None,
    stacks: Callable[[Operation], NameStack],
    ops: dict[Operation, str],
    blocks: dict[Block, str],
    counters: dict[tuple[str, str], int],
) -> None:
    for op in block.ops:
        stack = stacks(op)
        ns = stack.scope if parent is None else _join(layer, _below(stack.scope, parent))
        ops[op] = ns
        if not op.regions:
            continue
        label = op_label(op)
        k = counters.get((ns, label), 0)
        counters[(ns, label)] = k + 1
        own = _join(stack.scope, stack.label) if stack.label else (parent or "")
        for rname, region in zip(region_names(op), op.regions):
            inner = _join(ns, f"{label}_{k}", rname)
            for b, sub in enumerate(region.blocks):
                sub_layer = inner if b == 0 else _join(inner, f"block{b}")
                blocks[sub] = sub_layer
                _assign(sub, sub_layer, own, stacks, ops, blocks, counters)

