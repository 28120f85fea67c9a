"""The registry of the dialects of ``stablehlo_py.ir`` (:func:`build_registry`), and the default
registry the text layer uses (:func:`default_registry`).

The default registry also reads and writes VHLO, which ir must not import (layers import one way:
ir <- vhlo).  So it is assembled above vhlo, by ``stablehlo_py.dialects.build_registry``, which
``stablehlo_py/__init__.py`` (always run before any ir module) installs as the builder with
``stablehlo_py.registry_hook.set_registry_builder``; :func:`default_registry` builds with the
installed builder, or with :func:`build_registry` when none is installed.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from stablehlo_py import registry_hook
from stablehlo_py.ir.registry import Registry

# Modules that define `OPS` (a tuple of op classes) and/or `register(registry)`.
OP_MODULES = (
    "stablehlo_py.ir.ops.func",
    "stablehlo_py.ir.ops.builtin_cast",
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
)
ATTR_MODULES = ("stablehlo_py.ir.enums", "stablehlo_py.ir.types", "stablehlo_py.ir.op_attrs")


def add_module(reg: Registry, mod: ModuleType) -> None:
    """Register a dialect module: its `OPS` (a tuple of op classes), its `register(registry)`."""
    ops = getattr(mod, "OPS", None)
    if ops:
        reg.add_ops(*ops)
    register = getattr(mod, "register", None)
    if register is not None:
        register(reg)


def build_registry() -> Registry:
    """The dialects of ``stablehlo_py.ir`` (every module of ATTR_MODULES and OP_MODULES)."""
    import stablehlo_py.ir.directives  # noqa: F401  (registers custom<...> directives)

    reg = Registry()
    for name in ATTR_MODULES + OP_MODULES:
        add_module(reg, importlib.import_module(name))
    return reg


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """All dialects of the toolkit (stablehlo, chlo, check, func, builtin, vhlo), built once by the
    builder ``stablehlo_py/__init__.py`` installed (see the module's docstring)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = (registry_hook.registry_builder() or build_registry)()
    return _DEFAULT
