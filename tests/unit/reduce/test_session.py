"""Sessions: FailsWith on each in-process tool, the checks at the start, and the files written."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce import (
    MOVES,
    FailsWith,
    Program,
    ReduceError,
    Session,
    reduce,
    write_program,
)
from stablehlo_py.reduce.files import inputs_path
from stablehlo_py.reduce.values import default_inputs


def _layers(n: int, middle: str, at: int) -> str:
    """``n`` small layers on tensor<4x4xf32> (dot, add, tanh, transpose); ``middle`` replaces the
    tanh of layer ``at`` (``{v}`` is its operand)."""
    lines = ["func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {"]
    h = "%x"
    for i in range(n):
        lines.append(f"  %d{i} = stablehlo.dot_general {h}, %w, contracting_dims = [1] x [0] : "
                     "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>")
        lines.append(f"  %a{i} = stablehlo.add %d{i}, %x : tensor<4x4xf32>")
        if i == at:
            lines.append(f"  %t{i} = " + middle.format(v=f"%a{i}"))
        else:
            lines.append(f"  %t{i} = stablehlo.tanh %a{i} : tensor<4x4xf32>")
        lines.append(f"  %h{i} = stablehlo.transpose %t{i}, dims = [1, 0] : "
                     "(tensor<4x4xf32>) -> tensor<4x4xf32>")
        h = f"%h{i}"
    lines += [f"  return {h} : tensor<4x4xf32>", "}"]
    return "\n".join(lines)


def test_fails_with_verify_keeps_the_verifier_error() -> None:
    bad = "stablehlo.transpose {v}, dims = [0, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>"
    text = _layers(30, bad, 20)
    test = FailsWith("must be a permutation", on="verify")
    assert test.verifies and not test.uses_inputs
    r = reduce(text, test, time_limit=60)
    assert r.stopped is None and r.after.ops <= 2, r.program.text
    assert "dims = [0, 0]" in r.program.text
    module = parse(r.program.text)
    with pytest.raises(Exception, match="must be a permutation"):
        verify(module)


def test_fails_with_serialize_reduces_to_the_op_the_target_lacks() -> None:
    text = _layers(30, "stablehlo.tan {v} : tensor<4x4xf32>", 12)
    test = FailsWith(r"op 'tan' \(needs 1\.4\.0\)", on="serialize:1.0.0")
    assert not test.uses_inputs and not test.verifies
    r = reduce(text, test, time_limit=60)
    assert r.stopped is None and r.after.ops <= 2
    assert [op.name for op in r.program.top_level_ops()][-1] == "stablehlo.tan"
    verify(r.program.fresh_module())
    assert test(r.program) and "needs 1.4.0" in test.last_error
    # the same op serializes at 1.4.0: that test never holds
    with pytest.raises(ReduceError, match="not interesting to start with"):
        reduce(text, FailsWith("needs", on="serialize:1.4.0"))


def test_fails_with_interpret_uses_the_inputs_and_no_recorded_values() -> None:
    text = _layers(
        20, "stablehlo.custom_call @mystery({v}) : (tensor<4x4xf32>) -> tensor<4x4xf32>", 9
    )
    test = FailsWith("unsupported custom_call target 'mystery'", on="interpret")
    assert test.uses_inputs
    r = reduce(text, test, time_limit=60)
    assert r.stopped is None and r.after.ops <= 2
    assert "@mystery" in r.program.text
    assert test(r.program)


def test_the_tools_error_text_is_matched_with_its_type() -> None:
    text = _layers(2, "stablehlo.tan {v} : tensor<4x4xf32>", 1)
    test = FailsWith(r"(?s)^DowngradeError: .*'tan'", on="serialize:1.0.0:mlir")
    assert test(Program.from_text(text, []))
    assert FailsWith("needs", on="serialize:1.22.0").error(Program.from_text(text, [])) is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("(", "verify"), "FailsWith: '(' is not a regular expression"),
        (("x", "xla9"), "unknown tool on='xla9'; in-process tools: verify, serialize:TARGET"),
        (("x", "serialize"), "on='serialize' needs a target: on='serialize:1.0.0'"),
    ],
)
def test_fails_with_refuses_what_it_cannot_run(args, message) -> None:
    with pytest.raises(ReduceError, match=re.escape(message)):
        FailsWith(*args)


def test_the_start_is_checked() -> None:
    text = _layers(2, "stablehlo.tan {v} : tensor<4x4xf32>", 1)
    with pytest.raises(ReduceError, match=r"not interesting to start with: the test \(fails with "
                       r"/nothing like this/ on verify\) does not hold on it"):
        reduce(text, FailsWith("nothing like this"))
    with pytest.raises(ReduceError, match="@main takes 2 arguments, 1 inputs were given"):
        Session(text, FailsWith("tan", on="serialize:1.0.0"), inputs=[np.zeros((4, 4))])
    with pytest.raises(ReduceError, match="the program has no function @f to reduce "
                       r"\(its functions: @main\); name the entry function with entry="):
        Session(text, FailsWith("tan"), entry="f")
    transpose = "stablehlo.transpose {v}, dims = [0, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>"
    bad = _layers(2, transpose, 1)
    with pytest.raises(ReduceError, match="the program to reduce does not verify: .*permutation"):
        reduce(bad, FailsWith("x", on="serialize:1.0.0"))
    with pytest.raises(ReduceError, match="a callable taking the candidate program, not 3"):
        reduce(text, 3)
    with pytest.raises(ReduceError, match="the test raised: ValueError: no"):
        reduce(text, lambda p: (_ for _ in ()).throw(ValueError("no")))


def test_inputs_made_up_are_repeatable_and_typed() -> None:
    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<4xi32>, %c: tensor<i1>, %d: tensor<2xui8>,
                %t: !stablehlo.token, %e: tensor<2xbf16>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
"""
    func = Program.from_text(text, []).entry_function()
    a = default_inputs(func)
    b = default_inputs(func)
    assert [x.dtype.name for x in (a[0], a[1], a[2], a[3], a[5])] == [
        "float32", "int32", "bool", "uint8", "bfloat16"
    ]
    assert a[1].min() >= -4 and a[1].max() <= 4 and a[3].max() <= 4
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))
    dyn = "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}"
    with pytest.raises(ReduceError, match=r"argument 0 of @main has type .*give the inputs"):
        default_inputs(Program.from_text(dyn, []).entry_function())


