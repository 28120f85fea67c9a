"""The code compiled for a module is reused by later `run()`s of the unchanged module, and never
after it changed (interpreter/module_code.py): each test runs a module, edits it in place as a pass
does, runs it again and checks that the result is the edited program's (the same program parsed
afresh gives the reference), and that per-run state stays per run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import compiled, compiled_plan, evaluator, module_code, run
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.registry import IMPLS
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, SymbolRefAttr, TensorType, i32, i64

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.context import fresh_context
from stablehlo_py.ir.xdsl_compat.fields import retype_values
from stablehlo_py.ir.xdsl_compat.side_data import INTERP_CODE

X = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)

PROGRAM = """
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  %a = stablehlo.add %x, %x : tensor<2x2xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = func.call @f(%t) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
  return %t, %f, %r : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>
}
func.func @f(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %n = stablehlo.negate %y : tensor<2x2xf32>
  return %n : tensor<2x2xf32>
}
func.func @g(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %m = stablehlo.multiply %y, %y : tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}
"""


def _op(module: Any, name: str, nth: int = 0) -> Any:
    return [op for op in module.walk() if op.name == name][nth]


def _perm(*dims: int) -> Any:
    return DenseArrayBase.from_list(i64, list(dims))


def _func(module: Any, name: str) -> Any:
    return next(op for op in module.body.ops if getattr(op, "sym_name", None) == StringAttr(name))


def _same_as_fresh(module: Any, *args: Any, entry: str = "main") -> list[np.ndarray]:
    """Run the edited module, and check its results are those of its text parsed afresh."""
    got = run(module, *args, entry=entry)
    want = run(parse(print_ir(module)), *args, entry=entry)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    return got


def test_an_unchanged_module_reuses_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(PROGRAM)
    first = run(module, X)
    code = module.__dict__[INTERP_CODE]
    prepared: list[Any] = []
    monkeypatch.setattr(compiled, "step_for", lambda op: prepared.append(op))
    again = run(module, X)
    assert module.__dict__[INTERP_CODE] is code
    assert prepared == []  # nothing prepared again
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_attribute_replaced() -> None:
    module = parse(PROGRAM)
    t, _, _ = run(module, X)
    np.testing.assert_array_equal(t, (X + X).T)
    _op(module, "stablehlo.transpose").properties["permutation"] = _perm(0, 1)
    t, _, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(t, X + X)


def test_discardable_attribute_dict_written_in_place() -> None:
    """The reduce's body kind stays the same; an attribute added to an op changes no result but the
    module is compiled again (the check compares the dicts' contents)."""
    module = parse(PROGRAM)
    run(module, X)
    code = module.__dict__[INTERP_CODE]
    _op(module, "stablehlo.negate").attributes["note"] = StringAttr("x")
    run(module, X)
    assert module.__dict__[INTERP_CODE] is not code


def test_op_inserted() -> None:
    module = parse(PROGRAM)
    run(module, X)
    neg = _op(module, "stablehlo.negate")
    twice = parse(
        "func.func @h(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %s = stablehlo.multiply %y, %y : tensor<2x2xf32>\n  return %s : tensor<2x2xf32>\n}"
    )
    mul = _op(twice, "stablehlo.multiply").clone()
    mul.operands = [neg.results[0], neg.results[0]]
    neg.parent.insert_op_after(mul, neg)
    ret = mul.next_op
    ret.operands = [mul.results[0]]
    _, f, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(f, (X + X).T ** 2)


def test_op_erased_after_its_uses_were_replaced() -> None:
    module = parse(PROGRAM)
    run(module, X)
    neg = _op(module, "stablehlo.negate")
    neg.results[0].replace_all_uses_with(neg.operands[0])
    neg.parent.erase_op(neg)
    _, f, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(f, (X + X).T)


def test_operand_replaced() -> None:
    module = parse(PROGRAM)
    run(module, X)
    add = _op(module, "stablehlo.add")
    add.operands[1] = _op(module, "stablehlo.transpose").results[0]  # not dominating: undefined
    with pytest.raises(InterpreterError, match="uses a value that was not computed"):
        run(module, X)
    add.operands[1] = add.operands[0]
    t, _, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(t, (X + X).T)
    main = _func(module, "main")
    add.operands[1] = main.body.blocks.first.args[0]
    mul = parse(
        "func.func @h(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        "  %s = stablehlo.multiply %y, %y : tensor<2x2xf32>\n  return %s : tensor<2x2xf32>\n}"
    )
    new = _op(mul, "stablehlo.multiply").clone()
    new.operands = list(add.operands)
    add.parent.insert_op_before(new, add)
    add.results[0].replace_all_uses_with(new.results[0])  # as a pass replaces a value
    t, _, r = _same_as_fresh(module, X)
    np.testing.assert_array_equal(t, (X * X).T)
    np.testing.assert_array_equal(r, (X * X).sum(axis=1))


