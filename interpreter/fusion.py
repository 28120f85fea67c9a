"""Chains of elementwise ops run as one step: one generated Python function per chain.

`fuse(steps)` takes a block's prepared steps (`compiled.block_steps`) and replaces each group of
elementwise ops that feed one another (a *chain*, decided once from the static types) by one step
whose op is a `FusedOps`: its operands are the values the chain reads from outside, its results the
values read after it.  Both tiers run it as any other step (`compiled_plan.run_plan`, and one line
of generated code).  The chain's function runs where its last op stood (its ops are pure: moving
them past ops that do not read their values changes nothing) and computes:

* f32/f64 `add`/`subtract`/`multiply`/`divide`/`remainder`, integer and boolean ufunc ops as the
  bare numpy ufunc, reusing an intermediate's buffer (`out=`) once nothing else reads it;
  f16/f32/f64 `maximum`/`minimum` as `np.maximum`/`np.minimum`;
* every other op by its own prepared step (`step.fn`, the same call as unfused);
* a `broadcast_in_dim` feeding a bare ufunc, of a 0-d value or of size-1 dimensions (`32x1` to
  `32x64`, as softmax and layer norm divide by a row's sum), as its operand: numpy broadcasts it,
  each element is computed as before, and the broadcast array is not made.

The bare ufuncs differ from the prepared steps only in ways the chain checks: a float op's invalid
operation gives x86's -NaN where the semantics give +NaN, and numpy's maximum/minimum return
either zero of a (+0, -0) pair.  So where such a value could reach a result, the function tests it
(one `vdot` for NaN: every op on the way propagates NaN, so no NaN at the end means none on the
way; a bit test for the zero of the wrong sign) and, if it is there, runs the ops one by one with
their own steps (`run_ops`).  It does the same on operands of unexpected types or shapes and on any
exception, so an error is raised by the op that fails, in its own words and at its own location
(`run_ops`' frame names the op, as `compiled_plan.run_plan`'s does).  The results are the bits the
unfused steps give (tests/unit/interpreter/test_fusion.py compares them over random chains).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.registry import Step
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from stablehlo_py.ir.context import CONTEXT

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_INTS = frozenset(np.dtype(f"{k}{n}") for k in "iu" for n in (1, 2, 4, 8))
_BOOL = np.dtype(np.bool_)

# op name -> numpy ufunc that computes it, bit for bit, on the dtypes named (see the module doc)
_FLOAT_ARITH = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
                "divide": np.divide, "remainder": np.fmod}
_EXTREMA = {"maximum": np.maximum, "minimum": np.minimum}
_INT_UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
               "maximum": np.maximum, "minimum": np.minimum, "and": np.bitwise_and,
               "or": np.bitwise_or, "xor": np.bitwise_xor, "not": np.invert}
_BOOL_UFUNCS = {"add": np.logical_or, "multiply": np.logical_and, "maximum": np.logical_or,
                "minimum": np.logical_and, "and": np.logical_and, "or": np.logical_or,
                "xor": np.logical_xor, "not": np.logical_not}
# Ops whose result is NaN when an operand is (on real float types).
_NAN_PROPAGATING = frozenset({
    *_FLOAT_ARITH, *_EXTREMA, "negate", "abs", "exponential", "exponential_minus_one", "log",
    "log_plus_one", "sqrt", "rsqrt", "tanh", "sine", "cosine", "tan", "cbrt", "logistic",
})
# The elementwise ops a chain may hold (their steps are pure functions of the operands).
_ELEMENTWISE = frozenset({
    *_NAN_PROPAGATING, *_INT_UFUNCS, "atan2", "ceil", "clamp", "compare", "complex", "convert",
    "count_leading_zeros", "floor", "imag", "is_finite", "popcnt", "power", "real",
    "round_nearest_afz", "round_nearest_even", "select", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign",
})
_UINT = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}

# Ops in one chain at most (one generated function; Python compiles a long one slowly).
MAX_CHAIN = 32
# Generated source -> code object (chains of the same shape share it), as compiled._CODE_CACHE.
_CODE_CACHE = CONTEXT.table("interpreter.fused_code", 256)


class FusedOps:
    """A chain of ops run as one step, standing in the block's step list where its last op stood:
    `operands` the values it reads from outside, `results` those read after it, `ops` its ops."""

    __slots__ = ("name", "operands", "ops", "regions", "results")

    def __init__(self, ops: list[Operation], operands: list[SSAValue], results: list[SSAValue]):
        self.ops = tuple(ops)
        self.operands = tuple(operands)
        self.results = tuple(results)
        self.regions = ()
        self.name = "fused(" + ", ".join(op.name for op in ops) + ")"


class _Member:
    """How a chain computes one op: `ufunc` (bare numpy) or None (its step), and what to test."""

    __slots__ = ("check", "dtype", "op", "propagates", "shape", "step", "ufunc")

    def __init__(self, op: Operation, step: Step, shape: tuple[int, ...], d: np.dtype[Any]):
        self.op, self.step, self.shape, self.dtype = op, step, shape, d
        name = op.name[len("stablehlo.") :]
        same = all(_dtype(v) is d for v in op.operands)
        self.ufunc: Any = None
        self.check: str | None = None  # "nan": may give -NaN; "max0"/"min0": may give the wrong 0
        if same and d in (_F32, _F64) and name in _FLOAT_ARITH:
            self.ufunc, self.check = _FLOAT_ARITH[name], "nan"
        elif same and d in (_F16, _F32, _F64) and name in _EXTREMA:
            self.ufunc, self.check = _EXTREMA[name], "max0" if name == "maximum" else "min0"
        elif same and d in _INTS and name in _INT_UFUNCS:
            self.ufunc = _INT_UFUNCS[name]
        elif same and d is _BOOL and name in _BOOL_UFUNCS:
            self.ufunc = _BOOL_UFUNCS[name]
        if shape == ():  # a ufunc gives numpy scalars there: the step (which gives arrays) runs
            self.ufunc = self.check = None
        self.propagates = same and d.kind == "f" and name in _NAN_PROPAGATING


def _dtype(v: SSAValue) -> np.dtype[Any] | None:
    return _type_info(v.type)[1]


def _static(v: SSAValue) -> tuple[int, ...] | None:
    return _type_info(v.type)[0]


# type -> (its static shape or None, its element dtype or None); types are immutable
_TYPE_INFO = CONTEXT.table("interpreter.fusion_types", 4096)


def _type_info(t: Any) -> tuple[tuple[int, ...] | None, np.dtype[Any] | None]:
    info = _TYPE_INFO.get(t)
    if info is None:
        shape = None
        if isinstance(t, TensorType):
            dims = tuple(t.get_shape())
            shape = dims if all(n >= 0 for n in dims) else None
        try:
            d = dtype_of_type(t)
        except Exception:  # noqa: BLE001 - an unusual type (quantized...): not fused
            d = None
        info = _TYPE_INFO.put(t, (shape, d))
    return info  # type: ignore[no-any-return]


def _member(op: Operation, step: Step | None) -> _Member | None:
    if (
        step is None
        or step.is_constant
        or step.ev
        or step.regions
        or step.multi
        or op.regions
        or len(op.results) != 1
        or not op.name.startswith("stablehlo.")
        or op.name[len("stablehlo.") :] not in _ELEMENTWISE
    ):
        return None
    shape = _static(op.results[0])
    d = _dtype(op.results[0])
    if shape is None or d is None or not op.operands:
        return None
    for v in op.operands:
        if _static(v) != shape or _dtype(v) is None:
            return None
    return _Member(op, step, shape, d)


def _numpy_broadcast(op: Operation, step: Step | None) -> bool:
    """A `broadcast_in_dim` that numpy's broadcasting does by itself (static shapes, the same
    element type): of a 0-d value, or of a value of the same rank whose dimensions map in order
    and are each 1 or the result's."""
    if op.name != "stablehlo.broadcast_in_dim" or step is None or step.ev or step.is_constant:
        return False
    if len(op.operands) != 1 or len(op.results) != 1:
        return False
    src, res = op.operands[0], op.results[0]
    shape, result = _static(src), _static(res)
    if shape is None or result is None or not _dtype(src) is _dtype(res) is not None:
        return False
    if shape == ():
        return True
    attr = op.properties.get("broadcast_dimensions")
    try:
        dims = [int(x) for x in attr.get_values()]  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - not a dense array: the op's own step reports it
        return False
    return (
        dims == list(range(len(result)))
        and len(shape) == len(result)
        and all(n in (1, m) for n, m in zip(shape, result, strict=True))
    )


