"""Every fork's upgrade/downgrade pair: coverage of specs/ops.toml, shapes of the results, round trips,
and refusal to drop non-default values."""

from __future__ import annotations

import pytest
from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import forks as fk
from stablehlo_py.vhlo import legality
from stablehlo_py.vhlo import types as vt
from xdsl.ir import Attribute, Block, Region

from stablehlo_py import specs
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.text.parser import Parser

T = vt.tensor_type((2, 3, 4, 5), vt.F32)
FAMILIES = sorted({o.base for o in specs.ops() if o.version > 1})
PAIRS = sorted(fk.FORKS)


def _attr(text: str) -> Attribute:
    return Parser(text, default_registry()).parse_attribute()


_REQUIRED = {
    "all_gather_dim": va.integer(1),
    "replica_groups": va.i64_tensor([0, 1], (1, 2)),
    "split_dimension": va.integer(0),
    "concat_dimension": va.integer(0),
    "split_count": va.integer(2),
    "call_target_name": va.string("foo"),
    "name": va.string("my.composite"),
    "decomposition": va.string("decomposition"),
    "channel_id": va.integer(1),
    "channel_type": va.integer(2),
    "feature_group_count": va.integer(1),
    "batch_group_count": va.integer(1),
    "index_vector_dim": va.integer(1),
    "indices_are_sorted": va.FALSE,
    "unique_indices": va.FALSE,
    "slice_sizes": va.i64_tensor([1, 1, 1, 1]),
    "input_batch_dimension": va.integer(0),
    "input_feature_dimension": va.integer(3),
    "kernel_input_feature_dimension": va.integer(2),
    "kernel_output_feature_dimension": va.integer(3),
    "output_batch_dimension": va.integer(0),
    "output_feature_dimension": va.integer(3),
}


def _value(spec: specs.OpSpec, a: specs.OpAttributeSpec) -> Attribute:
    if a.default_rule is not None:
        return va.i64_tensor([0, 0, 0, 0], (2, 2)) if "zeros" in a.default_rule else (
            va.bool_tensor([False, False]) if "falses" in a.default_rule else va.i64_tensor([1, 1])
        )
    if a.vhlo_default is not None:
        return _attr(a.vhlo_default)
    return _REQUIRED.get(a.name, va.i64_tensor([0]))


def _state(base: str, version: int, n_operands: int = 1) -> fk.ForkOp:
    spec = specs.op(f"{base}_v{version}")
    block = Block(arg_types=[T] * max(n_operands, len(spec.operands)))
    operands = tuple(block.args[: max(n_operands, len(spec.operands))])
    results = tuple(T for _ in spec.results) or ()
    props = {a.name: _value(spec, a) for a in spec.attributes}
    return fk.ForkOp(base, version, operands, results, props, {}, ())


def test_every_fork_of_the_table_has_a_pair() -> None:
    expected = {(o.base, o.version - 1) for o in specs.ops() if o.version > 1}
    assert set(fk.FORKS) == expected
    assert len(fk.FORKS) == 25


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}_v{p[1]}")
def test_upgrade_gives_the_next_fork_shape(pair: tuple[str, int]) -> None:
    base, n = pair
    up = fk.upgrade(_state(base, n))
    assert up.version == n + 1
    assert set(up.properties) == set(specs.op(f"{base}_v{n + 1}").attribute_names)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}_v{p[1]}")
def test_downgrade_of_defaults_gives_the_previous_fork_shape(pair: tuple[str, int]) -> None:
    base, n = pair
    down = fk.downgrade(_state(base, n + 1))
    assert down.version == n
    assert set(down.properties) == set(specs.op(f"{base}_v{n}").attribute_names)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}_v{p[1]}")
def test_up_then_down_is_the_identity(pair: tuple[str, int]) -> None:
    base, n = pair
    start = _state(base, n)
    if base == "dynamic_conv":  # v1's padding attribute must be zeros to upgrade; downgrade rebuilds it
        start.properties["padding"] = va.i64_tensor([0, 0, 0, 0], (2, 2))
    back = fk.downgrade(fk.upgrade(start))
    assert back.version == n
    assert back.properties == start.properties
    assert back.regions == start.regions


