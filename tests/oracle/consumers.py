"""Running a built module on StableHLO's consumers: XLA (through jaxlib) and IREE (issue 26).

Both consumers get the module serialized by our MLIR bytecode writer
(``serialize_portable_artifact(..., format="mlir")``, a VHLO portable artifact) at
:func:`artifact_target`, the newest version that both read (1.17.0 with jaxlib 0.10.2, 1.20.0
with jaxlib 0.12).

- **XLA**: ``jax.extend.backend.get_backend("cpu").compile_and_load(bytes, devices, options)``
  (``jaxlib.xla_client``; the same call on jax 0.10.2 and 0.12) takes the portable artifact as it
  is.  XLA refuses unbounded dynamic shapes ("Unbounded dynamism is disabled"), so a module whose
  ``main`` has ``?`` dimensions is first made static for the arguments' shapes with our
  ``stablehlo-refine-polymorphic-shapes`` (as JAX has XLA do for a shape-polymorphic export).
- **IREE**: ``iree.compiler.compile_str(bytes, input_type="stablehlo",
  target_backends=["llvm-cpu"])``, then ``iree.runtime`` on the ``local-task`` driver.  IREE reads
  dynamic shapes as they are.  ``--iree-input-demote-f64-to-f32=false``: IREE demotes f64 to f32
  by default (its own choice, not StableHLO's); without the flag an f64 argument is refused
  ("expected f32 but have f64").

**IREE's StableHLO version** (:data:`IREE_STABLEHLO`) is not exposed to Python (``iree.compiler``
has no ``get_current_version``; its passes ``vhlo-to-version`` and friends are not registered in
``iree-opt``).  It was found from the VHLO ops IREE's context registers:
``iree.compiler.ir.Context()`` registers all 145 VHLO forks of ``specs/ops.toml``, among them
``vhlo.collective_broadcast_v2``, which exists since 1.20.0 (``has_dynamic_root``), so IREE
3.13's StableHLO is at least 1.20.0 (``test_builder_consumers.py::test_iree_reads_the_target``
re-checks it).  No VHLO op, type or attribute starts after 1.20.0 (``specs/releases.toml``: 1.21.0
and 1.22.0 change nothing observable), so the artifacts at 1.20.0 and 1.22.0 differ only in the
producer string -- which IREE does not read: artifacts written for 1.0.0, 1.20.0 and 1.22.0
compile, and so do they with the producer string edited to 9.99.0 (checked by hand, 2026-11-29).
IREE's own repository does not settle it: its ``third_party/stablehlo`` submodule points at the
``iree-org/stablehlo`` fork, whose April 2026 pin was upstream's 806a684 (version 1.16.2); the
October 2026 pin of IREE 3.13 is not within reach.

Tolerances per dtype: :func:`assert_close`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType

IREE_STABLEHLO = "1.20.0"
"""A floor of IREE 3.13's StableHLO version, the newest our artifacts need (module docstring)."""

IREE_FLAGS = (
    "--iree-llvmcpu-target-cpu=host",  # without it IREE warns "while creating CPU target"
    "--iree-input-demote-f64-to-f32=false",  # keep f64 as f64 (IREE demotes it by default)
)


# ----------------------------------------------------------------------------- versions
def _version_key(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in str(v).split("."))


def jaxlib_stablehlo() -> str:
    """The StableHLO version of the installed jaxlib (1.17.0 for 0.10.2, 1.22.0 for 0.12)."""
    from jaxlib.mlir.dialects import stablehlo

    return str(stablehlo.get_current_version())


def artifact_target() -> str:
    """The newest StableHLO version that ours, the installed jaxlib and IREE all read."""
    from stablehlo_py.version import get_current_version

    candidates = [str(get_current_version()), IREE_STABLEHLO]
    if importlib.util.find_spec("jaxlib") is not None:
        candidates.append(jaxlib_stablehlo())
    return min(candidates, key=_version_key)


def artifact(module: ModuleOp, target: str | None = None) -> bytes:
    """``module`` as a portable artifact in MLIR bytecode (our writer) at ``target``."""
    from stablehlo_py.serialization import serialize_portable_artifact

    return serialize_portable_artifact(module, target or artifact_target(), format="mlir")


def _vhlo_forks() -> list[dict[str, Any]]:
    import tomllib
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "specs" / "ops.toml"
    return tomllib.loads(spec.read_text())["op"]


def newest_fork_version() -> str:
    """The version at which the newest VHLO fork of ``specs/ops.toml`` starts (1.20.0)."""
    return max((o["min"] for o in _vhlo_forks()), key=_version_key)


