"""Builder speed: a 10k-op module built with stablehlo_py.builder, side by side in one run with
parsing the same module from text (our parser) and with JAX tracing + lowering an equivalent
straight-line function (when the `oracle` extra is installed).

    python bench/builder.py [--ops N] [--repeat N] [--smoke]

Prints µs/op for each, the ratio builder/parse and builder/JAX, and where the builder's time goes
(result-type inference, op construction, the rest: argument binding, attribute conversion and
insertion), measured by timing those calls alone on binary ops; and what xDSL's own
``Operation.create`` would cost instead of the builder's constructor (stablehlo_py.builder.fastop).
Target (issue 26): ≤ 10 µs/op, including the check of each op at its call (`builder` row).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_print import best

KINDS = ["add", "multiply", "abs", "const", "bcast", "maximum", "negate", "subtract"]


def build(n_ops: int):  # type: ignore[no-untyped-def]
    """The op mix of bench/parse_print.py's generated module, built with the builder."""
    from stablehlo_py.builder import Module, constant, tensor
    from stablehlo_py.builder import stablehlo as hlo
    from stablehlo_py.ir import no_gc

    t = tensor((16, 32), "f32")
    m = Module()

    def main(x, row):  # type: ignore[no-untyped-def]
        prev = x
        i = 0
        while i < n_ops - 1:
            k = KINDS[i % len(KINDS)]
            if k == "const":
                c = constant(np.float32((i % 7) * 0.5), shape=(16, 32))
                prev = hlo.add(prev, c)
                i += 2
                continue
            if k == "bcast":
                b = hlo.broadcast_in_dim(row, [1], result_type=t)
                prev = hlo.multiply(prev, b)
                i += 2
                continue
            if k in ("abs", "negate"):
                prev = getattr(hlo, k)(prev)
            else:
                prev = getattr(hlo, k)(prev, x)
            i += 1
        return prev

    with no_gc():
        m.add_function(main, [t, tensor((32,), "f32")], "main")
    return m


def jax_lower_time(n_ops: int, repeat: int) -> float | None:
    """Seconds per StableHLO op for JAX to trace and lower a function of about ``n_ops`` ops."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def f(x, row):  # type: ignore[no-untyped-def]
        prev = x
        for i in range(n_ops // 2):
            prev = jnp.maximum(prev * row, x) if i % 2 else -jnp.abs(prev + x)
        return prev

    x = np.zeros((16, 32), np.float32)
    row = np.zeros(32, np.float32)
    text = jax.jit(f).lower(x, row).as_text()
    n_jax = sum(1 for line in text.splitlines() if " = " in line and "stablehlo." in line)
    return best(lambda: jax.jit(f).lower(x, row).as_text(), repeat) / n_jax


def breakdown(n: int, repeat: int) -> tuple[float, float, float]:
    """Seconds spent, for ``n`` binary ops (best of ``repeat``), in result-type inference, in the
    builder's op construction (``fastop.new_op``) and in xDSL's ``Operation.create`` (what the
    construction would cost without the workaround)."""
    from xdsl.ir import Block

    from stablehlo_py.builder import tensor
    from stablehlo_py.builder.fastop import new_op
    from stablehlo_py.ir.infer import infer_result_types
    from stablehlo_py.ir.dialects import default_registry

    t = tensor((16, 32), "f32")
    blk = Block(arg_types=[t, t])
    a, b = blk.args
    add = default_registry().ops["stablehlo.add"]

    from stablehlo_py.ir import no_gc

    # as build() does: the collector off, so that a collection triggered by the thousands of new
    # objects does not land in one column by chance (it made these figures vary 4x)
    def infer() -> None:
        with no_gc():
            for _ in range(n):
                infer_result_types("stablehlo.add", [t, t], {}, (), (a, b))

    def fast() -> None:
        with no_gc():
            for _ in range(n):
                new_op(add, [a, b], [t], {})

    def create() -> None:
        with no_gc():
            for _ in range(n):
                add.create(operands=[a, b], result_types=[t], properties={}, regions=[])

    return best(infer, repeat), best(fast, repeat), best(create, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    args = ap.parse_args()
    if args.smoke:
        args.ops, args.repeat = 100, 1
    from stablehlo_py.ir import parse, print_ir

    m = build(args.ops)
    n = sum(1 for _ in m.op.walk()) - 1
    m.verify()
    t_build = best(lambda: build(args.ops), args.repeat)
    text = print_ir(m.op)
    t_parse = best(lambda: parse(text), args.repeat)
    t_jax = jax_lower_time(args.ops, args.repeat)
    t_infer, t_new, t_create = breakdown(n, args.repeat)

    print(f"module: {n} ops (func, return and module included)")
    print(f"{'builder':28} {t_build / n * 1e6:8.1f} µs/op   (target ≤ 10, checks included)")
    print(
        f"{'parse the printed text':28} {t_parse / n * 1e6:8.1f} µs/op   builder/parse = {t_build / t_parse:.2f}x"
    )
    if t_jax is not None:
        per_op = t_build / n
        print(
            f"{'JAX trace + lower':28} {t_jax * 1e6:8.1f} µs/op   builder/JAX = {per_op / t_jax:.2f}x"
        )
    else:
        print("(jax not installed: no JAX column; pip install -e '.[oracle]')")
    print("where the builder's time goes (per op):")
    print(f"  {'result-type inference':30} {t_infer / n * 1e6:8.1f} µs")
    print(f"  {'op construction (fastop.new_op)':30} {t_new / n * 1e6:8.1f} µs")
    rest = t_build - t_infer - t_new
    print(f"  {'binding, attributes, insert':30} {rest / n * 1e6:8.1f} µs")
    print(f"  ({'xDSL Operation.create instead':30} {t_create / n * 1e6:8.1f} µs)")


if __name__ == "__main__":
    main()
