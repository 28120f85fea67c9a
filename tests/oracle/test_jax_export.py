"""Our reader of serialized ``jax.export.Exported`` against JAX's own ``jax.export.deserialize``.

For every shared JAX function (tests/oracle/jax_functions.py) and for exports that exercise the
rest of the schema (shape polymorphism, vjp chains, several platforms, shardings on an abstract
mesh, disabled safety checks, pytrees of dicts/lists/None, unused arguments, PRNG keys, int4,
float0), ``read_jax_exported(exp.serialize())`` must hold exactly what JAX deserializes, and the
module bytes must be ``exp.mlir_module_serialized``.  A randomized cross-check pins the
NamedSharding -> HloSharding text derivation to JAX's and XLA's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("flatbuffers")

from jax import export
from jax.sharding import AbstractMesh, AxisType, NamedSharding
from jax.sharding import PartitionSpec as P
from stablehlo_py.serialization.jax_export import (
    JaxAbstractMesh,
    JaxAval,
    JaxExported,
    JaxNamedSharding,
    is_jax_exported,
    read_jax_exported,
)

from tests.oracle.jax_functions import JAX_FUNCTIONS

f32 = np.float32


def _spec(shape: tuple[Any, ...], dtype: Any = f32) -> Any:
    return jax.ShapeDtypeStruct(shape, dtype)


def _shape_poly() -> Any:
    b, n = export.symbolic_shape("b, n")

    def f(x, y):
        return jnp.concatenate([x, x * 2.0], axis=0), y.sum(axis=0) * x.shape[0]

    return export.export(jax.jit(f))(_spec((b, 3)), _spec((n, b)))


def _sharded(in_specs: tuple[Any, ...], out_specs: tuple[Any, ...], mesh: AbstractMesh) -> Any:
    def shard(specs):
        return tuple(None if s is None else NamedSharding(mesh, s) for s in specs)

    f = jax.jit(
        lambda a, b: (a * 2.0, b + 1.0, a.sum()),
        in_shardings=shard(in_specs),
        out_shardings=shard(out_specs),
    )
    return export.export(f)(_spec((8, 4)), _spec((8, 4)))


MESH_XY = AbstractMesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
MESH_XYZ = AbstractMesh((2, 1, 4), ("x", "y", "z"), axis_types=(AxisType.Auto,) * 3)


def _pytrees() -> Any:
    def f(tree, scale, *, offset):
        return {"sum": tree["a"] + tree["b"][0], "none": None, "list": [scale * offset]}

    x = np.ones((2,), f32)
    return export.export(jax.jit(f))({"a": x, "b": [x, None]}, f32(2), offset=f32(1))


# name -> (exported thunk, vjp_order)
EXPORTS: dict[str, tuple[Callable[[], Any], int]] = {
    **{
        name: ((lambda fn=fn, args=args: export.export(jax.jit(fn))(*args)), 0)
        for name, fn, args in JAX_FUNCTIONS
    },
    "shape_polymorphic": (_shape_poly, 0),
    "vjp_order_1": (lambda: export.export(jax.jit(lambda x, w: jnp.tanh(x @ w)))(np.ones((2, 3), f32), np.ones((3, 4), f32)), 1),
    "vjp_order_2": (lambda: export.export(jax.jit(lambda x: jnp.sin(x).sum()))(np.ones(5, f32)), 2),
    "platforms_cpu_cuda": (lambda: export.export(jax.jit(lambda x: jnp.cos(x) * 2), platforms=("cpu", "cuda"))(np.ones(3, f32)), 0),
    "sharded_partial": (lambda: _sharded((P("x", None), P(None, ("y", "x"))), (P("y"), None, None), MESH_XY), 0),
    "sharded_full": (lambda: _sharded((P("x", "y"), None), (P(("x", "y")), P(None, "y"), P()), MESH_XY), 0),
    "sharded_size1_axis": (lambda: _sharded((P("z", "y"), P(("y", "x"))), (None, P("x", "z"), None), MESH_XYZ), 0),
    "disabled_checks": (lambda: export.export(jax.jit(lambda x: x + 1), disabled_checks=[export.DisabledSafetyCheck.platform(), export.DisabledSafetyCheck.custom_call("my_target")])(np.ones(3, f32)), 0),
    "pytree_args": (_pytrees, 0),
    "unused_argument": (lambda: export.export(jax.jit(lambda a, b, c: a * c))(np.ones(2, f32), np.ones(3, f32), np.ones(2, f32)), 0),
    "prng_key": (lambda: export.export(jax.jit(lambda k: jax.random.uniform(k, (2,))))(jax.random.key(0)), 0),
    "int4_float0": (lambda: export.export(jax.jit(lambda x, z: x.astype(jnp.int8)))(jnp.ones(4, jnp.int4), np.zeros((2,), jax.dtypes.float0)), 0),
}  # fmt: skip


def _aval(a: Any) -> JaxAval:
    dtype = "float0" if a.dtype == jax.dtypes.float0 else str(a.dtype)
    shape = tuple(d if isinstance(d, int) else str(d) for d in a.shape)
    return JaxAval(shape, dtype, a.memory_space.name.lower())


def _named(s: Any) -> JaxNamedSharding | None:
    if s is None:
        return None
    m = s.mesh
    mesh = JaxAbstractMesh(
        tuple(m.axis_sizes), tuple(m.axis_names), tuple(t.name for t in m.axis_types)
    )
    return JaxNamedSharding(
        mesh,
        tuple(s.spec),
        tuple(sorted(s.spec.reduced)),
        tuple(sorted(s.spec.unreduced)),
        s.memory_kind,
    )


def _without_device(s: JaxNamedSharding | None) -> JaxNamedSharding | None:
    if s is None:
        return None
    mesh = JaxAbstractMesh(s.mesh.axis_sizes, s.mesh.axis_names, s.mesh.axis_types)
    return JaxNamedSharding(
        mesh, s.spec, tuple(sorted(s.reduced)), tuple(sorted(s.unreduced)), s.memory_kind
    )


def _assert_same(ours: JaxExported, theirs: Any) -> None:
    assert ours.function_name == theirs.fun_name
    assert str(ours.in_tree) == str(theirs.in_tree)
    assert str(ours.out_tree) == str(theirs.out_tree)
    assert ours.in_avals == tuple(_aval(a) for a in theirs.in_avals)
    assert ours.out_avals == tuple(_aval(a) for a in theirs.out_avals)
    for side in ("in", "out"):
        named = getattr(theirs, f"_{side}_named_shardings")
        avals = getattr(theirs, f"{side}_avals")
        ours_hlo = getattr(ours, f"{side}_shardings_hlo")
        # JAX 0.12 no longer fills {in,out}_shardings_hlo (all None since Mar 2026); both derive
        # the HloSharding from the named sharding, which is what ours holds
        assert ours_hlo == tuple(
            None if s is None else str(s._to_xla_hlo_sharding(a.ndim))
            for s, a in zip(named, avals)
        )
        hlo = getattr(theirs, f"{side}_shardings_hlo")
        if any(h is not None for h in hlo):  # jax 0.10 still fills them
            assert ours_hlo == tuple(None if h is None else str(h) for h in hlo)
        assert tuple(_without_device(s) for s in getattr(ours, f"{side}_shardings")) == tuple(
            _named(s) for s in named
        )
    assert ours.nr_devices == theirs.nr_devices
    assert ours.platforms == theirs.platforms
    assert ours.ordered_effects == tuple(str(type(e)) for e in theirs.ordered_effects)
    assert ours.unordered_effects == tuple(str(type(e)) for e in theirs.unordered_effects)
    assert ours.disabled_safety_checks == tuple(str(c) for c in theirs.disabled_safety_checks)
    assert ours.mlir_module_serialized == theirs.mlir_module_serialized
    assert ours.mlir_module_serialization_version == theirs.calling_convention_version
    assert ours.module_kept_var_idx == tuple(theirs.module_kept_var_idx)
    assert ours.uses_global_constants == theirs.uses_global_constants
    assert ours.has_vjp == theirs.has_vjp()
    if ours.vjp is not None:
        _assert_same(ours.vjp, theirs.vjp())


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_reader_matches_jax_deserialize(name: str) -> None:
    thunk, vjp_order = EXPORTS[name]
    exp = thunk()
    data = bytes(exp.serialize(vjp_order=vjp_order))
    assert is_jax_exported(data)
    assert not is_jax_exported(exp.mlir_module_serialized)
    ours = read_jax_exported(data, f"{name}.jax")
    assert ours.mlir_module_serialized == exp.mlir_module_serialized
    _assert_same(ours, export.deserialize(bytearray(data)))
    depth, e = 0, ours
    while e.vjp is not None:
        depth, e = depth + 1, e.vjp
    assert depth == vjp_order
    assert ours.metadata_text().startswith(f"function_name: {exp.fun_name}")


def test_shape_polymorphic_dims_are_strings() -> None:
    ours = read_jax_exported(bytes(_shape_poly().serialize()))
    assert ours.in_avals == (JaxAval(("b", 3), "float32"), JaxAval(("n", "b"), "float32"))
    assert ours.out_avals[0] == JaxAval(("2*b", 3), "float32")


def test_hlo_sharding_text_matches_jax_and_xla() -> None:
    """Random abstract meshes (sizes 1-4; Auto/Explicit/Manual axes) and partition specs (with
    reduced/unreduced axes): our HloSharding text equals str(NamedSharding._to_xla_hlo_sharding)."""
    types = {"Auto": AxisType.Auto, "Explicit": AxisType.Explicit, "Manual": AxisType.Manual}
    rng = random.Random(5)
    compared = 0
    for _ in range(600):
        names = [f"a{i}" for i in range(rng.randint(0, 4))]
        sizes = [rng.choice([1, 2, 2, 3, 4]) for _ in names]
        kinds = [rng.choice(["Auto", "Explicit", "Explicit", "Manual"]) for _ in names]
        free = names[:]
        rng.shuffle(free)
        spec: list[Any] = []
        for _ in range(rng.randint(0, 3)):
            axes = [free.pop() for _ in range(min(rng.choice([0, 1, 1, 2]), len(free)))]
            spec.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
        explicit = [a for a in free if kinds[names.index(a)] == "Explicit"]
        unreduced = [a for a in explicit if rng.random() < 0.3]
        reduced = [a for a in explicit if a not in unreduced and rng.random() < 0.3]
        ndim = len(spec) + rng.randint(0, 1)
        mesh = AbstractMesh(tuple(sizes), tuple(names), axis_types=tuple(types[k] for k in kinds))
        try:
            theirs = NamedSharding(
                mesh, P(*spec, unreduced=frozenset(unreduced), reduced=frozenset(reduced))
            )._to_xla_hlo_sharding(ndim)
        except (AssertionError, ValueError):
            continue  # JAX refuses the combination
        ours = JaxNamedSharding(
            JaxAbstractMesh(tuple(sizes), tuple(names), tuple(kinds)),
            tuple(spec),
            tuple(reduced),
            tuple(unreduced),
        )
        assert ours.hlo_sharding(ndim) == str(theirs), ours
        compared += 1
    assert compared > 400
