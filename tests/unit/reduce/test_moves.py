"""Each move alone on small programs: what it changes, that the candidate verifies, and that the
values a cut keeps are the values the program computed (the interpreter gives the same results)."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce.edit import SMALL_CONSTANT, NotApplicable
from stablehlo_py.reduce.moves import ALL_MOVES, MOVES, Context, move_named
from stablehlo_py.reduce.program import Program
from stablehlo_py.reduce.values import default_inputs, record


def _program(text: str, *inputs: np.ndarray) -> Program:
    p = Program.from_text(text, (), "main")
    return Program(p.module, list(inputs) or default_inputs(p.entry_function()), "main")


def _context(values: bool = True) -> Context:
    return Context(recorded=record if values else (lambda p: None))


def _apply(name: str, program: Program, atoms, values: bool = True) -> Program:
    out = move_named(name).apply(program, atoms, _context(values))
    verify(out.fresh_module())  # the text parses back into a valid program
    return out


def _names(program: Program) -> list[str]:
    return [op.name for op in program.top_level_ops()]


def _atoms(name: str, program: Program, values: bool = True):
    return move_named(name).atoms(program, _context(values))


CHAIN = """
func.func @main(%x: tensor<4xf32>, %unused: tensor<2xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %dead = stablehlo.negate %x : tensor<4xf32>
  %1 = stablehlo.sine %0 : tensor<4xf32>
  %2 = stablehlo.add %1, %x : tensor<4xf32>
  %3 = stablehlo.tanh %2 : tensor<4xf32>
  return %3, %0 : tensor<4xf32>, tensor<4xf32>
}
"""

X = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
UNUSED = np.array([7, 8], np.int32)
SINE_OF_EXP = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = stablehlo.sine %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}"""


def test_the_moves_are_listed_once_each() -> None:
    names = [m.name for m in ALL_MOVES]
    assert len(names) == len(set(names))
    assert "strip-locations" in names and "strip-locations" not in [m.name for m in MOVES]
    assert all(m.search in ("ddmin", "each", "bisect") for m in ALL_MOVES)
    with pytest.raises(KeyError, match="no move 'nope'; moves: dead-code"):
        move_named("nope")


def test_moves_never_change_the_program_they_edit() -> None:
    p = _program(CHAIN, X, UNUSED)
    before = p.text
    for move in ALL_MOVES:
        for a in move.atoms(p, _context())[:3]:
            try:
                move.apply(p, [a], _context())
            except NotApplicable:
                pass
    assert p.text == before and Program(p.module, p.inputs).text == before


def test_dead_code_drops_dead_ops_unused_arguments_and_their_inputs() -> None:
    p = _program(CHAIN, X, UNUSED)
    out = _apply("dead-code", p, ["cleanup"])
    assert "stablehlo.negate" not in out.text
    assert len(out.inputs) == 1 and out.inputs[0] is X
    assert "tensor<2xi32>" not in out.text


def test_drop_results_keeps_the_other_results_and_their_attributes() -> None:
    text = CHAIN.replace(
        "-> (tensor<4xf32>, tensor<4xf32>)",
        '-> (tensor<4xf32> {jax.result_info = "a"}, tensor<4xf32> {jax.result_info = "b"})',
    )
    p = _program(text, X, UNUSED)
    assert _atoms("drop-results", p) == [0, 1]
    out = _apply("drop-results", p, [0])
    assert _names(out) == ["stablehlo.exponential"]
    assert 'jax.result_info = "b"' in out.text and '"a"' not in out.text
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], run(p.text, *p.inputs)[1])


def test_return_earlier_returns_what_later_ops_used() -> None:
    p = _program(CHAIN, X, UNUSED)
    atoms = _atoms("return-earlier", p)
    # every top-level op with results; the atom is the op after which the function ends
    assert [p.ops[i].name for i in atoms] == [
        "stablehlo.exponential", "stablehlo.negate", "stablehlo.sine", "stablehlo.add",
        "stablehlo.tanh",
    ]
    out = _apply("return-earlier", p, [atoms[2]])  # ends after the sine
    assert _names(out) == ["stablehlo.exponential", "stablehlo.sine"]
    # the exponential (the original return uses it later) and the sine are returned, in order
    want = run(p.text, *p.inputs)
    got = run(out.text, *out.inputs)
    assert len(got) == 2
    np.testing.assert_array_equal(got[0], want[1])
    np.testing.assert_array_equal(got[1], run(SINE_OF_EXP, X)[0])


def test_return_operands_walks_up_from_a_result() -> None:
    p = _program(CHAIN, X, UNUSED)
    assert _atoms("return-operands", p) == [0, 1]
    out = _apply("return-operands", p, [0])  # tanh(%2) -> %2
    assert _names(out) == ["stablehlo.exponential", "stablehlo.sine", "stablehlo.add"]
    assert out.size.ops == p.size.ops - 2  # the tanh and the dead negate


