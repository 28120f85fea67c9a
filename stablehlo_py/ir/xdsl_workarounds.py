"""Where stablehlo-py changes the behaviour of xDSL 0.74 itself (DESIGN.md §10: one place, each change
with its reason and a regression test; no monkeypatching elsewhere).

`install()` runs once, when `stablehlo_py.ir` is imported.  Upgrading xDSL means re-reading this
module (and `construct.py`, which builds ops without xDSL's generic constructor, for speed; its own
regression test is tests/unit/builder/test_fastop.py).

1. ``str(op)`` / ``print(op)``.  xDSL's ``Operation.__str__`` prints with xDSL's own printer, which is
   not MLIR's: generic form only, its own SSA names, and our dialect attributes spelled as
   ``#stablehlo.comparison_directionGT`` (xDSL writes an attribute's name and then its parameters).
   Users print modules with ``print(module)``; MLIR's Python bindings print upstream's text there.
   Now an op of the toolkit's registry (and an unregistered op read with ``allow_unregistered``)
   prints as MLIR prints it: a top-level op (a module) as ``print_ir(op)``; an op inside one as
   MLIR's ``op->print()``, pretty form, values named as in the whole module, no trailing newline.
   Ops of xDSL dialects the toolkit does not register keep xDSL's printer.  ``f"{op}"`` too:
   xDSL's ``Operation.__format__`` wraps the text in ``ClassName(...)`` and tabs.
2. ``str(attr)`` of an attribute or type.  Same reason: xDSL's ``Attribute.__str__`` uses xDSL's
   printer.  Now it is upstream's spelling (``#stablehlo<comparison_direction GT>``,
   ``dense<1.000000e+00> : tensor<2xf32>``), as MLIR's ``str(attr)``; an attribute our spelling
   does not cover (xDSL-only attributes such as ``IntAttr``) keeps xDSL's text.
3. ``xdsl.printer.Printer.print_attribute`` for the attributes that stand for another dialect's
   attribute or type kept as text (``OpaqueAttr`` ``#sdy.sharding<...>``, ``OpaqueType``) or for
   MLIR's typed string (``"a" : tensor<3xf32>``, a class of its own because xDSL's StringAttr is
   final): xDSL's printer writes ``#`` and the class's IRDL name before the parameters, so no
   ``print_parameter`` can produce their MLIR text.  Code that still uses xDSL's printer (third-party
   passes, ``Printer().print_op``) now writes their text as written.  Our other attributes make
   xDSL's printer write valid MLIR through their own ``print_parameter`` (enums.py, attributes.py).

Regression tests: tests/unit/ir/test_str_prints_upstream_text.py (one or more per change).
"""

from __future__ import annotations

from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

_XDSL_OP_STR = Operation.__str__
_XDSL_OP_FORMAT = Operation.__format__
_XDSL_ATTR_STR = Attribute.__str__
_XDSL_PRINT_ATTRIBUTE = Printer.print_attribute
_INSTALLED = [False]


def _ours(op: Operation) -> bool:
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.registry import UnregisteredOp

    return default_registry().ops.get(op.name) is type(op) or isinstance(op, UnregisteredOp)


def _op_str(op: Operation) -> str:
    if not _ours(op):
        return _XDSL_OP_STR(op)
    from stablehlo_py.ir.text.printer import print_module, print_nested_op

    return print_module(op) if op.parent is None else print_nested_op(op)


def _op_format(op: Operation, format_spec: str, /) -> str:
    if not _ours(op):
        return _XDSL_OP_FORMAT(op, format_spec)
    return format(_op_str(op), format_spec)


def _attr_str(attr: Attribute) -> str:
    from stablehlo_py.ir.text.spelling import attr_to_str

    try:
        return attr_to_str(attr)
    except ValueError:  # "cannot print type ...": not an attribute of MLIR's (xDSL's IntAttr, ...)
        return _XDSL_ATTR_STR(attr)


def _print_attribute(printer: Printer, attribute: Attribute) -> None:
    from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType, TypedStringAttr

    if isinstance(attribute, (OpaqueAttr, OpaqueType, TypedStringAttr)):
        from stablehlo_py.ir.text.spelling import attr_to_str

        printer.print_string(attr_to_str(attribute))
        return
    _XDSL_PRINT_ATTRIBUTE(printer, attribute)


def install() -> None:
    """Apply the changes above (once; later calls do nothing)."""
    if _INSTALLED[0]:
        return
    _INSTALLED[0] = True
    Operation.__str__ = _op_str  # type: ignore[method-assign]
    Operation.__format__ = _op_format  # type: ignore[method-assign]
    Attribute.__str__ = _attr_str  # type: ignore[method-assign]
    Printer.print_attribute = _print_attribute  # type: ignore[method-assign]


__all__ = ["install"]
