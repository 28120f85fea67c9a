"""Every interpret/ and testdata/ program on quantized types passes also after
`stablehlo-legalize-quant-to-math` (issue 13): the program is lowered to integer and float math (no
`!quant.uniform` left) and then run as tests/conformance/test_interpret.py runs it, check ops
included.

- interpret/: each interpreting RUN line (`stablehlo-translate --interpret ... %s`) gets the file
  through `stablehlo-opt --stablehlo-legalize-quant-to-math` first (chunk by chunk when the RUN line
  splits the input), as a subprocess like lit.
- testdata/: `@main` of the lowered module runs in-process and every check must pass.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.conformance.runlines import execute
from tests.conformance.test_interpret import INTERPRET, TESTDATA, interpret_commands

PASS = "--stablehlo-legalize-quant-to-math"


def _quantized(paths: list[Path]) -> list[Path]:
    return [p for p in paths if "!quant.uniform" in p.read_text()]


QUANT_INTERPRET = _quantized(INTERPRET)
QUANT_TESTDATA = _quantized(TESTDATA)


def lowered_commands(path: Path) -> list[str]:
    """The file's interpreting RUN lines, each reading the lowered program from a pipe."""
    out = []
    for cmd in interpret_commands(path):
        if "--interpret" not in cmd or "%s" not in cmd:
            continue
        split = " -split-input-file" if "split-input-file" in cmd else ""
        out.append(
            f"stablehlo-opt {PASS}{split} %s | " + cmd.replace(" %s", " -").replace("%s", "-")
        )
    return out


@pytest.mark.skipif(not QUANT_INTERPRET, reason="../shared/conformance/interpret is absent")
@pytest.mark.parametrize("path", QUANT_INTERPRET, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_interpret_file_after_quant_to_math(path: Path) -> None:
    commands = lowered_commands(path)
    assert commands, f"{path.name} has no interpreting RUN line"
    with tempfile.TemporaryDirectory() as tmp:
        lowered = execute(f"stablehlo-opt {PASS} -split-input-file %s", path, Path(tmp) / "o")
        assert lowered.returncode == 0, lowered.stderr[-3000:]
        assert "quant.uniform" not in lowered.stdout, "quantized types left after the pass"
        for cmd in commands:
            r = execute(cmd, path, Path(tmp) / "out")
            assert r.returncode == 0, (
                f"RUN: {cmd}\nstdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-3000:]}"
            )


@pytest.mark.skipif(not QUANT_TESTDATA, reason="no testdata program uses quantized types")
@pytest.mark.parametrize("path", QUANT_TESTDATA, ids=lambda p: p.name)
def test_testdata_after_quant_to_math(path: Path) -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    module = run_pipeline(parse(path.read_text(), str(path)), [(PASS[2:], {})])
    verify(module)
    ev = Evaluator(module)
    ev.call("main", [])
    assert not ev.failures, "\n".join(str(f) for f in ev.failures)


def test_lowered_commands_pipe_the_pass() -> None:
    if not QUANT_INTERPRET:
        pytest.skip("../shared/conformance/interpret is absent")
    for path in QUANT_INTERPRET:
        for cmd in lowered_commands(path):
            assert cmd.startswith(f"stablehlo-opt {PASS}"), cmd
            assert cmd.count("%s") == 1, cmd
