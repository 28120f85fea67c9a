"""Write examples/viz/mlp.mlir: a small JAX model lowered to StableHLO text with its locations (JAX's
name stacks), the graph view's example (`python -m stablehlo_py.viz examples/viz/mlp.mlir`).

    python examples/viz/make_mlp.py [OUTPUT]      # needs jax (pip install -e ".[oracle]")

Two dense blocks under `jax.named_scope`s (layers in the graph), a layer norm, a softmax, a
`jax.lax.fori_loop` refining the output (a while op: its cond and body are nested layers) and a
jitted helper (a second function: a call node that opens its graph).  The bundled file was written
by jax 0.12.0.1; another JAX release writes other locations and op order.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def model():  # type: ignore[no-untyped-def]
    import jax
    import jax.numpy as jnp

    @jax.jit
    def gelu(x):  # type: ignore[no-untyped-def]
        return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))

    def dense(x, w, b, name):  # type: ignore[no-untyped-def]
        with jax.named_scope(name):
            return gelu(x @ w + b)

    def layer_norm(x):  # type: ignore[no-untyped-def]
        with jax.named_scope("layer_norm"):
            mean = x.mean(-1, keepdims=True)
            var = ((x - mean) ** 2).mean(-1, keepdims=True)
            return (x - mean) / jnp.sqrt(var + 1e-5)

    def mlp(params, x):  # type: ignore[no-untyped-def]
        with jax.named_scope("block0"):
            h = layer_norm(dense(x, params["w0"], params["b0"], "dense"))
        with jax.named_scope("block1"):
            h = layer_norm(dense(h, params["w1"], params["b1"], "dense"))
        with jax.named_scope("head"):
            logits = h @ params["w2"]

            def refine(i, z):  # type: ignore[no-untyped-def]
                return z - 0.1 * jnp.tanh(z)

            logits = jax.lax.fori_loop(0, 3, refine, logits)
            return jax.nn.softmax(logits, axis=-1)

    return mlp


def main(out: str | None = None) -> None:
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    params = {
        "w0": jax.ShapeDtypeStruct((8, 16), f32), "b0": jax.ShapeDtypeStruct((16,), f32),
        "w1": jax.ShapeDtypeStruct((16, 16), f32), "b1": jax.ShapeDtypeStruct((16,), f32),
        "w2": jax.ShapeDtypeStruct((16, 4), f32),
    }
    x = jax.ShapeDtypeStruct((2, 8), f32)
    lowered = jax.jit(model()).lower(params, x)
    text = lowered.compiler_ir("stablehlo").operation.get_asm(enable_debug_info=True)
    text = text.replace(f"{HERE.parents[1]}/", "")  # source paths relative to the repository
    header = (
        "// examples/viz/make_mlp.py wrote this (jax "
        f"{jax.__version__}): a small MLP with JAX's name stacks in its locations.\n"
    )
    Path(out or HERE / "mlp.mlir").write_text(header + text)


if __name__ == "__main__":
    main(*sys.argv[1:2])
