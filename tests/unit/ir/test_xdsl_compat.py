"""The xDSL workarounds of stablehlo_py/ir/xdsl_compat/ that have no test file of their own:
MLIR's result names and attribute text given to xDSL's arith/tensor classes (class_attrs), the
op-definition class swap for MLIR's SameVariadicOperandSize split (opdef_split), `append_ops`
(construct; `new_op` is tests/unit/builder/test_fastop.py's), the private-field loops (fields), the
data we attach to xDSL's objects (side_data) and the bounded greedy walker (rewrite_walker).  And the package's own rules: it
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
from xdsl.dialects.builtin import i32, i64
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
                assert top in (
                    "xdsl", "__future__", "collections", "typing", "dataclasses", "operator", "functools",
                ), (path.name, n)


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


def test_side_data_lives_in_the_objects_dict() -> None:
    """Ops, blocks, block arguments and results take attributes of ours (no __slots__, not frozen),
    kept in their ``__dict__`` (`data_of` reads it), and none of NAMES is a field of theirs."""
    from stablehlo_py.ir.xdsl_compat import side_data

    block = Block(arg_types=[i32])
    op = arith.ConstantOp.from_int_and_width(1, 32)
    block.add_op(op)
    for obj in (op, block, block.args[0], op.results[0]):
        for name in side_data.NAMES:
            assert side_data.attached(obj, name) is None, (obj, name)
            assert not hasattr(type(obj), name), (type(obj), name)
        token = object()
        side_data.attach(obj, side_data.SRC, token)
        assert side_data.data_of(obj) is obj.__dict__
        assert side_data.data_of(obj)[side_data.SRC] is token
        assert side_data.attached(obj, side_data.SRC) is token
        side_data.data_of(obj)[side_data.INTERP_KEY] = token
        assert side_data.attached(obj, side_data.INTERP_KEY) is token
    # carry_place: the parse position and the implicit module source, nothing else
    new = arith.ConstantOp.from_int_and_width(2, 32)
    side_data.attach(op, side_data.IMPLICIT_SRC, "file")
    side_data.carry_place(new, op)
    assert side_data.attached(new, side_data.SRC) is side_data.attached(op, side_data.SRC)
    assert side_data.attached(new, side_data.IMPLICIT_SRC) == "file"
    assert side_data.attached(new, side_data.INTERP_KEY) is None
    bare = arith.ConstantOp.from_int_and_width(3, 32)
    side_data.carry_place(bare, arith.ConstantOp.from_int_and_width(4, 32))
    assert side_data.data_of(bare).keys().isdisjoint(side_data.NAMES)


def test_parse_positions_ride_on_the_parsed_ops() -> None:
    """What the parser attaches (SRC on ops and block arguments, IMPLICIT_SRC on the module it
    wraps) gives diagnostics their MLIR default location."""
    from stablehlo_py.ir.text.location import source_position
    from stablehlo_py.ir.xdsl_compat import side_data

    module = parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = stablehlo.add %a, %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n")
    assert side_data.attached(module, side_data.IMPLICIT_SRC) is not None
    assert source_position(module)[1:] == (0, 0)
    func = module.body.block.first_op
    add = func.body.block.first_op
    assert source_position(add)[1:] == (2, 8)
    assert source_position(func.body.block.args[0])[1:] == (1, 14)


# ----------------------------------------------------------------------------------- fields
def _ops_block() -> Block:
    block = Block(arg_types=[i32])
    block.add_ops([arith.ConstantOp.from_int_and_width(i, 32) for i in range(3)])
    return block


def test_operands_of_is_the_operand_tuple() -> None:
    """`operands_of(op)` is what `op.operands` views, after each of xDSL's ways to set operands."""
    from stablehlo_py.ir.xdsl_compat.fields import operands_of

    block = _ops_block()
    a, b, c = block.ops
    add = arith.AddiOp(a.results[0], b.results[0])
    assert operands_of(add) == tuple(add.operands) == (a.results[0], b.results[0])
    assert isinstance(operands_of(add), tuple)
    add.operands[1] = c.results[0]
    assert operands_of(add) == tuple(add.operands) == (a.results[0], c.results[0])
    add.operands = [c.results[0], c.results[0]]
    assert operands_of(add) == tuple(add.operands) == (c.results[0], c.results[0])
    assert operands_of(arith.ConstantOp.from_int_and_width(0, i32)) == ()


def test_block_ops_is_the_ops_in_order() -> None:
    from stablehlo_py.ir.xdsl_compat.fields import block_ops

    assert block_ops(Block()) == []
    block = _ops_block()
    assert block_ops(block) == list(block.ops)
    first = block.first_op
    first.detach()
    block.add_op(first)  # now last
    assert block_ops(block) == list(block.ops) and block_ops(block)[-1] is first


