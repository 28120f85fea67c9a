"""The verifier's one driver: `verify(top)` walks the ops (outer ops first) and verifies each in
one order, here and nowhere else:

1. MLIR's ModuleOp check that xDSL lacks (a `builtin.module` body block has no arguments);
2. the op's compiled plan (`VerifyPlan`, below): what xDSL's IRDL verifier checks -- the structural
   ODS checks (operand/result/region counts and types, properties, attributes), the traits --
   then the op's own checks, composed once per class by `op_verifier` (below) from what the class
   declares: its hand-worded ODS checks (`ODS_CHECK`), its `verify_` (spec constraints), the
   inference check (`ir.infer.verify_inferred`) where upstream runs it (`INFER_CHECK`: before or
   after `verify_`, or after the nested ops, `after_regions`) and its `verify_after_inference_`;
   this module is the one place that runs the inference check;
3. where the plan declines, xDSL's own `op.verify(verify_nested_ops=False)` (which calls the same
   composed `verify_`).

**Where xDSL's driver is used, and why.**  A plan only answers "this op verifies".  Whenever it
cannot say so -- a check fails, an exception escapes, or the class has no plan -- step 3 runs xDSL's
`op.verify`, which re-checks the op and words the diagnostic (`diagnostics.diagnostic` turns it
into upstream's words): messages are xDSL's, unchanged, so a plan never has to reproduce them.
Hence the rule here: when in doubt, no plan.  Classes left to xDSL (`plan_for` returns None,
`why_no_plan` says why): non-IRDL ops (VHLO, unregistered), ops with successors or
attribute-sized segments, classes overriding `verify`, and any `verify_` or accessor this module
does not recognise.  The reason for plans at all is speed: `Operation.verify` re-derives from the
class's `OpDef`, for every op, what is fixed per class.

**Plans.**  `Operation.verify` (xdsl/ir/core.py) followed by the `verify_` that
`irdl_op_definition` generates (`OpDef.verify` then the class's own verifier) re-derives per op
how many operands/results/regions there are and how variadic groups split them, which constraint
applies at each position, which properties are required, which traits have verifiers.  A
`VerifyPlan` holds that, compiled once from `cls.get_irdl_definition()`, and checks an op with
plain comparisons: `isinstance` for `BaseAttr`, `!=` for `EqAttrConstraint`, and a bounded identity
memo `(constraint, attribute) -> ok` for the other context-free constraints.  Constraints that may
read or bind the `VerificationContext` (constraint variables, or any constraint class not known to
be context-free) are not memoised: they are called as xDSL calls them, in xDSL's order, with a fresh
context per op.

**Memos.**  Every memo of the verifier lives on one `VerifierCache` (`CACHE`, with `clear()`), which
the context owns (`CONTEXT.adopt("verify.driver", ...)`: `CONTEXT.clear()` and `fresh_context()` empty
it): the compiled plans, the constraint verdicts, and one verdict memo of whole ops by signature (ops
whose class declares `VERIFY_BY_TYPES`: a program's repeated ops of one signature are checked once),
and the builder's memo of the ops `check_built` passed (`built`).
The memos keyed by attributes are identity maps (stablehlo_py/ir/xdsl_compat/identity.py).

**One walk, then the order.**  `verify(top)` first asks `walk_verifies(top)` whether every op
passes -- the same per-op checks in one walk over the ops as a list, with IsolatedFromAbove
checked op by op in that walk instead of one walk of the regions per isolated op (`func.func`,
`builtin.module`) -- and only when it says no does `verify_in_order` verify again, op by op in
upstream's order, to raise the first failure.  A valid program pays one walk; every diagnostic
comes from `verify_in_order` (tests/unit/ir/test_verify_walk.py holds the two to the same verdict).

**Ops being built.**  `check_built(op)` verifies one op the builder has just made, before it is
inserted, by the same two steps (the plan, else xDSL's verifier), so a producer's mistake is
reported at the Python call with the verifier's own words (`stablehlo_py.builder.opgen`).

Written against xDSL 0.74.0's `OpDef.verify`, `irdl_op_verify_arg_list`, `verify_variadic_size`,
`irdl_op_verify_regions` and `Operation.verify`; with another xDSL version no plan is compiled
(everything takes xDSL's path) until this module is re-checked against it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import xdsl
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, DenseResourceAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl import constraints as C
from xdsl.irdl import operations as O
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.context import CONTEXT, IdentityMap
from stablehlo_py.ir.infer import InferError, infer_op, verify_inferred
from stablehlo_py.ir.types import shape_of
from stablehlo_py.ir.verify.constraints import shapes_compatible, t2s
from stablehlo_py.ir.verify.diagnostics import diagnostic, op_location
from stablehlo_py.ir.xdsl_compat.verify_walk import (
    any_of_dispatch,
    isolated_from_above_ok,
    isolated_within,
    local_operands,
    plain_operands,
    preorder,
    region_signature,
)

XDSL_VERSION = "0.74.0"
"""The xDSL release whose verifier this module mirrors."""

MEMO_LIMIT = 1 << 15
"""Most (constraint, attribute) verdicts kept; the memo is emptied when it would exceed this."""


class PlanError(Exception):
    """A class whose verification this module does not fully understand (it keeps xDSL's path)."""


# ------------------------------------------------------------------ the class's own verifier
_GENERATED_VERIFY = "get_accessors_from_op_def.<locals>.verify_"


def custom_verifier(cls: type[Operation]) -> tuple[O.OpDef, Callable[[Operation], None] | None]:
    """`(op_def, custom_verify)` from the `verify_` that xDSL's `irdl_op_definition` generated for
    `cls`: in xDSL 0.74 a closure `verify_(self): op_def.verify(self); custom_verify(self)` over
    the `verify_` the class had when decorated (`Operation.verify_`, a no-op, if it defined none),
    or one without `custom_verify`.  Raises PlanError for anything else."""
    fn = inspect.getattr_static(cls, "verify_", None)
    if not inspect.isfunction(fn) or fn.__qualname__ != _GENERATED_VERIFY:
        raise PlanError("verify_ is not the one irdl_op_definition generates")
    if fn.__module__ != O.__name__:
        raise PlanError(f"generated verify_ lives in {fn.__module__}, not {O.__name__}")
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or (), strict=True))
    if set(cells) not in ({"op_def"}, {"op_def", "custom_verify"}):
        raise PlanError(f"generated verify_ closes over {sorted(cells)}")
    # the wrapper's body calls `op_def.verify` and `custom_verify`, nothing else
    if code.co_names != ("verify",) or code.co_argcount != 1:
        raise PlanError(f"generated verify_ uses {code.co_names}")
    op_def = cells["op_def"].cell_contents
    if not isinstance(op_def, O.OpDef) or op_def is not cls.get_irdl_definition():
        raise PlanError("generated verify_ closes over another OpDef")
    custom = cells["custom_verify"].cell_contents if "custom_verify" in cells else None
    if custom is not None and not callable(custom):
        raise PlanError("custom_verify is not callable")
    return op_def, custom


