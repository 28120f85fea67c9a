"""`stablehlo-check-shape-assertions{enable-shape-assertions=true}`: upstream's
StablehloCheckShapeAssertions.cpp, for the shape assertions JAX emits in shape-polymorphic exports:

    stablehlo.custom_call @shape_assertion(%assert_what, %input0, ...) {
      error_message = "Dimension {0} must be positive", has_side_effect = true, api_version = 2 : i32
    } : (tensor<i1>, tensor<i64>, ...) -> ()

Each assertion is first checked to be well formed (upstream's verifyShapeAssertion: 1 to 33
operands, no results, only the attributes api_version/backend_config/call_target_name/error_message/
has_side_effect, an empty backend_config, a 0-d i1 `assert_what`, 0-d i32/i64 inputs, format
specifiers `{N}` with N below the number of inputs).  Then `assert_what` must be a constant (else
"expects static assert_what (operand #0)"): an assertion that holds is erased; one that fails
reports its error_message at the custom call, with `{N}` (llvm::formatv syntax) replaced by the
constant value of input N.  With `enable-shape-assertions=false` every assertion is erased unchecked.

Every failing assertion is reported, as upstream (the last one is raised, the others are in its
`preceding` list; see `passes.diagnostics`).
"""

from __future__ import annotations

import re
from typing import NoReturn

from stablehlo_py.passes.drivers.diagnostics import raise_collected
from xdsl.dialects.builtin import DictionaryAttr, IntegerType, Signedness, StringAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.infer.data_movement import constant_ints
from stablehlo_py.ir.verify import op_location
from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["SHAPE_ASSERTION", "format_error_message", "run"]

PASS_NAME = "stablehlo-check-shape-assertions"
SUMMARY = "Check stablehlo.custom_call @shape_assertion ops."
OPTIONS = (
    PassOption(
        "enable-shape-assertions",
        "bool",
        True,
        "Whether shape assertions may generate errors.",
    ),
)

SHAPE_ASSERTION = "shape_assertion"
MAX_ERROR_MESSAGE_INPUTS = 32  # upstream's bound (it formats through a fixed-arity llvm::formatv)
_ALLOWED_ATTRIBUTES = (
    "api_version",
    "backend_config",
    "call_target_name",
    "error_message",
    "has_side_effect",
)
# properties the custom call always has (defaults); upstream does not store them unless written
_DEFAULTED = {"called_computations", "output_operand_aliases"}


def run(op: Operation, options: dict[str, object]) -> Operation:
    enabled = bool(options["enable-shape-assertions"])
    diagnostics: list[VerifyError] = []
    for call in [o for o in op.walk() if _is_shape_assertion(o)]:
        if enabled:
            try:
                check_shape_assertion(call)
            except VerifyError as e:
                diagnostics.append(e)  # as upstream, the walk goes on to the other assertions
                continue
        Rewriter.erase_op(call)
    if diagnostics:
        raise_collected(diagnostics)
    return op


def check_shape_assertion(call: Operation) -> None:
    """Raise VerifyError at `call` unless it is a well-formed assertion whose constant `assert_what`
    holds."""
    _verify_shape_assertion(call)
    inputs = list(call.operands)
    assert_what = constant_ints(inputs[0])
    if assert_what is None:
        _fail(call, "expects static assert_what (operand #0)")
    if assert_what[0] != 0:
        return
    values: list[int] = []
    for i in range(1, len(inputs)):
        v = constant_ints(inputs[i])
        if v is None:
            _fail(call, f"expects static error_message_input (operand #{i})")
        values.append(v[0])
    _fail(call, format_error_message(_error_message(call), values))


def _is_shape_assertion(op: Operation) -> bool:
    if op.name != "stablehlo.custom_call":
        return False
    target = op.properties.get("call_target_name")
    return isinstance(target, StringAttr) and target.data == SHAPE_ASSERTION


