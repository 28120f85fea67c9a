"""Forms a producer expects (issue 26, Deliver 3): shorter ways to say what an op needs.

- ``convert(x, "f32")`` / ``bitcast_convert(x, "i32")``: an element type alone (the builder-only
  parameter ``element_type``, or ``result_type=`` given an element type) means the operand's type
  (shape, ``?`` dimensions and bounds) with that element type.  For any other op an element type as
  ``result_type=`` is a BuildError that says which tensor type to give.
- ``Module.serialize(target, format=...)``: the format is explicit (``SERIALIZE_FORMATS`` says what
  each is for), and a module that still holds CHLO ops is refused before serializing, pointing at
  ``Module.lower()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from xdsl.dialects.builtin import ComplexType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.types import element_type_of, to_type
from stablehlo_py.ir.types import element_type_name

DTYPE_FORM = frozenset({"stablehlo.convert", "stablehlo.bitcast_convert"})
"""Ops whose result may be given as an element type alone (the operand's shape is kept)."""

ELEMENT_TYPE = "element_type"
"""The builder-only parameter of the DTYPE_FORM ops (after the operand: ``convert(x, "f32")``)."""


def _is_element_type(t: Attribute) -> bool:
    """An element type (``f32``, ``i8``, ``complex<f32>``, a quantized type), not a tensor,
    token or tuple."""
    if isinstance(t, TensorType):
        return False
    if isinstance(t, ComplexType):
        return True
    return element_type_name(t) is not None or t.__class__.__name__ == "UniformQuantizedType"


def _element_spec(spec: Any) -> Attribute | None:
    """The element type ``spec`` names, or None when it is not one (a tensor type, a list...)."""
    if isinstance(spec, list) or (isinstance(spec, tuple) and len(spec) != 1):
        return None
    try:
        t = to_type(spec)
    except BuildError:
        try:
            return element_type_of(spec)  # numpy dtypes, np.float32, "float32"
        except BuildError:
            return None
    return t if _is_element_type(t) else None


def dtype_result(op_name: str, values: dict[str, Any], result_type: Any) -> Any:
    """For a DTYPE_FORM op: the result type when ``element_type`` or an element-type
    ``result_type=`` is given (the operand's type with that element type); else ``result_type``."""
    given = values.pop(ELEMENT_TYPE, None)
    if given is not None and result_type is not None:
        raise BuildError(
            f"{op_name}: give the element type ({given!r}) or result_type=, not both",
        )
    if given is None:
        if result_type is None:
            raise BuildError(
                f"{op_name}: give the result's element type, "
                f"e.g. {op_name.split('.')[1]}(x, 'f32')",
                note="or result_type= with the whole result type",
            )
        elem = _element_spec(result_type)
        if elem is None:
            return result_type
    else:
        elem = _element_spec(given)
        if elem is None:
            raise BuildError(
                f"{op_name}: element_type {given!r} is not an element type",
                note="write 'f32', 'bf16', 'i8', np.float32, ... "
                "(or result_type= with a tensor type)",
            )
    operand = values.get("operand")
    if not isinstance(operand, SSAValue) or not isinstance(operand.type, TensorType):
        raise BuildError(
            f"{op_name}: an element type alone needs a tensor operand to take the shape from; "
            f"give result_type= with the whole type"
        )
    t = operand.type
    if op_name == "stablehlo.bitcast_convert" and _bits(t.element_type) != _bits(elem):
        raise BuildError(
            f"{op_name}: {_text(elem)} has another bit width than {_text(t.element_type)}: "
            f"the shape changes, so give result_type= with the whole type"
        )
    return TensorType(elem, t.get_shape(), t.encoding)


def _bits(t: Attribute) -> int | None:
    """The element type's bit width (xDSL's ``bitwidth``), None when it has none here."""
    try:
        return t.bitwidth  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 -- a type without a width: the op's check speaks
        return None


def _text(t: Attribute) -> str:
    from stablehlo_py.ir.verify.constraints import t2s

    return t2s(t)


def refuse_element_results(op_name: str, results: Sequence[Attribute]) -> None:
    """``result_type=`` given as an element type to an op whose result is a tensor: a BuildError
    naming the tensor type to give."""
    for t in results:
        if _is_element_type(t):
            raise BuildError(
                f"{op_name}: result_type {_text(t)} is an element type; "
                f"{op_name} needs a tensor type such as ((4, 2), {_text(t)!r})"
            )


# ----------------------------------------------------------------------------- serialization
SERIALIZE_FORMATS = {
    "mlir": "upstream's MLIR bytecode, what XLA, IREE and upstream's tools read",
    "msgpack": "this toolkit's archive format, read by stablehlo_py only",
}
"""``Module.serialize``'s formats and what each is for."""


def format_error() -> BuildError:
    """``Module.serialize`` without ``format=``."""
    choices = "; ".join(f'format="{k}" ({v})' for k, v in SERIALIZE_FORMATS.items())
    return BuildError(f"Module.serialize: give the format: {choices}")


def first_chlo(ops: Iterable[Operation]) -> Operation | None:
    """The first CHLO op among ``ops`` (a module's walk), or None."""
    for op in ops:
        if op.name.startswith("chlo."):
            return op
    return None


def chlo_error(op: Operation, fmt: str) -> BuildError:
    """A CHLO op left in a module being serialized: no format holds it (VHLO has no CHLO)."""
    from stablehlo_py.ir.text.location import TextLoc

    fn = op.parent_op()
    while fn is not None and fn.name != "func.func":
        fn = fn.parent_op()
    name = None if fn is None else fn.properties["sym_name"].data  # type: ignore[attr-defined]
    where = "" if name is None else f" in @{name}"
    loc = getattr(op, "location", None)
    at = f" (built at {loc.data})" if isinstance(loc, TextLoc) and loc.data != "unknown" else ""
    return BuildError(
        f"Module.serialize: {op.name}{where}{at} has no portable form (format={fmt!r} holds "
        "StableHLO only); call m.lower() first: "
        "it returns the module with CHLO rewritten to StableHLO"
    )


# ----------------------------------------------------------------------------------- lowering
LOWERINGS: dict[str, tuple[str, str]] = {
    "chlo": ("chlo-legalize-to-stablehlo", "CHLO ops rewritten as StableHLO (as upstream's "
             "chlo-pre-serialization-pipeline)"),
    "composites": ("stablehlo-legalize-composite-to-call", "each stablehlo.composite becomes a "
                   "func.call of its decomposition"),
    "inline": ("inline", "every func.call inlined, the private functions no longer used dropped"),
}
"""``Module.lower``'s named steps: step -> (pass pipeline, what it does)."""

DEFAULT_LOWERING = ("chlo",)
"""What ``Module.lower()`` does without names: what no serialization format holds (CHLO)."""


def lowering_pipeline(steps: Sequence[str]) -> str:
    """The pass pipeline of ``Module.lower(*steps)``, in the order given."""
    unknown = [s for s in steps if s not in LOWERINGS]
    if unknown or not steps:
        known = "; ".join(f'"{k}" ({v[1]})' for k, v in LOWERINGS.items())
        what = f"unknown step {unknown[0]!r}" if unknown else "no step given"
        raise BuildError(f"Module.lower: {what}; the steps: {known}")
    return ",".join(LOWERINGS[s][0] for s in steps)


def lowered(op: Operation, steps: Sequence[str]) -> Operation:
    """A lowered copy of the module ``op`` (``op`` is unchanged); a step that fails, or CHLO left
    after the "chlo" step, is a BuildError."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.passes.drivers.pipeline import run_pipeline

    pipeline = lowering_pipeline(steps)
    try:
        out = run_pipeline(op.clone(), pipeline)
    except BuildError:
        raise
    except StableHLOError as e:
        raise BuildError(f"Module.lower: {e.message}", note=e.note) from None
    if "chlo" in steps:
        left = first_chlo(out.walk())
        if left is not None:
            raise BuildError(f"Module.lower: {left.name} is still CHLO after {pipeline}")
    return out
