"""Upstream's portable artifacts (MLIR bytecode over VHLO) against jaxlib (issues 9 and 31).

For every conformance testdata program (CHLO ones after our ``chlo-pre-serialization-pipeline``), at
every target from 0.9.0 to the installed jaxlib's current version (jaxlib 0.10: 1.17.0, jaxlib 0.12:
1.22.0; never above ours):

* jaxlib refuses the target exactly when we do (a program below its minimum version);
* our bytes == jaxlib's ``serialize_portable_artifact`` bytes, including the use-list orders its
  version conversion leaves.  By default (no ``use_lists_as``) we write the newest upstream's
  orders: on a jaxlib as current as we are, our default bytes are compared at every target
  (``use_lists_as`` = jaxlib's version at the oldest target the program has, and
  ``serialize_portable_artifact_str`` at the current one); on an older jaxlib, ``use_lists_as`` =
  its version is compared at every target, and jaxlib reading our default artifact and writing it
  again at the same bytecode version reproduces our bytes (the fixpoint oracle of
  mlir-bytecode.md §2);
* jaxlib deserializes our artifact to the same StableHLO text as its own artifact;
* we read jaxlib's artifact back to a module that prints identically to the source.

The meaning checks run once per distinct artifact body (targets whose bytes differ only in the
producer string hold the same program).  The counts of byte-identical artifacts, per target range,
are printed (``-s``) for the notes.
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version, get_current_version
from tests.conformance.test_roundtrip import TESTDATA

COUNTS: Counter[str] = Counter()
RANGES = (
    (Version(0, 9, 0), "0.9-0.20"),
    (Version(1, 0, 0), "1.0-1.17"),
    (Version(1, 18, 0), "1.18+"),
)


def _range(target: Version) -> str:
    return [name for start, name in RANGES if target >= start][-1]


@pytest.fixture(scope="module")
def jaxlib_ctx():  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    yield jax_mlir.make_ir_context(), ir, stablehlo
    if COUNTS:
        version = stablehlo.get_current_version()
        print(f"\nMLIR bytecode vs jaxlib ({version}): {dict(sorted(COUNTS.items()))}")


def _jaxlib_version(stablehlo) -> Version:  # type: ignore[no-untyped-def]
    return Version.from_string(str(stablehlo.get_current_version()))


def _targets(stablehlo) -> list[str]:  # type: ignore[no-untyped-def]
    """Every release from 0.9.0 to the smaller of jaxlib's current version and ours."""
    top = min(_jaxlib_version(stablehlo), get_current_version())
    return [str(r.version) for r in specs.releases() if r.version <= top]


def _source(path: Path) -> str:
    text = path.read_text()
    if "chlo." not in text:
        return text
    from stablehlo_py.passes import run_pipeline

    return print_ir(run_pipeline(parse(text, "-"), [("chlo-pre-serialization-pipeline", {})]))


def _body(data: bytes) -> bytes:
    """The artifact without its producer string: the bytecode version and the sections."""
    return data[4:5] + data[data.index(b"\x00", 5) :]


def _rewrite(ir, ctx, data: bytes, target: str) -> bytes:  # type: ignore[no-untyped-def]
    with ctx:
        m = ir.Module.parse(data)
        f = io.BytesIO()
        m.operation.write_bytecode(f, desired_version=data[4] >> 1)
    out = f.getvalue()
    end = out.index(b"\x00", 4)
    return out[:5] + f"StableHLO_v{target}".encode() + out[end:]


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_bytes_and_meaning_match_jaxlib(path: Path, jaxlib_ctx) -> None:  # type: ignore[no-untyped-def]
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
        serialize_portable_artifact_str,
    )

    ctx, ir, stablehlo = jaxlib_ctx
    jaxlib_version = _jaxlib_version(stablehlo)
    as_current = jaxlib_version == get_current_version()
    text = _source(path)
    module = parse(text, "-")
    expected = print_ir(module)
    checked: set[bytes] = set()
    oldest: str | None = None
    for target in _targets(stablehlo):
        try:
            theirs = stablehlo.serialize_portable_artifact_str(text, target)
        except Exception:  # noqa: BLE001 - jaxlib refuses this target
            with pytest.raises(StableHLOError):
                serialize_portable_artifact(module, target, format="mlir")
            COUNTS["refused by both"] += 1
            continue
        plain = serialize_portable_artifact(module, target, format="mlir")
        if as_current:  # our default is jaxlib's; use_lists_as at the oldest target (below)
            ours = plain
            oldest = oldest or target
        else:
            ours = serialize_portable_artifact(
                module, target, format="mlir", use_lists_as=jaxlib_version
            )
            if plain != ours:  # the current upstream's use-list orders, same MLIR encoding
                assert _rewrite(ir, ctx, plain, target) == plain, f"{target}: not MLIR's encoding"
        assert ours == theirs, f"{target}: bytes differ from jaxlib's"
        COUNTS[f"byte-identical {_range(Version.from_string(target))}"] += 1
        body = _body(theirs)
        if body in checked:
            continue
        checked.add(body)
        with ctx:
            a = stablehlo.deserialize_portable_artifact_str(ours)
            b = stablehlo.deserialize_portable_artifact_str(theirs)
        assert a == b, f"{target}: jaxlib reads our artifact as a different program"
        got = print_ir(deserialize_portable_artifact(theirs, name=f"{path.name}@{target}"))
        assert got == expected, f"{target}: jaxlib's artifact reads back differently"
    if oldest is not None:  # the history replayed from versions, not from the conversion's marks
        assert serialize_portable_artifact(
            module, oldest, format="mlir", use_lists_as=jaxlib_version
        ) == stablehlo.serialize_portable_artifact_str(text, oldest)
        # text in, as upstream's: the buffer is "-" in the locations
        current = str(get_current_version())
        assert serialize_portable_artifact_str(
            text, current, format="mlir"
        ) == stablehlo.serialize_portable_artifact_str(text, current)