def test_cut_replaces_operands_by_recorded_values_as_constants() -> None:
    p = _program(CHAIN, X, UNUSED)
    atoms = _atoms("cut", p)
    assert [p.ops[i].name for i in atoms] == ["stablehlo.sine", "stablehlo.add", "stablehlo.tanh"]
    out = _apply("cut", p, [atoms[0]])  # the sine takes the exponential's value
    assert "stablehlo.constant" in out.text
    # 4 elements <= 64: a constant; the exponential is still computed for the second result
    assert len(out.inputs) == 1
    for got, want in zip(run(out.text, *out.inputs), run(p.text, *p.inputs)):
        np.testing.assert_array_equal(got, want)


def test_cut_of_a_large_value_is_a_new_argument_fed_with_it() -> None:
    n = SMALL_CONSTANT + 1
    text = f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.exponential %x : tensor<{n}xf32>
  %1 = stablehlo.sine %0 : tensor<{n}xf32>
  return %1 : tensor<{n}xf32>
}}
"""
    x = np.linspace(-1, 1, n).astype(np.float32)
    p = _program(text, x)
    out = _apply("cut", p, _atoms("cut", p))
    assert _names(out) == ["stablehlo.sine"]  # the exponential died, and so did %x
    assert len(out.inputs) == 1 and out.inputs[0].shape == (n,)
    np.testing.assert_array_equal(out.inputs[0], run(f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.exponential %x : tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}""", x)[0])
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], run(p.text, x)[0])


def test_a_constant_of_at_most_64_elements_stands_in_as_a_constant() -> None:
    n = SMALL_CONSTANT
    text = CHAIN.replace("4xf32", f"{n}xf32")
    x = np.linspace(-1, 1, n).astype(np.float32)
    p = _program(text, x, UNUSED)
    out = _apply("cut", p, [_atoms("cut", p)[0]])
    assert len(out.inputs) == 1 and out.inputs[0] is x


def test_without_recorded_values_stand_ins_are_zeros() -> None:
    p = _program(CHAIN, X, UNUSED)
    out = _apply("cut", p, [_atoms("cut", p)[0]], values=False)
    assert "dense<0.000000e+00> : tensor<4xf32>" in out.text
    tanh = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], run(tanh, X)[0])  # sin(0) + x


def test_replace_ops_deletes_ops_and_gives_their_uses_stand_ins() -> None:
    p = _program(CHAIN, X, UNUSED)
    atoms = _atoms("replace-ops", p)
    assert [p.ops[i].name for i in atoms] == [
        "stablehlo.exponential", "stablehlo.negate", "stablehlo.sine", "stablehlo.add",
        "stablehlo.tanh",
    ]
    out = _apply("replace-ops", p, [atoms[2], atoms[3]])  # sine and add
    assert _names(out) == ["stablehlo.exponential", "stablehlo.constant", "stablehlo.tanh"]
    for got, want in zip(run(out.text, *out.inputs), run(p.text, *p.inputs)):
        np.testing.assert_array_equal(got, want)


REDUCE = """
func.func @main(%x: tensor<4x3xf32>) -> tensor<3xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %init) across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %s = stablehlo.add %a, %b : tensor<f32>
      %m = stablehlo.maximum %s, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }
  return %0 : tensor<3xf32>
}
"""


def test_replace_ops_inside_a_region_uses_zeros() -> None:
    p = _program(REDUCE)
    i = next(i for i, op in enumerate(p.ops) if op.name == "stablehlo.maximum")
    out = _apply("replace-ops", p, [i])
    assert "stablehlo.maximum" not in out.text and "stablehlo.add" not in out.text
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], np.zeros(3, np.float32))


def test_replace_ops_of_an_op_and_one_inside_it() -> None:
    p = _program(REDUCE)
    atoms = _atoms("replace-ops", p)
    assert [p.ops[i].name for i in atoms] == [
        "stablehlo.reduce", "stablehlo.add", "stablehlo.maximum"
    ]
    out = _apply("replace-ops", p, atoms)
    assert _names(out) == ["stablehlo.constant"]


