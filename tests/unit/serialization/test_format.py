"""The container: magic, header (readable alone), and the struct_size rule on records."""

from __future__ import annotations

import msgpack
import pytest
from stablehlo_py.serialization.format import (
    CURRENT_SCHEMA,
    FORMAT_VERSIONS,
    MAGIC,
    Field,
    Record,
    is_zero,
    parse_producer,
    producer_string,
)

from stablehlo_py.errors import SerializationError
from stablehlo_py.version import Version, get_current_version, get_minimum_version


def test_every_record_default_is_a_zero_value() -> None:
    for rec in CURRENT_SCHEMA.records.values():
        for f in rec.fields:
            assert f.required or is_zero(f.default), (rec.name, f.name)


def test_defaults_must_be_zero_and_late_fields_need_one() -> None:
    with pytest.raises(ValueError):
        Field("x", default=1)
    with pytest.raises(ValueError):
        Field("x", since=2, required=True)
    with pytest.raises(ValueError):
        Record("r", (Field("a", since=2, default=0), Field("b", since=1, default=0)))


def test_format_versions_cover_every_target() -> None:
    assert FORMAT_VERSIONS[1] == get_minimum_version()
    for v in (get_minimum_version(), Version(1, 0, 0), get_current_version()):
        assert CURRENT_SCHEMA.format_for_target(v) >= 1


def test_producer_string() -> None:
    assert producer_string(Version(1, 2, 3)) == "StableHLO_v1.2.3"
    assert parse_producer("StableHLO_v1.2.3") == Version(1, 2, 3)
    for bad in (
        "StableHLO_v1.2",
        "stablehlo_v1.2.3",
        "StableHLO_v1.2.3 ",
        3,
        None,
        "StableHLO_v1.2.x",
    ):
        assert parse_producer(bad) is None


# -- the struct_size rule, on one record kind

REC = Record(
    "r", (Field("a", required=True), Field("b", default=0), Field("c", since=2, default=()))
)


def test_pack_trims_trailing_defaults() -> None:
    assert REC.pack([5, 0, []], 2) == [5]
    assert REC.pack([5, 7, []], 2) == [5, 7]
    assert REC.pack([5, 0, [1]], 2) == [5, 0, [1]]


def test_writer_for_an_older_format_writes_the_older_shape() -> None:
    assert REC.width(1) == 2 and REC.width(2) == 3
    assert REC.pack([5, 7, []], 1) == [5, 7]
    with pytest.raises(SerializationError, match="field 'c'.*introduced in format version 2"):
        REC.pack([5, 7, [1]], 1)


def test_reader_accepts_default_extras_and_refuses_others() -> None:
    old = Record("r", REC.fields[:2])
    assert old.extra_fields_problem([5, 7, []]) is None
    assert old.extra_fields_problem([5, 7, [], None, 0, False, ""]) is None
    problem = old.extra_fields_problem([5, 7, [1]])
    assert problem is not None and "field 2" in problem and "not a default" in problem
    assert old.missing_required([]) is not None


def test_header_is_a_small_array_after_the_magic() -> None:
    assert MAGIC.startswith(b"\x89") and b"\r\n" in MAGIC
    header = CURRENT_SCHEMA["header"].pack([1, "StableHLO_v1.0.0", "stablehlo-py 0.1.0", 10], 1)
    blob = MAGIC + msgpack.packb(header)
    from stablehlo_py.serialization.reader import read_header

    h = read_header(blob, check_body=False)
    assert (h.format_version, h.version, h.toolkit, h.body_size) == (
        1,
        Version(1, 0, 0),
        "stablehlo-py 0.1.0",
        10,
    )
    with pytest.raises(
        SerializationError, match="truncated: the header declares a body of 10 bytes, 0"
    ):
        read_header(blob)
