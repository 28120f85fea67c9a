"""The caches migrated into the context (stablehlo_py/ir/context.py): each is filled by its module's
ordinary use, emptied by `fresh_context()` (the module's name still holds the same table), and
filled again with the same answer."""

from __future__ import annotations

import numpy as np

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.context import CONTEXT, fresh_context

PROGRAM = """func.func @main(%a: tensor<4xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0]
      : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %s = stablehlo.add %r, %z : tensor<f32>
  return %s : tensor<f32>
}
"""

DOT = (
    "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
    "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>"
)


def test_printer_tables_are_the_contexts() -> None:
    from stablehlo_py.ir import format_print
    from stablehlo_py.ir.ops.elementwise import AddOp
    from stablehlo_py.ir.text import printer

    assert printer._OP_NAMES is CONTEXT["text.op_names"]
    assert printer._SANITIZED is CONTEXT["text.sanitized_names"]
    assert format_print._COMPILED is CONTEXT["format.compiled_printers"]
    # the hot paths' bound `get`s read the same tables
    assert printer._op_name_get.__self__ is printer._OP_NAMES
    assert printer._sanitized_get.__self__ is printer._SANITIZED
    assert format_print._compiled_get.__self__ is format_print._COMPILED
    with fresh_context():
        first = print_ir(parse(PROGRAM))
        assert printer._OP_NAMES[("func", "func.return")] == "return"
        assert printer._SANITIZED["cst"] == "cst"
        compiled = format_print._COMPILED[(AddOp, True)]
        assert compiled is not None and format_print.compiled_printer(AddOp, True) is compiled
    assert not printer._OP_NAMES and not printer._SANITIZED and not format_print._COMPILED
    assert print_ir(parse(PROGRAM)) == first
    assert printer._OP_NAMES[("func", "func.return")] == "return"
    assert printer._SANITIZED["cst"] == "cst"
    again = format_print._COMPILED[(AddOp, True)]
    assert again is not None and again is not compiled  # compiled anew after the clear


def test_interpreter_code_cache_is_the_contexts() -> None:
    from stablehlo_py.interpreter import compiled, run

    assert compiled._CODE_CACHE is CONTEXT["interpreter.compiled_code"]
    arg = np.arange(4, dtype=np.float32)
    with fresh_context():
        (first,) = run(parse(PROGRAM), arg)  # a block with a region is generated at once
        assert len(compiled._CODE_CACHE) == 1
        (code,) = compiled._CODE_CACHE.values()
        (second,) = run(parse(PROGRAM), arg)  # the same source: the same code object
        assert list(compiled._CODE_CACHE.values()) == [code]
    assert not compiled._CODE_CACHE
    (third,) = run(parse(PROGRAM), arg)
    assert len(compiled._CODE_CACHE) == 1 and first == second == third == np.float32(6)


def test_vhlo_struct_caches_are_the_contexts() -> None:
    from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC
    from stablehlo_py.vhlo import structs

    memo = CONTEXT["vhlo.structs.parse_attr_text"]
    assert structs._BUILT is CONTEXT["vhlo.structs.built"]
    assert structs._built_get.__self__ is structs._BUILT
    d = BY_MNEMONIC["dot"]
    with fresh_context():
        a = structs.parse_attr_text(DOT)
        assert structs.parse_attr_text(DOT) is a and len(memo) == 1
        data = a.data  # type: ignore[attr-defined]
        built = structs.build(d, data)
        assert structs.build(d, data) is built and len(structs._BUILT) == 1
    assert len(memo) == 0 and not structs._BUILT
    b = structs.parse_attr_text(DOT)
    assert b == a and len(memo) == 1
    rebuilt = structs.build(d, b.data)  # type: ignore[attr-defined]
    assert rebuilt == built and len(structs._BUILT) == 1


def test_class_memos_are_plain_dicts_of_the_context() -> None:
    """VHLO's per-value class checks read plain dicts (exact `dict`: the interpreter's fast paths
    for `in` and `[]`), owned and emptied by the context; a name is one kind of cache."""
    import pytest

    from stablehlo_py.ir.context import Context
    from stablehlo_py.vhlo import ops, types

    assert type(ops._IS_VHLO_TYPE) is dict
    assert ops._IS_VHLO_TYPE is CONTEXT["vhlo.class_is_vhlo_type"]
    assert ops._IS_VHLO_OP is CONTEXT["vhlo.class_is_vhlo_op"]
    with fresh_context():
        assert ops.is_vhlo_op_class(ops.VhloOp) and not ops.is_vhlo_op_class(int)
        assert ops._IS_VHLO_OP == {ops.VhloOp: True, int: False}
        assert ops._is_vhlo_type(types.TensorV1Type)
    assert ops._IS_VHLO_OP == {} and ops._IS_VHLO_TYPE == {}
    ctx = Context()
    memo = ctx.class_memo("m")
    assert ctx.class_memo("m") is memo and type(memo) is dict
    with pytest.raises(ValueError, match="is a dict, not a Table"):
        ctx.table("m", 4)
    ctx.table("t", 4)
    with pytest.raises(ValueError, match="is a Table, not a dict"):
        ctx.class_memo("t")