# ------------------------------------------------------------------ attribute constraints
def is_context_free(c: object) -> bool:
    """Does `c.verify(attr, ctx)` depend on `attr` only (never reading or binding `ctx`)?  Only
    xDSL's own stateless constraint classes, matched exactly (a subclass may override `verify`)."""
    t = type(c)
    if t in (C.AnyAttr, C.BaseAttr, C.EqAttrConstraint, C.AttrSetConstraint):
        return True
    if t is C.AnyOf:
        return all(is_context_free(p) for p in any_of_dispatch(c))  # type: ignore[arg-type]
    if t is C.AllOf:
        return all(is_context_free(p) for p in c.attr_constrs)  # type: ignore[attr-defined]
    if t is C.ParamAttrConstraint:
        return all(is_context_free(p) for p in c.param_constrs)  # type: ignore[attr-defined]
    if t is C.MessageConstraint:
        return is_context_free(c.constr)  # type: ignore[attr-defined]
    if t is C.TypeVarConstraint:
        return is_context_free(c.base_constraint)  # type: ignore[attr-defined]
    return False


class _Memo:
    """`(constraint, attribute) -> ok` for context-free constraints: one identity map per
    constraint (`tables`: constraint -> its map, itself an identity map; `maps`: every map, to
    empty them in place).  Bounded: `size` counts the verdicts of all maps, and every map is
    emptied when it reaches `limit`."""

    def __init__(self, limit: int = MEMO_LIMIT) -> None:
        self.limit = limit
        self.size = 0
        self.tables = IdentityMap("verify.driver.constraints", MEMO_LIMIT)
        self.maps: list[IdentityMap] = []

    def table(self, constr: C.AttrConstraint) -> IdentityMap:
        got = self.tables.get(constr)
        if got is None:
            got = self.tables.put(constr, IdentityMap("verify.driver.constraint", MEMO_LIMIT))
            self.maps.append(got)
        return got  # type: ignore[no-any-return]

    def clear(self) -> None:
        for table in self.maps:  # in place: each `_Cached` holds its constraint's map
            table.clear()
        self.size = 0


# attributes that may hold a large payload (a constant's bytes): checked each time, not remembered
_UNCACHED = frozenset({DenseIntOrFPElementsAttr, DenseResourceAttr, BytesAttr})


class _Cached:
    """A context-free constraint checked through the constraint memo (`CACHE.constraints`)."""

    __slots__ = ("constr", "table")

    def __init__(self, constr: C.AttrConstraint) -> None:
        self.constr = constr
        self.table = CACHE.constraints.table(constr)

    def ok(self, attr: Attribute) -> bool:
        hit = self.table.get(attr)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        try:
            self.constr.verify(attr, C.VerificationContext())
            ok = True
        except VerifyException:
            ok = False
        if type(attr) in _UNCACHED:  # a constant's data: never kept alive by the memo
            return ok
        memo = CACHE.constraints
        if memo.size >= memo.limit:
            memo.clear()
        memo.size += 1
        return self.table.put(attr, ok)  # type: ignore[no-any-return]


# how one attribute (a type, a property) is checked
SKIP, ISA, EQ, CACHED = "skip", "isa", "eq", "cached"


