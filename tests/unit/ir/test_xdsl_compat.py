"""The xDSL workarounds of stablehlo_py/ir/xdsl_compat/ that have no test file of their own:
MLIR's result names and attribute text given to xDSL's arith/tensor classes (class_attrs), the
op-definition class swap for MLIR's SameVariadicOperandSize split (opdef_split), and `append_ops`
(construct; `new_op` is tests/unit/builder/test_fastop.py's).  And the package's own rules: it
imports xDSL only, and each module names a regression test that exists."""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
from pathlib import Path

import pytest
from xdsl.dialects import arith, tensor
from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
from xdsl.ir import Block
from xdsl.irdl import operations as O

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.verify import verify
from stablehlo_py.ir.xdsl_compat import class_attrs, construct, opdef_split

REPO = Path(__file__).resolve().parents[3]
COMPAT = REPO / "stablehlo_py" / "ir" / "xdsl_compat"


# ----------------------------------------------------------------------------------- class_attrs
NAMES = """func.func @f(%a: tensor<?xf32>, %i: index, %t: tensor<2xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %b = arith.constant true
  %f = arith.constant 1.5 : f32
  %0 = tensor.cast %a : tensor<?xf32> to tensor<4xf32>
  %1 = tensor.dim %a, %c0 : tensor<?xf32>
  %2 = tensor.extract %t[%i] : tensor<2xi64>
  %3 = tensor.from_elements %2, %2 : tensor<2xi64>
  return %a : tensor<?xf32>
}
"""


def test_result_names_are_mlirs() -> None:
    text = print_ir(parse(NAMES))
    for line in (
        "%c0 = arith.constant 0 : index",
        "%c7_i32 = arith.constant 7 : i32",
        "%true = arith.constant true",
        "%cst = arith.constant 1.500000e+00 : f32",
        "%cast = tensor.cast %arg0 : tensor<?xf32> to tensor<4xf32>",
        "%dim = tensor.dim %arg0, %c0 : tensor<?xf32>",
        "%extracted = tensor.extract %arg2[%arg1] : tensor<2xi64>",
        "%from_elements = tensor.from_elements %extracted, %extracted : tensor<2xi64>",
    ):
        assert line in text, (line, text)


def test_attribute_text_is_mlirs() -> None:
    assert str(FastMathFlagsAttr("fast")) == "#arith.fastmath<fast>"
    assert str(FastMathFlagsAttr("none")) == "#arith.fastmath<none>"
    assert str(IntegerOverflowAttr("none")) == "#arith.overflow<none>"
    module = parse(
        "func.func @f(%a: tensor<f32>, %x: i64) -> tensor<f32> {\n"
        "  %0 = arith.addf %a, %a fastmath<nnan,ninf> : tensor<f32>\n"
        "  %1 = arith.addi %x, %x overflow<nsw> : i64\n"
        "  return %0 : tensor<f32>\n}\n"
    )
    generic = print_ir(module, generic=True)
    assert "<{fastmath = #arith.fastmath<nnan,ninf>}>" in generic
    assert "<{overflowFlags = #arith.overflow<nsw>}>" in generic


def test_added_names_replace_nothing_of_xdsls() -> None:
    """Each addition is on the class itself and no xDSL class defines that name: an xDSL upgrade
    that gives these classes their own `asm_result_names`/`mlir_text` must revisit class_attrs."""
    added = set(class_attrs.ADDED)
    assert {
        (arith.ConstantOp, "asm_result_names"),
        (tensor.CastOp, "asm_result_names"),
        (tensor.DimOp, "asm_result_names"),
        (tensor.ExtractOp, "asm_result_names"),
        (tensor.FromElementsOp, "asm_result_names"),
        (FastMathFlagsAttr, "mlir_text"),
        (IntegerOverflowAttr, "mlir_text"),
    } <= added
    assert len(class_attrs.ADDED) == len(added), "a class attribute added twice"
    for cls, name in added:
        assert cls.__module__.startswith("xdsl."), cls
        assert name in vars(cls), (cls, name)
        inherited = [b for b in cls.__mro__[1:] if name in vars(b)]
        assert not inherited, f"xDSL's {inherited} define {name}: re-read class_attrs"


