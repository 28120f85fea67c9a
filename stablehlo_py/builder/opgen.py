"""One builder function per op, generated from the registered op classes.

The table is the IRDL definitions of the op classes in ``stablehlo_py/ir/ops/`` (registered in
``stablehlo_py.ir.registry``): their operand, property, region and result definitions in order.
Each op becomes an :class:`OpFunction` whose parameters are the spec's names:

- operands first, positional or by name (a variadic operand takes a sequence, or one value);
  xDSL's reserved names lose their trailing underscore (``operands_`` -> ``operands``);
- a Python number, numpy scalar or 0-d array among the operands becomes a splat constant
  (``stablehlo_py.builder.core.operand_constant``) of the element type its operand's role needs
  (``OPERAND_ROLES``): an index takes the other indices' integer type (else i32), a predicate i1,
  any other operand the element type of the first non-i1 data operand -- or, in a second variadic
  group (``init_values``, ``updates``), of the first group's item at the same position -- with that
  operand's shape for elementwise ops, else 0-d.  The value must survive as it is
  (``stablehlo_py.builder.numbers``: never truncated, wrapped or overflowed), else a BuildError;
- then the attributes, positional or by name, converted from plain Python values by
  ``stablehlo_py.builder.attrs`` (an optional attribute left out or given as None is omitted);
- regions by name only, each a callable (``stablehlo_py.builder.regions``);
- ``result_type=`` (keyword only): the result type, or a list of them for several results.  Ops that
  upstream infers may leave it out (``stablehlo_py.ir.infer``); the others must give it
  (``broadcast_in_dim``, ``reshape``, ``iota``, ``convert``, ``bitcast_convert``, ``custom_call``,
  ``rng_bit_generator``, the ``dynamic_*`` shape ops, ...).  For ``dot``, ``dot_general``,
  ``convolution`` and ``dynamic_conv`` upstream infers only the result shape (the element type is
  the producer's choice): the builder takes the lhs element type, and ``result_type=`` gives
  another (``i8 x i8 -> i32``).
- ``loc=`` (keyword only): an explicit location (MLIR text inside ``loc(...)``, or a TextLoc).

Each op is checked when it is built, by the verifier's own rules (``ir.verify.driver.check_built``:
result-type inference, the ODS operand and result types, traits, the op's verifier and its regions'
signatures), before it is inserted; a failure is a ``BuildError`` in upstream's words without MLIR's
``'<op>' op`` prefix, naming the op, with a note giving every operand's type (and ``result_type=``),
at the producer's line (``builder.sites.site()``: the innermost frame outside the toolkit), and the
call leaves nothing behind (the constants it made for Python numbers are erased).  What needs the
op's surroundings is left to ``Module.verify()``: terminators (the builder makes them) and symbol
uses.  An op of a signature checked before (same class, operand types, properties, result types
when given) is neither inferred nor checked again (``driver.by_signature``, ``CACHE.built``).

A function returns the op's single result as a value, several results as a tuple, and the op itself
when it has no result.  Function names are the op names without the dialect, with a trailing ``_``
for Python keywords (``and_``, ``or_``, ``not_``, ``if_``, ``while_``, ``return_``) and ``-``
replaced by ``_`` (``cross_replica_sum``).
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, OpResult, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    OptOperandDef,
    OptPropertyDef,
    VarOperandDef,
    VarRegionDef,
    VarResultDef,
)
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.builder import attrs as attr_conv
from stablehlo_py.builder import forms
from stablehlo_py.builder.core import (
    dense_value,
    discard,
    index_array,
    insert,
    operand_constant,
    result_types_of,
    shape_tensor,
)
from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.fastop import new_op
from stablehlo_py.builder.regions import build_region
from stablehlo_py.builder.sites import arity_problem, defined_at, explicit_location, site
from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.infer import InferError, has_rule, infer_result_types
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.verify.constraints import t2s
from stablehlo_py.ir.verify.driver import BUILT, by_signature, check_built

_MISSING = object()
_OpResult = OpResult
_I1 = IntegerType(1)
_I1_SCALAR = TensorType(_I1, [])
_I32_SCALAR = TensorType(IntegerType(32), [])
_SEGMENT_PROPS = ("operandSegmentSizes", "resultSegmentSizes")
_FULL_SHAPE_OPS = frozenset({"stablehlo.select", "chlo.next_after", "chlo.zeta", "chlo.polygamma"})
"""Beyond the elementwise family: ops whose operands (bar a predicate) share one shape, so a Python
number among them is a splat of the other operands' shape."""


def py_name(name: str) -> str:
    name = name.rstrip("_").replace("-", "_")
    return name + "_" if keyword.iskeyword(name) else name


@dataclass(frozen=True)
class OperandParam:
    name: str
    variadic: bool
    optional: bool
    field: str
    """The op class's field (``operands_``)."""


