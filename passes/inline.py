"""`inline`: replace each `func.call` of a function with a body by that body, then erase private
functions no longer referenced (MLIR's inliner followed by symbol DCE, as upstream's `-inline`)."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import StableHLOError


def run(op: Operation, options: dict[str, object]) -> Operation:
    if not isinstance(op, ModuleOp):
        return op
    funcs = {f.sym_name.data: f for f in op.body.ops if isinstance(f, FuncOp)}
    changed = True
    depth = 0
    while changed:
        changed = False
        depth += 1
        if depth > 64:
            raise StableHLOError("inlining did not terminate: the call graph is recursive")
        for call in [c for c in op.walk() if isinstance(c, CallOp)]:
            callee = funcs.get(call.callee.root_reference.data)
            if callee is None or not callee.body.blocks or len(callee.body.blocks) != 1:
                continue
            _inline_call(call, callee)
            changed = True
    used = {
        a.root_reference.data
        for o in op.walk()
        for a in list(o.properties.values()) + list(o.attributes.values())
        if isinstance(a, SymbolRefAttr)
    }
    for name, f in funcs.items():
        vis = f.sym_visibility.data if f.sym_visibility is not None else "public"
        if vis == "private" and name not in used:
            Rewriter.erase_op(f)
    return op


def _inline_call(call: CallOp, callee: FuncOp) -> None:
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
