"""Ops that apply a region to tensors (spec.md "reduce", "reduce_window", "select_and_scatter",
"sort", "map").

`reduce` has upstream's hand-written syntax (hlo::printReduceOp / parseReduceOp): the compact form
`stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (..) -> ..` when the
body is one commutative binary op forwarding the block arguments, else
`stablehlo.reduce(%x init: %i) across dimensions = [1] : (..) -> ..\\n reducer(%a: T, %b: T) {..}`.
The others have no pretty form upstream and print generically.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    SameVariadicOperandSize,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.directives import DenseI64Array
from stablehlo_py.ir.format_parse import _I64_LIST, _TENSOR, _VALUE, _W, lookup
from stablehlo_py.ir.format_parse import i64_array as quick_i64_array
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import (
    ANY_ATTR,
    BOOL_ATTR,
    DENSE_I64_ARRAY,
    I1,
    I64,
    I64_ATTR,
    GenericSyntaxOp,
    StableHLOOp,
    check_written_types,
    i64_array_attr,
    op_def,
    print_region_argument,
    prop,
)
from stablehlo_py.ir.verify.constraints import (
    fail_as_rule,
    i64_array,
    int_value,
    shapes_compatible,
    t2s,
)
from stablehlo_py.ir.verify.ods_traits import upstream
from stablehlo_py.ir.verify.region_utils import (
    require_single_block,
    return_types,
)
from stablehlo_py.ir.ops.operand_syntax import parse_entry_arg
from stablehlo_py.ir.text.parse_types import simple_tensor_type
from stablehlo_py.ir.types import element_type, shape_of, tensor_type
from stablehlo_py.ir.xdsl_compat.construct import append_ops
from stablehlo_py.ir.xdsl_compat.opdef_split import mlir_operand_split
from stablehlo_py.ir.xdsl_compat.side_data import LOC_POS, SRC, attach

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

COMMUTATIVE_BINARY_OPS = frozenset(
    {
        "stablehlo.add",
        "stablehlo.and",
        "stablehlo.maximum",
        "stablehlo.minimum",
        "stablehlo.multiply",
        "stablehlo.or",
        "stablehlo.xor",
    }
)
"""StableHLO ops with the Commutative trait, two operands, one result and no region: the inner ops the
compact `reduce ... applies <op>` form may name (isCommutativeNoRegionMatchingDialect)."""


# ------------------------------------------------------------------------------------- reduce
def _compact_reduce(
    cls: type[Operation],
    p: Parser,
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    props: dict[str, Attribute],
    attrs: dict[str, Attribute],
    inner_name: str,
    input_type: Attribute,
    loc: Attribute | None,
    loc_pos: int,
) -> Operation:
    """The op of the compact form `... applies <inner> across ...`: its body is a block of two
    scalar arguments holding the inner op and `stablehlo.return`, all at `loc` (else at the token
    after the op name, `loc_pos`, as upstream's parseReduceOp)."""
    t = tensor_type(element_type(input_type), ())
    block = Block(arg_types=(t, t))
    args = tuple(block.args)
    classes = p.registry.ops
    inner = classes[inner_name].plain_builder()(list(args), [t], {})  # type: ignore[attr-defined]
    make_return = classes["stablehlo.return"].plain_builder()  # type: ignore[attr-defined]
    ret = make_return(list(inner.results), [], {})
    append_ops(block, (inner, ret))
    op = cls.build_generic(list(operands), list(result_types), props, attrs, [Region(block)])  # type: ignore[attr-defined]
    if loc is not None:
        for x in (*args, inner, ret, op):
            x.location = loc  # type: ignore[union-attr]
    else:
        src = (p.source, loc_pos)
        for x in (*args, inner, ret):
            attach(x, SRC, src)
    attach(op, LOC_POS, loc_pos)
    return op


# JAX's form of every sum and max, read at once: one input, plain tensor types, no attribute
# dictionary or location (`(%x init: %c) applies stablehlo.add across dimensions = [1] :
# (tensor<8x64xf32>, tensor<f32>) -> tensor<8xf32>`).
_QUICK = re.compile(
    r"\(" + _W + _VALUE + _W + r"init" + _W + ":" + _W + _VALUE + _W + r"\)"
    + _W + r"applies" + _W + r"([A-Za-z_][A-Za-z0-9_$.]*)"
    + _W + r"across" + _W + r"dimensions" + _W + "=" + _W + _I64_LIST
    + _W + ":" + _W + r"\(" + _W + _TENSOR + _W + "," + _W + _TENSOR + _W + r"\)"
    + _W + "->" + _W + _TENSOR
)  # fmt: skip
_QUICK_TRAILER = re.compile(r"[ \t]*(loc\(|\{)")


def _quick_compact(cls: type[Operation], p: Parser) -> Operation | None:
    """The compact form's op when `_QUICK` reads it whole and its values have the written types,
    else None (the parser unmoved: `parse_custom` reads it, and reports what it reports)."""
    m = _QUICK.match(p.text, p.pos)
    if m is None or _QUICK_TRAILER.match(p.text, m.end()):
        return None
    (x_name, x_idx, c_name, c_idx, inner_name, dims_text,
     x_key, x_dims, x_elem, c_key, c_dims, c_elem, r_key, r_dims, r_elem) = m.groups()  # fmt: skip
    if "." not in inner_name:
        inner_name = "stablehlo." + inner_name
    if inner_name not in COMMUTATIVE_BINARY_OPS:
        return None
    x = lookup(p, x_name, x_idx)
    c = lookup(p, c_name, c_idx)
    x_type = simple_tensor_type(x_key, x_dims, x_elem)
    r_type = simple_tensor_type(r_key, r_dims, r_elem)
    dims = quick_i64_array(dims_text)
    if (
        x is None
        or c is None
        or x_type is None
        or r_type is None
        or dims is None
        or x.type != x_type
        or c.type != simple_tensor_type(c_key, c_dims, c_elem)
    ):
        return None
    loc_pos = p.pos
    p.pos = m.end()
    return _compact_reduce(
        cls, p, (x, c), (r_type,), {"dimensions": dims}, {}, inner_name, x_type, None, loc_pos
    )


class _RegionOp(StableHLOOp):
    """reduce, reduce_window, select_and_scatter, sort and map (undecorated family base):
    RecursiveMemoryEffect, upstream's InferTypeOpInterface check after the op's verifier, and a
    verification that reads only types, attributes, block arguments and terminators."""

    VERIFY_BY_TYPES: ClassVar[str | bool] = "regions"
    traits = traits_def(RecursiveMemoryEffect())
    INFER_CHECK: ClassVar[str | None] = "after"


@mlir_operand_split
@op_def
class ReduceOp(_RegionOp):
    """Applies a reduction function `body` to `inputs` and `init_values` along the `dimensions` and
    produces `results` (spec.md#reduce)."""

    name = "stablehlo.reduce"
    inputs = var_operand_def()
    init_values = var_operand_def()
    dimensions = prop(DENSE_I64_ARRAY)
    body = region_def()
    results_ = var_result_def()
    irdl_options = (SameVariadicOperandSize(),)
    FORMAT: ClassVar[str | None] = None

    # ---------------------------------------------------------------- syntax
    def _compact_inner_op(self) -> Operation | None:
        """The inner op when the body is eligible for the compact form (E1-E5 of upstream's
        isReduceEligibleForCompactPrint), else None.  Printed for every reduce, so it walks the
        block's links and compares types by identity before equality (the parser shares them)."""
        block = self.regions[0].blocks.first
        if block is None:
            return None
        inner = block.first_op
        ret = inner.next_op if inner is not None else None
        if ret is None or ret.next_op is not None:  # E1: one op besides the terminator
            return None
        if inner.name not in COMMUTATIVE_BINARY_OPS or inner.regions:  # E2
            return None
        # tuple unpacking: xDSL's SSAValues index in Python, unpacking iterates in C
        operands = tuple(inner.operands)
        results = tuple(inner.results)
        if len(operands) != 2 or len(results) != 1:  # E2
            return None
        (lhs, rhs), (result,) = operands, results
        expected = lhs.type
        for t in (rhs.type, result.type):
            if t is not expected and t != expected:  # E2
                return None
        ops = tuple(self.operands)
        if not ops:  # E3 (inputs and init values are equally many)
            return None
        scalar = tensor_type(element_type(ops[0].type), ())
        if expected is not scalar and expected != scalar:
            return None
        args = tuple(block.args)
        if len(args) != 2 or args[0] is not lhs or args[1] is not rhs:  # E4
            return None
        if ret.name.rpartition(".")[2] != "return":  # E5
            return None
        ret_ops = tuple(ret.operands)
        if len(ret_ops) != 1 or ret_ops[0] is not result:
            return None
        return inner

    def print_custom(self, pr: Printer) -> None:
        from stablehlo_py.ir.text.printer import function_type_to_str

        ops = tuple(self.operands)
        n = len(ops) // 2
        names = [pr.value(v) for v in ops]
        text = ", ".join(f"({names[i]} init: {names[i + n]})" for i in range(n))
        inner = self._compact_inner_op()
        if inner is not None:
            text += " applies " + inner.name
        dims = self.properties.get("dimensions")
        if isinstance(dims, DenseArrayBase):  # the text memoised by the i64-array directive
            pr.write(text + " across dimensions = ")
            DenseI64Array.print(pr, self, dims)
        else:
            values = i64_array(dims) or ()
            pr.write(text + " across dimensions = [" + ", ".join(map(str, values)) + "]")
        if self.attributes:
            pr.attr_dict(dict(self.attributes))
        pr.write(
            " : " + function_type_to_str([v.type for v in ops], [r.type for r in self.results])
        )
        if inner is None:
            pr.newline()
            pr.write(" reducer")
            block = self.body.blocks.first
            args = list(block.args) if block is not None else []
            for i in range(n):
                pr.write("(")
                if i < len(args):
                    print_region_argument(pr, args[i])
                pr.write(", ")
                if i + n < len(args):
                    print_region_argument(pr, args[i + n])
                pr.write(") ")
            pr.write(" ")
            pr.region(self.body, print_entry_args=False, default_dialect="")

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        start = p.pos
        # upstream's parseReduceOp locates the op (and the compact form's generated block) at the
        # token after the op name, not at the name
        p.ws()
        quick = _quick_compact(cls, p)
        if quick is not None:
            return quick
        loc_pos = p.pos
        inputs = []
        inits = []

        def pair() -> None:
            if not p.try_literal("("):
                return
            inputs.append(p.parse_operand())
            p.parse_keyword("init")
            p.parse_literal(":")
            inits.append(p.parse_operand())
            p.parse_literal(")")

        p.parse_comma_list(pair)
        operands = inputs + inits
        inner_name: str | None = None
        if p.try_keyword("applies"):
            p.ws()
            name_pos = p.pos
            word = p.try_bare_id()
            if word is not None and "." not in word:
                word = f"stablehlo.{word}"
            if word not in COMMUTATIVE_BINARY_OPS:
                p.error(
                    "expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero "
                    f"region, producing single result (one of {', '.join(sorted(COMMUTATIVE_BINARY_OPS))})",
                    name_pos,
                )
            inner_name = word
        p.parse_keyword("across")
        p.parse_keyword("dimensions")
        p.parse_literal("=")
        dims = p.parse_delimited("[", p.parse_integer, "]")
        attrs = p.try_attr_dict()
        ft, ft_pos = p.parse_written_type()
        from xdsl.dialects.builtin import FunctionType

        if not isinstance(ft, FunctionType):
            p.error(
                "expected a function type like (tensor<4xf32>, tensor<f32>) -> tensor<f32>", ft_pos
            )
        ins = list(ft.inputs.data)
        check_written_types(p, start, "stablehlo.reduce", operands, ins)
        props: dict[str, Attribute] = {"dimensions": i64_array_attr(dims)}
        if inner_name is not None:
            if not ins:
                p.error("input types missing in reduce-op function type", ft_pos)
            loc = p.try_location()
            return _compact_reduce(
                cls, p, operands, list(ft.outputs.data), props, attrs, inner_name, ins[0], loc, loc_pos
            )
        p.parse_keyword("reducer")
        firsts: list[tuple[str, Attribute, object]] = []
        seconds: list[tuple[str, Attribute, object]] = []
        while p.try_literal("("):
            firsts.append(parse_entry_arg(p))
            p.parse_literal(",")
            seconds.append(parse_entry_arg(p))
            p.parse_literal(")")
        region = p.parse_region(entry_args=firsts + seconds, default_dialect="")  # type: ignore[arg-type]
        op = cls.build_generic(operands, list(ft.outputs.data), props, attrs, [region])
        attach(op, LOC_POS, loc_pos)
        return op

    # ---------------------------------------------------------------- verifier

    def verify_(self) -> None:
        # upstream's ReduceOp::verify (verifyReduceOp), then the InferTypeOpInterface check
        # (reduce_c7, reduce_c8: stablehlo_py.ir.infer.reduction), which MLIR runs after it
        from stablehlo_py.ir.infer.reduction import reduce_shape

        inputs = [v.type for v in self.inputs]
        inits = [v.type for v in self.init_values]
        dims = i64_array(self.properties.get("dimensions")) or ()
        _ods_tensors(self, (inputs, inits), variadic=True, variadic_results=True)
        require_single_block(self, self.body, "body", non_empty=True)
        # reduce_c1, reduce_c4, reduce_c5: the inputs and dimensions
        shape = upstream(lambda: reduce_shape(inputs, dims))
        # reduce_c2, reduce_c6: the body
        _verify_reducer(self.body, inputs, inits, shape[0] if shape is not None else None)


def _ods_tensors(
    op: Operation, groups: Sequence[Sequence[Attribute]], variadic: bool, variadic_results: bool
) -> None:
    """ODS of the reduction ops: `HLO_Tensor` operands (`groups`, in order; `Variadic<...>` groups
    when `variadic`) and results, numbered as MLIR numbers them."""
    first = 0
    for group in groups:
        ods.check_values("operand", group, ods.HLO_Tensor, first=first, variadic=variadic)
        first += len(group)
    outs = [r.type for r in op.results]
    ods.check_values("result", outs, ods.HLO_Tensor, variadic=variadic_results)


def _same_operands_and_result_shape(
    operands: Sequence[Attribute], results: Sequence[Attribute]
) -> None:
    """MLIR's SameOperandsAndResultShape trait: at least one operand, compatible shapes."""
    if not operands:
        raise VerifyException("expected 1 or more operands, but found 0")
    shapes = [shape_of(t) for t in (*operands, *results)]
    if not all(shapes_compatible(shapes[0], s) for s in shapes[1:]):
        raise VerifyException("requires the same shape for all operands and results")


def _verify_reducer(
    region: Region,
    inputs: Sequence[Attribute],
    inits: Sequence[Attribute],
    allowed: Sequence[int] | None,
) -> None:
    """upstream's verifyReducerShape on the region's block (``allowed`` None: an unranked input,
    whose dimensions are unknown -- any rank is accepted)."""
    from stablehlo_py.ir.infer.reduction import verify_reducer_shape

    upstream(
        lambda: verify_reducer_shape(
            region.blocks.first, inputs, inits, allowed if allowed is not None else [-1] * 64
        )
    )


# ------------------------------------------------------------------------------ reduce_window
@mlir_operand_split
@op_def
class ReduceWindowOp(GenericSyntaxOp, _RegionOp):
    """Applies a reduction function `body` to windows of `inputs` and `init_values` and produces
    `results` (spec.md#reduce_window)."""

    name = "stablehlo.reduce_window"
    inputs = var_operand_def()
    init_values = var_operand_def()
    window_dimensions = prop(DENSE_I64_ARRAY)
    window_strides = prop(DENSE_I64_ARRAY, optional=True)
    base_dilations = prop(DENSE_I64_ARRAY, optional=True)
    window_dilations = prop(DENSE_I64_ARRAY, optional=True)
    padding = prop(ANY_ATTR, optional=True)
    body = region_def()
    results_ = var_result_def()
    irdl_options = (SameVariadicOperandSize(),)


    def verify_(self) -> None:
        # upstream's ReduceWindowOp::verify (verifyReduceWindowOp), then the InferTypeOpInterface
        # check (reduce_window_c14...c16: stablehlo_py.ir.infer.reduction), which MLIR runs after it
        from stablehlo_py.ir.infer import InferInput
        from stablehlo_py.ir.infer.reduction import reduce_window_window

        if self.properties.get("window_dimensions") is None:
            raise VerifyException("reduce_window: window_dimensions is required")
        ods.check_i64_elements(self, "padding")
        inputs = [v.type for v in self.inputs]
        inits = [v.type for v in self.init_values]
        _ods_tensors(self, (inputs, inits), variadic=True, variadic_results=True)
        require_single_block(self, self.body, "body", non_empty=True)
        # reduce_window_c1, c2, c4...c12: the inputs and the window
        attrs = {**self.attributes, **self.properties}
        upstream(lambda: reduce_window_window(InferInput(tuple(inputs), attrs), inputs))
        # reduce_window_c3, reduce_window_c13: the body
        window = i64_array(self.properties.get("window_dimensions")) or ()
        _verify_reducer(self.body, inputs, inits, window)


# ------------------------------------------------------------------------- select_and_scatter
@op_def
class SelectAndScatterOp(GenericSyntaxOp, _RegionOp):
    """Scatters the values from the `source` tensor using `scatter` based on the outcome of
    `reduce_window` of the `input` tensor using `select` and produces a `result` tensor
    (spec.md#select_and_scatter)."""

    name = "stablehlo.select_and_scatter"
    operand = operand_def()
    source = operand_def()
    init_value = operand_def()
    window_dimensions = prop(DENSE_I64_ARRAY, optional=True)
    window_strides = prop(DENSE_I64_ARRAY, optional=True)
    padding = prop(ANY_ATTR, optional=True)
    select = region_def()
    scatter = region_def()
    result = result_def()
    VERIFY_BY_TYPES: ClassVar[bool] = False  # not declared type-only: verified op by op


    def verify_(self) -> None:
        # upstream's SelectAndScatterOp::verify (verifySelectAndScatterOp), then the
        # InferTypeOpInterface check (select_and_scatter_c11, c12), which MLIR runs after it
        from stablehlo_py.ir.infer.reduction import (
            compatible_shape_and_element,
            padding_pairs,
            window_dimensions,
            window_output_shape,
        )

        ot, st, it = self.operand.type, self.source.type, self.init_value.type
        ods.check_i64_elements(self, "padding")
        _ods_tensors(self, ([ot, st, it],), variadic=False, variadic_results=False)
        require_single_block(self, self.select, "select")
        require_single_block(self, self.scatter, "scatter")
        block = self.select.blocks.first
        assert block is not None
        # select_and_scatter_c9
        if len(block.args) != 2:
            fail_as_rule(
                f"expects the select-region to take 2 parameters, but takes {len(block.args)}"
            )
        scalar = tensor_type(element_type(ot), ())
        for i, a in enumerate(block.args):
            if not compatible_shape_and_element(scalar, a.type, ignore_fp=True):
                fail_as_rule(
                    f"expects the type of select-region's parameter at index {i} to be "
                    f"'{t2s(scalar)}', but got '{t2s(a.type)}'"
                )
        rets = return_types(self.select) or []
        if len(rets) != 1:
            fail_as_rule(f"expects select-region to return single value, but got: {len(rets)}")
        r = rets[0]
        if not (isinstance(r, TensorType) and r.element_type == I1 and not r.get_shape()):
            fail_as_rule(
                f"expects the return-type of select-region to be tensor<i1>, but got: '{t2s(r)}'"
            )
        # select_and_scatter_c10
        _verify_reducer(self.scatter, [tensor_type(element_type(st), ())], [it], ())
        os_ = shape_of(ot)
        if os_ is not None:
            dims = i64_array(self.properties.get("window_dimensions")) or ()
            # select_and_scatter_c4
            if len(os_) != len(dims):
                fail_as_rule(
                    "expects window-dimensions size == operand rank, but got window-dimensions "
                    f"size: {len(dims)} and operand-type: '{t2s(ot)}' with rank = {len(os_)}."
                )
            strides = i64_array(self.properties.get("window_strides")) or ()
            # select_and_scatter_c5, c7, c8
            window = upstream(
                lambda: window_dimensions(
                    dims, strides, padding_pairs(self.properties.get("padding")), (), (), ()
                )
            )
            expected = tensor_type(element_type(ot), tuple(window_output_shape(os_, window)))
            # select_and_scatter_c1, select_and_scatter_c2
            if not compatible_shape_and_element(expected, st, ignore_fp=True):
                fail_as_rule(f"expects source-type to be '{t2s(expected)}', but got'{t2s(st)}'")


@op_def
class SortOp(GenericSyntaxOp, _RegionOp):
    """Sorts 1-dimensional slices of `inputs` along `dimension` together, according to a
    `comparator`, and produces `results` (spec.md#sort)."""

    name = "stablehlo.sort"
    inputs = var_operand_def()
    dimension = prop(I64_ATTR, default=IntegerAttr(-1, I64))
    is_stable = prop(BOOL_ATTR, default=IntegerAttr(0, I1))
    comparator = region_def()
    results_ = var_result_def()


    def verify_(self) -> None:
        from stablehlo_py.ir.infer.reduction import verify_sort

        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.results]
        # ODS (sort_i1, results, the comparator region), the SameOperandsAndResultShape trait
        # (sort_c1, sort_c3), upstream's SortOp::verify (verifySortOp: sort_c4, sort_c5), then the
        # InferTensorType check (sort_c2), which MLIR runs after the op's verifier
        _ods_tensors(self, (ins,), variadic=True, variadic_results=True)
        require_single_block(self, self.comparator, "comparator")
        _same_operands_and_result_shape(ins, outs)
        upstream(verify_sort, ins, int_value(self.properties.get("dimension"), -1), self.comparator)


# ---------------------------------------------------------------------------------------- map
@op_def
class MapOp(GenericSyntaxOp, _RegionOp):
    """Applies a map function `computation` to `inputs` along the `dimensions` and produces a
    `result` tensor (spec.md#map)."""

    name = "stablehlo.map"
    inputs = var_operand_def()
    dimensions = prop(DENSE_I64_ARRAY)
    computation = region_def()
    result = result_def()

    # INFER_CHECK (the family's "after"): map_c1 (the result), map_c3, map_c4: InferTypeOpInterface
    # (stablehlo_py.ir.infer.reduction)

    def verify_(self) -> None:
        # ODS (map_i1, the result, the computation region), then the traits in upstream's order:
        # SameOperandsAndResultShape (map_c1, map_c2), SingleBlock
        ins = [v.type for v in self.inputs]
        _ods_tensors(self, (ins,), variadic=True, variadic_results=False)
        require_single_block(self, self.computation, "computation")
        _same_operands_and_result_shape(ins, [self.result.type])
        require_single_block(self, self.computation, "computation", non_empty=True)


OPS = (ReduceOp, ReduceWindowOp, SelectAndScatterOp, SortOp, MapOp)
