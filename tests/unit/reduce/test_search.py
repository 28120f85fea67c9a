"""The search: chunked ddmin, bisection, the memo, limits, progress, and candidates that are
invalid, not applicable, or break a move or a test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce import Move, Program, Session, reduce
from stablehlo_py.reduce.ddmin import Progress
from stablehlo_py.reduce.edit import Edit, NotApplicable
from stablehlo_py.reduce.moves import move_named


def _chain(n: int, marks: dict[int, str]) -> str:
    """A chain of ``n`` unary ops on a tensor<4xf32>: ``marks`` puts another op at some places."""
    lines = ["func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"]
    prev = "%x"
    for i in range(n):
        name = marks.get(i, "negate" if i % 2 else "abs")
        lines.append(f"  %{i} = stablehlo.{name} {prev} : tensor<4xf32>")
        prev = f"%{i}"
    lines += [f"  return {prev} : tensor<4xf32>", "}"]
    return "\n".join(lines)


class Recording:
    """A test that keeps every text it was asked about."""

    uses_inputs = False

    def __init__(self, *needles: str) -> None:
        self.needles = needles
        self.seen: list[str] = []

    def __call__(self, program: Program) -> bool:
        self.seen.append(program.text)
        return all(n in program.text for n in self.needles)


def test_reduces_a_chain_to_the_ops_the_test_needs() -> None:
    test = Recording("stablehlo.sine", "stablehlo.cosine")
    r = reduce(_chain(60, {17: "sine", 41: "cosine"}), test, time_limit=60)
    assert r.stopped is None
    assert r.after.ops <= 3, r.program.text  # sine, cosine and a stand-in for sine's operand
    assert r.before.ops == 60
    verify(r.program.fresh_module())
    assert test(r.program)


def test_the_memo_never_tests_a_text_twice() -> None:
    test = Recording("stablehlo.sine")
    r = reduce(_chain(40, {25: "sine"}), test, time_limit=60)
    assert len(test.seen) == len(set(test.seen)) == r.stats.tests
    assert r.stats.memo_hits > 0


def test_the_memo_keys_on_inputs_when_the_test_reads_them() -> None:
    class ReadsInputs(Recording):
        uses_inputs = True

    p = Program.from_text(_chain(3, {1: "sine"}), [np.zeros(4, np.float32)])
    q = Program(p.module, [np.ones(4, np.float32)])
    assert p.digest(False) == q.digest(False) and p.digest(True) != q.digest(True)
    s = Session(p, ReadsInputs("sine"))
    s.run()
    assert s.search is not None and s.search._uses_inputs


def test_return_earlier_bisects() -> None:
    n = 200
    test = Recording("stablehlo.sine")
    r = reduce(_chain(n, {120: "sine"}), test, moves=[move_named("return-earlier")], time_limit=60)
    assert [op.name for op in r.program.top_level_ops()][-1] == "stablehlo.sine"
    assert r.after.ops == 121
    # one bisection (about log2(n) tests) and a second round that finds nothing smaller
    assert r.stats.tests <= 2 * (math.ceil(math.log2(n)) + 1)


def test_limits_stop_the_search_and_keep_the_best_so_far() -> None:
    text = _chain(80, {50: "sine"})
    r = reduce(text, Recording("stablehlo.sine"), max_tests=4)
    assert r.stopped == "test limit (4 tests)" and r.stats.tests == 4
    assert "stablehlo.sine" in r.program.text and r.after <= r.before
    r = reduce(text, Recording("stablehlo.sine"), time_limit=0)
    assert r.stopped == "time limit (0 s)" and r.program.text == Program.from_text(text, []).text


def test_progress_is_reported_after_every_candidate() -> None:
    events: list[Progress] = []
    r = reduce(_chain(30, {10: "sine"}), Recording("stablehlo.sine"), progress=events.append)
    assert events and all(isinstance(e, Progress) for e in events)
    kept = [e.size for e in events if e.kept]
    assert kept == sorted(kept, reverse=True) and kept[-1] == r.after
    assert events[-1].tests == r.stats.tests
    assert [e.elapsed for e in events] == sorted(e.elapsed for e in events)


def _retype(program: Program, atoms, ctx) -> Program:
    """An edit that breaks the program: the first op's result claims another type."""
    from stablehlo_py.ir.xdsl_compat.fields import retype_values
    from xdsl.dialects.builtin import TensorType, f32

    edit = Edit(program)
    op = next(program.top_level_ops())
    retype_values(edit.ops[program.ops.index(op)].results, [TensorType(f32, [5])])
    return edit.finish()


def test_invalid_candidates_are_counted_never_tested() -> None:
    test = Recording("stablehlo")
    broken = Move("broken", "each", lambda p, c: ["x"], _retype)
    r = reduce(_chain(3, {}), test, moves=[broken])
    assert r.stats.invalid == 1 and r.stats.tests == 1  # the original only
    for text in test.seen:
        verify(Program.from_text(text, []).module)


def test_not_applicable_and_broken_moves_and_tests_are_reported() -> None:
    def not_applicable(p, a, c):
        raise NotApplicable("no")

    def buggy(p, a, c):
        raise ZeroDivisionError("oops")

    moves = [Move("na", "each", lambda p, c: [1, 2], not_applicable),
             Move("bug", "each", lambda p, c: [1], buggy), move_named("replace-ops")]
    r = reduce(_chain(3, {1: "sine"}), Recording("sine"), moves=moves)
    assert r.stats.not_applicable >= 2
    assert r.stats.move_errors and "bug on [1]: ZeroDivisionError: oops" in r.stats.move_errors[0]
    assert "move errors: " in r.summary()

    calls = []

    def flaky(program: Program) -> bool:
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the test broke")
        return True

    r = reduce(_chain(3, {1: "sine"}), flaky, moves=[move_named("replace-ops")])
    assert r.after == r.before and r.stats.test_errors[0] == "RuntimeError: the test broke"
    assert "test errors: " in r.summary()


def test_cleanup_is_off_when_the_failure_needs_dead_code() -> None:
    text = _chain(6, {2: "sine"}).replace(
        "  return", "  %dead = stablehlo.cosine %x : tensor<4xf32>\n  return"
    )
    r = reduce(text, Recording("stablehlo.cosine", "stablehlo.sine"), time_limit=60)
    assert "stablehlo.cosine" in r.program.text and "stablehlo.sine" in r.program.text
    assert r.after.ops < r.before.ops
    verify(r.program.fresh_module())


@pytest.mark.parametrize("search", ["ddmin", "each"])
def test_atoms_are_listed_again_after_a_kept_candidate(search: str) -> None:
    lists = []

    def atoms(p: Program, c) -> list:
        lists.append(p.size.ops)
        return [i for i, op in enumerate(p.ops) if op.name == "stablehlo.abs"]

    def drop(p: Program, a, c) -> Program:
        edit = Edit(p)
        for i in a:
            op = edit.ops[i]
            op.results[0].replace_all_uses_with(op.operands[0])
            from xdsl.rewriter import Rewriter
            Rewriter.erase_op(op)
        return edit.finish()

    r = reduce(_chain(8, {}), Recording("negate"), moves=[Move("drop-abs", search, atoms, drop)])
    assert "stablehlo.abs" not in r.program.text and r.after.ops == 4
    assert len(lists) >= 2 and lists[1] < lists[0]
