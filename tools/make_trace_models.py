"""Write the planted-bug models of issue 27's trace test (``tests/data/trace/``).

One JAX model, a stack of blocks (layer norm, a dense layer, softmax, a slice, a compare+select,
a max-reduction, a residual), each under ``jax.named_scope``, lowered with debug info.  The same
Python function with a ``bug=`` switch writes five variants, so their name stacks are the
original's, each with one planted bug in block 2:

- ``constant``: a scale of 0.5 becomes 0.625;
- ``swap``: ``a - b`` becomes ``b - a``;
- ``slice``: ``h[:, 1:17]`` becomes ``h[:, 2:18]`` (same shape);
- ``compare``: ``q > 0`` becomes ``q >= 0`` (``q`` is rounded, so it has zeros);
- ``init``: a max-reduction's init ``-inf`` becomes ``0`` (its inputs are all negative).

Each file is ``<name>.mlir.gz`` (text with locations).  ``planted.json`` maps each variant to the
op key (``stablehlo_py.ir.text.name_stack.op_keys``) of the first op that differs from the
original *as written* (op name, attributes, operands' keys), found by comparing the two programs'
text op by op -- an answer the trace comparison (which compares values) must reach on its own.
``inputs.npz`` holds the model's inputs.

Run with jax installed (the ``oracle`` extra): ``python tools/make_trace_models.py [--check]``;
``--check`` compares freshly lowered programs with the committed ones by op keys instead of
writing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "trace"
BUGS = ("constant", "swap", "slice", "compare", "init")
BLOCKS = 6
BUGGY_BLOCK = 2
SHAPE = (8, 32)


def model(bug: str | None):
    import jax
    import jax.numpy as jnp
    from jax import lax

    def layer_norm(h, g, b):
        mu = jnp.mean(h, axis=-1, keepdims=True)
        var = jnp.mean((h - mu) ** 2, axis=-1, keepdims=True)
        return (h - mu) * lax.rsqrt(var + 1e-5) * g + b

    def block(i, h, w, g, b):
        planted = i == BUGGY_BLOCK
        with jax.named_scope("norm"):
            n = layer_norm(h, g, b)
        with jax.named_scope("dense"):
            d = jnp.tanh(n @ w)
            scale = 0.625 if planted and bug == "constant" else 0.5
            d = d * scale
        with jax.named_scope("softmax"):
            e = jnp.exp(d - jnp.max(d, axis=-1, keepdims=True))
            s = e / jnp.sum(e, axis=-1, keepdims=True)
        with jax.named_scope("mix"):
            a, c = s * 3.0, d
            m = c - a if planted and bug == "swap" else a - c
            lo = 2 if planted and bug == "slice" else 1
            part = lax.slice(m, (0, lo), (SHAPE[0], lo + 16))
            m = m + jnp.concatenate([part, part], axis=-1)
        with jax.named_scope("gate"):
            q = jnp.round(m * 2.0)
            keep = q >= 0 if planted and bug == "compare" else q > 0
            m = jnp.where(keep, m, m * 0.1)
        with jax.named_scope("peak"):
            init = 0.0 if planted and bug == "init" else -jnp.inf
            neg = -(m * m) - 1.0
            peak = lax.reduce(neg, np.float32(init), lax.max, (1,))
            m = m + peak[:, None] * 0.01
        return h + m

    def f(x, ws, gs, bs):
        h = x
        for i in range(BLOCKS):
            with jax.named_scope(f"block{i}"):
                h = block(i, h, ws[i], gs[i], bs[i])
        return h

    return jax.jit(f)


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(27)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    ws = rng.standard_normal((BLOCKS, SHAPE[1], SHAPE[1]), dtype=np.float32) / np.sqrt(SHAPE[1])
    gs = 1.0 + 0.1 * rng.standard_normal((BLOCKS, SHAPE[1]), dtype=np.float32)
    bs = 0.1 * rng.standard_normal((BLOCKS, SHAPE[1]), dtype=np.float32)
    return x, ws.astype(np.float32), gs.astype(np.float32), bs.astype(np.float32)


def lower(bug: str | None) -> str:
    return model(bug).lower(*inputs()).as_text(debug_info=True)


def _signature_by_key(text: str) -> tuple[list[str], dict[str, str]]:
    """Op keys in walk order, and per key the op as written: name, attributes and the keys of the
    ops (or argument numbers) its operands come from."""
    from xdsl.ir import BlockArgument

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.text.name_stack import op_keys

    module = parse(text)
    keys = op_keys(module)
    order, sig = [], {}
    for op, key in keys.items():
        operands = [
            f"arg{v.index}" if isinstance(v, BlockArgument) else keys.get(v.owner, "?")
            for v in op.operands
        ]
        props = {k: str(v) for k, v in sorted({**op.properties, **op.attributes}.items())}
        order.append(key)
        sig[key] = f"{op.name} {operands} {props}"
    return order, sig


def first_difference(original: str, variant: str) -> str:
    order, want = _signature_by_key(original)
    _, got = _signature_by_key(variant)
    for key in order:
        if got.get(key) != want[key]:
            return key
    raise SystemExit("the variant does not differ from the original")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files")
    opts = ap.parse_args()
    texts = {"model": lower(None)} | {f"model_{b}": lower(b) for b in BUGS}
    planted = {f"model_{b}": first_difference(texts["model"], texts[f"model_{b}"]) for b in BUGS}
    if opts.check:
        bad = []
        for name, text in texts.items():
            with gzip.open(OUT / f"{name}.mlir.gz", "rt") as fh:
                if _signature_by_key(fh.read())[1] != _signature_by_key(text)[1]:
                    bad.append(name)
        if json.loads((OUT / "planted.json").read_text()) != planted:
            bad.append("planted.json")
        print("stale: " + ", ".join(bad) if bad else "current")
        return 1 if bad else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        with gzip.GzipFile(OUT / f"{name}.mlir.gz", "wb", mtime=0) as fh:
            fh.write(text.encode())
    (OUT / "planted.json").write_text(json.dumps(planted, indent=1) + "\n")
    x, ws, gs, bs = inputs()
    np.savez(OUT / "inputs.npz", x=x, ws=ws, gs=gs, bs=bs)
    ops = len(_signature_by_key(texts["model"])[0])
    print(f"wrote {len(texts)} programs of {ops} ops, planted: {json.dumps(planted)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
