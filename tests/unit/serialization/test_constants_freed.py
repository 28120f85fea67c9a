"""Large constants are freed with their module: no cache of the verifier, the VHLO legality checks or
the artifact readers/writers keeps a constant's bytes alive after the modules that hold it are gone
(a server reading and writing many artifacts must not grow)."""

import gc
import tracemalloc

import numpy as np
from stablehlo_py.interpreter import run
from stablehlo_py.serialization import deserialize_portable_artifact, serialize_portable_artifact

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify

SIZE = 4 << 20  # bytes of the constant


def _program(seed: int) -> str:
    raw = np.random.default_rng(seed).integers(0, 255, SIZE, dtype=np.uint8).tobytes()
    n = SIZE // 4
    return (
        f"func.func @main() -> tensor<f32> {{\n"
        f'  %c = stablehlo.constant dense<"0x{raw.hex().upper()}"> : tensor<{n}xf32>\n'
        f"  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        f"  %r = stablehlo.reduce(%c init: %z) applies stablehlo.maximum across dimensions = [0]"
        f" : (tensor<{n}xf32>, tensor<f32>) -> tensor<f32>\n"
        f"  return %r : tensor<f32>\n}}"
    )


def _everything(seed: int) -> None:
    module = parse(_program(seed))
    verify(module)
    run(module)
    for fmt in ("msgpack", "mlir"):
        back = deserialize_portable_artifact(
            serialize_portable_artifact(module, "current", format=fmt)
        )
        verify(back)
        assert print_ir(back).count("0x") == 1
        run(back)


def test_large_constants_are_freed_with_their_modules() -> None:
    _everything(1)  # warm-up: imports, registries, small caches
    gc.collect()
    tracemalloc.start()
    try:
        for seed in (2, 3, 4):
            _everything(seed)
        gc.collect()
        left, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert left < SIZE // 2, f"{left / 2**20:.1f} MiB still held after three modules were dropped"
