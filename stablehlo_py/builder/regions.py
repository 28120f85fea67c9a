"""Regions from Python callables.

A region argument of an op function (``body=``, ``comparator=``, ``cond=``, ``true_branch=``,
``branches=[...]``, ``computation=``, ``update_computation=``, ``select=``/``scatter=``) takes a
callable.  The builder makes the region's block with the argument types the spec gives that region
(the table below, one entry per op and region), calls the callable with the block arguments as
values, and ends the block with ``stablehlo.return`` of what it returned (a value, or a tuple/list
of values; a Python number is returned as a 0-d constant of the first block argument's element
type).  An xDSL ``Region`` is taken as is.

Block argument types, per the spec:

- ``reduce``/``reduce_window`` ``body``: the init values' types, twice (accumulators, then elements);
- ``scatter`` ``update_computation``: 0-d of each input's element type, then of each update's;
- ``sort`` ``comparator``: for each input, two 0-d tensors of its element type (lhs, rhs);
- ``map`` ``computation``: 0-d of each input's element type;
- ``select_and_scatter``: ``select`` two 0-d of the operand's element type, ``scatter`` two of the
  source's;
- ``all_reduce``/``collective_reduce`` / ``reduce_scatter`` ``computation``: two 0-d of the first
  operand's element type;
- ``while`` ``cond``/``body``: the operands' types;
- ``if``/``case`` branches and ``async_start``'s body: none / the operands' types;
- ``chlo.scan`` ``body``: each input without the scanned ``dimension``, then the carries
  (``inits``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Region, SSAValue

from stablehlo_py.builder.core import insert, inserting, operand_constant
from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.sites import arity_problem, defined_at
from stablehlo_py.ir.types import element_type, shape_of, tensor_type

Types = Mapping[str, Sequence[Attribute]]
Attrs = Mapping[str, Attribute]
ArgRule = Callable[[Types, Attrs], list[Attribute]]


def _scalar(t: Attribute) -> Attribute:
    return tensor_type(element_type(t), ())


def _twice_init(ts: Types, attrs: Attrs) -> list[Attribute]:
    return [*ts["init_values"], *ts["init_values"]]


def _scatter(ts: Types, attrs: Attrs) -> list[Attribute]:
    return [*(_scalar(t) for t in ts["inputs"]), *(_scalar(t) for t in ts["updates"])]


def _sort(ts: Types, attrs: Attrs) -> list[Attribute]:
    return [s for t in ts["inputs"] for s in (_scalar(t), _scalar(t))]


def _map(ts: Types, attrs: Attrs) -> list[Attribute]:
    return [_scalar(t) for t in ts["inputs"]]


class _NoOperand(Exception):
    """A rule's block argument types come from an operand group that is empty."""


def _pair_of(name: str) -> ArgRule:
    def args(ts: Types, attrs: Attrs) -> list[Attribute]:
        if not ts[name]:
            raise _NoOperand(name)
        t = ts[name][0]
        return [_scalar(t), _scalar(t)]

    return args


def _operand_types(name: str) -> ArgRule:
    return lambda ts, attrs: list(ts[name])


def _none(ts: Types, attrs: Attrs) -> list[Attribute]:
    return []


def _scan(ts: Types, attrs: Attrs) -> list[Attribute]:
    """chlo.scan: a slice of each input without the scanned dimension, then the carries."""
    dim = attrs.get("dimension")
    d = dim.value.data if isinstance(dim, IntegerAttr) else None
    slices = []
    for t in ts["inputs"]:
        shape = shape_of(t)
        if d is None or shape is None or not 0 <= d < len(shape):
            raise BuildError(f"chlo.scan: dimension {d} is not a dimension of the input {t}")
        slices.append(tensor_type(element_type(t), shape[:d] + shape[d + 1 :]))
    return [*slices, *ts["inits"]]


