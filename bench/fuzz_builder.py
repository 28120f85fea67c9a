"""Fuzz the builder's op functions at scale (tests/fuzz/builder_fuzzing.py), in parallel processes.

    python bench/fuzz_builder.py [--cases 200000] [--jobs N] [--seed S] [--smoke]

Each chunk of cases runs with its own seed (S, S+1, ...): every op function of ``stablehlo`` and
``chlo`` called with generated operands, attributes, regions and result types.  A call must build
an op (the module then verifies and round-trips through text) or raise a BuildError naming the op
that leaves nothing behind; anything else is a finding.  Prints the count, the rate, the outcome
split by op family and the findings (grouped by their first line).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHUNK = 5000


def _work(args: tuple[int, int]) -> tuple:
    cases, seed = args
    from tests.fuzz import builder_fuzzing

    r = builder_fuzzing.run(cases, seed)
    findings = [(f.op, f.why, f.call) for f in r.findings]
    return (
        r.cases,
        dict(r.by_family(r.accepted)),
        dict(r.by_family(r.refused)),
        findings,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="200 cases in one process, the same code paths (tests/unit/test_bench_smoke.py)",
    )
    args = ap.parse_args()
    if args.smoke:
        args.cases, args.jobs = 200, 1
    chunks = [
        (min(CHUNK, args.cases - i), args.seed + k)
        for k, i in enumerate(range(0, args.cases, CHUNK))
    ]
    start = time.time()
    total = 0
    accepted: collections.Counter[str] = collections.Counter()
    refused: collections.Counter[str] = collections.Counter()
    findings: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)
    with ProcessPoolExecutor(args.jobs) as pool:
        for fut in as_completed([pool.submit(_work, c) for c in chunks]):
            n, acc, ref, found = fut.result()
            total += n
            accepted.update(acc)
            refused.update(ref)
            for op, why, call in found:
                findings[why.splitlines()[0][:160]].append((op, why, call))
    spent = time.time() - start
    print(f"{total} cases in {spent:.1f} s ({total / spent:.0f}/s), {len(findings)} kinds of finding")
    for fam in sorted(set(accepted) | set(refused)):
        print(f"  {fam:14} accepted {accepted[fam]:7}  refused {refused[fam]:7}")
    for head, items in sorted(findings.items(), key=lambda kv: -len(kv[1])):
        op, why, call = items[0]
        print(f"\n{len(items)} x {head}\n  {why}\n  call: {call}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
