"""Portable artifacts over every conformance program (issue 5, "Done when"):

* serialize at the current version -> deserialize -> print is identical to the original's print
  (upstream's RUN line: `stablehlo-translate --serialize --target=current %s | stablehlo-translate
  --deserialize | stablehlo-opt` vs `stablehlo-opt %s`), and the deserialized program interprets
  identically to the original (same results, same check outcomes; when upstream interprets it);
* the same print at every target from the program's minimum version to the current one, and a
  version error naming the blocker below it (the targets that fail form a prefix of the release log).
  Interpreting at every target is implied: the printed programs are identical.
* the same in upstream's format (MLIR bytecode, issue 9) at the first target of each bytecode
  version and the three newest releases: the artifact reads back to the same print, and reading it
  then writing it again (VHLO level) reproduces the bytes.  (The oracle test compares the bytes with
  jaxlib's at every target.)

Programs upstream prepares with `--chlo-pre-serialization-pipeline` run it first when our pass table
has it, and are skipped (with that reason) otherwise.  Skips cleanly without ../shared.

Every target for every program takes ~14 CPU minutes (half of the whole suite): CI runs the
every-target check on a deterministic sample (every 2nd program by name; every program still runs
at the current target), and on all programs with STABLEHLO_PY_FULL_SERIALIZATION=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.conformance.runlines import run_lines
from tests.conformance.test_roundtrip import TESTDATA

CHLO_PIPELINE = "chlo-pre-serialization-pipeline"
EVERY_TARGET_SAMPLE = 1 if os.environ.get("STABLEHLO_PY_FULL_SERIALIZATION") else 2


def _program(path: Path) -> tuple[str, bool]:
    """(StableHLO text as upstream serializes it, whether upstream interprets it)."""
    from stablehlo_py.passes import PASSES, run_pipeline

    text = path.read_text()
    runs = run_lines(path)
    interpret = any("--interpret" in r for r in runs)
    if any(CHLO_PIPELINE in r for r in runs):
        if CHLO_PIPELINE not in PASSES:
            pytest.skip(
                f"upstream runs --{CHLO_PIPELINE} first, which stablehlo-py does not implement"
            )
        module = parse(text, str(path))
        verify(module)
        text = print_ir(run_pipeline(module, [(CHLO_PIPELINE, {})]))
    return text, interpret


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_round_trip_at_current(path: Path) -> None:
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact_str,
    )

    text, interpret = _program(path)
    expected = print_ir(parse(text, str(path)))
    data = serialize_portable_artifact_str(text, "current", name=str(path))
    module = deserialize_portable_artifact(data, name=path.name)
    assert print_ir(module) == expected
    mlir = serialize_portable_artifact_str(text, "current", name=str(path), format="mlir")
    assert print_ir(deserialize_portable_artifact(mlir, name=path.name)) == expected
    if interpret:
        assert _interpret(module) == _interpret(parse(text, str(path)))


def _interpret(module: object) -> tuple[list[bytes], list[str]]:
    """Results (as bytes, so NaNs compare) and failed checks of `main`; an error is an outcome too."""
    from stablehlo_py.interpreter.evaluator import Evaluator

    try:
        ev = Evaluator(module)  # type: ignore[arg-type]
        results = ev.call("main", [])
    except StableHLOError as e:
        return [], [f"error: {e.message}"]
    return [r.tobytes() + str(r.dtype).encode() + str(r.shape).encode() for r in results], [
        str(f).split(": ", 1)[-1] for f in ev.failures
    ]


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA[::EVERY_TARGET_SAMPLE], ids=lambda p: p.name)
def test_round_trip_at_every_target(path: Path) -> None:
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        read_vhlo_artifact,
        serialize_portable_artifact,
        to_vhlo,
        write_artifact,
    )
    from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

    from stablehlo_py.version import validate_target

    text, _ = _program(path)
    module = parse(text, str(path))
    verify(module)
    expected = print_ir(module)
    refused: list[str] = []
    written: list[str] = []
    full_checked: set[int] = set()
    for release in specs.releases():
        target = str(release.version)
        try:
            vhlo = to_vhlo(module, validate_target(target), in_place=False)
            data = write_artifact(vhlo, validate_target(target))
        except StableHLOError as e:
            assert not written, f"{target} refused after {written[-1]} was accepted: {e}"
            refused.append(target)
            with pytest.raises(StableHLOError):
                serialize_portable_artifact(module, target, format="mlir")
            continue
        written.append(target)
        assert (
            print_ir(deserialize_portable_artifact(data, name=f"{path.name}@{target}")) == expected
        ), target
        # MLIR bytecode at the first target of each bytecode version and the three newest releases
        # (the VHLO at every target is the msgpack check's; the format varies by bytecode version):
        # the full read prints the same, and the VHLO read back writes the same bytes
        if release.mlir_bytecode_version in full_checked and release not in specs.releases()[-3:]:
            continue
        full_checked.add(release.mlir_bytecode_version)
        mlir = write_mlir_artifact(vhlo, validate_target(target))
        got = print_ir(deserialize_portable_artifact(mlir, name=f"{path.name}@{target}.bc"))
        assert got == expected, f"{target} (MLIR bytecode)"
        version, vhlo = read_vhlo_artifact(mlir)
        assert str(version) == target
        assert write_mlir_artifact(vhlo, version) == mlir, (
            f"{target}: read -> write changed the bytes"
        )
    assert written, f"no target accepts {path.name}"
    minimum = _minimum_version(module)
    if minimum is not None:
        assert written[0] == str(minimum), (written[0], minimum)


def _minimum_version(module: object) -> object | None:
    """The VHLO issue's `minimum_version(module)` when it is available."""
    import stablehlo_py

    fn = getattr(stablehlo_py, "minimum_version", None)
    if fn is None:
        return None
    result = fn(module)
    return getattr(result, "version", result)