@dataclass(frozen=True)
class AttrParam:
    name: str
    prop: str
    required: bool
    converter: attr_conv.Converter
    syntax: Any
    constraint: Any = None
    """The property's constraint (an attribute given as is, or as text, must satisfy it)."""


@dataclass(frozen=True)
class RegionParam:
    name: str
    variadic: bool


@dataclass(frozen=True)
class OpSpec:
    """One row of the table: what the builder needs to know about an op class."""

    name: str
    cls: type[Operation]
    operands: tuple[OperandParam, ...]
    attrs: tuple[AttrParam, ...]
    regions: tuple[RegionParam, ...]
    n_results: int | None
    """The number of results when fixed, None when variadic."""
    inferred: bool
    full_shape_scalars: bool
    operand_segments: bool
    result_segments: bool

    @property
    def positional(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.operands) + tuple(a.name for a in self.attrs)


def op_spec(cls: type[Operation]) -> OpSpec:
    """Read the op class's IRDL definition into an OpSpec."""
    d = cls.get_irdl_definition()  # type: ignore[attr-defined]
    syntaxes = getattr(cls, "_PROP_SYNTAX", {})
    operands = tuple(
        OperandParam(py_name(n), isinstance(o, VarOperandDef), isinstance(o, OptOperandDef), n)
        for n, o in d.operands
    )
    attrs = []
    for prop, p in d.properties.items():
        if prop in _SEGMENT_PROPS:
            continue
        syntax = syntaxes.get(prop) or syntaxes.get(_field_of(cls, prop))
        constr = getattr(p.constr, "attr", None)
        ccls = constr if isinstance(constr, type) else None
        attrs.append(
            AttrParam(
                py_name(prop),
                prop,
                not isinstance(p, OptPropertyDef),
                attr_conv.converter_for(prop, syntax, ccls),
                syntax,
                p.constr,
            )
        )
    order = getattr(cls, "ATTRIBUTE_ORDER", ())
    if order:  # upstream's order where IRDL's differs (inherited attributes come last there)
        attrs.sort(key=lambda a: order.index(a.prop) if a.prop in order else len(order))
    regions = tuple(RegionParam(py_name(n), isinstance(r, VarRegionDef)) for n, r in d.regions)
    variadic_results = any(isinstance(r, VarResultDef) for _, r in d.results)
    options = getattr(d, "options", ())
    inferred = has_rule(cls.name)
    full_shape = cls.__module__.endswith("ops.elementwise") or cls.name in _FULL_SHAPE_OPS
    if inferred and not full_shape:
        from stablehlo_py.ir.infer import rules

        full_shape = rules()[cls.name].__module__.endswith("infer.elementwise")
    return OpSpec(
        cls.name,
        cls,
        operands,
        tuple(attrs),
        regions,
        None if variadic_results else len(d.results),
        inferred,
        full_shape,
        any(isinstance(o, AttrSizedOperandSegments) for o in options),
        any(isinstance(o, AttrSizedResultSegments) for o in options),
    )


def _field_of(cls: type, prop: str) -> str:
    """The Python field that declares property ``prop`` (``name_prop`` for composite's ``name``)."""
    for klass in cls.__mro__:
        for k, v in vars(klass).items():
            if getattr(v, "prop_name", None) == prop:
                return k
    return prop