class _Group:
    __slots__ = ("closed", "members")

    def __init__(self) -> None:
        self.members: list[int] = []
        self.closed = False


def fuse(
    steps: list[tuple[Any, Step | None]], block_args: Any, min_elements: int = 0
) -> list[tuple[Any, Step | None]]:
    """`steps` (a block's ops and steps, in order) with each chain of two or more elementwise ops
    (or one reading a broadcast scalar) replaced by one `FusedOps` step where its last op stood.
    A chain reads only `block_args` and values of ops before it in the block (values of enclosing
    blocks, and a value used before it is defined, are left to the unfused steps' checks).
    Only ops whose results have at least `min_elements` elements join a chain."""
    args = set(block_args)
    position: dict[SSAValue, int] = {}  # value -> index of the op defining it in this block
    members: dict[int, _Member] = {}
    broadcasts: set[int] = set()
    for i, (op, step) in enumerate(steps):
        m = _member(op, step)
        if m is not None and math.prod(m.shape) < min_elements:
            m = None
        if m is not None and all(v in position or v in args for v in op.operands):
            members[i] = m
        elif _numpy_broadcast(op, step):
            broadcasts.add(i)
        for r in op.results:
            position[r] = i
    if len(members) < 2 and not broadcasts:
        return steps
    group_of: dict[int, _Group] = {}
    for i, (op, _) in enumerate(steps):
        reads = list(op.operands)
        if op.regions:
            reads += [v for inner in op.walk() for v in inner.operands]
        joined: list[_Group] = []
        if i in members:
            for v in op.operands:
                g = group_of.get(position.get(v, -1))
                if g is not None and not g.closed and g not in joined:
                    joined.append(g)
        for v in reads:  # a value read outside its chain: the chain runs before this op
            g = group_of.get(position.get(v, -1))
            if g is not None and g not in joined:
                g.closed = True
        if i not in members:
            continue
        group = _Group()
        for g in joined:  # chains meeting at this op run as one
            group.members += g.members
            for j in g.members:
                group_of[j] = group
        group.members.append(i)
        group.members.sort()
        group_of[i] = group
        group.closed = len(group.members) >= MAX_CHAIN  # a long one: the next chain starts
    users: dict[SSAValue, list[int]] = {}
    for i, (op, _) in enumerate(steps):
        reads = list(op.operands)
        if op.regions:
            reads += [v for inner in op.walk() for v in inner.operands]
        for v in reads:
            users.setdefault(v, []).append(i)
    groups = {id(g): g for g in group_of.values()}.values()
    replaced: dict[int, tuple[Any, Step]] = {}
    skipped: set[int] = set()
    absorbed_by: dict[int, set[int]] = {}  # broadcast index -> member indices reading its scalar
    plans = []
    for g in groups:
        absorb = _absorbed(g.members, members, steps, position, broadcasts)
        if len(g.members) < 2 and not absorb:
            continue
        plans.append((g, absorb))
        for i, bs in absorb.items():
            for b in bs:
                absorbed_by.setdefault(b, set()).add(i)
    for g, absorb in plans:
        fused = _build(g.members, members, steps, position, users, absorb)
        replaced[g.members[-1]] = fused
        skipped.update(g.members[:-1])
    for b, readers in absorbed_by.items():  # a broadcast only fused chains read: not made at all
        if set(users.get(steps[b][0].results[0], [])) <= readers:
            skipped.add(b)
    out: list[tuple[Any, Step | None]] = []
    for i, pair in enumerate(steps):
        if i in replaced:
            out.append(replaced[i])
        elif i not in skipped:
            out.append(pair)
    return out


