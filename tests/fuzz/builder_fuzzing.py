"""Fuzzing of the builder's op functions (shared by tests/fuzz/test_fuzz_builder.py and
bench/fuzz_builder.py).

Each case calls one op function of ``stablehlo_py.builder.stablehlo`` / ``.chlo`` (round robin over
all of them, so every one is called) inside a ``Module().func(...)`` body, with arguments drawn
from:

* operands: the function's arguments (random small tensors of f32/f16/bf16/i1/i8/i32/i64/ui8/
  complex<f32>, ranks 0-3, some ``?`` dimensions, and tokens), Python numbers (bool/int/float/
  complex, huge, nan, inf), numpy scalars, 0-d and n-d arrays, and wrong kinds (None, strings,
  lists, dicts, other objects);
* attributes: values of the kind the op declares (``builder.attrs``: ints, dimension lists with
  out-of-range entries, enum names, struct dicts with unknown or missing fields, MLIR text), and
  of the wrong kind;
* regions: callables of the right and wrong arity returning the right values, numbers, None,
  strings or too many values, callables whose ops fail, non-callables, empty xDSL Regions;
* ``result_type=`` right and wrong, ``loc=``, missing, extra and doubled keyword arguments.

Half the cases start from a valid call (``builder_seeds.SEEDS``) and mutate it, so that the ops
with dimension numbers and regions get past their first check.

The oracle: the call returns -- then the module verifies and prints text that parses back to the
same text -- or raises ``BuildError`` naming the op (or an op its region callables built), located
at a line of the fuzzer, and leaving nothing behind: the block's ops, the module's functions and
the uses of the values it was given are as before.  Any other exception is a finding.  A call
accepted that makes an invalid module is one too, except what the builder documents as left to
``Module.verify()`` (``EXEMPT_VERIFY``: a terminator built in the middle of a block, a symbol that
names no function).
"""

from __future__ import annotations

import inspect
import math
import random
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.ir import Block, Region, SSAValue

from stablehlo_py.builder import BuildError, Module, chlo, tensor
from stablehlo_py.builder import attrs as attr_conv
from stablehlo_py.builder import stablehlo as hlo
from stablehlo_py.builder.core import current_block
from stablehlo_py.builder.opgen import OpFunction
from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.location import TextLoc
from tests.fuzz import builder_seeds
from tests.fuzz.builder_seeds import SEEDS

ELEMENTS = ("f32", "f16", "bf16", "i1", "i8", "i32", "i64", "ui8", "complex<f32>")
TOKEN = "!stablehlo.token"
HERE = (__file__, builder_seeds.__file__)
"""The files a BuildError may point at: the call, or a region callable."""

INNER_OPS = ("stablehlo.add", "stablehlo.compare", "stablehlo.abs", "stablehlo.collective_permute")
"""Ops the fuzzer's and the seeds' region callables build: a BuildError may name them instead."""

EXEMPT_VERIFY = ("must be the last operation in the parent block", "symbol")
"""Failures of Module.verify() after an accepted call that the builder leaves to it by design
(opgen's docstring: terminators, symbol uses)."""

FAMILIES = {
    "elementwise": "stablehlo_py.ir.ops.elementwise",
    "control_flow": "stablehlo_py.ir.ops.control_flow",
    "collectives": "stablehlo_py.ir.ops.collectives",
    "linalg": "stablehlo_py.ir.ops.linalg",
    "quantization": "stablehlo_py.ir.ops.quantization",
    "data_movement": "stablehlo_py.ir.ops.data_movement",
    "misc": "stablehlo_py.ir.ops.misc",
    "einsum": "stablehlo_py.ir.ops.einsum",
    "reduction": "stablehlo_py.ir.ops.reduction",
    "chlo": "stablehlo_py.ir.ops.chlo",
}


def family(fn: OpFunction) -> str:
    mod = fn.spec.cls.__module__
    return next((k for k, v in FAMILIES.items() if v == mod), mod)


def op_functions() -> list[OpFunction]:
    """Every op function of both namespaces, by op name."""
    fns = [*hlo.functions().values(), *chlo.functions().values()]
    return sorted(fns, key=lambda f: f.spec.name)


