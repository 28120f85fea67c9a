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

from xdsl.dialects.builtin import ComplexType, FunctionType, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.builder.core import current_module
from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.types import element_type_of, to_type
from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.infer import InferError
from stablehlo_py.ir.infer.control_flow import verify_composite
from stablehlo_py.ir.types import element_type_name

DTYPE_FORM = frozenset({"stablehlo.convert", "stablehlo.bitcast_convert"})
"""Ops whose result may be given as an element type alone (the operand's shape is kept)."""

ELEMENT_TYPE = "element_type"
"""The builder-only parameter of the DTYPE_FORM ops (after the operand: ``convert(x, "f32")``)."""

RESULTS_FROM = {
    **{
        op: "the operand's shape with the element type given (convert(x, 'f32')), "
        "or result_type= with the whole type"
        for op in DTYPE_FORM
    },
    "stablehlo.composite": "the decomposition's result types (result_type= overrides)",
}
"""Where an op's result type comes from, for help(), when it is neither inferred nor required."""


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


# -------------------------------------------------------------------------------- convolution
CONV_DEFAULTS: dict[str, Any] = {"feature_group_count": 1, "batch_group_count": 1}
"""Builder defaults of convolution and dynamic_conv (the properties stay required in the IR, as in
upstream's ODS; jax.lax's defaults).  Strides and dilations are optional properties (1)."""

CONV_OPS = ("stablehlo.convolution", "stablehlo.dynamic_conv")
CONV_OPTIONAL = ("dimension_numbers", *CONV_DEFAULTS)
"""Parameters required by the IR that the builder fills in (shown with a default by help())."""

FORM_KINDS: dict[tuple[str, str], str] = {
    **{(op, "dimension_numbers"): "dict or str or (lhs,rhs,out)" for op in CONV_OPS},
    ("stablehlo.convolution", "padding"): '[[int]] or "SAME"/"SAME_LOWER"/"VALID"',
    ("stablehlo.composite", "decomposition"): "symbol or fn",
    **{
        (op, "value"): "number or [number] or ndarray"
        for op in ("stablehlo.constant", "chlo.constant")
    },
}
"""Attributes that take more than their kind's values here (conv_form, opgen's composite hook):
what the builder's signatures show (help(), docs/builder-ops.md)."""

_LAYOUT_CHARS = (("N", "C"), ("O", "I"), ("N", "C"))
PADDINGS = ("SAME", "SAME_LOWER", "VALID")


def conv_form(op_name: str, values: dict[str, Any], operands: Sequence[SSAValue]) -> None:
    """Fill in a convolution's builder defaults: group counts 1; ``dimension_numbers`` omitted ->
    JAX's default (``NCHW``-style iota: batch, feature, spatial...), or a 3-tuple of layout strings
    (``("NHWC", "HWIO", "NHWC")``) read as ``jax.lax.conv_general_dilated`` reads them; ``padding``
    as ``"SAME"``, ``"SAME_LOWER"`` or ``"VALID"`` with JAX's rule (``lax.padtype_to_pads`` on the
    dilated kernel's spatial sizes)."""
    for k, v in CONV_DEFAULTS.items():
        if values.get(k) is None:
            values[k] = v
    if len(operands) < 2:
        return
    lhs, rhs = operands[0].type, operands[1].type
    if not (isinstance(lhs, TensorType) and isinstance(rhs, TensorType)):
        return  # the op's check says what is wrong
    lshape, rshape = tuple(lhs.get_shape()), tuple(rhs.get_shape())
    dn = values.get("dimension_numbers")
    dims = None
    if dn is None:
        if len(lshape) < 2:
            raise BuildError(
                f"{op_name}: the default dimension_numbers (batch, feature, spatial...) need an lhs "
                f"of rank 2 or more; lhs is {_text(lhs)}"
            )
        iota = tuple(range(len(lshape)))
        dims = _dims_of(iota, iota, iota)
    elif isinstance(dn, tuple | list) and all(isinstance(s, str) for s in dn):
        dims = _dims_of(*_layout_perms(op_name, tuple(dn), lshape, rshape))
    else:
        dims = _known_dims(dn)
    if dims is not None:
        values["dimension_numbers"] = dims
    pad = values.get("padding")
    if op_name == "stablehlo.convolution" and isinstance(pad, str):
        values["padding"] = _pads(op_name, pad, dims, lshape, rshape, values)


