"""Control-flow ops (spec.md "Control flow"): if, case, while, return, optimization_barrier, after_all,
create_token and composite.

Syntax follows upstream's printer: `while` is hand-written (`stablehlo.while(%iterArg = %0) : T cond {..}
do {..}`, block arguments named `iterArg`), `return`/`optimization_barrier`/`after_all`/`create_token`
use their declarative formats, `composite` prints `"name" %inputs ({regions}) {attrs} : type`, and
`if`/`case` have no pretty form (upstream prints them generically).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import (
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import (
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.format import custom_directive, prop_defaults, set_slot
from stablehlo_py.ir.infer.control_flow import verify_composite, verify_while
from stablehlo_py.ir.ops.base import (  # noqa: F401  (print_region_argument: re-exported)
    DICT_ATTR,
    I32,
    I32_ATTR,
    STR_ATTR,
    SYMBOL_ATTR,
    GenericSyntaxOp,
    PureOp,
    StableHLOOp,
    check_written_types,
    op_def,
    print_region_argument,
)
from stablehlo_py.ir.ops.base import prop as prop_
from stablehlo_py.ir.verify.constraints import t2s
from stablehlo_py.ir.verify.ods_containers import (
    HLO_TensorOrPerAxisQuantizedTensorOrToken,
    HLO_TensorOrPerAxisQuantizedTensorOrTokenOrBuffer,
    HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple,
    HLO_TensorOrToken,
)
from stablehlo_py.ir.verify.ods_traits import pairwise_same, upstream
from stablehlo_py.ir.verify.ods_types import HLO_Token, check_values
from stablehlo_py.ir.verify.driver import after_regions
from stablehlo_py.ir.types import element_type

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


# ------------------------------------------------------------------------------------ helpers
def format_attrs(op: Operation, elided: tuple[str, ...] = ()) -> dict[str, Attribute]:
    """What a declarative `attr-dict` prints: properties not in the format and not equal to their
    default, plus discardable attributes."""
    defaults = prop_defaults(type(op))
    out = {k: v for k, v in op.properties.items() if k not in elided and defaults.get(k) != v}
    out.update(op.attributes)
    return out


def check_regions(op: Operation, names: tuple[str, ...]) -> None:
    """upstream's region constraints of if, case and while, in MLIR's order and words: the
    SingleBlockImplicitTerminator trait (at most one block per region), then ODS's `SizedRegion<1>`
    (`names[i]` is region #i's name in the op definition; a variadic group repeats its name)."""
    regions = list(op.regions)
    for i, r in enumerate(regions):
        if len(r.blocks) > 1:
            raise VerifyException(f"expects region #{i} to have 0 or 1 blocks")
        block = r.blocks.first
        if block is not None and block.last_op is None:
            raise VerifyException("expects a non-empty block")
    for i, (r, name) in enumerate(zip(regions, names)):
        if len(r.blocks) != 1:
            raise VerifyException(
                f"region #{i} ('{name}') failed to verify constraint: region with 1 blocks"
            )


def check_terminators(op: Operation) -> None:
    """SingleBlockImplicitTerminator<"ReturnOp">, a region trait (checked after the nested ops, see
    `after_regions`): a block's terminator is `stablehlo.return`.  A block whose last op is no
    terminator at all is the block verifier's error, reported at that op when it is verified."""
    for r in op.regions:
        block = r.blocks.first
        last = block.last_op if block is not None else None
        if last is not None and last.has_trait(IsTerminator) and last.name != "stablehlo.return":
            raise VerifyException(
                f"expects regions to end with 'stablehlo.return', found '{last.name}'"
            )


# ------------------------------------------------------------------------------------- return
class Terminator(IsTerminator):
    """MLIR's Terminator trait: the op must end its block (xDSL's IsTerminator in MLIR's words)."""

    def verify(self, op: Operation) -> None:
        if op.parent is not None and op.parent.last_op is not op:
            raise VerifyException("must be the last operation in the parent block")


@op_def
class ReturnOp(StableHLOOp):
    """Terminates the regions of StableHLO ops, returning `results` to the parent op."""

    name = "stablehlo.return"
    # Upstream's operand group is `results`, which is the name of xDSL's op results: `results_` here.
    results_ = var_operand_def()
    traits = traits_def(Terminator(), Pure())
    FORMAT: ClassVar[str | None] = "$results_ attr-dict (`:` type($results_)^)?"

    def verify_(self) -> None:
        check_values(
            "operand",
            [v.type for v in self.results_],
            HLO_TensorOrPerAxisQuantizedTensorOrTokenOrBuffer,
            variadic=True,
        )


def _check_results(op: Operation) -> None:
    """if's and case's ODS result constraint: `Variadic<HLO_TensorOrPerAxisQuantizedTensorOrToken>`."""
    check_values(
        "result",
        [r.type for r in op.results],
        HLO_TensorOrPerAxisQuantizedTensorOrToken,
        variadic=True,
    )


# ---------------------------------------------------------------------------------- if, case
_SELECTOR_ODS = {
    "i1": "ranked tensor of bool values",  # HLO_PredTensor:$pred
    "i32": "ranked tensor of 32-bit signless integer values",  # I32RankedTensor:$index
}
"""The ODS constraint of if's and case's selector operand, by its element type, in MLIR's words."""


def _verify_conditional(
    op: Operation, selector: Attribute, elem: str, regions: tuple[str, ...]
) -> None:
    """if and case: at most one block per region (before the ODS checks), the selector's ODS
    constraint (checked before the inference; its rank is the rule's), the results' ODS, the
    regions and their terminators; then (INFER_CHECK) inferConditionalOp (if_c1..if_c3,
    case_c1..case_c4)."""
    check_regions(op, ())
    if not (isinstance(selector, TensorType) and t2s(element_type(selector)) == elem):
        raise VerifyException(
            f"operand #0 must be {_SELECTOR_ODS[elem]}, but got '{t2s(selector)}'"
        )
    _check_results(op)
    check_regions(op, regions)
    after_regions(op, check_terminators)


class _RegionControlOp(StableHLOOp):
    """if, case and while (undecorated family base): the results their regions yield (declared
    here, IRDL collects them after the op's own fields), RecursiveMemoryEffect, and upstream's
    InferTypeOpInterface check, which MLIR runs with the regions' verification."""

    results_ = var_result_def()
    traits = traits_def(RecursiveMemoryEffect())
    INFER_CHECK: ClassVar[str | None] = "after_regions"


@op_def
class IfOp(GenericSyntaxOp, _RegionControlOp):
    """Produces the output from executing exactly one branch from `true_branch` or `false_branch`
    depending on the value of `pred` (spec.md#if)."""

    name = "stablehlo.if"
    pred = operand_def()
    true_branch = region_def()
    false_branch = region_def()

    def verify_(self) -> None:
        _verify_conditional(self, self.pred.type, "i1", ("true_branch", "false_branch"))


@op_def
class CaseOp(GenericSyntaxOp, _RegionControlOp):
    """Produces the output from executing exactly one function from `branches` depending on the
    value of `index` (spec.md#case)."""

    name = "stablehlo.case"
    index = operand_def()
    branches = var_region_def()

    def verify_(self) -> None:
        _verify_conditional(self, self.index.type, "i32", ("branches",) * len(self.branches))


# -------------------------------------------------------------------------------------- while
@op_def
class WhileOp(_RegionControlOp):
    """Produces the output from executing `body` 0 or more times while `cond` outputs `true`
    (spec.md#while)."""

    name = "stablehlo.while"
    operand = var_operand_def()
    cond = region_def()
    body = region_def()

    def asm_block_arg_name(self, region: Region) -> str:
        # Upstream's getAsmBlockArgumentNames: both regions' arguments are `%iterArg...`, and as
        # sibling regions they get the same names, which the pretty form prints once.
        return "iterArg"

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        start = p.pos
        p.parse_literal("(")
        names: list[tuple[str, int]] = []
        operands = []
        if not p.try_literal(")"):
            while True:
                p.ws()
                pos = p.pos
                names.append((p.parse_value_def_name(), pos))
                p.parse_literal("=")
                operands.append(p.parse_operand())
                if p.try_literal(")"):
                    break
                p.parse_literal(",")
        types: list[Attribute] = []
        if operands:
            p.parse_literal(":")
            types = p.parse_comma_list(p.parse_type)
            count = "{op} has {n} {noun}s but {m} types"
            check_written_types(p, start, "stablehlo.while", operands, types, count=count)
        attrs: dict[str, Attribute] = {}
        if p.try_keyword("attributes"):
            attrs = p.parse_attr_dict_body()
        args = [(n, t, None) for (n, _), t in zip(names, types)]
        p.parse_keyword("cond")
        cond = p.parse_region(entry_args=args, default_dialect="")
        p.parse_keyword("do")
        body = p.parse_region(entry_args=args, default_dialect="")
        return cls.build_generic(operands, list(types), {}, attrs, [cond, body])

    def print_pretty(self, pr: Printer) -> None:
        # The pretty form states the operand types only: the regions' argument types and the result
        # types are read back as those.  Upstream prints it regardless (and loses the other types,
        # its issue #871); here an op whose types differ prints generically, so it round-trips.
        types = [v.type for v in self.operand]
        same = [r.type for r in self.results] == types and all(
            len(r.blocks) == 1 and [a.type for a in r.blocks.first.args] == types  # type: ignore[union-attr]
            for r in (self.cond, self.body)
        )
        if not same:
            pr.print_generic(self)
            return
        super().print_pretty(pr)

    def print_custom(self, pr: Printer) -> None:
        body_args = list(self.body.blocks.first.args) if self.body.blocks else []
        pr.write("(")
        pr.write(
            ", ".join(f"{pr.value(a)} = {pr.value(v)}" for a, v in zip(body_args, self.operand))
        )
        pr.write(")")
        if len(self.operand):
            pr.write(" : ")
            pr.types(v.type for v in self.operand)
        # as upstream's printOptionalAttrDictWithKeyword: properties that differ from their default
        # too, so a property added in a new version prints without editing this printer
        pr.attr_dict(format_attrs(self), keyword=True)
        pr.newline()
        pr.write("cond ")
        pr.region(self.cond, print_entry_args=False, default_dialect="")
        pr.write(" do ")
        pr.region(self.body, print_entry_args=False, default_dialect="")

    def verify_(self) -> None:
        # upstream's order: the region constraints (SingleBlockImplicitTerminator, SizedRegion<1>),
        # WhileOp::verify (verifyWhileOp, which checks body's terminator itself), then the
        # InferTypeOpInterface check (while_c3), which MLIR runs with the regions' verification
        check_regions(self, ())  # at most one block each, before the ODS checks
        for kind, types in (
            ("operand", [v.type for v in self.operand]),
            ("result", [r.type for r in self.results]),
        ):
            check_values(
                kind, types, HLO_TensorOrPerAxisQuantizedTensorOrTokenOrBuffer, variadic=True
            )
        check_regions(self, ("cond", "body"))
        upstream(verify_while, [v.type for v in self.operand], self.cond, self.body)


# ------------------------------------------------------------------------ optimization_barrier
@custom_directive("PairwiseOpType")
class PairwiseOpType:
    """`T0, T1, ...`: the operand types; the results have the same types (printPairwiseOpType)."""

    @staticmethod
    def print(pr: Printer, op: Any, operand_types: Any, result_types: Any) -> None:
        pr.types(operand_types)

    @staticmethod
    def parse(p: Parser, st: Any, operand_arg: Any, result_arg: Any) -> None:
        from stablehlo_py.errors import ParseError

        p.ws()
        pos = p.pos
        try:
            types = p.parse_comma_list(p.parse_type)
        except ParseError as e:
            e.preceding = [p.op_diagnostic("expected type list", pos)]  # type: ignore[attr-defined]
            raise
        # their count is checked when the operands are resolved
        set_slot(st, operand_arg, types)
        set_slot(st, result_arg, list(types))


@op_def
class OptimizationBarrierOp(PureOp):
    """Ensures that the operations that produce the `operand` are executed before any operations
    that depend on the `result` (spec.md#optimization_barrier)."""

    name = "stablehlo.optimization_barrier"
    operand = var_operand_def()
    result = var_result_def()
    FORMAT: ClassVar[str | None] = (
        "attr-dict ($operand^ `:` custom<PairwiseOpType>(type($operand), type($result))):(`(` `)`)?"
    )
    # INFER_CHECK (PureOp's "after"): optimization_barrier_c1

    def verify_(self) -> None:
        ins = [v.type for v in self.operand]
        outs = [r.type for r in self.result]
        # ODS: Variadic<HLO_TensorOrToken> operands and results
        check_values("operand", ins, HLO_TensorOrToken, variadic=True)
        check_values("result", outs, HLO_TensorOrToken, variadic=True)
        # HLO_PairwiseSameOperandAndResultType (a trait before InferTypeOpInterface upstream)
        pairwise_same(ins, outs)


# -------------------------------------------------------------------------- after_all / token
@op_def
class AfterAllOp(PureOp):
    """Ensures that the operations producing the `inputs` are executed before any operations that
    depend on `result` (spec.md#after_all)."""

    name = "stablehlo.after_all"
    inputs = var_operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$inputs attr-dict `:` custom<VariadicSameOperandsAndResultType>(ref($inputs), type($inputs), type($result))"
    )

    def verify_(self) -> None:
        # upstream's ODS constraints (after_all_i1: Variadic<HLO_Token>, a token result), then the
        # inference check
        check_values("operand", [v.type for v in self.inputs], HLO_Token, variadic=True)
        check_values("result", [self.result.type], HLO_Token)