# ------------------------------------------------------------------------------------ values
INF, NAN = math.inf, math.nan
NUMBERS: list[Any] = [
    0, 1, -1, 2, 3, 7, True, False, 0.5, -0.0, 1.5, 2.0, 2**24 + 1, 2**31, -(2**31) - 1, 2**63,
    2**64, -(2**200), 10**400, 1e308, 1e-320, 1e40, NAN, INF, -INF, 1j, 1 + 2j, 3.0 + 0j,
    complex(INF, NAN), complex(1e300, 0),
]  # fmt: skip
NUMPY: list[Any] = [
    np.float32(1.5), np.float64(2.0), np.float64(1e300), np.float16(1), ml_dtypes.bfloat16(1),
    np.int8(-1), np.int32(7), np.int64(2**40), np.int64(3), np.uint8(255), np.uint32(1),
    np.uint64(2**64 - 1), np.bool_(True), np.complex64(1j), np.complex128(1e300j),
    np.float32(np.nan), np.longdouble(1), np.str_("x"), np.datetime64("2020-01-01"),
    np.array(1.0), np.array(3, np.int32), np.array(True), np.array(np.inf, np.float32),
    np.array(2**40), np.array("s"),
]  # fmt: skip
ARRAYS: list[Any] = [
    np.ones((2, 3), np.float32), np.zeros((2,), np.int32), np.array([True, False]),
    np.ones((0,), np.float32), np.array([1 + 1j], np.complex64), np.array(["a"]),
    np.array([None], dtype=object), np.ones((2, 2), np.float64), np.ones((1, 1, 1, 1), np.int8),
    np.arange(4, dtype=np.int64), np.array([np.nan, np.inf], np.float16),
]  # fmt: skip


class _Thing:
    def __repr__(self) -> str:
        return "<thing>"


JUNK: list[Any] = [
    None, "x", "", "tensor<2xf32>", [], [1, 2], [[1]], [[1, 2], [3]], {}, {"a": 1}, _Thing(),
    {1, 2}, b"x", (), range(3), Ellipsis, float, np.float32, slice(1), [None], ["a", "b"],
    [1.5], [2**70], -1, 2**100, 1.5, NAN,
]  # fmt: skip
NOT_CALLABLE = [j for j in JUNK if not callable(j)]
"""Junk for a region or a decomposition: a callable that raises when called (float(block_argument))
is the producer's code failing, not the builder's."""
TEXTS = [
    "", "[", "]", "1 : i64", "dense<1>", "array<i64: 1, 2>", "#stablehlo<comparison_direction GT>",
    "#stablehlo.conv<raw input_batch_dimension = 0>", "@f", "\x00", "\"x\"", "{a = 1}",
    "[" * 300 + "]" * 300, "tensor<2xf32>", "dense<[[1, 2]]> : tensor<1x2xi64>", "unit",
    "#stablehlo.gather<offset_dims = [1]>", "0x7FC00000 : f32", "true", "-1",
]  # fmt: skip


def random_type(rng: random.Random, elem: str | None = None, rank: int | None = None) -> Any:
    elem = elem or rng.choice(ELEMENTS)
    rank = rng.randint(0, 3) if rank is None else rank
    shape = [rng.choice((1, 2, 2, 3, 4)) for _ in range(rank)]
    if shape and rng.random() < 0.2:
        shape[rng.randrange(rank)] = None
    return tensor(shape, elem)


def random_types(rng: random.Random) -> list[Any]:
    """A function's argument types: a main type, more of it, variants (other element type, same
    shape as i1, an i32 index), sometimes a token and a random one."""
    t = random_type(rng)
    shape = [None if d < 0 else d for d in t.get_shape()]
    out = [t, t, tensor(shape, rng.choice(ELEMENTS)), tensor(shape, "i1"), tensor((), "i32")]
    if rng.random() < 0.2:
        out.append(TOKEN)
    if rng.random() < 0.3:
        out.append(random_type(rng))
    return out


def _rank(pool: Sequence[SSAValue]) -> int:
    t = pool[0].type if pool else None
    return len(t.get_shape()) if hasattr(t, "get_shape") else 1


