"""XLA (CPU) through jaxlib: ``backend.compile_and_load(bytes, devices, options)`` takes our
portable artifact as it is (the same call on jax 0.10.2 and 0.12)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from stablehlo_py.backends.artifact import artifact
from stablehlo_py.backends.availability import require_xla
from stablehlo_py.backends.static import static_for


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
