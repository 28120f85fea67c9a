"""The msgpack reader's fast path: op records straight to StableHLO ops, no VHLO records between.

``deserialize_portable_artifact`` is ``read_artifact`` -> ``vhlo-to-version{current}`` ->
``vhlo-legalize-to-stablehlo`` (DESIGN.md §2); those arrows stay the semantics.  An artifact
written for the current version needs no fork step, and the legalization of one op is a function
of its fork, its attributes and its types alone (the owner of a ``return``: ``func.return`` in a
function, ``stablehlo.return`` elsewhere).  So this reader decodes with the reader's own checks
(``reader._Reader``: every size, reference, code, count and version check) and hands each op to a
sink that builds the StableHLO op at once:

* the class: the fork's StableHLO op (``specs`` ``stablehlo``), once per fork;
* properties and attributes: the legalization's own conversion (``_split_attributes``, memoized by
  the identity of the VHLO attributes, which the reader decodes once per entry), with its property
  check;
* types: ``convert.to_builtin_type`` once per type entry.

Anything this path does not cover -- an older fork, content of other dialects (text entries), a
conversion problem -- raises :class:`~stablehlo_py.serialization.direct_write.NotDirect` and the
caller takes the slow path, which gives the diagnostics.  Format errors are the reader's own
``SerializationError``, the same on both paths.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.serialization.direct_write import NotDirect
from stablehlo_py.serialization.format import CURRENT_SCHEMA
from stablehlo_py.serialization.entries import ATTR, TYPE
from stablehlo_py.serialization.reader import MAX_ATTR_SPLAT, RawArtifact, _Reader
from stablehlo_py.vhlo.records import VOp
from stablehlo_py.vhlo.sinks import XdslSink
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Block, Region

from stablehlo_py.ir.verify.driver import by_signature, verifies, verify, verify_declined
from stablehlo_py.ir.xdsl_compat.construct import new_op

__all__ = ["read_direct"]

_UNKNOWN = UnknownLoc()


class _StablehloSink(XdslSink):
    """Builds the StableHLO op of each VHLO op the reader decodes."""

    holds_other_ops = False

    def __init__(self, reader: _DirectReader):
        from stablehlo_py.passes.vhlo_legalize_to_stablehlo import _Legalizer
        from stablehlo_py.vhlo import sinks

        self.reader = reader
        self.legalizer = _Legalizer(False, sinks.XDSL)
        self.types: dict[int, Attribute] = {}  # id(VHLO type) -> builtin type
        self.classes: dict[tuple[type, bool], tuple[type, str]] = {}
        self.fields: dict[tuple[Any, ...], list[Any]] = {}

    def builtin_type(self, t: Attribute) -> Attribute:
        from stablehlo_py.vhlo.convert import to_builtin_type

        b = self.types[id(t)] = to_builtin_type(t)  # (the reader keeps ``t`` alive)
        return b

    def block(self, old: Any, arg_types: Any) -> Any:
        types = self.types
        out = []
        for t in arg_types:
            b = types.get(id(t))
            out.append(b if b is not None else self.builtin_type(t))
        return Block(arg_types=out)

    def target(self, cls: type, in_func: bool) -> tuple[type, str]:
        spec = cls.SPEC  # type: ignore[attr-defined]
        if not spec.stablehlo:
            raise NotDirect("an older fork")
        name = spec.stablehlo[0]
        if spec.base == "return":
            name = "func.return" if in_func else "stablehlo.return"
        target = self.legalizer.registry.ops.get(name)
        if target is None:
            raise NotDirect(name)
        got = self.classes[(cls, in_func)] = (target, name)
        return got

    def op(
        self, old: Any, cls: type[Any], operands: Any, result_types: Any,
        properties: Any, attributes: Any, regions: list[Any], location: Any = None,
    ) -> Any:
        parents = self.reader.parents
        in_func = bool(parents) and parents[-1] == "func"
        got = self.classes.get((cls, in_func))
        if got is None:
            got = self.target(cls, in_func)
        target = got[0]
        key = (cls, in_func, *properties, None, *attributes,
               *map(id, properties.values()), *map(id, attributes.values()))
        entry = self.fields.get(key)
        if entry is None:
            entry = self.fields[key] = self.convert_attributes(
                cls, got, properties, attributes, location
            )
        types = self.types
        rtypes = []
        for t in result_types:
            b = types.get(id(t))
            rtypes.append(b if b is not None else self.builtin_type(t))
        op = new_op(target, operands, rtypes, entry[0], regions, entry[1])
        op.location = _UNKNOWN if location is None else location
        return op

    def convert_attributes(
        self, cls: type, got: tuple[type, str], properties: Any, attributes: Any, location: Any
    ) -> list[Any]:
        """The StableHLO op's (properties, attributes): the legalization's ``_split_attributes``
        on a record of the VHLO op, and its property check."""
        from stablehlo_py.passes.vhlo_legalize_to_stablehlo import _check_property_dict

        target, name = got
        rec = VOp(cls.name, cls.SPEC, [], (), dict(properties), dict(attributes), [], location)  # type: ignore[attr-defined]
        try:
            entry = self.legalizer._split_attributes(rec, target)
            props, attrs = entry[0], entry[1]
            if name.startswith("stablehlo."):
                _check_property_dict(target, props, rec)
        except Exception as e:  # noqa: BLE001 - the slow path reports it as it does
            raise NotDirect(str(e)) from None
        return [props, attrs]  # (the key's VHLO attributes live as long as the reader's entries)

    def module(self, properties: Any, attributes: Any, regions: list, location: Any) -> Any:
        module = ModuleOp.create(properties=properties, attributes=attributes, regions=regions)
        module.location = _UNKNOWN if location is None else location
        return module


class _OpCode:
    """What the fast path knows of one op code: the reader's shape of the fork (counts, names),
    its base, and whether verification verdicts on its StableHLO op go by signature."""

    __slots__ = ("base", "constant", "names", "shape")

    def __init__(self, shape: Any):
        self.shape = shape
        self.base = shape.spec.base
        self.constant = shape.constant
        self.names = shape.spec.attribute_names


class _Attrs:
    """An op's attribute fields (by their entry indices) converted: the StableHLO op's class,
    properties and attributes, how many VHLO attributes the fork got, and the tensor elements the
    reader charges for each use (``_Reader.charge``)."""

    __slots__ = ("attrs", "by_signature", "charge", "cls", "n_props", "props", "vhlo_props")


class _DirectReader(_Reader):
    def __init__(self, raw: RawArtifact):
        super().__init__(raw, CURRENT_SCHEMA, records=True)
        self.parents: list[str] = []  # the base of each op whose regions are being read
        self.sink = _StablehloSink(self)
        self.codes: dict[int, _OpCode] = {}
        self.attr_memo: dict[tuple[Any, ...], _Attrs] = {}
        self.type_of: dict[int, Attribute] = {}  # type entry index -> builtin type
        self.stack_types: list[int] = []  # the type entry index of each value in ``stack``
        self.to_verify: list[tuple[Any, Any]] = []  # (op, signature key or None), as built
        self.vkey: Any = None

    def type_at(self, t: Any) -> Attribute:
        if type(t) is not int or not 0 <= t < len(self.objs) or self.kinds[t] != TYPE:
            raise NotDirect("not a type entry")
        b = self.type_of[t] = self.sink.builtin_type(self.objs[t])
        return b

    def op_code(self, code: Any) -> _OpCode:
        if type(code) is not int:
            raise NotDirect("op code")
        info = self.codes[code] = _OpCode(self.op_info(code))
        return info

    def attributes(
        self, info: _OpCode, cls: tuple[type, str], attrs: list[Any], extra: list[Any],
        location: Any,
    ) -> _Attrs:
        """The fields' conversion, checked as ``_Reader.op`` checks them."""
        objs, kinds, n_objs = self.objs, self.kinds, len(self.objs)
        names = info.names
        if len(attrs) > len(names):
            raise NotDirect("attributes")
        props: dict[str, Attribute] = {}
        charge = 0
        for i, a in enumerate(attrs):
            if a is None:
                continue
            if type(a) is not int or not 0 <= a < n_objs or kinds[a] != ATTR:
                raise NotDirect("attribute entry")
            if not (info.constant and names[i] == "value"):
                charge += self.charged(a)
            props[names[i]] = objs[a]
        attributes: dict[str, Attribute] = {}
        if len(extra) % 2:
            raise NotDirect("extra attributes")
        for i in range(0, len(extra), 2):
            k, a = extra[i], extra[i + 1]
            if type(k) is not str or k in props or k in attributes:
                raise NotDirect("extra attribute name")
            if type(a) is not int or not 0 <= a < n_objs or kinds[a] != ATTR:
                raise NotDirect("extra attribute entry")
            charge += self.charged(a)
            attributes[k] = objs[a]
        out = _Attrs()
        out.cls = cls[0]
        out.props, out.attrs = self.sink.convert_attributes(
            info.shape.cls, cls, props, attributes, location
        )
        out.n_props = len(props)
        out.vhlo_props = props
        out.charge = charge
        out.by_signature = by_signature(cls[0])
        return out

    def charged(self, a: int) -> int:
        n, splat = self.elems[a]
        if splat > MAX_ATTR_SPLAT:
            raise NotDirect("a splat too large")
        return n

    def op(self, rec: Any) -> Any:
        if type(rec) is not list:
            raise NotDirect("op record")
        n = len(rec)
        if n != self.op_width:
            if n > self.op_width or n == 0 or type(rec[0]) is str:
                raise NotDirect("op record width")
            rec = rec + self.op_pad[n:]
        code, operands, result_types, loc, attrs, regions, extra = rec
        info = self.codes.get(code) if type(code) is int else None
        if info is None:
            info = self.op_code(code)
        if type(operands) is not list or type(attrs) is not list or type(extra) is not list:
            raise NotDirect("op fields")
        if type(regions) is not list:
            raise NotDirect("regions")
        # operands: counts of values back on the stack
        stack, stack_types = self.stack, self.stack_types
        depth = len(stack)
        values = []
        tkeys = []
        for r in operands:
            if type(r) is not int or not 0 < r <= depth:
                raise NotDirect("operand")
            values.append(stack[depth - r])
            tkeys.append(stack_types[depth - r])
        # result types
        if type(result_types) is int:
            result_types = (result_types,)
        elif type(result_types) is not list:
            raise NotDirect("result types")
        type_of = self.type_of
        rtypes = []
        for t in result_types:
            b = type_of.get(t) if type(t) is int else None
            rtypes.append(b if b is not None else self.type_at(t))
        # location
        if type(loc) is not int:
            raise NotDirect("location")
        loc += self.prev_loc
        location = self.loc_objs.get(loc)
        if location is None:
            location = self.loc(loc, [3])
        self.prev_loc = loc
        # attributes, converted once per distinct fields (entries are decoded once)
        base = info.base
        in_func = base == "return" and bool(self.parents) and self.parents[-1] == "func"
        key = (code, in_func, *attrs, None, *extra)
        got = self.attr_memo.get(key)
        if got is None:
            sink = self.sink
            cls = sink.classes.get((info.shape.cls, in_func))
            if cls is None:
                cls = sink.target(info.shape.cls, in_func)
            got = self.attr_memo[key] = self.attributes(info, cls, attrs, extra, location)
        else:  # (the key compares 1 == 1.0 == True: the reader's wire types, checked anew)
            for a in attrs:
                if a is not None and type(a) is not int:
                    raise NotDirect("attribute entry")
            for i in range(1, len(extra), 2):
                if type(extra[i]) is not int:
                    raise NotDirect("extra attribute entry")
        if got.charge:
            self.attr_elements += got.charge
            if self.attr_elements > self.attr_budget:
                raise NotDirect("attribute budget")
        shape = info.shape
        if shape.counts != (len(values), len(rtypes), len(regions), got.n_props):
            if shape.problem(len(values), len(rtypes), len(regions), got.vhlo_props) is not None:
                raise NotDirect("counts")
        if regions:
            self.parents.append(base)
            region_objs = [self.region(r) for r in regions]
            self.parents.pop()
            self.vkey = None
        else:
            region_objs = []
            self.vkey = (key, *tkeys, None, *result_types) if got.by_signature else None
        op = new_op(got.cls, values, rtypes, got.props, region_objs, got.attrs)
        op.location = _UNKNOWN if location is None else location
        stack.extend(op.results)
        stack_types.extend(result_types)
        return op

    def region(self, rec: Any) -> Any:
        if type(rec) is not list:
            raise NotDirect("region")
        stack, stack_types = self.stack, self.stack_types
        mark = len(stack)
        blocks = []
        sink = self.sink
        type_of = self.type_of
        for brec in rec:
            if type(brec) is not list:
                raise NotDirect("block")
            if len(brec) != self.block_width:
                if len(brec) > self.block_width:
                    raise NotDirect("block record width")
                brec = brec + self.block_pad[len(brec) :]
            arg_types, ops, arg_locs = brec[:3]
            if type(arg_types) is not list or type(ops) is not list or type(arg_locs) is not list:
                raise NotDirect("block fields")
            types = []
            for t in arg_types:
                b = type_of.get(t) if type(t) is int else None
                types.append(b if b is not None else self.type_at(t))
            block = Block(arg_types=types)
            if arg_locs:
                if len(arg_locs) != len(types):
                    raise NotDirect("argument locations")
                for arg, lv in zip(block.args, arg_locs):
                    loc = self.loc(lv, [2])
                    if loc is not None:
                        arg.location = loc
            stack.extend(block.args)
            stack_types.extend(arg_types)
            blocks.append((block, ops))
        region = Region()
        to_verify = self.to_verify
        for block, ops in blocks:
            built = []
            last = len(ops) - 1
            for j, o in enumerate(ops):
                op = self.op(o)
                built.append(op)
                # (the last op of a block is checked in place: is it a terminator where one is due)
                to_verify.append((op, self.vkey if j != last else None))
            block.add_ops(built)
            region.add_block(block)
        del stack[mark:]
        del stack_types[mark:]
        _ = sink
        return region


