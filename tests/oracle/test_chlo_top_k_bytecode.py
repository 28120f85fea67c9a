"""`chlo.top_k`'s `is_stable` and `custom_call`'s `result_tilings` against jaxlib, in text and in
plain MLIR bytecode (`stablehlo-opt -emit-bytecode`, `Operation.write_bytecode`).

Both attributes are inherent (properties) in upstream's ODS since StableHLO 1.19.0 (`is_stable`,
`DefaultValuedOptionalAttr<BoolAttr, "true">`) and 1.18.0 (`result_tilings`), so a properties
record of these ops has one more entry than in older releases, and a reader must know which it
reads.  The expectation depends on the jaxlib, decided by its `get_current_version()`:

* jaxlib 0.12 (StableHLO 1.22.0): our bytes are jaxlib's bytes, load in jaxlib and print as the
  source prints there; jaxlib's bytes read back in ours.
* jaxlib 0.10 (StableHLO 1.17.0): jaxlib's ODS lacks both attributes (its parser refuses
  `is_stable = false`): its bytes (the older layout) read back in ours; ours have the newer layout,
  which it cannot read, so they are read back by ours only.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from stablehlo_py.serialization.mlirbc import read_dialect, write_dialect

from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify


def _jaxlib_version() -> tuple[int, ...]:
    from jaxlib.mlir.dialects import stablehlo

    return tuple(int(x) for x in str(stablehlo.get_current_version()).split("."))


JAXLIB = _jaxlib_version()
HAS_IS_STABLE = JAXLIB >= (1, 19, 0)
HAS_RESULT_TILINGS = JAXLIB >= (1, 18, 0)

TOP_K = """func.func @main(%x: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {{
  %v, %i = chlo.top_k(%x, k = 3{extra}) : tensor<2x8xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi32>
}}
"""
CUSTOM_CALL = """func.func @main(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {{
  %0 = stablehlo.custom_call @tiled(%x) {{api_version = 2 : i32{extra}}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}}
"""
TILINGS = (
    ", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : "
    "tensor<2xindex>], result_tilings = [[dense<[8, 128]> : tensor<2xindex>]]"
)
# (name, text, how jaxlib reads the text: "ok"; "refused" (its syntax has no `is_stable`);
# "discardable" (an attribute its ODS does not know, kept in the op's attribute dictionary))
PROGRAMS = [
    ("top_k", TOP_K.format(extra=""), "ok"),
    (
        "top_k stable",
        TOP_K.format(extra=", is_stable = true"),
        "ok" if HAS_IS_STABLE else "refused",
    ),
    (
        "top_k unstable",
        TOP_K.format(extra=", is_stable = false"),
        "ok" if HAS_IS_STABLE else "refused",
    ),
    ("custom_call", CUSTOM_CALL.format(extra=""), "ok"),
    (
        "custom_call tilings",
        CUSTOM_CALL.format(extra=TILINGS),
        "ok" if HAS_RESULT_TILINGS else "discardable",
    ),
]
# whether jaxlib's properties layout of the op is upstream's 1.20.0 one (ours)
NEWEST_LAYOUT = {"top_k": HAS_IS_STABLE, "custom_call": HAS_RESULT_TILINGS}


@pytest.fixture(scope="module")
def jaxlib():  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    return jax_mlir.make_ir_context(), ir


def _jax_parse(jaxlib, source: str | bytes):  # type: ignore[no-untyped-def]
    ctx, ir = jaxlib
    with ctx:
        return ir.Module.parse(source)


def _jax_bytes(jaxlib, source: str | bytes) -> bytes:  # type: ignore[no-untyped-def]
    ctx, _ = jaxlib
    with ctx:
        f = io.BytesIO()
        _jax_parse(jaxlib, source).operation.write_bytecode(f)
        return f.getvalue()


def _producer(data: bytes) -> str:
    """The producer string of MLIR bytecode (jaxlib 0.12's MLIR is newer than jaxlib 0.10's)."""
    from stablehlo_py.serialization.mlirbc.encoding import Reader

    r = Reader(data, 4)
    r.varint()
    return r.cstring().decode()


def _jax_text(jaxlib, source: str | bytes, generic: bool = False) -> str:  # type: ignore[no-untyped-def]
    ctx, _ = jaxlib
    with ctx:
        return _jax_parse(jaxlib, source).operation.get_asm(print_generic_op_form=generic)


@pytest.mark.parametrize(("name", "text", "jaxlib_reads"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_text_and_bytecode_vs_jaxlib(jaxlib, name: str, text: str, jaxlib_reads: str) -> None:  # type: ignore[no-untyped-def]
    module = parse(text, "-")
    verify(module)
    ours = write_dialect(module)
    # ours read back in ours: the same program
    _, _, back = read_dialect(ours)
    assert print_ir(back) == print_ir(module)
    assert print_ir(back, generic=True) == print_ir(module, generic=True)
    if jaxlib_reads == "refused":
        with pytest.raises(Exception, match=r"expected '\)'"):
            _jax_parse(jaxlib, text)
        return
    theirs = _jax_bytes(jaxlib, text)
    # jaxlib's bytes (its layout, whichever release) read back in ours
    _, _, from_jaxlib = read_dialect(theirs)
    assert print_ir(from_jaxlib) == print_ir(module)
    assert print_ir(from_jaxlib, generic=True) == print_ir(module, generic=True)
    # both print the text alike (pretty; generic where jaxlib's ODS has the attribute)
    assert _jax_text(jaxlib, text) == print_ir(module)
    if jaxlib_reads == "ok":
        assert _jax_text(jaxlib, text, generic=True) == print_ir(module, generic=True)
    if NEWEST_LAYOUT[name.split()[0]]:
        # jaxlib 0.12: byte for byte, and ours load there
        assert write_dialect(module, producer=_producer(theirs)) == theirs
        assert _jax_text(jaxlib, ours) == print_ir(module)
        assert _jax_text(jaxlib, ours, generic=True) == print_ir(module, generic=True)
    else:
        # jaxlib 0.10: its record lacks the entry (or holds the attribute as a discardable one)
        assert ours != theirs


def test_jax_lowering_of_top_k(jaxlib) -> None:  # type: ignore[no-untyped-def]
    """What `lax.top_k` lowers to reads, prints as JAX prints it and runs as XLA runs it."""
    from jax import lax

    x = np.array([[3, 1, 3, 2, 3, 0, 1, 2], [0, 0, 5, 5, 1, 1, 2, 2]], np.float32)
    variants = [{}]
    if HAS_IS_STABLE:
        variants += [{"is_stable": True}, {"is_stable": False}]
    for kw in variants:
        lowered = jax.jit(lambda a, kw=kw: lax.top_k(a, 3, **kw)).lower(x)
        text = lowered.as_text()
        assert "chlo.top_k" in text
        assert ("is_stable = false" in text) == (kw.get("is_stable") is False)
        module = parse(text, "-")
        verify(module)
        assert print_ir(module) == _jax_text(jaxlib, text)
        values, indices = run(module, x)
        want_v, want_i = lowered.compile()(x)
        np.testing.assert_array_equal(values, np.asarray(want_v))
        np.testing.assert_array_equal(indices, np.asarray(want_i))  # ties: lower index first