class OpFunction:
    """The builder function of one op (see the module docstring)."""

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.__name__ = py_name(spec.name.split(".", 1)[1])
        self.__qualname__ = self.__name__
        self._dtype_form = spec.name in forms.DTYPE_FORM
        self._positional = spec.positional + ((forms.ELEMENT_TYPE,) if self._dtype_form else ())
        self._names = frozenset(self._positional) | {r.name for r in spec.regions}
        self._populated = tuple(getattr(spec.cls, "POPULATED_DEFAULTS", {}).items())
        self._hook = _HOOKS.get(spec.name)
        self._check = not spec.cls.has_trait(IsTerminator)  # type: ignore[attr-defined]
        """Check the op when it is built (terminators are checked by Module.verify: they need the
        block they end)."""
        self._memo: bool | None = None
        """Remember checked ops by signature (``driver.by_signature``); decided on first use."""
        self.__signature__ = _signature(spec)
        if spec.name in forms.CONV_OPS:  # builder defaults: every attribute is optional
            sig = self.__signature__
            attrs = {a.name for a in spec.attrs}
            P = inspect.Parameter
            self.__signature__ = sig.replace(
                parameters=[
                    p.replace(
                        default=forms.CONV_DEFAULTS.get(p.name),
                        kind=P.POSITIONAL_OR_KEYWORD if p.name in attrs else p.kind,
                    )
                    if p.name in forms.CONV_OPTIONAL or p.name in attrs
                    else p
                    for p in sig.parameters.values()
                ]
            )
        if self._dtype_form:  # convert(x, "f32"): the element type after the operand
            sig = self.__signature__
            params = list(sig.parameters.values())
            n = len(spec.operands)
            P = inspect.Parameter
            params.insert(n, P(forms.ELEMENT_TYPE, P.POSITIONAL_OR_KEYWORD, default=None))
            self.__signature__ = sig.replace(parameters=params)
        self.__doc__ = _doc(spec, self.signature())

    def __repr__(self) -> str:
        return f"<builder function {self.spec.name}>"

    def parameters(self) -> list[str]:
        """The parameters as help() and docs/builder-ops.md show them, in the signature's order
        (``*`` where the keyword-only ones start; ``result_type=`` and ``loc=`` left out):
        ``inputs...`` a variadic operand (a sequence of values, or one), ``name: kind`` an
        attribute with the kind of Python value it takes (``attrs.kind_of``), ``= default`` when it
        may be left out (a builder default such as convolution's group counts, else None: absent),
        ``name: fn`` a region's callable (``[fn]`` several)."""
        spec = self.spec
        kinds: dict[str, str] = {
            **{o.name: "" for o in spec.operands},
            **{a.name: ": " + attr_kind(spec, a) for a in spec.attrs},
            **{r.name: ": [fn]" if r.variadic else ": fn" for r in spec.regions},
            forms.ELEMENT_TYPE: ": dtype",
        }
        variadic = {o.name for o in spec.operands if o.variadic}
        defaults = forms.CONV_DEFAULTS if spec.name in forms.CONV_OPS else {}
        out = []
        for p in self.__signature__.parameters.values():
            if p.name in ("result_type", "loc"):
                continue
            if p.kind is p.KEYWORD_ONLY and "*" not in out:
                out.append("*")
            text = p.name + ("..." if p.name in variadic else "") + kinds[p.name]
            if p.default is not p.empty:
                text += f" = {defaults.get(p.name, p.default)!r}"
            out.append(text)
        return out

    def signature(self) -> str:
        """``name(parameters)`` (see ``parameters``)."""
        return f"{self.__name__}({', '.join(self.parameters())})"

    def __call__(self, *args: Any, result_type: Any = None, loc: Any = None, **kwargs: Any) -> Any:
        values: dict[str, Any] = {}
        made: list[Any] = []  # constants made for Python numbers, regions (undone on failure)
        try:
            if loc is not None:
                loc = explicit_location(loc, self.spec.name)
            return self._build(args, kwargs, values, made, result_type, loc)
        except BaseException as e:
            _undo(made, values)
            if isinstance(e, BuildError) and e.location is None:
                e.at(site())
            raise

    def _build(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        values: dict[str, Any],
        made: list[Any],
        result_type: Any,
        loc: Any,
    ) -> Any:
        spec = self.spec
        names = self._positional
        if len(args) > len(names):
            raise BuildError(
                f"{spec.name} takes at most {len(names)} positional arguments ({', '.join(names)}); got {len(args)}"
            )
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in self._names:
                raise BuildError(
                    f"{spec.name} has no operand, attribute or region {k!r}",
                    note=f"its parameters: {', '.join((*names, *(r.name for r in spec.regions)))}",
                )
            if k in values:
                raise BuildError(f"{spec.name}: {k!r} given twice (by position and by name)")
            values[k] = v
        if self._dtype_form:
            result_type = forms.dtype_result(spec.name, values, result_type)

        # operands
        flat: list[SSAValue] = []
        sizes: list[int] = []
        groups: list[list[SSAValue]] = []
        like: list[SSAValue | None] = []  # computed on first need: [the operand numbers take after]
        first_group: list[SSAValue] | None = None
        for o in spec.operands:
            v = values.get(o.name, _MISSING)
            if not (o.variadic or o.optional):
                if v.__class__ is _OpResult or isinstance(v, SSAValue):
                    flat.append(v)
                    sizes.append(1)
                    groups.append([v])
                    continue
                if v is _MISSING:
                    raise BuildError(f"{spec.name}: missing operand '{o.name}'")
                items = [v]
            elif v is _MISSING or v is None:
                items = []
            else:
                items = (
                    [v]
                    if isinstance(v, SSAValue) or isinstance(v, str | bytes | bytearray)  # noqa: SIM101
                    else list(v)
                    if isinstance(v, Sequence)
                    else [v]
                )
            vals = []
            for i, x in enumerate(items):
                if not isinstance(x, SSAValue):
                    x = _number(spec, o, i, x, items, values, like, first_group, made)
                    made.append(x)
                vals.append(x)
            if o.variadic and first_group is None:
                first_group = vals
            flat.extend(vals)
            sizes.append(len(vals))
            groups.append(vals)
        by_name = _LazyTypes(spec.operands, groups)

        default_results = None
        hook = self._hook
        if hook is not None:
            default_results = hook(values, flat)

        # attributes
        props: dict[str, Attribute] = {}
        for a in spec.attrs:
            v = values.get(a.name, _MISSING)
            if v is _MISSING or v is None:
                if a.required:
                    raise BuildError(f"{spec.name}: missing attribute '{a.name}'")
                continue
            if v is False and a.converter is attr_conv._unit:
                continue
            ctx = attr_conv.Ctx(spec.name, a.name, a.syntax, by_name, a.constraint)
            props[a.prop] = attr_conv.convert(a.converter, v, ctx)
        if spec.operand_segments:
            props["operandSegmentSizes"] = DenseArrayBase.from_list(IntegerType(32), sizes)

        # regions
        regions = []
        for r in spec.regions:
            v = values.get(r.name, _MISSING)
            if r.variadic:
                fns = (
                    []
                    if v is _MISSING or v is None
                    else list(v)
                    if isinstance(v, Sequence)
                    else [v]
                )
                for f in fns:
                    regions.append(build_region(spec.name, r.name, f, by_name, props))
                    made.append(regions[-1])
            else:
                if v is _MISSING or v is None:
                    raise BuildError(f"{spec.name}: missing region '{r.name}' (give a callable)")
                regions.append(build_region(spec.name, r.name, v, by_name, props))
                made.append(regions[-1])

        # result types; an op of a signature checked before is not inferred or checked again
        check = self._check
        key: tuple[Any, ...] | None = None
        memo = self._memo
        if memo is None:
            memo = self._memo = by_signature(spec.cls)
        if memo and default_results is None and not regions:
            key = (spec.cls, *[x.type for x in flat], None, *props.values())
        if result_type is not None:
            results = result_types_of(result_type, spec.n_results, spec.name)
            forms.refuse_element_results(spec.name, results)
            if key is not None:
                key = (*key, None, *results)
                if BUILT.get_seq(key, tuple(props)) is not None:
                    check = False
        elif default_results is not None:
            results = default_results
        elif spec.result_segments:
            results = []  # the group sizer below gives them
        elif spec.inferred:
            hit = None if key is None else BUILT.get_seq(key, tuple(props))
            if hit is not None:
                results = hit
                check = False
            else:
                try:
                    results = infer_result_types(
                        spec.name, [x.type for x in flat], props, regions, flat
                    )
                except InferError as e:
                    err = self._error(e.message, spec.operands, groups, made, None)
                    if spec.regions and _ABOUT_REGIONS.search(err.message):
                        _note_regions(err, spec, values)
                    raise err from None
                except VerifyException as e:
                    # the rule could not even make a type (complex of complex): the verifier's ODS
                    # checks, which MLIR runs before inference, say why in upstream's words
                    raise self._probe(flat, props, regions, groups, made, e) from None
        elif spec.n_results == 0:
            results = []
        else:
            raise BuildError(
                f"{spec.name}: the result type is not inferred (upstream does not infer it); "
                "pass result_type=",
                note="e.g. result_type='tensor<2x3xf32>' or result_type=((2, 3), 'f32')",
            )
        if spec.result_segments:
            sizer = _RESULT_SEGMENTS.get(spec.name)
            if sizer is None:
                raise BuildError(
                    f"{spec.name}: building an op with several variadic result groups is not supported"
                )
            if result_type is None:
                results = sizer.results(regions, by_name, props)
            props["resultSegmentSizes"] = DenseArrayBase.from_list(
                IntegerType(32), sizer.sizes(results, by_name)
            )

        op = new_op(spec.cls, flat, results, props, regions)
        for k, v in self._populated:
            op.properties.setdefault(k, v)
        if check:
            try:
                check_built(op)
                if spec.name in forms.MODULE_CHECKS:  # what the op's verifier leaves to its module
                    forms.MODULE_CHECKS[spec.name](op)
            except VerifyError as e:
                err = self._error(
                    _reason(e.message, spec.name), spec.operands, groups, made, result_type
                )
                if spec.regions and _ABOUT_REGIONS.search(err.message):
                    _note_regions(err, spec, values)
                _drop(op)
                raise err from None
            if key is not None:
                verdict = True if result_type is not None else tuple(results)
                BUILT.put_seq(key, verdict, tuple(props))
        insert(op)
        if loc is not None:
            op.location = loc
        res = op.results
        if len(res) == 1:
            return res[0]
        if not res:
            return op
        return tuple(res)

    def _probe(
        self,
        flat: list[SSAValue],
        props: dict[str, Attribute],
        regions: list[Region],
        groups: list[list[SSAValue]],
        made: list[Any],
        cause: VerifyException,
    ) -> BuildError:
        """The error for operands whose result type cannot be made: the verifier's, on the op
        built with the first operand's type as every result type, else the rule's failure."""
        spec = self.spec
        probe = new_op(spec.cls, flat, [flat[0].type] * (spec.n_results or 1), props, regions)
        try:
            check_built(probe)
        except VerifyError as e:
            return self._error(_reason(e.message, spec.name), spec.operands, groups, made, None)
        finally:
            probe.drop_all_references()
        return self._error(
            f"cannot infer the result type: {cause}".replace("\n", " "),
            spec.operands,
            groups,
            made,
            None,
        )

    def _error(
        self,
        reason: str,
        operands: tuple[OperandParam, ...],
        groups: list[list[SSAValue]],
        made: list[Any],
        result_type: Any,
    ) -> BuildError:
        """A failed check or inference as a BuildError: the reason (operand indices named), and a
        note with every operand's type (and the result type given)."""
        labels = _labels(operands, groups)
        reason = _OPERAND_INDEX.sub(
            lambda m: f"{m.group(0)} ('{labels[int(m.group(1))][0]}')"
            if int(m.group(1)) < len(labels)
            else m.group(0),
            reason,
        )
        parts = [
            f"operand '{label}' is {t2s(v.type)}"
            + (" (made from a Python value)" if v in made else "")
            for label, v in labels
        ]
        if result_type is not None:
            parts.append(f"result_type= {', '.join(t2s(t) for t in _as_types(result_type))}")
        err = BuildError(f"{self.spec.name}: {reason}", note="; ".join(parts) if parts else None)
        err.op = self.spec.name
        err.operands = [(label, v.type) for label, v in labels]
        hint = next((h for k, h in HINTS if reason.startswith(k)), None)
        return err if hint is None else err.also(hint)