@op_def
class CreateTokenOp(PureOp):
    """Produces a token (same as after_all with no inputs; not in the spec)."""

    name = "stablehlo.create_token"
    output = result_def()
    FORMAT: ClassVar[str | None] = "attr-dict `:` type(results)"

    def verify_(self) -> None:
        check_values("result", [self.output.type], HLO_Token)  # ODS, then inference


# ---------------------------------------------------------------------------------- composite
@op_def
class CompositeOp(StableHLOOp):
    """Encapsulates an operation made up of other StableHLO operations, taking `inputs` and
    `composite_attributes` and producing `results`; `decomposition` implements it (spec.md#composite)."""

    name = "stablehlo.composite"
    inputs = var_operand_def()
    # The property is called `name`, which is also xDSL's op-name class attribute.
    name_prop = prop_def(STR_ATTR.constraint, prop_name="name")  # StrAttr:$name
    composite_attributes = prop_(DICT_ATTR, default=DictionaryAttr({}))
    decomposition = prop_(SYMBOL_ATTR)
    version = prop_(I32_ATTR, default=IntegerAttr(0, I32))
    composite_regions = var_region_def()
    results_ = var_result_def()
    FORMAT: ClassVar[str | None] = None

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        start = p.pos
        comp_name = p.parse_string("the composite's name (a string)")
        operands = p.parse_operand_list() if p.peek() == "%" else []
        regions: list[Region] = []
        if p.try_literal("("):
            regions = p.parse_comma_list(lambda: p.parse_region(default_dialect=""))
            p.parse_literal(")")
        attrs = p.try_attr_dict()
        p.parse_literal(":")
        ft = p.parse_function_type()
        ins = list(ft.inputs.data)
        check_written_types(p, start, "stablehlo.composite", operands, ins, noun="input")
        props: dict[str, Attribute] = {"name": StringAttr(comp_name)}
        return cls.build_generic(operands, list(ft.outputs.data), props, attrs, regions)

    def print_custom(self, pr: Printer) -> None:
        from stablehlo_py.ir.text.printer import function_type_to_str, string_literal

        name_attr = self.properties.get("name")
        pr.write(" " + string_literal(name_attr.data if isinstance(name_attr, StringAttr) else ""))
        pr.write(" ")
        pr.operands(self.inputs)
        if self.composite_regions:
            pr.write(" (")
            for i, r in enumerate(self.composite_regions):
                if i:
                    pr.write(", ")
                pr.region(r, default_dialect="")
            pr.write(")")
        pr.attr_dict(format_attrs(self, ("name",)))
        pr.write(
            " : "
            + function_type_to_str([v.type for v in self.inputs], [r.type for r in self.results])
        )

    def verify_(self) -> None:
        # ODS: Variadic<HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple> inputs and results
        for kind, types in (
            ("operand", [v.type for v in self.inputs]),
            ("result", [r.type for r in self.results]),
        ):
            check_values(
                kind, types, HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple, variadic=True
            )
        name_attr = self.properties.get("name")
        callee = self.properties.get("decomposition")
        root = getattr(callee, "root_reference", None)
        # upstream's lookupNearestSymbolFrom: the func.func of that name in the nearest module
        module = self.parent_op()
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
        if root is None or module is None:
            return
        decomposition_type = None
        for op in module.body.ops:
            sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
            if (
                op.name == "func.func"
                and isinstance(sym, StringAttr)
                and sym.data == root.data
                and isinstance(ftype := op.properties.get("function_type"), FunctionType)
            ):
                decomposition_type = ftype
                break
        upstream(
            verify_composite,
            name_attr.data if isinstance(name_attr, StringAttr) else "",
            root.data,
            decomposition_type,
            [v.type for v in self.inputs],
            [r.type for r in self.results],
        )


# the syntax of `name` under its property name, where the builder and the format engine look
CompositeOp._PROP_SYNTAX = {**CompositeOp._PROP_SYNTAX, "name": STR_ATTR}

OPS = (
    ReturnOp,
    IfOp,
    CaseOp,
    WhileOp,
    OptimizationBarrierOp,
    AfterAllOp,
    CreateTokenOp,
    CompositeOp,
)