def _attr_check(c: C.AttrConstraint) -> tuple[str, Any] | None:
    """(kind, arg) for a context-free constraint, None for one that must be called with a context."""
    t = type(c)
    if t is C.AnyAttr:
        return SKIP, None
    if t is C.BaseAttr:
        return ISA, c.attr  # BaseAttr.verify: isinstance(attr, self.attr)
    if t is C.EqAttrConstraint:
        return EQ, c.attr  # EqAttrConstraint.verify: fails iff attr != self.attr
    if is_context_free(c):
        return CACHED, _Cached(c)
    return None


def _attr_ok(kind: str, arg: Any, attr: Attribute) -> bool:
    if kind is ISA:
        return isinstance(attr, arg)
    if kind is EQ:
        return False if attr != arg else True  # noqa: SIM211 - the very test EqAttrConstraint makes
    if kind is CACHED:
        return arg.ok(attr)
    return True


# ------------------------------------------------------------------ operands, results, regions
class _Group:
    """One operand/result/region definition: single or variadic, and how its range of types is
    checked (the operand or result types of the group; a region's entry block argument types)."""

    __slots__ = ("arg", "direct", "kind", "length", "name", "single_block", "variadic")

    def __init__(
        self, name: str, variadic: bool, range_constr: C.RangeConstraint, one_type: bool
    ) -> None:
        self.name = name
        self.variadic = variadic
        self.length: int | None = None  # a required range length, if any
        self.kind, self.arg = SKIP, None  # element check
        self.direct: C.RangeConstraint | None = None  # else: called as xDSL does, with the context
        self.single_block = False
        inner: C.RangeConstraint = range_constr
        if type(inner) is C.RangeLengthConstraint and type(inner.length) is C.EqIntConstraint:
            self.length = inner.length.value
            inner = inner.constraint
        if one_type and self.length not in (None, 1):  # a single operand: a range of one type
            self.direct = range_constr
            return
        if type(inner) is C.AnyRange:
            return
        if type(inner) is C.RangeOf and (check := _attr_check(inner.constr)) is not None:
            self.kind, self.arg = check
            return
        self.length = None
        self.direct = range_constr


class _Layout:
    """How a list of operands/results/regions splits over its definitions (xDSL's
    `verify_variadic_same_size` and accessors, without attribute-sized segments)."""

    __slots__ = ("checks", "directs", "fixed", "groups", "has_opt", "n_defs", "n_var")

    def __init__(self, groups: list[_Group], has_opt: bool) -> None:
        self.groups = tuple(groups)
        self.n_defs = len(groups)
        self.n_var = sum(g.variadic for g in groups)
        self.has_opt = has_opt
        self.fixed = self.n_var == 0
        # without variadics, position i is definition i
        self.checks = tuple((i, g.kind, g.arg) for i, g in enumerate(groups) if g.kind is not SKIP)
        self.directs = tuple((i, g.direct) for i, g in enumerate(groups) if g.direct is not None)

    def variadic_size(self, n: int) -> int | None:
        """Size of each variadic group for `n` items, None when `n` does not fit the definitions."""
        n_defs, k = self.n_defs, self.n_var
        if k == 0:
            return 0 if n == n_defs else None
        if self.has_opt:
            return 1 if n == n_defs else 0 if n == n_defs - k else None
        if n < n_defs - k or (n - n_defs) % k:
            return None
        return (n - n_defs) // k + 1


def _values_ok(layout: _Layout, values: Sequence[Any], directs: list | None) -> bool:
    """Operands or results: count and types (direct range checks are queued in `directs`)."""
    if layout.fixed:
        if len(values) != layout.n_defs:
            return False
        for pos, kind, arg in layout.checks:
            t = values[pos].type
            if kind is ISA:
                if not isinstance(t, arg):
                    return False
            elif not _attr_ok(kind, arg, t):
                return False
        if layout.directs:
            assert directs is not None
            directs.extend((c, (values[pos].type,)) for pos, c in layout.directs)
        return True
    size = layout.variadic_size(len(values))
    if size is None:
        return False
    pos = 0
    for g in layout.groups:
        n = size if g.variadic else 1
        if g.length is not None and n != g.length:
            return False
        if g.direct is not None:
            assert directs is not None
            directs.append((g.direct, tuple(v.type for v in values[pos : pos + n])))
        elif g.kind is not SKIP:
            for v in values[pos : pos + n]:
                if not _attr_ok(g.kind, g.arg, v.type):
                    return False
        pos += n
    return True


def _named_ok(
    checks: tuple[tuple[str, bool, str, Any, C.AttrConstraint | None], ...],
    values: dict[str, Attribute],
    directs: list | None,
) -> bool:
    """Properties or attributes (`_named_checks`): present when required, and of their constraint
    (direct checks are queued in `directs`)."""
    for name, required, kind, arg, direct in checks:
        if name not in values:
            if required:
                return False
            continue
        a = values[name]
        if direct is not None:
            directs.append((direct, a))  # type: ignore[union-attr]
        elif kind is ISA:
            if not isinstance(a, arg):
                return False
        elif not _attr_ok(kind, arg, a):
            return False
    return True


