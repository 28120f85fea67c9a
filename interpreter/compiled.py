"""Functions and regions compiled into Python functions.

Each block becomes one generated Python function (source built here and `compile()`d, once per
evaluator and block; the code object is also cached by source text across evaluators): its
arguments are the block's arguments, every op is one line `v7 = s3(v3, v5)` calling the op's
prepared `Step` (bound as a global of the generated code), values live in local variables (slots),
and the terminator is `return [v9]`.  A region is a nested `def` emitted just before the op that owns
it, so it reads the values of the enclosing blocks as ordinary Python closures; the op's step gets
its regions as a tuple of those functions (`while`, `if`, `case` call them directly).  A pure step
whose operands are all constants is run once here and its result bound as a constant (`_fold`),
read as a global where used.  A call to a callee of plain steps (`_inline`) is generated inline,
and a `while` as a Python loop with its condition and body inline (`_loop`).

Nothing is looked up or recorded per op on the fast path.  When an op fails, the traceback's deepest
frame inside generated code names the line, and the line the op (`ops_at`): errors read exactly as
before (`'stablehlo.divide' failed: ...` at the op's location).

An op without a compiler (or whose impl an `IMPL_WRAPPERS` hook replaced) runs through its impl:
`impl(evaluator, op, operands, env)` where `env` is a `RegionClosures` mapping each of the op's
regions to its compiled function, which `Evaluator.run_region` / `region_body` call.

Behaviour kept from the block-walking evaluator: an op the interpreter does not support fails when
its block is entered (before any of the block's ops run); a value that is not computed fails at the
op that uses it; a step that cannot be prepared (a bad attribute) fails when its op runs.

`compiled_plan.py` decides when a block is generated (a block without regions runs its first call
as a plan of the same steps instead).

A traced run (`observe.py`) generates its blocks with an observer: each reported op's line ends
with `; after1(ev, o5, (v7,))`, which passes the op and its results to the observer (before the
line's `del`).  Without an observer the generated code is as above.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter import fusion
from stablehlo_py.interpreter.fusion import FusedOps
from stablehlo_py.interpreter.observe import (
    CONTROL_FLOW,
    notify_compiled,
    reported_block,
    reporter,
)
from stablehlo_py.interpreter import shared_steps
from stablehlo_py.interpreter.registry import IMPLS, Impl, Step, step_of
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.side_data import INTERP_IMPL, INTERP_KEY, INTERP_STEP, data_of

_is = operator.is_
RETURN_OPS = frozenset({"func.return", "stablehlo.return", "chlo.return", "sdy.return"})
# Calls whose callee may be generated inline (`_Codegen._inline`).
CALL_OPS = frozenset({"func.call", "stablehlo.call"})
# Whether generated code inlines small callees (of at most INLINE_MAX_OPS ops: a callee is
# generated again at each of its calls); tests compare both ways.
INLINE_CALLS = True
INLINE_MAX_OPS = 64
# Steps of `while` ops -> the test of their condition's value (impls/control_flow.py): such a
# while is generated as a Python loop (`_Codegen._loop`) unless INLINE_LOOPS is off.
LOOP_STEPS: dict[Any, Callable[[Any], bool]] = {}
INLINE_LOOPS = True
# Hooks `(op, impl) -> impl` applied once per op when it is first compiled (e.g.
# impls/quantization.py wraps ops on quantized tensors as dequantize -> op -> quantize).
IMPL_WRAPPERS: list[Any] = []
# Exceptions of the numpy layer reported as "'op' failed: <type>: <message>" at the op.
CONVERTED_ERRORS = (
    ValueError,
    TypeError,
    IndexError,
    OverflowError,
    ZeroDivisionError,
    MemoryError,
)
_OPS_KEY = "__stablehlo_ops__"
# Code objects of loops that run prepared steps (compiled_plan.run_plan, fusion.run_ops): their
# frame's `op` is the op being run.
PLAN_RUNNERS: set[Any] = {fusion.run_ops.__code__}
# Whether blocks run chains of elementwise ops as one step (fusion.py); tests compare both ways.
FUSE = True
# The plan of a block's first calls fuses chains of tensors of at least this many elements.
PLAN_FUSE_MIN_ELEMENTS = 4096


class RegionClosures(dict):  # type: ignore[type-arg]
    """The `env` an impl receives in compiled code: each region of its op -> compiled function."""


_NO_REGIONS = RegionClosures()


def resolve_impl(op: Operation) -> Impl | None:
    """The op's impl after the `IMPL_WRAPPERS` hooks, decided once per op (None: unsupported)."""
    d = data_of(op)
    fn = d.get(INTERP_IMPL)
    if fn is None:
        fn = IMPLS.get(op.name)
        for wrap in IMPL_WRAPPERS:
            fn = wrap(op, fn)
        if fn is None:
            return None
        d[INTERP_IMPL] = fn
    return fn