def test_retype_values_keeps_the_value_and_its_uses() -> None:
    from stablehlo_py.ir.xdsl_compat.fields import retype_values

    block = Block(arg_types=[i32, i32])
    x, y = block.args
    add = arith.AddiOp(x, y)
    block.add_op(add)
    uses = [list(v.uses) for v in (x, y)]
    retype_values(block.args, [i64, i64])
    assert (x.type, y.type) == (i64, i64) and tuple(block.args) == (x, y)
    assert [list(v.uses) for v in (x, y)] == uses and tuple(add.operands) == (x, y)
    assert add.result.type == i32  # only the values given change



# ----------------------------------------------------------------------------------- swap
SWAP = """func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %arg0 : tensor<4xf32>
  %1 = stablehlo.add %0, %arg0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def test_a_swapped_op_is_what_a_rebuild_makes() -> None:
    """An op whose class is swapped and whose results are retyped prints and links as the same op
    rebuilt: xDSL's ``Operation`` subclasses share one instance layout, ``_type`` is a value's type,
    and the walks through the private links list what xDSL's public views list."""
    from xdsl.dialects.builtin import ModuleOp

    from stablehlo_py.ir.xdsl_compat import swap
    from stablehlo_py.ir.xdsl_compat.fields import operands_of

    registry = default_registry().ops
    module = parse(SWAP)
    block = module.body.block.first_op.regions[0].block
    assert swap.walk(module) == list(module.walk())
    assert swap.ordered_ops(module, lambda op: True) == list(module.walk())[1:]
    exp = block.first_op
    assert operands_of(exp) == tuple(exp.operands)
    assert list(swap.value_types(exp.results)) == [r.type for r in exp.results]
    log, add = registry["stablehlo.log"], registry["stablehlo.add"]
    assert swap.swappable(type(exp), log) and swap.swappable(log, type(exp))
    users = [u.operation for u in exp.results[0].uses]
    exp.__dict__["_use_order"] = [0]  # what a rebuild would not carry is dropped
    assert swap.retype_op(exp, log, {}, {}) is exp and type(exp) is log
    assert "_use_order" not in exp.__dict__
    assert [u.operation for u in exp.results[0].uses] == users
    swap.retype_value(exp.results[0], i64)
    assert exp.results[0].type == i64
    rebuilt = parse(SWAP.replace("stablehlo.exponential", "stablehlo.log"))
    swap.retype_value(rebuilt.body.block.first_op.regions[0].block.first_op.results[0], i64)
    assert print_ir(module) == print_ir(rebuilt)
    assert type(block.first_op.next_op) is add and isinstance(module, ModuleOp)


# ----------------------------------------------------------------------------------- rewrite_walker
# xDSL 0.74's PatternRewriteWalker methods that BoundedRewriteWalker overrides or calls
# (rewrite_walker.RELIED_ON, in order) and its Worklist class
WALKER_SHA256 = "93e4632a48956cba73cb445248c8b17e268967f2338a0a5df13d0d54ff745658"


def _walker_source() -> str:
    from xdsl.pattern_rewriter import PatternRewriteWalker
    from xdsl.utils.worklist import Worklist

    from stablehlo_py.ir.xdsl_compat.rewrite_walker import RELIED_ON

    methods = [inspect.getsource(getattr(PatternRewriteWalker, n)) for n in RELIED_ON]
    return "".join(methods) + inspect.getsource(Worklist)


def test_xdsls_walker_is_the_one_followed() -> None:
    from xdsl.pattern_rewriter import PatternRewriteWalker

    assert "_worklist" in PatternRewriteWalker.__dataclass_fields__
    digest = hashlib.sha256(_walker_source().encode()).hexdigest()
    assert digest == WALKER_SHA256, (
        "xDSL's PatternRewriteWalker or Worklist changed: re-read xdsl_compat/rewrite_walker.py "
        "against it, then update WALKER_SHA256"
    )


def test_bounded_walker_stops_after_max_iterations() -> None:
    """A pattern that reports a change on every visit (without touching the worklist): xDSL's
    walker would sweep forever; the bounded one sweeps `max_iterations` times, visiting each op once
    per sweep, and reports no convergence.  A pattern that changes nothing converges in one sweep."""
    from xdsl.ir import Region
    from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

    from stablehlo_py.ir.xdsl_compat.rewrite_walker import BoundedRewriteWalker

    class Touch(RewritePattern):
        def __init__(self, change: bool) -> None:
            self.change, self.visits = change, 0

        def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:  # noqa: ANN001
            self.visits += 1
            rewriter.has_done_action = self.change

    for change, sweeps, converged in ((True, 3, False), (False, 1, True)):
        block = Block()
        block.add_ops([arith.ConstantOp.from_int_and_width(i, 32) for i in range(2)])
        pattern = Touch(change)
        walker = BoundedRewriteWalker(pattern, max_iterations=3)
        assert walker.rewrite_region(Region([block])) is change
        assert walker.converged is converged
        assert pattern.visits == 2 * sweeps


