"""Moved to :mod:`stablehlo_py.ir.xdsl_compat.construct` (issue 24); this path stays for its importers."""

from stablehlo_py.ir.xdsl_compat.construct import (  # noqa: F401
    FIELDS,
    append_ops,
    inherent_as_properties,
    new_op,
    operation_fields,
)