def operand(rng: random.Random, pool: Sequence[SSAValue]) -> Any:
    r = rng.random()
    if pool and r < 0.6:
        return pool[0] if rng.random() < 0.6 else rng.choice(pool)
    if r < 0.75:
        return rng.choice(NUMBERS)
    if r < 0.85:
        return rng.choice(NUMPY)
    if r < 0.92:
        return rng.choice(ARRAYS)
    return rng.choice(JUNK)


def variadic(rng: random.Random, pool: Sequence[SSAValue]) -> Any:
    r = rng.random()
    if r < 0.1:
        return operand(rng, pool)  # one value
    items = [operand(rng, pool) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]
    return tuple(items) if r < 0.2 else items


def dims(rng: random.Random, rank: int) -> Any:
    r = rng.random()
    if r < 0.35:
        return list(range(rank))[: rng.randint(0, rank)]
    if r < 0.5:
        return rng.sample(range(rank), rank)
    if r < 0.7:
        return [rng.choice((0, 1, 2, 3, -1, rank)) for _ in range(rng.randint(0, 3))]
    return rng.choice(
        (
            [0],
            [1],
            [2**63],
            [2**64],
            [-(2**63) - 1],
            np.array([0, 1]),
            np.array([[0]]),
            np.array([0.5]),
            (0, 1),
            0,
            [True],
            [0.0],
            "0, 1",
            [np.int8(1)],
            [None],
        )
    )


def _closure(fn: Any, name: str) -> Any:
    return inspect.getclosurevars(fn).nonlocals.get(name)


def attribute(rng: random.Random, conv: Any, rank: int) -> Any:
    """A value for an attribute of converter ``conv`` (``builder.attrs``): mostly of its kind."""
    r = rng.random()
    if r < 0.08:
        return rng.choice(JUNK)
    if r < 0.12:
        return rng.choice(TEXTS)
    a = attr_conv
    q = getattr(conv, "__qualname__", "")
    if conv is a._i64_array:
        return dims(rng, rank)
    if q.startswith("_integer"):
        return rng.choice(
            (0, 1, 2, rank - 1, rank, -1, 3, 2**31, 2**63, -(2**63) - 1, 2**100, True, 1.0)
            + (np.int64(1), np.int8(1), np.uint64(2**64 - 1), "1")
        )
    if conv is a._bool:
        return rng.choice((True, False, np.bool_(True), 1, "true"))
    if conv is a._unit:
        return rng.choice((True, False, 1, "unit"))
    if conv is a._bool_array:
        return rng.choice(([rng.random() < 0.5 for _ in range(rank)], [1, 0], np.array([True])))
    if conv is a._string:
        return rng.choice(("ij,jk->ik", "ij->ji", "", "x", 'a"b\\c\n\x00é', 1, "foo"))
    if conv is a._symbol:
        return rng.choice(("main", "@main", "f", "", "@", 1, "a b"))
    if conv is a._float:
        return rng.choice((1e-5, 0, 1, -1.0, INF, NAN, 1e300, 10**400, np.float32(1), True, 1j))
    if conv is a._elements or q.startswith("_groups"):
        return rng.choice(
            (
                [[0, 0]] * rank,
                [[1, -1]] * rank,
                [[0]],
                [[0, 1]],
                [[0], [1, 2]],
                [],
                [[]],
                [[1.5]],
                [[2**70]],
                [[-1, 0]],
                np.zeros((rank, 2), np.int64),
                np.zeros((2, 2, 2), np.int64),
                [1, 2],
                [["a"]],
                [[True]],
            )
        )
    if conv is a._dictionary:
        return rng.choice(
            (
                {"a": 1, "b": [1.5, "x"]},
                {"n": np.int32(1), "m": np.float16(2)},
                {1: 2},
                {"a": _Thing()},
                {"a": None},
                {"a": {"b": [True]}},
                {"a": np.ones((2,), np.float32)},
                {"a": 2**70},
                {"a": 1j},
                "x",
            )
        )
    if conv is a._accuracy:
        return rng.choice(
            (
                "HIGHEST",
                "DEFAULT",
                "BAD",
                {"atol": 1e-5, "rtol": 0.0, "ulps": 1, "mode": "TOLERANCE"},
                {"bad": 1},
                {"atol": "x"},
                {"ulps": 2**70, "mode": "TOLERANCE"},
                {"atol": NAN, "mode": "TOLERANCE"},
                {"mode": 1},
            )
        )
    if conv is a._precision_config:
        return rng.choice((["DEFAULT"] * 2, ["HIGHEST"], ["BAD"], "DEFAULT", [1], [], [None]))
    if conv is a._channel_handle:
        return rng.choice((1, (1, 1), {"handle": 1, "type": 2}, {"x": 1}, "1", (1, 2, 3), 2**70, -1))
    if conv is a._backend_config:
        return rng.choice(("", "cfg", {"a": 1}, 1, {"a": _Thing()}))
    if conv is a._constant_like_value:
        return rng.choice((1, 1.5, 2**70, 10**400, NAN, INF, True, 1j, -1, np.float64(1e300)))
    if conv is a._conv_dims:
        return rng.choice(
            (
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                "[b, f]x[o, i]->[b, f]",
                "[b, 0, f]x[0, i, o]->[b, 0, f]",
                "garbage",
                ("NHWC", "HWIO", "NHWC"),
                ("NC", "OI", "NC"),
                ("NHWC",),
                {"input_batch_dimension": 0},
                {"nope": 1},
            )
        )
    if q.startswith("_enum"):
        cases = list(_closure(conv, "cls").CASES)
        return rng.choice(cases + [cases[0].lower(), "BAD", 1, ""])
    if q.startswith("struct_converter"):
        names = list(_closure(conv, "names"))
        out: dict[str, Any] = {}
        for n in names:
            if rng.random() < 0.7:
                out[n] = dims(rng, rank) if rng.random() < 0.8 else rng.choice((0, 1, True, "x"))
        if rng.random() < 0.1:
            out["bogus"] = 1
        return out
    if q.startswith("_array_of"):
        return rng.choice(
            (["main"], ["@f", ""], [[0]], [[1, 0]], [[[0]]], [[["x"]]], [{"operand_index": 0}])
            + ([{"bogus": 1}], [1], "x", [[2**70]], [])
        )
    return rng.choice(JUNK + TEXTS)