def test_bounded_walker_revisits_a_producer_left_with_one_other_user() -> None:
    """MLIR's addOperandsToWorklist (not xDSL's has_one_use): erasing one of three users of a
    constant does not revisit it; erasing a second (one other user left) does."""
    from xdsl.ir import Region
    from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

    from stablehlo_py.ir.xdsl_compat.rewrite_walker import BoundedRewriteWalker

    def module(users: int) -> tuple[Region, arith.ConstantOp]:
        c = arith.ConstantOp.from_int_and_width(1, 32)
        block = Block()
        block.add_ops([c] + [arith.AddiOp(c.result, c.result) for _ in range(users)])
        return Region([block]), c

    class EraseFirstAdd(RewritePattern):
        def __init__(self) -> None:
            self.done, self.visits = False, []

        def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:  # noqa: ANN001
            self.visits.append(op)
            if isinstance(op, arith.AddiOp) and not self.done:
                self.done = True
                rewriter.erase(op)

    for users, revisited in ((3, False), (2, True)):
        region, c = module(users)
        pattern = EraseFirstAdd()
        BoundedRewriteWalker(pattern, max_iterations=1).rewrite_region(region)
        # the walk is top-down: the constant is visited first, then again only if pushed back
        assert (pattern.visits.count(c) == 2) is revisited, (users, pattern.visits)


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


# ----------------------------------------------------------------------------------- verify_walk
WALKED = """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0]
    : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}"""


def test_plain_operands_is_the_operand_tuple_of_a_plain_op() -> None:
    from xdsl.dialects import cf
    from xdsl.ir import ErasedSSAValue

    from stablehlo_py.ir.xdsl_compat.verify_walk import plain_operands

    m = parse(WALKED)
    for op in m.walk():
        got = plain_operands(op)
        assert got is not None and tuple(got) == tuple(op.operands), op.name
    # successors, or an erased operand: None (xDSL's Operation.verify refuses them)
    target = Block()
    assert plain_operands(cf.BranchOp(target)) is None
    add = next(op for op in m.walk() if op.name == "stablehlo.add")
    value = add.operands[0]
    value.erase(safe_erase=False)  # its uses now read an erased value
    assert isinstance(add.operands[0], ErasedSSAValue) and plain_operands(add) is None


def test_plain_operands_of_kind_reads_the_links_and_each_value_type() -> None:
    from xdsl.dialects import cf
    from xdsl.dialects.builtin import TensorType
    from xdsl.ir import ErasedSSAValue

    from stablehlo_py.ir.xdsl_compat.verify_walk import plain_operands_of_kind

    m = parse(WALKED)
    asked: list[type] = []

    def classify(k: type) -> bool:
        asked.append(k)
        kinds[k] = issubclass(k, TensorType)
        return kinds[k]

    kinds: dict[type, bool] = {}
    for op in m.walk():
        tensors = all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
        got = plain_operands_of_kind(op, True, kinds, classify)
        assert (got is not None) is tensors, op.name
        assert got is None or tuple(got) == tuple(op.operands)
    assert asked and len(asked) == len(set(asked))  # each class classified once, then looked up
    add = next(op for op in m.walk() if op.name == "stablehlo.add")
    assert plain_operands_of_kind(add, False, kinds, classify) is not None
    assert plain_operands_of_kind(add, False, {k: False for k in kinds}, classify) is None
    # the last op of its block, not a terminator: left to xDSL (it decides from the parent)
    ret = add.parent.last_op
    assert plain_operands_of_kind(ret, True, kinds, classify) is not None
    assert plain_operands_of_kind(ret, False, kinds, classify) is None
    assert plain_operands_of_kind(cf.BranchOp(Block()), True, kinds, classify) is None  # successors
    add.results[0]._type = Block()  # type: ignore[assignment]  (a result of another kind)
    assert plain_operands_of_kind(add, False, kinds, classify) is None
    add.results[0]._type = add.operands[0].type  # type: ignore[misc]
    assert plain_operands_of_kind(add, False, kinds, classify) is not None
    add.operands[0].erase(safe_erase=False)
    assert isinstance(add.operands[0], ErasedSSAValue)
    assert plain_operands_of_kind(add, False, kinds, classify) is None


