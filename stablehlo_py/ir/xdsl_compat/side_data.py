"""Data of ours carried by an object xDSL 0.74 made: an attribute xDSL does not define, set on the
object itself.

It works because the xDSL classes concerned are plain (non-frozen, no ``__slots__``) classes, so an
instance takes any attribute.  Where that is the simplest way to pass something along, it goes
through `attach`/`attached` and nowhere else, so that an xDSL upgrade that freezes or slots these
classes breaks in one place:

- ir/ops/base.py: a property's in-format syntax rides on the field definition ``prop_def`` returns
  (xDSL's ``_PropertyFieldDef``) from the class body to ``op_def``, which reads it back when the
  class is defined (``irdl_op_definition`` passes nothing of ours on).

Regression test: tests/unit/ir/test_xdsl_compat.py (an xDSL field definition keeps what is
attached to it, xDSL defines none of the names, and the op classes get their property syntaxes).
"""

from __future__ import annotations

NAMES = frozenset({"_syntax"})
"""The attribute names used (none of them xDSL's)."""


def attach(obj: object, name: str, value: object) -> None:
    """Give the xDSL object `obj` the attribute `name` (one of NAMES) with `value`."""
    setattr(obj, name, value)


def attached(obj: object, name: str) -> object:
    """What `attach` gave `obj` under `name`, or None."""
    return getattr(obj, name, None)
