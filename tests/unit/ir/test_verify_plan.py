"""Compiled verification plans (`stablehlo_py.ir.verify.driver`) against xDSL's own verifier.

A plan may only say "this op verifies": the diagnostics always come from xDSL's `op.verify`.  The
differential test runs every conformance program (and a few snippets for op classes the conformance
files never use) through both paths, op by op and through `verify()`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar
from pathlib import Path
from unittest import mock

import pytest
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, ErasedSSAValue, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParamAttrConstraint,
    RangeOf,
    SameVariadicOperandSize,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.constraints import AttrConstraint, VerificationContext
from xdsl.traits import IsTerminator, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import StableHLOError, VerifyError
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import driver as verify_module
from stablehlo_py.ir.verify import driver as vp
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.verify import verify
from tests.unit.ir.test_sdy_ops import ALL_OPS as SDY_ALL_OPS

from tests.conftest import CONFORMANCE  # noqa: E402
# testdata/ and verify/ (the brief), plus the other suites for op classes those two never use
SUITES = ("testdata", "verify", "dialect", "interpret", "infer", "transforms")


def _slow_verify(top: Operation) -> None:
    """`verify()` as it was before plans: every op through xDSL's `op.verify`, in order (no
    `walk_verifies` first)."""
    with mock.patch.object(verify_module, "verifies", lambda op: False), mock.patch.object(
        verify_module, "walk_verifies", lambda top: False
    ):
        verify(top)


def _outcome(fn, top: Operation) -> tuple[str, str | None, str] | None:
    """None when `fn(top)` passes, else what it raised (kind, location, text)."""
    try:
        fn(top)
    except VerifyError as e:
        return ("VerifyError", e.location, str(e))
    except Exception as e:  # noqa: BLE001 - compared between the two paths, whatever it is
        return (type(e).__name__, None, str(e))
    return None


def _xdsl_verifies(op: Operation) -> bool:
    try:
        op.verify(verify_nested_ops=False)
    except Exception:  # noqa: BLE001
        return False
    return True


def _chunks(path: Path) -> list[str]:
    return re.split(r"^// -----.*$", path.read_text(), flags=re.MULTILINE)


T = "tensor<2x3xf32>"
C = "tensor<2x3xcomplex<f32>>"
IDX = "tensor<?xindex>"
# op classes with a plan that the conformance suites never use, valid and invalid
SNIPPETS = [
    (
        "func.func @f(%a: f32, %b: f32) -> f32 {\n  %0 = arith.addf %a, %b : f32\n"
        "  %1 = arith.subf %0, %b : f32\n  %2 = arith.mulf %1, %b : f32\n"
        "  %3 = arith.divf %2, %b : f32\n  return %3 : f32\n}"
    ),
    (
        "func.func @f(%a: index, %b: index) -> index {\n  %0 = arith.addi %a, %b : index\n"
        "  %1 = arith.subi %0, %b : index\n  %2 = arith.divsi %1, %b : index\n"
        "  %3 = arith.maxsi %2, %b : index\n  %4 = arith.cmpi slt, %3, %b : index\n"
        "  %5 = arith.select %4, %a, %3 : index\n  %6 = arith.muli %5, %a : index\n"
        "  return %6 : index\n}"
    ),
    (
        'func.func @f(%a: f32, %b: f64) -> f32 {\n  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32\n'
        "  return %0 : f32\n}"
    ),
    (
        'func.func @f(%a: f32) -> f64 {\n  %0 = "arith.mulf"(%a, %a) : (f32, f32) -> f64\n'
        "  return %0 : f64\n}"
    ),
    (
        f"func.func @f(%arg0: {T}) {{\n  %0 = chlo.is_inf %arg0 : {T} -> tensor<2x3xi1>\n"
        f"  %1 = chlo.is_neg_inf %arg0 : {T} -> tensor<2x3xi1>\n"
        f"  %2 = chlo.is_pos_inf %arg0 : {T} -> tensor<2x3xi1>\n  %3 = chlo.square %arg0 : {T} -> {T}\n"
        "  %4 = chlo.constant dense<1.5> : tensor<f32>\n  return\n}"
    ),
    f"func.func @f(%arg0: {T}) {{\n  %0 = chlo.is_inf %arg0 : {T} -> {T}\n  return\n}}",
    f"func.func @f(%arg0: {C}) {{\n  %0 = chlo._asin_acos_kernel %arg0 : {C} -> {C}\n  return\n}}",
    f"func.func @f(%arg0: {T}) {{\n  %0 = chlo._asin_acos_kernel %arg0 : {T} -> {T}\n  return\n}}",
    (
        f"func.func @f(%arg0: {IDX}, %arg1: {IDX}) {{\n"
        f"  %0:2 = chlo.minimum_broadcast_shapes %arg0, %arg1 : {IDX}, {IDX} -> {IDX}, {IDX}\n"
        "  return\n}"
    ),
    # structural failures on classes with plans
    f'func.func @f(%arg0: {T}) {{\n  %0 = "stablehlo.transpose"(%arg0) : ({T}) -> {T}\n  return\n}}',
    (
        f'func.func @f(%arg0: {T}) {{\n  %0:2 = "stablehlo.abs"(%arg0) : ({T}) -> ({T}, {T})\n'
        "  return\n}"
    ),
    (
        f'func.func @f(%arg0: {T}) {{\n  %0 = "stablehlo.abs"(%arg0) <{{x = 1}}> : ({T}) -> {T}\n'
        "  return\n}"
    ),
    (
        f'func.func @f(%arg0: {T}) {{\n  %0 = "stablehlo.abs"(%arg0) {{x = 1}} : ({T}) -> {T}\n'
        "  return\n}"
    ),
    f"func.func @f(%arg0: {T}) -> {T} {{\n  %0 = stablehlo.abs %arg0 : {T}\n}}",
    # trait verifiers: a call to an undefined symbol, func.return outside func.func
    f"func.func @f(%arg0: {T}) {{\n  %0 = func.call @nope(%arg0) : ({T}) -> {T}\n  return\n}}",
    (
        'func.func @f(%arg0: tensor<i1>) {\n  %0 = "stablehlo.if"(%arg0) ({\n'
        "    func.return %arg0 : tensor<i1>\n  }, {\n    stablehlo.return %arg0 : tensor<i1>\n"
        "  }) : (tensor<i1>) -> tensor<i1>\n  return\n}"
    ),
    # the shape dialect's ops
    (
        "func.func @f(%a: tensor<2xindex>, %i: index, %s: !shape.shape) -> !shape.size {\n"
        "  %w = shape.cstr_eq %a, %a : tensor<2xindex>, tensor<2xindex>\n"
        "  %t = shape.const_witness true\n  %all = shape.assuming_all %w, %t\n"
        "  %c2 = shape.const_size 2\n  %z = shape.index_to_size %i\n"
        "  %x = shape.size_to_index %z : !shape.size\n"
        "  %r = shape.rank %a : tensor<2xindex> -> index\n"
        "  %e = shape.to_extent_tensor %s : !shape.shape -> tensor<?xindex>\n"
        "  %c = shape.concat %a, %s : tensor<2xindex>, !shape.shape -> !shape.shape\n"
        "  %y = shape.any %a, %a : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>\n"
        "  %g = shape.get_extent %s, %z : !shape.shape, !shape.size -> !shape.size\n"
        "  %p = shape.add %g, %c2 : !shape.size, !shape.size -> !shape.size\n"
        "  %m = shape.mul %p, %z : !shape.size, !shape.size -> !shape.size\n"
        "  %q = shape.shape_eq %a, %a : tensor<2xindex>, tensor<2xindex>\n"
        "  %b = shape.is_broadcastable %a, %a : tensor<2xindex>, tensor<2xindex>\n"
        "  %f = shape.from_extents %i, %z : index, !shape.size\n"
        "  %h = shape.from_extent_tensor %a : tensor<2xindex>\n"
        "  %0 = shape.assuming %all -> (!shape.size) {\n"
        "    shape.assuming_yield %m : !shape.size\n  }\n"
        "  return %0 : !shape.size\n}"
    ),
]
SNIPPETS.append(SDY_ALL_OPS)  # Shardy's ops (tests/unit/ir/test_sdy_ops.py)


def _programs() -> Iterator[tuple[str, str]]:
    for suite in SUITES:
        for path in sorted((CONFORMANCE / suite).rglob("*.mlir")):
            for i, chunk in enumerate(_chunks(path)):
                yield f"{suite}/{path.name}#{i}", chunk
    for i, text in enumerate(SNIPPETS):
        yield f"snippet#{i}", text


@pytest.mark.skipif(
    not (CONFORMANCE / "testdata").is_dir(), reason="../shared/conformance is absent"
)
def test_plans_agree_with_xdsl_on_conformance_programs() -> None:
    disagree: list[str] = []
    seen: set[type] = set()
    programs = failing = 0
    for name, text in _programs():
        try:
            module = parse(text, name)
        except StableHLOError:
            continue  # not ours to parse (other dialects, invalid syntax)
        programs += 1
        # op by op: a class with a plan says "verifies" exactly when xDSL does
        for op in module.walk():
            seen.add(type(op))
            if vp.plan_for(type(op)) is None:
                continue
            fast, slow = vp.verifies(op), _xdsl_verifies(op)
            if fast != slow:
                disagree.append(f"{name}: {op.name}: plan {fast}, xDSL {slow}")
        # the whole module: same first failure, same words, same location
        slow_outcome = _outcome(_slow_verify, module)
        failing += slow_outcome is not None
        fast_outcome = _outcome(verify, module)
        if fast_outcome != slow_outcome:
            disagree.append(f"{name}: verify() {fast_outcome!r}, slow path {slow_outcome!r}")
    assert not disagree, "\n".join(disagree[:30])
    assert programs > 2500 and failing > 200  # the suites were read, invalid programs among them
    with_plan = {c for c in default_registry().ops.values() if vp.plan_for(c) is not None}
    missing = sorted(c.name for c in with_plan - seen)
    assert not missing, f"op classes with a plan that no program exercises: {missing}"


# ----------------------------------------------------------------------------- which classes
def test_plan_coverage_of_the_registry() -> None:
    """Every IRDL op of the registry has a plan but chlo.scan (attribute-sized segments) and the cf
    branches (successors); VHLO ops are not IRDL (their own `verify_` does all the work)."""
    # a new xDSL release: re-check verify_plan against it, then bump XDSL_VERSION
    assert vp.xdsl_problem() is None
    no_plan = {}
    for name, cls in default_registry().ops.items():
        why = vp.why_no_plan(cls)
        if why is not None:
            no_plan[name] = why
    assert {n for n, why in no_plan.items() if why != "not an IRDL operation"} == {
        "chlo.scan",
        "cf.br",
        "cf.cond_br",
    }
    assert "AttrSizedOperandSegments" in no_plan["chlo.scan"]
    assert no_plan["cf.br"] == no_plan["cf.cond_br"] == "has successor definitions"
    assert all(
        n.startswith("vhlo.") for n, why in no_plan.items() if why == "not an IRDL operation"
    )
    assert len(no_plan) < len(default_registry().ops) / 2


def test_custom_verifier_is_the_one_xdsl_wraps() -> None:
    """`irdl_op_definition` wraps the class's `verify_` (if any) with `OpDef.verify` in a closure;
    the plan calls the wrapped function itself.  A change in xDSL's wrapper fails here."""
    for cls in default_registry().ops.values():
        if not hasattr(cls, "get_irdl_definition"):
            continue
        op_def, custom = vp.custom_verifier(cls)  # raises PlanError if not recognised
        assert op_def is cls.get_irdl_definition()
        if custom is not None:  # the class's own (or inherited) verify_, not xDSL's wrapper
            assert custom.__qualname__.endswith(".verify_")
            assert custom.__qualname__ != "get_accessors_from_op_def.<locals>.verify_"
    add = default_registry().ops["stablehlo.add"]
    custom = vp.custom_verifier(add)[1]
    assert custom is not None and custom is not Operation.verify_  # elementwise spec constraints
    assert vp.plan_for(add).custom is custom

    calls = []

    class Base(IRDLOperation):
        def verify_(self) -> None:
            calls.append(self)

    @irdl_op_definition
    class WithCustom(Base):
        name = "test.with_custom"

    @irdl_op_definition
    class WithoutCustom(IRDLOperation):
        name = "test.without_custom"

    op_def, custom = vp.custom_verifier(WithCustom)
    assert op_def is WithCustom.get_irdl_definition() and custom is Base.__dict__["verify_"]
    assert vp.custom_verifier(WithoutCustom)[1] is Operation.verify_  # does nothing
    assert vp.plan_for(WithoutCustom).custom is None and vp.plan_for(WithCustom).custom is not None
    op = WithCustom.create()
    assert vp.verifies(op) and calls == [op]

    class NotGenerated(WithoutCustom):
        def verify_(self) -> None:
            pass

    with pytest.raises(vp.PlanError):
        vp.custom_verifier(NotGenerated)
    assert vp.plan_for(NotGenerated) is None


