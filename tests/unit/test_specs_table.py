"""The version tables in specs/*.toml: diffed against upstream's facts, and checked for consistency.

The diff against ``../shared/reference/vhlo_ops.json`` and ``vhlo_types_attrs.json`` (extracted
from upstream's VhloOps.td / VhloTypes.td / VhloAttrs.td / VhloBytecode.cpp) is skipped when the
shared folder is absent (a user's clone); the consistency checks always run.
"""

from __future__ import annotations

import datetime
import itertools
import json
import re
from typing import Any

import pytest

from stablehlo_py import specs
from stablehlo_py.version import Version

from tests.conftest import SHARED  # noqa: E402
REFERENCE = SHARED / "reference"
CONFORMANCE_VHLO = SHARED / "conformance" / "vhlo"

needs_reference = pytest.mark.skipif(
    not (REFERENCE / "vhlo_ops.json").is_file(), reason="../shared/reference is absent"
)


def _load(name: str) -> Any:
    return json.loads((REFERENCE / name).read_text(encoding="utf-8"))


def _values(rows: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    return [(r["name"], r["variadic"]) for r in rows]


def _spec_values(values: tuple[specs.ValueSpec, ...]) -> list[tuple[str, bool]]:
    return [(v.name, v.variadic) for v in values]


# --------------------------------------------------------------------------------------------
# Diff against upstream's facts


@needs_reference
def test_ops_have_the_same_names_as_upstream() -> None:
    upstream = {o["mnemonic"] for o in _load("vhlo_ops.json")}
    ours = {o.mnemonic for o in specs.ops()}
    assert ours == upstream, (
        f"only in specs: {sorted(ours - upstream)}; only upstream: {sorted(upstream - ours)}"
    )
    assert len(specs.ops()) == len(_load("vhlo_ops.json")) == 145


@needs_reference
@pytest.mark.parametrize(
    "row", _load("vhlo_ops.json") if REFERENCE.is_dir() else [], ids=lambda r: r["mnemonic"]
)
def test_op_matches_upstream(row: dict[str, Any]) -> None:
    spec = specs.op(row["mnemonic"])
    assert spec.name == f"{row['name']}_v{row['version']}"
    assert spec.base == row["name"]
    assert spec.version == row["version"]
    assert spec.td_def == row["td_def"]
    assert (spec.min, spec.max) == (row["min"], row["max"])
    assert _spec_values(spec.operands) == _values(row["operands"])
    assert list(spec.attribute_names) == row["attributes"], "attributes differ or are reordered"
    assert _spec_values(spec.results) == _values(row["results"])
    assert _spec_values(spec.regions) == _values(row["regions"])
    assert list(spec.traits) == row["traits"]
    assert spec.assembly_format == row["assembly_format"]
    expected_map = row["stablehlo"].split("|") if row["stablehlo"] else []
    assert list(spec.stablehlo) == expected_map


def _upstream_rows(key: str, ours: list[Any], count: int) -> list[dict[str, Any]]:
    """Upstream's `key` rows of vhlo_types_attrs.json (`count` of them), once ours are checked to
    name the same ones in the same order."""
    upstream = _load("vhlo_types_attrs.json")[key]
    assert [s.name for s in ours] == [r["name"] for r in upstream]
    assert len(upstream) == count
    return upstream


def _assert_common_fields(spec: Any, row: dict[str, Any]) -> None:
    """The fields a type's and an attribute's row share: definition, versions, bytecode code."""
    assert (spec.td_def, spec.cpp) == (row["td_def"], row["cpp"])
    assert (spec.min, spec.max) == (row["min"], row["max"]), row["name"]
    assert spec.bytecode_code == row["bytecode_code"], row["name"]


@needs_reference
def test_types_match_upstream() -> None:
    for row in _upstream_rows("types", specs.types(), 42):
        spec = specs.type_spec(row["name"])
        assert spec.mnemonic == f"!vhlo.{row['name']}"
        assert list(spec.parameters) == row["parameters"], row["name"]
        _assert_common_fields(spec, row)


@needs_reference
def test_attributes_match_upstream() -> None:
    for row in _upstream_rows("attributes", specs.attrs(), 25):
        spec = specs.attr_spec(row["name"])
        assert spec.kind == row["kind"], row["name"]
        assert list(spec.parameters) == row.get("parameters", []), row["name"]
        assert [(c.name, c.value) for c in spec.cases] == [
            (c["name"], c["value"]) for c in row.get("cases", [])
        ], row["name"]
        _assert_common_fields(spec, row)


@pytest.mark.skipif(
    not (CONFORMANCE_VHLO / "stablehlo_legalize_to_vhlo.mlir").is_file(),
    reason="../shared/conformance is absent",
)
def test_vhlo_defaults_appear_in_upstream_legalization_checks() -> None:
    """Every ``vhlo_default`` is what upstream's stablehlo-legalize-to-vhlo writes (its CHECKs)."""
    text = (CONFORMANCE_VHLO / "stablehlo_legalize_to_vhlo.mlir").read_text(encoding="utf-8")
    missing: list[str] = []
    for spec in specs.ops():
        for attribute in spec.attributes:
            if attribute.vhlo_default is None:
                continue
            pattern = re.escape(f"{attribute.name} = {attribute.vhlo_default}")
            pattern = pattern.replace("tensor<N", r"tensor<\d+")
            if not re.search(pattern, text):
                missing.append(f"{spec.name}.{attribute.name}")
    assert not missing


# --------------------------------------------------------------------------------------------
# Consistency (always runs)


def test_bytecode_codes_are_unique() -> None:
    type_codes = [t.bytecode_code for t in specs.types()]
    attr_codes = [a.bytecode_code for a in specs.attrs()]
    assert len(set(type_codes)) == len(type_codes)
    assert len(set(attr_codes)) == len(attr_codes)


def test_forks_are_contiguous_and_one_is_current() -> None:
    bases = {o.base for o in specs.ops()}
    assert len(bases) == 120
    for base in bases:
        family = specs.forks(base)
        assert [f.version for f in family] == list(range(1, len(family) + 1)), base
        for older, newer in itertools.pairwise(family):
            assert not older.is_current, f"{older.name} is superseded but still current"
            nxt = older.max_version.minor + 1
            assert newer.min_version in (
                Version(older.max_version.major, nxt, 0),
                Version(older.max_version.major + 1, 0, 0),
            ), f"gap or overlap between {older.name} and {newer.name}"
        assert family[-1].is_current, base
        assert specs.current_fork(base) is family[-1]
        # Only the current fork maps directly to StableHLO (when anything maps at all).
        assert all(not f.stablehlo for f in family[:-1]), base


def test_every_version_bound_is_a_release() -> None:
    released = {str(r.version) for r in specs.releases()}
    for row in (*specs.ops(), *specs.types(), *specs.attrs()):
        assert row.min in released, row.name
        assert row.max == "current" or row.max in released, row.name


def test_release_log() -> None:
    log = specs.releases()
    versions = [str(r.version) for r in log]
    assert versions[0] == "0.9.0" and versions[-1] == "1.22.0"
    assert versions == [f"0.{m}.0" for m in range(9, 21)] + [f"1.{m}.0" for m in range(23)]
    # Every release is dated by its vX.Y.0 tag, except the minors with no such tag within reach.
    untagged = [str(r.version) for r in log if not r.tagged]
    assert untagged == ["0.20.0", "1.17.0", "1.20.0", "1.21.0", "1.22.0"]
    assert all(r.date is None for r in log if not r.tagged)
    dates = [r.date for r in log if r.date is not None]
    assert len(dates) == len(log) - len(untagged)
    assert all(type(d) is datetime.date for d in dates)
    assert dates == sorted(dates)
    assert log[0].date == datetime.date(2023, 3, 2)
    assert specs.release("1.7.0").date == datetime.date(2024, 9, 5)
    assert specs.release("1.7.0").tagged
    assert specs.release("1.9.4").version == Version(1, 9, 0)
    assert log[0].changes == ("Initial stability guarantees.",)
    assert specs.release("0.13.0").changes == ()  # no entry in upstream's version log
    assert [r.mlir_bytecode_version for r in log[:6]] == [0, 1, 1, 3, 3, 4]
    assert log[-1].mlir_bytecode_version == 6


RELEASE_TAGS = REFERENCE / "release_tags.txt"
_TAG_LINE = re.compile(r"v([0-9]+\.[0-9]+\.[0-9]+)\s+([0-9]{4}-[0-9]{2}-[0-9]{2})")


def _tag_dates() -> dict[Version, datetime.date]:
    """Upstream's vX.Y.Z tags and their dates, from ``release_tags.txt`` (``vX.Y.Z YYYY-MM-DD``)."""
    tags: dict[Version, datetime.date] = {}
    for line in RELEASE_TAGS.read_text(encoding="utf-8").splitlines():
        match = _TAG_LINE.fullmatch(line.strip())
        if match is None:
            continue  # blank lines, non-release tags
        tags[Version.from_string(match[1])] = datetime.date.fromisoformat(match[2])
    return tags


def _x_y_0_tag_dates() -> dict[Version, datetime.date]:
    """Upstream's vX.Y.0 tags and their dates."""
    return {v: day for v, day in _tag_dates().items() if v.patch == 0}


@pytest.mark.skipif(
    not RELEASE_TAGS.is_file(), reason="../shared/reference/release_tags.txt is absent"
)
def test_every_tag_in_range_is_in_the_log_with_its_date() -> None:
    """The release log's tags (vX.Y.0 and patch tags) are exactly upstream's, with their days."""
    log = specs.releases()
    ours = {tag: day for r in log for tag, day in r.tags()}
    theirs = {
        v: day
        for v, day in _tag_dates().items()
        if log[0].version <= v.with_zero_patch() <= log[-1].version
    }
    assert ours == theirs


@pytest.mark.skipif(
    not RELEASE_TAGS.is_file(), reason="../shared/reference/release_tags.txt is absent"
)
def test_release_dates_are_upstream_tag_dates() -> None:
    """Each release's date is its vX.Y.0 tag's date; ``tagged = false`` exactly when there is none."""
    tags = _x_y_0_tag_dates()
    assert tags, f"no vX.Y.0 tags read from {RELEASE_TAGS}"
    log = specs.releases()
    for r in log:
        if r.version in tags:
            assert r.tagged, (
                f"{r.version} is tagged upstream ({tags[r.version]}) but tagged = false"
            )
            assert r.date == tags[r.version], f"{r.version}: {r.date}, tag date {tags[r.version]}"
        else:
            assert not r.tagged, f"{r.version} has no v{r.version} tag but is not tagged = false"
            assert r.date is None, f"{r.version} has no tag but a date ({r.date})"
    # And no X.Y.0 tag inside the supported range is missing from the log.
    in_range = {t for t in tags if log[0].version <= t <= log[-1].version}
    assert in_range <= {r.version for r in log}


def test_every_new_feature_has_a_release_entry() -> None:
    """A version where a fork, type or attribute starts has a dated entry with changes."""
    starts = {row.min for row in (*specs.ops(), *specs.types(), *specs.attrs())}
    for version in starts - {"0.9.0"}:
        assert specs.release(version).changes, version


def test_default_rules_use_the_known_vocabulary() -> None:
    for spec in specs.ops():
        for attribute in spec.attributes:
            if attribute.default_rule is not None:
                assert attribute.default_rule in specs.DEFAULT_RULES
                assert attribute.default is None
            if attribute.default is not None or attribute.default_rule is not None:
                assert attribute.vhlo_default is not None, f"{spec.name}.{attribute.name}"


def test_known_defaults() -> None:
    assert specs.op("compare_v1").attribute("compare_type").default == (
        "#stablehlo<comparison_type NOTYPE>"
    )
    assert specs.op("sort_v1").attribute("dimension").default == "-1 : i64"
    assert specs.op("custom_call_v2").attribute("result_tilings").default == "[]"
    assert specs.op("convolution_v1").attribute("window_strides").default_rule == (
        "ones(num_spatial_dims)"
    )
    assert not specs.op("compare_v1").attribute("comparison_direction").has_default
    tanh = specs.op("tanh_v2").attribute("result_accuracy")
    assert tanh.default is not None and "DEFAULT" in tanh.default


def test_lookups() -> None:
    assert specs.op("add_v1") is specs.op("vhlo.add_v1")
    assert specs.op_for_stablehlo("stablehlo.add").name == "add_v1"
    assert specs.op_for_stablehlo("func.return").name == "return_v1"
    assert specs.op_for_stablehlo("stablehlo.return").name == "return_v1"
    assert specs.op_for_stablehlo("func.func").name == "func_v1"
    assert specs.op_for_stablehlo("stablehlo.all_gather").name == "all_gather_v2"
    assert [f.name for f in specs.forks("stablehlo.all_gather")] == [
        "all_gather_v1",
        "all_gather_v2",
    ]
    assert specs.forks("all_gather_v1") == specs.forks("all_gather")
    assert specs.fork_at("all_gather", "1.4.0") is specs.op("all_gather_v1")
    assert specs.fork_at("all_gather", Version(1, 5, 0)) is specs.op("all_gather_v2")
    assert specs.fork_at("tan", "1.3.0") is None
    assert specs.type_spec("!vhlo.f32_v1").bytecode_code == 4
    assert specs.attr_spec("comparison_direction_v1").case("GT").value == 3
    with pytest.raises(KeyError, match="no VHLO op named"):
        specs.op("nonexistent_v9")
    with pytest.raises(KeyError):
        specs.op_for_stablehlo("stablehlo.nonexistent")
    with pytest.raises(KeyError):
        specs.release("0.8.0")


def test_legality_is_a_range_test() -> None:
    at_current = specs.ops_legal_at("current")
    assert len(at_current) == 120
    assert {o.base for o in at_current} == {o.base for o in specs.ops()}
    at_min = {o.name for o in specs.ops_legal_at("0.9.0")}
    assert "add_v1" in at_min and "all_gather_v1" in at_min
    assert "all_gather_v2" not in at_min and "tan_v1" not in at_min
    assert "collective_broadcast_v1" not in at_min
    assert specs.op("collective_broadcast_v1").is_legal_at("0.16.0")
    assert specs.op("collective_broadcast_v1").is_legal_at("1.19.0")
    assert not specs.op("collective_broadcast_v1").is_legal_at("1.20.0")
    assert specs.op("cbrt_v1").is_legal_at(Version(1, 9, 7))  # patch treated as 0
    # upstream vhlo_to_version_downgrade_patch.mlir: target 1.4.1 selects all_to_all_v1
    assert specs.fork_at("all_to_all", "1.4.1") is specs.op("all_to_all_v1")
    assert specs.fork_at("all_to_all", "1.5.3") is specs.op("all_to_all_v2")
    types_at_min = {t.name for t in specs.types_legal_at("0.9.0")}
    assert "f32_v1" in types_at_min and "f8E4M3FNUZ_v1" not in types_at_min
    assert "result_accuracy_v1" not in {a.name for a in specs.attrs_legal_at("1.8.0")}
    assert "result_accuracy_v1" in {a.name for a in specs.attrs_legal_at("1.9.0")}


def test_toml_ships_as_package_data() -> None:
    from importlib import resources

    names = {p.name for p in resources.files("stablehlo_py.specs").iterdir()}
    assert {"ops.toml", "types.toml", "releases.toml"} <= names


# --------------------------------------------------------------------------------------------
# Legalization keys (stablehlo_field, integer_enum, vhlo_default_when) and what derives from them


def test_legalization_keys_are_read() -> None:
    channel = specs.op("all_gather_v2").attribute("channel_id")
    assert channel.stablehlo_field == ("channel_handle", "handle")
    custom = specs.op("custom_call_v2")
    assert custom.attribute("api_version").integer_enum == "api_version_v1"
    assert custom.attribute("backend_config").vhlo_default_when == (
        "api_version",
        "#vhlo<api_version_v1 API_VERSION_TYPED_FFI>",
        "#vhlo.dict_v1<{}>",
    )
    assert specs.op("send_v2").attribute("channel_id").stablehlo_field is None  # a flattened struct
    held = {s.base for s in specs.ops() for a in s.attributes if a.stablehlo_field}
    assert held == {
        "all_gather", "all_reduce", "all_to_all", "collective_permute", "reduce_scatter",
        "collective_broadcast", "collective_reduce",
    }


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        ("stablehlo_field", "channel_handle", "stablehlo_field must be '<attribute>.<field>'"),
        ("integer_enum", "no_such_enum_v1", "integer_enum 'no_such_enum_v1' is not a VHLO enum"),
        ("vhlo_default_when", {"attribute": "api_version"}, "vhlo_default_when needs exactly"),
        (
            "vhlo_default_when",
            {"attribute": "nope", "equals": "x", "default": "y"},
            "vhlo_default_when names 'nope'",
        ),
    ],
)
def test_legalization_keys_are_checked(monkeypatch, attribute: str, value: Any, message: str) -> None:
    real = specs._read

    def read(filename: str) -> Any:
        data = real(filename)
        if filename == "ops.toml":
            for row in data["op"]:
                if row["name"] == "custom_call_v2":
                    row["attributes"][2][attribute] = value  # backend_config
        return data

    # the uncached loader (see tests/unit/serialization/test_codes.py)
    monkeypatch.setattr(specs, "_read", read)
    with pytest.raises(ValueError, match="inconsistent table") as info:
        specs._tables.__wrapped__()
    assert message in str(info.value)


