"""Op creation for the builder without xDSL's generic constructor (a speed workaround).

The constructor lives in :mod:`stablehlo_py.ir.xdsl_compat.construct` (the parser uses it too); this
module keeps the builder's names for it.  tests/unit/builder/test_fastop.py checks that an op made by
``new_op`` equals one made by ``create`` in every field, use and parent link.
"""

from __future__ import annotations

from stablehlo_py.ir.xdsl_compat.construct import FIELDS, new_op, operation_fields

__all__ = ["FIELDS", "new_op", "operation_fields"]