# ----------------------------------------------------------------------------- probe classes
@irdl_op_definition
class Probe(IRDLOperation):
    name = "test.verify_plan.probe"
    x = operand_def(TensorType)
    ys = var_operand_def(IntegerType)
    out = result_def(EqAttrConstraint(i32))
    dims = prop_def(ParamAttrConstraint(DenseArrayBase, (EqAttrConstraint(i64), AnyAttr())))
    level = opt_prop_def(IntegerAttr)
    body = region_def(
        "single_block", entry_args=AnyOf((EqAttrConstraint(i32), BaseAttr(TensorType)))
    )
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.level is not None and self.level.value.data < 0:
            raise VerifyException("level must be non-negative")


@irdl_op_definition
class Twins(IRDLOperation):
    """Two variadic groups of the same size around a single operand; an optional result."""

    name = "test.verify_plan.twins"
    irdl_options = (SameVariadicOperandSize(),)
    a = var_operand_def(VarConstraint("T", BaseAttr(IntegerType)))
    mid = operand_def(TensorType)
    b = var_operand_def(VarConstraint("T", BaseAttr(IntegerType)))
    r = opt_result_def(IntegerType)


@irdl_op_definition
class Leaf(IRDLOperation):
    name = "test.verify_plan.leaf"


@irdl_op_definition
class Fixed(IRDLOperation):
    """No variadics: positions are definitions.  Two integer block arguments in the region."""

    name = "test.verify_plan.fixed"
    x = operand_def(TensorType)
    y = operand_def(EqAttrConstraint(i64))
    r = result_def(TensorType)
    body = region_def(entry_args=RangeOf(BaseAttr(IntegerType)).of_length(2))


