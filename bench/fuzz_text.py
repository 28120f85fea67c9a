"""Fuzz the text pipeline at scale: >= 100,000 mutated upstream programs, in parallel processes.

    python bench/fuzz_text.py [--cases 100000] [--jobs N] [--seed S] [--no-interpret]
                              [--out /tmp/fuzz_text_findings] [--smoke]

Each case mutates one of upstream's programs (../shared/conformance: testdata/, verify/ chunks,
dialect/, interpret/, transforms/, infer/) with tests/fuzz/text_fuzzing.py (token deletion,
duplication and swap, number and type edits, truncation, random bytes, spliced lines, generated
deep nesting, huge dimensions and splats) and runs it through parse -> verify -> print (pretty and
generic) -> round trip (both printed texts parse back and print the pretty text again) -> interpret
(small programs with a `@main` without arguments, 1 s CPU budget).  Every failure must be a
StableHLOError with a location; anything else (RecursionError, MemoryError, an internal exception,
a round trip that fails or changes the text, a parse/verify/print step over 1 s of CPU) is a
finding, saved to --out for reproduction.  Prints the count, the rate, the mutation mix, the outcome
split, the most common refusals and the findings.
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

CHUNK = 2000


def _work(args: tuple[int, int, bool]) -> tuple:
    cases, seed, interpret = args
    from tests.fuzz import text_fuzzing
    from tests.conftest import CONFORMANCE

    r = text_fuzzing.run(
        text_fuzzing.conformance_seeds(CONFORMANCE),
        cases,
        seed=seed,
        interpret=interpret,
        keep_messages=True,
    )
    return r.cases, r.accepted, r.refused, r.interpreted, r.budget, r.mix, r.messages, r.findings


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-interpret", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("/tmp/fuzz_text_findings"))
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    a = ap.parse_args()
    if a.smoke:
        a.cases, a.jobs = 20, 1

    from tests.conftest import CONFORMANCE

    if not CONFORMANCE.is_dir():
        print(f"error: no seeds: {CONFORMANCE} is absent", file=sys.stderr)
        return 2
    chunks = []
    left, i = a.cases, 0
    while left > 0:
        n = min(CHUNK, left)
        chunks.append((n, a.seed * 1_000_003 + i, not a.no_interpret))
        left -= n
        i += 1
    total = collections.Counter()
    mix: collections.Counter[str] = collections.Counter()
    messages: collections.Counter[str] = collections.Counter()
    findings: list[tuple[str, str]] = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(_work, c) for c in chunks]
        for f in as_completed(futures):
            cases, accepted, refused, interpreted, budget, m, msgs, found = f.result()
            total.update(
                cases=cases,
                accepted=accepted,
                refused=refused,
                interpreted=interpreted,
                budget=budget,
            )
            mix.update(m)
            messages.update(msgs)
            findings.extend(found)
            done = total["cases"]
            rate = done / (time.perf_counter() - start)
            print(
                f"\r{done}/{a.cases} cases, {rate:.0f}/s, {len(findings)} findings",
                end="",
                file=sys.stderr,
            )
    elapsed = time.perf_counter() - start
    print(file=sys.stderr)
    print(
        f"cases: {total['cases']} in {elapsed:.0f} s ({total['cases'] / elapsed:.0f}/s, {a.jobs} job(s))"
    )
    print(
        f"accepted (parsed and verified): {total['accepted']}, refused: {total['refused']}, "
        f"interpreted: {total['interpreted']}, interpreter budget reached: {total['budget']}"
    )
    print("mutation mix: " + ", ".join(f"{k} {v}" for k, v in mix.most_common()))
    print("most common refusals:")
    for k, v in messages.most_common(15):
        print(f"  {v:7d}  {k}")
    print(f"findings: {len(findings)}")
    if findings:
        a.out.mkdir(parents=True, exist_ok=True)
        for n, (text, why) in enumerate(findings):
            (a.out / f"finding_{n:04d}.mlir").write_text(f"// {why}\n{text}")
        for why, count in collections.Counter(w for _, w in findings).most_common(20):
            print(f"  {count:5d}  {why}")
        print(f"saved to {a.out}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