def test_ops_moved() -> None:
    """Two custom calls recording their order: moving one before the other changes the record."""
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = stablehlo.custom_call @first(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = stablehlo.custom_call @second(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}"""
    module = parse(text)
    seen: list[str] = []

    def recorder(name: str) -> Any:
        def target(ev: Any, op: Any, args: list[Any]) -> list[Any]:
            seen.append(name)
            return [args[0]]

        return target

    targets = {"first": recorder("first"), "second": recorder("second")}
    x = np.zeros(2, np.float32)
    Evaluator(module, custom_calls=targets).call("main", [x])
    assert seen == ["first", "second"]
    first, second = _op(module, "stablehlo.custom_call"), _op(module, "stablehlo.custom_call", 1)
    second.detach()
    first.parent.insert_op_before(second, first)
    seen.clear()
    Evaluator(module, custom_calls=targets).call("main", [x])
    assert seen == ["second", "first"]


def test_op_moved_into_another_function() -> None:
    module = parse(PROGRAM)
    run(module, X)
    f, g = _func(module, "f"), _func(module, "g")
    neg = _op(module, "stablehlo.negate")
    mul = _op(module, "stablehlo.multiply")
    neg.results[0].replace_all_uses_with(neg.operands[0])  # @f returns its argument
    neg.detach()
    g_block = g.body.blocks.first
    g_block.insert_op_after(neg, mul)
    neg.operands = [mul.results[0]]
    mul.next_op.next_op.operands = [neg.results[0]]  # @g returns -(y*y)
    _, fo, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(fo, (X + X).T)
    (go,) = _same_as_fresh(module, X, entry="g")
    np.testing.assert_array_equal(go, -(X * X))
    assert f.body.blocks.first.first_op.name == "func.return"


def test_result_type_changed() -> None:
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}"""
    module = parse(text)
    x = np.array([1.5, -2.5], np.float32)
    (out,) = run(module, x)
    assert out.dtype == np.float32
    retype_values([_op(module, "stablehlo.convert").results[0]], [TensorType(i32, [2])])
    (out,) = run(module, x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, -2])


def test_region_body_edited() -> None:
    module = parse(PROGRAM)
    _, _, r = run(module, X)
    np.testing.assert_array_equal(r, (X + X).sum(axis=1))
    body = _op(module, "stablehlo.reduce").regions[0].blocks.first
    add = body.first_op
    other = parse(
        "func.func @h(%p: tensor<f32>, %q: tensor<f32>) -> tensor<f32> {\n"
        "  %m = stablehlo.maximum %p, %q : tensor<f32>\n  return %m : tensor<f32>\n}"
    )
    new = _op(other, "stablehlo.maximum").clone()
    new.operands = list(add.operands)
    body.insert_op_before(new, add)
    add.results[0].replace_all_uses_with(new.results[0])
    body.erase_op(add)
    _, _, r = _same_as_fresh(module, X)
    np.testing.assert_array_equal(r, np.maximum((X + X).max(axis=1), 0))


