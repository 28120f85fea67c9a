"""The first diverging op (stablehlo_py/trace/compare.py, match.py, compare_report.py,
backend_trace.py): an op whose result differs while its operands agree, found in variants of a
program against the original's trace (in memory and from a file), with ops matched by place when a
change moved one to another scope; loops and called functions; fallbacks; keys on one side only;
comparisons by summaries; a backend given as a function."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.trace import Trace, load_trace, save_trace
from stablehlo_py.trace.backend_trace import BackendRunError, backend_trace, compare_to_backend
from stablehlo_py.trace.compare import compare_traces
from stablehlo_py.trace.match import match_entries
from tests.unit.trace.programs import LOOP

X = np.array([0.5, -1.0, 2.0, 0.25], np.float32)

# a constant of the function's scope (as JAX writes the constants it makes), a block, an output
BASE = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<4xf32> loc("jit(f)"("m.py":1:0))
  %a = stablehlo.multiply %x, %c : tensor<4xf32> loc("jit(f)/blk/mul"("m.py":2:0))
  %k = stablehlo.constant dense<1.0> : tensor<4xf32> loc("jit(f)/blk/const"("m.py":3:0))
  %b = stablehlo.subtract %a, %k : tensor<4xf32> loc("jit(f)/blk/sub"("m.py":4:0))
  %h = stablehlo.constant dense<0.5> : tensor<4xf32> loc("jit(f)"("m.py":5:0))
  %d = stablehlo.multiply %b, %h : tensor<4xf32> loc("jit(f)/blk/mul"("m.py":6:0))
  %e = stablehlo.add %d, %a : tensor<4xf32> loc("jit(f)/out/add"("m.py":7:0))
  return %e : tensor<4xf32>
}"""


def variant(old: str, new: str, program: str = BASE) -> str:
    assert program.count(old) == 1, old
    return program.replace(old, new)


SWAP = variant("stablehlo.subtract %a, %k", "stablehlo.subtract %k, %a")
CONSTANT = variant("dense<0.5>", "dense<0.625>")
# the constant %k moves from jit(f)/blk to jit(f) (as JAX's locations do when a literal changes):
# its key changes, and the later jit(f) constant's ordinal shifts from #1 to #2
MOVED = variant(
    'dense<1.0> : tensor<4xf32> loc("jit(f)/blk/const"("m.py":3:0))',
    'dense<3.0> : tensor<4xf32> loc("jit(f)"("m.py":3:0))',
)


def traced(program: str, level: int = 3, x: np.ndarray = X) -> tuple[object, Trace]:
    module = parse(program)
    trace = Trace(level)
    run(module, x, trace=trace)
    return module, trace


@pytest.fixture(scope="module")
def reference() -> Trace:
    return traced(BASE)[1]


def test_a_run_agrees_with_its_own_trace(reference: Trace) -> None:
    module, ours = traced(BASE)
    c = compare_traces(ours, reference, module)
    assert not c.diverged and c.first is None and c.compared == len(ours) == 7
    assert not c.only_here and not c.only_reference and not c.not_compared
    assert c.report().splitlines()[1] == "no op differs"


def test_swapped_operands_are_named_with_agreeing_operands(reference: Trace) -> None:
    module, ours = traced(SWAP)
    c = compare_traces(ours, reference, module, against="ref.npz")
    assert c.diverged and not c.fallback
    assert c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"
    assert [o.source for o in c.first.operands] == [
        "jit(f)/blk/stablehlo.constant#0",
        "jit(f)/blk/stablehlo.multiply#0",
    ]
    assert all(o.status == "agrees" for o in c.first.operands)
    # the ops after it differ too, but their operands do not all agree
    assert [d.key for d in c.differing][1:] == [
        "jit(f)/blk/stablehlo.multiply#1",
        "jit(f)/out/stablehlo.add#0",
    ]
    assert c.independent == [c.first]
    text = c.report()
    lines = text.splitlines()
    assert lines[0] == "compared with ref.npz: 7 ops here, 7 in the reference; 7 compared, 3 differ"
    assert lines[1] == "first diverging op: jit(f)/blk/stablehlo.subtract#0 (stablehlo.subtract)"
    assert "  at m.py:4 (text -:5:" in text and "  name stack: jit(f)/blk" in text
    assert '  location: "jit(f)/blk/sub"("m.py":4:0)' in text
    # (k - a) - (a - k) = 2 (k - a) with a = 2x, k = 1
    want = float(np.max(np.abs(2 * (2 * X - 1))))
    assert f"max abs diff {want:.6g}" in text
    assert "    %0 jit(f)/blk/stablehlo.constant#0  f32[4] min 1 max 1 mean 1  agrees" in text
    assert "2 more ops differ" in text


