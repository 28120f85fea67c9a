"""Parse and print speed, side by side with jaxlib's MLIR (C++) in one run.

    python bench/parse_print.py [--repeat N] [--smoke]

Inputs: the largest conformance testdata file (when ../shared exists), a generated 10k-op module, and
a ~2 MB program lowered by JAX (when the `oracle` extra is installed).  Prints µs/op and MB/s for our
parse and print and jaxlib's, and the ratio ours/jaxlib.  Targets (issue 2): ≤50 µs/op parse and ≤30
µs/op print on the 10k-op module.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# upstream's tests, next to the repository or where $STABLEHLO_PY_SHARED says (as tests/conftest.py)
SHARED = Path(os.environ.get("STABLEHLO_PY_SHARED") or REPO.parent / "shared")
TESTDATA = SHARED / "conformance" / "testdata"


def generated_module(n_ops: int) -> str:
    """A straight-line module of `n_ops` ops mixing constants, elementwise ops and broadcasts."""
    lines = ["func.func @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32xf32>) -> tensor<16x32xf32> {"]
    prev = "%arg0"
    i = 0
    kinds = ["add", "multiply", "abs", "const", "bcast", "maximum", "negate", "subtract"]
    while i < n_ops - 1:
        k = kinds[i % len(kinds)]
        name = f"%v{i}"
        if k == "const":
            lines.append(f"  {name} = stablehlo.constant dense<{(i % 7) * 0.5:.6e}> : tensor<16x32xf32>")
            prev2 = name
            i += 1
            name = f"%v{i}"
            lines.append(f"  {name} = stablehlo.add {prev}, {prev2} : tensor<16x32xf32>")
        elif k == "bcast":
            lines.append(
                f"  {name} = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<16x32xf32>"
            )
            i += 1
            n2 = f"%v{i}"
            lines.append(f"  {n2} = stablehlo.multiply {prev}, {name} : tensor<16x32xf32>")
            name = n2
        elif k in ("abs", "negate"):
            lines.append(f"  {name} = stablehlo.{k} {prev} : tensor<16x32xf32>")
        else:
            lines.append(f"  {name} = stablehlo.{k} {prev}, %arg0 : tensor<16x32xf32>")
        prev = name
        i += 1
    lines.append(f"  return {prev} : tensor<16x32xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def jax_program(min_chars: int = 2_000_000) -> str | None:
    """~2 MB (``min_chars``) of StableHLO text lowered by JAX (a stack of MLP/attention-like blocks)."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def block(x, w):
        h = jnp.tanh(x @ w)
        a = jax.nn.softmax(h @ h.T / 8.0, axis=-1)
        return x + a @ h

    def f(x, ws):
        for w in ws:
            x = block(x, w)
            x = (x - x.mean(axis=-1, keepdims=True)) / (x.std(axis=-1, keepdims=True) + 1e-5)
        return x

    x = jnp.zeros((8, 64), jnp.float32)
    layers = 1
    while True:
        ws = [jnp.zeros((64, 64), jnp.float32) for _ in range(layers)]
        text = jax.jit(f).lower(x, ws).as_text()
        if len(text) >= min_chars or layers > 4096:
            return text
        layers *= 2


def count_ops(module) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for _ in module.walk()) - 1


CLOCK = time.perf_counter  # --cpu: time.process_time (this process's CPU time; robust under load)


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    t = float("inf")
    for _ in range(repeat):
        s = CLOCK()
        fn()
        t = min(t, CLOCK() - s)
    return t


def timing_options(ap: argparse.ArgumentParser, repeat: int) -> None:
    """The options of the timing benches (this one and bench/versioning.py): --repeat, --cpu, --smoke."""
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time with the process's CPU time instead of the wall clock (for a loaded machine)",
    )
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")


def jaxlib_times(text: str, repeat: int) -> tuple[float, float] | None:
    try:
        from jax._src.interpreters import mlir
        from jaxlib.mlir import ir
    except ImportError:
        return None
    ctx = mlir.make_ir_context()
    with ctx:
        m = ir.Module.parse(text)
        tp = best(lambda: ir.Module.parse(text), repeat)
        tw = best(lambda: str(m), repeat)
    return tp, tw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    timing_options(ap, repeat=3)
    args = ap.parse_args()
    n_ops, min_chars = (200, 1) if args.smoke else (10_000, 2_000_000)
    if args.smoke:
        args.repeat = 1
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
        print("(times are CPU times of this process)")
    from stablehlo_py.ir import parse, print_ir

    inputs: list[tuple[str, str]] = []
    if TESTDATA.is_dir():
        files = TESTDATA.glob("*.mlir")
        if args.smoke:  # the smallest instead
            file = min(files, key=lambda p: p.stat().st_size)
        else:
            file = max(files, key=lambda p: p.stat().st_size)
        label = "smallest" if args.smoke else "largest"
        inputs.append((f"{label} testdata ({file.name})", file.read_text()))
    inputs.append((f"generated {n_ops}-op module", generated_module(n_ops)))
    jp = jax_program(min_chars)
    if jp is not None:
        inputs.append(("JAX program", jp))
    else:
        print("(jax not installed: the JAX program and jaxlib columns are skipped; pip install -e '.[oracle]')")

    hdr = f"{'input':44} {'ops':>7} {'MB':>6} | {'parse µs/op':>11} {'MB/s':>6} {'print µs/op':>11} | {'jaxlib parse':>12} {'jaxlib print':>12} | {'parse x':>8} {'print x':>8}"
    print(hdr)
    print("-" * len(hdr))
    for label, text in inputs:
        module = parse(text)
        n = count_ops(module)
        mb = len(text.encode()) / 1e6
        tp = best(lambda: parse(text), args.repeat)
        tw = best(lambda: print_ir(module), args.repeat)
        jl = jaxlib_times(text, args.repeat)
        row = f"{label[:44]:44} {n:7d} {mb:6.2f} | {tp / n * 1e6:11.1f} {mb / tp:6.1f} {tw / n * 1e6:11.1f} |"
        if jl:
            row += f" {jl[0] / n * 1e6:9.1f} µs {jl[1] / n * 1e6:9.1f} µs | {tp / jl[0]:7.1f}x {tw / jl[1]:7.1f}x"
        else:
            row += f" {'-':>12} {'-':>12} | {'-':>8} {'-':>8}"
        print(row)


if __name__ == "__main__":
    main()
