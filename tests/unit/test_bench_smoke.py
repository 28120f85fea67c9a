"""The bench/ scripts run in their smoke mode (`--smoke`: tiny sizes, one repetition, the same code
paths), as a user runs them (`python bench/X.py --smoke`, a subprocess from the repository root), so
that they cannot rot: each exits 0, prints no traceback and prints its table.  No timing is judged.

Scripts that need jax run in tests/oracle/test_bench_smoke_oracle.py; the others run here (where jax
is installed they take their optional JAX columns too).  `test_every_script_is_smoked` keeps the two
lists complete: a new bench/ script must join one of them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
from tests.conftest import CONFORMANCE  # noqa: E402


@dataclass(frozen=True)
class Smoke:
    argv: tuple[str, ...]
    table: tuple[str, ...]  # regexes, each must match a line of stdout (re.M)
    needs_conformance: bool = False
    exit_codes: tuple[int, ...] = (0,)


def run_smoke(script: str, smoke: Smoke, tmp_path: Path) -> str:
    """Run `python bench/<script>.py <argv>`; check its exit status, no traceback, its table."""
    if smoke.needs_conformance and not CONFORMANCE.is_dir():
        pytest.skip(f"bench/{script}.py reads upstream's programs: {CONFORMANCE} is absent")
    env = {k: v for k, v in os.environ.items() if k != "STABLEHLO_PY_ARTIFACT_FORMAT"}
    argv = [a.replace("{tmp}", str(tmp_path)) for a in smoke.argv]
    proc = subprocess.run(
        [sys.executable, str(BENCH / f"{script}.py"), *argv],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    where = f"bench/{script}.py {' '.join(argv)}"
    assert proc.returncode in smoke.exit_codes, f"{where} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, f"{where}:\n{proc.stderr[-3000:]}"
    for pattern in smoke.table:
        assert re.search(pattern, proc.stdout, re.M), f"{where} printed no line matching {pattern!r}:\n{proc.stdout}"
    return proc.stdout


NUM = r"-?\d+(?:\.\d+)?"

SMOKES: dict[str, Smoke] = {
    "builder": Smoke(("--smoke",), (
        r"^module: \d+ ops",
        rf"^builder\s+{NUM} µs/op",
        rf"^parse the printed text\s+{NUM} µs/op\s+builder/parse = {NUM}x",
        r"^where the builder's time goes",
        rf"^  result-type inference\s+{NUM} µs",
    )),
    "parse_print": Smoke(("--smoke",), (
        r"^input\s+ops\s+MB \| parse µs/op",
        rf"^generated 200-op module\s+\d+\s+{NUM} \|\s+{NUM}",
    )),
    "serialization": Smoke(("--smoke",), (
        r"^== generated 100-op module: \d+ ops",
        rf"^  write\s+ours\s+{NUM} ms",
        rf"^  read mlir\s+ours\s+{NUM} ms",
        rf"^  size mlir\s+ours\s+{NUM} KB",
        r"^  ours breakdown: write = ",
    )),
    "versioning": Smoke(("--smoke",), (
        rf"^\s+\d+ ops: legalize\s+{NUM} \(\s*{NUM}\) µs/op\s+downgrade .* back\s+{NUM}",
        r"^per-op cost at \d+ / at \d+ ops: legalize",
        rf"^whole round trip at \d+ ops: {NUM} µs/op",
    )),
    "scale": Smoke(("--smoke",), (
        r"^dense step\s+1 MB\s+large/small",
        r"^ops step\s+200 ops\s+large/small",
        *(rf"^{step}\s+{NUM}\s+{NUM}" for step in ("parse", "verify", "print", "write msgpack",
                                                    "read mlirbc", "interpret")),
        rf"^total seconds\s+{NUM}",
    )),
    "fuzz_artifacts": Smoke(("--smoke", "--out", "{tmp}/findings"), (
        r"^40 mutated msgpack artifacts in ",
        r"^accepted \d+ \(.*\), refused with StableHLOError \d+, findings \(any other exception\) 0$",
        r"^most common refusals:",
    )),
    "fuzz_builder": Smoke(("--smoke",), (
        rf"^200 cases in {NUM} s \(\d+/s\), 0 kinds of finding$",
        r"^  elementwise\s+accepted\s+\d+\s+refused\s+\d+",
    )),
    "fuzz_text": Smoke(("--smoke", "--out", "{tmp}/findings"), (
        r"^cases: 20 in ",
        r"^accepted \(parsed and verified\): \d+, refused: \d+",
        r"^mutation mix: ",
        r"^findings: 0$",
    ), needs_conformance=True),
    "simplification_shrink": Smoke(("--smoke",), (
        r"^programs: [45]  time: ",
        r"^ops before: \d+  after: \d+  removed: ",
        r"^programs with a problem: 0$",
    ), needs_conformance=True),
    "instructions": Smoke(("serialization", "--smoke"), (
        r"^ops: \d+$",
        r"^steps: write msgpack, read msgpack, write mlir, read mlir$",
    )),
}

# in tests/oracle/test_bench_smoke_oracle.py (they need jax)
ORACLE_SCRIPTS = ("interpreter", "differential_fuzz")


@pytest.mark.parametrize("script", SMOKES)
def test_bench_script_smoke(script: str, tmp_path: Path) -> None:
    run_smoke(script, SMOKES[script], tmp_path)


def test_every_script_is_smoked() -> None:
    scripts = {p.stem for p in BENCH.glob("*.py")}
    assert scripts == set(SMOKES) | set(ORACLE_SCRIPTS), (
        "a bench/ script without a smoke test (or a test of a script that is gone): "
        f"{sorted(scripts ^ (set(SMOKES) | set(ORACLE_SCRIPTS)))}"
    )
    for script in scripts - {"differential_fuzz"}:  # that one takes --cases (see the oracle test)
        assert "--smoke" in (BENCH / f"{script}.py").read_text(), script


def test_bench_compare_runs_a_script_on_two_trees() -> None:
    """tools/bench_compare.py (issue 24's side-by-side measure): the script runs on an exported earlier
    tree and on the working tree, alternately; the base run must import the exported package (the tool
    refuses a run that imported it from elsewhere)."""
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout: bench_compare exports a revision with git archive")
    proc = subprocess.run(
        [sys.executable, "tools/bench_compare.py", "HEAD", "bench/versioning.py", "--rounds", "1",
         "--", "--smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    headers = re.findall(r"^=== (.*)$", proc.stdout, re.M)
    assert headers == ["base HEAD, round 1/1", "new (working tree), round 1/1"], proc.stdout[-2000:]
    assert "Traceback" not in proc.stderr
    two = subprocess.run(
        [sys.executable, "tools/bench_compare.py", "HEAD", "bench/versioning.py", "--rounds", "1",
         "--new", "HEAD", "--", "--smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert two.returncode == 0, two.stderr[-2000:]
    assert re.findall(r"^=== (.*)$", two.stdout, re.M) == ["base HEAD, round 1/1", "new HEAD, round 1/1"]
    bad = subprocess.run([sys.executable, "tools/bench_compare.py", "no-such-revision", "bench/versioning.py"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "cannot export 'no-such-revision'" in bad.stderr


def test_bench_instructions_reads_callgrinds_dumps_per_step(tmp_path: Path) -> None:
    """tools/bench_instructions.py: the marked steps are callgrind's even-numbered dumps; the table
    is per op with new/base; a missing valgrind or a run without marks is a clear error."""
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_instructions as bi

    for k, total in {1: 900, 2: 100, 3: 7, 4: 300, 5: 7, 6: 50}.items():
        (tmp_path / f"callgrind.out.42.{k}").write_text(f"events: Ir\nsummary: {total}\n")
    (tmp_path / "callgrind.out.42").write_text("events: Ir\nsummary: 5\n")
    assert bi.step_counts(tmp_path) == [100, 300, 50]
    got = bi.table(["a", "b", "c"], [100, 300, 50], [110, 300, 25], 10, 10)
    assert re.search(r"^a\s+10\s+11\s+1\.100$", got, re.M), got
    assert re.search(r"^c\s+5\s+2\s+0\.500$", got, re.M), got
    with pytest.raises(SystemExit, match="expected 2 steps"):
        bi.table(["a", "b"], [1, 2, 3], [1, 2, 3], 1, 1)
    with pytest.raises(SystemExit, match="no symbol os_getppid"):
        bi.step_counts(tmp_path / "nothing")
    env = dict(os.environ, PATH=str(tmp_path))  # no valgrind on it
    proc = subprocess.run([sys.executable, "tools/bench_instructions.py", "HEAD", "versioning"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "valgrind is not installed" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