def read_direct(raw: RawArtifact) -> ModuleOp:
    """``legalize_to_stablehlo(build_module(raw, records=True))``, verified, for an artifact
    written for the current version, built straight from the op records.

    :class:`NotDirect` for an artifact the fast path does not cover, and for any problem with the
    bytes (the slow path then reports it as it does).  Verification raises the verifier's error."""
    r = _DirectReader(raw)
    entries, locs, module = raw.sections[:3]
    try:
        r.entries(entries)
        if r.other:
            raise NotDirect("other dialects")
        r.read_locs(locs)
        m = r.module(module)
    except NotDirect:
        raise
    except Exception as e:  # noqa: BLE001 - a format problem: the slow path words it
        raise NotDirect(str(e)) from None
    verify_read(m, r.to_verify)
    return m  # type: ignore[no-any-return]


def verify_read(module: ModuleOp, built: list[tuple[Any, Any]]) -> None:
    """``verify(module)`` for a module the fast path read (``built``: its ops as they were built,
    each with its signature key or None).

    What the reader guarantees is not checked again: that the module body has no arguments (the
    reader refuses them) and the verdict on an op whose verification goes by its signature
    (``driver.by_signature``: class, operand and result types, properties, attributes; not the last
    op of its block, which is checked in place) when an op of the same signature -- the same op code,
    operand and result type entries and attribute fields, so the same StableHLO op -- verified
    before.  Every other op gets the verifier's own check (``driver.verifies``, with its memos);
    on a failure, ``verify(module)`` reports the first failing op in the verifier's order."""
    seen: set[Any] = set()
    for op, key in built:
        if key is not None:
            if key in seen:
                continue
            if verifies(op):
                seen.add(key)
                continue
        elif verifies(op):
            continue
        verify(module)
        verify_declined(op)
    if not verifies(module):
        verify(module)