def test_results_are_written_with_their_inputs(tmp_path) -> None:
    n = 100  # > 64 elements: the cut value is an input
    text = f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.exponential %x : tensor<{n}xf32>
  %1 = stablehlo.tan %0 : tensor<{n}xf32>
  %2 = stablehlo.sine %1 : tensor<{n}xf32>
  return %2 : tensor<{n}xf32>
}}
"""
    x = np.linspace(0, 1, n, dtype=np.float32)
    test = FailsWith("tan", on="serialize:1.0.0")
    r = Session(text, test, inputs=[x]).run()
    assert [op.name for op in r.program.top_level_ops()] == ["stablehlo.tan"]
    # shrink-shapes took the argument down to one element, the first of the exponential's
    assert "tensor<1xf32>" in r.program.text and r.program.inputs[0].shape == (1,)
    moves = [m for m in MOVES if m.name != "shrink-shapes"]
    r = Session(text, test, inputs=[x], moves=moves).run()
    out, npz = r.write(tmp_path / "small.mlir")
    assert npz == tmp_path / "small.inputs.npz" == inputs_path(out)
    written = out.read_text()
    verify(parse(written))
    exp = run(text.replace("%1 = stablehlo.tan %0", "%1 = stablehlo.abs %0")
              .replace("%2 = stablehlo.sine %1", "%2 = stablehlo.abs %0"), x)[0]
    assert r.program.inputs[0].shape == (n,)
    with np.load(npz) as f:
        assert list(f) == ["arg0"]
        np.testing.assert_array_equal(f["arg0"], exp)  # the exponential's value on x
        assert test(Program.from_text(written, [f["arg0"]]))
    assert inputs_path("dir/out") == inputs_path("dir/out.mlir").with_name("out.inputs.npz")
    p, q = write_program(r.program, tmp_path / "again.mlir")
    assert p.read_text() == written and q.exists()


def test_the_summary_says_sizes_tests_and_time() -> None:
    r = reduce(_layers(6, "stablehlo.tan {v} : tensor<4x4xf32>", 3),
               FailsWith("tan", on="serialize:1.0.0"))
    lines = r.summary().splitlines()
    assert lines[0] == f"size: {r.before.ops} ops, 1 function -> {r.after.ops} ops, 1 function"
    assert re.fullmatch(r"tests: \d+ run, \d+ kept, \d+ invalid candidates, \d+ not applicable, "
                        r"\d+ seen before", lines[1])
    assert re.fullmatch(r"time: \d+\.\d\d s", lines[2])


FOREVER = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %w = stablehlo.sine %v : tensor<4xf32>
      stablehlo.return %i, %w : tensor<i32>, tensor<4xf32>
    }
  return %0#1 : tensor<4xf32>
}
"""


def test_runs_that_never_end_are_cut_short(monkeypatch) -> None:
    import time

    from stablehlo_py.reduce import tests as reduce_tests
    from stablehlo_py.reduce.values import record

    p = Program.from_text(FOREVER, [np.zeros(4, np.float32)])
    start = time.perf_counter()
    assert record(p, budget=0.3) is None
    monkeypatch.setattr(reduce_tests, "INTERPRET_BUDGET", 0.3)
    test = FailsWith("something else", on="interpret")
    assert not test(p)
    assert test.last_error == "TimeoutError: the run took more than 0.3 s of CPU time"
    assert time.perf_counter() - start < 20


def test_fails_with_focuses_on_the_op_at_the_errors_position() -> None:
    from stablehlo_py.ir.text.name_stack import op_keys

    text = _layers(6, "stablehlo.tan {v} : tensor<4x4xf32>", 3)
    p = Program.from_text(text, [])
    test = FailsWith("tan", on="serialize:1.0.0")
    tan = next(k for op, k in op_keys(p.module).items() if op.name == "stablehlo.tan")
    assert test.focus(p) == [tan] == ["@main/stablehlo.tan#0"]
    assert FailsWith("nothing", on="serialize:1.4.0").focus(p) == ()
    r = reduce(text, test)
    assert r.stats.per_move["focus"][1] == 1  # kept at once
    assert r.after.ops == 2  # a constant and the tan


def test_focus_reads_the_lines_the_regex_matches() -> None:
    from stablehlo_py.reduce import tests as reduce_tests

    lines = _layers(6, "stablehlo.tan {v} : tensor<4x4xf32>", 3).splitlines()
    ranged = "\n".join(  # locations newer than 1.0.0 on every op: the error names them all
        line + ' loc("f.py":1:2 to :5)' if " = stablehlo." in line else line for line in lines
    )
    p = Program.from_text(ranged, [])
    error = FailsWith("x", on="serialize:1.0.0").error(p)
    assert error is not None and error.count("FileLineColRange") == p.size.ops - 1  # not tan
    assert FailsWith(r"op 'tan' \(needs", on="serialize:1.0.0").focus(p) == ["@main/stablehlo.tan#0"]
    assert FailsWith("FileLineColRange", on="serialize:1.0.0").focus(p) == ()  # 23 ops
    assert p.size.ops > reduce_tests.FOCUS_LIMIT
