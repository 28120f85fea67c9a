"""Interpreter speed, side by side in one run: ours vs upstream's reference interpreter
(`jaxlib.mlir.dialects.stablehlo.eval_module`) vs XLA CPU (`jax.jit`).  Needs the `oracle` extra.

    python bench/interpreter.py [--suite] [--suite-limit N] [--repeat N] [--smoke]

(b) models: an MLP 64x256x256x64 f32, a small CNN (conv, relu, max-pool via reduce_window), a
transformer block (attention, softmax, layer norm), a 100-step while-loop scan, an LSTM-style
50-step scan (batch 8, input 32, hidden 32), a transformer block at d=768 with 128 tokens and a
residual conv block at 56x56x64 (two 3x3 convolutions).  Upstream's interpreter runs each once in a
worker process with a time limit (`--upstream-limit`, default 60 s; the large models exceed it).
(c) a straight-line program of 10k small ops (tensor<2x4xf32>: add, multiply, tanh, transpose,
reshape, compare, select, two slices, concatenate, repeated), in µs per op: ours on its first run
(a module never run, every cache of the process emptied: compiling included), `run()` again (a new
evaluator; the module's code is reused while it is unchanged), later calls of one evaluator;
upstream's; generating the block's Python code alone (what a block called often pays once); and
ours traced (`stablehlo_py.trace.Trace(1)`: a summary per op), with a new trace and again.
(a) with --suite: every conformance testdata program, interpretation time only (parsing excluded);
upstream's interpreter runs in a worker process that is restarted if it crashes (it does on a few
programs), each program with a time limit.

Targets (issue 3): on (b) >= 1000x faster than upstream and <= 2x XLA CPU (the scan: >= 100x faster than
upstream); on (a) faster in total than upstream.  Issue 12: every loop workload >= 10x faster than
upstream; (c) <= 2 µs per small op.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# upstream's tests, next to the repository or where $STABLEHLO_PY_SHARED says (as tests/conftest.py)
SHARED = Path(os.environ.get("STABLEHLO_PY_SHARED") or REPO.parent / "shared")
TESTDATA = SHARED / "conformance" / "testdata"


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    t = float("inf")
    for _ in range(repeat):
        s = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - s)
    return t


def models(smoke: bool = False):  # type: ignore[no-untyped-def]
    """The workloads of (b); with ``smoke`` the same functions on tiny arrays."""
    import jax
    import jax.numpy as jnp

    r = np.random.default_rng(0)
    f32 = np.float32

    def mlp(x, w1, w2, w3):
        return jnp.maximum(jnp.maximum(x @ w1, 0) @ w2, 0) @ w3

    def cnn(x, k1, k2):
        y = jax.lax.conv_general_dilated(
            x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        y = jnp.maximum(y, 0)
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        y = jax.lax.conv_general_dilated(
            y, k2, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        return jnp.maximum(y, 0).mean(axis=(1, 2))

    def transformer(x, wq, wk, wv, wo, w1, w2):
        def ln(v):  # written without var() so that JAX emits no chlo ops upstream cannot run
            d = v - v.mean(-1, keepdims=True)
            return d / jnp.sqrt((d * d).mean(-1, keepdims=True) + 1e-5)

        q, k, v = x @ wq, x @ wk, x @ wv
        a = jax.nn.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1) @ v
        h = ln(x + a @ wo)
        return ln(h + jnp.maximum(h @ w1, 0) @ w2)

    def scan(x):
        def step(c, _):
            c = jnp.tanh(c * 1.01 + 0.1)
            return c, c.sum()

        return jax.lax.scan(step, x, None, length=100)

    def lstm(xs, wx, wh, b):
        def cell(carry, x):
            h, c = carry
            i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        batch, hidden = xs.shape[1], wh.shape[0]
        zeros = jnp.zeros((batch, hidden), xs.dtype)
        return jax.lax.scan(cell, (zeros, zeros), xs)

    def conv_block(x, k1, k2):
        def conv(v, k):
            return jax.lax.conv_general_dilated(
                v, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )

        y = jnp.maximum(conv(x, k1), 0)
        return jnp.maximum(conv(y, k2) + x, 0)

    # sizes: (MLP batch, MLP width), CNN (image, channels), (tokens, width) of the small and the
    # large transformer, LSTM (steps, batch, input, hidden), conv block (image, channels)
    if smoke:
        mb, mw, ci, cc, t_small, d_small, t_big, d_big = 4, 8, 4, 2, 4, 8, 4, 8
        ls, lb, li, lh, bi, bc = 5, 2, 4, 4, 4, 2
    else:
        mb, mw, ci, cc, t_small, d_small, t_big, d_big = 64, 256, 16, 8, 32, 64, 128, 768
        ls, lb, li, lh, bi, bc = 50, 8, 32, 32, 56, 64

    return {
        f"MLP {mb}x{mw}x{mw}x{mb}": (
            mlp,
            (
                r.normal(size=(mb, mw)).astype(f32),
                r.normal(size=(mw, mw)).astype(f32) * 0.05,
                r.normal(size=(mw, mw)).astype(f32) * 0.05,
                r.normal(size=(mw, mb)).astype(f32) * 0.05,
            ),
        ),
        "small CNN": (
            cnn,
            (
                r.normal(size=(2, ci, ci, 3)).astype(f32),
                r.normal(size=(3, 3, 3, cc)).astype(f32),
                r.normal(size=(3, 3, cc, 2 * cc)).astype(f32),
            ),
        ),
        "transformer block": (
            transformer,
            (
                r.normal(size=(t_small, d_small)).astype(f32),
                *[r.normal(size=(d_small, d_small)).astype(f32) * 0.1 for _ in range(4)],
                r.normal(size=(d_small, 2 * d_small)).astype(f32) * 0.1,
                r.normal(size=(2 * d_small, d_small)).astype(f32) * 0.1,
            ),
        ),
        "100-step while scan": (scan, (r.normal(size=(16,)).astype(f32),)),
        f"LSTM {ls}-step scan": (
            lstm,
            (
                r.normal(size=(ls, lb, li)).astype(f32),
                r.normal(size=(li, 4 * lh)).astype(f32) * 0.1,
                r.normal(size=(lh, 4 * lh)).astype(f32) * 0.1,
                r.normal(size=(4 * lh,)).astype(f32) * 0.1,
            ),
        ),
        f"transformer d={d_big} x{t_big}": (
            transformer,
            (
                r.normal(size=(t_big, d_big)).astype(f32),
                *[r.normal(size=(d_big, d_big)).astype(f32) * 0.03 for _ in range(4)],
                r.normal(size=(d_big, 4 * d_big)).astype(f32) * 0.03,
                r.normal(size=(4 * d_big, d_big)).astype(f32) * 0.02,
            ),
        ),
        f"conv block {bi}x{bi}x{bc}": (
            conv_block,
            (
                r.normal(size=(1, bi, bi, bc)).astype(f32),
                r.normal(size=(3, 3, bc, bc)).astype(f32) * 0.05,
                r.normal(size=(3, 3, bc, bc)).astype(f32) * 0.05,
            ),
        ),
    }


# Upstream's interpreter runs each model once, in a worker process with a time limit (on the
# large models it takes many minutes).
UPSTREAM_MODEL_WORKER = r"""
import sys, time
import numpy as np
from jax._src.interpreters import mlir
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo
text = open(sys.argv[1]).read()
args = np.load(sys.argv[2])
with mlir.make_ir_context():
    m = ir.Module.parse(text)
    up_args = [ir.DenseElementsAttr.get(np.ascontiguousarray(args[k])) for k in sorted(args.files)]
    s = time.perf_counter()
    stablehlo.eval_module(m, up_args)
    print(time.perf_counter() - s, flush=True)
