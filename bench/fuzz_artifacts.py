"""Fuzz portable-artifact reading at scale: >= 1M mutated artifacts, in parallel processes.

    python bench/fuzz_artifacts.py [--cases 1000000] [--jobs N] [--seed S] [--full | --read-only]

Each case mutates a valid seed artifact (tests/fuzzing.py: truncations, bit flips, interesting bytes,
insertions, deletions, splices, header-size fix-ups, structure-aware record edits) and reads it with
`deserialize_portable_artifact` (``--full``, the default: decode + upgrade + legalize + verify) or
`read_artifact` only (``--read-only``).  Every outcome must be success or a StableHLOError; anything
else is a finding, saved to ``--out`` (default /tmp/fuzz_findings) for reproduction.  Prints cases/s,
the accepted/refused split, the most common refusal messages and the findings.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _seeds() -> list[bytes]:
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from tests.golden.programs import program
    from tests.unit.serialization.test_fuzz import seeds

    return [*seeds(), serialize_portable_artifact_str(program("1.20.0"), "current")]


def _work(
    args: tuple[int, int, bool],
) -> tuple[int, int, int, list[tuple[bytes, str]], dict[str, int]]:
    cases, seed, full = args
    from stablehlo_py.serialization import deserialize_portable_artifact, read_artifact

    from tests import fuzzing

    reader = deserialize_portable_artifact if full else read_artifact
    r = fuzzing.run(reader, _seeds(), cases, seed=seed, keep_messages=True)
    return r.cases, r.accepted, r.refused, r.findings, r.messages


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--jobs", type=int, default=mp.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument("--read-only", action="store_true", help="decode only (no passes)")
    ap.add_argument("--out", default="/tmp/fuzz_findings")
    args = ap.parse_args()
    chunks = [
        (min(args.chunk, args.cases - i), args.seed * 1_000_003 + i, not args.read_only)
        for i in range(0, args.cases, args.chunk)
    ]
    total = accepted = refused = 0
    findings: list[tuple[bytes, str]] = []
    messages: collections.Counter[str] = collections.Counter()
    t0 = time.perf_counter()
    with mp.Pool(args.jobs) as pool:
        for n, a, r, f, m in pool.imap_unordered(_work, chunks):
            total += n
            accepted += a
            refused += r
            findings.extend(f)
            messages.update(m)
            if total % (args.chunk * 20) < args.chunk:
                rate = total / (time.perf_counter() - t0)
                print(f"  {total:>9} cases, {rate:,.0f}/s, findings {len(findings)}", flush=True)
    dt = time.perf_counter() - t0
    print(
        f"\n{total} mutated artifacts in {dt:.0f} s ({total / dt:,.0f}/s, {args.jobs} processes, "
        f"{'decode only' if args.read_only else 'full deserialization'})"
    )
    print(
        f"accepted {accepted} ({100 * accepted / total:.1f}%), refused with StableHLOError {refused}, "
        f"findings (any other exception) {len(findings)}"
    )
    print("most common refusals:")
    for msg, n in messages.most_common(12):
        print(f"  {n:>8}  {msg}")
    if findings:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for i, (data, why) in enumerate(findings[:100]):
            (out / f"finding_{i}.shlo").write_bytes(data)
            print(f"FINDING {i}: {why}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