# `?` dimensions and bounds: MLIR writes them as ShapedType::kDynamic (INT64_MIN), not -1
DYNAMIC = {
    "dynamic_dims": """
func.func @main(%arg0: tensor<?x3xf32>, %arg1: tensor<i32>) -> tensor<?x3xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %1 = stablehlo.add %0, %arg1 : tensor<i32>
  %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %3 = stablehlo.concatenate %2, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %4 = stablehlo.dynamic_broadcast_in_dim %arg0, %3, dims = [0, 1] : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %4 : tensor<?x3xf32>
}
""",
    "bounded_dims": """
func.func @main(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  %0 = stablehlo.abs %arg0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  return %0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
}
""",
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_dynamic_shapes_match_jaxlib(name: str, jaxlib_ctx) -> None:  # type: ignore[no-untyped-def]
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
    )

    ctx, ir, stablehlo = jaxlib_ctx
    text = DYNAMIC[name]
    module = parse(text, "-")
    target = str(stablehlo.get_current_version())
    with ctx:
        theirs = stablehlo.serialize_portable_artifact(ir.Module.parse(text), target)
    ours = serialize_portable_artifact(
        module, target, format="mlir", use_lists_as=stablehlo.get_current_version()
    )
    assert ours == theirs
    assert print_ir(deserialize_portable_artifact(theirs)) == print_ir(module)


def test_jax_shape_polymorphic_artifact_reads_and_runs() -> None:
    """`jax.export`'s serialized artifact of a shape-polymorphic function (its `?` dimensions on the
    wire as kDynamic) reads back and runs."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export
    from stablehlo_py.interpreter import run
    from stablehlo_py.serialization import deserialize_portable_artifact

    exp = export.export(jax.jit(lambda x: jnp.cos(x).sum(0) * x.shape[0]))(
        jax.ShapeDtypeStruct(export.symbolic_shape("b, 3"), np.float32)
    )
    module = deserialize_portable_artifact(exp.mlir_module_serialized)
    assert "tensor<?x3xf32>" in print_ir(module)
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
    (got,) = run(module, x)
    np.testing.assert_allclose(got, np.asarray(exp.call(x)), rtol=1e-5, atol=1e-6)


def test_patch_target_kept_in_producer(jaxlib_ctx) -> None:  # type: ignore[no-untyped-def]
    """A target with a patch (``1.16.3``) has X.Y.0's opset and keeps its patch in the producer
    string (``StableHLO_v1.16.3``), as upstream's; byte-identical, text in and module in."""
    from stablehlo_py.serialization import (
        serialize_portable_artifact,
        serialize_portable_artifact_str,
    )

    ctx, ir, stablehlo = jaxlib_ctx
    text = DYNAMIC["dynamic_dims"]
    target = "1.16.3"
    theirs = stablehlo.serialize_portable_artifact_str(text, target)
    assert theirs[5:].startswith(b"StableHLO_v1.16.3\x00")
    history = _jaxlib_version(stablehlo)
    module = parse(text, "-")
    ours = serialize_portable_artifact(module, target, format="mlir", use_lists_as=history)
    assert ours == theirs
    if history == get_current_version():
        assert serialize_portable_artifact_str(text, target, format="mlir") == theirs