"""


def upstream_model_time(text: str, args: tuple, limit: float) -> float | None:  # type: ignore[type-arg]
    """Seconds upstream's `eval_module` takes on `text` (one run), or None past `limit`."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        mlir_path, args_path = Path(tmp) / "m.mlir", Path(tmp) / "args.npz"
        mlir_path.write_text(text)
        np.savez(args_path, **{f"a{i:03d}": a for i, a in enumerate(args)})
        try:
            out = subprocess.run(
                [sys.executable, "-c", UPSTREAM_MODEL_WORKER, str(mlir_path), str(args_path)],
                capture_output=True,
                text=True,
                timeout=limit,
                check=True,
            )
        except subprocess.TimeoutExpired:
            return None
        return float(out.stdout.strip().splitlines()[-1])


def bench_models(repeat: int, upstream_limit: float, smoke: bool = False) -> None:
    import jax
    from stablehlo_py.interpreter import run

    from stablehlo_py.ir import parse

    print(
        f"{'workload':24} {'ours':>10} {'upstream':>10} {'XLA CPU':>10} | {'vs upstream':>12} {'vs XLA':>8}"
    )
    for name, (fn, args) in models(smoke).items():
        text = jax.jit(fn).lower(*args).as_text()
        ours_mod = parse(text)
        jitted = jax.jit(fn)
        jax.block_until_ready(jitted(*args))
        t_xla = best(lambda: jax.block_until_ready(jitted(*args)), max(repeat, 5))
        t_ours = best(lambda: run(ours_mod, *args), repeat)
        t_up = upstream_model_time(text, args, upstream_limit)
        if t_up is None:
            up, vs_up = f"> {upstream_limit:5.0f}s", f">{upstream_limit / t_ours:9.0f}x"
        else:
            up, vs_up = f"{t_up * 1e3:8.1f}ms", f"{t_up / t_ours:10.0f}x"
        print(
            f"{name:24} {t_ours * 1e3:8.2f}ms {up:>10} {t_xla * 1e3:8.3f}ms | "
            f"{vs_up:>11} {t_ours / t_xla:7.1f}x"
        )
    print(
        f"(upstream: one run in a worker process, stopped after {upstream_limit:.0f} s: '> N s' "
        "is that limit, and the ratio a lower bound)"
    )


