"""A fast path for the compact form of `stablehlo.reduce` that JAX emits for every sum and max:

    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1]
           : (tensor<8x64xf32>, tensor<f32>) -> tensor<8xf32>

One regular expression reads the single-input form with plain tensor types and no attribute
dictionary or location; the op is built as `ReduceOp.parse_custom` builds it (a block of two scalar
arguments holding the inner op and `stablehlo.return`).  Anything else -- several inputs, an
unknown name, an operand whose type differs from the written one, an inner op that is not a
commutative binary op, a trailing `loc(...)` -- returns None without moving the parser, and
`parse_custom` reads the op and reports what it reports."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from xdsl.ir import Block, Operation, Region

from stablehlo_py.ir.construct import append_ops, new_op
from stablehlo_py.ir.format_parse import _I64_LIST, _TENSOR, _VALUE, _W, i64_array, lookup
from stablehlo_py.ir.text.parser import simple_tensor_type
from stablehlo_py.ir.types import element_type, tensor_type

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser

_COMPACT = re.compile(
    r"\(" + _W + _VALUE + _W + r"init" + _W + ":" + _W + _VALUE + _W + r"\)"
    + _W + r"applies" + _W + r"([A-Za-z_][A-Za-z0-9_$.]*)"
    + _W + r"across" + _W + r"dimensions" + _W + "=" + _W + _I64_LIST
    + _W + ":" + _W + r"\(" + _W + _TENSOR + _W + "," + _W + _TENSOR + _W + r"\)"
    + _W + "->" + _W + _TENSOR
)  # fmt: skip
_TRAILER = re.compile(r"[ \t]*(loc\(|\{)")


def parse_compact_reduce(
    cls: type[Operation], p: Parser, inner_ops: frozenset[str]
) -> Operation | None:
    """The op, or None (the parser unmoved) where the general parser must read it."""
    m = _COMPACT.match(p.text, p.pos)
    if m is None or _TRAILER.match(p.text, m.end()):
        return None
    (x_name, x_idx, c_name, c_idx, inner_name, dims_text,
     x_key, x_dims, x_elem, c_key, c_dims, c_elem, r_key, r_dims, r_elem) = m.groups()  # fmt: skip
    if "." not in inner_name:
        inner_name = "stablehlo." + inner_name
    if inner_name not in inner_ops:
        return None
    x = lookup(p, x_name, x_idx)
    c = lookup(p, c_name, c_idx)
    x_type = simple_tensor_type(x_key, x_dims, x_elem)
    c_type = simple_tensor_type(c_key, c_dims, c_elem)
    r_type = simple_tensor_type(r_key, r_dims, r_elem)
    dims = i64_array(dims_text)
    if (
        x is None
        or c is None
        or x_type is None
        or c_type is None
        or r_type is None
        or dims is None
        or x.type != x_type
        or c.type != c_type
    ):
        return None
    loc_pos = p.pos
    p.pos = m.end()
    scalar = tensor_type(element_type(x_type), ())
    block = Block(arg_types=(scalar, scalar))
    inner = new_op(p.registry.ops[inner_name], block.args, (scalar,), {})
    ret = new_op(p.registry.ops["stablehlo.return"], inner.results, (), {})
    append_ops(block, (inner, ret))
    op = new_op(cls, (x, c), (r_type,), {"dimensions": dims}, (Region(block),))
    src = (p.source, loc_pos)
    for a in block.args:
        a._src = src  # type: ignore[attr-defined]
    inner._src = src  # type: ignore[attr-defined]
    ret._src = src  # type: ignore[attr-defined]
    op._loc_pos = loc_pos  # type: ignore[attr-defined]
    return op
