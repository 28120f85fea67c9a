"""Fuzz portable-artifact reading at scale: >= 1M mutated artifacts, in parallel processes.

    python bench/fuzz_artifacts.py [--cases 1000000] [--jobs N] [--seed S] [--full | --read-only]
                                   [--format msgpack | mlir] [--smoke]

Each case mutates a valid seed artifact (tests/fuzz/fuzzing.py: truncations, bit flips, interesting bytes,
insertions, deletions, splices, header-size fix-ups, structure-aware record edits) and reads it with
`deserialize_portable_artifact` (``--full``, the default: decode + upgrade + legalize + verify) or
`read_artifact` only (``--read-only``).  Every outcome must be success or a StableHLOError; anything
else is a finding, saved to ``--out`` (default /tmp/fuzz_findings) for reproduction.  Prints cases/s,
the accepted/refused split, the most common refusal messages and the findings.

``--format mlir`` fuzzes upstream's format (MLIR bytecode) instead, with the structure-aware
mutations of tests/fuzz/mlir_fuzzing.py (varints, references, lengths and sections edited with the
enclosing lengths fixed up) over the seeds of tests/fuzz/test_mlir_fuzz.py (every
bytecode version, jaxlib's artifacts when jax is importable) plus the golden programs; each case goes
through `deserialize_portable_artifact`, `get_portable_artifact_version` and (every 16th)
`check_compat`.  There a StableHLOError that only wraps an internal error, a case taking more than
5 s of CPU time and one still running after 60 CPU seconds (interrupted) are findings too.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _seeds() -> list[bytes]:
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from tests.golden.programs import program
    from tests.fuzz.test_fuzz_artifacts import seeds

    return [*seeds(), serialize_portable_artifact_str(program("1.20.0"), "current")]


def _mlir_seeds() -> list[bytes]:
    """The CI seeds (cheap) eight times over, and the golden programs (slow to read) once."""
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from tests.golden.programs import program
    from tests.fuzz.test_mlir_fuzz import seeds

    golden = [
        serialize_portable_artifact_str(program("1.0.0"), "1.0.0", format="mlir"),
        serialize_portable_artifact_str(program("1.20.0"), "current", format="mlir"),
    ]
    return [*seeds() * 8, *golden]


def _mlir_readers(full: bool) -> list:
    from stablehlo_py.serialization import get_portable_artifact_version
    from stablehlo_py.serialization.mlir_artifact import read_mlir_artifact

    from tests.fuzz.test_mlir_fuzz import _readers

    if full:
        return _readers()
    return [(read_mlir_artifact, 1), (get_portable_artifact_version, 1)]


def _work(
    args: tuple[int, int, bool, int] | tuple[int, int, bool, int, str],
) -> tuple[int, int, int, list[tuple[bytes, str]], dict[str, int]]:
    if len(args) == 5 and args[4] == "mlir":
        return _work_mlir(args[:4])  # type: ignore[arg-type]
    cases, seed, full, memory_gb = args[:4]
    from stablehlo_py.serialization import deserialize_portable_artifact, read_artifact

    from tests.fuzz import fuzzing

    reader = deserialize_portable_artifact if full else read_artifact
    r = fuzzing.run(
        reader, _seeds(), cases, seed=seed, keep_messages=True, memory_limit=memory_gb << 30
    )
    return r.cases, r.accepted, r.refused, r.findings, r.messages


def _work_mlir(
    args: tuple[int, int, bool, int],
) -> tuple[int, int, int, list[tuple[bytes, str]], dict[str, int]]:
    cases, seed, full, memory_gb = args
    from tests.fuzz import mlir_fuzzing

    r = mlir_fuzzing.run(
        _mlir_seeds(),
        cases,
        seed=seed,
        keep_messages=True,
        memory_limit=memory_gb << 30,
        readers=_mlir_readers(full),
    )
    return r.cases, r.accepted, r.refused, r.findings, r.messages


def _isolate_crashes(chunks: list[tuple]) -> list[tuple[bytes, str]]:
    """Rerun chunks whose worker died, each in its own process, case by case, and report the cases
    that kill a process (reproducible: the same seed gives the same mutations)."""
    import random

    from tests.fuzz import fuzzing, mlir_fuzzing

    found: list[tuple[bytes, str]] = []
    seeds = _seeds()
    mlir_seeds: list[bytes] = []
    layouts: list = []
    for chunk in chunks:
        cases, seed, full, memory_gb = chunk[:4]
        mlir = len(chunk) == 5 and chunk[4] == "mlir"
        if mlir and not mlir_seeds:
            mlir_seeds = _mlir_seeds()
            layouts = mlir_fuzzing.layouts_of(mlir_seeds)
        rng = random.Random(seed)
        for _ in range(cases):
            if mlir:
                data = mlir_fuzzing.mutate(rng, mlir_seeds, layouts)
            else:
                data = fuzzing.mutate(rng, seeds)
            ctx = mp.get_context("fork")
            p = ctx.Process(target=_one, args=(data, full, memory_gb, mlir))
            p.start()
            p.join()
            if p.exitcode != 0:
                found.append(
                    (data, f"process died with exit code {p.exitcode} (crash or out of memory)")
                )
    return found


def _one(data: bytes, full: bool, memory_gb: int, mlir: bool = False) -> None:
    """Read one artifact; the process exits non-zero only if it crashes or is killed."""
    from stablehlo_py.serialization import deserialize_portable_artifact, read_artifact

    from tests.fuzz.fuzzing import _memory_limit

    readers = (
        [r for r, _ in _mlir_readers(full)]
        if mlir
        else [deserialize_portable_artifact if full else read_artifact]
    )
    with _memory_limit(memory_gb << 30):
        for read in readers:
            try:
                read(data)
            except Exception:  # noqa: BLE001, S110 - exceptions are judged by the main run
                pass


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--jobs", type=int, default=mp.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument("--read-only", action="store_true", help="decode only (no passes)")
    ap.add_argument(
        "--format",
        choices=("msgpack", "mlir"),
        default="msgpack",
        help="artifact format to fuzz: this toolkit's msgpack (default) or upstream's MLIR bytecode",
    )
    ap.add_argument("--out", default="/tmp/fuzz_findings")
    ap.add_argument(
        "--memory-limit-gb",
        type=int,
        default=3,
        help="address-space limit per process: unbounded allocation becomes a MemoryError finding",
    )
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    args = ap.parse_args()
    if args.smoke:  # two chunks of 20 cases, in one worker process
        args.cases, args.chunk, args.jobs = 40, 20, 1
    chunks = [
        (
            min(args.chunk, args.cases - i),
            args.seed * 1_000_003 + i,
            not args.read_only,
            args.memory_limit_gb,
        )
        for i in range(0, args.cases, args.chunk)
    ]
    if args.format == "mlir":
        chunks = [(*c, "mlir") for c in chunks]
    total = accepted = refused = 0
    findings: list[tuple[bytes, str]] = []
    messages: collections.Counter[str] = collections.Counter()
    t0 = time.perf_counter()
    pending = list(chunks)
    while pending:
        # A worker that dies (a crash, or the kernel's OOM killer) breaks the pool: the chunks not
        # finished are rerun one case per task... never silently lost.
        with ProcessPoolExecutor(args.jobs, mp_context=mp.get_context("fork")) as pool:
            futures = {pool.submit(_work, c): c for c in pending}
            done: list[tuple] = []
            try:
                for fut in as_completed(futures):
                    n, a, r, f, m = fut.result()
                    done.append(futures[fut])
                    total += n
                    accepted += a
                    refused += r
                    _save(args, findings, f)  # as they come: a killed run keeps them
                    findings.extend(f)
                    messages.update(m)
                    if total % (args.chunk * 20) < args.chunk:
                        rate = total / (time.perf_counter() - t0)
                        print(
                            f"  {total:>9} cases, {rate:,.0f}/s, findings {len(findings)}",
                            flush=True,
                        )
            except BrokenProcessPool:
                lost = [c for c in pending if c not in done]
                print(f"  a worker died; {len(lost)} chunks to redo case by case", flush=True)
                crashed = _isolate_crashes(lost)
                _save(args, findings, crashed)
                findings.extend(crashed)
                total += sum(c[0] for c in lost)
                pending = []
                continue
            pending = []
    dt = time.perf_counter() - t0
    print(
        f"\n{total} mutated {args.format} artifacts in {dt:.0f} s ({total / dt:,.0f}/s, "
        f"{args.jobs} processes, {'decode only' if args.read_only else 'full deserialization'})"
    )
    print(
        f"accepted {accepted} ({100 * accepted / total:.1f}%), refused with StableHLOError {refused}, "
        f"findings (any other exception) {len(findings)}"
    )
    print("most common refusals:")
    for msg, n in messages.most_common(12):
        print(f"  {n:>8}  {msg}")
    if findings:
        for i, (_, why) in enumerate(findings[:100]):
            print(f"FINDING {i}: {why}")
        return 1
    return 0


def _save(args: argparse.Namespace, before: list, new: list[tuple[bytes, str]]) -> None:
    """Write findings ``len(before)``... to ``--out`` (the first 100), with their reasons in
    ``findings.txt``."""
    if not new or len(before) >= 100:
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ext = "mlirbc" if args.format == "mlir" else "shlo"
    with open(out / "findings.txt", "a") as log:
        for i, (data, why) in enumerate(new[: 100 - len(before)], start=len(before)):
            (out / f"finding_{i}.{ext}").write_bytes(data)
            log.write(f"finding_{i}.{ext}: {why}\n")


if __name__ == "__main__":
    raise SystemExit(main())