def test_functions_renamed() -> None:
    module = parse(PROGRAM)
    run(module, X)
    _func(module, "f").sym_name = StringAttr("old_f")
    _func(module, "g").sym_name = StringAttr("f")  # @main's call now reaches the multiply
    _, f, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(f, ((X + X).T) ** 2)
    call = _op(module, "func.call")
    call.properties["callee"] = SymbolRefAttr("old_f")
    _, f, _ = _same_as_fresh(module, X)
    np.testing.assert_array_equal(f, -((X + X).T))


def test_function_added_and_removed() -> None:
    module = parse(PROGRAM)
    run(module, X)
    with pytest.raises(InterpreterError, match="no function @h"):
        run(module, X, entry="h")
    h = _func(module, "g").clone()
    h.sym_name = StringAttr("h")
    module.body.blocks.first.add_op(h)
    (out,) = run(module, X, entry="h")
    np.testing.assert_array_equal(out, X * X)
    module.body.blocks.first.erase_op(h)
    with pytest.raises(InterpreterError, match="no function @h"):
        run(module, X, entry="h")
    f = _func(module, "f")
    module.body.blocks.first.erase_op(f)
    with pytest.raises(InterpreterError, match="no function @f"):
        run(module, X)


def test_an_evaluator_sees_edits_between_its_calls() -> None:
    """Also one made before the edit (its code is checked when each call starts)."""
    module = parse(PROGRAM)
    ev = Evaluator(module)
    first = ev.call("main", [X])
    _op(module, "stablehlo.transpose").properties["permutation"] = _perm(0, 1)
    second = ev.call("main", [X])
    np.testing.assert_array_equal(first[0], (X + X).T)
    np.testing.assert_array_equal(second[0], X + X)
    made = Evaluator(module)
    _op(module, "stablehlo.transpose").properties["permutation"] = _perm(1, 0)
    np.testing.assert_array_equal(made.call("main", [X])[0], (X + X).T)


def test_an_edit_undone_runs_the_original_again() -> None:
    module = parse(PROGRAM)
    transpose = _op(module, "stablehlo.transpose")
    original = transpose.properties["permutation"]
    ev = Evaluator(module)
    ev.call("main", [X])
    transpose.properties["permutation"] = _perm(0, 1)
    np.testing.assert_array_equal(ev.call("main", [X])[0], X + X)
    transpose.properties["permutation"] = original
    np.testing.assert_array_equal(run(module, X)[0], (X + X).T)