def iree_vhlo_forks_missing() -> list[str]:
    """The VHLO forks of ``specs/ops.toml`` IREE's context does not register (none for 3.13)."""
    from iree.compiler import ir

    ctx = ir.Context()
    return [o["mnemonic"] for o in _vhlo_forks() if not ctx.is_registered_operation(o["mnemonic"])]


# ------------------------------------------------------------------------------ helpers
def main_arg_types(module: ModuleOp, entry: str = "main") -> list[Any]:
    from xdsl.dialects.func import FuncOp

    for op in module.body.block.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == entry:
            return list(op.function_type.inputs.data)
    raise AssertionError(f"the module has no function @{entry}")


def _is_dynamic(t: Any) -> bool:
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())


def static_for(module: ModuleOp, args: Sequence[np.ndarray], entry: str = "main") -> ModuleOp:
    """A copy of ``module`` made static for ``args``' shapes (the module itself when ``entry``'s
    arguments are static): ``stablehlo-refine-polymorphic-shapes{types=...}``."""
    from stablehlo_py.passes.stablehlo_refine_polymorphic_shapes import refine_polymorphic_shapes

    from stablehlo_py.builder import tensor

    types = main_arg_types(module, entry)
    if not any(_is_dynamic(t) for t in types):
        return module
    concrete = [
        tensor(a.shape, t.element_type) if isinstance(t, TensorType) else t
        for a, t in zip(args, types)
    ]
    copy = module.clone()
    refine_polymorphic_shapes(copy, concrete)
    return copy


def _module_name(module: ModuleOp) -> str:
    name = module.properties.get("sym_name") or module.attributes.get("sym_name")
    return name.data if name is not None else "module"  # type: ignore[union-attr]


# ------------------------------------------------------------------------ availability
def require_xla() -> Any:
    """jax, or a skip saying which extra brings it."""
    return pytest.importorskip("jax", reason="XLA is reached through jax/jaxlib (the oracle extra)")


def require_iree(runtime: bool = True) -> tuple[Any, Any]:
    """IREE's compiler and (with ``runtime``) runtime modules, or a skip saying which extra brings
    them (the ``oracle`` extra has the compiler alone)."""
    ic = pytest.importorskip(
        "iree.compiler", reason="IREE's compiler is the optional `iree` extra (iree-base-compiler)"
    )
    if not runtime:
        return ic, None
    rt = pytest.importorskip(
        "iree.runtime", reason="IREE's runtime is the optional `iree` extra (iree-base-runtime)"
    )
    return ic, rt


REQUIRE = {"xla": require_xla, "iree": require_iree}
"""Per consumer: skip unless it is installed (call it before any costly preparation)."""


# ---------------------------------------------------------------------------------- XLA
def run_xla(module: ModuleOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``module``'s ``main`` compiled by XLA (CPU) from our bytecode, run on ``args``."""
    jax = require_xla()
    import jax.extend as jex
    from jaxlib import xla_client as xc

    backend = jex.backend.get_backend("cpu")
    devices = backend.local_devices()[:1]
    code = artifact(static_for(module, args))
    exe = backend.compile_and_load(code, xc.DeviceList(tuple(devices)), xc.CompileOptions())
    with jax.enable_x64(True):  # 64-bit arguments stay 64-bit (device_put narrows them otherwise)
        outs = exe.execute([jax.device_put(np.asarray(a), devices[0]) for a in args])
        return [np.asarray(o) for o in outs]


# --------------------------------------------------------------------------------- IREE
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


# --------------------------------------------------------------------------- comparison
def tolerance(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) for results of ``dtype``: exact for integers and booleans."""
    if dtype in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        return 2e-2, 2e-2
    if dtype in (np.dtype(np.float64), np.dtype(np.complex128)):
        return 1e-10, 1e-12
    if np.issubdtype(dtype, np.inexact):
        return 2e-4, 2e-5
    return 0.0, 0.0


def assert_close(got: Sequence[Any], want: Sequence[Any], what: str) -> None:
    """``got`` equals ``want`` result by result: same count, shape and dtype; equal (integers,
    booleans) or close within the dtype's tolerance (floats, complex)."""
    assert len(got) == len(want), f"{what}: {len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), (
            f"{what}: result #{i} is {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        )
        rtol, atol = tolerance(w.dtype)
        if rtol == 0.0:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: result #{i}")
        else:
            wide = np.complex128 if np.iscomplexobj(w) else np.float64
            np.testing.assert_allclose(
                g.astype(wide),
                w.astype(wide),
                rtol=rtol,
                atol=atol,
                err_msg=f"{what}: result #{i}",
            )
