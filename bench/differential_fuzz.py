"""Differential fuzzing at scale: random JAX programs, our interpreter against XLA CPU (needs jax).

    python bench/differential_fuzz.py [--cases 20000] [--seed S] [--jobs N] [--start 0]
                                      [--time-limit SECONDS] [--out differential_mismatches.txt]
                                      [--progress 1000]
    python bench/differential_fuzz.py --summarize RECORDS.jsonl [--reclassify] [--out ...]

Case i of seed S is tests/differential/generator.make_case(S, i) (the same program and inputs on every
machine); each runs through tests/differential/runner.run_case: lowered with jax.jit, run by our
interpreter on the StableHLO text and by XLA CPU, compared, and a mismatch classified as (i) an XLA
deviation from the spec, (ii) an implementation-defined case or (iii) a bug of ours
(tests/differential/xla_deviations.py).  Prints the counts per class and per op family and writes every
class (iii) mismatch (and a sample of the others) with a standalone reproducer to --out.

Each job is a subprocess that reports case by case, so a program that aborts XLA (a CHECK failure kills
the process) is recorded as "xla_crash" with its reproducer and the job goes on after it.

Partial progress survives a killed run: every case's record is appended (and flushed) to
`<out>.jsonl` as it arrives, and every --progress cases the counts so far are printed to stderr and
written to `<out>.counts`; SIGTERM/SIGINT stop the jobs and print the counts reached.  `--summarize
RECORDS.jsonl` prints the counts of such a file; with `--reclassify` it first re-runs the cases that did
not match (seed and index are in each record) with the current classifier (after a new deviation is
listed, without re-running the matches).
Exit status: 0 when no class (iii) mismatch other than a known bug was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SAMPLES_PER_NAME = 3  # reproducers written per non-bug class name


def worker(seed: int, indices: list[int]) -> None:
    """Run cases, one JSON line each on stdout ("start" before each case, to name a crash)."""
    import warnings

    warnings.simplefilter("ignore")
    from tests.differential.generator import make_case
    from tests.differential.runner import run_case

    for i in indices:
        print(json.dumps({"start": i}), flush=True)
        try:
            out = run_case(make_case(seed, i))
            rec = {"index": i, "status": out.status, "cls": out.cls, "name": out.name, "family": out.case.family,
                   "ops": list(out.case.ops), "report": out.report() if out.status != "match" else ""}
        except Exception as e:  # a generator or harness error: reported, never silent
            rec = {"index": i, "status": "harness_error", "cls": "", "name": type(e).__name__, "family": "?",
                   "ops": [], "report": f"case {seed}:{i}: {type(e).__name__}: {e}"}
        print(json.dumps(rec), flush=True)


def _spawn(seed: int, indices: list[int]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, __file__, "--worker", str(seed), ",".join(map(str, indices))],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=REPO)


class _Stop(Exception):
    pass


def _on_signal(signum, frame):  # noqa: ARG001
    raise _Stop()


def run(seed: int, indices: list[int], jobs: int, deadline: float, sink=None, case_timeout: float = 0.0
        ) -> list[dict]:
    """Run `indices` over `jobs` worker processes; a crashed worker is restarted after its case, and so is
    one whose case runs longer than `case_timeout` seconds (recorded as "timeout": XLA's compiler never
    returns on some programs, e.g. chlo.asinh on f8E4M3 with jaxlib 0.12).  `sink(record)` is called for
    each record as it arrives."""
    import selectors

    queues = [indices[j::jobs] for j in range(jobs)]
    records: list[dict] = []
    sel = selectors.DefaultSelector()
    state: dict[int, dict] = {}

    def add(rec: dict) -> None:
        rec["seed"] = seed
        records.append(rec)
        if sink is not None:
            sink(rec)

    def start(j: int, todo: list[int]) -> None:
        if not todo:
            return
        p = _spawn(seed, todo)
        state[j] = {"proc": p, "todo": todo, "current": None, "done": set(), "since": time.time(),
                    "timed_out": False}
        sel.register(p.stdout, selectors.EVENT_READ, j)

    try:
        for j in range(jobs):
            start(j, queues[j])
        while state:
            if time.time() > deadline:
                break
            if case_timeout > 0:
                for st in state.values():
                    if st["current"] is not None and not st["timed_out"] and time.time() - st["since"] > case_timeout:
                        st["timed_out"] = True
                        st["proc"].kill()  # its output ends: recorded below, the job restarts after it
            for key, _ in sel.select(timeout=1.0):
                j = key.data
                st = state[j]
                line = st["proc"].stdout.readline()
                if line:
                    msg = json.loads(line)
                    if "start" in msg:
                        st["current"] = msg["start"]
                        st["since"] = time.time()
                    else:
                        st["done"].add(msg["index"])
                        st["current"] = None
                        add(msg)
                    continue
                # end of output: finished or crashed
                sel.unregister(st["proc"].stdout)
                st["proc"].wait()
                del state[j]
                rest = [i for i in st["todo"] if i not in st["done"]]
                if st["current"] is not None:
                    from tests.differential.generator import make_case

                    crashed = st["current"]
                    case = make_case(seed, crashed)
                    what = (f"ran longer than {case_timeout:.0f} s (killed)" if st["timed_out"] else
                            f"aborted the process (exit {st['proc'].returncode})")
                    add({"index": crashed, "status": "timeout" if st["timed_out"] else "xla_crash", "cls": "",
                         "name": "", "family": case.family, "ops": list(case.ops),
                         "report": f"case {case.id} {what}\n" + case.reproducer()})
                    rest = [i for i in rest if i != crashed]
                start(j, rest)
    except (_Stop, KeyboardInterrupt):
        print("stopped: counting the cases finished so far", file=sys.stderr)
    finally:
        for st in state.values():
            st["proc"].kill()
            st["proc"].wait()
    return records


def summarize(records: list[dict], seconds: float) -> tuple[str, int]:
    lines = [f"{len(records)} cases in {seconds:.0f} s ({len(records) / max(seconds, 1e-9):.1f}/s)"]
    by_status = collections.Counter(r["status"] for r in records)
    lines.append("by status: " + ", ".join(f"{k} {v}" for k, v in sorted(by_status.items())))
    by_class = collections.Counter((r["cls"], r["name"]) for r in records if r["status"] in ("mismatch", "ours_error"))
    lines.append("mismatches by class:")
    for (cls, name), v in sorted(by_class.items()):
        lines.append(f"  {cls:24s} {name:36s} {v}")
    from tests.differential.xla_deviations import group_of

    by_group = collections.Counter((cls, group_of(name)) for (cls, name), v in by_class.items() for _ in range(v))
    if any(group_of(name) != name for _, name in by_class):
        lines.append("mismatches by deviation family:")
        for (cls, group), v in sorted(by_group.items()):
            lines.append(f"  {cls:24s} {group:36s} {v}")
    fam = collections.defaultdict(collections.Counter)
    for r in records:
        key = r["status"] if r["status"] not in ("mismatch", "ours_error") else f"{r['cls']}"
        fam[r["family"]][key] += 1
    lines.append("per family:")
    for f in sorted(fam):
        lines.append(f"  {f:20s} " + ", ".join(f"{k} {v}" for k, v in sorted(fam[f].items())))
    new_bugs = sum(v for (cls, name), v in by_class.items() if cls == "bug" and not name.startswith("known:"))
    return "\n".join(lines), new_bugs


def write_reproducers(path: str, header: str, records: list[dict], text: str) -> None:
    seen: collections.Counter = collections.Counter()
    with open(path, "w") as f:
        f.write(f"{header}\n# {text.splitlines()[0]}\n\n")
        for r in records:
            if r["status"] == "match":
                continue
            key = (r["status"], r["cls"], r["name"])
            keep = (r["cls"] == "bug" or r["status"] in ("xla_crash", "timeout", "harness_error")
                    or seen[key] < SAMPLES_PER_NAME)
            seen[key] += 1
            if keep:
                f.write(r["report"] + "\n\n")


def reclassify(records: list[dict], jobs: int) -> list[dict]:
    """Re-run the records that did not match (with the current classifier); matches are kept."""
    redo = collections.defaultdict(list)
    for r in records:
        if r["status"] in ("mismatch", "ours_error"):
            redo[r.get("seed", 0)].append(r["index"])
    fresh = {}
    for seed, idx in redo.items():
        for r in run(seed, idx, jobs, float("inf"), case_timeout=120.0):
            fresh[(seed, r["index"])] = r
    return [fresh.get((r.get("seed", 0), r["index"]), r) for r in records]


def _load(path: str) -> list[dict]:
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:  # the last line of a killed run
                    continue
                out[(r.get("seed", 0), r["index"])] = r
    return sorted(out.values(), key=lambda r: (r.get("seed", 0), r["index"]))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(int(argv[1]), [int(i) for i in argv[2].split(",") if i])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--time-limit", type=float, default=0.0, help="stop after this many seconds (0: none)")
    ap.add_argument("--out", default="differential_mismatches.txt",
                    help="reproducers; the records go to <out>.jsonl, the counts so far to <out>.counts")
    ap.add_argument("--progress", type=int, default=1000, help="print and save the counts every N cases")
    ap.add_argument("--case-timeout", type=float, default=120.0,
                    help="kill a job whose case runs longer than this (seconds; 0: never) and go on after it")
    ap.add_argument("--summarize", metavar="RECORDS", help="print the counts of a <out>.jsonl file")
    ap.add_argument("--reclassify", action="store_true",
                    help="with --summarize: re-run the cases that did not match with the current classifier")
    args = ap.parse_args(argv)
    try:
        import jax  # noqa: F401
    except ImportError:
        print("error: bench/differential_fuzz.py needs jax (pip install -e '.[oracle]')", file=sys.stderr)
        return 2
    import jaxlib
    import signal

    signal.signal(signal.SIGTERM, _on_signal)
    t0 = time.time()
    if args.summarize:
        try:
            records = _load(args.summarize)
        except OSError as e:
            print(f"error: cannot read {args.summarize}: {e.strerror}", file=sys.stderr)
            return 2
        if args.reclassify:
            records = reclassify(records, max(1, args.jobs))
        seeds = sorted({r.get("seed", 0) for r in records})
        text, new_bugs = summarize(records, time.time() - t0)
        print(f"seed {','.join(map(str, seeds))}, jaxlib {jaxlib.__version__} (records {args.summarize}"
              f"{', reclassified' if args.reclassify else ''})")
        print(text)
        write_reproducers(args.out, f"# bench/differential_fuzz.py --summarize {args.summarize}", records, text)
        print(f"reproducers: {args.out}")
        return 1 if new_bugs else 0

    deadline = t0 + args.time_limit if args.time_limit > 0 else float("inf")
    sink_file = open(args.out + ".jsonl", "w")
    header = (f"# bench/differential_fuzz.py --seed {args.seed} --start {args.start} --cases {args.cases} "
              f"(jaxlib {jaxlib.__version__})")
    seen_records: list[dict] = []

    def sink(rec: dict) -> None:
        sink_file.write(json.dumps(rec) + "\n")
        sink_file.flush()
        seen_records.append(rec)
        if args.progress > 0 and len(seen_records) % args.progress == 0:
            text, _ = summarize(seen_records, time.time() - t0)
            with open(args.out + ".counts", "w") as f:
                f.write(f"{header}\n{text}\n")
            print(f"[progress] {text}", file=sys.stderr, flush=True)

    try:
        records = run(args.seed, list(range(args.start, args.start + args.cases)), max(1, args.jobs), deadline,
                      sink, args.case_timeout)
    finally:
        sink_file.close()
    records.sort(key=lambda r: r["index"])
    text, new_bugs = summarize(records, time.time() - t0)
    print(f"seed {args.seed}, jaxlib {jaxlib.__version__}")
    print(text)
    with open(args.out + ".counts", "w") as f:
        f.write(f"{header}\n{text}\n")
    write_reproducers(args.out, header, records, text)
    print(f"reproducers: {args.out}")
    return 1 if new_bugs else 0


if __name__ == "__main__":
    raise SystemExit(main())