def _regions_ok(layout: _Layout, regions: Sequence[Any], directs: list | None) -> bool:
    """Region count, single-block rules and entry-block argument types."""
    size = layout.variadic_size(len(regions))
    if size is None:
        return False
    pos = 0
    for g in layout.groups:
        n = size if g.variadic else 1
        for region in regions[pos : pos + n]:
            entry = region.first_block
            if g.single_block and (entry is None or entry is not region.last_block):
                return False
            if entry is None:
                continue  # xDSL checks entry arguments of an existing entry block only
            if g.direct is not None:
                assert directs is not None
                directs.append((g.direct, entry.arg_types))
                continue
            if g.kind is SKIP and g.length is None:
                continue
            types = entry.arg_types
            if g.length is not None and len(types) != g.length:
                return False
            for t in types:
                if not _attr_ok(g.kind, g.arg, t):
                    return False
        pos += n
    return True


# ------------------------------------------------------------------ the plan
_OPERAND_DEFS = {O.OperandDef: False, O.VarOperandDef: True, O.OptOperandDef: True}
_RESULT_DEFS = {O.ResultDef: False, O.VarResultDef: True, O.OptResultDef: True}
_REGION_DEFS = {
    O.RegionDef: (False, False),
    O.VarRegionDef: (True, False),
    O.OptRegionDef: (True, False),
    O.SingleBlockRegionDef: (False, True),
    O.VarSingleBlockRegionDef: (True, True),
    O.OptSingleBlockRegionDef: (True, True),
}
_SAME_SIZE_OPTIONS = (O.SameVariadicOperandSize, O.SameVariadicResultSize, O.SameVariadicRegionSize)


def _check_accessor(cls: type, name: str, construct: O.VarIRConstruct, idx: int) -> None:
    """xDSL verifies through `getattr(op, name)`: it must still be the accessor it generated."""
    acc = inspect.getattr_static(cls, name, None)
    if not (
        isinstance(acc, O.BaseAccessor)
        and type(acc).__module__ == O.__name__
        and acc.construct == construct
        and acc.idx == idx
    ):
        raise PlanError(f"'{name}' is not xDSL's accessor for {construct.name.lower()} #{idx}")


def _layout(
    cls: type, defs: list[tuple[str, Any]], kinds: dict[type, Any], construct: O.VarIRConstruct
) -> _Layout:
    groups = []
    has_opt = False
    for idx, (name, d) in enumerate(defs):
        if type(d) not in kinds:
            raise PlanError(f"{construct.name.lower()} '{name}' is a {type(d).__name__}")
        _check_accessor(cls, name, construct, idx)
        if construct is O.VarIRConstruct.REGION:
            variadic, single_block = kinds[type(d)]
            g = _Group(name, variadic, d.entry_args, one_type=False)
            g.single_block = single_block
        else:
            variadic = kinds[type(d)]
            g = _Group(name, variadic, d.constr, one_type=not variadic)
        assert variadic == isinstance(d, O.VariadicDef)
        has_opt |= isinstance(d, O.OptionalDef)
        groups.append(g)
    return _Layout(groups, has_opt)


def _named_checks(
    defs: dict[str, O.AttrOrPropDef], optional_cls: type
) -> tuple[tuple[str, bool, str, Any, C.AttrConstraint | None], ...]:
    """(name, required, kind, arg, direct constraint) per property or attribute definition."""
    out = []
    for name, d in defs.items():
        check = _attr_check(d.constr)
        kind, arg = check if check is not None else (SKIP, None)
        out.append((name, not isinstance(d, optional_cls), kind, arg, None if check else d.constr))
    return tuple(out)