class Refuses(OpTrait):
    """A trait whose verifier rejects ops with a `refuse` attribute."""

    def verify(self, op: Operation) -> None:
        if "refuse" in op.attributes:
            raise VerifyException("the trait refuses")


@irdl_op_definition
class Picky(IRDLOperation):
    name = "test.verify_plan.picky"
    traits = traits_def(Pure(), Refuses())


def _values(*types: Attribute) -> tuple[SSAValue, ...]:
    return Block(arg_types=types).args


def _region(*arg_types: Attribute, blocks: int = 1) -> Region:
    return Region([Block(arg_types=arg_types if i == 0 else ()) for i in range(blocks)])


TF = TensorType(f32, [2])
DIMS = DenseArrayBase.from_list(i64, [0, 1])


def _probe(
    operands: tuple | None = None,
    result_types: tuple = (i32,),
    properties: dict | None = None,
    region: Region | None = None,
) -> Probe:
    return Probe.create(
        operands=_values(TF, i32, i32) if operands is None else operands,
        result_types=result_types,
        properties={"dims": DIMS} if properties is None else properties,
        regions=[region or _region(i32, TF)],
    )


def _same_verdict(op: Operation) -> bool:
    """The plan and xDSL agree on `op`; when it fails, `verify()` reports exactly what the slow path
    reports.  Returns the verdict."""
    fast, slow = vp.verifies(op), _xdsl_verifies(op)
    assert fast == slow, (op.name, fast, slow)
    assert _outcome(verify, op) == _outcome(_slow_verify, op)
    return fast


