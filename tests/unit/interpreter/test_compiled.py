"""The compiled interpreter (interpreter/compiled.py): one generated Python function per block, errors
located at the op that raised them (also deep inside regions), regions as closures over the values of
every enclosing block, the call-depth limit, compiling once, and ops whose impl a hook wraps."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import compiled, compiled_plan, evaluator, run
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.registry import IMPLS

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.ir import parse

# line 10 of this program is the custom_call inside the while body (line 1 is empty)
LOOP_CALLING = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%a = %c0, %v = %x) : tensor<i64>, tensor<2xf32>
  cond {
    %p = stablehlo.compare LT, %a, %c1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %y = stablehlo.custom_call @target(%v) : (tensor<2xf32>) -> tensor<2xf32>
    %n = stablehlo.add %a, %c1 : tensor<i64>
    stablehlo.return %n, %y : tensor<i64>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}"""


def _module(text: str) -> Any:
    from stablehlo_py.ir.verify import verify

    module = parse(text)
    verify(module)
    return module


def test_an_error_inside_a_loop_body_is_located_at_its_op() -> None:
    with pytest.raises(InterpreterError) as info:
        run(LOOP_CALLING, np.zeros(2, np.float32))
    assert info.value.location == "-:10:10"
    assert "unsupported custom_call target 'target'" in str(info.value)
    assert str(info.value).startswith("-:10:10: error: ")


def test_a_numpy_error_reads_op_failed_at_its_op() -> None:
    def boom(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        raise ValueError("operands do not broadcast")

    ev = Evaluator(_module(LOOP_CALLING), custom_calls={"target": boom})
    with pytest.raises(InterpreterError) as info:
        ev.call("main", [np.zeros(2, np.float32)])
    assert info.value.location == "-:10:10"
    assert info.value.message == (
        "'stablehlo.custom_call' failed: ValueError: operands do not broadcast"
    )


def test_regions_see_the_values_of_every_enclosing_block() -> None:
    """An `if` nested in a `while` body reads a function argument and a value of the body."""
    text = """
func.func @main(%x: tensor<2xf32>, %k: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%a = %c0, %v = %x) : tensor<i64>, tensor<2xf32>
  cond {
    %p = stablehlo.compare LT, %a, %c3 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.add %a, %c1 : tensor<i64>
    %even = stablehlo.compare EQ, %a, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %w = "stablehlo.if"(%even) ({
      %s = stablehlo.add %v, %k : tensor<2xf32>
      stablehlo.return %s : tensor<2xf32>
    }, {
      %m = stablehlo.multiply %v, %k : tensor<2xf32>
      stablehlo.return %m : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
    stablehlo.return %n, %w : tensor<i64>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}"""
    x = np.array([1.0, 2.0], np.float32)
    k = np.array([3.0, 0.5], np.float32)
    (out,) = run(text, x, k)
    np.testing.assert_array_equal(out, (x + k) * k * k)


def test_recursion_stops_at_the_call_depth_limit() -> None:
    text = """
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %r = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %r = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}"""
    with pytest.raises(InterpreterError) as info:
        run(text, np.float32(1.0))
    assert f"calls nested more than {evaluator.MAX_CALL_DEPTH} deep (at @f)" in str(info.value)


BRANCHES = """
func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.if"(%p) ({
    %t = stablehlo.custom_call @record(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %s = stablehlo.sine %t : tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }, {
    %n = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}"""


def test_an_unsupported_op_fails_when_its_block_is_entered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not when its function is compiled (a branch not taken runs), and before any op of its block
    runs (as when blocks were planned on entry)."""
    monkeypatch.delitem(IMPLS, "stablehlo.sine")
    recorded: list[Any] = []

    def record(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        recorded.append(args[0])
        return [args[0]]

    x = np.array([1.0, -2.0], np.float32)
    ev = Evaluator(_module(BRANCHES), custom_calls={"record": record})
    (out,) = ev.call("main", [np.array(False), x])
    np.testing.assert_array_equal(out, -x)
    with pytest.raises(NotSupportedError) as info:
        ev.call("main", [np.array(True), x])
    assert info.value.location == "-:5:10"
    assert "the interpreter does not support 'stablehlo.sine' yet" in str(info.value)
    assert recorded == []


def test_a_block_compiles_once_however_often_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_blocks: list[Any] = []
    real = evaluator.compile_block

    def counting(block: Any, name: str, observer: Any = None) -> Any:
        compiled_blocks.append(block)
        return real(block, name, observer)

    monkeypatch.setattr(evaluator, "compile_block", counting)
    text = LOOP_CALLING.replace("LT, %a, %c1", "LT, %a, %c50").replace(
        "  %r:2", "  %c50 = stablehlo.constant dense<50> : tensor<i64>\n  %r:2"
    )
    calls: list[int] = []

    def count(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        calls.append(1)
        return [args[0] + np.float32(1)]

    ev = Evaluator(_module(text), custom_calls={"target": count})
    (out,) = ev.call("main", [np.zeros(2, np.float32)])
    (out,) = ev.call("main", [np.zeros(2, np.float32)])
    np.testing.assert_array_equal(out, np.full(2, 50, np.float32))
    assert len(calls) == 100
    assert len(compiled_blocks) == 1  # @main, its while regions nested in its generated code


def test_steps_are_prepared_once_per_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """Across evaluators of one module too (module_code.py: they share its compiled code)."""
    module = _module(LOOP_CALLING.replace("@target", "@identity"))
    prepared: list[Any] = []
    real = compiled.step_for

    def counting(op: Any) -> Any:
        prepared.append(op)
        return real(op)

    monkeypatch.setattr(compiled, "step_for", counting)

    def identity(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        return list(args)

    for _ in range(3):
        ev = Evaluator(module, custom_calls={"identity": identity})
        ev.call("main", [np.ones(2, np.float32)])
    assert prepared and len(prepared) == len(set(prepared))


def test_a_compiled_op_whose_impl_a_hook_wraps_runs_the_wrapper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    def hook(op: Any, fn: Any) -> Any:
        if op.name != "stablehlo.add" or fn is None:
            return fn

        def wrapped(ev: Any, op: Any, args: list[Any], env: Any) -> list[Any]:
            seen.append(op.name)
            return fn(ev, op, args, env)

        return wrapped

    monkeypatch.setattr(compiled, "IMPL_WRAPPERS", [*compiled.IMPL_WRAPPERS, hook])
    text = """
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
  %a = stablehlo.add %x, %x : tensor<3xi32>
  %b = stablehlo.multiply %a, %x : tensor<3xi32>
  return %b : tensor<3xi32>
}"""
    (out,) = run(text, np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(out, [2, 8, 18])
    assert seen == ["stablehlo.add"]


def _if_else_zeros(args: str, result: str, then: str) -> str:
    """@main(%p: tensor<i1>ARGS) -> RESULT: if %p, the ``then`` lines (ending in the value %t), else
    zeros; the op lines of ``then`` start at line 4 of the text."""
    return f"""