_ABOUT_REGIONS = re.compile(r"region|block|return|comparator|body|branch|cond", re.IGNORECASE)
"""A verifier's message about an op's regions: the BuildError says where their callables are."""
_OPERAND_INDEX = re.compile(r"\boperand #(\d+)(?! \()")


def _reason(message: str, op_name: str) -> str:
    """A verifier's message without MLIR's ``'<op>' op `` prefix (the BuildError names the op)."""
    prefix = f"'{op_name}' op "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _labels(
    operands: tuple[OperandParam, ...], groups: list[list[SSAValue]]
) -> list[tuple[str, SSAValue]]:
    """(spec name, value) of each operand in order: ``lhs``; ``inputs[1]`` in a variadic group."""
    out = []
    for o, g in zip(operands, groups):
        for i, v in enumerate(g):
            out.append((f"{o.name}[{i}]" if o.variadic else o.name, v))
    return out


def _as_types(result_type: Any) -> list[Attribute]:
    try:
        return result_types_of(result_type, None, "")
    except BuildError:
        return []


_CONVERT = (
    "to combine element types, convert one operand first: hlo.convert(value, 'f32') (the "
    "element type alone: the shape stays)"
)
HINTS: tuple[tuple[str, str], ...] = (
    ("requires the same element type", _CONVERT),
    ("requires compatible element types", _CONVERT),
    (
        "Mismatched dimension sizes",
        "operands of elementwise ops have one shape: broadcast the other one first "
        "(hlo.broadcast_in_dim(value, broadcast_dimensions, result_type=...))",
    ),
    (
        "operand #0 ('pred') must be ranked tensor of bool values",
        "a predicate is an i1 tensor: make one with hlo.compare(lhs, rhs, 'NE') or hlo.convert",
    ),
)
"""A fix for a producer's common mistake, by the reason's first words (upstream's messages)."""

