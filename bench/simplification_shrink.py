"""How much `stablehlo-aggressive-simplification` shrinks upstream's testdata programs, and whether
each still interprets to the same results (issue 13).

    python bench/simplification_shrink.py [--no-interpret] [--every N] [--smoke] [TESTDATA_DIR]

Each program is read as its RUN line does (`-inline`; CHLO programs lowered first), its ops counted
(nested ones included; module, functions and func.return not counted), simplified, counted again;
unless --no-interpret, it is interpreted before and after and the results and checks compared.
Prints the totals, the programs that shrank most, and every program with a problem.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conformance.simplify_meaning import check_program

# upstream's tests, next to the repository or where $STABLEHLO_PY_SHARED says (as tests/conftest.py)
SHARED = Path(
    os.environ.get("STABLEHLO_PY_SHARED") or Path(__file__).resolve().parents[2] / "shared"
)
DEFAULT = SHARED / "conformance" / "testdata"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("testdata", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--no-interpret", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="every Nth program (sorted by name)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    a = ap.parse_args()
    if a.smoke:  # 4 programs spread over the sorted list
        a.every = max(1, len(list(a.testdata.glob("*.mlir"))) // 4)
    paths = sorted(a.testdata.glob("*.mlir"))[:: a.every]
    if not paths:
        print(
            f"error: no upstream test programs (*.mlir) in {a.testdata}; give their folder, or set "
            "STABLEHLO_PY_SHARED to the folder holding conformance/testdata",
            file=sys.stderr,
        )
        return 2
    before = after = shrunk = grown = 0
    problems: list[str] = []
    gains: list[tuple[int, str]] = []
    t0 = time.perf_counter()
    for p in paths:
        try:
            o = check_program(p, interpret=not a.no_interpret)
        except Exception as e:  # noqa: BLE001 - reported per program
            problems.append(f"{p.name}: {type(e).__name__}: {str(e)[:300]}")
            continue
        before += o.ops_before
        after += o.ops_after
        if o.ops_after < o.ops_before:
            shrunk += 1
            gains.append((o.ops_before - o.ops_after, p.name))
        elif o.ops_after > o.ops_before:
            grown += 1
        problems += [f"{p.name}: {x}" for x in o.problems]
    dt = time.perf_counter() - t0
    print(f"programs: {len(paths)}  time: {dt:.1f} s")
    print(
        f"ops before: {before}  after: {after}  removed: {before - after} "
        f"({100.0 * (before - after) / max(before, 1):.2f} %)  programs shrunk: {shrunk}, grown: {grown}"
    )
    for g, name in sorted(gains, reverse=True)[:10]:
        print(f"  -{g:5d}  {name}")
    print(f"programs with a problem: {len(problems)}")
    for x in problems:
        print("  " + x)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