func.func @main(%p: tensor<i1>{args}) -> {result} {{
  %r = "stablehlo.if"(%p) ({{
{then}
    stablehlo.return %t : {result}
  }}, {{
    %z = stablehlo.constant dense<0.0> : {result}
    stablehlo.return %z : {result}
  }}) : (tensor<i1>) -> {result}
  return %r : {result}
}}"""


def test_a_bad_attribute_fails_when_its_op_runs_not_when_compiled() -> None:
    """A step that cannot be prepared raises its error when the op is reached, at the op."""
    text = _if_else_zeros(
        ", %x: tensor<2xf32>",
        "tensor<4xf32>",
        "    %t = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>",
    )
    module = _module(text)
    concatenate = next(op for op in module.walk() if op.name == "stablehlo.concatenate")
    del concatenate.properties["dimension"]
    x = np.array([1.0, 2.0], np.float32)
    (out,) = Evaluator(module).call("main", [np.array(False), x])
    np.testing.assert_array_equal(out, np.zeros(4, np.float32))
    with pytest.raises(InterpreterError) as info:
        Evaluator(module).call("main", [np.array(True), x])
    assert info.value.location == "-:4:10"
    assert "'stablehlo.concatenate' needs the attribute 'dimension'" in str(info.value)


FOLDABLE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c10 = stablehlo.constant dense<10> : tensor<i64>
  %r:2 = stablehlo.while(%a = %c0, %v = %x) : tensor<i64>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %a, %c10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %b = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %w = stablehlo.add %v, %b : tensor<4xf32>
    %n = stablehlo.add %a, %c1 : tensor<i64>
    stablehlo.return %n, %w : tensor<i64>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}"""


def test_ops_on_constants_are_computed_once_when_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from stablehlo_py.interpreter import compiled

    calls: list[int] = []
    real_step_for = compiled.step_for

    def counting_step_for(op: Any) -> Any:
        """The op's step, counting the runs of broadcast_in_dim's (whatever it calls)."""
        step = real_step_for(op)
        if step is None or op.name != "stablehlo.broadcast_in_dim":
            return step
        fn = step.fn

        def counting(*args: Any) -> Any:
            calls.append(1)
            return fn(*args)

        return dataclasses.replace(step, fn=counting)

    monkeypatch.setattr(compiled, "step_for", counting_step_for)
    monkeypatch.setattr(compiled, "FUSE", False)  # fused, the add reads the 0-d constant itself
    (out,) = run(FOLDABLE, np.zeros(4, np.float32))
    np.testing.assert_array_equal(out, np.full(4, 5.0, np.float32))
    assert len(calls) == 1  # not once per iteration


def test_an_op_on_constants_that_fails_still_fails_when_it_runs() -> None:
    text = _if_else_zeros(
        "",
        "tensor<3x2xf32>",
        "    %c = stablehlo.constant dense<1.0> : tensor<2x3xf32>\n"
        "    %t = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
    )
    module = _module(text)
    transpose = next(op for op in module.walk() if op.name == "stablehlo.transpose")
    transpose.properties["permutation"] = transpose.properties["permutation"].__class__.from_list(
        transpose.properties["permutation"].elt_type, [0, 1, 2]
    )
    ev = Evaluator(module)
    (out,) = ev.call("main", [np.array(False)])
    np.testing.assert_array_equal(out, np.zeros((3, 2), np.float32))
    with pytest.raises(InterpreterError) as info:
        ev.call("main", [np.array(True)])
    assert info.value.location == "-:5:10"
    assert info.value.message.startswith("'stablehlo.transpose' failed: ValueError: ")


