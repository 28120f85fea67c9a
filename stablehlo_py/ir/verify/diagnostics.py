"""The verifier's diagnostics in upstream's words: xDSL's `VerifyException` of an op becomes one
`VerifyError` at the location the op was parsed from (`diagnostic`).

Its text is worded as upstream emits it: `'stablehlo.xxx' op ...` for what upstream reports with
`emitOpError` (ODS and trait checks, the ops' own verifiers), and the bare message for what upstream's
inference rules and `hlo::verify*Op` functions report with `emitOptionalError(location, ...)` -- here,
an `InferError` of `stablehlo_py.ir.infer` that an op's verifier re-raised.  A failed result-type
refinement of an InferTypeOpInterface op carries upstream's second error in `following`."""

from __future__ import annotations

import re

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import VerifyError


def diagnostic(op: Operation, e: VerifyException) -> VerifyError:
    """`e` as upstream words it: the bare message when a rule emitted it at the op's location, else
    MLIR's `'<op>' op <message>`; when it is a failed result-type refinement of an
    InferTypeOpInterface op, upstream's "'<op>' op failed to infer returned types" follows."""
    from stablehlo_py.ir.infer.interfaces import reports_inference_failure

    message = _message(e)
    rule = rule_error(e, message)
    bare = rule is not None and not rule.op_prefixed
    location = op_location(op)
    prefix = f"'{op.name}' op "
    if message.startswith(f"'{op.name}' ") and not message.startswith(prefix):
        message = message[len(op.name) + 3 :]  # xDSL's "'x' expects parent op ..." (HasParent)
    worded = message if bare or message.startswith(prefix) else prefix + message
    if _NO_TERMINATOR.match(
        message
    ):  # MLIR's emitError(op.getLoc(), "block with no terminator, has ") << op
        worded = "block with no terminator, has " + op_text(op)
    if op.name == "func.return" and message.startswith(_RETURN_TYPES):
        worded = _func_return_message(op) or worded
    redefined = _REDEFINITION.match(message)
    if redefined is not None:
        # MLIR's SymbolTable verifier: at the second definition, which it names bare
        again = _second_definition(op, redefined.group(1))
        if again is not None:
            worded = f"redefinition of symbol named '{redefined.group(1)}'"
            location = op_location(again)
    err = VerifyError(worded, location=location)
    mismatch = message.startswith("inferred type(s) ") and _MISMATCH in message
    refinement = mismatch or (rule is not None and not (rule.invariant or rule.standalone))
    if refinement and reports_inference_failure(op.name, mismatch):
        err.following = [
            VerifyError(f"'{op.name}' op failed to infer returned types", location=location)
        ]
    return err


_REDEFINITION = re.compile(r'^Redefinition of symbol "(.*)"$')


def _second_definition(table: Operation, name: str) -> Operation | None:
    """The second op directly in `table`'s regions that defines the symbol `name`."""
    seen = 0
    for region in table.regions:
        for block in region.blocks:
            for child in block.ops:
                sym = child.properties.get("sym_name") or child.attributes.get("sym_name")
                if sym is not None and getattr(sym, "data", None) == name:
                    seen += 1
                    if seen == 2:
                        return child
    return None


_RETURN_TYPES = "Expected arguments to have the same types as the function output types"


def _func_return_message(op: Operation) -> str | None:
    """MLIR's func::ReturnOp::verify wording for what xDSL's ReturnOp words as "Expected arguments
    to have the same types as the function output types": a count with emitOpError, a type with
    emitError (no op prefix)."""
    from stablehlo_py.ir.text.spelling import type_to_str

    func = op.parent_op()
    ftype = func.properties.get("function_type") if func is not None else None
    name = func.properties.get("sym_name") if func is not None else None
    if ftype is None or name is None:
        return None
    results = ftype.outputs.data
    fname = name.data
    if len(op.operands) != len(results):
        return (
            f"'func.return' op has {len(op.operands)} operands, but enclosing function "
            f"(@{fname}) returns {len(results)}"
        )
    for i, (v, t) in enumerate(zip(op.operands, results)):
        if v.type != t:
            return (
                f"type of return operand {i} ('{type_to_str(v.type)}') doesn't match function "
                f"result type ('{type_to_str(t)}') in function @{fname}"
            )
    return None


_MISMATCH = " are incompatible with return type(s) of operation "
_NO_TERMINATOR = re.compile(
    r"^Operation \S+ terminates block in single-block region but is not a terminator"
)
_OP_START = re.compile(r'^\s*(%[^=]+= )?"[A-Za-z_][\w$.\-]*"')


def op_text(op: Operation) -> str:
    """`op`'s first line as MLIR prints an op in a diagnostic: generic form, values named as in the
    enclosing function (`%1 = "stablehlo.negate"(%arg1) : (tensor<f32>) -> tensor<f32>`)."""
    # the printer itself, not `stablehlo_py.ir.print_ir`: the package imports the dialect registry,
    # whose op modules import this module (the op exists, so what prints it is loaded)
    from stablehlo_py.ir.text.printer import print_module

    scope = op
    while scope.parent_op() is not None and scope.parent_op().parent_op() is not None:
        scope = scope.parent_op()
    try:
        lines = [ln for ln in print_module(scope, generic=True).splitlines() if _OP_START.match(ln)]
    except Exception:  # noqa: BLE001 - a diagnostic's decoration must not replace the diagnostic
        return f'"{op.name}"(...)'
    order = list(scope.walk())
    if len(lines) != len(order) or op not in order:
        return f'"{op.name}"(...)'
    return lines[order.index(op)].strip().removesuffix(" ({")


def rule_error(e: BaseException, message: str):
    """The `InferError` `e` was raised for, if its message is this one (a rule's diagnostic)."""
    from stablehlo_py.ir.infer import InferError

    cause = e.__cause__ or e.__context__
    for _ in range(8):
        if cause is None:
            return None
        if isinstance(cause, InferError):
            text = cause.message.strip("\n")
            return cause if text and text.splitlines()[0] == message else None
        cause = cause.__cause__ or cause.__context__
    return None


def op_location(op: Operation) -> str | None:
    """Where to report a diagnostic for `op`: its `loc(...)` if it has a file one, else where it was parsed."""
    from stablehlo_py.ir.text.parser import op_source_location

    return op_source_location(op)


_REGION_COUNT = re.compile(r"Expected (\d+) regions?, but got \d+")


def _region_count_message(m: re.Match[str]) -> str:
    """MLIR's region-count traits: OneRegion, ZeroRegions, NRegions<N>."""
    n = int(m.group(1))
    return {0: "requires zero regions", 1: "requires one region"}.get(n, f"expected {n} regions")


_MISSING = re.compile(r"^(?:property|attribute) '([^']+)' expected in operation '[^']+'$")


def _message(e: VerifyException) -> str:
    text = str(e).strip("\n")  # keep a message's own trailing space ("... vs " of an empty list)
    first = text.splitlines()[0] if text.strip() else "verification failed"
    # xDSL's structural wording where MLIR's says it otherwise: region counts, a missing required
    # attribute (ODS's "requires attribute 'x'")
    first = _MISSING.sub(r"requires attribute '\1'", first)
    return _REGION_COUNT.sub(_region_count_message, first)