class VerifyPlan:
    """Everything `op.verify(verify_nested_ops=False)` checks for ops of one IRDL class."""

    def __init__(self, cls: type[Operation]) -> None:
        if not issubclass(cls, IRDLOperation) or not hasattr(cls, "get_irdl_definition"):
            raise PlanError("not an IRDL operation")
        if cls.verify is not Operation.verify:
            raise PlanError("the class overrides Operation.verify")
        op_def, custom = custom_verifier(cls)
        # an OpDef whose verify is OpDef.verify on every op a plan passes may say so
        # (`PLAN_EQUIVALENT`, e.g. xdsl_compat.opdef_split's, which differs only on counts a plan refuses)
        if type(op_def).verify is not O.OpDef.verify and not getattr(
            type(op_def), "PLAN_EQUIVALENT", False
        ):
            raise PlanError("OpDef.verify is overridden")
        if op_def.successors:
            raise PlanError("has successor definitions")
        for option in op_def.options:
            if type(option) not in _SAME_SIZE_OPTIONS:  # attribute-sized segments, ...
                raise PlanError(f"IRDL option {type(option).__name__}")
        if cls.traits is not op_def.traits:
            raise PlanError("class traits are not the OpDef's")
        for defs, kinds in (
            (op_def.properties, (O.PropertyDef, O.OptPropertyDef)),
            (op_def.attributes, (O.AttributeDef, O.OptAttributeDef)),
        ):
            for name, d in defs.items():
                if type(d) not in kinds:
                    raise PlanError(f"'{name}' is a {type(d).__name__}")
        self.cls = cls
        # xDSL wraps whatever `verify_` the class had, at least Operation's (which does nothing)
        self.custom = None if custom is Operation.verify_ else custom
        self.operands = _layout(cls, op_def.operands, _OPERAND_DEFS, O.VarIRConstruct.OPERAND)
        self.results = _layout(cls, op_def.results, _RESULT_DEFS, O.VarIRConstruct.RESULT)
        self.regions = _layout(cls, op_def.regions, _REGION_DEFS, O.VarIRConstruct.REGION)
        self.properties = _named_checks(op_def.properties, O.OptPropertyDef)
        self.property_names = frozenset(op_def.properties)
        self.attributes = _named_checks(op_def.attributes, O.OptAttributeDef)
        self.has_direct = any(
            g.direct is not None
            for layout in (self.operands, self.results, self.regions)
            for g in layout.groups
        ) or any(c[4] is not None for c in self.properties + self.attributes)
        self.op_traits = op_def.traits
        self.trait_set = op_def.traits.traits
        # traits without a verifier of their own (Pure, ...) verify nothing
        self.traits: tuple[OpTrait, ...] = tuple(
            t for t in self.trait_set if type(t).verify is not OpTrait.verify
        )
        # each trait's check: False (or an exception) when it fails; a faster equivalent of
        # IsolatedFromAbove's (xDSL's walks up from every operand's owner)
        self.trait_checks: tuple[Callable[[Operation], object], ...] = tuple(
            isolated_from_above_ok if type(t) is IsolatedFromAbove else t.verify
            for t in self.traits
        )
        # the same without the IsolatedFromAbove check, which `verify`'s walk makes op by op
        # (`walk_verifies`)
        self.isolated = isolated_from_above_ok in self.trait_checks
        self.walk_trait_checks = tuple(
            c for c in self.trait_checks if c is not isolated_from_above_ok
        )
        self.is_module = cls.name == "builtin.module"
        self.is_terminator = cls.has_trait(IsTerminator)
        # ops whose whole verification reads only their class, operand and result types,
        # properties and attributes (no regions, no defining ops, no position): the class says so
        # with `VERIFY_BY_TYPES = True`; its verdicts are then remembered (successes only)
        # `VERIFY_BY_TYPES = "regions"`: an op whose verification also reads its regions' block
        # counts, block argument types and terminators (class, operand types), never the other ops
        # of its bodies (those are verified on their own): reduce, sort, map...
        by_types = getattr(cls, "VERIFY_BY_TYPES", False)
        self.region_signature = by_types == "regions"
        # (never an IsolatedFromAbove op: that check reads the ops of its regions)
        self.by_types = (
            (by_types is True and not self.regions.n_defs) or self.region_signature
        ) and not (self.is_terminator or self.isolated)

    def check(self, op: Operation) -> bool:
        """True when `op.verify(verify_nested_ops=False)` would pass.  False (or an exception)
        means: ask xDSL.  (`plan_for` makes sure the plan is not stale.)"""
        # -- Operation.verify's own checks (xDSL raises on successors and erased operands)
        operands = plain_operands(op)
        if operands is None:
            return False
        return self.check_links(op, operands, self.trait_checks)

    def check_links(
        self,
        op: Operation,
        operands: Sequence[SSAValue],
        trait_checks: tuple[Callable[[Operation], object], ...],
    ) -> bool:
        """`check` of an op whose operands (`plain_operands`) are known: `Operation.verify`'s
        terminator rule, then the verdict memo or the definition, with `trait_checks` (the plan's
        `trait_checks`, or `walk_trait_checks` when the walk checks IsolatedFromAbove itself)."""
        if not self.is_terminator and (block := op.parent) is not None:
            region = block.parent
            if region is not None and block.last_op is op:
                if region.first_block is not region.last_block:
                    return False  # ends a block of a multi-block region, not a terminator
                parent = region.parent
                if parent is not None and not parent.has_trait(NoTerminator):
                    return False
        if not self.by_types:
            return self._check_definition(op, operands, trait_checks)
        props, attrs = op.properties, op.attributes
        parts = (
            self.cls,
            *[v.type for v in operands],
            None,
            *[r.type for r in op.results],
            None,
            *props.values(),
            None,
            *attrs.values(),
        )
        if self.region_signature:
            parts += region_signature(op)
        names = (*props, None, *attrs) if props or attrs else ()  # no names: the values say so
        verdicts = CACHE.verdicts
        if verdicts.get_seq(parts, names) is not None:
            return True
        if not self._check_definition(op, operands, trait_checks):
            return False
        verdicts.put_seq(parts, True, names)  # keeps the objects alive (the identity map's rule)
        return True

    def _check_definition(
        self,
        op: Operation,
        operands: Sequence[SSAValue],
        trait_checks: tuple[Callable[[Operation], object], ...],
    ) -> bool:
        """OpDef.verify, the traits and the class's own verifier (`operands`: the op's)."""
        # -- OpDef.verify: operands, results, regions, (no successors), properties, attributes
        directs: list[tuple[Any, Any]] | None = [] if self.has_direct else None
        if not _values_ok(self.operands, operands, directs):
            return False
        if not _values_ok(self.results, op.results, directs):
            return False
        if (op.regions or self.regions.n_defs) and not _regions_ok(
            self.regions, op.regions, directs
        ):
            return False
        props = op.properties
        if not props.keys() <= self.property_names:
            return False  # a property the op does not define
        if not _named_ok(self.properties, props, directs):
            return False
        if self.attributes and not _named_ok(self.attributes, op.attributes, directs):
            return False
        if directs:
            # in xDSL's order (operands, results, regions, properties, attributes), sharing one
            # context as OpDef.verify does: constraint variables bind and compare as there
            ctx = C.VerificationContext()
            for constr, value in directs:
                constr.verify(value, ctx)
        for trait_check in trait_checks:
            if trait_check(op) is False:
                return False
        # -- the class's own verifier
        if self.custom is not None:
            self.custom(op)
        return True


