"""MLIR's `SameVariadicOperandSize` on an operand count that does not split evenly.

ODS's accessors of an op with `SameVariadicOperandSize` give each variadic group
``(operands - fixed) / groups`` operands, rounded down; the operands left over belong to no group
and are never looked at.  So upstream verifies `"stablehlo.reduce"(%a, %b, %c)` as a reduce of one
input and one init value (verify_reduce.mlir's reduce_c6 expects the body's parameter count, not an
operand-count error).  xDSL's accessors round down the same way (`SameVariadicAccessor`), but its
`OpDef.verify` refuses the count first ("Operation has 3 operands for 2 variadic operands marked as
having the same size.").

`mlir_operand_split(cls)` makes an op class verify as MLIR does: its OpDef becomes a
`_MlirSplitOpDef`, whose `verify` is xDSL's `OpDef.verify` (xDSL 0.74) except that an uneven
operand count is accepted and the operand constraints are checked on the groups the accessors see.
An even count takes xDSL's own `OpDef.verify` unchanged (and the compiled verification plans of
`stablehlo_py.ir.verify.driver`, which still refuse an uneven count and fall back to this verifier).

Why a class swap: `irdl_op_definition` builds the OpDef and the class's accessors from it; the
definition object stays the one xDSL made (its fields, and any later edits of them such as
`ir.ops.base`'s constraint messages), only its `verify` changes.  Regression tests:
tests/unit/ir/test_xdsl_compat.py (the swap, MLIR's verification of an uneven count, and a guard on
xDSL's `OpDef.verify`, which `_MlirSplitOpDef.verify` follows).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import operations as O
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

OpT = TypeVar("OpT", bound=type)


def _uneven(op_def: O.OpDef, op: Operation) -> bool:
    defs = op_def.operands
    groups = sum(isinstance(d, O.VariadicDef) for _, d in defs)
    fixed = len(defs) - groups
    n = len(op.operands)
    return groups > 0 and n >= fixed and (n - len(defs)) % groups != 0


class _MlirSplitOpDef(O.OpDef):
    """An OpDef whose verifier splits an uneven operand count as MLIR's ODS accessors do."""

    PLAN_EQUIVALENT = True
    """`verify` is xDSL's OpDef.verify for every op whose operand count splits evenly, and a
    compiled verification plan refuses any other (stablehlo_py.ir.verify.driver falls back here)."""

    def verify(self, op: Operation) -> None:
        if not _uneven(self, op):
            super().verify(op)
            return
        ctx = VerificationContext()
        # operands: each group as the accessor gives it (the leftover operands are in none),
        # with xDSL's wording
        idx = 0
        for name, d in self.operands:
            args: SSAValue | Sequence[SSAValue] | None = getattr(op, name)
            if args is None:
                types: tuple[object, ...] = ()
            elif isinstance(args, SSAValue):
                types = (args.type,)
            else:
                types = tuple(a.type for a in args)
            try:
                d.constr.verify(types, ctx)  # type: ignore[arg-type]
            except VerifyException as e:
                n = len(types)
                pos = (
                    f"expected at position {idx}"
                    if n == 0
                    else f"at position {idx}"
                    if n == 1
                    else f"at positions {idx} to {idx + n - 1}"
                )
                raise VerifyException(f"operand '{name}' {pos} does not verify:\n{e}") from e
            idx += len(types)
        # the rest as xDSL's OpDef.verify
        O.irdl_op_verify_arg_list(op, self, O.VarIRConstruct.RESULT, ctx)
        O.irdl_op_verify_regions(op, self, ctx)
        O.verify_variadic_size(op, self, O.VarIRConstruct.SUCCESSOR)
        # properties, then attributes (an op may hold attributes its definition does not name)
        for what, defs, given, optional in (
            ("property", self.properties, op.properties, O.OptPropertyDef),
            ("attribute", self.attributes, op.attributes, O.OptAttributeDef),
        ):
            for name, d in defs.items():
                if name not in given:
                    if isinstance(d, optional):
                        continue
                    raise VerifyException(f"{what} '{name}' expected in operation '{op.name}'")
                d.constr.verify(given[name], ctx)
            undefined = [name for name in given if name not in defs] if what == "property" else []
            if undefined:
                raise VerifyException(
                    f"property '{undefined[0]}' is not defined by the operation '{op.name}'. "
                    "Use the dictionary attribute to add arbitrary information to the operation."
                )
        for trait in self.traits:
            trait.verify(op)


def mlir_operand_split(cls: OpT) -> OpT:
    """Verify `cls` (an IRDL op with `SameVariadicOperandSize`) with MLIR's operand split."""
    op_def = cls.get_irdl_definition()  # type: ignore[attr-defined]
    assert any(isinstance(o, O.SameVariadicOperandSize) for o in op_def.options), cls
    op_def.__class__ = _MlirSplitOpDef
    return cls
