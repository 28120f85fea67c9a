"""VHLO ops: one class per row of ``specs/ops.toml``, generated at import time.

Each class (``AddOpV1`` named ``vhlo.add_v1``, ``AllGatherOpV2`` named ``vhlo.all_gather_v2``, ...)
carries its table row as ``SPEC``: version range, operand/result/region groups, attribute names.  All
inherent attributes are xDSL properties, printed in the generic form's `<{...}>` exactly as upstream
prints VHLO; other (discardable) attributes follow the regions in `{...}`.

VHLO ops have no pretty syntax except `vhlo.func_v1`, whose custom format is upstream's
`@name(%arg0: T, ...) -> (R, ...) { body } {attrs}` (VhloOps.cpp printFunctionBody).

The classes subclass xDSL's plain ``Operation`` (not IRDL): their structure is data in ``SPEC`` and
``verify_`` checks it (operand/result/region counts per group, required attributes, VHLO types and
attributes).  Named accessors: ``op.group("inputs")`` gives an operand group, ``op.prop("dimension")`` an
attribute.

(`builtin.unrealized_conversion_cast`, which the legalization passes insert around ops of other
dialects, is ``stablehlo_py.ir.ops.builtin_cast``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import types as vt
from xdsl.ir import Attribute, Block, Operation, OpTraits, Region, SSAValue
from xdsl.traits import IsolatedFromAbove, IsTerminator
from xdsl.utils.exceptions import VerifyException

from stablehlo_py import specs
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.construct import create_generic
from stablehlo_py.ir.xdsl_compat.swap import swappable
from stablehlo_py.ir.xdsl_compat.verify_walk import plain_operands_of_kind

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def _groups(
    values: Sequence[object], spec_groups: Sequence[specs.ValueSpec]
) -> list[tuple[int, int]] | None:
    """(start, length) of each group: fixed groups take one value, variadic groups share the rest
    equally (upstream's single-variadic and SameVariadicOperandSize rules).  None if impossible."""
    n = len(values)
    n_var = sum(1 for g in spec_groups if g.variadic)
    n_fixed = len(spec_groups) - n_var
    rest = n - n_fixed
    if rest < 0 or (n_var == 0 and rest != 0) or (n_var and rest % n_var):
        return None
    each = rest // n_var if n_var else 0
    out: list[tuple[int, int]] = []
    pos = 0
    for g in spec_groups:
        k = each if g.variadic else 1
        out.append((pos, k))
        pos += k
    return out


class VhloOp(Operation):
    """Base of the generated VHLO op classes."""

    SPEC: ClassVar[specs.OpSpec]
    ATTR_NAMES: ClassVar[frozenset[str]] = frozenset()
    ISOLATED: ClassVar[bool] = False
    IS_TERMINATOR: ClassVar[bool] = False
    COUNTS: ClassVar[tuple[tuple[int, int], tuple[int, int], tuple[int, int]]] = (
        (0, 0),
        (0, 0),
        (0, 0),
    )
    """(fixed, variadic) group counts of the operands, results and regions (from ``SPEC``)."""
    FIXED_COUNTS: ClassVar[tuple[int, int, int] | None] = (0, 0, 0)
    """The numbers of operands, results and regions when no group is variadic, else None."""
    traits = OpTraits(lambda: ())

    # -- construction
    @classmethod
    def build_generic(
        cls,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        properties: dict[str, Attribute],
        attributes: dict[str, Attribute],
        regions: Sequence[Region],
    ) -> Operation:
        return create_generic(
            cls, operands, result_types, properties, attributes, regions, cls.ATTR_NAMES
        )

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        p.error(f"'{cls.name}' has no custom syntax; VHLO ops are written in generic form")

    # -- accessors
    def group(self, name: str) -> list[SSAValue]:
        """The operands of the named operand group (`inputs`, `init_values`, ...)."""
        spec = self.SPEC
        bounds = _groups(self.operands, spec.operands)
        if bounds is None:
            raise ValueError(f"{self.name} has an invalid operand list")
        for g, (start, k) in zip(spec.operands, bounds):
            if g.name == name:
                return list(self.operands[start : start + k])
        raise KeyError(f"{self.name} has no operand group {name!r}")

    def prop(self, name: str) -> Attribute | None:
        return self.properties.get(name)

    # -- verification
    def verify(self, verify_nested_ops: bool = True) -> None:
        """xDSL's ``Operation.verify``, answered from the class's prepared counts when the op
        verifies (``_verifies``); otherwise xDSL's own path words the diagnostic, unchanged."""
        if not _verifies(self):
            Operation.verify(self, verify_nested_ops)
            return
        if verify_nested_ops:
            for region in self.regions:
                region.verify()

    def verify_(self) -> None:
        spec = self.SPEC
        if _groups(self.operands, spec.operands) is None:
            raise VerifyException(
                f"expects operands {_signature(spec.operands)} but has {len(self.operands)} operands"
            )
        if _groups(self.results, spec.results) is None:
            raise VerifyException(
                f"expects results {_signature(spec.results)} but has {len(self.results)} results"
            )
        if _groups(self.regions, spec.regions) is None:
            raise VerifyException(
                f"expects regions {_signature(spec.regions)} but has {len(self.regions)} regions"
            )
        for name in spec.attribute_names:
            if name not in self.properties:
                raise VerifyException(f"requires attribute '{name}'")
        for name, a in self.properties.items():
            if name not in self.ATTR_NAMES:
                raise VerifyException(f"has no inherent attribute '{name}'")
            if not va.is_vhlo(a):
                raise VerifyException(f"attribute '{name}' must be a VHLO attribute")
        for i, v in enumerate(self.operands):
            if not isinstance(v.type, vt.VhloType):
                raise VerifyException(f"operand #{i} must be a VHLO type")
        for i, r in enumerate(self.results):
            if not isinstance(r.type, vt.VhloType):
                raise VerifyException(f"result #{i} must be a VHLO type")


def _counts(groups: Sequence[specs.ValueSpec]) -> tuple[int, int]:
    n_var = sum(1 for g in groups if g.variadic)
    return len(groups) - n_var, n_var


def _count_ok(n: int, counts: tuple[int, int]) -> bool:
    """What ``_groups(values, groups) is not None`` says, from the prepared counts."""
    n_fixed, n_var = counts
    if n_var == 0:
        return n == n_fixed
    rest = n - n_fixed
    return rest >= 0 and rest % n_var == 0


def _verifies(op: VhloOp) -> bool:
    """True when ``Operation.verify(op, verify_nested_ops=False)`` passes: what xDSL checks for an op
    without successors (no erased operand; a non-terminator that ends its block is left to xDSL,
    which decides from the parent) and everything ``verify_`` checks.  False means "not known"."""
    cls = type(op)
    operands = plain_operands_of_kind(op, cls.IS_TERMINATOR, _IS_VHLO_TYPE, _is_vhlo_type)
    if operands is None:
        return False
    fixed = cls.FIXED_COUNTS
    if fixed is not None:
        if (len(operands), len(op.results), len(op.regions)) != fixed:
            return False
    else:
        n_operands, n_results, n_regions = cls.COUNTS
        if not (
            _count_ok(len(operands), n_operands)
            and _count_ok(len(op.results), n_results)
            and _count_ok(len(op.regions), n_regions)
        ):
            return False
    props = op.properties
    if props.keys() != cls.ATTR_NAMES:
        return False
    is_attr = _IS_VHLO_ATTR
    for a in props.values():
        k = type(a)
        if not (is_attr[k] if k in is_attr else _is_vhlo_attr(k)):
            return False
    return True


_IS_VHLO_TYPE = CONTEXT.class_memo("vhlo.class_is_vhlo_type")
_IS_VHLO_ATTR = CONTEXT.class_memo("vhlo.class_is_vhlo_attr")
_IS_VHLO_OP = CONTEXT.class_memo("vhlo.class_is_vhlo_op")
"""Class -> is it a VHLO type (``isinstance(t, VhloType)``, for operands and results), is it a VHLO
attribute or type (``va.is_vhlo``, for properties), is it a VHLO op class (``VhloOp``).  By class:
``isinstance`` through xDSL's ABCs costs more per call, and an attribute's ``name`` is its
class's."""


def _is_vhlo_type(k: type) -> bool:
    got = _IS_VHLO_TYPE[k] = issubclass(k, vt.VhloType)
    return got


def _is_vhlo_attr(k: type) -> bool:
    name = getattr(k, "name", None)
    got = _IS_VHLO_ATTR[k] = isinstance(name, str) and name.startswith("vhlo.")
    return got


def is_vhlo_op_class(k: type) -> bool:
    """Whether ``k`` is a VHLO op class (``issubclass(k, VhloOp)``, remembered per class)."""
    memo = _IS_VHLO_OP
    if k in memo:
        return memo[k]  # type: ignore[no-any-return]
    got = memo[k] = issubclass(k, VhloOp)
    return got


def _signature(groups: Sequence[specs.ValueSpec]) -> str:
    return "(" + ", ".join(g.name + ("..." if g.variadic else "") for g in groups) + ")"


# --------------------------------------------------------------------------------------------
# vhlo.func_v1 pretty syntax (VhloOps.cpp printFunctionBody / parseFunctionBody)


class FuncOpBase(VhloOp):
    ISOLATED = True

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        name = p.parse_symbol_name()
        args: list[tuple[str, Attribute, object]] = []

        def one_arg() -> None:
            n = p.parse_value_def_name()
            p.parse_literal(":")
            t = p.parse_type()
            args.append((n, t, p.try_location()))

        p.parse_delimited("(", one_arg, ")")
        results: list[Attribute] = []
        if p.try_literal("->"):
            results = p.parse_result_types()
        region = p.parse_region(entry_args=args, default_dialect="", isolated=True)  # type: ignore[arg-type]
        attrs = p.try_attr_dict()
        props = {
            "sym_name": va.string(name),
            "function_type": va.TypeV1Attr(vt.func_type([t for _, t, _ in args], results)),
        }
        return cls.build_generic([], [], props, attrs, [region])

    def print_pretty(self, pr: Printer) -> None:
        from stablehlo_py.ir.text.location import TextLoc
        from stablehlo_py.ir.text.printer import symbol_text, type_to_str

        pr.write(self.name + " ")
        name = self.properties.get("sym_name")
        pr.write(symbol_text(name.value if isinstance(name, va.StringV1Attr) else "?"))
        pr.write("(")
        body = self.regions[0]
        args = body.blocks.first.args if body.blocks else ()  # type: ignore[union-attr]
        parts = []
        for a in args:
            s = f"{pr.value(a)}: {type_to_str(a.type)}"
            if pr.debuginfo and isinstance(a.location, TextLoc):
                s += f" loc({a.location.data})"
            parts.append(s)
        pr.write(", ".join(parts))
        pr.write(") -> (")
        ft = self.properties.get("function_type")
        outs = (
            ft.value.outputs
            if isinstance(ft, va.TypeV1Attr) and isinstance(ft.value, vt.FuncV1Type)
            else ()
        )
        pr.write(", ".join(type_to_str(t) for t in outs))
        pr.write(") ")
        pr.region(body, print_entry_args=False, print_terminators=True, print_empty_block=True)
        rest = {k: v for k, v in self.properties.items() if k not in ("sym_name", "function_type")}
        rest.update(self.attributes)
        pr.attr_dict(rest)


# --------------------------------------------------------------------------------------------
# Generation from the table


def _class_name(spec: specs.OpSpec) -> str:
    words = spec.base.replace("-", "_").split("_")
    return "".join(w[:1].upper() + w[1:] for w in words) + f"OpV{spec.version}"


class _PlainLayout:
    """An empty mixin without ``__slots__``.  A StableHLO op class with such a mixin first among its
    bases (``_PrintableOrGeneric``) has another instance layout in CPython's eyes than a plain
    ``Operation`` subclass, and ``op.__class__ = cls`` between the two is refused: the VHLO forks
    of such an op take the same shape, so the passes can convert its ops in place."""


def _make_op(spec: specs.OpSpec, plain_layout: bool = False) -> type[VhloOp]:
    base: type[VhloOp] = FuncOpBase if spec.base == "func" else VhloOp
    counts = (_counts(spec.operands), _counts(spec.results), _counts(spec.regions))
    bases: tuple[type, ...] = (_PlainLayout, base) if plain_layout else (base,)
    traits = OpTraits(lambda: ())
    if "Terminator" in spec.traits:
        traits = OpTraits(lambda: (IsTerminator(),))
    if spec.base == "func":
        traits = OpTraits(lambda: (IsolatedFromAbove(),))
    namespace = {
        "name": spec.mnemonic,
        "SPEC": spec,
        "ATTR_NAMES": frozenset(spec.attribute_names),
        "IS_TERMINATOR": "Terminator" in spec.traits,
        "COUNTS": counts,
        "FIXED_COUNTS": None if any(v for _, v in counts) else tuple(f for f, _ in counts),
        "traits": traits,
        "__doc__": f"`{spec.mnemonic}` ({spec.min} .. {spec.max})"
        + (f": {spec.note}" if spec.note else "")
        + ".",
    }
    return type(_class_name(spec), bases, namespace)  # type: ignore[return-value]


def stablehlo_classes() -> dict[str, type[Operation]]:
    """The StableHLO/func op classes by name, from ir's op modules (``ir.dialects.OP_MODULES``)."""
    import importlib

    from stablehlo_py.ir import dialects

    out: dict[str, type[Operation]] = {}
    for module in dialects.OP_MODULES:
        for cls in getattr(importlib.import_module(module), "OPS", ()):
            out.setdefault(cls.name, cls)
    return out


def _generate() -> dict[str, type[VhloOp]]:
    """One class per fork; a family whose StableHLO class refuses a swap with a plain VHLO class
    is generated with ``_PlainLayout`` when that makes the swap work."""
    classes = {s.name: _make_op(s) for s in specs.ops()}
    stablehlo = stablehlo_classes()
    plain: set[str] = set()
    for s in specs.ops():
        for name in s.stablehlo:
            other = stablehlo.get(name)
            if other is None or swappable(other, classes[s.name]):
                continue
            if swappable(other, _make_op(s, plain_layout=True)):
                plain.add(s.base)
    for s in specs.ops():
        if s.base in plain:
            classes[s.name] = _make_op(s, plain_layout=True)
    return classes


OP_CLASSES: dict[str, type[VhloOp]] = _generate()
"""Every VHLO op class by table name (`OP_CLASSES["add_v1"]`)."""

BY_MNEMONIC: dict[str, type[VhloOp]] = {c.name: c for c in OP_CLASSES.values()}

FORK_CLASSES: dict[tuple[str, int], type[VhloOp]] = {
    (c.SPEC.base, c.SPEC.version): c for c in OP_CLASSES.values()
}
"""Every VHLO op class by its family and version (``("add", 1)``: what a fork state names)."""

GENERATED_CLASSES: frozenset[type[VhloOp]] = frozenset(OP_CLASSES.values())
"""The generated op classes (``is_vhlo_op_class`` holds for each; a set for a membership test)."""


def op_class(name: str) -> type[VhloOp]:
    """The class of `add_v1` / `vhlo.add_v1`."""
    return OP_CLASSES[name.removeprefix("vhlo.")]


FuncOpV1 = OP_CLASSES["func_v1"]
ReturnOpV1 = OP_CLASSES["return_v1"]
CallOpV1 = OP_CLASSES["call_v1"]


OPS: tuple[type[Operation], ...] = tuple(OP_CLASSES.values())


def register(reg: Registry) -> None:
    reg.add_ops(*OPS)


_ = Block
