"""`stablehlo-legalize-to-vhlo`: StableHLO/func ops -> their current VHLO fork, types and attributes
-> VHLO, every defaulted attribute written out explicitly (upstream StablehloLegalizeToVhlo.cpp).

Tables, not if-chains: a fork row's ``flatten`` key (``specs/ops.toml``, read by ``vhlo.structs``)
says which StableHLO struct attribute becomes which flat VHLO attributes, one per field of the
struct's description; an attribute row's ``stablehlo_field`` keeps one field of a struct (the
collectives' `channel_id`), its ``integer_enum`` reads an integer as a VHLO enum (``vhlo.legalization``);
defaults come from ``specs/ops.toml`` (each VHLO attribute's ``vhlo_default``, its
``vhlo_default_when``, or its shape-dependent ``default_rule``).

One walk and one conversion per op, emitting through a sink (``vhlo.sinks``): new xDSL ops
(``in_place=False``, or an in-place pass over a module that cannot be converted op by op), records
for the artifact writers (``legalize_to_vhlo_records``), or the same ops with their class swapped
(the pass's fast case, when ``swap.ordered_ops`` finds every op convertible in place).

Options: ``allow-other-dialects`` keeps ops of other dialects (chlo, ...) and their attributes as they
are, with `builtin.unrealized_conversion_cast` at the boundaries (as upstream).  Without it such an op
is an error naming it.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from stablehlo_py.passes.drivers._common import (
    ValueMap,
    carry_arg_location,
    carry_location,
    gc_paused,
    legalize_error,
)
from stablehlo_py.passes.drivers.options import ALLOW_OTHER_DIALECTS
from stablehlo_py.passes.drivers.vhlo_walk import VhloWalk
from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import convert, legality, legalization, sinks, structs
from stablehlo_py.vhlo import types as vt
from stablehlo_py.vhlo.ops import VhloOp, op_class
from stablehlo_py.vhlo.records import VOp
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue

from stablehlo_py import specs
from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.attrs.struct import Description
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat import swap
from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.side_data import USE_ORDER
from stablehlo_py.ir.xdsl_compat.swap import ordered_ops, value_types

PASS_NAME = "stablehlo-legalize-to-vhlo"
SUMMARY = "Legalize StableHLO to VHLO."
OPTIONS = (ALLOW_OTHER_DIALECTS,)

@cache
def _flattened(op_name: str) -> dict[str, structs.Flattened]:
    """A StableHLO op's flattened struct attributes by name (its fork row's ``flatten``)."""
    return {f.attribute: f for f in structs.flattening(op_name)}


def run(op: Operation, options: dict[str, object]) -> Operation:
    return legalize_to_vhlo(op, allow_other_dialects=bool(options["allow-other-dialects"]))


def legalize_to_vhlo(
    module: Operation, allow_other_dialects: bool = False, *, in_place: bool = True
) -> Operation:
    """Convert a module and return it: in place (its ops converted in place, or its body rebuilt),
    or, with ``in_place=False``, into a new module, leaving ``module`` untouched (no copy is made first:
    every op is rebuilt anyway)."""
    with gc_paused():
        return _legalize(module, allow_other_dialects, in_place)


def legalize_to_vhlo_records(module: ModuleOp) -> VOp:
    """The VHLO form of a StableHLO module as records (``vhlo.records``), for the artifact writers:
    the same conversion and diagnostics as the pass (without ``allow-other-dialects``: artifacts
    hold VHLO only), without building xDSL ops."""
    with gc_paused():
        return _Legalizer(False, sinks.RECORDS).convert_module(module)  # type: ignore[return-value]


_OWN_DIALECTS = frozenset(("stablehlo", "chlo", "vhlo", "builtin", "func"))


def holds_other_dialects(module: Operation) -> bool:
    """Whether a module holds ops or attributes of dialects VHLO does not cover (Shardy's ``sdy``
    ops, ``#sdy.sharding`` ... attributes: what JAX's exports keep beside the VHLO), which only
    ``allow-other-dialects`` carries through."""
    for op in module.walk():
        if not (_is_convertible(op) or isinstance(op, ModuleOp)):
            return True
        for a in (*op.properties.values(), *op.attributes.values()):
            if _other_attr(a):
                return True
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if _other_attr(arg.type):
                        return True
    return False


def _other_attr(a: Attribute) -> bool:
    if isinstance(a, OpaqueAttr):
        text = a.data
        dialect = text[1:].split(".", 1)[0].split("<", 1)[0] if text[:1] in "#!" else ""
        return dialect not in _OWN_DIALECTS
    if isinstance(a, ArrayAttr):
        return any(_other_attr(x) for x in a.data)
    if isinstance(a, DictionaryAttr):
        return any(_other_attr(x) for x in a.data.values())
    return False


def _legalize(module: Operation, allow_other_dialects: bool, in_place: bool = True) -> Operation:
    if not isinstance(module, ModuleOp):
        return _Legalizer(allow_other_dialects, sinks.XDSL).convert_op(module)
    if not in_place:
        conv = _Legalizer(allow_other_dialects, sinks.XDSL)
        new = conv.convert_module(module)
        _materialized_use_orders(new, conv.casts)
        return new
    names = _stablehlo_names()
    ops = ordered_ops(module, lambda op: op.name in names)  # (``_is_convertible``)
    if ops is not None:
        # the xDSL sink's fast case: every op converts in place (its operands are converted first)
        conv = _Legalizer(allow_other_dialects, sinks.IN_PLACE)
        conv.convert_in_place(ops)  # (every op is StableHLO)
        return module
    conv = _Legalizer(allow_other_dialects, sinks.XDSL)
    conv.convert_body(module.regions[0])
    _materialized_use_orders(module, conv.casts)
    return module


"""A value's use-list order for the MLIR bytecode writer (``serialization/mlirbc/uselists.py``)."""


def _materialized_use_orders(root: Operation, casts: list[tuple[Operation, bool]]) -> None:
    """The use-list orders MLIR's conversion leaves around the casts it materializes (meaningless,
    but part of jaxlib's bytes; established black box against jaxlib 0.12 and 0.10): the casts are
    created when the conversion finishes, so each one's use of its operand is the newest (the front
    of the operand's use list), and the uses of a cast to a VHLO type (``to_vhlo``: a target
    materialization, whose users were given a placeholder first and moved over one by one) are in
    reverse order.  Kept on the values (``USE_ORDER``) for the writer."""
    if not casts:
        return
    op_id = {id(op): i for i, op in enumerate(root.walk())}

    def default(value: SSAValue) -> list[tuple[int, int]]:
        return sorted(((op_id[id(u.operation)], u.index) for u in value.uses), reverse=True)

    lists: dict[SSAValue, list[tuple[int, int]]] = {}
    for cast, to_vhlo in casts:
        result = cast.results[0]
        if to_vhlo:
            lists[result] = default(result)[::-1]
        operand = cast.operands[0]
        mine = (op_id[id(cast)], 0)
        got = lists.get(operand)
        if got is None:
            got = lists[operand] = default(operand)
        got.remove(mine)
        got.insert(0, mine)
    for value, uses in lists.items():
        if len(uses) > 1 and any(uses[i] < uses[i + 1] for i in range(len(uses) - 1)):
            value.__dict__[USE_ORDER] = sorted(range(len(uses)), key=uses.__getitem__, reverse=True)


@cache
def _fork_of(name: str) -> tuple[specs.OpSpec, type[VhloOp]]:
    """A StableHLO op's current VHLO fork and its op class."""
    spec = specs.op_for_stablehlo(name)
    return spec, op_class(spec.name)


def _is_convertible(op: Operation) -> bool:
    return op.name in _stablehlo_names()


@lru_cache(maxsize=1)
def _stablehlo_names() -> frozenset[str]:
    return frozenset(n for o in specs.ops() for n in o.stablehlo)


class _Legalizer(VhloWalk):
    """One walk (``convert_module`` / ``convert_region`` / ``convert_op``) and one conversion per op
    (``convert_op``), emitting through ``sink`` (``vhlo.sinks``: new xDSL ops, records, or the
    same ops in place)."""

    def __init__(self, allow_other: bool, sink: sinks.XdslSink):
        self.allow_other = allow_other
        self.sink = sink
        self.values = ValueMap(lambda t: isinstance(t, vt.VhloType))
        self.located: set[SSAValue] = set()
        self.casts: list[tuple[Operation, bool]] = []  # (cast, to a VHLO type), as created
        self.names = _stablehlo_names()  # the ops it converts (``_is_convertible``)

    def arg_types(self, block: Block, owner: Operation, to_target: bool) -> list[Attribute]:
        types = list(value_types(block.args))
        if not to_target:
            return types
        return [self._type(t, owner, "a block argument") for t in types]

    def _cast(self, value: SSAValue, to_type: Attribute, at: Operation | SSAValue) -> SSAValue:
        """``value`` as ``to_type`` through a `builtin.unrealized_conversion_cast` (allow-other-
        dialects) located as MLIR's conversion framework locates it: at ``at`` (an op, or a block
        argument), the first time the value crosses the boundary."""
        new = self.values.cast(value, to_type)
        if new is not value and new not in self.located:
            self.located.add(new)
            cast = new.owner
            assert isinstance(cast, Operation)
            self.casts.append((cast, isinstance(to_type, vt.VhloType)))
            if isinstance(at, Operation):
                carry_location(cast, at)
            else:
                carry_arg_location(cast, at)  # (where the argument was parsed, too)
        return new

    # ---------------------------------------------------------------------------- ops
    def convert_op(self, op: Operation, parent: Operation | None = None) -> Operation:
        """The op's conversion (a StableHLO op's: ``convert_stablehlo``)."""
        if op.name not in self.names:
            if isinstance(op, ModuleOp):
                return self.convert_module(op)
            return self._convert_other(op)
        return self.convert_stablehlo(op, parent)

    def convert_stablehlo(self, op: Operation, parent: Operation | None = None) -> Operation:
        """A StableHLO op's conversion: its attributes (with their defaults), operands, result
        types and regions, checked in that order, then made by the sink.  What depends on the op's
        class, attributes and result types alone -- the VHLO class, properties, discardable
        attributes and result types -- is remembered by their identities (``_SIGNATURES``): ops
        alike (most of a program) pay one look-up for it."""
        props, attrs = op.properties, op.attributes
        objs = (*props.values(), *attrs.values(), *value_types(op.results))
        names = (type(op), self.allow_other, tuple(props), tuple(attrs))
        hit = _signatures_get(objs, names)
        if hit is None:
            hit = self._signature(op)
            if None not in hit[3] and legality.cacheable(objs):
                _SIGNATURES.put_seq(objs, hit, names)
        cls, vprops, vattrs, result_types = hit
        sink = self.sink
        operands = () if sink.in_place else self.new_operands(op)  # (in place: its own)
        if None in result_types:
            for i, r in enumerate(op.results):
                self._type(r.type, op, f"result #{i}")  # (the diagnostic)
        regions = [self.convert_region(r, op) for r in op.regions] if op.regions else []
        new = sink.op(op, cls, operands, result_types, dict(vprops), dict(vattrs), regions)
        if new is op:  # (in place: the same values)
            return op
        for r, nr in zip(op.results, new.results):
            self.values[r] = nr
        return carry_location(new, op)

    def convert_in_place(self, ops: list[Operation]) -> None:
        """The in-place sink's walk (``VhloWalk.convert_ordered``) over StableHLO ops, with
        ``convert_stablehlo``'s common case inline: an op without regions whose signature
        (``_SIGNATURES``) is known takes its VHLO class, attributes and result types in one call
        (``swap.retype``, what the in-place sink's ``op`` is); any other op is converted by
        ``convert_stablehlo``."""
        get = _signatures_get
        allow = self.allow_other
        retype = swap.retype
        slow = self.convert_stablehlo
        for op in ops:
            if op.regions:
                slow(op)
                continue
            props, attrs = op.properties, op.attributes
            hit = get(
                (*props.values(), *attrs.values(), *value_types(op.results)),
                (type(op), allow, tuple(props), tuple(attrs)),
            )
            if hit is None:
                slow(op)
            else:
                retype(op, hit[0], (), hit[3], dict(hit[1]), dict(hit[2]))

    def _signature(
        self, op: Operation
    ) -> tuple[type[VhloOp], dict[str, Attribute], dict[str, Attribute], tuple[Attribute, ...]]:
        """The VHLO class, properties, discardable attributes and result types of a StableHLO op
        (or the attributes' diagnostic; a result type without VHLO counterpart is None, reported
        by the caller after the operands')."""
        spec, cls = _fork_of(op.name)
        props, discardable = self._split_attributes(op, spec, cls)
        result_types = tuple(map(convert.to_vhlo_type, value_types(op.results)))
        return cls, props, discardable, result_types

    def _convert_other(self, op: Operation) -> Operation:
        dialect = op.name.split(".")[0]
        if dialect in ("stablehlo", "func"):
            raise legalize_error(
                op, f"'{op.name}' has no VHLO counterpart in this version of the tables"
            )
        if op.successors:
            raise legalize_error(
                op,
                f"'{op.name}' branches to other blocks, which is not supported in VHLO: write control "
                "flow with stablehlo.if / stablehlo.case / stablehlo.while",
            )
        if not self.allow_other:
            if dialect == "chlo":
                raise legalize_error(
                    op,
                    "'chlo' ops have no VHLO counterpart; lower them to StableHLO first with "
                    "`stablehlo-opt --chlo-pre-serialization-pipeline` (Python: "
                    "run_pipeline(module, [('chlo-pre-serialization-pipeline', {})]))",
                )
            raise legalize_error(
                op,
                f"'{dialect}' ops have no VHLO counterpart; pass allow-other-dialects=true to keep "
                "them (the result is then not a portable artifact)",
            )
        operands = []
        for v in op.operands:
            nv = self.values.get(v)
            # a converted value used here: cast back where it is defined (MLIR's source
            # materialization is at the value's location: its defining op's, or the argument's)
            operands.append(self._cast(nv, v.type, nv.owner if isinstance(nv, OpResult) else nv))
        regions = [self.convert_region(r, op, to_target=False) for r in op.regions]
        new = op.create(
            operands=operands,
            result_types=[r.type for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=regions,
        )
        for r, nr in zip(op.results, new.results):
            self.values[r] = nr
        return carry_location(new, op)

    def _split_attributes(
        self, op: Operation, spec: specs.OpSpec, cls: type[VhloOp]
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """``_attributes`` as (properties, discardable attributes) of the VHLO op, memoized by
        value when every attribute compares exactly (``convert.EXACT_EQUALITY``)."""
        key = None
        props, attrs = op.properties, op.attributes
        if _exact(props) and (not attrs or _exact(attrs)):
            key = (type(op), self.allow_other, tuple(props.items()), tuple(attrs.items()))
            got = _memo_get(key)
            if got is not None:
                return dict(got[0]), dict(got[1])
        out = self._attributes(op, spec)
        names = cls.ATTR_NAMES
        if out.keys() <= names:
            split: tuple[dict[str, Attribute], dict[str, Attribute]] = (out, {})
        else:
            split = (
                {k: v for k, v in out.items() if k in names},
                {k: v for k, v in out.items() if k not in names},
            )
        if key is not None:
            _MEMO.put(key, split)
            return dict(split[0]), dict(split[1])
        return split

    def _type(self, t: Attribute, op: Operation, what: str) -> Attribute:
        v = convert.to_vhlo_type(t)
        if v is None:
            from stablehlo_py.ir.text.printer import type_to_str

            raise legalize_error(
                op, f"{what} has type {type_to_str(t)}, which has no VHLO counterpart"
            )
        return v

    def new_operands(self, op: Operation) -> list[SSAValue]:
        """The converted values of the op's operands (for a new op)."""
        operands = []
        get = self.values.map.get
        for v in operands_of(op):
            nv = get(v, v)
            if not isinstance(nv.type, vt.VhloType):
                # MLIR's target materialization is at the first converted user's location
                nv = self._cast(nv, self._type(nv.type, op, "an operand"), op)
            operands.append(nv)
        return operands

    # ---------------------------------------------------------------------------- attributes
    def _attributes(self, op: Operation, spec: specs.OpSpec) -> dict[str, Attribute]:
        out: dict[str, Attribute] = {}
        merged = {**op.attributes, **op.properties}
        flattened = _flattened(op.name)
        rules = legalization.rules(spec.name)
        for name in sorted(merged):
            value = merged[name]
            flat = flattened.get(name)
            if flat is not None:
                self._flatten(op, name, value, flat, out)
                continue
            field = rules.fields.get(name)
            if field is not None:
                data = self._struct(op, name, value, field.desc)
                out[field.vhlo] = structs.TO_VHLO[field.field.kind.name](
                    getattr(data, field.field.name)
                )
                continue
            enum = rules.enums.get(name)
            if enum is not None:
                out[name] = self._integer_enum(op, name, value, enum)
                continue
            if isinstance(value, UnitAttr) and name in spec.attribute_names:
                out[name] = (
                    va.TRUE
                )  # unit attributes (use_global_device_ids, has_dynamic_root, ...)
                continue
            converted = convert.to_vhlo_attr(value, allow_other=self.allow_other)
            if converted is None:
                from stablehlo_py.ir.text.printer import attr_to_str

                raise legalize_error(
                    op, f"attribute '{name}' = {attr_to_str(value)} has no VHLO counterpart"
                )
            out[name] = converted
        self._defaults(op, spec, rules, out)
        return out

    def _struct(self, op: Operation, name: str, value: Attribute, d: Description) -> Any:
        """The value of a struct attribute (``vhlo.structs``), or the diagnostic."""
        try:
            return structs.struct_data(value, d)
        except structs.WrongStruct:
            raise legalize_error(op, f"attribute '{name}' should be a {d.what}") from None
        except structs.StructError as e:
            raise legalize_error(op, f"attribute '{name}': {e}") from None

    def _flatten(
        self,
        op: Operation,
        name: str,
        value: Attribute,
        flat: structs.Flattened,
        out: dict[str, Attribute],
    ) -> None:
        data = self._struct(op, name, value, flat.desc)
        for vname, v in flat.to_vhlo(data):
            if v is None:
                raise legalize_error(op, f"'{name}.{vname}' has no VHLO type")
            out[vname] = v

    def _integer_enum(self, op: Operation, name: str, value: Attribute, enum: str) -> Attribute:
        """The VHLO enum of an attribute StableHLO writes as its integer (``integer_enum``)."""
        cls = va.ENUM_CLASSES[enum]
        if isinstance(value, IntegerAttr):
            try:
                return cls.from_value(value.value.data)
            except ValueError:
                pass
        else:
            text = structs.attr_text(value)
            for case in cls.CASES:
                if text.endswith(case + ">") or text == case:
                    return cls.get(case)
        raise legalize_error(op, f"{name} {structs.attr_text(value)} has no VHLO counterpart")

    def _defaults(
        self,
        op: Operation,
        spec: specs.OpSpec,
        rules: legalization.Rules,
        out: dict[str, Attribute],
    ) -> None:
        for a in spec.attributes:
            if a.name in out:
                continue
            if a.default_rule is not None:
                out[a.name] = _rule_default(a.default_rule, out, op)
            elif a.vhlo_default is not None:
                out[a.name] = rules.vhlo_default(a.name, out) or _parse_vhlo_default(
                    a.vhlo_default
                )
            else:
                raise legalize_error(op, f"required attribute '{a.name}' is missing")


def _rule_default(rule: str, out: dict[str, Attribute], op: Operation) -> Attribute:
    """ones(N) / zeros(N, 2) / falses(N) where N counts spatial dims (convolutions) or window dims."""
    source = "input_spatial_dimensions" if "spatial" in rule else "window_dimensions"
    ref = out.get(source)
    if not isinstance(ref, va.TensorV1Attr):
        raise legalize_error(op, f"cannot default an attribute: '{source}' is missing")
    n = int(ref.values().size)
    if rule.startswith("ones"):
        return va.i64_tensor([1] * n)
    if rule.startswith("zeros"):
        return va.i64_tensor([0] * (2 * n), (n, 2))
    return va.bool_tensor([False] * n)


def _exact(attrs: dict[str, Attribute]) -> bool:
    exact = convert.EXACT_EQUALITY
    for v in attrs.values():
        if type(v) not in exact:
            return False
    return True


_MEMO = CONTEXT.table("vhlo.legalize_to_vhlo.attributes", 100_000)
"""(op class, allow-other-dialects, properties, attributes) -> the VHLO op's (properties,
attributes), for ops whose attributes all compare exactly (``convert.EXACT_EQUALITY``)."""
_memo_get = _MEMO.get  # (bound once: the context empties the table in place)


_SIGNATURES = CONTEXT.identity_map("vhlo.legalize_to_vhlo.signatures", 100_000)
"""The identities of a StableHLO op's properties, attributes and result types, with its class,
allow-other-dialects and the attributes' names -> ``_Legalizer._signature`` (the VHLO class,
properties, attributes and result types; its dicts are copied onto each op).  Ops holding a large
dense tensor (a constant's data) are not remembered: the memo would keep it alive."""
_signatures_get = _SIGNATURES.get_seq  # (bound once: the context empties the table in place)

_parse_vhlo_default = structs.parse_attr_text


__all__ = [
    "PASS_NAME",
    "holds_other_dialects",
    "legalize_to_vhlo",
    "legalize_to_vhlo_records",
    "run",
]

_ = VhloOp
