"""stablehlo_py.version: parsing, ordering, the supported range, compatibility targets."""

from __future__ import annotations

import datetime

import pytest

import stablehlo_py
from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError, VersionError
from stablehlo_py.version import (
    CompatibilityRequirement,
    Version,
    get_current_version,
    get_minimum_version,
    get_smaller_version,
    get_version_from_compatibility_requirement,
    validate_target,
)


def v(text: str) -> Version:
    return Version.from_string(text)


# --------------------------------------------------------------------------------------------
# Version


def test_parse_and_print() -> None:
    assert v("1.20.0") == Version(1, 20, 0)
    assert str(Version(0, 9, 0)) == "0.9.0"
    assert str(v("10.200.3000")) == "10.200.3000"
    assert Version.parse("1.2.3") == Version(1, 2, 3)
    assert v("01.02.03") == Version(1, 2, 3)


def test_ordering_is_numeric_not_lexical() -> None:
    assert v("0.9.0") < v("0.10.0") < v("0.20.0") < v("1.0.0") < v("1.2.0") < v("1.10.0")
    assert v("1.4.1") > v("1.4.0")
    assert sorted([v("1.10.0"), v("1.9.0"), v("0.20.0")]) == [v("0.20.0"), v("1.9.0"), v("1.10.0")]
    assert max(v("1.2.3"), v("1.2.10")) == v("1.2.10")


def test_frozen_and_hashable() -> None:
    version = v("1.2.3")
    assert {version: 1}[Version(1, 2, 3)] == 1
    with pytest.raises(AttributeError):
        version.major = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "v1.2.3",
        "1.2.x",
        "1..3",
        " 1.2.3",
        "1.2.3 ",
        "-1.2.3",
        "1.2.-3",
        "a.b.c",
        "1,2,3",
        "current",
    ],
)
def test_bad_text_is_refused_with_a_clear_error(text: str) -> None:
    with pytest.raises(VersionError) as info:
        Version.from_string(text)
    message = str(info.value)
    assert repr(text)[1:-1] in message or text in message
    assert "MAJOR.MINOR.PATCH" in message
    assert isinstance(info.value, StableHLOError)


def test_bad_parts_are_refused() -> None:
    with pytest.raises(VersionError):
        Version(1, -1, 0)
    with pytest.raises(VersionError):
        Version(1, 2, "3")  # type: ignore[arg-type]
    with pytest.raises(VersionError):
        Version.from_string(123)  # type: ignore[arg-type]


def test_with_zero_patch() -> None:
    assert v("1.7.9").with_zero_patch() == v("1.7.0")


# --------------------------------------------------------------------------------------------
# Range


def test_current_and_minimum_come_from_the_release_log() -> None:
    assert get_current_version() == v("1.22.0") == specs.releases()[-1].version
    assert get_minimum_version() == v("0.9.0") == specs.releases()[0].version


def test_get_smaller_version() -> None:
    assert get_smaller_version("1.2.0", "0.20.0") == v("0.20.0")
    assert get_smaller_version(v("1.10.0"), "1.9.0") == v("1.9.0")
    assert get_smaller_version("1.3.0", "1.3.0") == v("1.3.0")
    with pytest.raises(VersionError):
        get_smaller_version("1.2", "1.3.0")


def test_patch_is_kept_and_its_opset_is_x_y_0() -> None:
    # As upstream (jaxlib 0.12 writes the producer StableHLO_v1.16.3 for target "1.16.3").
    assert validate_target("1.7.3") == v("1.7.3")
    assert validate_target("1.7.3").with_zero_patch() == v("1.7.0")
    assert validate_target(v("0.9.5")) == v("0.9.5")
    assert validate_target("1.20.9") == v("1.20.9")
    assert validate_target("current") == get_current_version()
    assert validate_target("1.5.0") == v("1.5.0")


@pytest.mark.parametrize("target", ["1.23.0", "1.22.1", "2.0.0", "0.8.0", "0.8.99", "0.0.0"])
def test_out_of_range_target_is_refused_with_the_valid_range(target: str) -> None:
    with pytest.raises(VersionError) as info:
        validate_target(target)
    message = str(info.value)
    assert target in message
    assert "0.9.0" in message and "1.22.0" in message


def test_bad_target_text_is_refused() -> None:
    with pytest.raises(VersionError, match="MAJOR.MINOR.PATCH"):
        validate_target("latest")


# --------------------------------------------------------------------------------------------
# Compatibility requirements