def _layout_perms(
    op_name: str, specs: tuple[str, ...], lshape: tuple[int, ...], rshape: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    """jax's conv_general_permutations, with its checks as BuildErrors in its words."""

    def bad(msg: str) -> BuildError:
        return BuildError(f"{op_name}: {msg}")

    if len(specs) != 3:
        raise bad(f"convolution dimension_numbers list/tuple must be length 3, got {len(specs)}.")
    if len(lshape) != len(rshape):
        raise bad(
            "convolution requires lhs and rhs ndim to be equal, "
            f"got {len(lshape)} and {len(rshape)}."
        )
    for i, s in enumerate(specs):
        if len(s) != len(lshape):
            raise bad(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and "
                f"rhs, got {len(s)} for lhs and rhs shapes {_shape(lshape)} and {_shape(rshape)}."
            )
    for i, (a, b) in enumerate(_LAYOUT_CHARS):
        if not specs[i].count(a) == specs[i].count(b) == 1:
            raise bad(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' "
                f"exactly once, got {specs[i]}."
            )
        if len(specs[i]) != len(set(specs[i])):
            raise bad(
                f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                f"got {specs[i]}."
            )
    spatial = [set(s) - set(c) for s, c in zip(specs, _LAYOUT_CHARS)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise bad(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {specs}."
        )
    rhs_spec = specs[1]

    def perm(spec: str, chars: tuple[str, str]) -> tuple[int, ...]:
        sp = [i for i, c in enumerate(spec) if c not in chars]
        if spec is not rhs_spec:
            sp.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(chars[0]), spec.index(chars[1]), *sp)

    return tuple(perm(s, c) for s, c in zip(specs, _LAYOUT_CHARS))


def _shape(shape: tuple[int, ...]) -> str:
    return str(tuple(None if d < 0 else d for d in shape))


def _dims_of(lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...]) -> Any:
    """ConvDimensionNumbers from JAX's (lhs, rhs, out) permutations, as JAX's lowering maps them."""
    from stablehlo_py.ir.attrs.conv import ConvDimensionNumbers

    return ConvDimensionNumbers(
        input_batch_dimension=lhs[0],
        input_feature_dimension=lhs[1],
        input_spatial_dimensions=tuple(lhs[2:]),
        kernel_output_feature_dimension=rhs[0],
        kernel_input_feature_dimension=rhs[1],
        kernel_spatial_dimensions=tuple(rhs[2:]),
        output_batch_dimension=out[0],
        output_feature_dimension=out[1],
        output_spatial_dimensions=tuple(out[2:]),
    )


def _known_dims(dn: Any) -> Any:
    """The ConvDimensionNumbers of a value given in another accepted form, when it is one that can
    be read without the attribute converter (the dataclass, the attribute); else None."""
    from stablehlo_py.ir.attrs.conv import ConvDimensionNumbers, ConvDimensionNumbersAttr

    if isinstance(dn, ConvDimensionNumbers):
        return dn
    if isinstance(dn, ConvDimensionNumbersAttr):
        return dn.dims
    return None