_REGION_WORDS = {"cond": ("cond",), "body": ("body", "reduction-region", "block")}
"""How upstream's messages name a region, when not by its name."""


def _note_regions(err: BuildError, spec: OpSpec, values: Mapping[str, Any]) -> None:
    """Notes saying where the callables of the regions the message is about were defined (of
    every region, when it names none)."""
    text = err.message.lower()
    named = [
        r for r in spec.regions if any(w in text for w in (r.name, *_REGION_WORDS.get(r.name, ())))
    ]
    for r in named or spec.regions:
        v = values.get(r.name)
        for f in v if isinstance(v, list | tuple) else [v]:
            where = defined_at(f) if callable(f) else None
            if where is not None:
                err.also(f"region '{r.name}' is the callable defined at {where}")


def _drop(op: Operation) -> None:
    """Forget a built op that failed its check (its operands stop using their values)."""
    op.drop_all_references()


def _undo(made: list[Any], values: Mapping[str, Any]) -> None:
    """After a failed call: the regions it built stop using outer values, the constants it made
    for Python numbers and the function it made for a composite's decomposition are erased, so
    that the module holds nothing of the call."""
    for r in made:
        if isinstance(r, Region):
            r.drop_all_references()
    discard([v for v in made if isinstance(v, SSAValue)])
    fn = values.get(_MADE_FUNCTION)
    if fn is not None:
        from stablehlo_py.builder.core import current_module

        module = current_module()
        fn.op.detach()
        fn.op.erase()
        if module is not None and module.functions.get(fn.sym_name) is fn:
            del module.functions[fn.sym_name]
        if module is not None:
            forms.forget_function(module, fn)