def test_probe_has_a_plan() -> None:
    plan = vp.plan_for(Probe)
    assert plan is not None, vp.why_no_plan(Probe)
    assert plan.custom is not None and plan.custom.__qualname__ == "Probe.verify_"
    assert plan.traits == ()  # Pure verifies nothing
    assert _same_verdict(_probe())


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # a wrong operand type (BaseAttr), in the single and in the variadic group
        (lambda: _probe(operands=_values(i32, i32)), "operand 'x' at position 0 does not verify"),
        (lambda: _probe(operands=_values(TF, i32, f32)), "operand 'ys' at positions 1 to 2"),
        (lambda: _probe(operands=()), "Expected at least 1 operand, but got 0"),
        # results: a wrong type (EqAttrConstraint), a wrong count
        (lambda: _probe(result_types=(i64,)), "result 'out' at position 0 does not verify"),
        (lambda: _probe(result_types=(i32, i32)), "Expected 1 result, but got 2"),
        # properties: missing, undefined, of the wrong kind (memoised constraint), custom verifier
        (lambda: _probe(properties={}), "requires attribute 'dims'"),
        (lambda: _probe(properties={"dims": DIMS, "zz": DIMS}), "property 'zz' is not defined"),
        (
            lambda: _probe(properties={"dims": DenseArrayBase.from_list(i32, [0])}),
            "Expected attribute i64 but got i32",
        ),
        (
            lambda: _probe(properties={"dims": DIMS, "level": IntegerAttr(-1, i64)}),
            "level must be non-negative",
        ),
        (
            lambda: _probe(properties={"dims": DIMS, "level": DIMS}),
            "should be of base attribute integer",
        ),
        # the region: two blocks, entry argument of the wrong type
        (lambda: _probe(region=_region(blocks=2)), "expected a single block, but got 2 blocks"),
        (lambda: _probe(region=_region(f32)), "entry arguments do not verify"),
    ],
)
def test_probe_failures_are_reported_by_xdsl(make, message: str) -> None:
    op = make()
    assert not vp.verifies(op)
    with pytest.raises(VerifyError) as fast:
        verify(op)
    with pytest.raises(VerifyError) as slow:
        _slow_verify(op)
    assert str(fast.value) == str(slow.value)
    assert message in str(fast.value)