STRAIGHT_LINE_CYCLE = """\
    %{1} = stablehlo.add %{0}, %arg0 : tensor<2x4xf32>
    %{2} = stablehlo.multiply %{1}, %arg1 : tensor<2x4xf32>
    %{3} = stablehlo.tanh %{2} : tensor<2x4xf32>
    %{4} = stablehlo.transpose %{3}, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %{5} = stablehlo.reshape %{4} : (tensor<4x2xf32>) -> tensor<2x4xf32>
    %{6} = stablehlo.compare GT, %{5}, %arg0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %{7} = stablehlo.select %{6}, %{5}, %arg1 : tensor<2x4xi1>, tensor<2x4xf32>
    %{8} = stablehlo.slice %{7} [0:2, 0:1] : (tensor<2x4xf32>) -> tensor<2x1xf32>
    %{9} = stablehlo.slice %{7} [0:2, 1:4] : (tensor<2x4xf32>) -> tensor<2x3xf32>
    %{10} = stablehlo.concatenate %{9}, %{8}, dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
"""


def straight_line_program(n_ops: int = 10_000) -> str:
    """`n_ops` small ops in one block (cycles of STRAIGHT_LINE_CYCLE's ten ops)."""
    lines = ["func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> tensor<2x4xf32> {"]
    prev = "arg0"
    for c in range(n_ops // 10):
        names = [prev] + [f"v{c * 10 + k}" for k in range(10)]
        lines.append(STRAIGHT_LINE_CYCLE.format(*names).rstrip("\n"))
        prev = names[-1]
    lines += [f"    return %{prev} : tensor<2x4xf32>", "}"]
    return "\n".join(lines)


def bench_straight_line(repeat: int, n_ops: int = 10_000) -> None:
    from jax._src.interpreters import mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo as upstream
    from stablehlo_py.interpreter import run
    from stablehlo_py.interpreter.evaluator import Evaluator

    from stablehlo_py.ir import parse
    from stablehlo_py.trace import Trace

    text = straight_line_program(n_ops)
    r = np.random.default_rng(0)
    args = [r.normal(size=(2, 4)).astype(np.float32) for _ in range(2)]
    # first run: a module never run, with every cache of the process emptied (no steps, code or
    # kernels kept from an earlier run; imports done), as a fresh process's first call pays
    t_first = min(_first_run(text, args) for _ in range(max(1, repeat - 1)))
    module = parse(text)
    run(module, *args)
    t_new = best(lambda: run(module, *args), repeat)  # run() again: a new evaluator, code reused
    t_compile = _generate(text)
    ev = Evaluator(module)
    ev.call("main", args)
    t_again = best(lambda: ev.call("main", args), repeat)
    t_traced = best(lambda: run(module, *args, trace=Trace(1)), repeat)  # a summary per op
    traced = Evaluator(module, observer=Trace(1))
    traced.call("main", args)
    t_traced_again = best(lambda: traced.call("main", args), repeat)
    with mlir.make_ir_context():
        up_mod = ir.Module.parse(text)
        up_args = [ir.DenseElementsAttr.get(np.ascontiguousarray(a)) for a in args]
        t_up = best(lambda: upstream.eval_module(up_mod, up_args), 1)
    us = 1e6 / n_ops
    print(
        f"(c) {n_ops}-op straight-line program, small tensors, µs/op: ours first run {t_first * us:.2f}, "
        f"second run() {t_new * us:.2f}, same evaluator again {t_again * us:.2f}; upstream "
        f"{t_up * us:.2f} ({t_up / t_new:.1f}x second run); generating the block's code "
        f"{t_compile * us:.2f}"
    )
    print(
        f"    traced (--trace, level 1), µs/op: run() {t_traced * us:.2f}, "
        f"again {t_traced_again * us:.2f}"
    )


def _first_run(text: str, args: list) -> float:  # type: ignore[type-arg]
    """One run() of `text` parsed afresh, every cache of the context emptied first (and the
    parse's own deferred garbage collection done before: it is the parse's cost)."""
    import gc

    from stablehlo_py.interpreter import run

    from stablehlo_py.ir import parse

    module = parse(text)
    gc.collect()
    _clear_caches()
    s = time.perf_counter()
    run(module, *args)
    return time.perf_counter() - s


def _generate(text: str) -> float:
    """Generating (and Python-compiling) @main's code on a module parsed afresh, caches emptied."""
    import gc

    compiled = _compiled_module()
    from stablehlo_py.interpreter.registry import load_impls

    from stablehlo_py.ir import parse

    load_impls()
    module = parse(text)
    block = next(iter(module.body.ops)).body.blocks.first
    gc.collect()
    _clear_caches()
    s = time.perf_counter()
    compiled.compile_block(block, "@main")
    return time.perf_counter() - s


def _clear_caches() -> None:
    try:
        from stablehlo_py.ir.context import CONTEXT
    except ImportError:  # before the context
        getattr(_compiled_module(), "_CODE_CACHE", {}).clear()
        return
    CONTEXT.clear()


def _compiled_module():  # type: ignore[no-untyped-def]
    try:
        from stablehlo_py.interpreter import compiled
    except ImportError:  # before the compiled interpreter
        return None
    return compiled


WORKER = r"""
import re, sys, time, json
from jax._src.interpreters import mlir
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo
ctx = mlir.make_ir_context()
for line in sys.stdin:
    path = line.strip()
    # eval_module has no handler for the testdata's `custom_call @check.*` (only upstream's
    # stablehlo-translate registers one): drop those lines; they produce no values.
    text = re.sub(r"^.*stablehlo.custom_call @check\..*\n", "", open(path).read(), flags=re.M)
    with ctx:
        m = ir.Module.parse(text)
        s = time.perf_counter()
        try:
            stablehlo.eval_module(m, [])
            ok = True
        except Exception:
            ok = False
        t = time.perf_counter() - s
    print(json.dumps({"path": path, "t": t, "ok": ok}), flush=True)
"""


def upstream_suite(files: list[Path], timeout: float) -> dict[str, tuple[float, str]]:
    """Run upstream's interpreter on each file in a worker; crashes and timeouts are recorded."""
    out: dict[str, tuple[float, str]] = {}
    pending = list(files)
    while pending:
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdin and proc.stdout
        while pending:
            f = pending[0]
            proc.stdin.write(str(f) + "\n")
            proc.stdin.flush()
            start = time.perf_counter()
            line = _readline_with_timeout(proc, timeout)
            pending.pop(0)
            if line is None:
                try:
                    proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
                status = "timeout" if proc.poll() is None else "crash"
                out[f.name] = (time.perf_counter() - start, status)
                proc.kill()
                break
            rec = json.loads(line)
            out[f.name] = (rec["t"], "ok" if rec["ok"] else "error")
        else:
            proc.stdin.close()
            proc.wait()
    return out


def _readline_with_timeout(proc: subprocess.Popen, timeout: float) -> str | None:  # type: ignore[type-arg]
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
    if not sel.select(timeout):
        return None
    line = proc.stdout.readline()  # type: ignore[union-attr]
    return line or None


def bench_suite(limit: int | None, timeout: float) -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator

    from stablehlo_py.ir import parse

    files = sorted(TESTDATA.glob("*.mlir"))[:limit]
    ours_total = 0.0
    ours_fail = 0
    for f in files:
        module = parse(f.read_text(), str(f))
        s = time.perf_counter()
        ev = Evaluator(module)
        ev.call("main", [])
        ours_total += time.perf_counter() - s
        ours_fail += bool(ev.failures)
    up = upstream_suite(files, timeout)
    up_total = sum(t for t, _ in up.values())
    bad = {k: v[1] for k, v in up.items() if v[1] != "ok"}
    print(f"(a) testdata suite, {len(files)} programs, interpretation only:")
    print(f"    ours     {ours_total:8.2f} s  ({ours_fail} with failing checks)")
    ok_names = [k for k, v in up.items() if v[1] == "ok"]
    print(f"    upstream {up_total:8.2f} s  ({len(bad)} not ok: {dict(list(bad.items())[:8])})")
    print(
        f"    ratio    {up_total / ours_total:8.1f}x faster (total, upstream's failures counted at their time)"
    )
    print(f"    programs upstream completes: {len(ok_names)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", action="store_true", help="also run (a), the testdata suite")
    ap.add_argument("--suite-limit", type=int, default=None)
    ap.add_argument(
        "--timeout", type=float, default=120.0, help="per-program limit for upstream in (a)"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only-c", action="store_true", help="run (c) only (the straight-line program)")
    ap.add_argument(
        "--upstream-limit",
        type=float,
        default=60.0,
        help="seconds upstream's interpreter may take per model in (b) (one run each)",
    )
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same "
                    "code paths, (a) on 2 programs (tests/oracle/test_bench_smoke_oracle.py runs it)")
    args = ap.parse_args()
    try:
        import jax  # noqa: F401
    except ImportError:
        sys.exit("bench/interpreter.py needs the oracle extra: pip install -e '.[oracle]'")
    if args.smoke:
        args.repeat, args.suite = 1, TESTDATA.is_dir()
        args.suite_limit = 2
    if not args.only_c:
        bench_models(args.repeat, args.upstream_limit, args.smoke)
    bench_straight_line(args.repeat, 20 if args.smoke else 10_000)
    if args.suite:
        bench_suite(args.suite_limit, args.timeout)


if __name__ == "__main__":
    main()