def _pads(
    op_name: str,
    padding: str,
    dims: Any,
    lshape: tuple[int, ...],
    rshape: tuple[int, ...],
    values: dict[str, Any],
) -> list[list[int]]:
    """JAX's padtype_to_pads: SAME / SAME_LOWER pad so the output is ceil(input / stride)."""
    kind = padding.upper()
    if kind not in PADDINGS:
        raise BuildError(
            f"{op_name}: padding {padding!r} is not a padding type: give 'SAME', 'SAME_LOWER' or "
            "'VALID' (JAX's), or one [low, high] pair per spatial dimension"
        )
    if dims is None:
        raise BuildError(
            f"{op_name}: padding={padding!r} needs dimension_numbers as layout strings "
            "(('NHWC', 'HWIO', 'NHWC')), a ConvDimensionNumbers or None (JAX's default)"
        )
    n = len(dims.input_spatial_dimensions)
    if kind == "VALID":
        return [[0, 0] for _ in range(n)]
    lhs_dil = _ints(values.get("lhs_dilation"), n)
    if any(d != 1 for d in lhs_dil):
        raise BuildError(
            f"{op_name}: padding={padding!r} with lhs_dilation is a transposed convolution; "
            "give the padding as [low, high] pairs (as jax.lax does)"
        )
    strides = _ints(values.get("window_strides"), n)
    rhs_dil = _ints(values.get("rhs_dilation"), n)
    sizes = [lshape[d] for d in dims.input_spatial_dimensions]
    window = [rshape[d] for d in dims.kernel_spatial_dimensions]
    if any(s < 0 for s in sizes) or any(k < 0 for k in window):
        raise BuildError(
            f"{op_name}: padding={padding!r} needs static spatial sizes; give [low, high] pairs"
        )
    pads = []
    for size, k, s, r in zip(sizes, window, strides, rhs_dil):
        eff = 0 if k == 0 else (k - 1) * r + 1
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        lo = total // 2 if kind == "SAME" else total - total // 2
        pads.append([lo, total - lo])
    return pads


def _ints(v: Any, n: int) -> list[int]:
    """window_strides / dilations as given (a sequence of ints), 1 each when omitted."""
    if v is None:
        return [1] * n
    try:
        out = [int(x) for x in v]
    except (TypeError, ValueError):
        return [1] * n  # the attribute's converter reports it
    return out if len(out) == n else [1] * n


# ------------------------------------------------------------------- checks against the module
def composite_in_module(op: Operation) -> None:
    """A composite's checks that its verifier makes against the enclosing module (composite_c1 to
    c4: the name, the decomposition's operand and result types), made at the call against the
    module being built (the op is not in it yet); a decomposition not defined yet is left to
    ``Module.verify()``, the name is checked anyway.  Raises VerifyError in upstream's words."""
    name = op.properties.get("name")
    root = getattr(op.properties.get("decomposition"), "root_reference", None)
    if not isinstance(name, StringAttr) or root is None:
        return  # the op's own check refused it
    ins = [v.type for v in op.operands]
    outs = [r.type for r in op.results]
    module = current_module()
    fn = module.functions.get(root.data) if module is not None else None
    decomposition_type = (
        fn.op.function_type if fn is not None else FunctionType.from_lists(ins, outs)
    )
    try:
        verify_composite(name.data, root.data, decomposition_type, ins, outs)
    except InferError as e:
        raise VerifyError(f"'{op.name}' op {e.message}") from None


MODULE_CHECKS = {"stablehlo.composite": composite_in_module}
"""Ops whose verifier checks them against their module, which a detached op (the builder's, before
it is inserted) does not have: the check made at the call instead."""


# ------------------------------------------------------------ one function per reused callable
def made_functions(module: Any) -> dict[tuple[Any, ...], Any]:
    """The module's memo (callable, argument types) -> the builder Function made for it (by a
    composite's decomposition or ``call(python_callable, ...)``), as JAX reuses a callee's
    lowering: a callable used again with the same types references the first function."""
    memo = module.__dict__.get("_made_functions")
    if memo is None:
        memo = module.__dict__["_made_functions"] = {}
    return memo


def function_for(
    module: Any, py_fn: Any, arg_types: Sequence[Attribute], base: str
) -> tuple[Any, bool]:
    """(the private Function of ``py_fn`` on ``arg_types``, whether it was made now); made as
    ``@base`` (``@base_1``, ... when taken) the first time."""
    memo = made_functions(module)
    key = (py_fn, *arg_types)
    fn = memo.get(key)
    if fn is not None and module.functions.get(fn.sym_name) is fn:
        return fn, False
    name, i = base, 0
    while name in module.functions:
        i += 1
        name = f"{base}_{i}"
    fn = module.add_function(py_fn, list(arg_types), name, "private")
    memo[key] = fn
    return fn, True


def forget_function(module: Any, fn: Any) -> None:
    """A made function erased after a failed call: its memo entry goes too."""
    memo = made_functions(module)
    for k in [k for k, v in memo.items() if v is fn]:
        del memo[k]
