"""Reading: exact round trips of VHLO, and every kind of bad input refused with the toolkit's error
and a byte offset (DESIGN.md §5; issue 5 "Errors")."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import PASSES
from stablehlo_py.serialization import read_artifact, write_artifact
from stablehlo_py.serialization.format import CURRENT_SCHEMA, MAGIC, Field
from stablehlo_py.serialization.reader import read_header

from stablehlo_py.errors import SerializationError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version, get_current_version
from tests.unit.serialization.helpers import PROGRAM, first_op, rewrite


def _vhlo(text: str = PROGRAM):
    return PASSES["stablehlo-legalize-to-vhlo"].run(parse(text, "program.mlir"), {})


@pytest.fixture(scope="module")
def artifact() -> bytes:
    return write_artifact(_vhlo(), get_current_version())


def _offset(e: pytest.ExceptionInfo[SerializationError]) -> int:
    return e.value.offset  # type: ignore[attr-defined]


def test_vhlo_round_trip_is_exact(artifact: bytes) -> None:
    original = print_ir(_vhlo(), generic=True, debuginfo=True)
    header, module = read_artifact(artifact)
    assert header.version == get_current_version() and header.format_version == 1
    assert print_ir(module, generic=True, debuginfo=True) == original


def test_strip_debuginfo_drops_locations_only() -> None:
    full = write_artifact(_vhlo(), get_current_version())
    stripped = write_artifact(_vhlo(), get_current_version(), strip_debuginfo=True)
    assert len(stripped) < len(full)
    _, m = read_artifact(stripped)
    assert 'loc("' not in print_ir(m, generic=True, debuginfo=True)
    assert print_ir(m, generic=True) == print_ir(_vhlo(), generic=True)


def test_writer_accepts_only_vhlo() -> None:
    with pytest.raises(
        SerializationError, match=r"op func.func at loc\(\"program.mlir\":2:3\) is not a VHLO op"
    ):
        write_artifact(parse(PROGRAM, "program.mlir"), get_current_version())  # type: ignore[arg-type]


def test_writer_refuses_ops_outside_the_target() -> None:
    text = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    with pytest.raises(
        SerializationError,
        match=r"vhlo.tan_v2 at loc\(\"program.mlir\":2:8\) is not in StableHLO 1.0.0",
    ):
        write_artifact(_vhlo(text), Version(1, 0, 0))


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        (b"", "not a StableHLO portable artifact \\(empty input"),
        (b"hello world, not an artifact", "not a StableHLO portable artifact"),
        (b"ML\xefR\x00\x05rest", "MLIR bytecode artifact"),
        (MAGIC[:4], "truncated: 4 bytes, inside the magic"),
        (MAGIC + b"\xc1", "corrupted header: byte 0xc1"),
        (MAGIC + b"\x93\x01", "truncated inside the header"),
        (MAGIC + b"\x05", "the header must be an array"),
        (MAGIC + b"\x92\x01\xa3abc", "producer must be 'StableHLO_vX.Y.Z'"),
    ],
)
def test_foreign_and_broken_headers(data: bytes, pattern: str) -> None:
    with pytest.raises(SerializationError, match=pattern):
        read_artifact(data)


def test_every_truncation_is_reported_with_its_offset(artifact: bytes) -> None:
    for n in range(len(artifact)):
        with pytest.raises(SerializationError, match="truncated|not a StableHLO") as e:
            read_artifact(artifact[:n])
        assert 0 <= _offset(e) <= n


def test_trailing_bytes_are_refused(artifact: bytes) -> None:
    with pytest.raises(SerializationError, match="3 unexpected bytes after the end") as e:
        read_artifact(artifact + b"abc")
    assert _offset(e) == len(artifact)


def test_header_alone_gives_the_version(artifact: bytes) -> None:
    h = read_header(artifact[:80], check_body=False)
    assert (
        h.version == get_current_version() and h.producer == f"StableHLO_v{get_current_version()}"
    )
    assert h.toolkit.startswith("stablehlo-py ")


def test_newer_producer_is_refused_with_versions_and_unknown_codes(artifact: bytes) -> None:
    def edit(header, sections):
        header[1] = "StableHLO_v1.99.0"
        first_op(sections)[0] = 4000  # an op code this toolkit does not have
        sections[0].append([0, 900])  # and a type code

    with pytest.raises(SerializationError) as e:
        read_artifact(rewrite(artifact, edit))
    text = str(e.value)
    assert (
        "written for StableHLO 1.99.0" in text
        and f"reads StableHLO 0.9.0 to {get_current_version()}" in text
    )
    assert "op code 4000" in text and "type code 900" in text
    assert "--target=" in text


def test_op_outside_the_producer_version_is_refused() -> None:
    text = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    data = write_artifact(_vhlo(text), get_current_version())
    lied = rewrite(data, lambda h, s: h.__setitem__(1, "StableHLO_v1.0.0"))
    with pytest.raises(
        SerializationError, match="vhlo.(tan_v2|result_accuracy_mode_v1) is not in StableHLO 1.0.0"
    ) as e:
        read_artifact(lied)
    assert _offset(e) > len(MAGIC)


def test_unknown_op_code_is_located(artifact: bytes) -> None:
    def edit(header, sections):
        first_op(sections)[0] = 4000

    bad = rewrite(artifact, edit)
    with pytest.raises(SerializationError, match="unknown op code 4000") as e:
        read_artifact(bad)
    # the offset points at the code itself: a uint16 4000 is cd 0f a0
    assert bad[_offset(e) : _offset(e) + 3] == b"\xcd\x0f\xa0"


@pytest.mark.parametrize(
    ("edit", "pattern"),
    [
        (lambda h, s: s[0].append([1, 9, "x"]), "field 'value' is required"),
        (
            lambda h, s: s[0].append([0, 20, [1, 2], 10_000]),
            "reference 10000 is not an earlier entry",
        ),
        (lambda h, s: s[0].append([1, 9, 0, 1 << 40]), "does not fit|must be an integer type"),
        (lambda h, s: s[0].append([1, 15, 0, b"x"]), "must be a tensor type|has 1 bytes"),
        (lambda h, s: s[0].append([7, 1]), "entry kind must be 0"),
        (lambda h, s: s[0].append("nope"), "an entry must be an array"),
        (lambda h, s: first_op(s).__setitem__(1, [99]), "refers to value 99 back"),
        (lambda h, s: first_op(s).__setitem__(3, 10_000), "location reference 10000 out of range"),
        (lambda h, s: s.__setitem__(1, [[5, 1]]), "unknown location item kind 5"),
        (lambda h, s: s.__setitem__(2, 7), "the module must be an array"),
    ],
)
def test_corrupted_records_are_refused(artifact: bytes, edit, pattern: str) -> None:
    with pytest.raises(SerializationError, match=pattern) as e:
        read_artifact(rewrite(artifact, edit))
    assert len(MAGIC) <= _offset(e) <= len(artifact) + 64


def test_only_toolkit_errors_escape_on_invalid_ops(artifact: bytes) -> None:
    def edit(header, sections):
        op = first_op(sections)
        op += [[], [], [], 0, [], [], []][len(op) :]
        op[4] = op[4][:0]  # drop every attribute of func_v1 (sym_name, function_type are required)

    with pytest.raises(StableHLOError, match="invalid vhlo.func_v1: requires attribute"):
        read_artifact(rewrite(artifact, edit))


# -- the struct_size rule across writers and readers


def _newer_schema():
    return CURRENT_SCHEMA.extended(
        "op", [Field("future_field", since=2, default=None)], 2, Version(1, 20, 0)
    )


def test_older_reader_accepts_newer_records_with_default_extras(artifact: bytes) -> None:
    def edit(header, sections):
        op = first_op(sections)
        op += [[], [], [], 0, [], [], []][len(op) :]
        op.append(None)  # a field a newer writer appended, holding its default
        op.append([])

    _, m = read_artifact(rewrite(artifact, edit))
    assert print_ir(m, generic=True) == print_ir(read_artifact(artifact)[1], generic=True)


def test_older_reader_refuses_newer_records_with_set_extras(artifact: bytes) -> None:
    def edit(header, sections):
        op = first_op(sections)
        op += [[], [], [], 0, [], [], []][len(op) :]
        op.append(42)

    with pytest.raises(
        SerializationError,
        match=r"op record has 8 fields; this reader knows 7, and field 7 .* holds 42",
    ) as e:
        read_artifact(rewrite(artifact, edit))
    assert "upgrade stablehlo-py" in str(e.value)


def test_newer_reader_reads_older_records(artifact: bytes) -> None:
    _header, module = read_artifact(artifact, schema=_newer_schema())
    assert print_ir(module, generic=True) == print_ir(read_artifact(artifact)[1], generic=True)


def test_reader_fills_missing_fields_one_by_one(artifact: bytes) -> None:
    # records written with every trailing field present, or trimmed to the minimum, read the same
    def pad(header, sections):
        def walk(region):
            for block in region:
                block += [[], [], []][len(block) :]
                for op in block[1]:
                    op += [[], [], 0, [], [], []][len(op) - 1 :]
                    for r in op[5]:
                        walk(r)

        walk(sections[2][2])

    padded = rewrite(artifact, pad)
    assert len(padded) > len(artifact)
    assert print_ir(read_artifact(padded)[1], generic=True) == print_ir(
        read_artifact(artifact)[1], generic=True
    )


def test_writer_for_an_older_target_writes_the_older_shape() -> None:
    newer = _newer_schema()
    assert newer.format_for_target(Version(1, 19, 0)) == 1
    assert newer.format_for_target(Version(1, 20, 0)) == 2
    old = write_artifact(_vhlo(), Version(1, 19, 0), schema=newer)
    assert read_header(old).format_version == 1
    # the new field holds its default everywhere, so both shapes carry the same records
    new = write_artifact(_vhlo(), Version(1, 20, 0), schema=newer)
    assert read_header(new).format_version == 2
    assert old[read_header(old).body_offset :] == new[read_header(new).body_offset :]
    # a reader that knows only format 1 reads the format-2 artifact (its extra fields are defaults)
    assert print_ir(read_artifact(new)[1], generic=True) == print_ir(
        read_artifact(old)[1], generic=True
    )


def test_header_extra_fields_follow_the_rule(artifact: bytes) -> None:
    _, module = read_artifact(rewrite(artifact, lambda h, s: h.extend([None, 0, ""])))
    assert print_ir(module, generic=True) == print_ir(read_artifact(artifact)[1], generic=True)
    with pytest.raises(SerializationError, match="header record has 5 fields; this reader knows 4"):
        read_artifact(rewrite(artifact, lambda h, s: h.append("zstd")))


def test_declared_sizes_are_checked_before_allocating(artifact: bytes) -> None:
    import resource
    import time

    header_end = read_header(artifact).body_offset
    huge = [
        b"\xdd\xff\xff\xff\xff",  # an array of 4G elements
        b"\xdf\xff\xff\xff\xff",  # a map of 4G pairs
        b"\xc6\xff\xff\xff\xf0",  # 4 GB of bytes
        b"\xdb\xff\xff\xff\xf0",  # a 4 GB string
        b"\x91" * 3000 + b"\xc0",  # nesting deeper than any record
    ]
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, hard))
    try:
        for blob in huge:
            data = artifact[:header_end] + blob
            data = rewrite_size(data, header_end)
            t = time.perf_counter()
            with pytest.raises(SerializationError) as e:
                read_artifact(data)
            assert time.perf_counter() - t < 1.0
            assert _offset(e) >= read_header(data, check_body=False).body_offset
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def rewrite_size(data: bytes, header_end: int) -> bytes:
    """Fix the header's body size for a body spliced in by hand."""
    import msgpack

    up = msgpack.Unpacker(raw=False)
    up.feed(data[len(MAGIC) : header_end])
    header = up.unpack()
    header[3] = len(data) - header_end
    return MAGIC + msgpack.packb(header) + data[header_end:]


def test_attribute_tensors_cannot_stand_for_billions_of_elements() -> None:
    text = (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.transpose %a, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  return %0 : tensor<4xf32>\n}\n"
    )
    data = write_artifact(_vhlo(text), get_current_version())

    def edit(header, sections):
        for e in sections[0]:
            if e[:3] == [0, 20, [1]]:  # tensor<1xi64>, the type of `dims = [0]`
                e[2] = [1 << 31]

    with pytest.raises(SerializationError, match="splat tensor standing for 2147483648 elements"):
        read_artifact(rewrite(data, edit))
    # a constant's value may be a huge splat: it stays one element in memory
    big = "func.func @main() -> tensor<2147483647xf32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<2147483647xf32>\n  return %0 : tensor<2147483647xf32>\n}\n"
    read_artifact(write_artifact(_vhlo(big), get_current_version()))