def test_a_wrong_constant_is_named_before_its_consumers(reference: Trace) -> None:
    module, ours = traced(CONSTANT)
    c = compare_traces(ours, reference, module)
    assert c.first is not None and c.first.key == "jit(f)/stablehlo.constant#1"
    assert c.first.operands == [] and "  operands: none" in c.report()
    assert c.first.results[0][1].max_abs == pytest.approx(0.125)


def test_an_op_that_moved_scope_is_matched_by_its_place(reference: Trace) -> None:
    module, ours = traced(MOVED)
    pairs = match_entries(ours, reference)
    assert pairs["jit(f)/stablehlo.constant#1"].key == "jit(f)/blk/stablehlo.constant#0"
    assert pairs["jit(f)/stablehlo.constant#2"].key == "jit(f)/stablehlo.constant#1"
    c = compare_traces(ours, reference, module)
    assert c.first is not None and c.first.key == "jit(f)/stablehlo.constant#1"
    assert c.first.reference.key == "jit(f)/blk/stablehlo.constant#0"
    assert c.renamed == 2 and not c.only_here and not c.only_reference
    # the shifted constant (0.5 on both sides) is paired with its counterpart: it agrees
    assert "jit(f)/stablehlo.constant#2" not in [d.key for d in c.differing]
    text = c.report()
    assert (
        "first diverging op: jit(f)/stablehlo.constant#1 (stablehlo.constant), the reference's "
        "jit(f)/blk/stablehlo.constant#0" in text
    )
    assert "2 ops matched by their place in the run have other keys" in text
    # matched by key only, the moved op is on one side only and the shifted keys mismatch
    by_key = match_entries(ours, reference, align=False)
    assert "jit(f)/stablehlo.constant#2" not in by_key
    assert by_key["jit(f)/stablehlo.constant#1"].key == "jit(f)/stablehlo.constant#1"


def test_the_comparison_reads_a_trace_file(reference: Trace, tmp_path: Path) -> None:
    save_trace(reference, tmp_path / "ref.npz")
    module, ours = traced(SWAP)
    c = compare_traces(ours, load_trace(tmp_path / "ref.npz"), module)
    assert c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"


def test_keys_on_one_side_only_are_listed(reference: Trace) -> None:
    extra = variant(
        "  %e = stablehlo.add %d, %a",
        '  %t = stablehlo.tanh %d : tensor<4xf32> loc("jit(f)/out/tanh"("m.py":8:0))\n'
        "  %e = stablehlo.add %d, %a",
    )
    module, ours = traced(extra)
    c = compare_traces(ours, reference, module)
    assert c.only_here == ["jit(f)/out/stablehlo.tanh#0"] and not c.diverged
    assert "ops only in this run (1): jit(f)/out/stablehlo.tanh#0" in c.report()
    back = compare_traces(reference, ours, parse(BASE))
    assert back.only_reference == ["jit(f)/out/stablehlo.tanh#0"] and not back.diverged
    assert "ops only in the reference (1): jit(f)/out/stablehlo.tanh#0" in back.report()


def test_a_reference_of_another_program_compares_nothing_and_diverges(reference: Trace) -> None:
    module = parse(LOOP)
    ours = Trace(3)
    run(module, np.array([2.0, 3.0], np.float32), trace=ours)
    c = compare_traces(ours, reference, module)
    assert c.compared == 0 and c.diverged and c.first is None
    assert "nothing could be compared" in c.report()


def test_without_the_program_the_first_differing_op_is_reported(reference: Trace) -> None:
    _, ours = traced(SWAP)
    c = compare_traces(ours, reference)  # no module: no operand can be checked
    assert c.fallback and c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"
    text = c.report()
    assert "first differing op: jit(f)/blk/stablehlo.subtract#0" in text
    assert "not necessarily where the difference starts" in text


def test_an_operand_missing_from_the_reference_leaves_the_op_unconfirmed(reference: Trace) -> None:
    partial = Trace(3)
    for e in reference:
        if e.key != "jit(f)/blk/stablehlo.multiply#0":
            partial.add(e)
    module, ours = traced(SWAP)
    c = compare_traces(ours, partial, module)
    assert c.only_here == ["jit(f)/blk/stablehlo.multiply#0"]
    # sub's operand %a is not in the reference, the later ops' operands differ: fallback
    assert c.fallback and c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"
    status = {o.source: (o.status, o.note) for o in c.first.operands}
    assert status["jit(f)/blk/stablehlo.multiply#0"] == ("unknown", "not in the reference")


