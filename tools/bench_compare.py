"""Run a bench script side by side on an earlier commit and on the working tree, alternately, in one
run (speed targets are ratios measured this way, never timed tests).

    python tools/bench_compare.py BASE bench/parse_print.py [--rounds 3] [--new REV] [-- SCRIPT ARGS...]

BASE is any git revision (e.g. HEAD~1, the commit before a change).  Its tree is exported with
`git archive` to a temporary directory; the script of the working tree then runs `--rounds` times
with `stablehlo_py` imported from that tree and as many times from the working tree, alternating
(base, new, base, new, ...) so that the machine's load changes hit both alike.  Each run's output is
printed under a header naming the tree and the round.  The bench script itself is the working
tree's in both runs (its options must exist in both versions of the package it imports).
``--new REV`` compares two revisions (both exported), e.g. a commit and its parent while the working
tree holds unrelated edits.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Imports stablehlo_py (and its subpackages mapped to their own folders, pyproject's package-dir)
# from TREE, then runs SCRIPT as __main__; refuses to report a run that imported the package from
# anywhere else.
_BOOTSTRAP = r"""
import importlib.abc, importlib.util, runpy, sys
from pathlib import Path
tree, mapping, script, args = Path(sys.argv[1]), eval(sys.argv[2]), sys.argv[3], sys.argv[4:]

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in mapping:
            d = tree / mapping[name]
            return importlib.util.spec_from_file_location(
                name, d / "__init__.py", submodule_search_locations=[str(d)])
        return None

sys.meta_path.insert(0, Finder())
sys.argv = [script, *args]
sys.path[0] = str(Path(script).resolve().parent)
try:
    runpy.run_path(script, run_name="__main__")
finally:
    loaded = sys.modules.get("stablehlo_py")
    if loaded is not None and not Path(loaded.__file__).resolve().is_relative_to(tree.resolve()):
        sys.exit(f"bench_compare: stablehlo_py came from {loaded.__file__}, not {tree}")
"""


def package_dirs(root: Path) -> dict[str, str]:
    return tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def export(rev: str, dest: Path) -> None:
    """`git archive REV` unpacked into DEST; a clear error for an unknown revision."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True)
    if archive.returncode != 0:
        sys.exit(f"bench_compare: cannot export {rev!r}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def trees(tmp: Path, base_rev: str, new_rev: str | None) -> tuple[Path, Path]:
    """The base revision exported under `tmp`, and the new one (exported too, or the working tree
    when `new_rev` is None)."""
    base = tmp / "base"
    base.mkdir()
    export(base_rev, base)
    if new_rev is None:
        return base, REPO
    new = tmp / "new"
    new.mkdir()
    export(new_rev, new)
    return base, new


def run_once(tree: Path, script: Path, args: list[str]) -> int:
    mapping = repr(package_dirs(tree))
    cmd = [sys.executable, "-c", _BOOTSTRAP, str(tree), mapping, str(script), *args]
    return subprocess.run(cmd, cwd=str(REPO)).returncode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the git revision to compare with (e.g. HEAD~1)")
    ap.add_argument("script", type=Path, help="the bench script (e.g. bench/parse_print.py)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each tree, alternating (default 3)")
    ap.add_argument(
        "--new",
        metavar="REV",
        help="compare with this revision instead of the working tree (e.g. while others edit it)",
    )
    args = ap.parse_args(argv)
    script = args.script if args.script.is_absolute() else REPO / args.script
    if not script.is_file():
        ap.error(f"no such bench script: {args.script}")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench_base_") as tmp:
        base, new = trees(Path(tmp), args.base, args.new)
        new_label = "new (working tree)" if args.new is None else f"new {args.new}"
        for k in range(1, args.rounds + 1):
            for label, tree in ((f"base {args.base}", base), (new_label, new)):
                print(f"=== {label}, round {k}/{args.rounds}", flush=True)
                rc = run_once(tree, script, extra)
                if rc != 0:
                    print(f"bench_compare: the {label} run exited with {rc}", file=sys.stderr)
                    return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