# ------------------------------------------------------------------ the memos
class VerifierCache:
    """Every memo of the verifier, on one object (`CACHE`, the context's "verify.driver").

    - `plans`: class -> its compiled `VerifyPlan`, or None when it keeps xDSL's verifier
      (`no_plan`: class -> why);
    - `constraints`: `(constraint, attribute) -> ok` of the context-free constraints (`_Memo`);
    - `verdicts`: ops that verified, by signature -- an identity map of (class, the operand and
      result types, properties and attributes (and, for `VERIFY_BY_TYPES = "regions"` ops, their
      regions' signatures); with the property and attribute names as `extra`, when the op has
      any) -> True.  Types and attributes are immutable and the parser and the passes share equal
      ones, so a program's repeated ops of one signature are checked once.  Only successes are
      kept: a failing op is checked again for its diagnostic.  Emptied when it would exceed
      `verdict_limit`;
    - `built`: the builder's memo of ops that `check_built` passed, by signature: (class, operand
      types, None, property values; with the property names as `extra`) -> the inferred result
      types, or (the same, None, the result types the producer gave) -> True; so building an op of
      a signature seen before skips both its inference and its check.  Only for classes whose
      verification reads nothing else (`by_signature`).  Only successes are kept.

    `clear()` forgets everything (tests and mutation runs: a verdict reached by other rules must not
    answer for the ones under test)."""

    def __init__(self, verdict_limit: int = 1 << 14, constraint_limit: int = MEMO_LIMIT) -> None:
        self.plans: dict[type, VerifyPlan | None] = {}
        self.no_plan: dict[type, str] = {}
        self.constraints = _Memo(constraint_limit)
        self.verdicts = IdentityMap("verify.driver.verdicts", verdict_limit)
        self.verdict_limit = verdict_limit
        self.built = IdentityMap("verify.driver.built", verdict_limit)

    def __len__(self) -> int:
        """Entries of every memo (the context's `sizes()`)."""
        return (
            len(self.plans)
            + len(self.no_plan)
            + self.constraints.size
            + len(self.verdicts)
            + len(self.built)
        )

    def clear(self) -> None:
        self.plans.clear()
        self.no_plan.clear()
        self.constraints.clear()
        self.verdicts.clear()
        self.built.clear()


CACHE = CONTEXT.adopt("verify.driver", VerifierCache())
MEMO = CACHE.constraints
"""The constraint memo (`CACHE.constraints`, the same object)."""


@functools.cache
def xdsl_problem() -> str | None:
    """Why plans cannot be trusted with the installed xDSL, or None (looked up once, lazily:
    xDSL resolves its version from package metadata)."""
    version = str(xdsl.__version__)
    if version != XDSL_VERSION:
        return f"xDSL {version} (plans mirror xDSL {XDSL_VERSION})"
    fields = getattr(Operation, "__dataclass_fields__", {})
    for name in ("_operands", "results", "_successors", "properties", "attributes", "regions"):
        if name not in fields:
            return f"xDSL's Operation has no field {name}"
    return None


def plan_for(cls: type) -> VerifyPlan | None:
    """The compiled plan for ops of class `cls`, or None when they keep xDSL's verifier."""
    plans = CACHE.plans
    plan = plans.get(cls, plans)
    if plan is None or (plan is not plans and plan.op_traits.traits is plan.trait_set):
        return plan  # type: ignore[return-value]
    # not compiled yet, or traits were added to the class since (`OpTraits.add_trait`)
    try:
        if (problem := xdsl_problem()) is not None:
            raise PlanError(problem)
        plan = VerifyPlan(cls)
    except PlanError as e:
        CACHE.no_plan[cls] = str(e)
        plan = None
    plans[cls] = plan
    return plan


def why_no_plan(cls: type) -> str | None:
    """Why `cls` keeps xDSL's verifier (None when it has a plan)."""
    return None if plan_for(cls) is not None else CACHE.no_plan.get(cls)


def verifies(op: Operation) -> bool:
    """Does `op` pass `op.verify(verify_nested_ops=False)`?  True only when its plan says so;
    False means "not known": run xDSL's verifier for the diagnostic."""
    plan = plan_for(type(op))
    if plan is None:
        return False
    try:
        return plan.check(op)
    except Exception:  # noqa: BLE001 - any failure is reported by xDSL's own verifier
        return False


