"""Issue 27's Done-when for the reducer, in-process: a >= 2,000-op program with one op our
serializer rejects at an old target reduces to <= 5 ops, within its time limit (the time is
printed: ``pytest -s``), found through the error's position (FailsWith's focus) or by the search
alone.  Smaller twins put the op in a called function and in a while loop."""

from __future__ import annotations

import time

import pytest

from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce import FailsWith, Program, reduce
from tests.unit.reduce.programs import layered_model

TIME_LIMIT = 120.0


class Unfocused(FailsWith):
    """FailsWith without its focus (the error's position): the search finds the op itself."""

    def focus(self, program: Program) -> tuple[str, ...]:
        return ()


def _reduce(layers: int, tan_in: str, at: int, focus: bool = True):
    text = layered_model(layers, at, tan_in).text()
    before = Program.from_text(text, []).size
    test = (FailsWith if focus else Unfocused)(r"op 'tan' \(needs 1\.4\.0\)", on="serialize:1.0.0")
    start = time.perf_counter()
    r = reduce(text, test, time_limit=TIME_LIMIT)
    took = time.perf_counter() - start
    how = "with" if focus else "without"
    print(f"\nreduce ({tan_in}, {before}, {how} focus): {r.summary()}\n(wall {took:.2f} s)")
    assert r.stopped is None, f"the time limit was hit: {r.summary()}"
    assert r.before == before
    verify(parse(r.program.text))
    assert test(r.program)
    assert "stablehlo.tan" in r.program.text
    return r


@pytest.mark.parametrize("focus", [True, False], ids=["focus", "search"])
def test_a_2000_op_program_reduces_to_at_most_5_ops(focus: bool) -> None:
    r = _reduce(190, "layer", 90, focus)
    assert r.before.ops >= 2000
    assert r.after.ops <= 5 and r.after.functions == 1, r.program.text
    assert not r.stats.move_errors and not r.stats.test_errors


@pytest.mark.parametrize("tan_in", ["call", "while"])
def test_the_op_inside_a_function_or_a_loop(tan_in: str) -> None:
    r = _reduce(40, tan_in, 22)
    assert r.before.ops >= 400
    assert r.after.ops <= 5 and r.after.functions == 1, r.program.text
    assert "call" not in r.program.text and "stablehlo.while" not in r.program.text
    assert not r.stats.move_errors and not r.stats.test_errors