CALLS = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @square(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @square(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


def test_inline_replaces_calls_by_bodies_and_drops_the_callee() -> None:
    p = _program(CALLS, X)
    assert _atoms("inline", p) == ["inline"]
    out = _apply("inline", p, ["inline"])
    assert "call" not in out.text and "@square" not in out.text
    assert _names(out) == ["stablehlo.multiply", "stablehlo.multiply"]
    assert out.size.functions == p.size.functions - 1
    np.testing.assert_array_equal(run(out.text, X)[0], X**4)


def test_composites_inline_through_calls() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "my.sq" %x {decomposition = @sq} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @sq(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    p = _program(text, X)
    atoms = _atoms("inline", p)
    assert atoms == ["stablehlo-legalize-composite-to-call,inline"]
    out = _apply("inline", p, atoms)
    assert _names(out) == ["stablehlo.multiply"] and out.size.functions == 1


def test_calls_to_effect_free_functions_are_dead_code() -> None:
    text = CALLS.replace("return %1 : tensor<4xf32>", "return %x : tensor<4xf32>", 1)
    p = _program(text, X)
    out = _apply("dead-code", p, ["cleanup"])
    assert "call" not in out.text and "@square" not in out.text and "@other" in out.text


def test_drop_functions_erases_public_functions_nothing_calls() -> None:
    p = _program(CALLS, X)
    assert _atoms("drop-functions", p) == ["other"]
    out = _apply("drop-functions", p, ["other"])
    assert "@other" not in out.text and "@square" in out.text


WHILE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %c1 : tensor<i32>
      %w = stablehlo.multiply %v, %v : tensor<4xf32>
      stablehlo.return %n, %w : tensor<i32>, tensor<4xf32>
    }
  return %0#1 : tensor<4xf32>
}
"""


def test_flatten_a_while_to_no_iteration_or_one() -> None:
    p = _program(WHILE, X)
    i = next(i for i, op in enumerate(p.ops) if op.name == "stablehlo.while")
    assert _atoms("flatten-regions", p) == [(i, "skip"), (i, "once")]
    skip = _apply("flatten-regions", p, [(i, "skip")])
    assert "stablehlo.while" not in skip.text
    np.testing.assert_array_equal(run(skip.text, X)[0], X)
    once = _apply("flatten-regions", p, [(i, "once")])
    assert _names(once) == ["stablehlo.multiply"]
    np.testing.assert_array_equal(run(once.text, X)[0], X * X)


IF_CASE = """
func.func @main(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.if"(%p) ({
    %a = stablehlo.sine %x : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %b = stablehlo.cosine %x : tensor<4xf32>
    stablehlo.return %b : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %1 = "stablehlo.case"(%k) ({
    %c = stablehlo.exponential %x : tensor<4xf32>
    stablehlo.return %c : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }, {
    %e = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""


def test_flatten_if_and_case_to_one_branch() -> None:
    p = _program(IF_CASE, np.array(True), np.array(1, np.int32), X)
    i_if = next(i for i, op in enumerate(p.ops) if op.name == "stablehlo.if")
    i_case = next(i for i, op in enumerate(p.ops) if op.name == "stablehlo.case")
    assert _atoms("flatten-regions", p) == [
        (i_if, 0), (i_if, 1), (i_case, 0), (i_case, 1), (i_case, 2)
    ]
    out = _apply("flatten-regions", p, [(i_if, 1)])
    assert "stablehlo.if" not in out.text and "stablehlo.cosine" in out.text
    out = _apply("flatten-regions", p, [(i_case, 2)])
    assert "stablehlo.case" not in out.text and _names(out)[-1] == "stablehlo.negate"
    got = run(out.text, *out.inputs)
    np.testing.assert_array_equal(got[1], -X)


def test_simplify_runs_the_simplification_pipelines() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0 = stablehlo.add %x, %z : tensor<4xf32>
  %1 = stablehlo.transpose %0, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
    p = _program(text, X)
    atoms = _atoms("simplify", p)
    assert "stablehlo-aggressive-simplification,canonicalize" in atoms
    out = _apply("simplify", p, [atoms[0]])
    assert out.size.ops == 0


SHAPES = """
func.func @main(%x: tensor<8x6xf32>, %y: tensor<8x6xf32>) -> tensor<6xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<8x6xf32>
  %0 = stablehlo.multiply %x, %half : tensor<8x6xf32>
  %1 = stablehlo.add %0, %y : tensor<8x6xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<8x6xf32>, tensor<f32>) -> tensor<6xf32>
  return %2 : tensor<6xf32>
}
"""


def test_shrink_shapes_halves_an_argument_and_reinfers_types() -> None:
    x = np.arange(48, dtype=np.float32).reshape(8, 6)
    y = np.ones((8, 6), np.float32)
    p = _program(SHAPES, x, y)
    # each dimension of the arguments of one type together, then of each argument alone
    assert _atoms("shrink-shapes", p) == [
        (0, 0, True), (0, 1, True), (0, 0, False), (0, 1, False), (1, 0, False), (1, 1, False)
    ]
    with pytest.raises(NotApplicable, match="stablehlo.add"):  # x shrunk, y not: no add type
        move_named("shrink-shapes").apply(p, [(0, 0, False)], _context())
    out = _apply("shrink-shapes", p, [(0, 1, True)])  # the splat follows, the reduce re-infers
    assert "-> tensor<3xf32>" in out.text and out.size.elements < p.size.elements
    assert [a.shape for a in out.inputs] == [(8, 3), (8, 3)]
    np.testing.assert_array_equal(out.inputs[0], x[:, :3])
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], (x[:, :3] * 0.5 + 1).sum(axis=0))
    assert _atoms("shrink-shapes", out)[:2] == [(0, 0, True), (0, 1, True)]
    assert (0, 1, True) not in _atoms("shrink-shapes", _apply("shrink-shapes", out, [(0, 1, True)]))


def test_shrink_shapes_needs_inferable_types() -> None:
    text = """
func.func @main(%x: tensor<8xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.reshape %x : (tensor<8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
"""
    p = _program(text)
    with pytest.raises(NotApplicable, match="stablehlo.reshape: result types not inferable"):
        move_named("shrink-shapes").apply(p, [(0, 0, True)], _context())


ATTRS = """
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%x: tensor<4x4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4x4xf32> {
    %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = stablehlo.add %0, %x {mhlo.frontend_attributes = {a = "b"}} : tensor<4x4xf32>
    %c = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<4x4xf32>
    %2 = stablehlo.add %1, %c : tensor<4x4xf32>
    return %2 : tensor<4x4xf32>
  }
}
"""


def test_drop_attributes_by_name_everywhere() -> None:
    p = _program(ATTRS)
    atoms = _atoms("drop-attributes", p)
    assert atoms == [
        ("attr", "mhlo.frontend_attributes"), ("attr", "mhlo.num_partitions"),
        ("prop", "arg_attrs"), ("prop", "precision_config"),
    ]
    out = _apply("drop-attributes", p, atoms)
    for gone in ("frontend_attributes", "num_partitions", "precision", "sharding"):
        assert gone not in out.text
    assert "module @m" in out.text
    one = _apply("drop-attributes", p, [("prop", "precision_config")])
    assert "precision" not in one.text and "mhlo.sharding" in one.text


def test_splat_constants_keep_the_first_element() -> None:
    p = _program(ATTRS)
    atoms = _atoms("splat-constants", p)
    assert len(atoms) == 1
    out = _apply("splat-constants", p, atoms)
    assert "dense<1.000000e+00> : tensor<4x4xf32>" in out.text
    assert _atoms("splat-constants", out) == []


def test_strip_locations() -> None:
    text = CHAIN.replace("%3 = stablehlo.tanh %2 : tensor<4xf32>",
                         '%3 = stablehlo.tanh %2 : tensor<4xf32> loc("jit(f)/tanh"("f.py":3:1))')
    p = _program(text, X, UNUSED)
    assert 'loc("jit(f)/tanh"' in p.text
    assert _atoms("strip-locations", p) == ["all"]
    out = _apply("strip-locations", p, ["all"])
    assert "loc(" not in out.text and _atoms("strip-locations", out) == []


def test_focus_returns_the_named_op_and_cuts_it_loose() -> None:
    from stablehlo_py.ir.text.name_stack import op_keys

    p = _program(CHAIN, X, UNUSED)
    keys = op_keys(p.module)
    sine = next(k for op, k in keys.items() if op.name == "stablehlo.sine")
    assert sine == "@main/stablehlo.sine#0"
    ctx = Context(recorded=record, focus=lambda prog: [sine])
    [i] = move_named("focus").atoms(p, ctx)
    out = move_named("focus").apply(p, [i], ctx)
    assert _names(out) == ["stablehlo.constant", "stablehlo.sine"]
    np.testing.assert_array_equal(run(out.text)[0], run(SINE_OF_EXP, X)[0])
    assert move_named("focus").atoms(p, Context()) == []


def test_bypass_connects_what_was_around_the_ops() -> None:
    p = _program(CHAIN, X, UNUSED)
    atoms = _atoms("bypass", p)
    assert [p.ops[i].name for i in atoms] == [
        "stablehlo.exponential", "stablehlo.negate", "stablehlo.sine", "stablehlo.add",
        "stablehlo.tanh",
    ]
    out = _apply("bypass", p, [atoms[2], atoms[3]])  # sine and add: tanh(exp(x))
    assert _names(out) == ["stablehlo.exponential", "stablehlo.tanh"]
    tanh_exp = SINE_OF_EXP.replace("stablehlo.sine", "stablehlo.tanh")
    np.testing.assert_array_equal(run(out.text, *out.inputs)[0], run(tanh_exp, X)[0])
    shape_changing = _program(REDUCE)
    assert [shape_changing.ops[i].name for i in _atoms("bypass", shape_changing)] == [
        "stablehlo.add", "stablehlo.maximum"
    ]