def test_a_reduce_body_sees_values_of_the_enclosing_function() -> None:
    """A body the semantics layer calls on whole arrays (RegionBody) is a closure too."""
    text = """
func.func @main(%x: tensor<4xf32>, %k: tensor<f32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %s = stablehlo.minimum %m, %k : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}"""
    module = _module(text)
    x = np.array([1, 5, 3, 0], np.float32)
    ev = Evaluator(module)
    assert float(ev.call("main", [x, np.array(2.0, np.float32)])[0]) == 2.0
    assert float(ev.call("main", [x, np.array(10.0, np.float32)])[0]) == 5.0


def _nested_ifs(depth: int) -> str:
    lines = ["func.func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {"]
    for d in range(depth):
        lines.append(f'  %r{d} = "stablehlo.if"(%p) ({{')
    lines.append("  %n = stablehlo.negate %x : tensor<f32>\n  stablehlo.return %n : tensor<f32>")
    for d in reversed(range(depth)):
        lines.append("  }, {\n  stablehlo.return %x : tensor<f32>")
        lines.append("  }) : (tensor<i1>) -> tensor<f32>")
        lines.append(f"  {'stablehlo.return' if d else 'return'} %r{d} : tensor<f32>")
    lines.append("}")
    return "\n".join(lines)


def test_regions_nested_deeper_than_python_allows_fail_clearly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python allows 100 levels of indentation (the parser stops at 64 levels; built IR may nest
    deeper): a region past the limit fails when it runs, with a clear error at its op."""
    monkeypatch.setattr(compiled, "MAX_REGION_NESTING", 3)
    x = np.array(3.0, np.float32)
    (out,) = run(_nested_ifs(2), np.array(True), x)
    assert float(out) == -3.0
    text = _nested_ifs(5)
    (out,) = run(text, np.array(False), x)  # the deep regions never run
    assert float(out) == 3.0
    with pytest.raises(NotSupportedError) as info:
        run(text, np.array(True), x)
    assert "regions nested more than 3 deep are not supported" in str(info.value)
    assert info.value.location == "-:4:9"  # the third `if`, whose regions would be the fourth level


STRAIGHT = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = stablehlo.add %x, %x : tensor<2xf32>
  %y = stablehlo.custom_call @target(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %s = stablehlo.sine %y : tensor<2xf32>
  return %s : tensor<2xf32>
}"""


def test_a_block_without_regions_runs_its_first_call_as_a_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Generated (Python-compiled) after `GENERATE_AFTER_CALLS` planned calls; both tiers give
    the same results."""
    generated: list[Any] = []
    real = compiled.compile_block

    def counting(block: Any, name: str) -> Any:
        generated.append(block)
        return real(block, name)

    monkeypatch.setattr(compiled, "compile_block", counting)

    def double(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        return [args[0] * np.float32(2)]

    ev = Evaluator(_module(STRAIGHT), custom_calls={"target": double})
    x = np.array([0.25, -1.5], np.float32)
    first = ev.call("main", [x])
    for _ in range(compiled_plan.GENERATE_AFTER_CALLS - 1):
        np.testing.assert_array_equal(first[0], ev.call("main", [x])[0])
    assert generated == []
    second = ev.call("main", [x])
    assert len(generated) == 1
    np.testing.assert_array_equal(first[0], second[0])
    third = ev.call("main", [x])
    assert len(generated) == 1
    np.testing.assert_array_equal(first[0], third[0])


def test_errors_read_the_same_in_both_tiers() -> None:
    def boom(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        raise ValueError("bad operand")

    ev = Evaluator(_module(STRAIGHT), custom_calls={"target": boom})
    x = np.zeros(2, np.float32)
    errors = []
    for _ in range(compiled_plan.GENERATE_AFTER_CALLS + 1):  # the plan, then the generated code
        with pytest.raises(InterpreterError) as info:
            ev.call("main", [x])
        errors.append((info.value.location, info.value.message))
    assert set(errors) == {("-:4:8", "'stablehlo.custom_call' failed: ValueError: bad operand")}


def test_an_unsupported_op_fails_before_the_block_runs_in_both_tiers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(IMPLS, "stablehlo.sine")
    recorded: list[Any] = []

    def record(ev: Any, op: Any, args: list[Any]) -> list[Any]:
        recorded.append(args[0])
        return [args[0]]

    ev = Evaluator(_module(STRAIGHT), custom_calls={"target": record})
    for _ in range(compiled_plan.GENERATE_AFTER_CALLS + 1):
        with pytest.raises(NotSupportedError) as info:
            ev.call("main", [np.zeros(2, np.float32)])
        assert info.value.location == "-:5:8"
    assert recorded == []