# ------------------------------------------------------------------ ops being built
def check_built(op: Operation) -> None:
    """Verify one op the builder has just made -- complete (operands, results, properties,
    regions) and not yet inserted -- as `verify` verifies each op: its plan (with the verdict memo)
    and, when that declines, xDSL's verifier, which words the `VerifyError` in upstream's words.
    The same rules as `verify`, run at the call (the ops nested in its regions were checked when
    they were built).  Terminators are not checked here: they need the block they end (the builder
    makes them from the region's or function's signature; `verify` checks them).  Verifiers that
    read a symbol table treat an op with no enclosing one as not checkable yet (MLIR verifies symbol
    uses within a symbol table), so a detached op is never refused for what only its module knows."""
    if not verifies(op):
        verify_declined(op)


def by_signature(cls: type) -> bool:
    """Whether the verdict on an op of class `cls` depends only on its class, operand and result
    types, properties and attributes (`VERIFY_BY_TYPES = True`, no regions, not a terminator): then
    the builder may remember it by signature (`CACHE.built`)."""
    plan = plan_for(cls)
    return plan is not None and plan.by_types and not plan.region_signature


BUILT = CACHE.built
"""The builder's memo by signature (`CACHE.built`, the same object; see `VerifierCache`)."""


# ------------------------------------------------------------------ the driver
def verify(top: Operation) -> None:
    """Verify every op (outer ops first); the first failure is raised with the op's location (and,
    as `following`, the diagnostic upstream emits right after it).

    First `walk_verifies` asks whether every op passes, in one walk; only when it says no (or
    cannot say) does `verify_in_order` verify again, op by op in upstream's order, for the first
    failure's diagnostic.  So a diagnostic always comes from `verify_in_order`."""
    if not walk_verifies(top):
        verify_in_order(top)


def verify_in_order(top: Operation) -> None:
    """Verify every op in `top.walk()`'s order (outer ops first), each by its plan or xDSL's
    verifier, raising the first failure: the order diagnostics are reported in."""
    for op in top.walk():
        if op.name == "builtin.module":
            _verify_module(op)
        if not verifies(op):
            verify_declined(op)


def walk_verifies(top: Operation) -> bool:
    """True when `verify_in_order(top)` would pass; False when it would raise, or when this cannot
    tell (any exception, a plan that declines an op xDSL then refuses).  The same checks as
    `verify_in_order`, in one walk and with less per op:

    - the ops as one list (`preorder`), not xDSL's nested generators;
    - IsolatedFromAbove checked op by op in the same walk (`local_operands`, `isolated_within`):
      an op whose operands are all defined in its own block passes every isolated ancestor's
      check, and the others are checked against their nearest isolated ancestor -- together what
      `isolated_from_above_ok` says of every isolated op, without walking each one's regions again
      (plans check the other traits: `walk_trait_checks`);
    - the plan looked up inline (`plan_for` when missing or stale).

    The verdict is all or nothing, so the order of the checks does not matter here."""
    plans = CACHE.plans
    try:
        for op in preorder(top):
            cls = type(op)
            plan = plans.get(cls, plans)
            if plan is plans or (plan is not None and plan.op_traits.traits is not plan.trait_set):
                plan = plan_for(cls)
            operands = local_operands(op)
            if operands is None:
                if not isolated_within(op, top):
                    return False
                operands = plain_operands(op)
            if plan is None:
                if op.name == "builtin.module":
                    _verify_module(op)
                op.verify(verify_nested_ops=False)
                continue
            if plan.is_module:
                _verify_module(op)
            if operands is None or not plan.check_links(op, operands, plan.walk_trait_checks):
                op.verify(verify_nested_ops=False)  # raises when it fails
    except Exception:  # noqa: BLE001 - any failure: verify_in_order reports it, in its order
        return False
    return True


def verify_declined(op: Operation) -> None:
    """An op its plan declined (or failed): xDSL's verifier checks it again and words the
    diagnostic, raised as a VerifyError in upstream's words."""
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as e:
        raise diagnostic(op, e) from None
    except UnicodeEncodeError as e:
        # xDSL prints the module into its diagnostic and cannot print a string that is not
        # UTF-8 (bytes kept as surrogates): report the verification failure it was printing
        cause = e.__context__
        if not isinstance(cause, VerifyException):
            raise
        raise diagnostic(op, cause) from None


def _verify_module(op: Operation) -> None:
    """What MLIR's ModuleOp::verify checks that xDSL's does not: a body block without arguments."""
    block = op.regions[0].blocks.first if op.regions else None
    if block is not None and block.args:
        raise VerifyError(
            "'builtin.module' op region should have no arguments", location=op_location(op)
        )


