"""Write examples/mlp.jax_exported: a small JAX model exported with `jax.export`, for the README.

    python examples/make_jax_export.py [OUTPUT]      # needs jax (pip install -e ".[oracle]")

`predict(state, x)` is a two-layer MLP whose `state` also carries a training-step counter that
inference does not use, so JAX drops it from the module (`module_kept_var_idx`): the export takes 6
flattened arguments (the state's leaves in key order b1, b2, steps, w1, w2, then x) while its @main
takes 5.  `stablehlo_py.api.run_exported` runs it with the 6 arguments, as `Exported.call` does;
`stablehlo_py.interpreter.run` on the bare module takes @main's 5.

The weights are small integers, so every result is exact in float32 on any machine.  The bundled file
was written by jax 0.12.0.1 (Exported serialization version 12, StableHLO artifact 1.18.0); another
JAX release writes other bytes (its own versions), and the README's outputs stay the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def state() -> dict[str, np.ndarray]:
    """The model's state: weights, biases and a step counter inference does not read."""
    return {
        "w1": np.array([[1, -1, 2], [0, 1, -2]], np.float32),
        "b1": np.array([0, 1, -1], np.float32),
        "w2": np.array([[1, 0], [2, 1], [-1, 3]], np.float32),
        "b2": np.array([10, 20], np.float32),
        "steps": np.array(1000, np.int32),
    }


def inputs() -> np.ndarray:
    return np.array([[1, 2], [3, -1]], np.float32)


def main() -> None:
    import re

    import jax
    import jax.numpy as jnp

    # Locations name this file relative to the repository (the same bytes from any checkout).
    jax.config.update("jax_hlo_source_file_canonicalization_regex", "^" + re.escape(f"{HERE.parent}/"))

    def predict(state, x):  # type: ignore[no-untyped-def]
        hidden = jnp.maximum(x @ state["w1"] + state["b1"], 0.0)
        return hidden @ state["w2"] + state["b2"]

    exported = jax.export.export(jax.jit(predict), platforms=["cpu"])(state(), inputs())
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "mlp.jax_exported"
    out.write_bytes(exported.serialize())
    print(f"wrote {out} (jax {jax.__version__}): {exported.fun_name}, "
          f"{len(exported.in_avals)} arguments, @main keeps {len(exported.module_kept_var_idx)}")
    print("predict =", exported.call(state(), inputs()).tolist())


if __name__ == "__main__":
    main()