_MADE_FUNCTION = " made function"
"""Where ``_composite`` leaves the function it built (not a parameter name: it has a space)."""


def _composite(values: dict[str, Any], operands: list[SSAValue]) -> list[Attribute] | None:
    """composite: ``decomposition`` may be a callable, built as a private function of the current
    module, named after the composite (``@my.op``, or ``@my.op_1`` when taken), once per
    (callable, operand types): a later composite with the same ones references it
    (``forms.function_for``); the results default to the decomposition's result types."""
    from stablehlo_py.builder.core import current_module
    from stablehlo_py.builder.module import Function

    dec = values.get("decomposition")
    if callable(dec) and not isinstance(dec, Function):
        module = current_module()
        if module is None:
            raise BuildError(
                "stablehlo.composite: a callable decomposition needs a Module being built"
            )
        problem = arity_problem(dec, len(operands))
        if problem is not None:
            where = defined_at(dec)
            raise BuildError(
                f"stablehlo.composite: the decomposition gets the {len(operands)} input(s); "
                f"the callable {problem}",
                note=None if where is None else f"the decomposition is defined at {where}",
            )
        base = str(values.get("name") or "composite")
        dec, made = forms.function_for(module, dec, [v.type for v in operands], base)
        values["decomposition"] = dec
        if made:
            values[_MADE_FUNCTION] = dec
    if isinstance(dec, Function):
        return dec.result_types
    return None


def _constant_value(op: str, values: dict[str, Any]) -> None:
    """constant: ``value`` may be what ``builder.constant`` takes (a number, a (nested) list of
    numbers, a numpy array or scalar: the attribute ``constant(value)`` holds), besides an
    attribute or its text."""
    v = values.get("value")
    if v is not None and not isinstance(v, Attribute | str):
        try:
            values["value"] = dense_value(v)
        except BuildError as e:
            raise BuildError(f"{op}: attribute 'value': {e.message}", note=e.note) from None


_HOOKS = {
    "stablehlo.composite": _composite,
    **{
        op: lambda values, operands, _op=op: _constant_value(_op, values)
        for op in ("stablehlo.constant", "chlo.constant")
    },
    **{
        op: lambda values, operands, _op=op: forms.conv_form(_op, values, operands)
        for op in forms.CONV_OPS
    },
}
"""Ops whose builder function does one thing more than the table says (before attributes are
converted; may give default result types)."""


class _LazyTypes(Mapping[str, list[Attribute]]):
    """Operand types by spec name, made only if a region or attribute asks."""

    __slots__ = ("_groups", "_operands", "_types")

    def __init__(self, operands: tuple[OperandParam, ...], groups: list[list[SSAValue]]):
        self._operands = operands
        self._groups = groups
        self._types: dict[str, list[Attribute]] | None = None

    def _get(self) -> dict[str, list[Attribute]]:
        if self._types is None:
            self._types = {
                o.name: [v.type for v in g] for o, g in zip(self._operands, self._groups)
            }
        return self._types

    def __getitem__(self, k: str) -> list[Attribute]:
        return self._get()[k]

    def __iter__(self) -> Any:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._operands)


def _paired(group: list[SSAValue] | None, i: int, like: SSAValue | None) -> SSAValue | None:
    """A number in a second variadic group (``init_values``, ``updates``) takes the type of the
    item at the same position of the first group (``inputs``)."""
    if group is not None and i < len(group):
        return group[i]
    return like


class _ScanResults:
    """chlo.scan's two result groups: the outputs (each value the body returns before the carries,
    stacked along ``dimension``) and the carries (the ``inits``' types)."""

    @staticmethod
    def results(
        regions: list[Region], types: Mapping[str, list[Attribute]], props: dict[str, Attribute]
    ) -> list[Attribute]:
        from stablehlo_py.ir.types import element_type, shape_of, tensor_type

        block = regions[0].blocks.first  # an xDSL Region given as is may have none
        ret = block.last_op if block is not None else None
        returned = [v.type for v in ret.operands] if ret is not None else []
        inits = list(types["inits"])
        n_out = len(returned) - len(inits)
        if n_out < 0:
            raise BuildError(
                f"chlo.scan: the body returns {len(returned)} values; it must return the outputs, then {len(inits)} carries"
            )
        d = props["dimension"].value.data  # type: ignore[attr-defined]
        n = 1
        if types["inputs"]:
            shape = shape_of(types["inputs"][0]) or ()
            if not 0 <= d < len(shape):
                raise BuildError(
                    f"chlo.scan: dimension {d} is not a dimension of the input {t2s(types['inputs'][0])}"
                )
            n = shape[d]
        outs = []
        for t in returned[:n_out]:
            s = shape_of(t) or ()
            outs.append(tensor_type(element_type(t), (*s[:d], n, *s[d:])))
        return [*outs, *inits]

    @staticmethod
    def sizes(results: list[Attribute], types: Mapping[str, list[Attribute]]) -> list[int]:
        n_carries = len(types["inits"])
        return [len(results) - n_carries, n_carries]


