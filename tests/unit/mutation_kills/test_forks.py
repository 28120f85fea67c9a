"""vhlo/forks/: what the mutation run of the `forks` group found unchecked -- the words of a
blocked downgrade.  A user who targets an old version is told which feature blocks it and since
when it exists; the expected texts below are those promised per fork (docs of vhlo/forks/)."""

from __future__ import annotations

import pytest
from stablehlo_py.vhlo import forks as fk

from tests.unit.vhlo.test_forks import NON_DEFAULT, PAIRS, T, _added, _state

# (op, attribute) -> the feature a non-default value of it needs
FEATURE = {
    ("collective_broadcast", "has_dynamic_root"): "a dynamic broadcast root needs 1.20.0",
    ("custom_call", "result_tilings"): "custom_call result tilings need 1.18.0",
    ("send", "source_target_pairs"): "source_target_pairs need 1.12.0",
    ("recv", "source_target_pairs"): "source_target_pairs need 1.12.0",
}
_BATCHING = "batching dimensions need 1.1.0"


def _feature(base: str, name: str) -> str:
    if (base, name) in FEATURE:
        return FEATURE[(base, name)]
    if base == "dot_general":
        return "a dot algorithm needs 1.6.0"
    if base in ("gather", "dynamic_gather", "scatter"):
        return _BATCHING
    assert name == "result_accuracy", (base, name)
    return f"a result accuracy needs {'1.9.0' if base == 'exponential' else '1.10.0'}"


@pytest.mark.parametrize("pair", [p for p in PAIRS if _added(*p)], ids=lambda p: f"{p[0]}_v{p[1]}")
def test_blocked_downgrade_names_the_feature_and_the_value(pair: tuple[str, int]) -> None:
    base, n = pair
    for name in sorted(_added(base, n)):
        state = _state(base, n + 1)
        state.properties[name] = NON_DEFAULT[name]
        with pytest.raises(fk.Blocked) as ei:
            fk.downgrade(state)
        assert str(ei.value).startswith(f"{_feature(base, name)} ({name} = "), str(ei.value)
        assert str(ei.value).endswith(")")


@pytest.mark.parametrize(
    "base,what",
    [
        ("all_gather", "all_gather with several operands needs 1.5.0"),
        ("all_reduce", "all_reduce with several operands needs 1.5.0"),
        ("all_to_all", "all_to_all with several operands needs 1.5.0"),
        ("collective_broadcast", "variadic collective_broadcast needs 1.20.0"),
    ],
)
def test_variadic_downgrade_message(base: str, what: str) -> None:
    state = _state(base, 2, n_operands=2)
    state = fk.ForkOp(base, 2, state.operands, (T, T, T), state.properties)
    with pytest.raises(fk.Blocked) as ei:
        fk.downgrade(state)
    assert str(ei.value) == f"2 operands and 3 results ({what})"
    one = fk.ForkOp(base, 2, state.operands[:1], (T, T), state.properties)
    with pytest.raises(fk.Blocked) as ei:
        fk.downgrade(one)
    assert str(ei.value) == f"1 operands and 2 results ({what})"


def test_fork_op_to_keeps_attributes_and_regions() -> None:
    state = _state("all_gather", 1)
    state = fk.ForkOp(state.base, 1, state.operands, state.result_types, state.properties,
                      {"mhlo.frontend": T}, ())
    up = state.to(2)
    assert (up.base, up.version) == ("all_gather", 2)
    assert up.attributes == {"mhlo.frontend": T} and up.attributes is not state.attributes
    assert up.regions == () and up.operands == state.operands
    marker = (object(),)
    assert state.to(2, regions=marker).regions == marker  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "base,names",
    [
        ("gather", ("operand_batching_dims", "start_indices_batching_dims")),
        ("dynamic_gather", ("operand_batching_dims", "start_indices_batching_dims")),
        ("scatter", ("input_batching_dims", "scatter_indices_batching_dims")),
    ],
)
def test_upgrade_to_batching_dims_fills_empty_lists(base: str, names: tuple[str, ...]) -> None:
    from stablehlo_py.vhlo import attrs as va

    up = fk.upgrade(_state(base, 1))
    for name in names:
        assert up.properties[name] == va.i64_tensor([]), name


def test_dynamic_conv_upgrade_message_names_the_padding() -> None:
    from stablehlo_py.vhlo import attrs as va

    state = _state("dynamic_conv", 1)
    state.properties["padding"] = va.i64_tensor([1, 0, 0, 0], (2, 2))
    with pytest.raises(fk.Blocked) as ei:
        fk.upgrade(state)
    assert str(ei.value).startswith(
        "a non-zero `padding` attribute, which dynamic_conv_v2 (0.20.0+) cannot hold (padding = ")


def test_fork_table_is_built_from_the_modules() -> None:
    """`_load` (run once at import, where no mutant is switched on) called again: the same table."""
    assert fk._load() == fk.FORKS
    assert len(fk._load()) == 25


def test_a_fork_defined_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fk, "MODULES", ("composite", "dot_general", "composite"))
    with pytest.raises(ValueError) as ei:
        fk._load()
    assert str(ei.value) == "fork composite v1<->v2 defined twice"
    monkeypatch.setattr(fk, "MODULES", ("composite", "dot_general"))
    assert sorted(fk._load()) == [("composite", 1), ("dot_general", 1)]


def test_fork_op_of_keeps_the_regions() -> None:
    """A VHLO op's regions travel with its snapshot (a composite_v2 with regions must be blocked)."""
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py.ir import parse
    from tests.unit.vhlo.test_vhlo_passes import PROGRAM

    module = run_pipeline(parse(PROGRAM, "t.mlir"), [("stablehlo-legalize-to-vhlo", {})])
    reduce = next(op for op in module.walk() if op.name.startswith("vhlo.reduce_v"))
    snap = fk.ForkOp.of(reduce)
    assert len(snap.regions) == 1 and snap.regions[0] is reduce.regions[0]
    assert snap.operands == tuple(reduce.operands) and snap.base == "reduce"
    with pytest.raises(fk.Blocked) as ei:
        fk.downgrade(fk.ForkOp("composite", 2, (), (), {}, {}, snap.regions))
    assert str(ei.value) == "1 composite region(s) (composite regions need 1.14.0)"


def test_dynamic_conv_downgrade_needs_a_ranked_lhs() -> None:
    """The padding attribute's shape comes from the lhs (operand 0); an unranked lhs blocks it."""
    from stablehlo_py.vhlo import types as vt
    from xdsl.ir import Block

    state = _state("dynamic_conv", 2)
    unranked = vt.UnrankedTensorV1Type(vt.F32)
    block = Block(arg_types=[unranked, vt.tensor_type((2, 3, 4), vt.F32)])
    blocked = fk.ForkOp("dynamic_conv", 2, (block.args[0], block.args[1], *state.operands[2:]),
                        state.result_types, dict(state.properties))
    with pytest.raises(fk.Blocked) as ei:
        fk.downgrade(blocked)
    assert str(ei.value) == "an unranked lhs (dynamic_conv_v1 needs its rank for the padding attribute)"
    ranked = Block(arg_types=[vt.tensor_type((2, 3, 4), vt.F32), vt.tensor_type((2, 3, 4, 5, 6), vt.F32)])
    down = fk.downgrade(fk.ForkOp("dynamic_conv", 2, tuple(ranked.args), state.result_types,
                                  dict(state.properties)))
    from stablehlo_py.vhlo import attrs as va

    assert down.properties["padding"] == va.i64_tensor([0, 0], (1, 2))  # rank 3 lhs: one spatial dim