def test_probe_optional_property_and_discardable_attributes() -> None:
    op = _probe(properties={"dims": DIMS, "level": IntegerAttr(3, i64)})
    op.attributes["anything"] = DIMS
    assert _same_verdict(op)
    assert _same_verdict(_probe(operands=_values(TF)))  # an empty variadic group


def test_same_size_variadic_groups_split_as_xdsl_splits() -> None:
    t = TensorType(i32, [1])
    for n in range(8):
        for mid in range(n):
            for types in ((i32,), (i64,), (i32, i64)):
                # all integers but `mid`, a tensor; integer types alternating when two are given
                operand_types = [t if k == mid else types[k % len(types)] for k in range(n)]
                for result_types in ((), (i32,), (i32, i32), (t,)):
                    op = Twins.create(operands=_values(*operand_types), result_types=result_types)
                    _same_verdict(op)
    ok = Twins.create(operands=_values(i32, i32, t, i32, i32), result_types=(i32,))
    assert _same_verdict(ok)
    # constraint variable `T`: the same type in both groups, checked with one context per op
    assert not _same_verdict(Twins.create(operands=_values(i32, t, i64)))
    assert _same_verdict(Twins.create(operands=_values(i64, t, i64)))


def test_fixed_layout() -> None:
    def fixed(operand_types=(TF, i64), result_types=(TF,), entry=(i32, i64), blocks=1) -> Fixed:
        return Fixed.create(
            operands=_values(*operand_types),
            result_types=result_types,
            regions=[_region(*entry, blocks=blocks)],
        )

    assert _same_verdict(fixed())
    assert _same_verdict(fixed(blocks=3))  # any number of blocks
    assert _same_verdict(fixed(blocks=0))  # no entry block: no entry arguments to check
    for bad in (
        fixed(operand_types=(i64, i64)),
        fixed(operand_types=(TF, i32)),
        fixed(operand_types=(TF,)),
        fixed(operand_types=(TF, i64, i64)),
        fixed(result_types=(i64,)),
        fixed(result_types=()),
        fixed(entry=(i32,)),
        fixed(entry=(i32, i32, i32)),
        fixed(entry=(i32, TF)),
        Fixed.create(operands=_values(TF, i64), result_types=(TF,)),  # no region
    ):
        assert not _same_verdict(bad)


def test_successors_are_left_to_xdsl() -> None:
    @irdl_op_definition
    class Jump(IRDLOperation):
        name = "test.verify_plan.jump"
        traits = traits_def(IsTerminator())

    block = Block([Jump.create()])
    op = Jump.create(successors=[block])
    Region([Block([op]), block])
    assert vp.plan_for(Jump) is not None
    assert not _same_verdict(op)  # Jump defines no successors