def test_legalization_cases_derive_from_rows_and_op_properties() -> None:
    """The legalize passes' special cases (vhlo/legalization.py), derived from the rows' keys and
    the StableHLO ops' property definitions, are the ones upstream's legalization makes."""
    from stablehlo_py.vhlo import legalization as lg

    found: dict[str, set[tuple[str, str]]] = {}
    channel: set[str] = set()
    for spec in specs.ops():
        if not spec.stablehlo:
            continue
        rules = lg.rules(spec.name)
        for name, kind in rules.kinds.items():
            found.setdefault(kind, set()).add((spec.base, name))
        for attribute, f in rules.fields.items():
            assert (attribute, f.vhlo, f.field.name) == ("channel_handle", "channel_id", "handle")
            channel.add(spec.base)
    dense = {
        "fft": {"fft_length"}, "broadcast": {"broadcast_sizes"}, "dynamic_slice": {"slice_sizes"},
        "reverse": {"dimensions"}, "transpose": {"permutation"},
        "pad": {"edge_padding_low", "edge_padding_high", "interior_padding"},
        "slice": {"start_indices", "limit_indices", "strides"},
        "broadcast_in_dim": {"broadcast_dimensions"},
        "dynamic_broadcast_in_dim": {
            "broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"
        },
        "select_and_scatter": {"window_dimensions", "window_strides"},
        "reduce_window": {"window_dimensions", "window_strides", "base_dilations", "window_dilations"},
        "map": {"dimensions"}, "reduce": {"dimensions"}, "gather": {"slice_sizes"},
        "convolution": {"lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"},
        "dynamic_conv": {"lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"},
    }
    assert found[lg.DENSE] == {(base, n) for base, names in dense.items() for n in names}
    assert found[lg.SYMBOL] == {("call", "callee"), ("composite", "decomposition")}
    assert found[lg.SYMBOLS] == {("custom_call", "called_computations")}
    assert found[lg.ENUM] == {("custom_call", "api_version")}
    assert found[lg.UNIT] == {
        (base, "use_global_device_ids")
        for base in ("all_gather", "all_reduce", "reduce_scatter", "collective_reduce")
    } | {("collective_broadcast", "has_dynamic_root"), ("collective_reduce", "has_dynamic_root")}
    assert channel == {
        "all_gather", "all_reduce", "all_to_all", "collective_permute", "reduce_scatter",
        "collective_broadcast", "collective_reduce",
    }
    custom = lg.rules("custom_call_v2")
    ffi = {"api_version": lg.parse_attr_text("#vhlo<api_version_v1 API_VERSION_TYPED_FFI>")}
    assert custom.vhlo_default("backend_config", ffi) == lg.parse_attr_text("#vhlo.dict_v1<{}>")
    assert custom.vhlo_default("backend_config", {}) is None