def _op_key(op: Operation) -> tuple[Any, ...]:
    """What an op's kept impl and step were prepared from: the registry's impl for its name and the
    `IMPL_WRAPPERS` hooks, its class, its attribute names and objects, its types and, for an op with
    regions, the ops of its bodies with their operands and attributes (a region's kind is recognized
    from them).  xDSL attributes are immutable, so an edit replaces objects."""
    key = (
        IMPLS.get(op.name),
        *IMPL_WRAPPERS,
        type(op),
        *op.properties,
        *op.properties.values(),
        *op.attributes,
        *op.attributes.values(),
        *[v.type for v in operands_of(op)],
        *[r.type for r in op.results],
    )
    if not op.regions:
        return key
    body: list[Any] = []
    for region in op.regions:
        for block in region.blocks:
            body += [a.type for a in block.args]
            for inner in block.ops:
                body.append(inner)
                body += operands_of(inner)
                body += inner.properties.values()
                body += inner.attributes.values()
    return key + tuple(body)


def drop_if_edited(op: Operation) -> None:
    """Forget what was prepared and kept on `op` (its impl and step) when the op was edited in place
    since (a pass changed an attribute, a type or a region body): the next run prepares it again."""
    d = data_of(op)
    key = _op_key(op)
    old = d.get(INTERP_KEY)
    if old is not None and (len(old) != len(key) or not all(map(_is, old, key))):
        d.pop(INTERP_IMPL, None)
        d.pop(INTERP_STEP, None)
    d[INTERP_KEY] = key


def step_for(op: Operation) -> Step | None:
    """How the compiled code runs `op`: its compiler's step when its impl is the compiler's own
    (no hook wrapped it), else a step calling the impl.  None when the op is not supported.  A step
    that holds nothing of its op serves every op of the same content (`shared_steps.py`)."""
    shared = None
    if not op.regions:
        step, shared = shared_steps.find(op, IMPLS.get(op.name), IMPL_WRAPPERS)
        if step is not None:
            return step
    drop_if_edited(op)
    fn = resolve_impl(op)
    if fn is None:
        return None
    make = getattr(fn, "compiler", None)
    if make is None:
        step = _impl_step(op, fn)
    else:
        try:
            step = step_of(op, make)
        except Exception as e:  # noqa: BLE001 - raised when the op runs, as its impl would
            return Step(_raiser(e))
    if shared is not None:
        shared_steps.keep(shared, step)
    return step


def block_steps(
    block: Block, fuse: bool | None = None
) -> tuple[list[tuple[Any, Step | None]], Operation | None]:
    """A block's ops with their steps, up to its terminator (whose step is None), and None; or,
    when an op is not supported, the steps before it and that op (the block fails on entry).
    Chains of elementwise ops become one step each (`fusion.py`: a `FusedOps` in place of the
    op): with `fuse` True every chain (generated code), False none (a traced block: its observer
    sees every op), None only chains of at least `PLAN_FUSE_MIN_ELEMENTS` elements (the first
    calls, run as a plan by compiled_plan.py: on small tensors, deciding a chain costs more than
    it saves in a few runs)."""
    steps: list[tuple[Any, Step | None]] = []
    for op in block.ops:
        if op.name in RETURN_OPS:
            steps.append((op, None))
            break
        step = step_for(op)
        if step is None:
            return steps, op
        steps.append((op, step))
    if fuse is not False and FUSE:
        steps = fusion.fuse(steps, block.args, 0 if fuse else PLAN_FUSE_MIN_ELEMENTS)
    return steps, None