# ----------------------------------------------------------------------------------- opdef_split
def test_uneven_operand_count_verifies_as_mlir() -> None:
    """verify_reduce.mlir's reduce_c6: three operands of a two-group reduce are one input and one
    init value (the third is in no group), so the body's four parameters are the error."""
    module = parse(
        "func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<f32>) {\n"
        '  %0:2 = "stablehlo.reduce"(%a, %b, %c) ({\n'
        "  ^bb0(%w: tensor<f32>, %x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>):\n"
        '    "stablehlo.return"(%x, %z) : (tensor<f32>, tensor<f32>) -> ()\n'
        "  }) {dimensions = array<i64: 1>} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<f32>)"
        " -> (tensor<?xf32>, tensor<?xf32>)\n"
        "  return\n}\n"
    )
    with pytest.raises(VerifyError, match="Reduction-region must take 2 parameters, but takes 4"):
        verify(module)


def test_split_op_defs_are_swapped_in_place() -> None:
    """`mlir_operand_split` keeps xDSL's definition object (its fields) and changes its class only."""
    ops = default_registry().ops
    for name in ("stablehlo.reduce", "stablehlo.reduce_window"):
        op_def = ops[name].get_irdl_definition()
        assert type(op_def) is opdef_split._MlirSplitOpDef
        assert isinstance(op_def, O.OpDef)
        assert any(isinstance(o, O.SameVariadicOperandSize) for o in op_def.options)
    assert type(ops["stablehlo.add"].get_irdl_definition()) is O.OpDef


# xDSL 0.74's OpDef.verify, which _MlirSplitOpDef.verify follows for an uneven operand count
OPDEF_VERIFY_SHA256 = "29961dbe29f2aee940412412a2d21520fdf2a5bb61d5d90910acf3b7974c3b76"


def test_xdsls_opdef_verify_is_the_one_followed() -> None:
    source = inspect.getsource(O.OpDef.verify)
    digest = hashlib.sha256(source.encode()).hexdigest()
    assert digest == OPDEF_VERIFY_SHA256, (
        "xDSL's OpDef.verify changed: re-read xdsl_compat/opdef_split.py's _MlirSplitOpDef.verify "
        "against it, then update OPDEF_VERIFY_SHA256"
    )


# ----------------------------------------------------------------------------------- append_ops
def test_append_ops_links_as_add_ops() -> None:
    def ops() -> list:
        return [arith.ConstantOp.from_int_and_width(i, 32) for i in range(3)]

    for existing in (0, 2):
        ours, xdsls = Block(), Block()
        for b in (ours, xdsls):
            b.add_ops(ops()[:existing])
        new_ours, new_xdsls = ops(), ops()
        construct.append_ops(ours, new_ours)
        xdsls.add_ops(new_xdsls)
        assert [o.value for o in ours.ops] == [o.value for o in xdsls.ops]
        assert list(ours.ops)[-3:] == new_ours and all(o.parent is ours for o in new_ours)
        assert ours.first_op is list(ours.ops)[0] and ours.last_op is new_ours[-1]
        walked_back = []
        op = ours.last_op
        while op is not None:
            walked_back.append(op)
            op = op.prev_op
        assert walked_back[::-1] == list(ours.ops)
    attached = ops()
    Block(attached)
    with pytest.raises(ValueError, match="already attached"):
        construct.append_ops(Block(), attached)


# ----------------------------------------------------------------------------------- the package
def test_the_package_imports_xdsl_only() -> None:
    """A leaf: what a workaround needs of the toolkit is passed in (so it is in no import cycle)."""
    for path in sorted(COMPAT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                else [a.name for a in node.names] if isinstance(node, ast.Import)
                else ["."] if isinstance(node, ast.ImportFrom) else []
            )
            for n in names:
                top = n.split(".")[0]
                assert top in ("xdsl", "__future__", "collections", "typing", "dataclasses"), (path.name, n)


