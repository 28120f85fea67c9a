"""The shape dialect's syntax and verifier words against upstream MLIR (jaxlib embeds it): our
printed text is what MLIR prints for the same program (pretty and generic), and an invalid op
gets MLIR's first error at the same line."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("jax")

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.oracle.upstream_diagnostics import upstream_errors
from tests.unit.passes.test_shape_legalize import SHAPE_OPS


def _mlir_print(text: str, generic: bool = False) -> str:
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        return module.operation.get_asm(print_generic_op_form=generic)


# MLIR's shape.broadcast writes its `error` before the attribute dictionary (`%a, %b error = "x"`)
# since the LLVM of jaxlib 0.12; jaxlib 0.10's reads and prints it in the dictionary
# (`{error = "x"}`).  We print the current form and read both.
_OLD_ERROR_FORM = re.compile(r' error = ("[^"]*")')


def _in_installed_mlirs_form(text: str) -> str:
    from jaxlib.mlir.dialects import stablehlo

    if tuple(int(x) for x in str(stablehlo.get_current_version()).split(".")) >= (1, 22, 0):
        return text
    return _OLD_ERROR_FORM.sub(r" {error = \1}", text)


@pytest.mark.parametrize("generic", [False, True])
def test_printed_shape_ops_are_mlirs(generic: bool) -> None:
    ours = print_ir(parse(SHAPE_OPS), generic=generic)
    mlirs = _mlir_print(_in_installed_mlirs_form(print_ir(parse(SHAPE_OPS))), generic)
    assert _in_installed_mlirs_form(ours).strip() == mlirs.strip()
    assert (' error = "incompatible" :' in ours) != generic  # the current form


@pytest.mark.parametrize(
    "body",
    [
        "%0 = shape.num_elements %s : !shape.shape -> index",
        "%0 = shape.broadcast %a, %s : tensor<2xindex>, !shape.shape -> tensor<2xindex>",
        "%0 = shape.cstr_broadcastable %a : tensor<2xindex>",
        "%0 = shape.rank %v : tensor<2xi32> -> index",
        "%0 = shape.cstr_eq %a, %v : tensor<2xindex>, tensor<2xi32>",
        "%0 = shape.assuming_all",
        "%0 = shape.shape_of %v : tensor<2xi32> -> tensor<3xindex>",
        "%0 = shape.shape_of %v : tensor<2xi32> -> tensor<1xi32>",
        "%0 = shape.const_shape [1, 2] : tensor<3xindex>",
        "%0 = shape.get_extent %s, %v : !shape.shape, tensor<2xi32> -> index",
        "%0 = shape.add %a, %a : tensor<2xindex>, tensor<2xindex> -> index",
    ],
)
def test_verifier_words_are_mlirs(body: str) -> None:
    text = (
        "func.func @f(%a: tensor<2xindex>, %s: !shape.shape, %v: tensor<2xi32>) {\n"
        f"  {body}\n  return\n}}\n"
    )
    theirs = upstream_errors(text)
    assert theirs, "upstream accepts it"
    with pytest.raises(StableHLOError) as info:
        verify(parse(text, "v.mlir"))
    assert str(info.value).startswith(f"v.mlir:{theirs[0].line}:")
    assert theirs[0].message in str(info.value)