def _raiser(error: BaseException) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        raise error

    return fail


def _impl_step(op: Operation, fn: Impl) -> Step:
    if op.regions:
        regions = tuple(op.regions)

        def run_with_regions(ev: Any, closures: tuple[Any, ...], *args: Any) -> list[Any]:
            return fn(ev, op, list(args), RegionClosures(zip(regions, closures)))

        return Step(run_with_regions, ev=True, regions=True, multi=True)

    def run(ev: Any, *args: Any) -> list[Any]:
        return fn(ev, op, list(args), _NO_REGIONS)

    return Step(run, ev=True, multi=True)


# --------------------------------------------------------------------------------- code generation


def compile_block(block: Block, name: str, observer: Any = None) -> Callable[..., list[Any]]:
    """`block` as a Python function `f(evaluator, *block_args) -> results` (values of enclosing
    blocks are not visible: a function body, or a region run on its own), reporting its ops to
    `observer` when one is given (`observe.py`)."""
    gen = _Codegen(name)
    if observer is not None and reported_block(block):
        gen.after = gen.bind("after", reporter(observer))
    gen.block("entry", block, ["ev"])
    fn = gen.build()["entry"]
    if observer is not None:
        notify_compiled(observer)
    return fn


# Generated source -> code object: the source is a function of the blocks' structure only (the
# steps and constants are bound as globals), so a program run again by a new evaluator, or blocks
# of the same shape, skip Python's compiler (which costs more than generating the source).  The
# context's table (stablehlo_py/ir/context.py): bounded, emptied by `fresh_context()`.
_CODE_CACHE = CONTEXT.table("interpreter.compiled_code", 256)
# Ops whose operands are all known when compiling and whose step is a pure function of them (it
# takes neither the evaluator nor regions) are computed once, when their results have at most this
# many elements each (larger ones, e.g. in a branch that may not run, are computed when run).
FOLD_MAX_ELEMENTS = 1 << 16
# Python's tokenizer allows 100 levels of indentation: deeper regions fail when they run.
MAX_REGION_NESTING = 90


