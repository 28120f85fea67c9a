"""Wire codes: every VHLO op, type and attribute has exactly one, types and attributes use upstream's
bytecode codes, and the entry codecs cover the spec tables exactly (a table, one consumer, a test)."""

from __future__ import annotations

from stablehlo_py.serialization import codes
from stablehlo_py.serialization.entries import ATTR, CODECS, TYPE, codec_for_code

from stablehlo_py import specs


def test_every_op_fork_has_one_code() -> None:
    names = [o.name for o in specs.ops()]
    assert len(set(codes.OP_CODES)) == len(codes.OP_CODES)
    missing = sorted(set(names) - set(codes.OP_CODES))
    assert not missing, f"ops without a wire code (give their specs/ops.toml rows code = N): {missing}"
    for name in names:
        assert codes.op_name_for_code(codes.op_code(name)) == name


def test_op_codes_only_name_known_forks() -> None:
    # A fork that leaves the table keeps its code; today none has left.
    known = {o.name for o in specs.ops()}
    assert set(codes.OP_CODES) <= known


def test_type_and_attribute_codes_are_upstreams() -> None:
    for t in specs.types():
        assert codes.type_code(t.name) == t.bytecode_code
        assert codes.type_name_for_code(t.bytecode_code) == t.name
    for a in specs.attrs():
        assert codes.attr_code(a.name) == a.bytecode_code
        assert codes.attr_name_for_code(a.bytecode_code) == a.name
    assert codes.type_name_for_code(10_000) is None
    assert (
        codes.op_name_for_code(-1) is None and codes.op_name_for_code(len(codes.OP_CODES)) is None
    )


def test_entry_codecs_cover_the_tables_exactly() -> None:
    types = {c.name for c in CODECS if c.kind == TYPE}
    attrs = {c.name for c in CODECS if c.kind == ATTR}
    assert types == {t.name for t in specs.types()}
    assert attrs == {a.name for a in specs.attrs()}
    for c in CODECS:
        assert codec_for_code(c.kind, c.code) is c
        assert len(c.wire) == len(c.record.fields)
        # the parameters of the table are the codec's fields, in upstream's order
        params = c.spec.parameters
        if params and c.kind == TYPE:
            assert tuple(f.name for f in c.record.fields) == tuple(params), c.name


def test_spec_loader_refuses_shared_or_missing_op_codes(monkeypatch) -> None:
    """The codes live in specs/ops.toml rows; two forks with one code, or a gap, are refused at load
    with the names and codes involved."""
    import pytest

    real = specs._read

    def edited(code_of_sub: int):
        def read(filename: str):
            data = real(filename)
            if filename == "ops.toml":
                for row in data["op"]:
                    if row["name"] == "subtract_v1":
                        row["code"] = code_of_sub
            return data

        return read

    for code, message in ((0, "ops share a wire code: {0: ['abs_v1', 'subtract_v1']}"),
                          (999, "outside or missing: [")):
        # the uncached loader: clearing the process-wide cache would hand every later test new
        # OpSpec objects (the generated VHLO classes hold the first ones)
        monkeypatch.setattr(specs, "_read", edited(code))
        try:
            with pytest.raises(ValueError, match="inconsistent table") as info:
                specs._tables.__wrapped__()
            assert message in str(info.value)
        finally:
            monkeypatch.setattr(specs, "_read", real)
    assert specs.op("subtract_v1") is specs._tables().op_by_name["subtract_v1"]
    assert specs.op("subtract_v1").code == codes.op_code("subtract_v1")