def _absorbed(
    chain: list[int],
    members: dict[int, _Member],
    steps: list[tuple[Any, Step | None]],
    position: dict[SSAValue, int],
    broadcasts: set[int],
) -> dict[int, list[int]]:
    """member index -> the broadcasts (indices) whose operand it reads instead of their result:
    bare-ufunc members only, keeping at least one full-shape operand."""
    out: dict[int, list[int]] = {}
    for i in chain:
        m = members[i]
        if m.ufunc is None:
            continue
        bs = [position[v] for v in m.op.operands if position.get(v, i) in broadcasts]
        if bs and len(bs) < len(m.op.operands):
            out[i] = bs
    return out


def _build(
    chain: list[int],
    members: dict[int, _Member],
    steps: list[tuple[Any, Step | None]],
    position: dict[SSAValue, int],
    users: dict[SSAValue, list[int]],
    absorb: dict[int, list[int]],
) -> tuple[FusedOps, Step]:
    in_chain = set(chain)
    inner = {members[i].op.results[0] for i in chain}
    scalar_of = {  # a broadcast's result -> its operand, for the members absorbing it
        steps[b][0].results[0]: steps[b][0].operands[0] for bs in absorb.values() for b in bs
    }
    absorbed = {i: {steps[b][0].results[0] for b in absorb.get(i, ())} for i in chain}
    inputs: list[SSAValue] = []  # read from outside, in order of first use (fallback's too)
    fallback: list[tuple[Operation, Callable[..., Any], list[SSAValue]]] = []
    for b in sorted({b for bs in absorb.values() for b in bs}):
        bop, bstep = steps[b]
        fallback.append((bop, bstep.fn, [bop.operands[0]]))  # type: ignore[union-attr]
        if bop.operands[0] not in inputs:
            inputs.append(bop.operands[0])
    for i in chain:
        op = members[i].op
        fallback.append((op, members[i].step.fn, list(op.operands)))
        for v in op.operands:
            if v not in inner and v not in absorbed[i] and v not in inputs:
                inputs.append(v)
    outputs = [
        members[i].op.results[0]
        for i in chain
        if not users.get(members[i].op.results[0])
        or any(u not in in_chain for u in users[members[i].op.results[0]])
    ]
    ops = [members[i].op for i in chain]
    group = FusedOps(ops, inputs, outputs)
    fn = _generate(chain, members, inputs, outputs, scalar_of, absorbed, users, fallback)
    return group, Step(fn, multi=len(outputs) != 1)