class _Codegen:
    def __init__(self, name: str) -> None:
        self.filename = f"<stablehlo-py compiled {name}>"
        self.lines: list[str] = []
        self.line_ops: list[Operation | None] = [None]  # index: line number (1-based)
        self.globals: dict[str, Any] = {}
        self.names: dict[SSAValue, str] = {}
        self.regions = 0
        self.scope_of: dict[SSAValue, int] = {}  # value -> the block (scope number) defining it
        self.open_scopes: set[int] = set()  # the blocks being generated (enclosing ones visible)
        self.scopes = 0
        self.known: dict[SSAValue, Any] = {}  # values computed when compiling (constants, folded)
        self.after: str | None = None  # the observer's report function, while its ops are reported
        self.counter = 0  # values named so far (v1, v2, ...)
        self.constants: set[SSAValue] = set()  # values computed when compiling, read as globals
        self.functions: dict[str, Any] | None = None  # the module's, for calls inlined

    def build(self) -> dict[str, Any]:
        source = "\n".join(self.lines) + "\n"
        code = _CODE_CACHE.get(source)
        if code is None:
            code = _CODE_CACHE.put(source, compile(source, "<stablehlo-py compiled>", "exec"))
        namespace: dict[str, Any] = dict(self.globals)
        namespace[_OPS_KEY] = self.line_ops
        namespace["__builtins__"] = {}
        exec(code, namespace)  # noqa: S102 - our own generated code
        return namespace

    def emit(self, indent: int, text: str, op: Operation | None) -> None:
        self.lines.append("    " * indent + text)
        self.line_ops.append(op)

    def value(self, v: SSAValue) -> str:
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = self._fresh()
        return name

    def bind(self, prefix: str, obj: Any) -> str:
        name = f"{prefix}{len(self.globals)}"
        self.globals[name] = obj
        return name

    def block(self, fname: str, block: Block, params: list[str]) -> None:
        indent = len(self.open_scopes)
        self.scopes += 1
        scope = self.scopes
        self.open_scopes.add(scope)
        try:
            self._block(fname, block, params, indent, scope)
        finally:
            self.open_scopes.discard(scope)

    def _block(self, fname: str, block: Block, params: list[str], indent: int, scope: int) -> None:
        args = [self.value(a) for a in block.args]
        self.emit(indent, f"def {fname}({', '.join(params + args)}):", None)
        inner = indent + 1
        for a in block.args:
            self.scope_of[a] = scope
        steps, missing = block_steps(block, fuse=self.after is None)
        if missing is not None:  # fails on entering the block, before any of its ops runs
            self.emit(inner, f"{self.bind('unsupported', _unsupported(missing))}()", missing)
            return
        if self._ops(steps, inner, scope) is None:
            self.emit(inner, "return []", None)

    def _fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def _ops(
        self, steps: list[tuple[Any, Step | None]], inner: int, scope: int, inlined: bool = False
    ) -> Any:
        """The lines of a block's ops (`steps`); None when it has no terminator, else True (its
        `return` line) or, for a callee `inlined`, the names of the values it returns (no line).
        False when an op reads a value not computed (its line raises)."""
        scope_of, open_scopes, known = self.scope_of, self.open_scopes, self.known
        names, lines, line_ops, bound = self.names, self.lines, self.line_ops, self.globals
        pad = "    " * inner
        frees = last_uses([op for op, _ in steps])
        for (op, step), dead in zip(steps, frees, strict=True):
            ins = op.operands
            for v in ins:
                if scope_of.get(v) not in open_scopes:
                    self.emit(inner, f"{self.bind('undefined', _undefined(op))}()", op)
                    return False
            operands = [names[v] for v in ins]
            if step is None:
                if inlined:
                    return operands
                self.emit(inner, f"return [{', '.join(operands)}]", op)
                return True
            outs = op.results
            if (
                op.name in CALL_OPS
                and INLINE_CALLS
                and self.after is None
                and self._inline(op, inner, scope, dead)
            ):
                continue
            test = LOOP_STEPS.get(step.fn) if self.after is None and INLINE_LOOPS else None
            if test is not None and self._loop(op, test, operands, inner, scope, dead):
                continue
            results = []
            for r in outs:
                name = names[r] = self._fresh()
                results.append(name)
                scope_of[r] = scope
            free = self._free(dead, scope)
            report = self.report(op, results)
            values = _fold(op, step, ins, outs, known)
            if values is not None and not report:  # read as globals where used: no line
                for r, v in zip(outs, values, strict=True):
                    known[r], names[r] = v, self.bind("k", v)
                    self.constants.add(r)
                free = self._free(dead, scope)
                if free:
                    self.emit(inner, free[2:], op)
                continue
            if values is not None:
                for r, name, v in zip(outs, results, values, strict=True):
                    known[r] = v
                    self.emit(inner, f"{name} = {self.bind('k', v)}", op)
                if report or free:
                    self.emit(inner, (report + free)[2:], op)
                continue
            call_args = ["ev"] if step.ev else []
            if step.regions:
                closures = [self.region(r, op) for r in op.regions]
                call_args.append("(" + "".join(c + ", " for c in closures) + ")")
            fn_name = f"s{len(bound)}"
            bound[fn_name] = step.fn
            call = f"{fn_name}({', '.join(call_args + operands)})"
            if not results:
                lines.append(pad + call + report + free)
            elif step.multi:
                lines.append(f"{pad}{''.join(r + ', ' for r in results)}= {call}{report}{free}")
            else:
                lines.append(f"{pad}{results[0]} = {call}{report}{free}")
            line_ops.append(op)
        return None

    def _free(self, dead: list[SSAValue], scope: int, more: tuple[str, ...] = ()) -> str:
        """`; del ...` of the values of this block (`scope`) used for the last time (`dead`) and
        of the names `more`: deleted on the op's own line (one op per line keeps error locations
        exact); outer blocks' values are theirs to free."""
        names, scope_of, constants = self.names, self.scope_of, self.constants
        gone = [names[v] for v in dead if scope_of.get(v) == scope and v not in constants]
        gone += more
        return "; del " + ", ".join(dict.fromkeys(gone)) if gone else ""

    def _owned(self, values: Any, names: list[str], scope: int) -> tuple[str, ...]:
        """The `names` of those `values` that block `scope` computed (its locals to free)."""
        scope_of, constants = self.scope_of, self.constants
        return tuple(
            n
            for v, n in zip(values, names, strict=True)
            if scope_of.get(v) == scope and v not in constants
        )

    def _inline(self, op: Operation, inner: int, outer: int, dead: list[SSAValue]) -> bool:
        """A call's callee generated in the caller's code (no evaluator call) when it is a single
        block of steps that take neither the evaluator nor regions (so it calls nothing, checks
        nothing and cannot recurse); its ops keep their own lines (errors located at them).  False
        when the call runs as a step."""
        block = self._callee(op)
        if block is None:
            return False
        steps, missing = block_steps(block, fuse=True)
        if missing is not None or not steps or steps[-1][1] is not None:
            return False
        for _, step in steps[:-1]:
            if step.ev or step.regions:
                return False
        if len(steps[-1][0].operands) != len(op.results):
            return False
        names, scope_of, known = self.names, self.scope_of, self.known
        for inner_op in block.ops:  # computed when inlined at another call, maybe not here
            for r in inner_op.results:
                known.pop(r, None)
        for a, v in zip(block.args, op.operands, strict=True):
            names[a], scope_of[a] = names[v], scope_of[v]
            if v in known:
                known[a] = known[v]
            else:
                known.pop(a, None)
        self.scopes += 1
        scope = self.scopes
        self.open_scopes.add(scope)
        try:
            returned = self._ops(steps, inner, scope, inlined=True)
        finally:
            self.open_scopes.discard(scope)
        results = []
        for r in op.results:
            results.append(self._fresh())
            names[r], scope_of[r] = results[-1], outer
        ret = steps[-1][0].operands
        free = self._free(dead, outer, self._owned(ret, returned, scope))
        if results:
            self.emit(inner, f"{', '.join(results)} = {', '.join(returned)}{free}", op)
        elif free:
            self.emit(inner, free[2:], op)
        return True

    def _loop(
        self,
        op: Operation,
        test: Any,
        operands: list[str],
        inner: int,
        outer: int,
        dead: list[SSAValue],
    ) -> bool:
        """A `while` generated as a Python loop in the block's code: its condition's and body's
        ops inline (their own lines), the carried values in fresh locals, `test(c)` deciding
        whether to go on (`LOOP_STEPS`).  False (nothing emitted) when a region is not one block
        of supported ops that reads only values computed before it."""
        if len(op.regions) != 2:
            return False
        cond, body = (r.blocks.first for r in op.regions)
        if not op.operands or cond is None or body is None or len(cond.args) != len(op.operands):
            return False
        if len(body.args) != len(op.operands) or len(op.results) != len(op.operands):
            return False
        names, scope_of, known, lines = self.names, self.scope_of, self.known, self.lines
        mark = len(lines)
        carried = [self._fresh() for _ in op.operands]
        for block in (cond, body):  # carried values: the loop's, never freed inside it
            for a, name in zip(block.args, carried, strict=True):
                names[a], scope_of[a] = name, outer
                known.pop(a, None)
        c = self._fresh()
        t = self.bind("test", test)
        self.emit(inner, f"{', '.join(carried)}, = {''.join(o + ', ' for o in operands)}", op)
        self.emit(inner, "while True:", op)
        ok = False
        for block, last in ((cond, False), (body, True)):
            steps, missing = block_steps(block, fuse=True)
            if missing is not None or not steps or steps[-1][1] is not None:
                break
            n = len(steps[-1][0].operands)
            if n != (len(carried) if last else 1):
                break
            self.scopes += 1
            scope = self.scopes
            self.open_scopes.add(scope)
            try:
                returned = self._ops(steps, inner + 1, scope, inlined=True)
            finally:
                self.open_scopes.discard(scope)
            if returned is None or returned is False or returned is True:
                break
            if not last:
                self.emit(inner + 1, f"{c} = {returned[0]}", op)
                self.emit(inner + 1, f"if not {t}({c}): break", op)
                continue
            gone = self._owned(steps[-1][0].operands, returned, scope)
            tail = "; del " + ", ".join(dict.fromkeys(gone)) if gone else ""
            self.emit(inner + 1, f"{', '.join(carried)}, = {', '.join(returned)},{tail}", op)
            ok = True
        if not ok:  # as a step after all
            del lines[mark:], self.line_ops[mark + 1 :]
            return False
        results = []
        for r in op.results:
            results.append(self._fresh())
            names[r], scope_of[r] = results[-1], outer
            known.pop(r, None)
        done = self._free(dead, outer, (c, *carried))
        self.emit(inner, f"{', '.join(results)}, = {', '.join(carried)},{done}", op)
        return True

    def _callee(self, op: Operation) -> Block | None:
        """The body of a call's callee when it can be inlined (see `_inline`), else None."""
        funcs = self.functions
        if funcs is None:
            funcs = self.functions = _root_functions(op)
        callee = op.properties.get("callee")
        func = funcs.get(getattr(getattr(callee, "root_reference", None), "data", None))
        if func is None:
            return None
        block = func.body.blocks.first
        if block is None or block.next_block is not None or len(block.args) != len(op.operands):
            return None
        defined = set(block.args)  # every value defined before its use, in the block itself
        for count, inner in enumerate(block.ops):
            if count >= INLINE_MAX_OPS or inner.regions:
                return None
            if not all(v in defined for v in inner.operands):
                return None
            defined.update(inner.results)
        return block

    def region(self, region: Region, owner: Operation) -> str:
        self.regions += 1
        fname = f"r{self.regions}"
        block = region.blocks.first
        if block is None or len(self.open_scopes) >= MAX_REGION_NESTING:
            fail = _empty_region if block is None else _too_deep(owner)
            indent = len(self.open_scopes)
            self.emit(indent, f"def {fname}(*args):", None)
            self.emit(indent + 1, f"{self.bind('fail', fail)}()", owner)
        else:
            after = self.after
            if owner.name not in CONTROL_FLOW:
                self.after = None  # a computation applied to elements: not reported
            try:
                self.block(fname, block, [])
            finally:
                self.after = after
        return fname

    def report(self, op: Operation, results: list[str]) -> str:
        """`; after1(ev, o5, (v7, v8, ))` when the op is reported, else ''."""
        if self.after is None:
            return ""
        return f"; {self.after}(ev, {self.bind('o', op)}, ({''.join(r + ', ' for r in results)}))"


