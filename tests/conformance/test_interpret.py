"""The reference interpreter on upstream's conformance suites (../shared/conformance, never copied here).

- `testdata/`: each program's `@main` runs in-process (`Evaluator`) and every `check.*` custom call
  in it must pass.  As upstream's RUN line, CHLO programs are first lowered by
  `--chlo-pre-serialization-pipeline`; the interpreter calls functions itself, so `-inline` is not
  needed.  The CHLO programs also run natively (the interpreter runs CHLO ops), and must give the
  same bits as their lowered form.
- `interpret/`: each file's `// RUN:` lines run as lit would (FileCheck included), lowering passes
  included.  A pass this toolkit does not implement (`--stablehlo-legalize-composite-to-call`), or a
  CHLO op whose decomposition is missing (listed in `LOWERING_MISSING`, xfail strict), is covered by
  interpreting the source directly instead (`test_interpret_file_natively`): the interpreter runs
  CHLO ops and composites natively.

Skips cleanly when ../shared/conformance is absent (a user's clone).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import conformance_files

TESTDATA = conformance_files("testdata")
INTERPRET = conformance_files("interpret")

# Programs whose checked result depends on implementation-defined numerics; each is listed with its
# reason and marked xfail(strict=True), so a fix shows up as an unexpected pass.
IMPLEMENTATION_DEFINED: dict[str, str] = {
    # upstream: RUN-DISABLED(no interpreter support).  4-d f32 FFTs: XLA's single-precision FFT
    # (ducc) rounds differently from numpy's pocketfft (computing in f64 does not help either);
    # elements near zero differ by more than the 3 ULP that @check.expect_close allows.
    "fft_complex64_14_15_16_17.mlir": "f32 FFT rounding is the FFT algorithm's (upstream disables it)",
    "fft_float32_14_15_16_17.mlir": "f32 FFT rounding is the FFT algorithm's (upstream disables it)",
    # upstream: RUN-DISABLED(inaccurate).  complex64 power/sine of large magnitude (|z| ~ 1e5): the
    # last bits of XLA's complex64 formulas exceed @check.expect_almost_eq's absolute 1e-3.
    "pow_complex64_20_30_complex64_20_30.mlir": "complex64 pow accuracy (upstream disables it)",
    "sin_complex64_20_20.mlir": "complex64 sine accuracy (upstream disables it)",
    # upstream: RUN-DISABLED(#2497).  The expected values hold NaN, and check.expect_eq compares as
    # upstream's evalExpectEqOp does, with IEEE `==`: NaN equals nothing, so upstream fails it too.
    "top_k_float32_5_chlo.mlir": "expect_eq on NaN fails under IEEE == (upstream disables it)",
}


def _testdata_params() -> list[object]:
    out: list[object] = []
    for p in TESTDATA:
        reason = IMPLEMENTATION_DEFINED.get(p.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(p, id=p.name, marks=marks))
    return out


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", _testdata_params())
def test_testdata_interprets(path: Path) -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    module = parse(path.read_text(), str(path))
    verify(module)
    if any(CHLO_PIPELINE in r for r in run_lines(path)):
        from stablehlo_py.passes import run_pipeline

        module = run_pipeline(module, [(CHLO_PIPELINE, {})])
    ev = Evaluator(module)
    ev.call("main", [])
    assert not ev.failures, "\n".join(str(f) for f in ev.failures)


CHLO_PIPELINE = "chlo-pre-serialization-pipeline"
CHLO_TESTDATA = [p for p in TESTDATA if any(CHLO_PIPELINE in r for r in run_lines(p))]


@pytest.mark.skipif(not CHLO_TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", CHLO_TESTDATA, ids=lambda p: p.name)
def test_chlo_native_equals_lowered(path: Path) -> None:
    """The interpreter's CHLO ops and the StableHLO they lower to compute the same bits (the
    decompositions are one set of functions, evaluated or emitted)."""
    from stablehlo_py.interpreter.evaluator import Evaluator
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py.ir import parse

    def results(module: object) -> list[bytes]:
        ev = Evaluator(module)  # type: ignore[arg-type]
        out = ev.call("main", [])  # (the checks' verdicts are test_testdata_interprets')
        return [r.tobytes() + str(r.dtype).encode() for r in out]

    text = path.read_text()
    native = parse(text, str(path))
    lowered = run_pipeline(parse(text, str(path)), [(CHLO_PIPELINE, {})])
    assert not any(o.name.startswith("chlo.") for o in lowered.walk())
    assert results(native) == results(lowered)


def test_implementation_defined_list_names_real_files() -> None:
    if not TESTDATA:
        pytest.skip("../shared/conformance/testdata is absent")
    names = {p.name for p in TESTDATA}
    assert set(IMPLEMENTATION_DEFINED) <= names


# ------------------------------------------------------------------------------------- interpret/

# stablehlo-opt lowerings the interpreter can do without (it runs their inputs natively)
_NATIVE_PASSES = ("--chlo-legalize-to-stablehlo", "--stablehlo-legalize-composite-to-call")
# ... of which this toolkit implements
_IMPLEMENTED_PASSES = ("--chlo-legalize-to-stablehlo",)

# interpret/ files whose lowering RUN line needs a CHLO decomposition stablehlo-opt does not have
# yet (the pass says so with a "not supported" error); they run natively in
# test_interpret_file_natively.
LOWERING_MISSING: dict[str, str] = {}


def interpret_commands(path: Path, native: bool = False) -> list[str]:
    """The file's RUN lines; stablehlo-opt lowerings the toolkit lacks (all of them if `native`)
    are replaced by the source itself."""
    replaced = (
        _NATIVE_PASSES
        if native
        else tuple(p for p in _NATIVE_PASSES if p not in _IMPLEMENTED_PASSES)
    )
    commands = []
    lowered_to: str | None = None
    for cmd in run_lines(path):
        head = cmd.split("|")[0]
        if head.strip().startswith("stablehlo-opt") and any(p in head for p in replaced):
            if ">" in cmd and "|" not in cmd:
                lowered_to = cmd.split(">")[-1].strip()  # e.g. %t.mlir, read by the next lines
                continue
            rest = cmd.split("|", 1)[
                1
            ].strip()  # `stablehlo-opt <pass> %s | stablehlo-translate ...`
            commands.append(rest + " %s" if "%s" not in rest else rest)
            continue
        if lowered_to is not None:
            cmd = cmd.replace(lowered_to, "%s")
        commands.append(cmd)
    return commands


def _interpret_params() -> list[object]:
    out: list[object] = []
    for p in INTERPRET:
        reason = LOWERING_MISSING.get(p.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(p, id=str(p.relative_to(p.parents[1])), marks=marks))
    return out


@pytest.mark.skipif(not INTERPRET, reason="../shared/conformance/interpret is absent")
@pytest.mark.parametrize("path", _interpret_params())
def test_interpret_file(path: Path) -> None:
    _run_commands(path, interpret_commands(path))


LOWERED = [p for p in INTERPRET if any(n in r for r in run_lines(p) for n in _NATIVE_PASSES)]


@pytest.mark.skipif(not LOWERED, reason="../shared/conformance/interpret is absent")
@pytest.mark.parametrize("path", LOWERED, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_interpret_file_natively(path: Path) -> None:
    """Files upstream lowers first, interpreted from the source (CHLO ops and composites run
    natively)."""
    _run_commands(path, interpret_commands(path, native=True))


def _run_commands(path: Path, commands: list[str]) -> None:
    assert commands, f"{path.name} has no RUN line"
    with tempfile.TemporaryDirectory() as tmp:
        for cmd in commands:
            r = execute(cmd, path, Path(tmp) / "out")
            assert r.returncode == 0, (
                f"RUN: {cmd}\nstdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-3000:]}"
            )


@pytest.mark.skipif(not INTERPRET, reason="../shared/conformance/interpret is absent")
def test_interpret_commands_replace_lowerings() -> None:
    for path in INTERPRET:
        for cmd in interpret_commands(path, native=True):
            assert not any(p in cmd for p in _NATIVE_PASSES), (path.name, cmd)
            assert "%t.mlir" not in cmd, (path.name, cmd)