_RESULT_SEGMENTS = {"chlo.scan": _ScanResults}
"""Ops with several variadic result groups: how to give their result types and group sizes."""


def _number(
    spec: OpSpec,
    o: OperandParam,
    i: int,
    x: Any,
    items: list[Any],
    values: Mapping[str, Any],
    like: list[SSAValue | None],
    first_group: list[SSAValue] | None,
    made: list[Any],
) -> SSAValue:
    """The constant for a Python number (or numpy scalar) given as item ``i`` of operand ``o``:
    of the element type the operand's role needs (``OPERAND_ROLES``; see ``builder.numbers``)."""
    given = values.get(o.name)
    listed = o.variadic and isinstance(given, Sequence) and not isinstance(given, str)
    what = f"operand '{o.name}[{i}]'" if listed else f"operand '{o.name}'"
    role = OPERAND_ROLES.get((spec.name, o.name))
    if role == "index":  # the integer type of the other indices, else JAX's i32
        typed = next((v for v in items if isinstance(v, SSAValue)), None)
        t = typed.type if typed is not None else _I32_SCALAR
        source = (
            "the other indices are {type}" if typed is not None else "indices default to {type}"
        )
        if isinstance(x, list | tuple):  # an index tensor written as a nested list
            return index_array(x, t, spec.name, o.name)
        return operand_constant(x, t, False, spec.name, what, source)
    if role == "shape":  # a sequence of sizes: JAX's shape tensor
        return shape_tensor(x, spec.name, o.name, made)
    if not like:
        like.append(_like(values, spec))
    if role == "pred":  # i1, of the data's shape where the op's operands share one
        data = like[0].type if like[0] is not None else None
        t = _I1_SCALAR
        if spec.full_shape_scalars and isinstance(data, TensorType):
            shape = data.get_shape()
            t = TensorType(_I1, shape) if all(d >= 0 for d in shape) else t  # else 0-d: legal
        return operand_constant(x, t, True, spec.name, what, "a predicate is {type}")
    model = _paired(first_group, i, like[0]) if o.variadic else like[0]
    label = next(
        (n for n, v in _labels(spec.operands, _given_groups(spec, values)) if v is model), None
    )
    return operand_constant(
        x,
        model,
        spec.full_shape_scalars,
        spec.name,
        what,
        None if label is None else f"operand '{label}' is {{type}}",
        made,
    )


OPERAND_ROLES: dict[tuple[str, str], str] = {
    **{
        (op, operand): "index"
        for op, operand in (
            ("stablehlo.dynamic_slice", "start_indices"),
            ("stablehlo.dynamic_update_slice", "start_indices"),
            ("stablehlo.gather", "start_indices"),
            ("stablehlo.dynamic_gather", "start_indices"),
            ("stablehlo.scatter", "scatter_indices"),
            ("stablehlo.set_dimension_size", "size"),
            ("stablehlo.torch_index_select", "index"),
            ("stablehlo.case", "index"),
            ("stablehlo.dynamic_conv", "padding"),
        )
    },
    **{
        (op, operand): "shape"
        for op, operand in (
            ("stablehlo.dynamic_broadcast_in_dim", "output_dimensions"),
            ("stablehlo.dynamic_reshape", "output_shape"),
            ("stablehlo.dynamic_iota", "output_shape"),
            ("stablehlo.dynamic_pad", "edge_padding_low"),
            ("stablehlo.dynamic_pad", "edge_padding_high"),
            ("stablehlo.dynamic_pad", "interior_padding"),
            ("stablehlo.real_dynamic_slice", "start_indices"),
            ("stablehlo.real_dynamic_slice", "limit_indices"),
            ("stablehlo.real_dynamic_slice", "strides"),
            ("stablehlo.dynamic_gather", "slice_sizes"),
            ("stablehlo.rng", "shape"),
        )
    },
    ("stablehlo.select", "pred"): "pred",
    ("stablehlo.if", "pred"): "pred",
    ("chlo.broadcast_select", "pred"): "pred",
}
"""Operands whose numbers do not take the data operands' element type: indices (the integer type
of the other indices, else i32, JAX's default index type), shapes (a sequence of sizes: a 1-D
i32 shape tensor, ``core.shape_tensor``) and predicates (i1).  Every other
operand's number takes the element type of the op's data (``_like``)."""