def _root_functions(op: Operation) -> dict[str, Any]:
    """The functions of the module holding `op` when that module is the outermost op (those an
    evaluator's calls name), else none."""
    module, root = None, op
    while (parent := root.parent_op()) is not None:
        root = parent
        if module is None and isinstance(root, ModuleOp):
            module = root
    if module is None or module is not root:
        return {}
    return {f.sym_name.data: f for f in module.body.ops if isinstance(f, FuncOp)}


def last_uses(ops: list[Operation]) -> list[list[SSAValue]]:
    """For each of a block's ops (in order), the values it uses for the last time: the op's operands
    and the outer values the ops nested in its regions read (their closures hold them until the op
    is done).  Freed right after that op, a block's intermediate values live no longer than needed
    (a long program's peak memory is its live values', not all it computed)."""
    last: dict[SSAValue, int] = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            last[v] = i
        if op.regions:
            for inner in op.walk():
                for v in inner.operands:
                    last[v] = i
    frees: list[list[SSAValue]] = [[] for _ in ops]
    for v, i in last.items():
        frees[i].append(v)
    for i, op in enumerate(ops):  # results nothing uses: freed at once
        frees[i].extend(r for r in op.results if r not in last)
    return frees


def _fold(
    op: Operation, step: Step, ins: Any, outs: Any, known: dict[SSAValue, Any]
) -> list[Any] | None:
    """The op's results when they can be computed now (see FOLD_MAX_ELEMENTS), else None."""
    if step.is_constant:
        return [step.value]
    if step.ev or step.regions or not outs:
        return None
    for v in ins:
        if v not in known:
            return None
    inputs = [known[v] for v in ins]
    for r in outs:
        t = r.type
        if not isinstance(t, TensorType):
            return None
        n = 1
        for d in t.get_shape():
            if d < 0:
                return None
            n *= d
        if n > FOLD_MAX_ELEMENTS:
            return None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = step.fn(*inputs)
    except Exception:  # noqa: BLE001 - not folded: the op raises when it runs, at its location
        return None
    values = list(out) if step.multi else [out]
    if len(values) != len(outs):
        return None
    for v in values:
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    return values