def test_each_module_names_an_existing_regression_test() -> None:
    for path in sorted(COMPAT.glob("*.py")):
        if path.name == "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        named = re.findall(r"tests/[\w/]+\.py", doc)
        assert named, f"{path.name}: its docstring names no regression test"
        for t in named:
            assert (REPO / t).is_file(), (path.name, t)


# ----------------------------------------------------------------------------------- side_data
def test_side_data_rides_on_xdsl_field_definitions() -> None:
    from xdsl.irdl import AnyAttr, opt_prop_def, prop_def

    from stablehlo_py.ir.xdsl_compat import side_data
    from tests.unit.test_xdsl_private_access import private_names

    assert not side_data.NAMES & private_names(), "xDSL defines a name side_data uses"
    for d in (prop_def(AnyAttr()), opt_prop_def(AnyAttr())):
        assert side_data.attached(d, "_syntax") is None
        token = object()
        side_data.attach(d, "_syntax", token)
        assert side_data.attached(d, "_syntax") is token
    # what ir/ops/base.py attaches reaches the op classes: compare's direction has its own syntax
    compare = default_registry().ops["stablehlo.compare"]
    assert "comparison_direction" in compare._PROP_SYNTAX


# ----------------------------------------------------------------------------------- identity
def test_xdsl_recomputes_an_attributes_hash_on_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """identity.py exists because hashing an xDSL attribute walks its parameters each time; when
    xDSL caches the hash (this fails), plain dicts keyed by the attributes will do."""
    from xdsl.dialects.builtin import IntAttr, TensorType, f32

    t = TensorType(f32, [4, 8])
    calls = []
    plain = IntAttr.__hash__
    monkeypatch.setattr(IntAttr, "__hash__", lambda self: calls.append(1) or plain(self))
    hash(t)
    first = len(calls)
    hash(t)
    assert first >= 2 and len(calls) == 2 * first  # the shape's dimensions, hashed again


def test_identity_map_never_answers_for_another_object() -> None:
    """An entry keeps its key objects alive, so their ids cannot be reused while it is there."""
    import gc

    from xdsl.dialects.builtin import TensorType, f32

    from stablehlo_py.ir.xdsl_compat.identity import IdentityMap

    m = IdentityMap("test", 1000)
    t = TensorType(f32, [2])
    m.put(t, "kept")
    m.put_seq((t, None, f32), "seq")
    m.put_seq((t,), "named", extra=("a", "b"))
    assert m.get_seq([t], extra=("a", "b")) == "named" and m.get_seq([t]) is None
    gone = id(t)
    del t
    gc.collect()
    fresh = [TensorType(f32, [2]) for _ in range(2000)]  # equal, but other objects
    assert gone not in {id(x) for x in fresh}
    assert all(m.get(x) is None and m.get_seq((x, None, f32)) is None for x in fresh)
    assert all(m.get_seq([x], extra=("a", "b")) is None for x in fresh)
    assert len(m) == 3


def test_identity_map_is_bounded_and_memoizes_by_identity() -> None:
    from xdsl.dialects.builtin import TensorType, f32

    from stablehlo_py.ir.xdsl_compat.identity import IdentityMap

    m = IdentityMap("test", 3)
    computed = []

    def text(t: object) -> str:
        """the docstring"""
        computed.append(t)
        return str(len(computed))

    f = m.memoize(text, keep=lambda s: s != "2")
    assert f.__name__ == "text" and f.__doc__ == "the docstring" and f.__wrapped__ is text
    a, b = TensorType(f32, [1]), TensorType(f32, [1])
    assert (f(a), f(a)) == ("1", "1")  # remembered
    assert (f(b), f(b)) == ("2", "3")  # equal to a, but another object; "2" was not kept
    types = [TensorType(f32, [n]) for n in range(10)]
    for t in types:
        f(t)
        assert len(m) <= 3
    m.clear()
    assert len(m) == 0 and f(a) != "1"
