"""Moved to :mod:`stablehlo_py.ir.xdsl_compat.opdef_split` (issue 24); this path stays for its importers."""

from stablehlo_py.ir.xdsl_compat.opdef_split import mlir_operand_split  # noqa: F401