# ---------------------------------------------------------------------------- MLIR bytecode
class _MlirStablehloSink(_StablehloSink):
    """The StableHLO ops of the VHLO ops the MLIR bytecode reader decodes (``mlirbc.ops``'
    ``build_vhlo_op`` checks each op and hands it here).  The reader builds an op after its regions,
    with xDSL blocks whose arguments have VHLO types: the op retypes them, and a function turns the
    ``stablehlo.return`` that ends its blocks into ``func.return`` (a ``vhlo.return_v1`` is either,
    by its owner)."""

    def __init__(self) -> None:
        from stablehlo_py.passes.vhlo_legalize_to_stablehlo import _Legalizer
        from stablehlo_py.vhlo import sinks

        self.legalizer = _Legalizer(False, sinks.XDSL)
        self.types: dict[int, Attribute] = {}
        self.alive: list[Attribute] = []  # the VHLO types keyed by identity in ``types``
        self.classes: dict[tuple[type, bool], tuple[type, str]] = {}
        self.fields: dict[tuple[Any, ...], list[Any]] = {}
        self.func_return = self.legalizer.registry.ops["func.return"]

    def builtin_type(self, t: Attribute) -> Attribute:
        self.alive.append(t)
        return super().builtin_type(t)

    def op(
        self, old: Any, cls: type[Any], operands: Any, result_types: Any,
        properties: Any, attributes: Any, regions: list[Any], location: Any = None,
    ) -> Any:
        got = self.classes.get((cls, False))
        if got is None:
            got = self.target(cls, False)
        target = got[0]
        key = (cls, *properties, None, *attributes,
               *map(id, properties.values()), *map(id, attributes.values()))
        entry = self.fields.get(key)
        if entry is None:
            entry = self.fields[key] = self.convert_attributes(
                cls, got, properties, attributes, location
            )
            self.alive.extend((*properties.values(), *attributes.values()))
        types = self.types
        rtypes = []
        for t in result_types:
            b = types.get(id(t))
            rtypes.append(b if b is not None else self.builtin_type(t))
        if regions:
            self.own_regions(regions, cls.SPEC.base == "func")  # type: ignore[attr-defined]
        op = new_op(target, operands, rtypes, entry[0], regions, entry[1])
        op.location = _UNKNOWN if location is None else location
        return op

    def own_regions(self, regions: list[Any], in_func: bool) -> None:
        from stablehlo_py.ir.xdsl_compat.fields import retype_values

        types = self.types
        for region in regions:
            for block in region.blocks:
                args = block.args
                if args:
                    retype_values(
                        args,
                        [types.get(id(a.type)) or self.builtin_type(a.type) for a in args],
                    )
                last = block.last_op
                if in_func and last is not None and last.name == "stablehlo.return":
                    ret = new_op(self.func_return, list(last.operands), [], {}, [], dict(last.attributes))
                    ret.location = last.location
                    block.insert_op_before(ret, last)
                    block.erase_op(last)