def test_none_and_max() -> None:
    day = datetime.date(2025, 1, 1)
    assert get_version_from_compatibility_requirement(CompatibilityRequirement.NONE, day) == v(
        "1.22.0"
    )
    assert get_version_from_compatibility_requirement(CompatibilityRequirement.MAX, day) == v(
        "0.9.0"
    )
    assert get_version_from_compatibility_requirement(CompatibilityRequirement.NONE) == v("1.22.0")


def test_enum_values_match_upstream() -> None:
    assert [(r.name, r.value) for r in CompatibilityRequirement] == [
        ("NONE", 0),
        ("WEEK_4", 1),
        ("WEEK_12", 2),
        ("MAX", 3),
    ]


def test_week_4_is_the_newest_release_at_least_28_days_old() -> None:
    tagged = datetime.date(2024, 9, 5)  # the v1.7.0 tag
    assert specs.release("1.7.0").date == tagged
    week4 = CompatibilityRequirement.WEEK_4
    assert get_version_from_compatibility_requirement(week4, tagged + datetime.timedelta(28)) == (
        v("1.7.0")
    )
    assert get_version_from_compatibility_requirement(week4, tagged + datetime.timedelta(27)) == (
        v("1.6.3")  # the newest tag then: v1.6.3, 2024-08-30
    )
    # Upstream's own bump on 2024-10-03/04 (PR #2579): WEEK_4 = 1.7.0, "released 29 days ago".
    assert get_version_from_compatibility_requirement(week4, datetime.date(2024, 10, 4)) == (
        v("1.7.0")
    )


def test_week_12_is_the_newest_release_at_least_84_days_old() -> None:
    week12 = CompatibilityRequirement.WEEK_12
    # Upstream's PR #2584 (2024-10-09): 1.3.0 tagged July 16 is "12w perfectly"; 1.4.0 the same day.
    assert get_version_from_compatibility_requirement(week12, datetime.date(2024, 10, 8)) == (
        v("1.4.0")
    )
    assert get_version_from_compatibility_requirement(week12, datetime.date(2024, 10, 7)) == (
        v("1.2.0")
    )
    # PR #2599 (2024-10-24): WEEK_12 = v1.5.0 tagged 2024-08-01, 84 days ago.
    assert get_version_from_compatibility_requirement(week12, datetime.date(2024, 10, 24)) == (
        v("1.5.0")
    )


def test_far_future_today_gives_the_newest_tagged_release() -> None:
    # 1.20.0 ... 1.22.0 (the current version) have no tag date within reach, so are no answer.
    far = datetime.date(2100, 1, 1)
    newest_tagged = [r.version for r in specs.releases() if r.tagged][-1]
    assert newest_tagged == v("1.19.0")
    for requirement in (CompatibilityRequirement.WEEK_4, CompatibilityRequirement.WEEK_12):
        assert get_version_from_compatibility_requirement(requirement, far) == newest_tagged


@pytest.mark.parametrize(
    ("day", "week4", "week12"),
    [
        # Upstream's own bumps of Version.cpp's anchors, each computed from the tag list that day.
        (datetime.date(2024, 10, 14), "1.7.1", "1.4.1"),  # PR #2589
        (datetime.date(2024, 10, 22), "1.7.3", "1.4.2"),  # PR #2596
        (datetime.date(2024, 10, 24), "1.7.5", "1.5.0"),  # PR #2599
        # PR #2621 (merged 2024-11-11) chose 1.7.7 although v1.7.8 (2024-10-14) was 28 days old
        # that day: the anchors may be older than needed ("as long as the version satisfies the
        # requirement", Version.cpp).  The day before, the newest qualifying tag is 1.7.7.
        (datetime.date(2024, 11, 10), "1.7.7", "1.6.0"),
        # The anchors at upstream 3c9301c (2026-08-13): 1.17.0, never tagged, is passed over.
        (datetime.date(2026, 8, 13), "1.18.0", "1.16.2"),
        # jaxlib 0.12.0.1's anchors (established by calling it: frozen in the build), ours on the
        # days they were chosen (v1.16.3 84 days old from 2026-08-14, v1.19.0 28 days old from
        # 2026-09-10).
        (datetime.date(2026, 8, 14), "1.18.0", "1.16.3"),
        (datetime.date(2026, 9, 9), "1.18.0", "1.16.3"),
        # Later days move on where a jaxlib build keeps its anchors (issue 31's note).
        (datetime.date(2026, 9, 10), "1.19.0", "1.16.3"),
        (datetime.date(2026, 11, 28), "1.19.0", "1.19.0"),
    ],
)
def test_targets_match_upstreams_anchors(day: datetime.date, week4: str, week12: str) -> None:
    # Upstream names the newest tag, often a patch tag, and so do we (the patch is kept).
    got4 = get_version_from_compatibility_requirement(CompatibilityRequirement.WEEK_4, day)
    got12 = get_version_from_compatibility_requirement(CompatibilityRequirement.WEEK_12, day)
    assert got4 == v(week4)
    assert got12 == v(week12)


