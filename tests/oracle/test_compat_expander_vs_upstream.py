"""stablehlo-compatibility-expander against upstream's own pass (jaxlib registers it): the same
programs expanded for the same targets print the same text, with and without debug info (which
also checks our `#loc` alias printing against MLIR's); ``expand=True`` artifacts in upstream's
format are byte-identical to upstream's expander followed by its serializer; and the expanded JAX
programs (vmapped gather and scatter, tan, complex tan) compute XLA's results in our interpreter
after a round trip through a 0.9.0 artifact.

Programs: every JAX function of the shared oracle set (mostly nothing to expand: the check is that
the greedy driver uniques, hoists and erases as upstream's), JAX's batched gather/scatter and tan,
each chunk of upstream's expander tests, and this toolkit's unit-test programs."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.serialization import (
    deserialize_portable_artifact,
    serialize_portable_artifact,
)

from stablehlo_py.cli.common import split_chunks
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version
from tests.conftest import CONFORMANCE
from tests.oracle.jax_functions import JAX_FUNCTIONS
from tests.unit.passes import test_compatibility_expander as unit

TRANSFORMS = CONFORMANCE / "transforms"
TARGETS = ("0.9.0", "1.0.0", "1.3.0", "1.8.0", "1.15.0", "1.17.0")
RNG = np.random.default_rng(21)


@pytest.fixture(scope="module")
def upstream():  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir.dialects import stablehlo

    stablehlo.register_stablehlo_passes()
    ctx = jax_mlir.make_ir_context()
    ctx.allow_unregistered_dialects = True

    def expand(text: str, target: str, debuginfo: bool, artifact: bool = False) -> str | bytes:
        with ctx:
            m = ir.Module.parse(text)
            pm = passmanager.PassManager.parse(
                f"builtin.module(stablehlo-compatibility-expander{{target={target}}})"
            )
            pm.run(m.operation)
            if artifact:
                return bytes(stablehlo.serialize_portable_artifact(m, target))
            return m.operation.get_asm(enable_debug_info=debuginfo)

    return expand


def _ours(text: str, target: str, debuginfo: bool) -> str:
    module = parse(text, "-", allow_unregistered=True)
    module = run_pipeline(module, [("stablehlo-compatibility-expander", {"target": target})])
    return print_ir(module, debuginfo=debuginfo, location_aliases=True)


def _batched(x, i):  # type: ignore[no-untyped-def]
    return jax.vmap(lambda r, j: r[j])(x, i)


def _batched_update(x, i, u):  # type: ignore[no-untyped-def]
    return jax.vmap(lambda r, j, v: r.at[j].add(v))(x, i, u)


def _batched_rows(x, i):  # type: ignore[no-untyped-def]
    return jax.vmap(lambda m, j: jnp.take(m, j, axis=0))(x, i)


def _f(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.uniform(-1.2, 1.2, size=shape).astype(dtype)


EXPANDED_JAX = {
    "vmap_gather": (_batched, (_f(4, 6), np.array([1, 5, 0, 2], np.int32))),
    "vmap_gather_rows": (
        _batched_rows,
        (_f(3, 5, 4), np.array([[0, 4], [2, 2], [1, 3]], np.int32)),
    ),
    "vmap_scatter_add": (_batched_update, (_f(4, 6), np.array([1, 5, 0, 5], np.int32), _f(4))),
    "tan": (jnp.tan, (_f(3, 5),)),
    "tan_1d": (jnp.tan, (_f(7),)),
    "tan_complex": (jnp.tan, ((_f(6) + 1j * _f(6)).astype(np.complex64),)),
}


def _jax_text(fn, args, debug_info: bool = False) -> str:  # type: ignore[no-untyped-def]
    return jax.jit(fn).lower(*args).as_text(debug_info=debug_info)


def _programs() -> list[tuple[str, str]]:
    out = [(f"jax_{n}", _jax_text(fn, args)) for n, fn, args in JAX_FUNCTIONS]
    # with JAX's source locations (name, call-site and fused locations, `loc(unknown)`)
    out += [
        (f"jax_debug_{n}", _jax_text(fn, args, debug_info=True)) for n, fn, args in JAX_FUNCTIONS
    ]
    out += [(f"expand_{n}", _jax_text(fn, args)) for n, (fn, args) in EXPANDED_JAX.items()]
    for f in (
        "stablehlo_compatibility_expander.mlir",
        "stablehlo_compatibility_expander_locations.mlir",
        "mesh_axes_replica_group_compatibility.mlir",
    ):
        path = TRANSFORMS / f
        if path.exists():
            for k, (_, chunk) in enumerate(split_chunks(path.read_text(), True)):
                if "func.func" in chunk or "module" in chunk:
                    out.append((f"{f}#{k}", chunk))
    out += [(f"unit_{c.name}", c.text) for c in unit.CASES]
    out.append(("unit_mesh", unit.MESH_COLLECTIVE))
    out.append(("unit_mesh_symbol", unit._mesh_program("@mesh")))
    return [(n, _without_sdy_mesh(t)) for n, t in out]


def _without_sdy_mesh(text: str) -> str:
    """jaxlib registers the sdy dialect, whose `sdy.mesh` needs a `mesh` attribute: the
    unregistered-style `"sdy.mesh"() {stablehlo.mesh = ...}` of the tests does not parse there.
    Programs that only declare it (their groups name an inline mesh) drop it."""
    if "mesh = @" in text:
        return text
    return "\n".join(line for line in text.splitlines() if '"sdy.mesh"' not in line)


PROGRAMS = _programs()


def _jaxlib_version() -> Version:
    from jaxlib.mlir.dialects import stablehlo

    return Version.from_string(str(stablehlo.get_current_version()))


_JAXLIB = _jaxlib_version()


@pytest.mark.parametrize("debuginfo", [False, True], ids=["plain", "debuginfo"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("name", "text"), PROGRAMS, ids=[n for n, _ in PROGRAMS])
def test_same_text_as_upstream(
    upstream, name: str, text: str, target: str, debuginfo: bool
) -> None:  # type: ignore[no-untyped-def]
    if '"sdy.mesh"' in text:
        pytest.skip("its mesh symbols are sdy.mesh ops jaxlib's sdy dialect refuses")
    if "mesh = @mesh" in text and '"test.mesh_holder"' in text and _JAXLIB >= Version(1, 22, 0):
        pytest.skip(
            "jaxlib 0.12's MLIR takes no unregistered op for a symbol ('mesh symbol not found'), "
            "and its registered sdy.mesh carries no stablehlo.mesh for the expander (jaxlib 0.12 "
            "leaves such groups unexpanded): the mesh-symbol program is compared on jaxlib 0.10"
        )
    if "#stablehlo.mesh<" in text and Version.from_string(target) >= Version(1, 16, 0):
        pytest.skip(
            "the mesh-axes groups stay: jaxlib prints #stablehlo.mesh in its short form "
            "(`axes=[<name = ...>]`), our text layer as written"
        )
    want = upstream(text, target, debuginfo)
    got = _ours(text, target, debuginfo)
    assert got == want


@pytest.mark.parametrize("name", sorted(EXPANDED_JAX))
def test_expanded_jax_programs_compute_xlas_results(name: str) -> None:
    fn, args = EXPANDED_JAX[name]
    want = [np.asarray(r) for r in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    data = serialize_portable_artifact(parse(_jax_text(fn, args), name), "0.9.0", expand=True)
    got = run(print_ir(deserialize_portable_artifact(data)), *args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("target", ["0.9.0", "1.0.0", "1.3.0"])
@pytest.mark.parametrize("name", sorted(EXPANDED_JAX))
def test_expand_true_artifact_is_upstreams_bytes(upstream, name: str, target: str) -> None:  # type: ignore[no-untyped-def]
    """serialize_portable_artifact(expand=True, format="mlir") == upstream's expander followed by
    upstream's serializer, byte for byte (use-list orders replayed as the installed jaxlib's)."""
    fn, args = EXPANDED_JAX[name]
    text = _jax_text(fn, args)
    ours = serialize_portable_artifact(
        parse(text, "-"), target, format="mlir", expand=True, use_lists_as=str(_JAXLIB)
    )
    assert ours == upstream(text, target, False, artifact=True)