def read_direct_mlir(data: bytes, name: str) -> ModuleOp:
    """``legalize_to_stablehlo(read_mlir_artifact(data, records=True))``, verified, for MLIR
    bytecode whose producer names the current version and that holds VHLO only, built straight from
    the bytecode; :class:`NotDirect` for any other (and for any problem with the bytes: the slow
    path reports it).  Verification raises the verifier's error."""
    from stablehlo_py.serialization.mlir_artifact import holds_other_dialects, producer_version
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op
    from stablehlo_py.serialization.mlirbc.reader import read_bytecode
    from stablehlo_py.version import get_current_version

    try:
        version = producer_version(data, name)
        if version is None or version.with_zero_patch() != get_current_version():
            raise NotDirect("version")
        if holds_other_dialects(data):
            raise NotDirect("other dialects")
        sink = _MlirStablehloSink()

        def build(rd: Any, dialect: str, op_name: str, *parts: Any) -> Any:
            return build_vhlo_op(rd, dialect, op_name, *parts, sink=sink)  # type: ignore[misc]

        module = read_bytecode(bytes(data), name, build, records=False).module
    except NotDirect:
        raise
    except Exception as e:  # noqa: BLE001 - a format problem: the slow path words it
        raise NotDirect(str(e)) from None
    if not isinstance(module, ModuleOp):
        raise NotDirect("not a module")
    verify(module)
    return module