def test_trait_verifiers_run() -> None:
    plan = vp.plan_for(Picky)
    assert plan is not None and [type(t) for t in plan.traits] == [Refuses]  # not Pure
    op = Picky.create()
    assert _same_verdict(op)
    op.attributes["refuse"] = DIMS
    assert not _same_verdict(op)
    with pytest.raises(VerifyError, match="the trait refuses"):
        verify(op)


def test_erased_operand_is_left_to_xdsl() -> None:
    (arg,) = _values(TF)
    op = _probe(operands=(ErasedSSAValue(TF, arg),))
    assert not vp.verifies(op)
    with pytest.raises(ValueError, match="Erased SSA value"):
        verify(op)


def test_terminator_rules_and_traits_added_later() -> None:
    @irdl_op_definition
    class Last(IRDLOperation):
        name = "test.verify_plan.last"

    leaf, last = Leaf.create(), Last.create()
    region = Region([Block([leaf, last], arg_types=(i32,))])
    parent = _probe(region=region)
    assert _same_verdict(parent) and _same_verdict(leaf)
    assert not _same_verdict(last)  # ends a single-block region of an op without NoTerminator
    assert not vp.plan_for(Last).is_terminator
    Last.traits.add_trait(IsTerminator())  # the compiled plan is stale: recompiled
    assert _same_verdict(last)
    assert vp.plan_for(Last).is_terminator
    two = Region([Block([Leaf.create(), Leaf.create()]), Block([Leaf.create()])])
    first, second, third = (*two.blocks[0].ops, *two.blocks[1].ops)
    assert _same_verdict(first)
    assert not _same_verdict(second) and not _same_verdict(third)  # end blocks of a 2-block region


def test_registered_class_failures_match_the_slow_path() -> None:
    cases = {
        f'"stablehlo.transpose"(%arg0) : ({T}) -> {T}': "requires attribute 'permutation'",
        f'"stablehlo.transpose"(%arg0) <{{permutation = array<i32: 1, 0>}}> : ({T}) -> {T}': (
            "attribute 'permutation' failed to satisfy constraint: i64 dense array attribute"
        ),
        f'"stablehlo.compare"(%arg0, %arg0) <{{comparison_direction = 1 : i64}}> : ({T}, {T}) -> '
        "tensor<2x3xi1>": (
            "attribute 'comparison_direction' failed to satisfy constraint: Which comparison "
            "operation to perform."
        ),
        f'"stablehlo.abs"(%arg0) : ({T}) -> ({T}, {T})': "Expected 1 result, but got 2",
        f'"stablehlo.abs"(%arg0) <{{x = 1}}> : ({T}) -> {T}': "property 'x' is not defined",
    }
    for body, message in cases.items():
        results = "%0:2" if "-> (" in body else "%0"
        module = parse(f"func.func @f(%arg0: {T}) {{\n  {results} = {body}\n  return\n}}", "t.mlir")
        fast, slow = _outcome(verify, module), _outcome(_slow_verify, module)
        assert fast == slow and fast is not None and message in fast[2], (body, fast)
        assert fast[0] == "VerifyError" and fast[1] is not None and fast[1].startswith("t.mlir:2:")


# ----------------------------------------------------------------------------- constraints, memo
class _Custom(AttrConstraint):
    def verify(self, attr, constraint_context: VerificationContext) -> None:
        pass

    def mapping_type_vars(self, type_var_mapping):
        return self


def test_context_free_constraints() -> None:
    assert vp.is_context_free(BaseAttr(TensorType))
    assert vp.is_context_free(AnyOf((EqAttrConstraint(i32), BaseAttr(TensorType))))
    assert vp.is_context_free(
        ParamAttrConstraint(DenseArrayBase, (EqAttrConstraint(i64), AnyAttr()))
    )
    assert not vp.is_context_free(VarConstraint("T", AnyAttr()))
    assert not vp.is_context_free(
        ParamAttrConstraint(TensorType, (AnyAttr(), VarConstraint("T", AnyAttr()), AnyAttr()))
    )
    assert not vp.is_context_free(_Custom())  # unknown: called with the context, never memoised