def test_custom_call_targets_are_the_evaluators() -> None:
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.custom_call @target(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}"""
    module = parse(text)
    x = np.array([1.0, 2.0], np.float32)
    double = lambda ev, op, args: [args[0] * np.float32(2)]  # noqa: E731
    triple = lambda ev, op, args: [args[0] * np.float32(3)]  # noqa: E731
    (a,) = Evaluator(module, custom_calls={"target": double}).call("main", [x])
    (b,) = Evaluator(module, custom_calls={"target": triple}).call("main", [x])
    np.testing.assert_array_equal(a, [2.0, 4.0])
    np.testing.assert_array_equal(b, [3.0, 6.0])
    with pytest.raises(InterpreterError, match="target"):
        Evaluator(module).call("main", [x])


def test_per_run_state_stays_per_run() -> None:
    text = """
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq %x, %c : tensor<2xi32>
  return %x : tensor<2xi32>
}"""
    module = parse(text)
    bad, good = np.array([0, 0], np.int32), np.array([1, 2], np.int32)
    evs = [Evaluator(module) for _ in range(3)]
    evs[0].call("main", [bad])
    evs[1].call("main", [good])
    evs[2].call("main", [bad])
    assert [len(ev.failures) for ev in evs] == [1, 0, 1]
    with pytest.raises(InterpreterError, match="check failed"):
        run(module, bad)
    np.testing.assert_array_equal(run(module, good)[0], good)


def test_an_impl_replaced_or_hooked_between_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(PROGRAM)
    run(module, X)
    seen: list[str] = []

    def hook(op: Any, fn: Any) -> Any:
        if op.name != "stablehlo.negate" or fn is None:
            return fn

        def wrapped(ev: Any, op: Any, args: list[Any], env: Any) -> list[Any]:
            seen.append(op.name)
            return fn(ev, op, args, env)

        return wrapped

    monkeypatch.setattr(compiled, "IMPL_WRAPPERS", [*compiled.IMPL_WRAPPERS, hook])
    run(module, X)
    assert seen == ["stablehlo.negate"]
    monkeypatch.delitem(IMPLS, "stablehlo.negate")
    with pytest.raises(NotSupportedError, match="stablehlo.negate"):
        run(module, X)


def test_a_fresh_context_compiles_again() -> None:
    module = parse(PROGRAM)
    run(module, X)
    code = module.__dict__[INTERP_CODE]
    with fresh_context():
        run(module, X)
        assert module.__dict__[INTERP_CODE] is not code


def test_a_traced_evaluator_keeps_its_own_code() -> None:
    """Its blocks report to its observer: compiled for it alone, dropped when the module changes
    (checked against the module's code, shared)."""
    from stablehlo_py.trace import Trace

    module = parse(PROGRAM)
    run(module, X)
    shared = module.__dict__[INTERP_CODE]
    blocks = dict(shared.code)
    trace = Trace(1)
    ev = Evaluator(module, observer=trace)
    ev.call("main", [X])
    assert module.__dict__[INTERP_CODE] is shared and shared.code == blocks
    # (the shared code inlined @f's body; a traced run calls @f, compiled for it too)
    assert ev._code is not shared.code and set(blocks) <= set(ev._code)
    reported = len(trace.entries)
    assert reported > 0
    _op(module, "stablehlo.transpose").properties["permutation"] = _perm(0, 1)
    t, _, _ = ev.call("main", [X])
    np.testing.assert_array_equal(t, X + X)
    assert module.__dict__[INTERP_CODE] is not shared
    t, _, _ = run(module, X)
    np.testing.assert_array_equal(t, X + X)


def test_a_block_is_generated_after_enough_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its plan serves the first calls of every run (the module's code is shared), then generated
    code (compiled_plan.GENERATE_AFTER_CALLS); both give the same results."""
    generated: list[Any] = []
    real = compiled.compile_block

    def counting(block: Any, name: str, observer: Any = None) -> Any:
        generated.append(block)
        return real(block, name, observer)

    monkeypatch.setattr(compiled, "compile_block", counting)
    monkeypatch.setattr(compiled, "INLINE_CALLS", False)  # @f called, not inlined in @main's code
    module = parse(PROGRAM)
    results = [run(module, X) for _ in range(compiled_plan.GENERATE_AFTER_CALLS + 2)]
    f_blocks = [b for b in generated if b is _func(module, "f").body.blocks.first]
    assert len(f_blocks) == 1  # @f (no regions) generated once, after its planned calls
    for r in results[1:]:
        for a, b in zip(results[0], r, strict=True):
            np.testing.assert_array_equal(a, b)


def test_region_kind_rule_is_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(PROGRAM)
    run(module, X)
    code = module.__dict__[INTERP_CODE]
    monkeypatch.setattr(evaluator, "region_kind", lambda region: None)
    _, _, r = run(module, X)
    assert module.__dict__[INTERP_CODE] is not code
    np.testing.assert_array_equal(r, (X + X).sum(axis=1))


def test_module_code_answers_only_for_its_module() -> None:
    a, b = parse(PROGRAM), parse(PROGRAM)
    run(a, X)
    run(b, X)
    assert a.__dict__[INTERP_CODE] is not b.__dict__[INTERP_CODE]
    assert module_code.functions(a)["f"] is _func(a, "f")
