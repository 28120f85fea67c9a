"""Assemble the registry of every dialect the toolkit reads and writes."""

from __future__ import annotations

import importlib

from stablehlo_py.ir.registry import Registry

# Modules that define `OPS` (a tuple of op classes) and/or `register(registry)`.
OP_MODULES = (
    "stablehlo_py.ir.ops.func",
    "stablehlo_py.ir.ops.func_indirect",
    "stablehlo_py.ir.ops.cf",
    "stablehlo_py.ir.ops.arith",
    "stablehlo_py.ir.ops.einsum",
    "stablehlo_py.ir.ops.tensor",
    "stablehlo_py.ir.ops.memref",
    "stablehlo_py.ir.ops.bufferization",
    "stablehlo_py.ir.ops.shape_computation",
    "stablehlo_py.ir.ops.shape_dialect",
    "stablehlo_py.ir.ops.elementwise",
    "stablehlo_py.ir.ops.misc",
    "stablehlo_py.ir.ops.data_movement",
    "stablehlo_py.ir.ops.chlo",
    "stablehlo_py.ir.ops.check",
    "stablehlo_py.ir.ops.control_flow",
    "stablehlo_py.ir.ops.reduction",
    "stablehlo_py.ir.ops.collectives",
    "stablehlo_py.ir.ops.interpreter_ops",
    "stablehlo_py.ir.ops.linalg",
    "stablehlo_py.ir.ops.quantization",
    "stablehlo_py.ir.ops.llvm",
    "stablehlo_py.ir.ops.sdy",
    "stablehlo_py.vhlo",  # VHLO (imported here, by name, only when the registry is built)
)
ATTR_MODULES = ("stablehlo_py.ir.enums", "stablehlo_py.ir.types", "stablehlo_py.ir.op_attrs")


def build_registry() -> Registry:
    import stablehlo_py.ir.directives  # noqa: F401  (registers custom<...> directives)

    reg = Registry()
    for name in ATTR_MODULES + OP_MODULES:
        mod = importlib.import_module(name)
        ops = getattr(mod, "OPS", None)
        if ops:
            reg.add_ops(*ops)
        register = getattr(mod, "register", None)
        if register is not None:
            register(reg)
    return reg


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """All dialects of the toolkit (stablehlo, chlo, check, func, builtin), built once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = build_registry()
    return _DEFAULT