def test_memo_is_bounded_and_keyed_by_identity() -> None:
    constr = ParamAttrConstraint(DenseArrayBase, (EqAttrConstraint(i64), AnyAttr()))
    cached = vp._Cached(constr)
    old_limit = vp.MEMO.limit
    vp.MEMO.clear()
    vp.MEMO.limit = 10
    try:
        attrs = [DenseArrayBase.from_list(i64 if k % 2 else i32, [k]) for k in range(35)]
        for k, a in enumerate(attrs):
            assert cached.ok(a) == (k % 2 == 1)
            assert cached.ok(a) == (k % 2 == 1)  # from the memo (or recomputed after a clear)
            assert vp.MEMO.size <= 10
            assert sum(len(t) for t in vp.MEMO.maps) <= 10
        # equal but distinct attributes are separate entries; the verdicts stay right
        again = DenseArrayBase.from_list(i64, [1])
        assert cached.ok(again) and cached.ok(again)
        assert cached.table.get(again) is True  # kept with `again`, by identity
        assert cached.table.get(DenseArrayBase.from_list(i64, [1])) is None
        assert not cached.ok(DenseArrayBase.from_list(i32, [1]))
    finally:
        vp.MEMO.limit = old_limit
        vp.MEMO.clear()


# ------------------------------------------------------------------ the op's checks, composed
def test_op_verifier_runs_the_declared_checks_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """`op_verifier` composes ODS_CHECK, the inference check where INFER_CHECK puts it, `verify_`
    and `verify_after_inference_`; the first failure is the one reported, on both paths."""
    from stablehlo_py.ir.ops.base import StableHLOOp, op_def

    calls: list[str] = []

    def step(name: str, fails: set[str]):  # type: ignore[no-untyped-def]
        def check(op: Operation) -> None:
            calls.append(name)
            if name in fails:
                raise VerifyException(f"{name} failed")

        return check

    def probe(when: str | None, fails: set[str], later: bool = True) -> type:
        for key in ("before", "after", "after_regions"):
            monkeypatch.setitem(vp.INFER_CHECKS, key, step("infer", fails))

        class Probe(StableHLOOp):
            name = f"test.op_verifier.{when}.{len(calls)}"
            INFER_CHECK: ClassVar[str | None] = when
            ODS_CHECK = step("ods", fails)

            def verify_(self) -> None:
                step("own", fails)(self)

            if later:
                verify_after_inference_ = step("later", fails)

        return op_def(Probe)

    for when, order in (
        ("before", ["ods", "infer", "own", "later"]),
        ("after", ["ods", "own", "infer", "later"]),
        ("after_regions", ["ods", "own", "infer", "later"]),
        (None, ["ods", "own", "later"]),
    ):
        calls.clear()
        op = probe(when, set()).create()
        assert vp.verifies(op) and calls == order, when
        for failing in order:  # the first failing check wins; nothing after it runs
            calls.clear()
            op = probe(when, {failing}).create()
            with pytest.raises(VerifyException, match=f"{failing} failed"):
                op.verify()
            assert calls == order[: order.index(failing) + 1], (when, failing)
    # a class that declares nothing keeps its own verify_, unwrapped
    class Plain(StableHLOOp):
        name = "test.op_verifier.plain"

        def verify_(self) -> None:
            calls.append("plain")

    own = Plain.__dict__["verify_"]
    assert vp.custom_verifier(op_def(Plain))[1] is own
    with pytest.raises(ValueError, match="INFER_CHECK"):
        probe("sometimes", set())


def test_no_op_module_runs_the_inference_check_itself() -> None:
    """The driver is the one place that calls `verify_inferred`: op classes declare INFER_CHECK."""
    import ast

    ops = Path(vp.__file__).resolve().parents[1] / "ops"
    for path in sorted(ops.glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not names & {"verify_inferred", "verify_inferred_after_regions"}, path.name
    declared = {
        cls.name: getattr(cls, "INFER_CHECK", None) for cls in default_registry().ops.values()
    }
    assert set(declared.values()) <= set(vp.INFER_CHECKS)
    assert declared["stablehlo.add"] == "after" and declared["stablehlo.convert"] is None
    assert declared["stablehlo.while"] == declared["stablehlo.scatter"] == "after_regions"