def _generate(
    chain: list[int],
    members: dict[int, _Member],
    inputs: list[SSAValue],
    outputs: list[SSAValue],
    scalar_of: dict[SSAValue, SSAValue],
    absorbed: dict[int, set[SSAValue]],
    users: dict[SSAValue, list[int]],
    fallback: list[tuple[Operation, Callable[..., Any], list[SSAValue]]],
) -> Callable[..., Any]:
    env: dict[str, Any] = {"ND": np.ndarray, "vdot": np.vdot, "isnan": math.isnan,
                           "run_ops": run_ops, "FALLBACK": fallback, "INPUTS": inputs,
                           "OUTPUTS": outputs}
    names: dict[SSAValue, str] = {}

    def bind(prefix: str, obj: Any) -> str:
        name = f"{prefix}{len(env)}"
        env[name] = obj
        return name

    params = []
    for k, v in enumerate(inputs):
        names[v] = f"a{k}"
        params.append(f"a{k}")
    lines = [f"def fused({', '.join(params)}):"]
    tests = []
    for v in inputs:
        shape, d = _static(v), _dtype(v)
        tests.append(f"type({names[v]}) is ND and {names[v]}.dtype is {bind('d', d)} "
                     f"and {names[v]}.shape == {shape!r}")
    unfused = f"return run_ops(FALLBACK, INPUTS, OUTPUTS, ({''.join(p + ', ' for p in params)}))"
    lines.append(f"    if not ({' and '.join(tests)}):")
    lines.append("        " + unfused)
    lines.append("    try:")
    body = []
    nan_flow: set[SSAValue] = set()  # values a bare float op made (or computed from them)
    owned: set[SSAValue] = set()  # arrays a bare ufunc made here: buffers to reuse
    last_read: dict[SSAValue, int] = {}
    for i in chain:
        for v in members[i].op.operands:
            last_read[v] = i
    out_set = set(outputs)
    in_chain = set(chain)
    propagating_users = {}
    for i in chain:
        r = members[i].op.results[0]
        propagating_users[r] = all(
            members[u].propagates for u in users.get(r, []) if u in in_chain
        )
    for i in chain:
        m = members[i]
        r = m.op.results[0]
        name = names[r] = f"t{len(names)}"
        args = []
        for v in m.op.operands:
            if v in absorbed[i]:
                args.append(names[scalar_of[v]])
            else:
                args.append(names[v])
        if m.ufunc is not None:
            fn = bind("u", m.ufunc)
            reuse = next(
                (v for v in m.op.operands
                 if v in owned and last_read.get(v) == i and v not in out_set),
                None,
            )
            if reuse is not None:
                body.append(f"{fn}({', '.join(args)}, out={names[reuse]}); {name} = {names[reuse]}")
                owned.discard(reuse)
            else:
                body.append(f"{name} = {fn}({', '.join(args)})")
            owned.add(r)
        else:
            body.append(f"{name} = {bind('s', m.step.fn)}({', '.join(args)})")
        if m.check in ("max0", "min0"):
            u = bind("u", _UINT[m.dtype.itemsize])
            mz = bind("z", _UINT[m.dtype.itemsize].type(1 << (8 * m.dtype.itemsize - 1)))
            seen = [name] if m.check == "max0" else args
            for a in seen:  # a -0 in a max's result (or a min's operand) may be numpy's choice
                body.append(f"if ({a}.view({u}) == {mz}).any(): raise ArithmeticError")
        if m.check is not None or (m.propagates and any(v in nan_flow for v in m.op.operands)):
            nan_flow.add(r)
        if r in nan_flow and (r in out_set or not propagating_users[r]):
            body.append(f"if isnan(vdot({name}, {name})): raise ArithmeticError")
    lines += ["        " + b for b in body]
    lines.append("    except Exception:")
    lines.append("        " + unfused)
    results = [names[v] for v in outputs]
    if len(results) == 1:
        lines.append(f"    return {results[0]}")
    else:
        lines.append(f"    return [{', '.join(results)}]")
    source = "\n".join(lines) + "\n"
    code = _CODE_CACHE.get(source)
    if code is None:
        code = _CODE_CACHE.put(source, compile(source, "<stablehlo-py fused>", "exec"))
    env["__builtins__"] = builtins  # numpy's C methods (`.any()`) import through them
    exec(code, env)  # noqa: S102 - our own generated code
    return env["fused"]  # type: ignore[no-any-return]


def run_ops(
    ops: list[tuple[Operation, Callable[..., Any], list[SSAValue]]],
    inputs: list[SSAValue],
    outputs: list[SSAValue],
    args: tuple[Any, ...],
) -> Any:
    """A chain's ops one by one with their own steps (the unfused computation); an op that fails
    raises here, where `compiled.ops_at` finds it (this frame's `op`)."""
    values = dict(zip(inputs, args, strict=True))
    for op, fn, reads in ops:
        values[op.results[0]] = fn(*[values[v] for v in reads])
    if len(outputs) == 1:
        return values[outputs[0]]
    return [values[v] for v in outputs]
