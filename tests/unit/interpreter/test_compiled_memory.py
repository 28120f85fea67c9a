"""A block's values are dropped after their last use, in both tiers of the compiled interpreter
(the first call's plan of slots and the generated code of later calls): a long chain of large
intermediates peaks at a few of them, not at all of them.  Values read by a nested region stay
alive until the op owning the region is done."""

from __future__ import annotations

import tracemalloc

import numpy as np
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify

N = 1 << 18  # 1 MiB of f32 per value
CHAIN = 24


def _chain(with_region: bool) -> str:
    t = f"tensor<{N}xf32>"
    lines = [f"func.func @main(%x: {t}) -> {t} {{", "  %v0 = stablehlo.negate %x : " + t]
    for i in range(1, CHAIN):
        lines.append(f"  %v{i} = stablehlo.add %v{i - 1}, %x : {t}")
    last = f"%v{CHAIN - 1}"
    if with_region:  # the early %v0 is read inside the region: it must outlive the chain
        lines += [
            "  %p = stablehlo.constant dense<true> : tensor<i1>",
            '  %r = "stablehlo.if"(%p) ({',
            f"    %s = stablehlo.add {last}, %v0 : {t}",
            f"    stablehlo.return %s : {t}",
            "  }, {",
            f"    stablehlo.return {last} : {t}",
            f"  }}) : (tensor<i1>) -> {t}",
        ]
        last = "%r"
    lines += [f"  return {last} : {t}", "}"]
    return "\n".join(lines)


def _peak_mib(ev: Evaluator, x: np.ndarray) -> tuple[float, np.ndarray]:
    tracemalloc.start()
    try:
        (out,) = ev.call("main", [x])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / (1 << 20), out


def test_a_chain_of_large_values_peaks_at_a_few_of_them_in_both_tiers() -> None:
    module = parse(_chain(False))
    verify(module)
    ev = Evaluator(module)
    x = np.ones(N, np.float32)
    expected = -x + (CHAIN - 1) * x
    for _ in range(2):  # the plan, then the generated code
        peak, out = _peak_mib(ev, x)
        np.testing.assert_array_equal(out, expected)
        assert peak < 8, f"{peak:.1f} MiB for a chain of {CHAIN} values of 1 MiB"


def test_a_value_read_inside_a_region_lives_until_the_region_ran() -> None:
    module = parse(_chain(True))
    verify(module)
    ev = Evaluator(module)
    x = np.ones(N, np.float32)
    expected = (-x + (CHAIN - 1) * x) + (-x)
    for _ in range(2):
        peak, out = _peak_mib(ev, x)
        np.testing.assert_array_equal(out, expected)
        assert peak < 10, f"{peak:.1f} MiB for a chain of {CHAIN} values of 1 MiB"
