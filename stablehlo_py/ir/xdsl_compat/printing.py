"""The patches of xDSL 0.74's printing methods: ``str()`` and ``format()`` of ops and attributes, and
xDSL's ``Printer.print_attribute`` write MLIR's text (DESIGN.md §10: each change with its reason and
a regression test; no monkeypatching outside this package).

`install(...)` runs once, when `stablehlo_py.ir` is imported; it is given the toolkit's printing
functions (this package imports xDSL only), and each patch falls back to xDSL's own method where
those functions do not apply.

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

from collections.abc import Callable

from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

_XDSL_OP_STR = Operation.__str__
_XDSL_OP_FORMAT = Operation.__format__
_XDSL_ATTR_STR = Attribute.__str__
_XDSL_PRINT_ATTRIBUTE = Printer.print_attribute
_INSTALLED = [False]


def install(
    op_text: Callable[[Operation], str | None],
    attr_text: Callable[[Attribute], str],
    printer_text: Callable[[Attribute], str | None],
) -> None:
    """Apply the changes above (once; later calls do nothing).

    - ``op_text(op)``: upstream's text of ``op`` (1.), or None for an op the toolkit does not print
      (it keeps xDSL's ``__str__``/``__format__``);
    - ``attr_text(attr)``: upstream's spelling of ``attr`` (2.); ValueError for one MLIR does not
      have (it keeps xDSL's ``__str__``);
    - ``printer_text(attr)``: the text xDSL's printer writes for ``attr`` as it is (3.), or None for
      every other attribute (xDSL's ``print_attribute``)."""
    if _INSTALLED[0]:
        return
    _INSTALLED[0] = True

    def op_str(op: Operation) -> str:
        text = op_text(op)
        return _XDSL_OP_STR(op) if text is None else text

    def op_format(op: Operation, format_spec: str, /) -> str:
        text = op_text(op)
        if text is None:
            return _XDSL_OP_FORMAT(op, format_spec)
        return format(text, format_spec)

    def attr_str(attr: Attribute) -> str:
        try:
            return attr_text(attr)
        except ValueError:  # "cannot print type ...": not an attribute of MLIR's (xDSL's IntAttr, ...)
            return _XDSL_ATTR_STR(attr)

    def print_attribute(printer: Printer, attribute: Attribute) -> None:
        text = printer_text(attribute)
        if text is None:
            _XDSL_PRINT_ATTRIBUTE(printer, attribute)
        else:
            printer.print_string(text)

    Operation.__str__ = op_str  # type: ignore[method-assign]
    Operation.__format__ = op_format  # type: ignore[method-assign]
    Attribute.__str__ = attr_str  # type: ignore[method-assign]
    Printer.print_attribute = print_attribute  # type: ignore[method-assign]


__all__ = ["install"]
