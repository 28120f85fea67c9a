"""Upstream's portable-artifact format (MLIR bytecode over VHLO) without jaxlib: primitives, the
facts of ``../shared/reference/mlir-bytecode.md`` byte for byte, version-gated fields, round trips,
newer-than-us artifacts, the API and the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.serialization.mlirbc.encoding import (
    Emitter,
    Reader,
    string_section,
    unzigzag,
    zigzag,
)

from stablehlo_py import serialization as S
from stablehlo_py.errors import SerializationError, StableHLOError
from stablehlo_py.ir import parse, print_ir

ADD = """func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  return %0 : tensor<f32>
}"""

# upstream's vhlo_emit_version_api.1_1_0 program written by jaxlib 0.10 at 1.1.0 (222 bytes): the
# producer, the sections in the order 1 3 2 4 6 5 0 8, properties records deduplicated
JAXLIB_ADD_1_1_0 = bytes.fromhex(
    "4d4cef520d537461626c65484c4f5f76312e312e300001190501050901030b03070f1317032b1507010d0b131313"
    "131303090b0b0b0b03070f1707024f050d1701010117010303170103231701051117010707030123031d0f1d1129"
    "0105110301030109044d050150030107043d0301050350050307042903050b03030700050609030105010107040b"
    "03030603010501007f13030b05150f110f0b116275696c74696e0076686c6f006d6f64756c650066756e635f7631"
    "006164645f76310072657475726e5f7631002d006d61696e00000815050501010b0d0f0d1113"
)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "01"), (2, "05"), (131, "0e02"), (127, "ff"), (1 << 63, "00" + "0000000000000080")],
)
def test_prefix_varint(value: int, encoded: str) -> None:
    e = Emitter()
    e.varint(value)
    assert e.buf.hex() == encoded
    assert Reader(bytes(e.buf)).varint() == value


@pytest.mark.parametrize("v", [0, 1, -1, 63, -64, 1 << 40, -(1 << 63), (1 << 63) - 1])
def test_zigzag(v: int) -> None:
    assert unzigzag(zigzag(v)) == v


def test_dynamic_dimension_is_nine_bytes() -> None:
    e = Emitter()
    e.svarint(-(1 << 63))
    assert e.buf.hex() == "00" + "ff" * 8


@pytest.mark.parametrize(
    ("value", "width", "encoded"),
    [(-1, 32, "d0ffffff3f"), (-1, 64, "03"), (-1, 8, "ff"), (0x3F800000, 32, "100000e00f")],
)
def test_apint_zero_extends_before_zigzag(value: int, width: int, encoded: str) -> None:
    e = Emitter()
    e.apint(value, width)
    assert e.buf.hex() == encoded


def test_writer_reproduces_jaxlib_bytes() -> None:
    data = S.serialize_portable_artifact_str(ADD, "1.1.0", name="-", format="mlir")
    assert data == JAXLIB_ADD_1_1_0


def test_jaxlib_artifact_reads_back() -> None:
    assert S.get_portable_artifact_version(JAXLIB_ADD_1_1_0) == S.get_portable_artifact_version(
        S.serialize_portable_artifact_str(ADD, "1.1.0", format="mlir")
    )
    assert print_ir(S.deserialize_portable_artifact(JAXLIB_ADD_1_1_0)) == print_ir(parse(ADD))
    version, vhlo = S.read_vhlo_artifact(JAXLIB_ADD_1_1_0)
    assert str(version) == "1.1.0"
    from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

    assert write_mlir_artifact(vhlo, version) == JAXLIB_ADD_1_1_0


@pytest.mark.parametrize(
    ("target", "bytecode"),
    [("0.9.0", 0), ("0.10.0", 1), ("0.12.0", 3), ("0.14.0", 4), ("0.15.0", 6), ("1.20.0", 6)],
)
def test_bytecode_version_by_target(target: str, bytecode: int) -> None:
    data = S.serialize_portable_artifact_str(ADD, target, format="mlir")
    assert data[:4] == b"ML\xefR" and data[4] == (bytecode << 1) | 1
    assert data[5:].startswith(f"StableHLO_v{target}\0".encode())
    assert print_ir(S.deserialize_portable_artifact(data)) == print_ir(parse(ADD))


PROGRAM = """module @m attributes {mhlo.num_partitions = 1 : i32, jax.uses_shape_polymorphism = false} {
  func.func @main(%arg0: tensor<4xi1>, %arg1: tensor<3xi4> loc("a.py":2:3)) -> (tensor<9xi1>, tensor<3xi4>, tensor<2xcomplex<f32>>, tensor<0x3xf32>, tensor<f32>) {
    %0 = stablehlo.constant dense<[true, false, false, false, false, false, false, false, true]> : tensor<9xi1> loc("n"("f.py":1:2 to :9))
    %1 = stablehlo.constant dense<[1, -2, 7]> : tensor<3xi4> loc(callsite("g"("f.py":3:1) at "f.py":9:2))
    %2 = stablehlo.constant dense<[(1.0, -0.0), (0x7FC00000, 2.0)]> : tensor<2xcomplex<f32>> loc(fused["a", "b"("c.py":1:1 to 2:3)])
    %3 = stablehlo.constant dense<7.0> : tensor<0x3xf32>
    %4 = stablehlo.constant dense<true> : tensor<4xi1>
    %5 = stablehlo.and %arg0, %4 : tensor<4xi1>
    %7 = stablehlo.constant dense<0.0> : tensor<f32>
    %6 = stablehlo.reduce(%3 init: %7) applies stablehlo.add across dimensions = [0, 1] : (tensor<0x3xf32>, tensor<f32>) -> tensor<f32>
    return %0, %1, %2, %3, %6 : tensor<9xi1>, tensor<3xi4>, tensor<2xcomplex<f32>>, tensor<0x3xf32>, tensor<f32>
  }
}"""


@pytest.mark.parametrize("target", ["0.9.0", "0.12.0", "0.14.0", "1.0.0", "1.9.0", "1.20.0"])
def test_round_trip_keeps_everything(target: str) -> None:
    text = PROGRAM
    if tuple(map(int, target.split("."))) < (1, 9, 0):  # ranges are a blocker before 1.9.0
        text = text.replace(" to :9", "").replace(" to 2:3", "")
    module = parse(text, "p.mlir")
    data = S.serialize_portable_artifact(module, target, format="mlir")
    back = S.deserialize_portable_artifact(data)
    assert print_ir(back, debuginfo=True) == print_ir(module, debuginfo=True)
    version, vhlo = S.read_vhlo_artifact(data)
    from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

    assert write_mlir_artifact(vhlo, version) == data


def test_i1_tensors_are_bit_packed() -> None:
    data = S.serialize_portable_artifact_str(PROGRAM, "1.20.0", format="mlir")
    # 9 elements [1,0,0,0,0,0,0,0,1] pack into 01 01; the splat `true` of 4 elements is ff
    assert b"\x05\x01\x01" in data  # blob of 2 bytes
    assert b"\x03\xff" in data


def _replace_string(data: bytes, old: bytes, new: bytes) -> bytes:
    """Rewrite one string of the string section (re-encoding its sizes and length)."""
    r = Reader(data, 4)
    r.varint()
    r.cstring()
    head = bytes(data[: r.pos])
    out = Emitter()
    out.raw(head)
    while not r.at_end():
        start = r.pos
        sid, body, end = r.section_header()
        if sid != 0:
            out.raw(data[start:end])
            continue
        s = Reader(data, body, end)
        n = s.varint()
        sizes = [s.varint() for _ in range(n)][::-1]
        strings = []
        for size in sizes:
            strings.append(bytes(data[s.pos : s.pos + size - 1]))
            s.pos += size
        out.section(0, string_section([new if x == old else x for x in strings]))
    return bytes(out.buf)


def _future_artifact() -> bytes:
    data = S.serialize_portable_artifact_str(
        "func.func @main() -> tensor<i32> {\n  %c = stablehlo.constant dense<1> : tensor<i32>\n"
        "  return %c : tensor<i32>\n}",
        "1.20.0",
        format="mlir",
    )
    data = data.replace(b"StableHLO_v1.20.0\0", b"StableHLO_v2.0.0\0", 1)
    return _replace_string(data, b"constant_v1", b"constant_v99")


def test_newer_artifact_names_the_version_and_the_op() -> None:
    data = _future_artifact()
    assert str(S.get_portable_artifact_version(data)) == "2.0.0"
    with pytest.raises(SerializationError) as e:
        S.deserialize_portable_artifact(data)
    assert "StableHLO 2.0.0" in e.value.message and "vhlo.constant_v99" in e.value.message
    report = S.check_compat(data, "1.20.0")
    assert not report.compatible and any("vhlo.constant_v99" in b for b in report.blockers)


def test_unknown_op_at_a_known_version_is_named() -> None:
    data = _future_artifact().replace(b"StableHLO_v2.0.0\0", b"StableHLO_v1.9.0\0", 1)
    with pytest.raises(SerializationError, match=r"unknown VHLO op vhlo\.constant_v99"):
        S.deserialize_portable_artifact(data)


def test_dialect_bytecode_deserializes_as_it_is() -> None:
    """MLIR bytecode of the stablehlo dialect (no VHLO): upstream's deserializer parses it and its
    VHLO pipeline has nothing to convert, so it reads unchanged; the header names no version."""
    from stablehlo_py.serialization.mlirbc import write_dialect

    data = write_dialect(parse(ADD))
    assert print_ir(S.deserialize_portable_artifact(data)) == print_ir(parse(ADD))
    with pytest.raises(SerializationError, match="names no StableHLO version") as e:
        S.get_portable_artifact_version(data)
    assert "it holds no VHLO" in (e.value.note or "")
    with pytest.raises(SerializationError, match="holds no VHLO"):
        S.read_vhlo_artifact(data)


def test_formats_and_conversion() -> None:
    module = parse(ADD)
    mlir = S.serialize_portable_artifact(module, "1.5.0", format="mlir")
    packed = S.serialize_portable_artifact(module, "1.5.0")
    assert S.artifact_format(mlir) == "mlir" and S.artifact_format(packed) == "msgpack"
    assert S.convert_artifact(packed, "mlir") == mlir
    assert S.convert_artifact(mlir, "msgpack") == packed
    assert S.convert_artifact(mlir, "mlir", "1.0.0") == S.serialize_portable_artifact(
        module, "1.0.0", format="mlir"
    )
    with pytest.raises(SerializationError, match="unknown artifact format 'xml'"):
        S.serialize_portable_artifact(module, "1.5.0", format="xml")


def test_blockers_are_reported_in_mlir_format_too() -> None:
    text = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.tan %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"
    with pytest.raises(StableHLOError, match=r"tan.*needs 1\.4\.0"):
        S.serialize_portable_artifact_str(text, "1.0.0", format="mlir")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.translate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_round_trip(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(ADD)
    bc = tmp_path / "p.mlir.bc"
    r = _cli("--serialize", "--target=1.1.0", "--format=mlir", str(src), "-o", str(bc))
    assert r.returncode == 0, r.stderr
    assert bc.read_bytes().startswith(b"ML\xefR")
    r = _cli("--deserialize", str(bc))
    assert r.returncode == 0 and r.stdout == print_ir(parse(ADD))
    r = _cli("--check-compat", "--consumer-version=1.0.0", str(bc))
    assert r.returncode == 1 and "NOT compatible" in r.stdout
    shlo = tmp_path / "p.shlo"
    r = _cli("--convert-artifact", "--format=msgpack", str(bc), "-o", str(shlo))
    assert r.returncode == 0, r.stderr
    assert S.artifact_format(shlo.read_bytes()) == "msgpack"
    r = _cli("--convert-artifact", str(bc))
    assert r.returncode != 0 and "needs --format" in r.stderr and "Traceback" not in r.stderr
    for flags, expected in (
        ((), print_ir(S.read_vhlo_artifact(bc.read_bytes())[1])),  # the VHLO, as upstream's
        (("--deserialize",), print_ir(parse(ADD))),
    ):
        opt = subprocess.run(
            [sys.executable, "-m", "stablehlo_py.cli.opt", str(bc), *flags],
            capture_output=True,
            text=True,
            check=False,
        )
        assert opt.returncode == 0, opt.stderr
        assert opt.stdout == expected


def test_truncations_raise_serialization_errors() -> None:
    data = S.serialize_portable_artifact_str(PROGRAM, "1.20.0", format="mlir")
    rng = np.random.default_rng(0)
    for n in sorted(set(rng.integers(0, len(data), 200).tolist())):
        with pytest.raises(StableHLOError):
            S.deserialize_portable_artifact(data[:n])


@pytest.mark.parametrize("bytecode_version", [2, 5])
def test_versions_no_release_writes_are_read(bytecode_version: int) -> None:
    """Versions 2 and 5 are never written today, but early 0.14.x builds wrote v5 (properties with
    registered flags) and a reader must accept every version 0-6."""
    from stablehlo_py.serialization.mlirbc.ops import VhloOpEncoder
    from stablehlo_py.serialization.mlirbc.writer import write_bytecode

    from stablehlo_py.version import validate_target

    module = parse(PROGRAM.replace(" to :9", "").replace(" to 2:3", ""), "p.mlir")
    vhlo = S.to_vhlo(module, validate_target("0.14.0"), in_place=False)
    data = write_bytecode(vhlo, VhloOpEncoder(bytecode_version), "StableHLO_v0.14.0")
    assert data[4] == (bytecode_version << 1) | 1
    assert print_ir(S.deserialize_portable_artifact(data), debuginfo=True) == print_ir(
        module, debuginfo=True
    )
