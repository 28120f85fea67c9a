"""`inline`: replace each `func.call` of a function with a body by that body, then erase private
functions no longer referenced (MLIR's inliner followed by symbol DCE, as upstream's `-inline`).

Recursion is left in place as MLIR's inliner leaves it: a call to a function that calls itself is
not inlined, nor a call between two functions of one recursive cycle of the call graph, and a call
that inlining a function `F` produced is not inlined when it calls `F` again (MLIR's inline history),
so a call into a cycle is unrolled once around it.  MLIR's inliner also runs the canonicalizer on
the functions it visits; this pass does not."""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, SymbolRefAttr
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.rewriter import Rewriter

from stablehlo_py.passes.drivers._common import enclosing

PASS_NAME = "inline"
SUMMARY = "Inline calls to private functions and drop the dead ones"


def run(op: Operation, options: dict[str, object]) -> Operation:
    if not isinstance(op, ModuleOp):
        return op
    funcs = {f.sym_name.data: f for f in op.body.ops if isinstance(f, FuncOp)}
    calls = _call_graph(funcs)
    cycle = _recursive_cycles(calls)
    worklist: list[tuple[CallOp, frozenset[str]]] = [
        (c, frozenset()) for c in op.walk() if isinstance(c, CallOp)
    ]
    while worklist:
        call, history = worklist.pop()
        name = call.callee.root_reference.data
        callee = funcs.get(name)
        if callee is None or len(callee.body.blocks) != 1 or name in history or name in calls[name]:
            continue  # no body, unstructured, unrolled once already, or calling itself
        caller = enclosing(call, FuncOp)
        if name in cycle and caller is not None and cycle.get(caller.sym_name.data) == cycle[name]:
            continue  # a call inside a recursive cycle (or to the function itself)
        for new in _inline_call(call, callee):
            worklist += [(c, history | {name}) for c in new.walk() if isinstance(c, CallOp)]
    used = {name for o in op.walk() for name in _symbol_uses(o)}
    for name, f in funcs.items():
        vis = f.sym_visibility.data if f.sym_visibility is not None else "public"
        if vis == "private" and name not in used:
            Rewriter.erase_op(f)
    return op


def _call_graph(funcs: dict[str, FuncOp]) -> dict[str, set[str]]:
    """Each function's callees (among `funcs`)."""
    return {
        name: {c.callee.root_reference.data for c in f.walk() if isinstance(c, CallOp)} & funcs.keys()
        for name, f in funcs.items()
    }


def _recursive_cycles(calls: dict[str, set[str]]) -> dict[str, int]:
    """The functions on a cycle of the call graph, each mapped to its cycle's id (the strongly
    connected components with more than one function or a call to itself)."""
    reach: dict[str, set[str]] = {}
    for start in calls:
        seen: set[str] = set()
        stack = list(calls[start])
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack += calls[n]
        reach[start] = seen
    cycle: dict[str, int] = {}
    for i, name in enumerate(calls):
        if name in reach[name] and name not in cycle:
            for other in reach[name]:
                if name in reach[other]:
                    cycle[other] = i
    return cycle


def _symbol_uses(op: Operation) -> Iterator[str]:
    """The symbols an op's attributes name, also inside arrays and dictionaries (e.g. a custom
    call's `called_computations = [@f]`)."""
    stack: list[Attribute] = [*op.properties.values(), *op.attributes.values()]
    while stack:
        a = stack.pop()
        if isinstance(a, SymbolRefAttr):
            yield a.root_reference.data
        elif isinstance(a, ArrayAttr):
            stack += a.data
        elif isinstance(a, DictionaryAttr):
            stack += a.data.values()


def _inline_call(call: CallOp, callee: FuncOp) -> list[Operation]:
    """Replace `call` by a copy of `callee`'s body; returns the ops inserted."""
    src: Block = callee.body.blocks.first  # type: ignore[assignment]
    mapper = dict(zip(src.args, call.arguments))
    new_ops: list[Operation] = []
    results: list = []
    for o in src.ops:
        if isinstance(o, ReturnOp):
            results = [mapper.get(v, v) for v in o.arguments]
            break
        new_ops.append(o.clone(mapper))
    block = call.parent
    assert block is not None
    block.insert_ops_before(new_ops, call)
    for r, v in zip(call.results, results):
        r.replace_all_uses_with(v)
    Rewriter.erase_op(call)
    return new_ops
