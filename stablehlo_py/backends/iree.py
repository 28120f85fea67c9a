"""IREE: ``iree.compiler.compile_str(bytes, input_type="stablehlo", target_backends=["llvm-cpu"])``,
then ``iree.runtime`` on the ``local-task`` driver.  IREE reads dynamic shapes as they are.
``--iree-input-demote-f64-to-f32=false``: IREE demotes f64 to f32 by default (its own choice, not
StableHLO's); without the flag an f64 argument is refused ("expected f32 but have f64")."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from stablehlo_py.backends.artifact import artifact
from stablehlo_py.backends.availability import require_iree

IREE_FLAGS = (
    "--iree-llvmcpu-target-cpu=host",  # without it IREE warns "while creating CPU target"
    "--iree-input-demote-f64-to-f32=false",  # keep f64 as f64 (IREE demotes it by default)
)


def _module_name(module: ModuleOp) -> str:
    name = module.properties.get("sym_name") or module.attributes.get("sym_name")
    return name.data if name is not None else "module"  # type: ignore[union-attr]


def iree_compile(module: ModuleOp, flags: Sequence[str] = IREE_FLAGS) -> bytes:
    """``module``'s bytecode compiled by ``iree-compile`` for the CPU (llvm-cpu) with ``flags``."""
    ic, _ = require_iree(runtime=False)
    return ic.compile_str(
        artifact(module),
        target_backends=["llvm-cpu"],
        input_type="stablehlo",
        extra_args=list(flags),
    )


def iree_function(
    module: ModuleOp, entry: str = "main", flags: Sequence[str] = IREE_FLAGS
) -> Callable[..., list[np.ndarray]]:
    """``module``'s ``entry`` compiled by IREE (llvm-cpu) from our bytecode and loaded on the
    ``local-task`` driver: a function of numpy arrays returning the results as numpy arrays."""
    _, rt = require_iree()
    assert rt is not None
    vmfb = iree_compile(module, flags)
    ctx = rt.SystemContext(config=rt.Config("local-task"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    fn = getattr(ctx.modules, _module_name(module))[entry]

    def call(*args: np.ndarray) -> list[np.ndarray]:
        out = fn(*[np.ascontiguousarray(a) for a in args])
        items = out if isinstance(out, (tuple, list)) else [out]
        return [np.asarray(o.to_host() if hasattr(o, "to_host") else o) for o in items]

    return call


def run_iree(
    module: ModuleOp,
    args: Sequence[np.ndarray],
    entry: str = "main",
    flags: Sequence[str] = IREE_FLAGS,
) -> list[np.ndarray]:
    """``module``'s ``entry`` compiled by IREE and run on ``args`` (:func:`iree_function`)."""
    return iree_function(module, entry, flags)(*args)