NON_DEFAULT: dict[str, Attribute] = {
    "result_accuracy": va.ResultAccuracyV1Attr((1e-5, 0.0, 1, va.enum("result_accuracy_mode_v1", "TOLERANCE"))),
    "has_dynamic_root": va.TRUE,
    "result_tilings": va.array([va.array([va.i64_tensor([8, 128])])]),
    "lhs_precision_type": va.TypeV1Attr(vt.SIMPLE["tf31_v1"]),
    "rhs_precision_type": va.TypeV1Attr(vt.SIMPLE["tf31_v1"]),
    "accumulation_type": va.TypeV1Attr(vt.F32),
    "lhs_component_count": va.integer(1),
    "rhs_component_count": va.integer(1),
    "num_primitive_operations": va.integer(1),
    "allow_imprecise_accumulation": va.FALSE,
    "operand_batching_dims": va.i64_tensor([0]),
    "start_indices_batching_dims": va.i64_tensor([1]),
    "input_batching_dims": va.i64_tensor([0]),
    "scatter_indices_batching_dims": va.i64_tensor([0]),
    "source_target_pairs": va.i64_tensor([0, 1], (1, 2)),
}


def _added(base: str, n: int) -> set[str]:
    return set(specs.op(f"{base}_v{n + 1}").attribute_names) - set(specs.op(f"{base}_v{n}").attribute_names)


# A non-default value of an attribute new in a fork blocks its downgrade, with a message naming the
# feature and the value: tests/unit/mutation_kills/test_forks.py,
# test_blocked_downgrade_names_the_feature_and_the_value (every pair of PAIRS that adds attributes).


@pytest.mark.parametrize(
    "base", ["all_gather", "all_reduce", "all_to_all", "collective_broadcast"]
)
def test_variadic_forks_refuse_several_operands(base: str) -> None:
    state = _state(base, 2, n_operands=2)
    state = fk.ForkOp(base, 2, state.operands, (T, T), state.properties)
    with pytest.raises(fk.Blocked, match="2 operands"):
        fk.downgrade(state)


def test_composite_regions_block_the_downgrade() -> None:
    state = _state("composite", 2)
    state.regions = (Region(Block()),)
    with pytest.raises(fk.Blocked, match="composite region"):
        fk.downgrade(state)


def test_dynamic_conv_upgrade_refuses_to_drop_a_non_zero_padding_attribute() -> None:
    state = _state("dynamic_conv", 1)
    state.properties["padding"] = va.i64_tensor([1, 1, 0, 0], (2, 2))
    with pytest.raises(fk.Blocked, match="padding"):
        fk.upgrade(state)


def test_dynamic_conv_downgrade_rebuilds_the_padding_from_the_rank() -> None:
    down = fk.downgrade(_state("dynamic_conv", 2))
    assert down.properties["padding"] == va.i64_tensor([0, 0, 0, 0], (2, 2))


def test_constraints_cover_the_constrained_ops() -> None:
    constrained = {o.name for o in specs.ops() if "VHLO_VersionedOpConstraintInterface" in o.traits}
    assert set(legality.CONSTRAINTS) == constrained


def test_promotion_constraint() -> None:
    f64 = vt.tensor_type((2,), vt.SIMPLE["f64_v1"])
    block = Block(arg_types=[vt.tensor_type((2,), vt.F32)])
    state = fk.ForkOp("reduce", 1, tuple(block.args), (f64,), {})
    assert [str(v) for v, _ in legality.CONSTRAINTS["reduce_v1"](state)] == ["0.17.0"]


def test_custom_call_constraints() -> None:
    state = _state("custom_call", 1)
    assert legality.CONSTRAINTS["custom_call_v1"](state) == []
    state.properties["api_version"] = va.enum("api_version_v1", "API_VERSION_TYPED_FFI")
    state.properties["backend_config"] = va.EMPTY_DICT
    assert [str(v) for v, _ in legality.CONSTRAINTS["custom_call_v1"](state)] == ["1.3.0"]
    fut = vt.FutureV1Type((T,))
    state = _state("custom_call", 1)
    state.result_types = (fut,)
    assert [str(v) for v, _ in legality.CONSTRAINTS["custom_call_v1"](state)] == ["1.17.0"]


@pytest.mark.parametrize("family", FAMILIES)
def test_fork_modules_name_their_ops(family: str) -> None:
    import importlib

    modules = [importlib.import_module(f"stablehlo_py.vhlo.forks.{m}") for m in fk.MODULES]
    assert any(f.op == family for m in modules for f in m.FORKS)