# ----------------------------------------------------------------------------------- regions
def _first(*a: Any) -> Any:
    return a[0] if a else 0.0


def _half(*a: Any) -> Any:
    return a[: max(1, len(a) // 2)]


def _all(*a: Any) -> Any:
    return a


def _add(*a: Any) -> Any:
    return hlo.add(a[0], a[len(a) // 2]) if a else 0.0


def _compare(*a: Any) -> Any:
    return hlo.compare(a[0], a[-1], "LT") if a else True


def _inner_mistake(*a: Any) -> Any:
    return hlo.add(a[0] if a else 1.0, "x")


def _too_many(*a: Any) -> Any:
    return (*a, *a, 1.0)


def region(rng: random.Random, pool: Sequence[SSAValue]) -> Any:
    """A region callable (or not) of the right or wrong shape."""
    outer = pool[0] if pool else 0.0
    return rng.choice(
        (
            _first,
            _first,
            _half,
            _half,
            _all,
            _add,
            _add,
            _compare,
            _compare,
            lambda *a: True,
            lambda *a: rng.choice(NUMBERS),
            lambda *a: None,
            lambda *a: "x",
            lambda *a: [None],
            lambda *a: outer,
            lambda: 0.0,
            lambda a, b, c: a,
            lambda a: a,
            _inner_mistake,
            _too_many,
            hlo.add,
            hlo.abs,
            1,
            "body",
            Region(),
            Region(Block()),
        )
    )


def regions(rng: random.Random, variadic_: bool, pool: Sequence[SSAValue]) -> Any:
    if variadic_:
        return [region(rng, pool) for _ in range(rng.choice((0, 1, 2, 2, 3)))]
    return region(rng, pool)


def result_type(rng: random.Random, pool: Sequence[SSAValue]) -> Any:
    r = rng.random()
    if pool and r < 0.35:
        return pool[0].type if rng.random() < 0.7 else rng.choice(pool).type
    if r < 0.55:
        return random_type(rng)
    if r < 0.65:
        return [random_type(rng) for _ in range(rng.randint(1, 3))]
    return rng.choice(
        (
            "f32",
            "i1",
            "tensor<2x3xf32>",
            "tensor<?x2xi32>",
            ((2, 3), "f32"),
            ((None,), "i32"),
            TOKEN,
            "tuple<tensor<f32>>",
            "tensor<2x!quant.uniform<i8:f32, 1.0>>",
            "garbage",
            1,
            [],
            ((2**70,), "f32"),
            ((-5,), "f32"),
            ((2,), "f99"),
            ("f32",),
            (2, 3),
            {"a": 1},
            [None],
        )
    )


def location(rng: random.Random) -> Any:
    return rng.choice(('"f.py":1:2', TextLoc('"g.py":3:4'), "unknown", 123, 'x")', "", None))


# ------------------------------------------------------------------------------------- calls
def _params(fn: OpFunction) -> tuple[list[str], list[str]]:
    """(positional parameter names, keyword-only ones bar result_type and loc)."""
    pos, kw = [], []
    for p in fn.__signature__.parameters.values():  # type: ignore[attr-defined]
        if p.name in ("result_type", "loc"):
            continue
        (pos if p.kind is p.POSITIONAL_OR_KEYWORD else kw).append(p.name)
    return pos, kw


def _value_for(rng: random.Random, fn: OpFunction, name: str, pool: Sequence[SSAValue]) -> Any:
    spec = fn.spec
    for o in spec.operands:
        if o.name == name:
            return variadic(rng, pool) if o.variadic else operand(rng, pool)
    for a in spec.attrs:
        if a.name == name:
            return attribute(rng, a.converter, _rank(pool))
    for r in spec.regions:
        if r.name == name:
            return regions(rng, r.variadic, pool)
    if name == "element_type":
        return rng.choice((*ELEMENTS, "f33", np.float32, 1, None, "tensor<2xf32>"))
    return rng.choice(JUNK)


def random_call(
    rng: random.Random, fn: OpFunction, pool: Sequence[SSAValue]
) -> tuple[list[Any], dict[str, Any]]:
    spec = fn.spec
    pos, kw = _params(fn)
    required = {a.name for a in spec.attrs if a.required} | {o.name for o in spec.operands}
    values = {}
    for name in pos + kw:
        if name in required or rng.random() < (0.9 if name in kw else 0.3):
            values[name] = _value_for(rng, fn, name, pool)
    if not spec.inferred or rng.random() < 0.15:
        values["result_type"] = result_type(rng, pool)
    n_pos = 0
    while n_pos < len(pos) and pos[n_pos] in values and rng.random() < 0.85:
        n_pos += 1
    args = [values.pop(n) for n in pos[:n_pos]]
    return args, values


MUTATIONS = ("replace", "drop", "extra", "twice", "result", "loc")
"""What ``mutate`` does to a call: replace a value, drop parameters, add one, give one twice
(by position and by name), set ``result_type=``, set ``loc=``."""


def mutate(
    rng: random.Random,
    fn: OpFunction,
    args: list[Any],
    kwargs: dict[str, Any],
    pool: Sequence[SSAValue],
) -> str:
    """One change to a call; returns its name."""
    pos, kw = _params(fn)
    kind = rng.choice(MUTATIONS + ("replace", "replace"))
    if kind == "replace":
        names = pos[: len(args)] + [k for k in kwargs if k not in ("result_type", "loc")]
        if not names:
            kind = "result"
        else:
            name = rng.choice(names)
            takes_callables = name == "decomposition" or any(r.name == name for r in fn.spec.regions)
            junk = NOT_CALLABLE if takes_callables else JUNK
            value = _value_for(rng, fn, name, pool) if rng.random() < 0.8 else rng.choice(junk)
            if name in pos[: len(args)]:
                args[pos.index(name)] = value
            else:
                kwargs[name] = value
    if kind == "drop":
        if kwargs and (not args or rng.random() < 0.5):
            del kwargs[rng.choice(list(kwargs))]
        elif args:
            del args[rng.randrange(len(args)) :]
    elif kind == "extra":
        if rng.random() < 0.5:
            kwargs[rng.choice(("bogus", "axis", "result_types", "dimension"))] = 1
        else:
            args.extend(operand(rng, pool) for _ in range(rng.randint(1, 3)))
    elif kind == "twice" and args and pos:
        kwargs[pos[0]] = args[0]
    elif kind == "result":
        kwargs["result_type"] = result_type(rng, pool)
    elif kind == "loc":
        kwargs["loc"] = location(rng)
    return kind


def mutate_types(rng: random.Random, types: list[Any]) -> list[Any]:
    """A seed's argument types with one changed: another element type, rank or a ``?``."""
    from stablehlo_py.builder import to_type

    out = [to_type(t) for t in types]
    tensors = [i for i, t in enumerate(out) if hasattr(t, "get_shape")]
    if not tensors:
        return out
    i = rng.choice(tensors)
    shape = [None if d < 0 else d for d in out[i].get_shape()]
    elem = out[i].element_type
    r = rng.random()
    if r < 0.4:
        out[i] = tensor(shape, rng.choice(ELEMENTS))
    elif r < 0.6 and shape:
        shape[rng.randrange(len(shape))] = None
        out[i] = tensor(shape, elem)
    elif r < 0.8:
        out[i] = tensor(shape + [rng.choice((1, 2))], elem)
    else:
        out[i] = tensor(shape[:-1], elem)
    return out


# ------------------------------------------------------------------------------------ oracle
@dataclass
class Finding:
    op: str
    why: str
    call: str


@dataclass
class FuzzResult:
    cases: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    exempt: Counter[str] = field(default_factory=Counter)
    """Accepted calls whose module failed Module.verify() for a reason in EXEMPT_VERIFY."""
    mutations: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")

    def by_family(self, counts: Counter[str]) -> Counter[str]:
        fams = {f.spec.name: family(f) for f in op_functions()}
        out: Counter[str] = Counter()
        for op, n in counts.items():
            out[fams[op]] += n
        return out


def _short(v: Any) -> str:
    from xdsl.ir import TypeAttribute

    from stablehlo_py.ir.verify.constraints import t2s

    if isinstance(v, SSAValue):
        return f"<value {t2s(v.type)}>"
    if isinstance(v, TypeAttribute):
        return f"<{t2s(v)}>"
    if isinstance(v, list | tuple):
        inner = ", ".join(_short(x) for x in v[:6])
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_short(x)}" for k, x in list(v.items())[:8]) + "}"
    if callable(v) and getattr(v, "__name__", None):
        return f"<callable {v.__name__}>"
    text = repr(v)
    return text if len(text) < 80 else text[:77] + "..."


def describe_call(fn: OpFunction, types: Sequence[Any], args: Sequence[Any], kw: dict) -> str:
    from stablehlo_py.ir.verify.constraints import t2s

    from stablehlo_py.builder import to_type

    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kw.items()]
    sig = ", ".join(t2s(to_type(t)) for t in types)
    return f"func({sig}): {fn.spec.name}({', '.join(parts)})"


def _uses(values: Sequence[SSAValue]) -> list[int]:
    return [sum(1 for _ in v.uses) for v in values]


def _block_values(block: Block) -> list[SSAValue]:
    return [*block.args, *(r for op in block.ops for r in op.results)]


def _error_problem(e: BuildError, name: str) -> str | None:
    text = str(e)
    if name not in text and not any(n in text for n in INNER_OPS):
        return f"the BuildError does not name {name}: {text[:300]}"
    if e.location is None or e.location.rsplit(":", 2)[0] not in HERE:
        return f"the BuildError is not located at the fuzzer's line: {e.location}"
    return None


def check_call(
    rng: random.Random, fn: OpFunction, result: FuzzResult, seeded: bool
) -> None:
    """One case: build a function calling ``fn``; record the outcome and any finding."""
    spec = fn.spec
    seed = SEEDS.get(spec.name) if seeded else None
    if seed is not None:
        types = seed[0] if rng.random() < 0.75 else mutate_types(rng, seed[0])
    else:
        types = random_types(rng)
    m = Module()
    state: dict[str, Any] = {"call": f"{spec.name}(...)"}

    def body(*v: SSAValue) -> Any:
        pool = list(v)
        if seed is not None:
            try:
                a, kw = seed[1](v)
            except BuildError:
                state["outcome"] = "seed"  # the mutated types broke the seed's helper ops
                return None
            args, kwargs = list(a), dict(kw)
            if rng.random() < 0.8:
                result.mutations[mutate(rng, fn, args, kwargs, pool)] += 1
        else:
            args, kwargs = random_call(rng, fn, pool)
            if rng.random() < 0.3:
                result.mutations[mutate(rng, fn, args, kwargs, pool)] += 1
        state["call"] = describe_call(fn, types, args, kwargs)
        block = current_block()
        ops = list(block.ops)
        values = _block_values(block)
        uses = _uses(values)
        top = list(m.op.body.block.ops)
        functions = dict(m.functions)
        result.calls[spec.name] += 1
        try:
            out = fn(*args, **kwargs)
        except BuildError as e:
            state["outcome"] = "refused"
            problem = _error_problem(e, spec.name)
            if list(block.ops) != ops:
                problem = f"the failed call left ops: {[op.name for op in block.ops][len(ops):]}"
            elif _uses(values) != uses:
                problem = "the failed call left uses of the values it was given"
            elif list(m.op.body.block.ops) != top or m.functions != functions:
                problem = "the failed call left a function in the module"
            if problem is not None:
                state["finding"] = f"{problem}\n  error: {str(e)[:400]}"
            return None
        except Exception as e:  # noqa: BLE001 -- the finding
            state["outcome"] = "crash"
            tb = traceback.extract_tb(e.__traceback__)[-1]
            state["finding"] = (
                f"{type(e).__name__}: {str(e)[:300]}\n  at {tb.filename}:{tb.lineno} ({tb.name})"
            )
            return None
        state["outcome"] = "accepted"
        if isinstance(out, SSAValue):
            return out
        if isinstance(out, tuple) and all(isinstance(x, SSAValue) for x in out):
            return out
        return None

    start = time.process_time()
    try:
        m.add_function(body, list(types), "main")
    except Exception as e:  # noqa: BLE001
        state.setdefault("finding", f"building the function failed: {type(e).__name__}: {e}")
    outcome = state.get("outcome")
    if outcome == "accepted":
        result.accepted[spec.name] += 1
    elif outcome == "refused":
        result.refused[spec.name] += 1
    if "finding" not in state and outcome in ("accepted", "refused"):
        problem = _module_problem(m, outcome, spec.name, result)
        if problem is not None:
            state["finding"] = problem
    spent = time.process_time() - start
    if spent > result.slowest[0]:
        result.slowest = (spent, state["call"])
    if "finding" in state:
        result.findings.append(Finding(spec.name, state["finding"], state["call"]))


def _module_problem(m: Module, outcome: str, name: str, result: FuzzResult) -> str | None:
    """The module must verify, and print text that parses back to the same text."""
    try:
        m.verify()
    except VerifyError as e:
        if outcome == "accepted" and any(w in e.message for w in EXEMPT_VERIFY):
            result.exempt[name] += 1
            return None
        return f"Module.verify() failed after a{'n accepted' if outcome == 'accepted' else ' refused'} call: {e}"
    except Exception as e:  # noqa: BLE001
        return f"Module.verify() crashed: {type(e).__name__}: {e}"
    try:
        text = m.text()
        again = print_ir(parse(text))
    except Exception as e:  # noqa: BLE001
        return f"the module's text does not parse back: {type(e).__name__}: {str(e)[:300]}"
    if again != text:
        return f"the text round trip changed the module:\n{text}\n---\n{again}"
    return None


def run(cases: int, seed: int = 0, fns: Sequence[OpFunction] | None = None) -> FuzzResult:
    """``cases`` calls, round robin over ``fns`` (default: every op function), half of them from
    a seed when the op has one."""
    rng = random.Random(seed)
    fns = list(fns or op_functions())
    result = FuzzResult()
    order: list[OpFunction] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning (a silent overflow) is a finding too
        for i in range(cases):
            if not order:
                order = fns[:]
                rng.shuffle(order)
            fn = order.pop()
            check_call(rng, fn, result, seeded=rng.random() < 0.5)
            result.cases = i + 1
    return result


def report(result: FuzzResult, limit: int = 10) -> str:
    lines = []
    for f in result.findings[:limit]:
        lines.append(f"{f.op}: {f.why}\n  call: {f.call}")
    return "\n".join(lines)


