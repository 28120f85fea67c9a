"""VHLO bytecode whatever its producer, and the VHLO an artifact holds, against jaxlib (issue 31).

For a sample of the conformance testdata programs (CHLO ones after our pre-serialization pipeline),
each at a few targets up to the newest both jaxlib and we know:

* jaxlib's artifact, parsed by jaxlib and written again with ``ir.Module.write_bytecode`` (producer
  ``MLIR<llvm version>git``, no StableHLO version), deserializes here to the program jaxlib's own
  deserializer gives for those bytes, and to what the named artifact gives; its version (from its
  ops) is at most the target; ``get_portable_artifact_version`` refuses it as upstream's does;
* the VHLO module an artifact holds prints here as jaxlib prints ``ir.Module.parse(artifact)``, in
  the custom and the generic form (what ``stablehlo-opt ARTIFACT`` prints);
* jaxlib's MLIR bytecode of the StableHLO program itself (no VHLO) deserializes unchanged, as
  jaxlib's deserializer passes it through.
"""

from __future__ import annotations

from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from stablehlo_py import serialization as S
from stablehlo_py import specs
from stablehlo_py.errors import SerializationError
from stablehlo_py.ir import print_ir
from stablehlo_py.serialization.mlirbc import read_dialect
from stablehlo_py.version import Version, get_current_version
from tests.conformance.test_roundtrip import TESTDATA
from tests.oracle.test_emit_bytecode import write_bytecode
from tests.oracle.test_mlir_bytecode import _source

SAMPLE = TESTDATA[::8]


@pytest.fixture(scope="module")
def jaxlib():  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    return jax_mlir.make_ir_context(), ir, stablehlo


def targets(jaxlib_current: Version, index: int) -> list[str]:
    """Three releases per file, rotating through every one both sides know (and the newest)."""
    newest = min(jaxlib_current, get_current_version())
    known = [r.version for r in specs.releases() if r.version <= newest]
    picks = {known[index % len(known)], known[(index * 7 + 3) % len(known)], known[-1]}
    return [str(v) for v in sorted(picks)]


@pytest.mark.skipif(not SAMPLE, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("index", range(len(SAMPLE)), ids=[p.name for p in SAMPLE])
def test_any_producer_and_printed_vhlo_match_jaxlib(index: int, jaxlib) -> None:  # type: ignore[no-untyped-def]
    ctx, ir, stablehlo = jaxlib
    path: Path = SAMPLE[index]
    text = _source(path)
    checked = 0
    for target in targets(Version.from_string(stablehlo.get_current_version()), index):
        try:
            art = stablehlo.serialize_portable_artifact_str(text, target)
        except Exception:  # noqa: BLE001 - jaxlib refuses a program below its minimum version
            continue
        # the VHLO module an artifact holds prints as jaxlib prints it
        with ctx:
            parsed = ir.Module.parse(art)
            theirs, theirs_generic = str(parsed), parsed.operation.get_asm(print_generic_op_form=True)
        version, vhlo = S.read_vhlo_artifact(art)
        assert version == Version.from_string(target)
        assert print_ir(vhlo) == theirs, f"{target}: VHLO prints differently"
        assert print_ir(vhlo, generic=True) == theirs_generic, f"{target}: generic form differs"

        # the same module written by ir.Module.write_bytecode: producer "MLIR...", no version
        rewritten = write_bytecode(ir, ctx, art)
        assert rewritten[5:9] == b"MLIR"
        with pytest.raises(SerializationError, match="names no StableHLO version"):
            S.get_portable_artifact_version(rewritten)
        ours = S.deserialize_portable_artifact_str(rewritten, name="-")
        assert ours == S.deserialize_portable_artifact_str(art, name="-")
        with ctx:
            jaxlib_bytes = stablehlo.deserialize_portable_artifact_str(rewritten)
        assert ours == print_ir(read_dialect(jaxlib_bytes, "-")[2])
        from_ops, _ = S.read_vhlo_artifact(rewritten, records=True)
        assert from_ops <= Version.from_string(target)
        checked += 1
    if not checked:
        pytest.skip("jaxlib writes this program at none of the targets")


@pytest.mark.skipif(not SAMPLE, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", SAMPLE[::4], ids=lambda p: p.name)
def test_stablehlo_dialect_bytecode_deserializes_unchanged(path: Path, jaxlib) -> None:  # type: ignore[no-untyped-def]
    ctx, ir, stablehlo = jaxlib
    text = _source(path)
    try:
        data = write_bytecode(ir, ctx, text.encode())
    except Exception:  # noqa: BLE001 - jax's context lacks a dialect the program uses (quant)
        pytest.skip("jaxlib's context cannot parse this program")
    with ctx:
        passed_through = stablehlo.deserialize_portable_artifact_str(data)
    ours = S.deserialize_portable_artifact_str(data, name="-")
    assert ours == print_ir(read_dialect(passed_through, "-")[2])
    assert ours == print_ir(read_dialect(data, "-")[2])