def test_isolated_from_above_ok_is_xdsls_verdict() -> None:
    from xdsl.traits import IsolatedFromAbove
    from xdsl.utils.exceptions import VerifyException

    from stablehlo_py.ir.xdsl_compat.verify_walk import isolated_from_above_ok

    def xdsl_ok(op: object) -> bool:
        try:
            IsolatedFromAbove().verify(op)  # type: ignore[arg-type]
        except VerifyException:
            return False
        return True

    m = parse(WALKED)
    func = next(op for op in m.walk() if op.name == "func.func")
    reduce = next(op for op in m.walk() if op.name == "stablehlo.reduce")
    assert isolated_from_above_ok(func) is xdsl_ok(func) is True
    # the reduce body uses a value of the function: not isolated, for both
    body_op = reduce.regions[0].blocks.first.first_op
    outer = func.regions[0].blocks.first.args[0]
    body_op.operands = [outer, *list(body_op.operands)[1:]]
    assert isolated_from_above_ok(reduce) is xdsl_ok(reduce) is False
    assert isolated_from_above_ok(func) is xdsl_ok(func) is True  # defined inside func


def test_region_signature_reads_what_the_public_views_give() -> None:
    from stablehlo_py.ir.xdsl_compat.verify_walk import BLOCK_MARK, REGION_MARK, region_signature

    m = parse(WALKED)
    reduce = next(op for op in m.walk() if op.name == "stablehlo.reduce")
    expected: list[object] = []
    for region in reduce.regions:
        expected.append(REGION_MARK)
        for block in region.blocks:
            last = list(block.ops)[-1]
            expected += [BLOCK_MARK, *(a.type for a in block.args), type(last)]
            expected += [v.type for v in last.operands]
    assert list(region_signature(reduce)) == expected
    assert region_signature(next(op for op in m.walk() if op.name == "stablehlo.add")) == ()


def test_any_of_dispatch_is_every_constraint_anyof_may_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from xdsl.dialects.builtin import IntegerAttr, TensorType
    from xdsl.irdl import AnyOf, BaseAttr, EqAttrConstraint
    from xdsl.irdl.constraints import VerificationContext

    from stablehlo_py.ir.xdsl_compat.verify_walk import any_of_dispatch

    constrs = (EqAttrConstraint(i32), BaseAttr(TensorType), BaseAttr(IntegerAttr))
    c = AnyOf(constrs)
    assert hasattr(c, "_based_constrs") and hasattr(c, "_abstr_constr")  # the fields it reads
    parts = any_of_dispatch(c)
    assert all(any(p is q for p in parts) for q in constrs)
    # whatever AnyOf.verify calls is among them
    attrs = (i32, TensorType(i32, [2]), IntegerAttr(1, i32))
    called: list[object] = []
    for cls in {type(p) for p in parts}:
        original = cls.verify

        def spy(self, attr, ctx, _original=original):  # type: ignore[no-untyped-def]
            called.append(self)
            return _original(self, attr, ctx)

        monkeypatch.setattr(cls, "verify", spy)
    for attr in attrs:
        c.verify(attr, VerificationContext())
    monkeypatch.undo()
    assert called and all(any(x is p for p in parts) for x in called)


# Files outside the compat package that still name a side_data name (their owners move them):
# file -> count.  Only shrinks.
SIDE_DATA_KNOWN: dict[str, int] = {
    # mutation-pinned (MUTATION.md pins its lines): its four `"_use_order"` stay until the next
    # mutation run of the reader group
    "serialization/mlirbc/reader.py": 4,
}


def test_side_data_names_are_used_through_side_data_only() -> None:
    """The data we attach to xDSL's objects is read and written through side_data (its constants),
    so a name written out elsewhere (`op._src = ...`, `getattr(op, "_interp_step")`,
    `op.__dict__["_loc_pos"]`) is a way around it."""
    from stablehlo_py.ir.xdsl_compat import side_data
    from tests.unit.test_xdsl_private_access import _our_files

    found: dict[str, int] = {}
    for path in _our_files():
        n = 0
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in side_data.NAMES:
                n += 1
            elif isinstance(node, ast.Constant) and node.value in side_data.NAMES:
                n += 1
        if n:
            found[str(path.relative_to(REPO))] = n
    grown = {f: n for f, n in found.items() if n > SIDE_DATA_KNOWN.get(f, 0)}
    assert not grown, f"side data named outside xdsl_compat/side_data.py (use its constants): {grown}"
    lower = {f: found.get(f, 0) for f, k in SIDE_DATA_KNOWN.items() if found.get(f, 0) < k}
    assert not lower, f"fewer now: lower SIDE_DATA_KNOWN to {lower}"
