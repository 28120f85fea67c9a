"""Instructions per op of each step of a bench, on an earlier revision and on the working tree side
by side (callgrind): the steady companion of tools/bench_compare.py's timings.

    python tools/bench_instructions.py BASE WORKLOAD [--new REV] [--size N]

WORKLOAD is one of bench/instructions.py's (`versioning`, `serialization`, `parse_print`,
`interpreter`).  Both
trees run bench/instructions.py under `valgrind --tool=callgrind` at the same time (one process
each), with PYTHONHASHSEED=0; the script marks each step with `os.getppid()`, and
`--dump-before=os_getppid` makes callgrind write one count per stretch between marks.  The table
gives each step's instructions per op in both trees and their ratio.

Why: on a shared machine the same code's timings vary by 10 % and more from run to run, while
its instruction count varies by about 1 % (the addresses that id()-keyed tables hash differ).
Instructions are not time -- memory traffic is not counted -- so a speed target is still
decided by the timing benches (bench_compare); this tells which step changed, and by how much,
when the timings cannot.

Needs valgrind (Debian: `apt-get install valgrind`) and a Python whose binary keeps its symbols
(pyenv's builds do; a stripped one has no `os_getppid` to stop at).  A run takes about a minute
per 1,000 ops of the module (callgrind runs Python some 50 times slower).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

from bench_compare import _BOOTSTRAP, package_dirs, trees  # noqa: E402

SCRIPT = REPO / "bench" / "instructions.py"
_SUMMARY = re.compile(r"^(?:summary|totals): (\d+)", re.M)
_PART = re.compile(r"\.(\d+)$")


def step_counts(out_dir: Path) -> list[int]:
    """The instruction count of each marked step, from callgrind's dumps in `out_dir`.

    Dump k (file suffix `.k`) holds what ran between the (k-1)-th mark and the k-th; the file
    without a suffix, what ran after the last mark.  bench/instructions.py marks before and after
    each step, so the steps are dumps 2, 4, 6, ... (1 is everything before the first step, the
    odd ones after it the garbage collections between steps)."""
    parts: dict[int, int] = {}
    for f in out_dir.glob("callgrind.out.*"):
        m = _PART.search(f.name.removeprefix("callgrind.out."))
        if m is None:
            continue
        total = _SUMMARY.search(f.read_text(errors="replace"))
        if total is None:
            raise SystemExit(f"bench_instructions: {f} holds no instruction total")
        parts[int(m.group(1))] = int(total.group(1))
    if not parts:
        raise SystemExit(
            "bench_instructions: callgrind wrote no per-step counts: this Python's binary has no "
            "symbol os_getppid to stop at (a stripped build?); use one built with its symbols, "
            "e.g. pyenv's"
        )
    return [parts[k] for k in range(2, max(parts) + 1, 2)]


def _run(tree: Path, workload: str, size: int, out_dir: Path) -> subprocess.Popen[bytes]:
    out_dir.mkdir(parents=True)
    cmd = [
        "valgrind", "--tool=callgrind", "--dump-before=os_getppid", "--dump-instr=no",
        f"--callgrind-out-file={out_dir}/callgrind.out.%p",
        sys.executable, "-c", _BOOTSTRAP, str(tree), repr(package_dirs(tree)), str(SCRIPT),
        workload, "--size", str(size),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONHASHSEED="0")
    log = open(out_dir / "log", "wb")
    return subprocess.Popen(cmd, cwd=str(REPO), env=env, stdout=log, stderr=subprocess.STDOUT)


def _ops(out_dir: Path) -> int:
    m = re.search(r"^ops: (\d+)$", (out_dir / "log").read_text(errors="replace"), re.M)
    if m is None:
        tail = (out_dir / "log").read_text(errors="replace")[-2000:]
        raise SystemExit(f"bench_instructions: the run in {out_dir} failed:\n{tail}")
    return int(m.group(1))


def table(names: list[str], base: list[int], new: list[int], n_base: int, n_new: int) -> str:
    """Instructions per op of each step, both trees, and new/base."""
    if len(base) != len(names) or len(new) != len(names):
        raise SystemExit(
            f"bench_instructions: expected {len(names)} steps, found {len(base)} (base) and "
            f"{len(new)} (new) marked stretches"
        )
    rows = [f"{'step':<18}{'base':>12}{'new':>12}{'new/base':>10}"]
    for name, b, n in zip(names, base, new):
        rows.append(f"{name:<18}{b / n_base:>12.0f}{n / n_new:>12.0f}{(n / n_new) / (b / n_base):>10.3f}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(REPO / "bench"))
    from instructions import WORKLOADS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the git revision to compare with (e.g. HEAD~1)")
    ap.add_argument("workload", choices=sorted(WORKLOADS))
    ap.add_argument("--new", metavar="REV", help="compare with this revision, not the working tree")
    ap.add_argument("--size", type=int, default=2000, help="ops in the measured module (2000)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.size < 1:
        ap.error("--size must be at least 1")
    from instructions import step_names

    names = step_names(args.workload)
    with tempfile.TemporaryDirectory(prefix="bench_instr_") as tmp:
        base, new = trees(Path(tmp), args.base, args.new)
        new_label = "the working tree" if args.new is None else args.new
        runs = [_run(tree, args.workload, args.size, Path(tmp) / f"out_{k}")
                for k, tree in enumerate((base, new))]
        for p in runs:
            p.wait()
        n_base, n_new = _ops(Path(tmp) / "out_0"), _ops(Path(tmp) / "out_1")
        counts = [step_counts(Path(tmp) / f"out_{k}") for k in range(2)]
        print(f"instructions per op (callgrind), {args.workload}, {n_new} ops: "
              f"base {args.base}, new {new_label}")
        print(table(names, counts[0], counts[1], n_base, n_new))
    return 0


if __name__ == "__main__":
    sys.exit(main())