def test_a_loop_body_bug_is_named_at_its_while() -> None:
    x = np.array([1.5, 2.0], np.float32)
    module = parse(LOOP)
    ref = Trace(3)
    run(module, x, trace=ref)
    bad = parse(LOOP.replace("stablehlo.multiply %v, %v", "stablehlo.add %v, %v"))
    ours = Trace(3)
    run(bad, x, trace=ours)
    c = compare_traces(ours, ref, bad)
    # the body's add (in the multiply's place) differs, but its operands are block arguments
    # (unknown): the while, whose operands agree, is where it starts
    assert c.first is not None and c.first.key == "@main/stablehlo.while#0" and not c.fallback
    body = next(d for d in c.differing if d.key == "@main/stablehlo.add#1")
    assert body.reference.key == "@main/stablehlo.multiply#0" and not body.confirmed
    assert {o.note for o in body.operands} == {
        "a region's block argument (values are kept for the last run only)"
    }
    assert c.renamed == 1 and not c.only_here and not c.only_reference


CALLED = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.exponential %x : tensor<4xf32> loc("jit(f)/exp"("m.py":1:0))
  %r = func.call @inner(%a, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      loc("jit(f)/inner"("m.py":2:0))
  %s = stablehlo.negate %r : tensor<4xf32> loc("jit(f)/neg"("m.py":3:0))
  return %s : tensor<4xf32>
}
func.func private @inner(%p: tensor<4xf32>, %q: tensor<4xf32>) -> tensor<4xf32> {
  %m = stablehlo.maximum %p, %q : tensor<4xf32> loc("jit(f)/inner/max"("m.py":10:0))
  %n = stablehlo.sine %m : tensor<4xf32> loc("jit(f)/inner/sin"("m.py":11:0))
  return %n : tensor<4xf32>
}"""


def test_an_argument_of_a_function_called_once_is_the_calls_operand() -> None:
    _, ref = traced(CALLED)
    bad = variant("stablehlo.maximum %p, %q", "stablehlo.minimum %p, %q", CALLED)
    # same scope and place: the minimum pairs with the maximum by position, keys differ
    module, ours = traced(bad)
    c = compare_traces(ours, ref, module)
    assert c.first is not None and c.first.key == "jit(f)/inner/stablehlo.minimum#0"
    assert c.first.reference.key == "jit(f)/inner/stablehlo.maximum#0"
    assert [(o.source, o.status) for o in c.first.operands] == [
        ("argument 0 of @inner = jit(f)/stablehlo.exponential#0", "agrees"),
        ("argument 1 of @inner = argument 0 of @main", "input"),
    ]


def test_an_argument_of_a_function_called_twice_cannot_be_checked() -> None:
    twice = CALLED.replace(
        "  %s = stablehlo.negate %r",
        "  %r2 = func.call @inner(%r, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> "
        'loc("jit(f)/inner"("m.py":2:0))\n  %s = stablehlo.negate %r2',
    )
    _, ref = traced(twice)
    module, ours = traced(twice.replace("stablehlo.maximum %p, %q", "stablehlo.minimum %p, %q"))
    c = compare_traces(ours, ref, module)
    first_min = c.differing[0]
    assert first_min.key == "jit(f)/inner/stablehlo.minimum#0" and not first_min.confirmed
    assert first_min.operands[0].note == "an argument of a function called more than once"
    # min(exp(x), x) = x, max = exp(x): the first call's result differs, its operands agree
    assert c.first is not None and c.first.key == "jit(f)/func.call#0" and c.first.confirmed
    # the callee's values are its last run's (the second call's, on the first call's result):
    # the sine's operand differs there too
    sine = next(d for d in c.differing if d.key == "jit(f)/inner/stablehlo.sine#0")
    assert sine.operands[0].status == "differs"


def test_level_one_traces_are_compared_by_summaries() -> None:
    _, ref = traced(BASE, level=1)
    module, ours = traced(SWAP, level=1)
    c = compare_traces(ours, ref, module)
    assert c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"
    assert c.first.results[0][1].how == "summaries" and "[by summaries" in c.report()


def test_tolerances_decide(reference: Trace) -> None:
    near = variant("dense<0.5>", "dense<0.5002>")  # beyond f32's 2e-5 + 2e-4 * 0.5
    module, ours = traced(near)
    assert compare_traces(ours, reference, module).first is not None
    loose = compare_traces(ours, reference, module, rtol=1e-3)
    assert not loose.diverged and "(floats: rtol 0.001)" in loose.report()


def _perturbing(key: str, delta: float):
    """A backend that is the interpreter, but adds ``delta`` to the exposed value of ``key``."""
    from stablehlo_py.backends import expose

    def runner(module, args):
        out = run(module, *args)
        exposed = expose(parse(BASE))  # the same keys as the module the runner gets
        j = [k for k, _ in exposed.keys].index(key)
        out[exposed.results + j] = out[exposed.results + j] + np.float32(delta)
        return out

    return runner


def test_a_backend_given_as_a_function() -> None:
    module, ours = traced(BASE)
    agree = compare_to_backend(ours, module, [X], lambda m, a: run(m, *a))
    assert not agree.diverged and agree.compared == 7
    c = compare_to_backend(ours, module, [X], _perturbing("jit(f)/blk/stablehlo.subtract#0", 1.0))
    assert c.first is not None and c.first.key == "jit(f)/blk/stablehlo.subtract#0"
    assert c.first.results[0][1].max_abs == pytest.approx(1.0)


def test_a_backend_compares_top_level_ops_only() -> None:
    x = np.array([1.5, 2.0], np.float32)
    module = parse(LOOP)
    ours = Trace(3)
    run(module, x, trace=ours)
    ref = backend_trace(module, [x], lambda m, a: run(m, *a))
    assert ref.keys() == [
        "@main/stablehlo.constant#0",
        "@main/stablehlo.constant#1",
        "@main/stablehlo.constant#2",
        "@main/stablehlo.while#0",
    ]
    c = compare_to_backend(ours, module, [x], lambda m, a: run(m, *a))
    assert not c.diverged and not c.only_here and c.compared == 4
    assert {k for k, _ in c.not_compared} == {
        "@main/stablehlo.compare#0",
        "@main/stablehlo.add#0",
        "@main/stablehlo.multiply#0",
    }
    assert "inside a region or a called function" in c.report()


def test_backend_failures_are_one_error() -> None:
    module, _ = traced(BASE)

    def broken(m, a):
        raise RuntimeError("INTERNAL: compile failed\nstack trace ...")

    with pytest.raises(BackendRunError) as e:
        backend_trace(module, [X], broken)
    assert str(e.value) == (
        "error: broken failed on the program with its intermediate values returned: "
        "RuntimeError: INTERNAL: compile failed"
    )
    with pytest.raises(BackendRunError, match="returned 1 results; the program with its values "
                       "exposed has 8"):
        backend_trace(module, [X], lambda m, a: [X])
    with pytest.raises(StableHLOError, match="unknown backend 'tpu': the backends are xla, iree"):
        backend_trace(module, [X], "tpu")
    with pytest.raises(StableHLOError, match="argument 0 of @main is a str, not an array"):
        backend_trace(module, ["x"], lambda m, a: [])


def test_an_op_that_moved_is_matched_by_its_key(reference: Trace) -> None:
    # the constants hoisted to the top, as canonicalization does: same keys, other places
    lines = BASE.splitlines()
    hoisted = "\n".join([lines[0], lines[1], lines[3], lines[5], lines[2], lines[4], *lines[6:]])
    assert sorted(hoisted.splitlines()) == sorted(lines)
    module, ours = traced(hoisted)
    assert ours.keys() != reference.keys() and sorted(ours.keys()) == sorted(reference.keys())
    pairs = match_entries(ours, reference)
    assert all(pairs[k].key == k for k in ours.keys())
    c = compare_traces(ours, reference, module)
    assert not c.diverged and c.compared == 7 and c.renamed == 0


def test_anchors_keep_a_long_trace_aligned_around_a_change() -> None:
    from stablehlo_py.trace import TraceEntry

    def trace(n: int, moved: int | None) -> Trace:
        t, seen = Trace(1), {}
        for i in range(n):
            scope = "jit(f)" if i % 5 == 0 else f"jit(f)/b{i // 40}"
            if i == moved:
                scope = "jit(f)/b_moved"
            op = ("stablehlo.constant", "stablehlo.add", "stablehlo.multiply")[i % 3]
            k = seen.get((scope, op), 0)
            seen[(scope, op)] = k + 1
            t.add(TraceEntry(0, f"{scope}/{op}#{k}", op, ("tensor<f32>",), scope=scope))
        return t

    ours, ref = trace(20_000, None), trace(20_000, 10_000)  # a jit(f) op of ours moved there
    pairs = match_entries(ours, ref)
    assert len(pairs) == 20_000
    # every op pairs with the one at its place: keys after the change shift within jit(f) only
    order = {id(e): j for j, e in enumerate(ref)}
    assert [order[id(pairs[e.key])] for e in ours] == list(range(20_000))


def test_a_long_location_is_cut_in_the_report(reference: Trace) -> None:
    chain = "".join(f'callsite("f{i}"("m.py":{i}:0) at ' for i in range(20)) + '"m.py":99:0' + ")" * 20
    long = variant('loc("jit(f)/blk/sub"("m.py":4:0))', f'loc("jit(f)/blk/sub"({chain}))', SWAP)
    module, ours = traced(long)
    text = compare_traces(ours, reference, module).report()
    line = next(x for x in text.splitlines() if x.startswith("  location: "))
    assert len(line) == len("  location: ") + 200 and line.endswith("...")
    assert "  at m.py:0 (text" in text  # the first file location in it