def _verify_shape_assertion(call: Operation) -> None:
    n = len(call.operands)
    if not 1 <= n <= 1 + MAX_ERROR_MESSAGE_INPUTS:
        _fail(call, f"expects 1 <= size(operands) <= {1 + MAX_ERROR_MESSAGE_INPUTS}")
    if call.results:
        _fail(call, "expects size(results) = 0")
    for name in (*call.properties, *call.attributes):
        if name in _ALLOWED_ATTRIBUTES or name in _DEFAULTED and _is_default(call, name):
            continue
        _fail(call, f"{name} is not a supported attribute")
    backend = call.properties.get("backend_config")
    if backend is not None and not _is_empty(backend):
        _fail(call, "expects an empty backend_config")
    if not _is_scalar_int(call.operands[0].type, (1,)):
        _fail(call, "expects assert_what (operand #0) to be a constant of type tensor<i1>")
    for i in range(1, n):
        if not _is_scalar_int(call.operands[i].type, (32, 64)):
            _fail(
                call,
                f"expects error_message_input (operand #{i}) to be a constant of type tensor<i32> or tensor<i64>",
            )
    if "error_message" not in call.attributes and "error_message" not in call.properties:
        _fail(call, "expects an error_message attribute")
    message = _error_message(call)
    # format specs: "{" index ["," layout] [":" format] "}"; every index must name an input
    begin = message.find("{")
    while begin != -1:
        end = _find_first_of(message, ",:}", begin)
        if end == -1:
            break
        index = message[begin + 1 : end]
        if re.fullmatch(r"-?\d+", index) and not 0 <= int(index) < n - 1:
            _fail(
                call,
                "expects error_message to contain format specifiers with error_message_input index "
                f"less than {n - 1}. Found specifier {message[begin : end + 1]}",
            )
        begin = message.find("{", begin + 1)


def _is_default(call: Operation, name: str) -> bool:
    from xdsl.dialects.builtin import ArrayAttr

    value = call.properties.get(name)
    return isinstance(value, ArrayAttr) and not value.data


def _is_empty(backend: Attribute) -> bool:
    """upstream's hasEmptyBackendConfig: an empty string or an empty dictionary."""
    if isinstance(backend, StringAttr):
        return backend.data == ""
    return isinstance(backend, DictionaryAttr) and not backend.data


def _is_scalar_int(t: Attribute, widths: tuple[int, ...]) -> bool:
    if not isinstance(t, TensorType) or t.get_shape():
        return False
    e = t.element_type
    return (
        isinstance(e, IntegerType)
        and e.signedness.data == Signedness.SIGNLESS
        and e.width.data in widths
    )


def _error_message(call: Operation) -> str:
    a = call.attributes.get("error_message") or call.properties.get("error_message")
    if not isinstance(a, StringAttr):
        _fail(call, "expects an error_message attribute")
    return a.data


def _find_first_of(text: str, chars: str, start: int) -> int:
    hits = [i for i in (text.find(c, start) for c in chars) if i != -1]
    return min(hits) if hits else -1


# -------------------------------------------------------------------- llvm::formatv (integers)
_REPLACEMENT = re.compile(r"\{\{|\{([^{}]*)\}")
_LAYOUT = re.compile(r"^(?:(.)?([-=+]))?(\d+)$")


def format_error_message(message: str, inputs: list[int]) -> str:
    """upstream's formatErrorMessage: the message as is without inputs, else llvm::formatv of the
    message with the inputs (`{N}`, `{N,layout}`, `{N:style}`; `{{` is a literal brace); an index
    without an input gives -1, as upstream's errInput."""
    if not inputs:
        return message

    def value(i: int) -> int:
        return inputs[i] if 0 <= i < len(inputs) else -1

    def replace(m: re.Match[str]) -> str:
        if m.group(0) == "{{":
            return "{"
        spec = m.group(1).strip()
        head, _, style = spec.partition(":")
        index_text, _, layout = head.partition(",")
        if not re.fullmatch(r"\d+", index_text.strip()):
            return m.group(0)  # formatv prints an invalid replacement as written
        text = _format_int(value(int(index_text)), style.strip())
        return _align(text, layout.strip())

    return _REPLACEMENT.sub(replace, message)


def _format_int(v: int, style: str) -> str:
    """llvm's format_provider for integers: `` / `d`/`D` decimal, `N`/`n` with digit grouping, `x`/`X`
    hex with 0x (`x-`/`X-` without prefix, `x+` with), an optional digit count."""
    m = re.fullmatch(r"([dDnNxX])?([-+])?(\d*)", style)
    if m is None:
        return str(v)
    kind, sign, digits = m.group(1) or "d", m.group(2) or "", m.group(3)
    if kind in "xX":
        body = format(v & ((1 << 64) - 1) if v < 0 else v, "x")
        if digits:
            body = body.rjust(int(digits), "0")
        body = body.upper() if kind == "X" else body
        return body if sign == "-" else "0x" + body if kind == "x" else "0X" + body
    body = f"{v:,}" if kind in "nN" else str(v)
    return body.rjust(int(digits), "0") if digits and kind in "dD" else body


def _align(text: str, layout: str) -> str:
    m = _LAYOUT.match(layout) if layout else None
    if m is None:
        return text
    fill, where, width = m.group(1) or " ", m.group(2) or "+", int(m.group(3))
    pad = max(0, width - len(text))
    if where == "-":
        return text + fill * pad
    if where == "=":
        return fill * (pad // 2) + text + fill * (pad - pad // 2)
    return fill * pad + text


def _fail(call: Operation, message: str) -> NoReturn:
    raise VerifyError(message, location=op_location(call))
