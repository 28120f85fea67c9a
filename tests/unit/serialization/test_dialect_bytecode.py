"""MLIR bytecode of the toolkit's dialects (``stablehlo-opt -emit-bytecode``) without jaxlib: jaxlib's
bytes for a program touching every kind of encoding, the encodings one by one (segment sizes,
i1 packing, sub-byte integers, dynamic sizes, location ranges, enums, quantized types, meshes,
textual fallbacks), the write -> read -> print round trip of every conformance testdata program and
``dialect/`` file, the CLI, and malformed input (only StableHLOError, located at a byte offset).
The byte-for-byte comparison with jaxlib on the whole testdata is tests/oracle/test_emit_bytecode.py.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from stablehlo_py.serialization.mlirbc import (
    DIALECT_PRODUCER,
    MAGIC,
    read_dialect,
    write_dialect,
)
from stablehlo_py.serialization.mlirbc.dialect_ops import sparse_array_items
from stablehlo_py.serialization.mlirbc.encoding import Emitter

from stablehlo_py.errors import SerializationError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files
from tests.unit.serialization.helpers import bytecode_sections

TESTDATA = conformance_files("testdata")
DIALECT = conformance_files("dialect")
BIN = Path(sys.executable).parent


def _opt(*args: str, text: bool = False) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run(
        [str(BIN / "stablehlo-opt"), *args], check=False, capture_output=True, text=text
    )


# jaxlib 0.10.2's ``Operation.write_bytecode`` of GOLDEN (1004 bytes, read only: StableHLO 1.17.0's
# ODS, the older layouts of chlo.top_k and custom_call): enums of both dialects,
# gather-free struct attributes (dot algorithm, result accuracy), custom_call's optional
# properties, chlo.top_k, func.call, i1 (packed and splat) and i4 (masked) constants, a bounded
# dynamic dimension, the reduce short form's location, module and argument attributes.
GOLDEN = """module @golden attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x?xf32, #stablehlo.bounds<?, 8>>, %arg1: tensor<4xi1>, %arg2: tensor<2x2xf32> {mhlo.layout_mode = "default"}) -> tensor<4xf32> {
    %c = stablehlo.constant dense<[true, false, true, true]> : tensor<4xi1>
    %c_0 = stablehlo.constant dense<true> : tensor<4xi1>
    %c_1 = stablehlo.constant dense<[1, -2, 7]> : tensor<3xi4>
    %0 = stablehlo.compare  GT, %arg1, %c,  UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %1 = stablehlo.custom_call @foo(%arg0) {backend_config = "x", has_side_effect = true} : (tensor<4x?xf32, #stablehlo.bounds<?, 8>>) -> tensor<4xf32>
    %p = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.dot_general %arg2, %p, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.cosine %2 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2x2xf32>
    %4:2 = chlo.top_k(%1, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
    %5 = chlo.broadcast_compare %1, %1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %s = stablehlo.constant dense<1.0> : tensor<f32>
    %sh = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
    %7 = stablehlo.rng %s, %s, %sh, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
    %8 = call @helper(%1) : (tensor<4xf32>) -> tensor<4xf32>
    return %8 : tensor<4xf32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""
# The two goldens below differ only in the producer (their first line) and the tail of the op
# section (top_k's and custom_call's properties); the 19 lines between are the same bytes.
_GOLDEN_SHARED_HEX = (
    "07053f4303b98323016d0b130b0b130b0f0b1317130b0b0b0b0b130b0b13131f131313131313131313131b13130b"
    "0b0f13131313130f13131f132f13130b131305151f330b0b0b0b23370b0b07030b012313130f07170f0f3b0b1307"
    "131f170b1313020e05052317012b350301052503030b0d0527110d05052917010303010705051503031719052b05"
    "2d0d19052f0531170105070d1b0533170127071701273b2505090000000017012915230b010117012d0b17010535"
    "17010597170105c12501030d17010715250103ff17010919251307010e0717010b1917010d150535053711110117"
    "010f1501057577170111151701131517011515110b0917011719170119152505090000803f17011b152517110200"
    "00000000000017011d1717011f150907170121151701230b0b0101030503011b0500ffffffffffffffff21070905"
    "07110111051f151507050505002300e2d1c6116bf1c97d01017d21051505010b1b0311111b0311071b01070b1b05"
    "0909070102040102021d6f051100ffffffffffffffff0701091b030d1d2b1b03090b05070f010903030503030303"
    "01211b0309071b03090d04320305015111090107040a03030109035021030704fb03253f071f3303351337000942"
    "3b05030109423f0703010942430903131346450b030105030715464d0d030303010b46510f03090505050b465311"
    "030905051117465513030903131b465915051f21030f1d465b170301050f0f09425f1903050942631b0317194665"
    "1d0309071d1d1f0746691f0303030f05046b03230350272107046903070f0307290009422d2303050d5603250303"
    "05010307042d03070b050b030b03000f0603030505010311040303050504310305060301050100ea03390905110f"
    "0b11230f290f05250d090f1911090f19130b0f0f0b150b116275696c74696e0066756e6300737461626c65686c6f"
    "0063686c6f006d6f64756c650072657475726e0063616c6c00636f6e7374616e7400646f745f67656e6572616c00"
    "7265647563650061646400636f6d7061726500637573746f6d5f63616c6c00636f73696e6500726e6700746f705f"
    "6b0062726f6164636173745f636f6d70617265002d0068656c706572006d686c6f2e6e756d5f706172746974696f"
    "6e7300676f6c64656e006d686c6f2e6c61796f75745f6d6f64650064656661756c74006d61696e007075626c6963"
)

GOLDEN_BYTES_JAXLIB_0_10 = bytes.fromhex(
    "4d4cef520d4d4c495232332e302e3067697400013b090105090d1f010313030707171b05131f23272b172f33373b"
    + _GOLDEN_SHARED_HEX
    + "0070726976617465007800666f6f00088727051f010d271b01011d3f0339033d034105e37311018f490197010101"
    "07016d9f07f36d0103f7035707010181035d0361037f09016701010d01230101074b032b032f"
)

# jaxlib 0.12.0.1's bytes of GOLDEN (1006 bytes): StableHLO 1.22.0's ODS, so the properties of
# chlo.top_k hold is_stable and custom_call's result_tilings (optional, 0 when absent).
GOLDEN_PRODUCER = "MLIR24.0.0git"
GOLDEN_BYTES = bytes.fromhex(
    "4d4cef520d4d4c495232342e302e3067697400013b090105090d1f010313030707171b05131f23272b172f33373b"
    + _GOLDEN_SHARED_HEX
    + "0070726976617465007800666f6f00088b27051f010d271b01011d3f0339033d034105e37313018f490197010101"
    "0107016d9f07f36d0103f705015707010181035d0361037f09016701010d01230101074b032b032f"
)


def _debug(module) -> str:  # type: ignore[no-untyped-def]
    """Printed with locations, but for the top-level module's own: an implicit module is at
    "file":0:0 in bytecode (as MLIR's parser places it) while the printer shows loc(unknown)."""
    return re.sub(r"\} loc\([^\n]*\)\n\Z", "}\n", print_ir(module, debuginfo=True))


def _roundtrip(text: str, name: str = "-") -> None:
    module = parse(text, name)
    data = write_dialect(module)
    assert data.startswith(MAGIC + bytes([0x0D]) + DIALECT_PRODUCER.encode() + b"\x00")
    _, _, back = read_dialect(data, name)
    assert print_ir(back) == print_ir(module)
    assert print_ir(back, generic=True) == print_ir(module, generic=True)
    assert _debug(back) == _debug(module)
    assert write_dialect(back) == data  # what was read writes the same bytes again


def test_golden_program_is_jaxlibs_bytes() -> None:
    module = parse(GOLDEN, "-")
    assert write_dialect(module, producer=GOLDEN_PRODUCER) == GOLDEN_BYTES
    _, _, old = read_dialect(GOLDEN_BYTES_JAXLIB_0_10)
    assert print_ir(old, generic=True) == print_ir(module, generic=True)
    version, producer, back = read_dialect(GOLDEN_BYTES)
    assert (version, producer) == (6, GOLDEN_PRODUCER)
    assert print_ir(back) == print_ir(module)
    assert print_ir(back, debuginfo=True) == print_ir(
        read_dialect(write_dialect(back))[2], debuginfo=True
    )


# ------------------------------------------------------------------------------ encodings
@pytest.mark.parametrize(
    ("values", "encoded"),
    [
        ([1, 1], "09 03 03"),  # dense: varint(size << 1), then the values
        ([2, 0, 1], "0d 05 01 03"),
        ([0, 0, 0, 0], "03"),  # sparse (count << 1 | 1), nothing set
        ([0, 3, 0, 0], "07 03 0f"),  # sparse: 1 value, index width 1, value << 1 | index
        ([0, 0, 0, 0, 0, 2, 0, 0, 0, 0], "07 07 2b"),  # index width 3: 2 << 3 | 5
        ([], "03"),
        ([1, 1, 0, 0], "0b 03 05 07"),  # memref.subview's operand segments, as jaxlib writes them
    ],
)
def test_segment_sizes_are_sparse_arrays(values: list[int], encoded: str) -> None:
    e = Emitter()
    for tag, v in sparse_array_items(values):
        assert tag == "v"
        e.varint(v)
    assert e.buf.hex() == encoded.replace(" ", "")


def _entries(text: str) -> list[bytes]:
    """The attribute/type entries of ``text``'s bytecode, as raw bytes."""
    data = write_dialect(parse(text, "-"))
    return [data[a:b] for a, b in _entry_spans(data)]


def _entry_spans(data: bytes) -> list[tuple[int, int]]:
    from stablehlo_py.serialization.mlirbc.encoding import Reader

    sections = bytecode_sections(data)
    off = Reader(data, *sections[3])
    off.varint()
    off.varint()
    out, pos = [], sections[2][0]
    while not off.at_end():
        off.varint()
        for _ in range(off.varint()):
            size = off.varint() >> 1
            out.append((pos, pos + size))
            pos += size
    return out


def _replace_entry(data: bytes, old: bytes, new: bytes) -> bytes:
    ((a, b),) = [(a, b) for a, b in _entry_spans(data) if data[a:b] == old]
    return data[:a] + new + data[b:]


def _const(value: str, t: str) -> str:
    return (
        f"func.func @f() -> {t} {{\n  %0 = stablehlo.constant dense<{value}> : {t}\n"
        f"  return %0 : {t}\n}}"
    )


@pytest.mark.parametrize(
    ("value", "t", "blob"),
    [
        ("[true, false, true, true]", "tensor<4xi1>", "0d"),  # bit-packed, LSB first
        ("true", "tensor<4xi1>", "ff"),  # a splat is all bits set
        ("false", "tensor<9xi1>", "00"),
        ("true", "tensor<i1>", "ff"),  # one element is a splat too
        ("[true, false, false, false, false, false, false, false, true]", "tensor<9xi1>", "0101"),
        ("[1, -2, 7]", "tensor<3xi4>", "010e07"),  # sub-byte: the bits, not sign-extended
        ("[7, 7]", "tensor<2xi32>", "07000000"),  # uniform data is a splat
    ],
)
def test_dense_data_as_mlir_stores_it(value: str, t: str, blob: str) -> None:
    text = _const(value, t)
    raw = bytes.fromhex(blob)
    dense = [e for e in _entries(text) if e[:1] == b"\x25"]  # builtin code 18
    assert len(dense) == 1 and dense[0].endswith(bytes([len(raw) << 1 | 1]) + raw)
    _roundtrip(text)


def test_dynamic_size_is_kdynamic() -> None:
    text = "func.func @f(%a: tensor<?xf32, #stablehlo.bounds<8>>) {\n  return\n}"
    entries = _entries(text)
    assert any(b"\x00" + b"\xff" * 8 in e for e in entries)  # tensor<?x...>: INT64_MIN
    assert bytes.fromhex("1b0321") in entries  # #stablehlo.bounds<8>: code 13, [svarint 8]
    _roundtrip(text)


@pytest.mark.parametrize(
    ("loc", "numbers"),
    [
        ('"f.mlir":0:0 to :0', "01"),  # all zero: nothing
        ('"f.mlir":0:0 to :3', "0301"),  # start column 0 on one line: the line only (as MLIR)
        ('"f.mlir":1:0 to :7', "0303"),
        ('"f.mlir":1:4 to :4', "050309"),  # an empty range: line, column
        ('"f.mlir":1:1 to :2', "07030305"),
        ('"f.mlir":1:2 to 3:4', "0903050709"),
    ],
)
def test_location_ranges_as_mlir_writes_them(loc: str, numbers: str) -> None:
    text = f"func.func @f() {{\n  return loc({loc})\n}}"
    ranges = [e for e in _entries(text) if e[:1] == b"\x2d"]  # builtin code 22
    assert len(ranges) == 1 and ranges[0][2:] == bytes.fromhex(numbers)


@pytest.mark.parametrize(
    ("attr", "entry"),
    [
        ("#stablehlo<rng_distribution UNIFORM>", "1503"),  # code 10, value 1: the .td's values
        ("#stablehlo<comparison_direction LT>", "050b"),
        ("#chlo<comparison_type TOTALORDER>", "0305"),
        ("#stablehlo.channel_handle<handle = 1, type = -1>", "030503"),  # signed varints
        (
            (
                "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, "
                "operand_tuple_indices = []>"
            ),
            "1d03010501",
        ),
    ],
)
def test_stablehlo_and_chlo_attribute_encodings(attr: str, entry: str) -> None:
    text = f"func.func @f() attributes {{x = {attr}}} {{\n  return\n}}"
    assert bytes.fromhex(entry) in _entries(text)
    _roundtrip(text)


def test_quantized_types_round_trip() -> None:
    text = (
        "func.func @f(%a: tensor<2x!quant.uniform<i8:f32, 2.000000e+00:3>>, "
        "%b: tensor<2x3x!quant.uniform<u8<1:200>:f32:1, {2.000000e+00:-3,5.000000e-01}>>) {\n"
        "  return\n}"
    )
    entries = _entries(text)
    # uniform (code 4): flags=signed, storage, expressed, f64 scale, zero point, min, max
    assert any(e.startswith(b"\x09\x03") for e in entries)
    assert any(e.startswith(b"\x0b\x01") for e in entries)  # per-axis (code 5), unsigned
    _roundtrip(text)


def test_mesh_and_text_fallbacks_round_trip() -> None:
    mesh = (
        "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<"
        'name = "x", size = 2>], device_ids = dense<[1, 0]> : tensor<2xi64>>, axes = ['
        '#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>'
    )
    text = f"""func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {{
  %0 = "stablehlo.collective_broadcast"(%a) <{{replica_groups = {mesh}}}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}}
func.func @r(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %g: tensor<3xi64>) -> tensor<2x11x7xf32> {{
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) <{{precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGH>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>}}> : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}}"""
    entries = _entries(text)
    # no custom encoding: the assembly text, NUL-terminated
    assert b"#chlo.ragged_dot<lhs_batching_dimensions = [0]" in b"".join(entries)
    assert b"#chlo<precision HIGH>\x00" in entries
    codes = {e[:1] for e in entries}
    assert {b"\x25", b"\x27", b"\x29", b"\x2b", b"\x2d"} <= codes  # mesh codes 18-22
    _roundtrip(text)


_MESH_HOLDER = """func.func @g(%a: tensor<f32>) -> tensor<f32> attributes {x.m = MESH} {
  return %a : tensor<f32>
}"""


def test_mesh_written_from_its_description() -> None:
    """A mesh kept as text is written from the value its description reads (ir/attrs/mesh.py):
    upstream's short form and the long form are the same bytes; one it cannot read is a clear
    error."""
    long = (
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
        '#stablehlo.mesh_axis<name = "y", size = 3>]>'
    )
    short = '#stablehlo.mesh<axes=[<size = 2, name = "x">, <name = "y", size = 3>]>'
    data = write_dialect(parse(_MESH_HOLDER.replace("MESH", long), "-"))
    assert write_dialect(parse(_MESH_HOLDER.replace("MESH", short), "-")) == data
    entries = _entries(_MESH_HOLDER.replace("MESH", long))
    # mesh_axis (code 21): the name's string reference, then its size as a signed varint (2, 3)
    assert sorted(e[2:] for e in entries if e[:1] == b"\x2b") == [b"\x09", b"\x0d"]
    # mesh (code 22): the axes' array reference, then the device_ids flag (none)
    assert [e[2:] for e in entries if e[:1] == b"\x2d"] == [b"\x00"]
    _roundtrip(_MESH_HOLDER.replace("MESH", long))
    with pytest.raises(SerializationError, match="#stablehlo.mesh_axis needs a 'size'"):
        bad = '#stablehlo.mesh<axes = [<name = "z">]>'
        write_dialect(parse(_MESH_HOLDER.replace("MESH", bad), "-"))


def test_properties_in_alphabetical_order_with_optional_references() -> None:
    text = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    data = write_dialect(parse(text, "-"))
    # custom_call: api_version, backend_config, call_target_name (required), called_computations,
    # has_side_effect, operand_layouts, output_operand_aliases, result_layouts, result_tilings
    assert re.search(b"\x13\x01\x01.\x01\x01\x01\x01\x01\x01", data, re.DOTALL)


# ----------------------------------------------------------------------- round trips
@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_testdata_round_trip(path: Path) -> None:
    module = parse(path.read_text(), "-")
    data = write_dialect(module)
    _, _, back = read_dialect(data)
    assert print_ir(back) == print_ir(module)
    assert _debug(back) == _debug(module)


def _chunks(path: Path) -> list[str]:
    return [
        c
        for c in re.split(r"^// -----\s*$", path.read_text(), flags=re.MULTILINE)
        if "expected-error" not in c
    ]


@pytest.mark.skipif(not DIALECT, reason="../shared/conformance/dialect is absent")
@pytest.mark.parametrize("path", DIALECT, ids=lambda p: p.name)
def test_dialect_files_round_trip(path: Path) -> None:
    done = 0
    for chunk in _chunks(path):
        try:
            parse(chunk, "-")
        except StableHLOError:
            continue  # not ours to parse (other dialects, invalid programs)
        _roundtrip(chunk)
        done += 1
    assert done


def test_cli_emits_and_reads_bytecode(tmp_path: Path) -> None:
    src = tmp_path / "golden.mlir"
    src.write_text(GOLDEN)
    out = tmp_path / "golden.mlirbc"
    r = _opt("--emit-bytecode", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().startswith(MAGIC + b"\x0dMLIR")
    text = _opt(str(src), text=True).stdout
    back = _opt(str(out), text=True)
    assert back.returncode == 0, back.stderr
    assert back.stdout == text
    again = _opt("-emit-bytecode", str(out))
    assert again.stdout == out.read_bytes()


def test_cli_reads_portable_artifacts_by_producer(tmp_path: Path) -> None:
    from stablehlo_py.serialization import serialize_portable_artifact

    text = (
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    )
    module = parse(text, "-")
    art = tmp_path / "a.bc"
    art.write_bytes(serialize_portable_artifact(module, "1.0.0", format="mlir"))
    assert art.read_bytes()[5:].startswith(b"StableHLO_v1.0.0")
    r = _opt(str(art), text=True)
    assert r.returncode == 0, r.stderr
    # the VHLO module it holds, as upstream's stablehlo-opt prints it (issue 31); --deserialize
    # converts it
    from stablehlo_py.serialization import read_vhlo_artifact

    assert r.stdout == print_ir(read_vhlo_artifact(art.read_bytes())[1])
    assert "vhlo.add_v1" in r.stdout
    r = _opt(str(art), "--deserialize", text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == print_ir(module)


def test_legacy_ir_bytecode_is_still_read(tmp_path: Path) -> None:
    import zlib

    from stablehlo_py.ir.bytecode import MAGIC as LEGACY

    text = "func.func @f() {\n  return\n}\n"
    old = tmp_path / "old.bc"
    old.write_bytes(LEGACY + b"\x01" + zlib.compress(print_ir(parse(text)).encode()))
    r = _opt(str(old), text=True)
    assert r.returncode == 0 and r.stdout == print_ir(parse(text)), r.stderr


# ------------------------------------------------------------------------ malformed input
def _must_fail_cleanly(data: bytes) -> None:
    try:
        _, _, m = read_dialect(data)
        print_ir(m)
    except SerializationError as e:
        assert e.location and "byte" in e.location, str(e)
    except StableHLOError as e:  # a program that decodes but does not verify
        assert e.location, str(e)


def test_truncations_fail_cleanly() -> None:
    for n in range(len(GOLDEN_BYTES)):
        with pytest.raises(StableHLOError):
            _, _, m = read_dialect(GOLDEN_BYTES[:n])
            print_ir(m)


def test_corrupted_bytes_fail_cleanly() -> None:
    rng = random.Random(4)
    for _ in range(1500):
        b = bytearray(GOLDEN_BYTES)
        for _ in range(rng.choice((1, 1, 2, 3))):
            b[rng.randrange(len(b))] = rng.randrange(256)
        _must_fail_cleanly(bytes(b))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b[:4] + b"\x0f" + b[5:], "newer than this reader"),  # version 7
        (
            lambda b: b.replace(b"custom_call\x00", b"custom_cxll\x00"),
            "unknown operation 'stablehlo.custom_cxll'",
        ),
        (
            lambda b: _replace_entry(b, b"\x15\x05", b"\x15\x0b"),  # rng_distribution 5
            "invalid stablehlo.rng_distribution value 5",
        ),
        (
            lambda b: _replace_entry(b, b"\x15\x05", b"\x55\x05"),  # stablehlo code 42
            "unknown stablehlo attribute code 42",
        ),
    ],
)
def test_malformed_cases_say_what_and_where(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    data = mutate(GOLDEN_BYTES)
    with pytest.raises(SerializationError) as e:
        read_dialect(data, "g.bc")
    assert message in str(e.value)
    assert e.value.location.startswith("g.bc: byte ")
