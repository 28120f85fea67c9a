"""`verify()`'s one-walk verdict (`driver.walk_verifies`) against the in-order driver
(`driver.verify_in_order`), which words every diagnostic.

`verify(top)` asks `walk_verifies` first and runs `verify_in_order` only when it says no, so:
- `walk_verifies` must say yes exactly when `verify_in_order` passes (a yes on an invalid program
  would drop its diagnostic; a no on a valid one only costs time, but is a bug all the same);
- its pieces (`preorder`, `local_operands`, `isolated_within`) must read what xDSL's `walk()`,
  `plain_operands` and `isolated_from_above_ok` read;
- the memos (verdicts, constraint verdicts, `ods_types`' accepted types) must not change a
  diagnostic: every conformance program (valid and invalid) gives the same outcome with warm memos,
  with every memo empty, and on the slow path (xDSL's verifier for every op, in order).
"""

from __future__ import annotations

from unittest import mock

import pytest
from xdsl.ir import Operation
from xdsl.traits import IsolatedFromAbove

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.context import fresh_context
from stablehlo_py.ir.verify import driver, verify
from stablehlo_py.ir.xdsl_compat.verify_walk import (
    isolated_from_above_ok,
    isolated_within,
    local_operands,
    plain_operands,
    preorder,
)
from tests.conftest import CONFORMANCE
from tests.unit.ir.test_verify_plan import _outcome, _programs, _slow_verify


def _modules() -> list[tuple[str, Operation]]:
    out = []
    for name, text in _programs():
        try:
            out.append((name, parse(text, name)))
        except StableHLOError:
            continue
    return out


def _nearest_isolated(op: Operation, top: Operation) -> Operation | None:
    """The IsolatedFromAbove op whose check covers `op` (`isolated_from_above_ok`'s walk), within
    `top`."""
    if op is top:
        return None
    a = op.parent_op()
    while a is not None:
        if a.has_trait(IsolatedFromAbove):
            return a
        if a is top:
            return None
        a = a.parent_op()
    return None


def _walk_pieces_agree(top: Operation) -> list[str]:
    bad = []
    ops = preorder(top)
    if ops != list(top.walk()):
        bad.append("preorder differs from walk()")
    covered: dict[int, list[Operation]] = {}
    for op in ops:
        local = local_operands(op)
        if local is not None:
            if local != plain_operands(op):
                bad.append(f"{op.name}: local_operands is not plain_operands")
            if not all(
                (v.owner if hasattr(v, "block") else v.owner.parent) is op.parent for v in local
            ):
                bad.append(f"{op.name}: local_operands passed an operand of another block")
        p = _nearest_isolated(op, top)
        if p is not None:
            covered.setdefault(id(p), []).append(op)
    for op in ops:
        if op.has_trait(IsolatedFromAbove):
            whole = isolated_from_above_ok(op)
            by_op = all(isolated_within(d, top) for d in covered.get(id(op), []))
            if whole != by_op:
                bad.append(f"{op.name}: isolated_from_above_ok {whole}, op by op {by_op}")
    return bad


@pytest.mark.skipif(
    not (CONFORMANCE / "testdata").is_dir(), reason="../shared/conformance is absent"
)
def test_walk_verdict_and_memos_on_conformance_programs() -> None:
    disagree: list[str] = []
    failing = 0
    for name, module in _modules():
        disagree += [f"{name}: {m}" for m in _walk_pieces_agree(module)]
        in_order = _outcome(driver.verify_in_order, module)
        failing += in_order is not None
        if driver.walk_verifies(module) != (in_order is None):
            disagree.append(f"{name}: walk_verifies {not in_order}, in order {in_order!r}")
        warm = _outcome(verify, module)
        with fresh_context():
            cold = _outcome(verify, module)
        with fresh_context():
            slow = _outcome(_slow_verify, module)
        if not warm == cold == slow == in_order:
            disagree.append(f"{name}: warm {warm!r}, cold {cold!r}, slow {slow!r}")
    assert not disagree, "\n".join(disagree[:30])
    assert failing > 200


PROGRAM = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @g(%b: tensor<4xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%b init: %init) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %1 = stablehlo.add %x, %init : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}
"""


def _ops(module: Operation, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


def test_values_of_enclosing_blocks_pass_the_walk() -> None:
    module = parse(PROGRAM)
    inner_add = _ops(module, "stablehlo.add")[1]  # uses %init of @g's block
    assert local_operands(inner_add) is None
    assert isolated_within(inner_add, module)
    assert driver.walk_verifies(module)


def test_a_value_of_another_function_fails_the_walk_and_keeps_its_diagnostic() -> None:
    module = parse(PROGRAM)
    f, g = _ops(module, "func.func")
    add = _ops(module, "stablehlo.add")[0]
    add.operands[1] = g.regions[0].blocks.first.args[0]  # %b of @g, used in @f
    assert local_operands(add) is None
    assert not isolated_within(add, module)
    assert isolated_within(add, add)  # nothing isolated inside `add` itself
    assert not driver.walk_verifies(module)
    assert _walk_pieces_agree(module) == []
    got = _outcome(verify, module)
    assert got is not None and got == _outcome(_slow_verify, module)
    # verified alone, @f's body is checked by @f's IsolatedFromAbove; `add` alone is not
    assert not driver.walk_verifies(f)
    assert driver.walk_verifies(add) == (_outcome(driver.verify_in_order, add) is None)


def test_a_function_using_its_own_result_is_refused() -> None:
    """IsolatedFromAbove refuses a value defined by the isolated op itself (owner is the op)."""
    module = parse(PROGRAM)
    (reduce,) = _ops(module, "stablehlo.reduce")
    inner_add = _ops(module, "stablehlo.add")[1]
    inner_add.operands[1] = reduce.results[0]  # the reduce's own result, inside its body
    assert _walk_pieces_agree(module) == []
    in_order = _outcome(driver.verify_in_order, module)
    assert driver.walk_verifies(module) == (in_order is None)
    assert _outcome(verify, module) == in_order


def test_a_failure_anywhere_is_worded_by_the_in_order_driver() -> None:
    module = parse(PROGRAM)
    with mock.patch.object(driver, "verify_in_order", wraps=driver.verify_in_order) as spy:
        verify(module)
        assert spy.call_count == 0  # valid: one walk, no second pass
        add = _ops(module, "stablehlo.add")[0]
        add.operands[1] = _ops(module, "func.func")[1].regions[0].blocks.first.args[1]
        with pytest.raises(StableHLOError):
            verify(module)
        assert spy.call_count == 1