def _given_groups(spec: OpSpec, values: Mapping[str, Any]) -> list[list[Any]]:
    out = []
    for o in spec.operands:
        v = values.get(o.name)
        out.append(list(v) if isinstance(v, Sequence) and not isinstance(v, str) else [v])
    return out


def _like(values: Mapping[str, Any], spec: OpSpec) -> SSAValue | None:
    """The operand whose type a Python number among the operands takes: the first tensor operand
    with a non-i1 element type, else the first tensor operand (index and predicate operands
    aside)."""
    first = None
    for o in spec.operands:
        if (spec.name, o.name) in OPERAND_ROLES:
            continue
        v = values.get(o.name)
        for x in v if isinstance(v, Sequence) and not isinstance(v, str) else [v]:
            if isinstance(x, SSAValue):
                if first is None:
                    first = x
                if getattr(x.type, "element_type", None) != _I1:
                    return x
    return first


def _signature(spec: OpSpec) -> inspect.Signature:
    P = inspect.Parameter
    params = [P(o.name, P.POSITIONAL_OR_KEYWORD) for o in spec.operands]
    seen_default = False
    kw_only = False
    for a in spec.attrs:
        kw_only = kw_only or (seen_default and a.required)
        seen_default = seen_default or not a.required
        kind = P.KEYWORD_ONLY if kw_only else P.POSITIONAL_OR_KEYWORD
        params.append(P(a.name, kind, default=P.empty if a.required else None))
    params += [
        P(r.name, P.KEYWORD_ONLY, default=None if r.variadic else P.empty) for r in spec.regions
    ]
    params += [
        P("result_type", P.KEYWORD_ONLY, default=None),
        P("loc", P.KEYWORD_ONLY, default=None),
    ]
    return inspect.Signature(params)


def _doc(spec: OpSpec, signature: str) -> str:
    head = (spec.cls.__doc__ or spec.name).strip().splitlines()[0]
    lines = [f"Build ``{spec.name}``: {head}", "", f"Call: {signature}"]
    if spec.operands:
        lines.append(
            "Operands: " + ", ".join(o.name + ("..." if o.variadic else "") for o in spec.operands)
        )
    if spec.attrs:
        lines.append(
            "Attributes: " + ", ".join(a.name + ("" if a.required else "?") for a in spec.attrs)
        )
    if spec.regions:
        lines.append("Regions (callables): " + ", ".join(r.name for r in spec.regions))
    lines.append("Result type: " + result_source(spec))
    lines.append("Returns: " + returns(spec))
    return "\n".join(lines)


def attr_kind(spec: OpSpec, a: AttrParam) -> str:
    """The kind of Python value an attribute takes (``attrs.kind_of``, or a builder form's)."""
    return forms.FORM_KINDS.get((spec.name, a.name)) or attr_conv.kind_of(a.converter)


def result_source(spec: OpSpec) -> str:
    """Where the op's result types come from (help() and docs/builder-ops.md)."""
    if spec.n_results == 0:
        return "none (the op has no results)"
    return forms.RESULTS_FROM.get(spec.name) or (
        "inferred (result_type= overrides)" if spec.inferred else "result_type= required"
    )


def returns(spec: OpSpec) -> str:
    """What the builder function returns (see ``OpFunction.__call__``)."""
    n = spec.n_results
    if n == 0:
        return "the op"
    if n == 1:
        return "a value"
    if n is None:
        return "a value per result (a tuple when several)"
    return f"a tuple of {n} values"


class Namespace:
    """The builder functions of one dialect (``stablehlo``, ``chlo``), as attributes."""

    def __init__(self, dialect: str, functions: dict[str, OpFunction]):
        self._dialect = dialect
        self._functions = functions
        self.__dict__.update(functions)

    def __repr__(self) -> str:
        return f"<builder functions of the {self._dialect} dialect: {len(self._functions)} ops>"

    def __dir__(self) -> list[str]:
        return sorted(self._functions)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"the {self._dialect} dialect has no op {name!r} (see dir() for the list)"
        )

    def functions(self) -> dict[str, OpFunction]:
        return dict(self._functions)


BUILT_DIALECTS = ("stablehlo", "chlo")
"""The dialects whose ops get builder functions (func ops have their own API: Module.func, call)."""


def generate(dialect: str) -> Namespace:
    """The Namespace of a dialect's ops, from the registry."""
    from stablehlo_py.ir.dialects import default_registry

    fns = {}
    for name, cls in sorted(default_registry().ops.items()):
        if name.split(".", 1)[0] != dialect:
            continue
        f = OpFunction(op_spec(cls))
        fns[f.__name__] = f
    return Namespace(dialect, fns)
