"""Blocks with successors (`cf.br`, `cf.cond_br`) and `func.constant` /
`func.call_indirect`: MLIR's pretty and generic syntax, block labels and their numbering, forward
references to blocks, errors with locations, verification."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import ParseError, StableHLOError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import roundtrip as _roundtrip

T = "tensor<f32>"

# Input in MLIR's syntax, with labels named and ordered freely, and MLIR's printout of it (as
# mlir-opt prints it: blocks renumbered in region order, predecessor comments, `func.` elided).
BRANCHES = f"""
func.func @f(%arg0: {T}, %c: i1) -> {T} {{
  %f = func.constant @g : ({T}) -> {T}
  %r = func.call_indirect %f(%arg0) : ({T}) -> {T}
  cf.cond_br %c, ^then(%r : {T}), ^join
^then(%x : {T}):
  cf.br ^join
^join:
  cf.br ^last
^ret:
  func.return %arg0 : {T}
^last:
  cf.cond_br %c, ^ret, ^ret
}}
func.func private @g(%a: {T}) -> {T}
"""

BRANCHES_PRINTED = f"""module {{
  func.func @f(%arg0: {T}, %arg1: i1) -> {T} {{
    %f = constant @g : ({T}) -> {T}
    %0 = call_indirect %f(%arg0) : ({T}) -> {T}
    cf.cond_br %arg1, ^bb1(%0 : {T}), ^bb2
  ^bb1(%1: {T}):  // pred: ^bb0
    cf.br ^bb2
  ^bb2:  // 2 preds: ^bb0, ^bb1
    cf.br ^bb4
  ^bb3:  // 2 preds: ^bb4, ^bb4
    return %arg0 : {T}
  ^bb4:  // pred: ^bb2
    cf.cond_br %arg1, ^bb3, ^bb3
  }}
  func.func private @g({T}) -> {T}
}}
"""

BRANCHES_GENERIC = f""""builtin.module"() ({{
  "func.func"() <{{function_type = ({T}, i1) -> {T}, sym_name = "f"}}> ({{
  ^bb0(%arg0: {T}, %arg1: i1):
    %0 = "func.constant"() <{{value = @g}}> : () -> (({T}) -> {T})
    %1 = "func.call_indirect"(%0, %arg0) : (({T}) -> {T}, {T}) -> {T}
    "cf.cond_br"(%arg1, %1)[^bb1, ^bb2] <{{operandSegmentSizes = array<i32: 1, 1, 0>}}> : (i1, {T}) -> ()
  ^bb1(%2: {T}):  // pred: ^bb0
    "cf.br"()[^bb2] : () -> ()
  ^bb2:  // 2 preds: ^bb0, ^bb1
    "cf.br"()[^bb4] : () -> ()
  ^bb3:  // 2 preds: ^bb4, ^bb4
    "func.return"(%arg0) : ({T}) -> ()
  ^bb4:  // pred: ^bb2
    "cf.cond_br"(%arg1)[^bb3, ^bb3] <{{operandSegmentSizes = array<i32: 1, 0, 0>}}> : (i1) -> ()
  }}) : () -> ()
  "func.func"() <{{function_type = ({T}) -> {T}, sym_name = "g", sym_visibility = "private"}}> ({{
  }}) : () -> ()
}}) : () -> ()
"""


def test_branches_print_as_mlir_does() -> None:
    assert _roundtrip(BRANCHES) == BRANCHES_PRINTED


def test_generic_form_lists_successors_after_operands() -> None:
    assert print_ir(parse(BRANCHES), generic=True) == BRANCHES_GENERIC


def test_blocks_are_kept_in_label_order_with_their_arguments() -> None:
    m = parse(BRANCHES)
    f = next(iter(m.ops))
    blocks = list(f.regions[0].blocks)
    assert len(blocks) == 5
    assert [len(b.args) for b in blocks] == [2, 1, 0, 0, 0]
    br = blocks[0].last_op
    assert br is not None and br.name == "cf.cond_br"
    assert list(br.successors) == [blocks[1], blocks[2]]
    # a label referenced before it is defined is the block defined later
    assert list(blocks[2].last_op.successors) == [blocks[4]]  # type: ignore[union-attr]


def test_refine_shapes_example_too_many_blocks() -> None:
    text = f"""func.func @error_too_many_blocks(%arg0: {T}) -> {T} {{
  cf.br ^bb1(%arg0 : {T})
^bb1(%arg1 : {T}):
  func.return %arg1 : {T}
}}
"""
    assert _roundtrip(text) == (
        "module {\n"
        f"  func.func @error_too_many_blocks(%arg0: {T}) -> {T} {{\n"
        f"    cf.br ^bb1(%arg0 : {T})\n"
        f"  ^bb1(%0: {T}):  // pred: ^bb0\n"
        f"    return %0 : {T}\n"
        "  }\n"
        "}\n"
    )


def test_unreachable_block_says_no_predecessors() -> None:
    text = f"""func.func @f(%arg0: {T}) -> {T} {{
  func.return %arg0 : {T}
^dead(%x : {T}):
  func.return %x : {T}
}}
"""
    assert f"  ^bb1(%0: {T}):  // no predecessors\n" in _roundtrip(text)


def test_nested_regions_number_blocks_per_region() -> None:
    text = f"""func.func @f(%arg0: {T}, %c: tensor<i1>) -> {T} {{
  %0 = "stablehlo.if"(%c) ({{
    "stablehlo.return"(%arg0) : ({T}) -> ()
  }}, {{
    "stablehlo.return"(%arg0) : ({T}) -> ()
  }}) : (tensor<i1>) -> {T}
  cf.br ^bb1
^bb1:
  func.return %0 : {T}
}}
"""
    s = _roundtrip(text)
    assert "    cf.br ^bb1\n  ^bb1:  // pred: ^bb0\n" in s


def test_call_indirect_with_results_and_attributes() -> None:
    text = f"""func.func @f(%arg0: {T}) -> ({T}, {T}) {{
  %f = func.constant {{tag}} @g : ({T}) -> ({T}, {T})
  %r:2 = func.call_indirect %f(%arg0) {{note = 1 : i32}} : ({T}) -> ({T}, {T})
  func.return %r#0, %r#1 : {T}, {T}
}}
func.func private @g({T}) -> ({T}, {T})
"""
    s = _roundtrip(text)
    assert f"    %f = constant {{tag}} @g : ({T}) -> ({T}, {T})\n" in s
    assert f"    %0:2 = call_indirect %f(%arg0) {{note = 1 : i32}} : ({T}) -> ({T}, {T})\n" in s


# ------------------------------------------------------------------------------- parse errors
@pytest.mark.parametrize(
    "body,location,message",
    [
        (
            f"  cf.br ^nowhere(%arg0 : {T})\n^bb1(%a : {T}):\n  func.return %a : {T}",
            "2:9",
            "reference to an undefined block",
        ),
        (
            f"  cf.br ^bb1(%arg0 : {T})\n^bb1(%a : {T}):\n  cf.br ^bb1(%a : {T})\n^bb1:\n  func.return %arg0 : {T}",
            "5:1",
            "redefinition of block '^bb1'",
        ),
        (
            "  cf.br ^bb1(%arg0 : tensor<i32>)\n^bb1(%a : tensor<i32>):\n  func.return %arg0 : tensor<f32>",
            "2:14",
            "use of value '%arg0' expects different type than prior uses: 'tensor<i32>' vs 'tensor<f32>'",
        ),
        (
            f"  cf.br ^bb1(%arg0, %arg0 : {T})\n^bb1(%a : {T}):\n  func.return %arg0 : {T}",
            "2:14",
            "2 operands present, but expected 1",
        ),
        (
            f"  cf.cond_br %arg0, ^bb1, ^bb1\n^bb1:\n  func.return %arg0 : {T}",
            "2:14",
            "the condition of 'cf.cond_br' must be i1, got tensor<f32>",
        ),
        (
            f"  %f = func.constant @f : {T}\n  func.return %arg0 : {T}",
            "2:27",
            "'func.constant' has a function type like (tensor<f32>) -> (), got tensor<f32>",
        ),
        (
            (
                f"  %f = func.constant @f : ({T}) -> {T}\n  %0 = func.call_indirect %f() : ({T}) -> {T}\n"
                f"  func.return %arg0 : {T}"
            ),
            "3:27",
            "0 operands present, but expected 1",
        ),
        (
            (
                f"  %f = func.constant @f : ({T}) -> {T}\n  %0 = func.call_indirect %f(%arg0) : () -> {T}\n"
                f"  func.return %arg0 : {T}"
            ),
            "3:27",
            (
                "use of value '%f' expects different type than prior uses: '() -> tensor<f32>' vs "
                "'(tensor<f32>) -> tensor<f32>'"
            ),
        ),
        (
            f'  "cf.br"()[^bb9] : () -> ()\n^bb1:\n  func.return %arg0 : {T}',
            "2:13",
            "reference to an undefined block",
        ),
    ],
)
def test_parse_errors_say_what_and_where(body: str, location: str, message: str) -> None:
    text = f"func.func @f(%arg0: {T}) -> {T} {{\n{body}\n}}\n"
    with pytest.raises(ParseError) as e:
        parse(text, "t.mlir")
    assert e.value.location == f"t.mlir:{location}"
    assert e.value.message == message


def test_successor_outside_a_region_is_refused() -> None:
    with pytest.raises(ParseError) as e:
        parse('"cf.br"()[^bb1] : () -> ()\n', "t.mlir")
    assert e.value.message == "a block name can only be used inside a region"


@pytest.mark.parametrize(
    "line", ["cf.switch %arg0 : i32, [\n    default: ^bb1\n  ]", 'cf.assert %arg1, "message"']
)
def test_unsupported_cf_ops_are_unknown_ops(line: str) -> None:
    with pytest.raises(ParseError) as e:
        parse(f"func.func @f(%arg0: i32, %arg1: i1) {{\n  {line}\n^bb1:\n  return\n}}\n")
    assert f"unknown operation '{line.split()[0]}'" in e.value.message


# ------------------------------------------------------------------------------ verification
def _verify_error(text: str) -> VerifyError:
    m = parse(text, "t.mlir")
    with pytest.raises(VerifyError) as e:
        verify(m)
    return e.value


@pytest.mark.parametrize(
    "body,location,message",
    [
        (
            f"  cf.br ^bb1(%arg0 : {T})\n^bb1:\n  func.return %arg0 : {T}",
            "2:3",
            "'cf.br' op branch has 1 operands for successor #0, but target block has 0",
        ),
        (
            f'  "cf.br"()[^bb1] : () -> ()\n^bb1(%a : {T}):\n  func.return %a : {T}',
            "2:3",
            "'cf.br' op branch has 0 operands for successor #0, but target block has 1",
        ),
        (
            (
                f"  %c = stablehlo.constant dense<true> : tensor<i1>\n"
                f'  "cf.cond_br"(%arg1, %c)[^bb1, ^bb2] <{{operandSegmentSizes = array<i32: 1, 0, 1>}}> : (i1, tensor<i1>) -> ()\n'
                f"^bb1:\n  func.return %arg0 : {T}\n^bb2(%x : {T}):\n  func.return %x : {T}"
            ),
            "3:3",
            "'cf.cond_br' op type mismatch for bb argument #0 of successor #1 (tensor<i1> is passed to tensor<f32>)",
        ),
        (
            f"  %f = func.constant @nope : () -> ()\n  func.return %arg0 : {T}",
            "2:8",
            "'func.constant' op reference to undefined function 'nope'",
        ),
        (
            f"  %f = func.constant @f : () -> ()\n  func.return %arg0 : {T}",
            "2:8",
            "'func.constant' op reference to function with mismatched type",
        ),
        (
            (
                f"  %f = func.constant @f : ({T}, i1) -> {T}\n"
                f'  %0 = "func.call_indirect"(%f, %arg0, %arg1) : (({T}, i1) -> {T}, {T}, i1) -> tensor<i32>\n'
                f"  func.return %arg0 : {T}"
            ),
            "3:8",
            "'func.call_indirect' op failed to verify that callee result types match result types",
        ),
        (
            (
                f"  %f = func.constant @f : ({T}, i1) -> {T}\n"
                f'  %0 = "func.call_indirect"(%f, %arg0, %arg0) : (({T}, i1) -> {T}, {T}, {T}) -> {T}\n'
                f"  func.return %arg0 : {T}"
            ),
            "3:8",
            "'func.call_indirect' op failed to verify that callee input types match argument types",
        ),
    ],
)
def test_verification_errors(body: str, location: str, message: str) -> None:
    e = _verify_error(f"func.func @f(%arg0: {T}, %arg1: i1) -> {T} {{\n{body}\n}}\n")
    assert e.location == f"t.mlir:{location}"
    assert e.message == message


def test_branch_to_an_empty_block_is_refused() -> None:
    e = _verify_error(f"func.func @f(%arg0: {T}) -> {T} {{\n  cf.br ^bb1\n^bb1:\n}}\n")
    assert e.message == "'cf.br' op successor #0 is an empty block: expect at least a terminator"
    assert e.location == "t.mlir:2:3"


def test_branch_to_the_entry_block_is_refused() -> None:
    text = f""""func.func"() <{{function_type = ({T}) -> {T}, sym_name = "f"}}> ({{
^bb0(%a: {T}):
  "cf.br"(%a)[^bb0] : ({T}) -> ()
}}) : () -> ()
"""
    e = _verify_error(text)
    assert e.message == "'cf.br' op entry block of region may not have predecessors"
    assert e.location == "t.mlir:3:3"


# ---------------------------------------------------------------------------- other layers
def test_vhlo_legalization_refuses_branches_clearly() -> None:
    from stablehlo_py.passes import run_pipeline

    text = (
        f"func.func @f(%arg0: {T}) -> {T} {{\n  cf.br ^bb1\n^bb1:\n  func.return %arg0 : {T}\n}}\n"
    )
    for options in ({}, {"allow-other-dialects": "true"}):
        m = parse(text, "t.mlir")
        with pytest.raises(StableHLOError) as e:
            run_pipeline(m, [("stablehlo-legalize-to-vhlo", options)])
        assert "'cf.br' branches to other blocks, which is not supported in VHLO" in e.value.message
        assert e.value.location == "t.mlir:2:3"


def test_indirect_call_has_unknown_effects() -> None:
    from stablehlo_py.passes.patterns.refine_calls import FunctionEffects

    m = parse(
        f"""func.func @main() -> {T} {{
  %0 = func.call @callee() : () -> {T}
  return %0 : {T}
}}
func.func private @callee() -> {T} {{
  %f = func.constant @indirect : () -> ()
  %c = stablehlo.constant dense<1.0> : {T}
  return %c : {T}
}}
func.func private @calls_it() {{
  %f = func.constant @indirect : () -> ()
  func.call_indirect %f() : () -> ()
  return
}}
func.func private @indirect() {{
  return
}}
"""
    )
    funcs = {f.sym_name.data: f for f in m.ops}  # type: ignore[attr-defined]
    effects = FunctionEffects(m)  # type: ignore[arg-type]
    assert effects.is_effect_free(funcs["callee"])  # func.constant is pure
    assert not effects.is_effect_free(funcs["calls_it"])


def test_jaxlib_prints_the_same_text() -> None:
    pytest.importorskip("jax")
    from jax._src.interpreters import mlir
    from jaxlib.mlir import ir

    with mlir.make_ir_context():
        theirs = ir.Module.parse(BRANCHES)
        assert str(theirs) == BRANCHES_PRINTED
        assert theirs.operation.get_asm(print_generic_op_form=True) == BRANCHES_GENERIC


NESTED = f"""func.func @f(%arg0: {T}) -> {T} {{
  %0 = "test.op"(%arg0) ({{
  ^entry(%a: {T}):
    "test.br"(%a)[^next] : ({T}) -> ()
  ^next(%b: {T}):
    "test.yield"(%b) : ({T}) -> ()
  }}) : ({T}) -> {T}
  cf.br ^bb7
^bb7:
  func.return %0 : {T}
}}
"""

NESTED_PRINTED = f"""module {{
  func.func @f(%arg0: {T}) -> {T} {{
    %0 = "test.op"(%arg0) ({{
    ^bb0(%arg1: {T}):
      "test.br"(%arg1)[^bb1] : ({T}) -> ()
    ^bb1(%1: {T}):  // pred: ^bb0
      "test.yield"(%1) : ({T}) -> ()
    }}) : ({T}) -> {T}
    cf.br ^bb1
  ^bb1:  // pred: ^bb0
    return %0 : {T}
  }}
}}
"""


def test_each_region_numbers_its_own_blocks_and_unregistered_ops_keep_successors() -> None:
    m = parse(NESTED, "t.mlir", allow_unregistered=True)
    verify(m)
    s = print_ir(m)
    assert s == NESTED_PRINTED
    assert print_ir(parse(s, allow_unregistered=True)) == s
    g = print_ir(m, generic=True)
    assert print_ir(parse(g, allow_unregistered=True), generic=True) == g


def test_jaxlib_prints_nested_regions_the_same() -> None:
    pytest.importorskip("jax")
    from jax._src.interpreters import mlir
    from jaxlib.mlir import ir

    ctx = mlir.make_ir_context()
    ctx.allow_unregistered_dialects = True
    with ctx:
        assert str(ir.Module.parse(NESTED)) == NESTED_PRINTED


def test_use_before_definition_across_blocks_is_refused_with_a_hint() -> None:
    text = f"""func.func @f(%arg0: {T}) -> {T} {{
  cf.br ^bb2
^bb1:
  func.return %x : {T}
^bb2:
  %x = stablehlo.abs %arg0 : {T}
  cf.br ^bb1
}}
"""
    with pytest.raises(ParseError) as e:
        parse(text, "t.mlir")
    assert e.value.location == "t.mlir:4:15"
    assert e.value.message.startswith("use of undeclared SSA value name '%x'; '%x' is defined further down")
    # a single-block function: no hint
    with pytest.raises(ParseError) as e:
        parse(f"func.func @f() -> {T} {{\n  func.return %x : {T}\n}}\n", "t.mlir")
    assert e.value.message == "use of undeclared SSA value name '%x'"
