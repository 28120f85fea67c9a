"""VHLO versioning speed on generated modules, each step timed side by side in one run.

    python bench/versioning.py [--sizes 10000,100000] [--repeat 1] [--smoke]

For each size N a module with N StableHLO ops is generated (a mix of elementwise ops, ops with forks
-- exponential, dot_general, gather -- and ops with defaulted attributes -- compare, sort, reduce with a
region), then timed:

  legalize    stablehlo-legalize-to-vhlo
  downgrade   vhlo-to-version{target=0.9.0}   (every fork taken down to its oldest version)
  upgrade     vhlo-to-version{target=current}
  back        vhlo-legalize-to-stablehlo

and printed as µs per op: the pass plus the verification after it, as ``run_pipeline`` runs them
(in brackets, the verification's share).  The garbage collector's debt is paid before each step
(``gc.collect()``, as ``bench/serialization.py`` does): the parser pauses the collector, and its
deferred collection of the whole module would otherwise land in whichever step allocates first.
The last line is the per-op cost at the largest size over the smallest: ~1.0 means the step grows
linearly with the module.  Before the first timing the four steps run once on a small module
(``warm_up``): the pass modules' imports and the verifier's one-time look-ups would otherwise be
charged to the first size's steps (~9 µs/op of imports at 11k ops), which measure conversion.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from parse_print import count_ops, timing_options  # noqa: E402

BLOCK = [
    "%{a} = stablehlo.add %{x}, %{x} : tensor<4x4xf32>",
    "%{b} = stablehlo.exponential %{a} : tensor<4x4xf32>",
    "%{c} = stablehlo.dot_general %{b}, %{a}, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>",
    "%{d} = stablehlo.compare  GT, %{c}, %{a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>",
    "%{e} = stablehlo.select %{d}, %{c}, %{a} : tensor<4x4xi1>, tensor<4x4xf32>",
    '%{f} = "stablehlo.gather"(%{e}, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<4x4xf32>, tensor<4x1xi32>) -> tensor<4x4xf32>',
    "%{g} = stablehlo.reduce(%{f} init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>",
    "%{h} = stablehlo.broadcast_in_dim %{g}, dims = [0] : (tensor<4xf32>) -> tensor<4x4xf32>",
    "%{y} = stablehlo.tanh %{h} : tensor<4x4xf32>",
]
OPS_PER_BLOCK = len(BLOCK) + 1  # the reduce body's add


def generate(n_ops: int) -> str:
    lines = [
        "func.func @main(%arg0: tensor<4x4xf32>, %idx: tensor<4x1xi32>) -> tensor<4x4xf32> {",
        "  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    ]
    x = "arg0"
    blocks = max(1, n_ops // OPS_PER_BLOCK)
    for i in range(blocks):
        names = {k: f"{k}{i}" for k in "abcdefghy"}
        names["x"] = x
        for template in BLOCK:
            line = template
            for k, v in names.items():
                line = line.replace("{" + k + "}", v)
            lines.append("  " + line)
        x = names["y"]
    lines.append(f"  return %{x} : tensor<4x4xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def warm_up(steps: list[tuple[str, tuple[str, dict[str, str]]]]) -> None:
    """Run each step once on a small module (imports, first-use look-ups), untimed."""
    from stablehlo_py.passes.registry import PASSES

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    module = parse(generate(OPS_PER_BLOCK))
    for _, (pass_name, options) in steps:
        module = PASSES[pass_name].run(module, options)
        verify(module)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="10000,100000")
    timing_options(ap, repeat=1)
    args = ap.parse_args()
    if args.smoke:
        args.sizes, args.repeat = "100,200", 1
    clock = time.process_time if args.cpu else time.perf_counter
    if args.cpu:
        print("(times are CPU times of this process)")

    from stablehlo_py.passes.registry import PASSES

    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.verify import verify

    steps = [
        ("legalize", ("stablehlo-legalize-to-vhlo", {})),
        ("downgrade", ("vhlo-to-version", {"target": "0.9.0"})),
        ("upgrade", ("vhlo-to-version", {"target": "current"})),
        ("back", ("vhlo-legalize-to-stablehlo", {})),
    ]
    warm_up(steps)
    results: dict[int, dict[str, float]] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        text = generate(size)
        best: dict[str, float] = {}
        best_verify: dict[str, float] = {}
        for _ in range(args.repeat):
            module = parse(text)
            n = count_ops(module)
            original = print_ir(module)
            for name, (pass_name, options) in steps:
                gc.collect()
                t0 = clock()
                module = PASSES[pass_name].run(module, options)  # what run_pipeline does
                t1 = clock()
                verify(module)
                t2 = clock()
                if (t2 - t0) / n * 1e6 < best.get(name, float("inf")):
                    best[name] = (t2 - t0) / n * 1e6
                    best_verify[name] = (t2 - t1) / n * 1e6
            assert print_ir(module) == original, "the round trip changed the program"
        results[n] = best
        print(
            f"{n:>8d} ops: "
            + "  ".join(f"{k} {v:6.1f} ({best_verify[k]:4.1f}) µs/op" for k, v in best.items()),
            flush=True,
        )
    sizes = sorted(results)
    if len(sizes) > 1:
        lo, hi = results[sizes[0]], results[sizes[-1]]
        print(
            f"per-op cost at {sizes[-1]} / at {sizes[0]} ops: "
            + "  ".join(f"{k} {hi[k] / lo[k]:.2f}x" for k in lo)
        )
        total = sum(hi.values())
        print(f"whole round trip at {sizes[-1]} ops: {total:.1f} µs/op")


if __name__ == "__main__":
    main()
