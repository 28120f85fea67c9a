"""Issue 25's Done-when table, summarized (tests/oracle/test_platform_table.py).

    python tools/platform_table_report.py [--rows] [--targets] [PYTEST ARGS...]

Default: runs the table's test module (pytest, with a JUnit XML report in a temporary directory)
and prints a markdown table of, per platform and dtype (``--rows``: also per row and platform),
how many cells passed, were skipped (JAX does not lower the function for the platform, or the jax
installed is older than the row), failed as expected (xfail: our interpreter's known gaps, with
their reasons) and failed; then the reasons of the cells that did not pass, with their counts.
The exit status is pytest's.

``--targets``: no test run; exports every cell and prints, per row and platform, the custom-call
targets its exports call (or why the export raised): the evidence for the table's ``not_lowered``
entries and for the issue note; then which registered targets no cell reaches.
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
PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
FLOATS = ("f32", "f64", "c64", "c128")


def targets() -> int:
    sys.path.insert(0, str(REPO))
    import textwrap

    from stablehlo_py.interpreter.custom_calls.registry import REGISTRY
    from tests.oracle import platform_table as t

    pattern = re.compile(r"stablehlo\.custom_call @([\w$.]+)")
    reached: set[str] = set()
    with t.jax_config({"jax_enable_x64": True}):
        for row in t.ROWS:
            cells = []
            for platform in row.platforms:
                found: set[str] = set()
                for dtype in row.dtypes:
                    try:
                        text = t.export(row, platform, dtype).mlir_module()
                    except Exception as e:  # noqa: BLE001 -- the point is to print it
                        first = str(e).splitlines()[0][:90]
                        found.add(f"RAISES {type(e).__name__}: {first}")
                        continue
                    found |= set(pattern.findall(text)) - {"shape_assertion"}
                reached |= {f for f in found if not f.startswith("RAISES")}
                cells.append(f"{platform}: {', '.join(sorted(found)) or '-'}")
            print(f"{row.name} [{', '.join(row.dtypes)}]\n    " + "\n    ".join(cells))
    registered = {x.name for x in REGISTRY.targets()}
    print(f"\n{len(reached & registered)} registered targets are reached by the table's exports; "
          f"not reached ({len(registered - reached)}: older forms, other JAX functions, "
          "checks and toolkit targets):")
    print(textwrap.fill(", ".join(sorted(registered - reached)), 100))
    unregistered = reached - registered
    print(f"reached but not registered: {', '.join(sorted(unregistered)) or 'none'}")
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


def _run_pytest(pytest_args: list[str], xml: Path) -> int:
    command = [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider",
               f"--junitxml={xml}", "-o", "junit_family=xunit1", *pytest_args]
    return subprocess.run(command, cwd=REPO, check=False, stdout=subprocess.DEVNULL).returncode


Counts = dict[tuple[str, str], collections.Counter[str]]


def _collect(xml: Path) -> tuple[Counts, Counts, collections.Counter[tuple[str, str]]]:
    """Outcome counts per (platform, dtype) and per (row, platform), and the reasons."""
    by_dtype: Counts = collections.defaultdict(collections.Counter)
    by_row: Counts = collections.defaultdict(collections.Counter)
    reasons: collections.Counter[tuple[str, str]] = collections.Counter()
    for case in ET.parse(xml).getroot().iter("testcase"):
        m = CELL.search(case.get("name", ""))
        if not m:
            continue
        kind, reason = outcome(case)
        by_dtype[m["platform"], m["dtype"]][kind] += 1
        by_row[m["row"], m["platform"]][kind] += 1
        if kind != "pass":
            reasons[kind, reason] += 1
    return by_dtype, by_row, reasons


def _cell(c: collections.Counter[str]) -> str:
    return "/".join(str(c[k]) for k in OUTCOMES) if c else ""


def _table(title: str, keys: list[str], columns: list[str], counts: Counts) -> None:
    """A markdown table: one line per key, one column per column plus the total."""
    print(f"| {title} | " + " | ".join(columns) + " | total |")
    print("|---" * (len(columns) + 2) + "|")
    for key in keys:
        cells = [counts.get((key, c), collections.Counter()) for c in columns]
        total = sum(cells, collections.Counter())
        print(f"| {key} | " + " | ".join(_cell(c) for c in [*cells, total]) + " |")


def report(pytest_args: list[str], rows: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "report.xml"
        status = _run_pytest(pytest_args, xml)
        if not xml.exists():
            print("pytest wrote no report", file=sys.stderr)
            return status or 1
        by_dtype, by_row, reasons = _collect(xml)
    import jax  # the jax the test ran with (the same Python)

    platforms = [p for p in PLATFORMS if any(k[0] == p for k in by_dtype)]
    dtypes = sorted({d for _, d in by_dtype}, key=lambda d: (d not in FLOATS, d))
    dtypes = [d for d in FLOATS if d in dtypes] + [d for d in dtypes if d not in FLOATS]
    grand = sum(by_dtype.values(), collections.Counter())
    names = sorted({r for r, _ in by_row})
    print(f"jax {jax.__version__}: {len(names)} rows, {sum(grand.values())} cells; "
          f"each cell is {'/'.join(OUTCOMES)}; total {_cell(grand)}\n")
    _table("platform", platforms, dtypes, by_dtype)
    if rows:
        print()
        _table("row", names, platforms, by_row)
    print()
    for (kind, reason), n in sorted(reasons.items()):
        print(f"- {kind} x{n}: {reason}")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", action="store_true", help="print each export's custom calls")
    parser.add_argument("--rows", action="store_true", help="also print the counts per row")
    args, rest = parser.parse_known_args(argv)
    return targets() if args.targets else report(rest, args.rows)


if __name__ == "__main__":
    sys.exit(main())
