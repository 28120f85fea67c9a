"""The StableHLO IR: dialects, types, attributes and the text layer.

`parse(text)` reads MLIR text into an xDSL `ModuleOp`; `print_ir(module)` writes upstream's text.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from xdsl.ir import Attribute, Operation

from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.xdsl_compat import printing as _xdsl_printing


def _upstream_op_text(op: Operation) -> str | None:
    """``str(op)``: upstream's text of an op of the toolkit's registry (or an unregistered op read
    with ``allow_unregistered``): a top-level op as ``print_ir``, an op inside one as MLIR's
    ``op->print()``; None for ops of other xDSL dialects."""
    from stablehlo_py.ir.registry import UnregisteredOp

    if default_registry().ops.get(op.name) is not type(op) and not isinstance(op, UnregisteredOp):
        return None
    from stablehlo_py.ir.text.printer import print_module, print_nested_op

    return print_module(op) if op.parent is None else print_nested_op(op)


def _upstream_attr_text(attr: Attribute) -> str:
    """``str(attr)``: upstream's spelling (ValueError for an attribute MLIR does not have)."""
    from stablehlo_py.ir.text.spelling import attr_to_str

    return attr_to_str(attr)


def _xdsl_printer_text(attr: Attribute) -> str | None:
    """What xDSL's printer writes for the attributes kept as their MLIR text (None: the others)."""
    from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType, TypedStringAttr

    if isinstance(attr, (OpaqueAttr, OpaqueType, TypedStringAttr)):
        from stablehlo_py.ir.text.spelling import attr_to_str

        return attr_to_str(attr)
    return None


# str(op), str(attr) print upstream's text (see xdsl_compat/printing.py)
_xdsl_printing.install(_upstream_op_text, _upstream_attr_text, _xdsl_printer_text)


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause Python's cyclic GC while building or walking large IR: xDSL's IR is a web of cycles, and
    repeated full collections while millions of objects are created cost 2-3x the parse itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def parse(
    text: str, filename: str = "-", line_offset: int = 0, allow_unregistered: bool = False
) -> Operation:
    """Parse a whole file (aliases, one module or a list of top-level ops).  `allow_unregistered`
    accepts generic-form ops of unknown dialects (`"foo.bar"(%0) : (...) -> ...`), as MLIR's
    --allow-unregistered-dialect."""
    from stablehlo_py.ir.text.parser import Parser

    with no_gc():
        return Parser(
            text, default_registry(), filename, line_offset, allow_unregistered
        ).parse_top_level()


def print_ir(
    op: Operation, generic: bool = False, debuginfo: bool = False, location_aliases: bool = False
) -> str:
    """Print an op (usually a module) as upstream's stablehlo-opt would, with a trailing newline.
    With ``debuginfo`` locations are printed inline (`--mlir-print-local-scope`), or as `#loc`
    aliases defined after the module with ``location_aliases`` (stablehlo-opt's default)."""
    from stablehlo_py.ir.text.printer import print_module

    default_registry()
    with no_gc():
        return print_module(
            op, generic=generic, debuginfo=debuginfo, location_aliases=location_aliases
        )


def print_ir_to(
    op: Operation,
    stream: TextIO,
    generic: bool = False,
    debuginfo: bool = False,
    location_aliases: bool = False,
) -> None:
    """`print_ir(op)` written to a text stream piece by piece (for large modules: the whole text
    is never held in memory, only the pieces it is written from)."""
    from stablehlo_py.ir.text.printer import write_module

    default_registry()
    with no_gc():
        write_module(
            op, stream, generic=generic, debuginfo=debuginfo, location_aliases=location_aliases
        )


__all__ = ["parse", "print_ir", "print_ir_to"]
