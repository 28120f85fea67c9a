"""A module whose entry has dynamic dimensions, made static for concrete arguments (XLA refuses
unbounded dynamism, as JAX has XLA refine a shape-polymorphic export first)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from stablehlo_py.errors import StableHLOError


def entry_arg_types(module: ModuleOp, entry: str = "main") -> list[Any]:
    """The argument types of ``module``'s function ``entry``."""
    for op in module.body.block.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == entry:
            return list(op.function_type.inputs.data)
    raise StableHLOError(f"the module has no function @{entry}")


def _is_dynamic(t: Any) -> bool:
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())


def static_for(module: ModuleOp, args: Sequence[np.ndarray], entry: str = "main") -> ModuleOp:
    """A copy of ``module`` made static for ``args``' shapes (the module itself when ``entry``'s
    arguments are static): ``stablehlo-refine-polymorphic-shapes`` with the arguments' types."""
    from stablehlo_py.passes.stablehlo_refine_polymorphic_shapes import refine_polymorphic_shapes

    types = entry_arg_types(module, entry)
    if not any(_is_dynamic(t) for t in types):
        return module
    concrete = [
        TensorType(t.element_type, np.shape(a)) if isinstance(t, TensorType) else t
        for a, t in zip(args, types)
    ]
    copy = module.clone()
    refine_polymorphic_shapes(copy, concrete)
    return copy
