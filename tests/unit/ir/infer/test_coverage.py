"""Every op with an inference rule has a static, a dynamic (`?`) and a bounded
(`#stablehlo.bounds`) case among the family test modules' ``CASES`` (tests/unit/ir/infer/cases.py;
each module runs its own cases).  A case's kinds come from its operand types and the types its
rule gives, so a case cannot count for a kind it does not exercise.  The ops for which a kind
cannot arise are listed below with the reason; an exemption that a case covers anyway fails too,
so the list stays true."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

import pytest

import tests.unit.ir.infer as infer_tests
from stablehlo_py.ir.infer import rules
from tests.unit.ir.infer.cases import KINDS, Case, kinds

NO_SHAPED_VALUES = set(KINDS)
"""Every kind: the op has no tensor operand or result whose type could be ranked, dynamic or
bounded."""

NO_OPERANDS_STATIC_RESULT = {"dynamic", "bounded"}
"""The op's result type is fixed (no operand or attribute can make it dynamic or bounded)."""

EXEMPT: dict[str, set[str]] = {
    # tokens only: `() -> !stablehlo.token` and `(!stablehlo.token, ...) -> !stablehlo.token`
    "stablehlo.create_token": NO_SHAPED_VALUES,
    "stablehlo.after_all": NO_SHAPED_VALUES,
    # no operands; the result is tensor<ui32>
    "stablehlo.replica_id": NO_OPERANDS_STATIC_RESULT,
    "stablehlo.partition_id": NO_OPERANDS_STATIC_RESULT,
    # no operands; the result is the type of a dense literal, always static
    "stablehlo.constant": NO_OPERANDS_STATIC_RESULT,
    "chlo.constant": NO_OPERANDS_STATIC_RESULT,
    # `a` and `b` are 0-d and `shape` is statically shaped 1-d (ODS): no type can carry bounds
    # (a dynamic result, from a `shape` that is not a constant, is covered)
    "stablehlo.rng": {"bounded"},
}


def _case_modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.iter_modules(infer_tests.__path__)
        if m.name.startswith("test_") and m.name != "test_coverage"
    )


def all_cases() -> list[Case]:
    out: list[Case] = []
    for name in _case_modules():
        mod = importlib.import_module(f"{infer_tests.__name__}.{name}")
        out.extend(getattr(mod, "CASES", []))
    return out


@pytest.fixture(scope="module")
def covered() -> dict[str, set[str]]:
    got: dict[str, set[str]] = defaultdict(set)
    for c in all_cases():
        got[c.op] |= kinds(c)
    return got


def test_the_family_modules_list_and_run_cases() -> None:
    with_cases = []
    for n in _case_modules():
        mod = importlib.import_module(f"{infer_tests.__name__}.{n}")
        if getattr(mod, "CASES", None):
            with_cases.append(n)
            # the module checks its cases (a listed case must also pass, not only count)
            run = getattr(mod, "test_cases", None)
            marks = getattr(run, "pytestmark", [])
            assert any(m.name == "parametrize" and m.args[1] is mod.CASES for m in marks), n
    assert len(with_cases) >= 8, with_cases


def test_every_op_has_a_static_a_dynamic_and_a_bounded_case(covered: dict[str, set[str]]) -> None:
    missing = {
        op: sorted(set(KINDS) - covered.get(op, set()) - EXEMPT.get(op, set())) for op in rules()
    }
    missing = {op: ks for op, ks in missing.items() if ks}
    assert not missing, f"{len(missing)} ops lack inference cases: {missing}"


def test_exemptions_are_needed(covered: dict[str, set[str]]) -> None:
    names = rules()
    for op, ks in EXEMPT.items():
        assert op in names, f"{op} is exempted but has no rule"
        assert not (ks & covered.get(op, set())), f"{op}: a case covers exempted {ks & covered[op]}"


def test_cases_name_ops_with_rules() -> None:
    names = rules()
    assert all(c.op in names for c in all_cases())