def after_regions(op: Operation, check: Callable[[Operation], None]) -> None:
    """Run `check(op)` -- a check MLIR makes after the ops nested in `op`'s regions (a region trait,
    the InferTypeOpInterface check) -- reporting a nested op's own failure first: when `check`
    fails, the first nested op that does not verify raises its VerifyError instead (only then are
    the nested ops verified here, so a valid program pays nothing).

    MLIR's verification order for ops with regions: an op's InferTypeOpInterface check runs with its
    region invariants, after the ops nested in its regions are verified (the op's ODS checks, traits
    and `verify()` run before them).  This driver walks outer ops first, so an op with regions whose
    such check fails first verifies its nested ops: a nested op's own failure is what upstream
    reports (at the nested op), e.g. a `stablehlo.return` of a tuple inside an `if` whose branches
    then mismatch."""
    try:
        check(op)
    except VerifyException:
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    verify(nested)  # raises the nested op's VerifyError, if any
        raise


def verify_inferred_after_regions(op: Operation) -> None:
    """`verify_inferred(op)` (the InferTypeOpInterface check) in MLIR's order (see `after_regions`)."""
    after_regions(op, verify_inferred)


def verify_inferred_shapes(op: Operation) -> None:
    """The InferTypeOpInterface check of an op whose `isCompatibleReturnTypes` compares shapes only
    (`verifyCompatibleShapes`: chlo.broadcast_select, chlo.scan): the op's rule must succeed and
    the declared result shapes be compatible with the inferred ones, in `verify_inferred`'s words."""
    try:
        inferred = infer_op(op)
    except InferError as e:
        raise VerifyException(e.message) from None
    declared = [r.type for r in op.results]
    if len(inferred) != len(declared) or not all(
        shapes_compatible(shape_of(x), shape_of(y)) for x, y in zip(inferred, declared)
    ):
        raise VerifyException(
            "inferred type(s) "
            + ", ".join(f"'{t2s(t)}'" for t in inferred)
            + " are incompatible with return type(s) of operation "
            + ", ".join(f"'{t2s(t)}'" for t in declared)
        )


# ------------------------------------------------------------------ the op's own verifier, composed
INFER_CHECKS: dict[str | None, Callable[[Operation], None] | None] = {
    None: None,
    "before": verify_inferred,
    "after": verify_inferred,
    "after_regions": verify_inferred_after_regions,
    "after_by_shape": verify_inferred_shapes,
}
"""An op class's `INFER_CHECK` declaration (default None, on `ir.ops.base.StableHLOOp`): when
upstream's InferTypeOpInterface check (`ir.infer.verify_inferred`: the op's rule must succeed and
the declared result types be compatible with the inferred ones) runs among the op's own checks --

- None: never (the op has no inference rule, or compares in its own way, e.g. by shape only);
- "before": before the class's `verify_`;
- "after": after `verify_` (its ODS and trait checks, and for many ops their `verify()`);
- "after_regions": after `verify_`, in MLIR's order for ops with regions (`after_regions`: a nested
  op's own failure is reported first);
- "after_by_shape": after `verify_`, comparing the result shapes only (`verify_inferred_shapes`).

The op's checks, in the order `op_verifier` composes them (each optional):

1. `ODS_CHECK(op)`: a class's hand-worded ODS checks (operand and result type constraints in
   MLIR's words, `ir.ops.data_movement_types.check_ods_types`), which MLIR makes first;
2. the inference check, if "before";
3. the class's `verify_`: its traits and its `verify()`;
4. the inference check, if "after" or "after_regions";
5. the class's `verify_after_inference_`: checks MLIR makes after the inference check (a later
   trait, SymbolUserOpInterface, the part of `verify()` that reads the inferred shape).

This is the one place that runs the inference check, on the plan's path and on xDSL's alike (both
call the composed `verify_`)."""


def op_verifier(cls: type[Operation]) -> Callable[[Operation], None]:
    """The `verify_` that `ir.ops.base.op_def` gives xDSL's `irdl_op_definition` to wrap for `cls`:
    its checks composed in the order `INFER_CHECKS` describes.  A class that declares nothing
    keeps its `verify_` (its own or inherited one; Operation's does nothing)."""
    when = getattr(cls, "INFER_CHECK", None)
    if when not in INFER_CHECKS:
        raise ValueError(f"{cls.__name__}.INFER_CHECK = {when!r}: one of {list(INFER_CHECKS)}")
    own = getattr(cls, "verify_", Operation.verify_)
    if getattr(own, "__qualname__", "") == _GENERATED_VERIFY:
        raise ValueError(f"{cls.__name__} inherits a decorated op's verify_: compose once")
    ods = getattr(cls, "ODS_CHECK", None)
    later = getattr(cls, "verify_after_inference_", None)
    infer = INFER_CHECKS[when]
    if infer is None and ods is None and later is None:
        return own
    steps = [
        f
        for f in (
            ods,
            infer if when == "before" else None,
            None if own is Operation.verify_ else own,
            None if when == "before" else infer,
            later,
        )
        if f is not None
    ]
    if len(steps) == 1:
        (first,) = steps

        def verify_(op: Operation) -> None:
            first(op)
    elif len(steps) == 2:
        first, second = steps

        def verify_(op: Operation) -> None:
            first(op)
            second(op)
    else:
        chain = tuple(steps)

        def verify_(op: Operation) -> None:
            for step in chain:
                step(op)

    verify_.__qualname__ = f"{cls.__qualname__}.verify_"
    verify_.__module__ = cls.__module__
    verify_.__doc__ = getattr(own, "__doc__", None)
    return verify_
