#!/usr/bin/env python3
"""Mutation testing of one module group with mutmut (docs/MUTATION.md).

    python tools/mutation.py --list                 # the groups ([tool.mutmut.groups.*])
    python tools/mutation.py encoding               # run (resumes; re-tests changed functions)
    python tools/mutation.py encoding --report      # scores and survivors of the last run
    python tools/mutation.py encoding --show NAME   # the diff of one mutant

Why a tool and not a bare ``mutmut run``: mutmut 3 names each mutant after its file's path
(``serialization/mlirbc/encoding.py`` -> ``serialization.mlirbc.encoding``) and its trampolines only
switch to a mutant when that name equals the running function's ``__module__``
(``stablehlo_py.serialization.mlirbc.encoding``).  Our layout maps ``stablehlo_py.serialization`` to
``./serialization`` ([tool.setuptools.package-dir]), so from the repository root no mutant would
ever run.  This tool stages the package as it is installed, ``.mutation/<group>/src/stablehlo_py/``
(real directories, each file a symlink to the repository's), writes that stage's own
pyproject.toml ([tool.mutmut] + the group's paths and tests, [tool.pytest.ini_options]) and runs
mutmut there: mutmut strips ``src.``, puts ``mutants/src`` first on sys.path, and the tests import
the mutated copy (mutmut's forced-fail run proves it: it aborts when no test fails with every
mutant raising).  Results persist in ``.mutation/<group>/mutants`` (git-ignored): a second run
only tests mutants that are new or whose function changed.

Runs with one worker (``--max-children 1``) under ``nice -n 10`` by default, and stops after
``--time-limit`` seconds (default 3600; the next run resumes where it stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = REPO / ".mutation"
DOC = REPO / "docs" / "MUTATION.md"
KILLS = "tests/unit/mutation_kills/"
PACKAGE = "stablehlo_py"
# Repository entries a test may read relative to the repository root (tests/conftest.py's REPO is
# the directory above tests/, i.e. the stage's mutants/); never the package directories.
ROOT_EXTRAS = ("examples", "bench", "README.md", "CHANGELOG.md", "docs", "tools")
_SKIP_DIRS = {"__pycache__"}

# mutmut's exit-code meanings, as its stats module has them; "killed" and "timeout" count as
# detected, "no tests" (no selected test calls the function) as undetected.
_STATUS = {
    1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
    35: "suspicious", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
    37: "caught by type check", -11: "segfault", -9: "segfault", None: "not checked",
}
_DETECTED = ("killed", "timeout", "segfault", "caught by type check")
_ORDER = ("killed", "timeout", "survived", "no tests", "suspicious", "segfault", "skipped",
          "not checked", "equivalent")


def fail(message: str) -> None:
    print(f"tools/mutation.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def load_config() -> tuple[dict, dict, dict[str, str]]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    mut = dict(data.get("tool", {}).get("mutmut", {}))
    groups = mut.pop("groups", {})
    package_dir = data.get("tool", {}).get("setuptools", {}).get("package-dir", {PACKAGE: PACKAGE})
    pytest_ini = data.get("tool", {}).get("pytest", {}).get("ini_options", {})
    return mut, groups, {"pytest": pytest_ini, "package_dir": package_dir}


def staged_path(repo_path: str, package_dir: dict[str, str]) -> str:
    """``serialization/mlirbc/encoding.py`` -> ``src/stablehlo_py/serialization/mlirbc/encoding.py``:
    the longest package-dir mapping whose directory holds the path."""
    norm = repo_path.rstrip("/")
    best = None
    for package, directory in package_dir.items():
        d = directory.rstrip("/")
        if norm == d or norm.startswith(d + "/"):
            if best is None or len(d) > len(best[1]):
                best = (package, d)
    if best is None:
        fail(f"{repo_path!r} is in no package of [tool.setuptools.package-dir]")
    package, d = best
    rest = norm[len(d):].lstrip("/")
    target = "src/" + package.replace(".", "/") + ("/" + rest if rest else "")
    return target + ("/" if repo_path.endswith("/") else "")


def stage_package(stage: Path, package_dir: dict[str, str]) -> None:
    """Lay ``stage/src/stablehlo_py`` out as the installed package: real directories, files as
    symlinks (mutmut reads through them; their mtimes are the sources', so its cache notices edits)."""
    src = stage / "src"
    if src.exists():
        shutil.rmtree(src)
    for package, directory in sorted(package_dir.items(), key=lambda kv: kv[0].count(".")):
        top = REPO / directory
        dest_root = src / package.replace(".", "/")
        for root, dirs, files in os.walk(top):
            rel = Path(root).relative_to(top)
            # a subpackage mapped elsewhere is staged by its own mapping
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info")]
            (dest_root / rel).mkdir(parents=True, exist_ok=True)
            for name in files:
                if name.endswith((".pyc", ".pyo")):
                    continue
                link = dest_root / rel / name
                if not link.exists():
                    link.symlink_to(Path(root) / name)


def toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    fail(f"cannot write {v!r} to the stage's pyproject.toml")
    return ""


def write_stage_config(stage: Path, mut: dict, group: dict, extra: dict, tests: list[str]) -> None:
    package_dir = extra["package_dir"]
    only = []
    for p in group["paths"]:
        s = staged_path(p, package_dir)
        only.append(s + "*" if s.endswith("/") else s)
    settings = dict(mut)
    settings.update(
        source_paths=[f"src/{PACKAGE}"],
        only_mutate=only,
        pytest_add_cli_args_test_selection=tests,
    )
    lines = ["# written by tools/mutation.py for this stage; edit the repository's pyproject.toml",
             "[tool.mutmut]"]
    lines += [f"{k} = {toml_value(v)}" for k, v in settings.items()]
    lines += ["", "[tool.pytest.ini_options]"]
    lines += [f"{k} = {toml_value(v)}" for k, v in extra["pytest"].items() if k != "testpaths"]
    (stage / "pyproject.toml").write_text("\n".join(lines) + "\n")


def link(path: Path, target: Path) -> None:
    if path.is_symlink() or path.exists():
        if path.is_symlink() and path.resolve() == target.resolve():
            return
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    path.symlink_to(target)


def prepare(name: str, group: dict, mut: dict, extra: dict, baseline: bool) -> tuple[Path, list[str]]:
    stage = STAGES / name
    stage.mkdir(parents=True, exist_ok=True)
    stage_package(stage, extra["package_dir"])
    tests = []
    for t in group["tests"]:
        if baseline and t.startswith(KILLS):
            continue
        if (REPO / t).exists():
            tests.append(t)
        else:
            print(f"note: test selection {t} does not exist (yet); left out")
    if not tests:
        fail(f"group {name!r}: none of its tests exists")
    # tests that cannot kill a mutant: a subprocess imports the unmutated installed package
    tests += [f"--deselect={t}" for t in group.get("deselect", [])]
    # the tool's own tests read the repository's pyproject.toml, not the stage's: never collected there
    tests.append(f"--ignore={KILLS}test_mutation_tool.py")
    write_stage_config(stage, mut, group, extra, tests)
    link(stage / "tests", REPO / "tests")
    # tests/conftest.py finds the shared data as REPO.parent / "shared", REPO being mutants/
    link(stage / "shared", REPO.parent / "shared")
    (stage / "mutants").mkdir(exist_ok=True)
    for entry in ROOT_EXTRAS:
        if (REPO / entry).exists():
            link(stage / "mutants" / entry, REPO / entry)
    return stage, tests


def run_mutmut(stage: Path, args: argparse.Namespace) -> int:
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)]
    cmd += args.mutants
    env = dict(os.environ)
    env.pop("MUTANT_UNDER_TEST", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    print(f"[{time.strftime('%H:%M:%S')}] (cd {stage.relative_to(REPO)} && nice -n {args.nice} "
          + " ".join(cmd[1:]) + ")", flush=True)
    proc = subprocess.Popen(cmd, cwd=stage, env=env, start_new_session=True,
                            preexec_fn=lambda: os.nice(args.nice), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        _follow(proc, time.time() + args.time_limit)
        return proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        print(f"time limit ({args.time_limit}s) reached: stopping; the next run resumes", flush=True)
        os.killpg(proc.pid, signal.SIGINT)  # mutmut saves each result as it comes
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return 124
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait()
        return 130


_SPINNER = re.compile("[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ")


def _follow(proc: subprocess.Popen, deadline: float) -> None:
    """Echo mutmut's output without its spinner frames (it redraws them with no newline even
    when not on a terminal): complete lines as they come, the progress line once a minute."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    pending, last_progress, shown_at = "", "", 0.0
    while True:
        left = deadline - time.time()
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, 0)
        if not sel.select(timeout=min(left, 5.0)):
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        pending += chunk.decode("utf-8", "replace")
        *lines, pending = pending.split("\n")
        for line in lines:
            text = _SPINNER.split(line)[-1].strip()
            if text:
                print(text, flush=True)
        frames = _SPINNER.split(pending)
        if len(frames) > 1:
            last_progress, pending = frames[-1].strip(), ""
        if last_progress and time.time() - shown_at >= 60:
            print(f"[{time.strftime('%H:%M:%S')}] {last_progress}", flush=True)
            shown_at = time.time()
    if pending.strip():
        print(pending.strip(), flush=True)


def equivalents() -> dict[str, str]:
    """docs/MUTATION.md's table rows ``| `module.x_func__mutmut_N` | reason |``: mutants that no
    test can kill because the program's behaviour does not change."""
    if not DOC.exists():
        return {}
    found = {}
    for m in re.finditer(r"^\|\s*`([\w.ǁ]+__mutmut_\d+)`\s*\|\s*(.+?)\s*\|\s*$", DOC.read_text(), re.M):
        found[m.group(1)] = m.group(2)
    return found


def results(stage: Path) -> dict[str, dict[str, str]]:
    """{source file: {mutant: status}} from mutmut's .meta files."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted((stage / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        rel = str(meta.relative_to(stage / "mutants"))[: -len(".meta")]
        out[rel] = {k: _STATUS.get(v, "suspicious") for k, v in data["exit_code_by_key"].items()}
    return out


def group_results(stage: Path, group: dict, extra: dict) -> dict[str, dict[str, str]]:
    wanted = [staged_path(p, extra["package_dir"]) for p in group["paths"]]
    return {f: r for f, r in results(stage).items()
            if any(f == w or (w.endswith("/") and f.startswith(w)) for w in wanted)}


def undetected(stage: Path, group: dict, extra: dict) -> list[tuple[str, str]]:
    """(mutant, status) of every mutant neither detected nor listed as equivalent."""
    eq = equivalents()
    return [(k, st) for r in group_results(stage, group, extra).values() for k, st in r.items()
            if st not in _DETECTED and st != "not checked" and k not in eq]


def report(name: str, stage: Path, group: dict, extra: dict) -> int:
    res = group_results(stage, group, extra)
    if not res:
        print(f"group {name}: no results yet (run `python tools/mutation.py {name}`)")
        return 1
    eq = equivalents()
    total: Counter = Counter()
    print(f"group {name}")
    for f, r in res.items():
        c = Counter("equivalent" if k in eq and st not in _DETECTED else st for k, st in r.items())
        total += c
        print(f"  {f[len('src/'):]}: " + ", ".join(f"{c[x]} {x}" for x in _ORDER if c[x]))
        for k in r:
            if k in eq and r[k] in _DETECTED:
                print(f"  note: {k} is listed as equivalent in docs/MUTATION.md but was detected")
    considered = sum(total.values()) - total["equivalent"] - total["not checked"]
    detected = sum(total[x] for x in _DETECTED)
    score = 100.0 * detected / considered if considered else 0.0
    print("  total: " + ", ".join(f"{total[x]} {x}" for x in _ORDER if total[x]))
    print(f"  score: {detected}/{considered} detected = {score:.1f}% (equivalent and not-checked"
          " mutants excluded)")
    left = undetected(stage, group, extra)
    if left:
        print("  undetected (kill with a test in tests/unit/mutation_kills/, or list as equivalent"
              " in docs/MUTATION.md with a reason):")
        for k, st in left:
            print(f"    {st:12} {k}")
    return 0


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--report | head` ends quietly
    mut, groups, extra = load_config()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("group", nargs="?", help="a [tool.mutmut.groups.*] name")
    ap.add_argument("mutants", nargs="*", help="only these mutants (mutmut names; * globs)")
    ap.add_argument("--list", action="store_true", help="list the groups")
    ap.add_argument("--report", action="store_true", help="only print the last run's scores")
    ap.add_argument("--show", metavar="MUTANT", help="print one mutant's diff")
    ap.add_argument("--fresh", action="store_true", help="forget previous results first")
    ap.add_argument("--baseline", action="store_true",
                    help=f"leave out {KILLS} (the score of the other tests; changing this re-runs all)")
    ap.add_argument("--retest", action="store_true",
                    help="re-run the mutants the last run left undetected (after adding tests)")
    ap.add_argument("--max-children", type=int, default=1, help="mutmut workers (default 1)")
    ap.add_argument("--nice", type=int, default=10, help="niceness (default 10)")
    ap.add_argument("--time-limit", type=int, default=3600, help="seconds (default 3600)")
    args = ap.parse_intermixed_args(argv)
    if args.list or not args.group:
        for g, spec in groups.items():
            print(f"{g:12} {' '.join(spec['paths'])}")
        return 0 if args.list else 2
    if args.group not in groups:
        fail(f"unknown group {args.group!r}; groups: {', '.join(groups)}")
    try:
        import mutmut  # noqa: F401
    except ImportError:
        fail("mutmut is not installed: pip install -e '.[dev]'")
    group = groups[args.group]
    stage = STAGES / args.group
    if args.show:
        return subprocess.call([sys.executable, "-m", "mutmut", "show", args.show], cwd=stage)
    if args.report:
        return report(args.group, stage, group, extra)
    if args.fresh and stage.exists():
        shutil.rmtree(stage)
    if args.retest:
        args.mutants = args.mutants + [k for k, _ in undetected(stage, group, extra)]
        if not args.mutants:
            print("nothing to re-test")
            return report(args.group, stage, group, extra)
    stage, _ = prepare(args.group, group, mut, extra, args.baseline)
    start = time.time()
    rc = run_mutmut(stage, args)
    print(f"mutmut exited with {rc} after {time.time() - start:.0f}s")
    report(args.group, stage, group, extra)
    return 0 if rc in (0, 124) else rc


if __name__ == "__main__":
    raise SystemExit(main())
