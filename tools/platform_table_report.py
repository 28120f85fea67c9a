"""Issue 25's Done-when table, summarized (tests/oracle/test_platform_table.py).

    python tools/platform_table_report.py [--targets] [PYTEST ARGS...]

Default: runs the table's test module (pytest, with a JUnit XML report in a temporary directory)
and prints, per platform and dtype, how many cells passed, were skipped (JAX does not lower the
function for the platform, or the jax installed is older than the row), failed as expected
(xfail: our interpreter's known gaps, with their reasons) and failed, then the skip and xfail
reasons with their counts.  The exit status is pytest's.

``--targets``: no test run; exports every row for every platform at its first dtype and prints the
custom-call targets each export calls (or why the export raised): the evidence for the table's
``not_lowered`` entries and for the issue note.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEST = "tests/oracle/test_platform_table.py"
CELL = re.compile(r"test_cell\[(?P<row>.+)-(?P<platform>cpu|cuda|rocm|tpu)-(?P<dtype>\w+)\]$")
OUTCOMES = ("pass", "skip", "xfail", "fail")


def targets() -> int:
    sys.path.insert(0, str(REPO))
    from tests.oracle import platform_table as t

    pattern = re.compile(r"stablehlo\.custom_call @([\w$.]+)")
    with t.jax_config({"jax_enable_x64": True}):
        for row in t.ROWS:
            cells = []
            for platform in row.platforms:
                try:
                    text = t.export(row, platform, row.dtypes[0]).mlir_module()
                except Exception as e:  # noqa: BLE001 -- the point is to print it
                    cells.append(f"{platform}: RAISES {type(e).__name__}: {str(e).splitlines()[0][:90]}")
                    continue
                found = sorted(set(pattern.findall(text)) - {"shape_assertion"})
                cells.append(f"{platform}: {', '.join(found) or '-'}")
            print(f"{row.name} [{row.dtypes[0]}]\n    " + "\n    ".join(cells))
    return 0


def outcome(case: ET.Element) -> tuple[str, str]:
    """(pass|skip|xfail|fail, reason) of a JUnit testcase."""
    for tag, kind in (("failure", "fail"), ("error", "fail"), ("skipped", "skip")):
        node = case.find(tag)
        if node is None:
            continue
        message = node.get("message", "")
        if kind == "skip" and node.get("type") == "pytest.xfail":
            return "xfail", message
        if kind == "skip":
            return "skip", re.sub(r"^Skipped: ", "", message)
        return kind, message.splitlines()[0][:120] if message else tag
    return "pass", ""


def report(pytest_args: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "report.xml"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider",
             f"--junitxml={xml}", "-o", "junit_family=xunit1", *pytest_args],
            cwd=REPO, check=False, stdout=subprocess.DEVNULL,
        )
        if not xml.exists():
            print("pytest wrote no report", file=sys.stderr)
            return done.returncode or 1
        cases = ET.parse(xml).getroot().iter("testcase")
        counts: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
        reasons: collections.Counter[tuple[str, str]] = collections.Counter()
        rows: set[str] = set()
        for case in cases:
            m = CELL.search(case.get("name", ""))
            if not m:
                continue
            kind, reason = outcome(case)
            rows.add(m["row"])
            counts[m["platform"], m["dtype"]][kind] += 1
            if kind != "pass":
                reasons[kind, reason] += 1
    import jax  # the jax the test ran with (same interpreter)

    platforms = sorted({p for p, _ in counts}, key=("cpu", "cuda", "rocm", "tpu").index)
    order = ("f32", "f64", "c64", "c128")
    dtypes = sorted({d for _, d in counts}, key=lambda d: (order.index(d) if d in order else len(order), d))
    print(f"jax {jax.__version__}: {len(rows)} functions, {sum(sum(c.values()) for c in counts.values())} cells"
          " (pass/skip/xfail/fail)")
    width = 16
    print("platform  " + "".join(f"{d:>{width}}" for d in dtypes) + f"{'total':>{width}}")
    for p in platforms:
        cells = [counts[p, d] for d in dtypes]
        total = sum(cells, collections.Counter())
        print(f"{p:<10}" + "".join(f"{'/'.join(str(c[k]) for k in OUTCOMES):>{width}}" for c in [*cells, total]))
    grand = sum(counts.values(), collections.Counter())
    print(f"{'total':<10}" + " " * width * len(dtypes) + f"{'/'.join(str(grand[k]) for k in OUTCOMES):>{width}}")
    for (kind, reason), n in sorted(reasons.items()):
        print(f"  {kind} x{n}: {reason}")
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", action="store_true", help="print each export's custom calls")
    args, rest = parser.parse_known_args(argv)
    return targets() if args.targets else report(rest)


if __name__ == "__main__":
    sys.exit(main())