def test_untagged_releases_are_never_targets() -> None:
    untagged = {r.version for r in specs.releases() if not r.tagged}
    assert untagged == {v("0.20.0"), v("1.17.0"), v("1.20.0"), v("1.21.0"), v("1.22.0")}
    answers: set[Version] = set()
    day = datetime.date(2023, 1, 1)
    while day < datetime.date(2027, 6, 1):
        for requirement in (CompatibilityRequirement.WEEK_4, CompatibilityRequirement.WEEK_12):
            answers.add(get_version_from_compatibility_requirement(requirement, day))
        day += datetime.timedelta(days=1)
    assert not answers & untagged

    # The step over an untagged minor goes straight from the release before to the one after.
    def week4(day: datetime.date) -> Version:
        return get_version_from_compatibility_requirement(CompatibilityRequirement.WEEK_4, day)

    one_0 = datetime.date(2024, 5, 14)  # v1.0.0; 0.20.0 was bumped to but never tagged
    assert specs.release("1.0.0").date == one_0
    assert week4(one_0 + datetime.timedelta(27)) == v("0.19.10")
    assert week4(one_0 + datetime.timedelta(28)) == v("1.0.0")
    one_18 = datetime.date(2026, 6, 29)  # v1.18.0; 1.17.0 was never tagged
    assert specs.release("1.18.0").date == one_18
    assert week4(one_18 + datetime.timedelta(27)) == v("1.16.3")
    assert week4(one_18 + datetime.timedelta(28)) == v("1.18.0")
    # An untagged release is still a valid target, and the current version when it is the newest.
    assert validate_target("1.17.0") == v("1.17.0")
    assert get_version_from_compatibility_requirement(CompatibilityRequirement.NONE) == v("1.22.0")


def test_today_before_any_release_is_old_enough_gives_the_minimum() -> None:
    early = datetime.date(2023, 3, 10)
    for requirement in (CompatibilityRequirement.WEEK_4, CompatibilityRequirement.WEEK_12):
        assert get_version_from_compatibility_requirement(requirement, early) == v("0.9.0")


def test_requirements_are_monotonic_over_time() -> None:
    day = datetime.date(2023, 1, 1)
    last4 = last12 = get_minimum_version()
    while day < datetime.date(2027, 1, 1):
        w4 = get_version_from_compatibility_requirement(CompatibilityRequirement.WEEK_4, day)
        w12 = get_version_from_compatibility_requirement(CompatibilityRequirement.WEEK_12, day)
        assert w12 <= w4
        assert w4 >= last4 and w12 >= last12
        last4, last12 = w4, w12
        day += datetime.timedelta(days=7)


def test_requirement_by_name() -> None:
    day = datetime.date(2024, 10, 24)
    assert get_version_from_compatibility_requirement("WEEK_12", day) == v("1.5.0")
    assert get_version_from_compatibility_requirement("max", day) == v("0.9.0")
    with pytest.raises(VersionError, match="WEEK_4"):
        get_version_from_compatibility_requirement("WEEK_8", day)


def test_results_are_valid_targets() -> None:
    day = datetime.date(2025, 6, 1)
    for requirement in CompatibilityRequirement:
        target = get_version_from_compatibility_requirement(requirement, day)
        assert validate_target(target) == target


def test_exported_from_package() -> None:
    assert stablehlo_py.Version is Version
    assert stablehlo_py.CompatibilityRequirement is CompatibilityRequirement
    assert stablehlo_py.get_current_version() == v("1.22.0")
    assert stablehlo_py.get_minimum_version() == v("0.9.0")
    assert stablehlo_py.get_smaller_version is get_smaller_version
    assert stablehlo_py.get_version_from_compatibility_requirement is (
        get_version_from_compatibility_requirement
    )
    assert stablehlo_py.validate_target is validate_target
