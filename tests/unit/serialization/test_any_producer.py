"""VHLO MLIR bytecode whose producer names no StableHLO version (issue 31).

Upstream's ``deserializePortableArtifact`` parses any MLIR bytecode and converts the VHLO forks it
finds to the current ones; only ``getPortableArtifactVersion`` needs the ``StableHLO_vX.Y.Z``
producer.  jaxlib's ``ir.Module.write_bytecode`` of a VHLO module writes ``MLIR<llvm version>git``
(tests/oracle/test_vhlo_any_producer.py checks those bytes); here the artifacts are our own, with
the producer string rewritten (nothing in MLIR bytecode refers to the header's length).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from stablehlo_py import serialization as S
from stablehlo_py import specs
from stablehlo_py.errors import SerializationError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.serialization.mlir_artifact import producer_version, version_from_ops
from stablehlo_py.version import Version, get_current_version, get_minimum_version

ADD = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""

# stablehlo.tan exists from 1.4.0 (vhlo.tan_v1); its result_accuracy fork from 1.10.0 (tan_v2)
TAN = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.tan %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def with_producer(data: bytes, producer: bytes) -> bytes:
    """``data`` (MLIR bytecode) with its producer string replaced."""
    end = data.index(b"\0", 5)
    return data[:5] + producer + data[end:]


def _min(name: str) -> Version:
    return next(o for o in specs.ops() if o.name == name).min_version


@pytest.mark.parametrize("producer", [b"MLIR24.0.0git", b"MLIR17.0.0git", b"", b"jax"])
@pytest.mark.parametrize("target", ["0.9.0", "1.0.0", "1.9.0", "current"])
def test_any_producer_reads_as_the_named_one(producer: bytes, target: str) -> None:
    named = S.serialize_portable_artifact_str(ADD, target, format="mlir")
    data = with_producer(named, producer)
    assert producer_version(data) is None
    assert S.deserialize_portable_artifact_str(data) == S.deserialize_portable_artifact_str(named)
    version, module = S.read_vhlo_artifact(data)
    assert version == get_minimum_version()  # add_v1 and func_v1 exist from the first release
    assert print_ir(module) == print_ir(S.read_vhlo_artifact(named)[1])


def test_header_gives_no_version_as_upstream() -> None:
    data = with_producer(S.serialize_portable_artifact_str(ADD, "1.0.0", format="mlir"), b"MLIR")
    with pytest.raises(SerializationError) as e:
        S.get_portable_artifact_version(data)
    assert "'MLIR', which names no StableHLO version" in e.value.message
    assert e.value.offset == 5  # type: ignore[attr-defined]
    assert "read_vhlo_artifact" in (e.value.note or "")


def test_version_comes_from_the_ops() -> None:
    tan_v1, tan_v2 = _min("tan_v1"), _min("tan_v2")
    assert get_minimum_version() < tan_v1 < tan_v2
    old = with_producer(S.serialize_portable_artifact_str(TAN, str(tan_v1), format="mlir"), b"X")
    new = with_producer(S.serialize_portable_artifact_str(TAN, "current", format="mlir"), b"X")
    assert S.read_vhlo_artifact(old)[0] == tan_v1
    assert S.read_vhlo_artifact(new)[0] == tan_v2
    assert S.read_vhlo_artifact(new, records=True)[0] == tan_v2  # records and ops alike
    for data in (old, new):
        assert print_ir(S.deserialize_portable_artifact(data)) == print_ir(parse(TAN))
    # the ops' version is the one compat checks and conversions use
    assert not S.check_compat(new, str(tan_v1)).compatible
    assert S.check_compat(old, str(tan_v1)).compatible
    assert S.get_portable_artifact_version(S.convert_artifact(old, "mlir")) == tan_v1


def test_version_from_ops_of_a_legalized_module() -> None:
    vhlo = S.to_vhlo(parse(TAN), get_current_version())
    assert version_from_ops(vhlo) == _min("tan_v2")
    assert version_from_ops(S.to_vhlo(parse(ADD), get_current_version())) == get_minimum_version()


def test_a_newer_named_version_is_refused_but_an_unnamed_one_is_not_checked() -> None:
    """A producer naming a newer version is refused before decoding (our policy); without a
    version only what the toolkit does not know can fail (as upstream)."""
    named = S.serialize_portable_artifact_str(ADD, "current", format="mlir")
    future = with_producer(named, b"StableHLO_v99.0.0")
    with pytest.raises(SerializationError, match="newer than this consumer"):
        S.deserialize_portable_artifact(future)
    assert S.deserialize_portable_artifact_str(with_producer(named, b"MLIR99.0.0git"))


def test_unknown_op_without_a_version_is_named() -> None:
    data = S.serialize_portable_artifact_str(ADD, "current", format="mlir")
    data = with_producer(data, b"MLIR24.0.0git").replace(b"add_v1\0", b"add_v9\0", 1)
    with pytest.raises(SerializationError, match=r"unknown VHLO op vhlo\.add_v9"):
        S.deserialize_portable_artifact(data)


def test_cli_deserialize_reads_it() -> None:
    named = S.serialize_portable_artifact_str(ADD, "1.0.0", format="mlir")
    data = with_producer(named, b"MLIR24.0.0git")
    bin_dir = __import__("pathlib").Path(sys.executable).parent
    got = subprocess.run(
        [str(bin_dir / "stablehlo-translate"), "--deserialize", "-"],
        input=data,
        capture_output=True,
        check=False,
    )
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == S.deserialize_portable_artifact_str(named)
