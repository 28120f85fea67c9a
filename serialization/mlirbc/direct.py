"""The MLIR bytecode writer's fast path: StableHLO ops straight to upstream's VHLO bytecode.

``serialize_portable_artifact(..., format="mlir")`` is ``stablehlo-legalize-to-vhlo`` ->
``vhlo-to-version{target}`` -> ``write_vhlo`` (DESIGN.md §2).  At the current target the fork step
changes nothing, and the legalization maps each op to one VHLO op with the same operands, results,
regions, block arguments and location; only the op's name, its attributes and the types change,
and those are functions of the op's class, its attributes and its types alone.  So
:class:`DirectVhloEncoder` describes the StableHLO ops *as* the VHLO ops the legalization would
make, and ``write_bytecode`` numbers and writes the StableHLO module itself:

* the op name: the op's current VHLO fork (``_fork_of``), once per op name;
* the properties record and the attribute dictionary: the legalization's own attribute conversion
  (``_split_attributes``), laid out as ``VhloOpEncoder.describe`` lays out a VHLO op's, once per
  distinct set of attribute objects;
* types: ``convert.to_vhlo_type`` once per type object, then the VHLO entry;
* locations, the module op: as the slow path (the legalization carries them unchanged);
* use-list orders: none (the VHLO records the slow path writes carry no order from the StableHLO
  values, and at the current target no op is replaced).

Anything not covered (an op that is not StableHLO or func, a nested module, successors, a type or
attribute without a VHLO counterpart, any problem the encoder would report, ``use_lists_as``)
raises ``NotDirect`` and the caller takes the slow path, which gives the diagnostics.
``tests/unit/serialization/test_direct_paths.py`` checks the bytes are the slow path's.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.serialization.direct_write import NotDirect
from stablehlo_py.serialization.mlirbc.builtin import FILE_LINE_COL, string_entry
from stablehlo_py.serialization.mlirbc.ops import OpInfo, VhloOpEncoder
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.xdsl_compat.side_data import SRC
from stablehlo_py.ir.xdsl_compat.swap import successors_of
from stablehlo_py.version import Version, get_current_version

__all__ = ["DirectVhloEncoder", "write_direct_mlir"]

_FILE_LINE_COL = ("v", FILE_LINE_COL)


class DirectVhloEncoder(VhloOpEncoder):
    """``VhloOpEncoder`` over a StableHLO module: each op described as its VHLO legalization."""

    keeps_use_lists = False

    def __init__(self, version: int, strip_debuginfo: bool = False):
        super().__init__(version, strip_debuginfo)
        from stablehlo_py.passes.stablehlo_legalize_to_vhlo import _Legalizer
        from stablehlo_py.vhlo import sinks

        self.legalizer = _Legalizer(False, sinks.RECORDS)
        self.forks: dict[str, tuple[Any, Any]] = {}
        self.infos: dict[tuple[Any, ...], OpInfo] = {}
        self.alive: list[Any] = []  # what the identity keys of ``infos`` refer to
        self.text_locs: dict[str, Any] = {}  # `loc(...)` text -> its entry
        self.sources: dict[int, tuple[Any, Any]] = {}  # id(parsed buffer) -> file entry, line_col

    def type_entry(self, t: Attribute, op: Operation | None) -> Any:
        got = self._type_ids.get(id(t))
        if got is not None and got[0] is t:
            return got[1]
        from stablehlo_py.vhlo.convert import to_vhlo_type

        v = to_vhlo_type(t)
        if v is None:
            raise NotDirect("a type without a VHLO counterpart")
        e = super().type_entry(v, op)
        self._type_ids[id(t)] = (t, e)
        return e

    def op_location(self, op: Any) -> Any:
        """``OpEncoder.op_location``, with a `loc(...)` text's entry looked up by the text, and
        the file name's entry and line table of a parsed buffer looked up once per buffer."""
        if self.strip:
            return self._unknown
        loc = getattr(op, "location", None)
        if type(loc) is TextLoc:
            e = self.text_locs.get(loc.data)
            if e is None:
                e = self.text_locs[loc.data] = super().op_location(op)
            return e
        src = getattr(op, SRC, None)
        if src is None:
            return super().op_location(op)
        source, pos = src
        got = self.sources.get(id(source))
        if got is None:
            got = self.sources[id(source)] = (
                string_entry(self.interner, source.filename),
                source.line_col,
            )
            self.alive.append(source)
        line, col = got[1](pos)
        return self.interner.get(
            "builtin", False, (_FILE_LINE_COL, ("A", got[0]), ("v", line), ("v", col))
        )

    arg_location = op_location

    def describe(self, op: Operation) -> OpInfo:
        name = op.name
        if name == "builtin.module":
            if op.parent is not None:
                raise NotDirect("a nested module")
            return self.module_info(op)  # type: ignore[arg-type]
        props = op.properties
        attributes = op.attributes
        if attributes:
            key: tuple[Any, ...] = (
                name, *props, None, *attributes, *map(id, props.values()),
                *map(id, attributes.values()),
            )
        else:  # (the common case: properties only)
            key = (name, *props, *map(id, props.values()))
        info = self.infos.get(key)
        if info is None:
            info = self.infos[key] = self._describe(op)
            self.alive.append(op)  # (its attributes: the key holds their identities)
        if successors_of(op):
            raise NotDirect("successors")
        return info

    def _describe(self, op: Operation) -> OpInfo:
        """``VhloOpEncoder.describe`` of the VHLO op the legalization makes of ``op``."""
        name = op.name
        fork = self.forks.get(name)
        if fork is None:
            from stablehlo_py.passes.stablehlo_legalize_to_vhlo import _fork_of

            try:
                fork = self.forks[name] = _fork_of(name)
            except KeyError:
                raise NotDirect(name) from None
        spec, cls = fork
        vname = f"vhlo.{spec.name}"
        inherent = self._inherent(vname)
        if inherent is None:
            raise NotDirect(vname)
        props_src, attrs_src = self.legalizer._split_attributes(op, spec, cls)
        if any(k not in props_src and k not in attrs_src for k in inherent):
            raise NotDirect("a missing attribute")  # (the slow path's problem)
        values = {k: props_src[k] if k in props_src else attrs_src[k] for k in inherent}
        discardable = {k: v for k, v in attrs_src.items() if k not in values}
        discardable.update((k, v) for k, v in props_src.items() if k not in values)
        short = spec.name
        if self.version >= 5:
            record = tuple(("A", self.value_entry(values[k], op, k)) for k in inherent)
            return OpInfo(
                vname, "vhlo", short, True, self.dictionary(discardable, op), record or None
            )
        merged = dict(discardable)
        merged.update(values)
        return OpInfo(vname, "vhlo", short, True, self.dictionary(merged, op), None)


def write_direct_mlir(
    module: ModuleOp, target: Version, strip_debuginfo: bool = False
) -> bytes:
    """``write_vhlo(vhlo_records(module, target), target)`` for the current target, written
    straight from the StableHLO ops; ``NotDirect`` for a module or target the fast path does not
    cover."""
    from stablehlo_py.serialization.mlirbc import bytecode_version
    from stablehlo_py.serialization.mlirbc.writer import write_bytecode

    if target != get_current_version() or not isinstance(module, ModuleOp):
        raise NotDirect("target")
    enc = DirectVhloEncoder(bytecode_version(target), strip_debuginfo)
    try:
        return write_bytecode(module, enc, f"StableHLO_v{target}")
    except NotDirect:
        raise
    except Exception as e:  # noqa: BLE001 - the slow path reports it as it does
        raise NotDirect(str(e)) from None
