"""The bench/ scripts that need jax, in their smoke mode (see tests/unit/test_bench_smoke.py):

* `bench/interpreter.py --smoke`: every workload of (b) on tiny arrays (ours, upstream's interpreter
  in its worker process, XLA CPU), (c) on a 20-op program, (a) on 2 testdata programs when upstream's
  conformance files are there;
* `bench/differential_fuzz.py --cases 4 --jobs 1`: four generated cases through the job subprocess,
  the comparison and the classification.  Its exit status is 1 when a case is classified as a bug of
  ours not yet listed (tests/differential judges those); here it must run and print its counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")

from tests.unit.test_bench_smoke import CONFORMANCE, NUM, Smoke, run_smoke  # noqa: E402

WORKLOADS = ("MLP 4x8x8x4", "small CNN", "transformer block", "100-step while scan",
             "LSTM 5-step scan", "transformer d=8 x4", "conv block 4x4x2")


def test_interpreter_smoke(tmp_path: Path) -> None:
    table = [
        r"^workload\s+ours\s+upstream\s+XLA CPU \|\s+vs upstream\s+vs XLA$",
        *(rf"^{w}\s+{NUM}ms\s+(?:{NUM}ms|> +{NUM}s)\s+{NUM}ms \|" for w in WORKLOADS),
        rf"^\(c\) 20-op straight-line program, small tensors, µs/op: ours first run {NUM}",
    ]
    if CONFORMANCE.is_dir():
        table += [r"^\(a\) testdata suite, 2 programs, interpretation only:", r"^    programs upstream completes: \d+"]
    run_smoke("interpreter", Smoke(("--smoke",), tuple(table)), tmp_path)


def test_differential_fuzz_smoke(tmp_path: Path) -> None:
    out = run_smoke("differential_fuzz", Smoke(
        ("--cases", "4", "--jobs", "1", "--out", "{tmp}/mismatches.txt"),
        (r"^seed 0, jaxlib ", r"^4 cases in ", r"^by status: ", r"^per family:", r"^reproducers: "),
        exit_codes=(0, 1),
    ), tmp_path)
    assert (tmp_path / "mismatches.txt").read_text().startswith("# bench/differential_fuzz.py --seed 0")
    counts = [int(n) for n in __import__("re").findall(r"(?:match|mismatch|xla_crash|harness_error) (\d+)",
                                                       out.split("by status:")[1].splitlines()[0])]
    assert sum(counts) == 4, out
