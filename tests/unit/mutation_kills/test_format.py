"""serialization/format.py: the words and values that the rest of the suite did not pin (mutation
group `format`, docs/MUTATION.md): zero values, located errors, the schema's own refusals, the
truncation of a value shown in a message, and schema extension."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import SerializationError
from stablehlo_py.serialization.format import (
    CURRENT_SCHEMA,
    Field,
    Record,
    _short,
    artifact_error,
    is_zero,
)
from stablehlo_py.version import Version


@pytest.mark.parametrize(
    ("value", "zero"),
    [
        (None, True),
        (False, True),
        (True, False),
        (0, True),
        (0.0, True),
        (1, False),
        ("", True),
        ("x", False),
        (b"", True),
        ((), True),
        ([0], False),
        ({}, True),
        (object(), False),
    ],
)
def test_is_zero(value: object, zero: bool) -> None:
    assert is_zero(value) is zero


def test_artifact_error_locations() -> None:
    e = artifact_error("bad", 12, "a.shlo", note="try this")
    assert (e.message, e.location, e.note, e.offset) == ("bad", "a.shlo: byte 12", "try this", 12)
    assert str(e).startswith("a.shlo: byte 12: error: bad")
    e = artifact_error("bad", None)
    assert (e.location, e.offset) == ("<artifact>", None)
    assert str(e).startswith("<artifact>: error: bad")


def test_field_and_record_refusals_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"^field f: a field added after format 1 needs a default$"):
        Field("f", since=2, required=True)
    with pytest.raises(ValueError, match=r"^field g: a default must be a zero value, not 5$"):
        Field("g", default=5)
    with pytest.raises(ValueError, match=r"^record r: fields must be appended in format-version order$"):
        Record("r", (Field("a", since=2), Field("b", since=1)))
    with pytest.raises(ValueError, match=r"^record r: required fields must come first$"):
        Record("r", (Field("a"), Field("b", required=True)))


def test_pack_refusal_says_what_to_do() -> None:
    rec = Record("op", (Field("a", required=True), Field("b", since=2, default=0)))
    with pytest.raises(SerializationError) as info:
        rec.pack([1, 7], 1)
    assert info.value.message == (
        "cannot write field 'b' of a op record in format version 1: it was introduced in format "
        "version 2"
    )
    assert info.value.note == "choose a newer target version, or drop the feature that needs this field"


def test_missing_required_names_the_fields() -> None:
    rec = Record("hdr", (Field("x", required=True), Field("y", required=True), Field("z")))
    assert rec.missing_required([1]) == "hdr record has 1 fields; required field(s) y missing"
    assert rec.missing_required([]) == "hdr record has 0 fields; required field(s) x, y missing"
    assert rec.missing_required([1, 2]) is None


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a" * 38, repr("a" * 38)),  # 40 characters with the quotes: shown whole
        ("a" * 39, repr("a" * 39)[:37] + "..."),  # 41: cut to 37 and "..."
    ],
)
def test_short_cuts_at_40_characters(value: str, shown: str) -> None:
    assert _short(value) == shown
    assert len(_short(value)) <= 40


def test_format_for_target_refusal() -> None:
    with pytest.raises(SerializationError) as info:
        CURRENT_SCHEMA.format_for_target(Version(0, 0, 1))
    assert info.value.message == "no artifact format can be read by StableHLO 0.0.1"


def test_extended_schema() -> None:
    name = next(iter(CURRENT_SCHEMA.records))
    old = CURRENT_SCHEMA[name]
    newer = CURRENT_SCHEMA.format_version + 1
    ext = CURRENT_SCHEMA.extended(name, [Field("extra", since=newer, default=0)], newer, Version(99, 0, 0))
    assert ext.format_version == newer
    assert ext[name].name == old.name
    assert [f.name for f in ext[name].fields] == [*(f.name for f in old.fields), "extra"]
    assert ext.format_for_target(Version(99, 0, 0)) == newer
    # extending with an older format version keeps the schema's own version
    same = CURRENT_SCHEMA.extended(name, [], 1, Version(0, 9, 0))
    assert same.format_version == CURRENT_SCHEMA.format_version
