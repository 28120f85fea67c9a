"""Schema lint (CI): the VHLO tables and the artifact records only change the way compatibility allows
(a new fork, a version bump, upgrade/downgrade patterns, a golden artifact).  The real tables must
match the committed fingerprint; simulated changes show what the lint catches."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from stablehlo_py.serialization.schema_lint import (
    LintContext,
    current_fingerprint,
    lint,
    load_fingerprint,
)

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "tests" / "golden" / "schema.lock.json"


def _script():
    spec = importlib.util.spec_from_file_location(
        "schema_lint_script", REPO / ".ci" / "schema_lint.py"
    )
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_tables_match_the_committed_fingerprint(capsys: pytest.CaptureFixture[str]) -> None:
    code = _script().run(update=False)
    out = capsys.readouterr().out
    assert code == 0, out


@pytest.fixture()
def locked() -> dict[str, Any]:
    return current_fingerprint()


def _ctx(
    goldens: set[str] | None = None, patterns: set[tuple[str, str]] | None = None
) -> LintContext:
    return LintContext(goldens or set(), patterns if patterns is not None else set())


def test_unchanged_tables_are_clean(locked: dict[str, Any]) -> None:
    assert lint(locked, copy.deepcopy(locked), _ctx()) == []
    assert load_fingerprint(LOCK) == locked


def test_changing_an_op_definition_needs_a_new_fork(locked: dict[str, Any]) -> None:
    now = copy.deepcopy(locked)
    now["ops"]["compare_v1"]["definition"] = "0" * 16
    problems = lint(locked, now, _ctx())
    assert any(
        "compare_v1 changed its definition without a new fork" in p and "compare_v2" in p
        for p in problems
    )


def test_removing_or_moving_is_refused(locked: dict[str, Any]) -> None:
    now = copy.deepcopy(locked)
    del now["ops"]["add_v1"]
    now["op_codes"][0], now["op_codes"][1] = now["op_codes"][1], now["op_codes"][0]
    now["types"]["f32_v1"]["code"] = 99
    now["ops"]["tan_v2"]["min"] = "1.9.0"
    problems = "\n".join(lint(locked, now, _ctx()))
    assert "op add_v1 was removed" in problems
    assert "op code 0 moved" in problems
    assert "type f32_v1 changed its wire code" in problems
    assert "tan_v2 changed its minimum version" in problems


def _with_new_fork(locked: dict[str, Any], bump: bool = True, code: bool = True) -> dict[str, Any]:
    now = copy.deepcopy(locked)
    new_version = "1.23.0" if bump else "1.22.0"
    if bump:
        now["releases"]["1.23.0"] = "2027-01-01"
        now["current_version"] = "1.23.0"
    now["ops"]["add_v1"]["max"] = "1.22.0"
    now["ops"]["add_v2"] = {
        "min": new_version,
        "max": "current",
        "code": len(now["op_codes"]),
        "definition": "1" * 16,
    }
    if code:
        now["op_codes"].append("add_v2")
    return now


def test_a_proper_new_fork_is_accepted(locked: dict[str, Any]) -> None:
    now = _with_new_fork(locked)
    assert lint(locked, now, _ctx({"1.23.0"}, {("add_v1", "add_v2")})) == []


def test_a_new_fork_needs_bump_code_patterns_and_golden(locked: dict[str, Any]) -> None:
    problems = "\n".join(lint(locked, _with_new_fork(locked, bump=False, code=False), _ctx()))
    assert "not newer than the locked current version" in problems
    assert "no appended wire code" in problems
    assert "no upgrade/downgrade patterns from add_v1" in problems
    assert "no golden artifact for 1.22.0" in problems
    problems = "\n".join(lint(locked, _with_new_fork(locked), _ctx()))
    assert "release 1.23.0 has no golden artifact" in problems


def test_ending_a_fork_needs_a_successor(locked: dict[str, Any]) -> None:
    now = copy.deepcopy(locked)
    now["ops"]["add_v1"]["max"] = "1.19.0"
    assert any("no newer fork of add starts" in p for p in lint(locked, now, _ctx()))


def test_artifact_records_are_append_only(locked: dict[str, Any]) -> None:
    now = copy.deepcopy(locked)
    now["records"]["op"] = now["records"]["op"][1:]
    assert any("record 'op' changed its fields" in p for p in lint(locked, now, _ctx()))
    now = copy.deepcopy(locked)
    now["records"]["op"].append("new_field")
    assert any("without a new format version" in p for p in lint(locked, now, _ctx()))
    now["format_versions"]["2"] = "1.23.0"
    assert lint(locked, now, _ctx()) == []
