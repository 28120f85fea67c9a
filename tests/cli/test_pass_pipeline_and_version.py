"""`stablehlo-opt --pass-pipeline=...` (MLIR's textual pipelines, upstream's registered pipelines) and
`stablehlo-translate --deserialize --print-stablehlo-version` (upstream's comment line), as
subprocesses; `--deserialize` of MLIR text as upstream's (it parses text too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.passes.drivers.pipeline import parse_pass_pipeline

BIN = Path(sys.executable).parent
OPT, TRANSLATE = str(BIN / "stablehlo-opt"), str(BIN / "stablehlo-translate")
PROGRAM = """func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  func.return %0 : tensor<f32>
}
"""


def run(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(list(argv), input=stdin, capture_output=True, timeout=300)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("builtin.module(inline)", [("inline", {})]),
        (
            "builtin.module(func.func(canonicalize{top-down=false max-iterations=3}), inline)",
            [("canonicalize", {"top-down": "false", "max-iterations": "3"}), ("inline", {})],
        ),
        (
            "builtin.module(stablehlo-deserialize)",
            [("vhlo-to-version", {"target": "current"}), ("vhlo-legalize-to-stablehlo", {})],
        ),
        ("'builtin.module(vhlo-to-version{target=1.0.0})'", [("vhlo-to-version", {"target": "1.0.0"})]),
    ],
)
def test_parse_pass_pipeline(text: str, expect: list) -> None:
    assert parse_pass_pipeline(text) == expect


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("builtin.module(nope)", "'nope' in --pass-pipeline does not refer to a registered pass"),
        ("builtin.module(inline", "is not `op-name(pass, ...)`"),
        ("builtin.module(canonicalize{top-down=false)", "has no closing '}'"),
        ("builtin.module(stablehlo-deserialize{x=1})", "takes no options"),
    ],
)
def test_parse_pass_pipeline_refusals(text: str, message: str) -> None:
    with pytest.raises(StableHLOError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pass_pipeline(text)


def test_stablehlo_deserialize_pipeline_on_an_artifact(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    art = run(TRANSLATE, "--serialize", "--target=1.0.0", str(src))
    assert art.returncode == 0, art.stderr
    out = run(OPT, "--pass-pipeline=builtin.module(stablehlo-deserialize)", stdin=art.stdout)
    assert out.returncode == 0, out.stderr
    assert b"stablehlo.add %arg0, %arg0 : tensor<f32>" in out.stdout and b"vhlo." not in out.stdout
    bad = run(OPT, "--pass-pipeline=builtin.module(bogus)", str(src))
    assert bad.returncode == 1 and b"Traceback" not in bad.stderr
    assert b"'bogus' in --pass-pipeline" in bad.stderr


def test_print_stablehlo_version_when_deserializing(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    art = run(TRANSLATE, "--serialize", "--target=1.4.0", str(src))
    out = run(TRANSLATE, "--deserialize", "--print-stablehlo-version", stdin=art.stdout)
    assert out.returncode == 0, out.stderr
    first, rest = out.stdout.decode().split("\n", 1)
    assert first == "// Reading portable artifact with StableHLO version: 1.4.0"
    assert "stablehlo.add" in rest
    # MLIR text has no version to read; it is still deserialized, as upstream does
    out = run(TRANSLATE, "--deserialize", "--print-stablehlo-version", str(src))
    assert out.returncode == 0, out.stderr
    first, rest = out.stdout.decode().split("\n", 1)
    assert first == "// Failed parsing StableHLO version from portable artifact"
    assert "stablehlo.add %arg0, %arg0" in rest
    # alone, the flag prints the current version
    from stablehlo_py.version import get_current_version

    alone = run(TRANSLATE, "--print-stablehlo-version")
    assert alone.stdout.decode().strip() == str(get_current_version())


def test_deserialize_reads_vhlo_text(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    vhlo = run(OPT, "--stablehlo-legalize-to-vhlo", "--vhlo-to-version=target=1.0.0", str(src))
    assert b"vhlo.add_v1" in vhlo.stdout
    out = run(TRANSLATE, "--deserialize", stdin=vhlo.stdout)
    assert out.returncode == 0, out.stderr
    assert b"stablehlo.add %arg0, %arg0 : tensor<f32>" in out.stdout


def test_deserialize_of_bytes_that_are_no_program_still_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.shlo"
    bad.write_bytes(b"garbage")
    out = run(TRANSLATE, "--deserialize", str(bad))
    assert out.returncode == 1 and b"not a StableHLO portable artifact" in out.stderr