REGION_ARGS: dict[tuple[str, str], ArgRule] = {
    ("stablehlo.reduce", "body"): _twice_init,
    ("stablehlo.reduce_window", "body"): _twice_init,
    ("stablehlo.scatter", "update_computation"): _scatter,
    ("stablehlo.sort", "comparator"): _sort,
    ("stablehlo.map", "computation"): _map,
    ("stablehlo.select_and_scatter", "select"): _pair_of("operand"),
    ("stablehlo.select_and_scatter", "scatter"): _pair_of("source"),
    ("stablehlo.all_reduce", "computation"): _pair_of("operands"),
    ("stablehlo.collective_reduce", "computation"): _pair_of("operands"),
    ("stablehlo.reduce_scatter", "computation"): _pair_of("operand"),
    ("stablehlo.while", "cond"): _operand_types("operand"),
    ("stablehlo.while", "body"): _operand_types("operand"),
    ("stablehlo.if", "true_branch"): _none,
    ("stablehlo.if", "false_branch"): _none,
    ("stablehlo.case", "branches"): _none,
    ("stablehlo.async_start", "body"): _operand_types("operands"),
    ("chlo.scan", "body"): _scan,
}
"""(op, region) -> the region's block argument types from the op's operand types (by spec name)
and its converted attributes."""


def _return_op() -> type:
    from stablehlo_py.ir.dialects import default_registry

    return default_registry().ops["stablehlo.return"]


def build_region(
    op_name: str, region_name: str, fn: Any, operand_types: Types, attrs: Attrs | None = None
) -> Region:
    """One region of ``op_name`` from a callable (or an xDSL Region, used as is)."""
    if isinstance(fn, Region):
        return fn
    if not callable(fn):
        raise BuildError(
            f"{op_name}: region '{region_name}' must be a callable (or an xDSL Region); got {fn!r}"
        )
    arg_rule = REGION_ARGS.get((op_name, region_name))
    if arg_rule is None:
        raise BuildError(
            f"{op_name}: building region '{region_name}' from a callable is not supported "
            "(its block arguments are not in the builder's table)",
            note="build the Region yourself (xdsl.ir.Region) and pass it",
        )
    try:
        block = Block(arg_types=arg_rule(operand_types, attrs or {}))
    except _NoOperand as e:
        raise BuildError(
            f"{op_name}: region '{region_name}' takes its block argument types from the first "
            f"value of operand '{e.args[0]}', which has none",
            note=f"give at least one value as '{e.args[0]}'",
        ) from None
    problem = arity_problem(fn, len(block.args))
    if problem is not None:
        from stablehlo_py.ir.verify.constraints import t2s

        n = len(block.args)
        where = defined_at(fn)
        raise BuildError(
            f"{op_name}: region '{region_name}' gets {n} block argument{'' if n == 1 else 's'} "
            f"({', '.join(t2s(a.type) for a in block.args)}); the callable {problem}",
            note=None if where is None else f"region '{region_name}' is the callable defined at {where}",
        )
    with inserting(block):
        out = fn(*block.args)
        values = _returned(out, block, op_name, region_name)
        insert(_return_op().create(operands=values))
    return Region(block)


_PREDICATE_REGIONS = frozenset(
    {
        ("stablehlo.sort", "comparator"),
        ("stablehlo.while", "cond"),
        ("stablehlo.select_and_scatter", "select"),
    }
)
"""Regions that return one ``tensor<i1>``: a number they return is a bool."""
_I1_SCALAR = tensor_type(IntegerType(1), ())


def _returned(out: Any, block: Block, op_name: str, region_name: str) -> list[SSAValue]:
    """The values a region callable returned; a number takes the type the region must return
    there: ``tensor<i1>`` for comparators and conditions, else the block argument at its position
    (accumulators of reduce/scatter, carries of while), else JAX's defaults."""
    if out is None:
        return []
    items = list(out) if isinstance(out, tuple | list) else [out]
    args = block.args
    predicate = (op_name, region_name) in _PREDICATE_REGIONS
    values = []
    for i, v in enumerate(items):
        if isinstance(v, SSAValue):
            values.append(v)
            continue
        like = _I1_SCALAR if predicate else args[i].type if i < len(args) else None
        values.append(
            operand_constant(
                v,
                like,
                False,
                op_name,
                f"value #{i} returned by region '{region_name}'",
                f"region '{region_name}' must return {{type}} as value #{i}",
            )
        )
    return values