def _unsupported(op: Operation) -> Callable[[], None]:
    def fail() -> None:
        raise NotSupportedError(
            f"the interpreter does not support '{op.name}' yet", location=_loc(op)
        )

    return fail


def _undefined(op: Operation) -> Callable[[], None]:
    def fail() -> None:
        raise InterpreterError(f"'{op.name}' uses a value that was not computed", location=_loc(op))

    return fail


def _empty_region() -> None:
    raise InterpreterError("cannot run an empty region")


def _too_deep(op: Operation) -> Callable[[], None]:
    def fail() -> None:
        raise NotSupportedError(
            f"'{op.name}': regions nested more than {MAX_REGION_NESTING} deep are not supported by "
            "the interpreter (each nested region is a nested Python function); move the inner "
            "regions into functions called with func.call",
            location=_loc(op),
        )

    return fail


# ------------------------------------------------------------------------------------------ errors


def ops_at(tb: Any) -> list[Operation]:
    """The ops of generated code on a traceback, outermost first (the last one raised)."""
    ops: list[Operation] = []
    while tb is not None:
        frame = tb.tb_frame
        line_ops = frame.f_globals.get(_OPS_KEY)
        if line_ops is not None:
            op = line_ops[tb.tb_lineno]
            if op is not None and type(op) is not FusedOps:  # its frame below names the op
                ops.append(op)
        elif frame.f_code in PLAN_RUNNERS:
            op = frame.f_locals.get("op")
            if op is not None and type(op) is not FusedOps:
                ops.append(op)
        tb = tb.tb_next
    return ops


def run_located(fn: Callable[..., list[Any]], *args: Any) -> list[Any]:
    """Call compiled code; an error gets the location of the op that raised it (of the innermost
    enclosing op that has one when that op has none), in the words of the block-walking evaluator."""
    try:
        return fn(*args)
    except (InterpreterError, NotSupportedError) as e:
        if e.location is None:
            ops = ops_at(e.__traceback__)
            if ops:
                e.location = _first_location(ops)
                e.args = (e.render(),)
        raise
    except CONVERTED_ERRORS as e:
        ops = ops_at(e.__traceback__)
        if not ops:
            raise
        message = f"'{ops[-1].name}' failed: {type(e).__name__}: {e}"
        raise InterpreterError(message, location=_first_location(ops)) from None


def _first_location(ops: list[Operation]) -> str | None:
    for op in reversed(ops):
        loc = _loc(op)
        if loc is not None:
            return loc
    return None


def _loc(op: Operation) -> str | None:
    from stablehlo_py.ir.verify import op_location

    return op_location(op)
