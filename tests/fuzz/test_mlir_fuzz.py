"""Bad MLIR bytecode never escapes (issue 9 item 7): mutated portable artifacts in upstream's format
(truncated, bit-flipped, spliced, random, structurally edited with their lengths fixed up) are read
or refused with the toolkit's own error, never another exception, a hang or an unbounded
allocation; plus one exact test (message and byte offset) per structural kind of damage.

``bench/fuzz_artifacts.py --format mlir`` runs >= 1M cases with the seeds of this file."""

from __future__ import annotations

import functools
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stablehlo_py.serialization import (
    check_compat,
    deserialize_portable_artifact,
    deserialize_portable_artifact_str,
    get_portable_artifact_version,
    serialize_portable_artifact_str,
)
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader, varint_bytes
from stablehlo_py.serialization.mlirbc.reader import EXPANSION_BUDGET, MAX_NESTING

from stablehlo_py.errors import SerializationError, StableHLOError
from tests.fuzz import mlir_fuzzing as mf
from tests.fuzz.mlir_fuzzing import _BUILTIN, _VHLO, _v

CASES = int(os.environ.get("STABLEHLO_PY_FUZZ_CASES", "10000"))

# Every dtype kind (i1 packed and splat, sub-byte, unsigned, complex, f8, NaN payloads, empty), two
# functions and a call, module attributes, result attributes, and locations of every kind:
# file:line:col, names (with and without a child), callsite (nested), fused, and -- from 1.9.0 --
# file ranges.  RANGE1/RANGE2 are replaced per target.
SEED_A = """module @seed_a attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i64, jax.uses_shape_polymorphism = false} {
  func.func public @main(%arg0: tensor<2xf32> loc("x"), %arg1: tensor<i32> loc("y.py":1:2)) -> (tensor<2xf32> {jax.result_info = "out"}) {
    %c0 = stablehlo.constant dense<[true, false, true, true, false, false, false, false, true]> : tensor<9xi1> RANGE1
    %c1 = stablehlo.constant dense<[-8, 7, 0, 1]> : tensor<4xi4> RANGE2
    %c2 = stablehlo.constant dense<[255, 0]> : tensor<2xui8> loc(fused["a.py":1:1, "b"])
    %c3 = stablehlo.constant dense<[-1, 65535]> : tensor<2xi64> loc(callsite("f"("q.py":7:7) at callsite("g" at "r.py":8:8)))
    %c4 = stablehlo.constant dense<(1.5, -2.0)> : tensor<complex<f32>> loc("n"("p.py":2:3))
    %c5 = stablehlo.constant dense<[0x7E, 0x80, 0x01]> : tensor<3xf8E4M3FN>
    %c6 = stablehlo.constant dense<[1.0, 0x7C01]> : tensor<2xf16>
    %c7 = stablehlo.constant dense<[1.0, -0.0]> : tensor<2xbf16>
    %c8 = stablehlo.constant dense<0x7FF8000000000001> : tensor<f64>
    %c9 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui16>
    %c10 = stablehlo.constant dense<> : tensor<0xi32>
    %c11 = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f64>>
    %c12 = stablehlo.constant dense<7> : tensor<3xui32>
    %c13 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf8E5M2> loc(fused<"meta">["a.py":1:1, "b.py":2:2])
    %c14 = stablehlo.constant dense<true> : tensor<4xi1>
    %cst = stablehlo.constant dense<[1.0, 0x7FC00001]> : tensor<2xf32> loc("f.py":3:1)
    %0 = stablehlo.add %arg0, %cst : tensor<2xf32> loc("jit(f)/add"("f.py":4:2))
    %1 = call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2xf32>
    return %4 : tensor<2xf32>
  }
  func.func private @helper(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.transpose %arg0, dims = [0] : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.custom_call @foo(%0) {backend_config = "\\08\\03\\1A\\02", mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
"""

# Regions: while (isolated or not), if and case capturing values (inline regions), sort with block
# argument locations, reduce.
SEED_B = """module {
  func.func @main(%a: tensor<4xf32>, %i: tensor<i32>, %p: tensor<i1>) -> tensor<f32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%x = %a, %n = %c) : tensor<4xf32>, tensor<i32>
    cond {
      %1 = stablehlo.compare  LT, %n, %i,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.multiply %x, %x : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %n, %one : tensor<i32>
      stablehlo.return %1, %2 : tensor<4xf32>, tensor<i32>
    } loc(callsite("loop"("f.py":5:1) at "g.py":9:9))
    %3 = "stablehlo.if"(%p) ({
      stablehlo.return %0#0 : tensor<4xf32>
    }, {
      %4 = stablehlo.negate %0#0 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    %5 = "stablehlo.case"(%i) ({
      stablehlo.return %3 : tensor<4xf32>
    }, {
      %6 = stablehlo.abs %a : tensor<4xf32>
      stablehlo.return %6 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %7 = "stablehlo.sort"(%5) ({
    ^bb0(%l: tensor<f32> loc("l"), %r: tensor<f32>):
      %8 = stablehlo.compare  GT, %l, %r,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>) -> tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %9 = stablehlo.reduce(%7 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %9 : tensor<f32>
  }
}
"""

TARGETS = ("0.9.0", "0.10.0", "0.12.0", "0.14.0", "1.0.0", "current")
"""MLIR bytecode versions 0, 1, 3, 4, 6 and 6 (properties; the newest VHLO forks)."""


def program(text: str, target: str) -> str:
    new = target == "current"  # file ranges (FileLineColRange) exist from 1.9.0
    return text.replace("RANGE1", 'loc("c.py":3:1 to :9)' if new else "").replace(
        "RANGE2", 'loc("c.py":4:1 to 5:2)' if new else ""
    )


@functools.cache
def seeds() -> tuple[bytes, ...]:
    """SEED_A and SEED_B at every target, plus what jaxlib writes when jax is importable."""
    own = [
        serialize_portable_artifact_str(program(p, t), t, format="mlir")
        for p in (SEED_A, SEED_B)
        for t in TARGETS
    ]
    return (*own, *jax_seeds())


@functools.cache
def jax_seeds() -> tuple[bytes, ...]:
    """``jax.export``'s module (JAX's target, deep NameLoc/CallSiteLoc chains over file ranges) and
    jaxlib's ``serialize_portable_artifact`` of it at 1.0.0; none without jax."""
    try:
        import jax
        import jax.numpy as jnp
        from jax import export
        from jaxlib.mlir.dialects import stablehlo
    except ImportError:
        return ()

    def f(x, y):
        z = jnp.sin(x) @ y.T
        z = jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, z)
        return jnp.sum(jnp.sort(z, axis=-1), axis=0), jnp.where(z > 0, z, 0).astype(jnp.bfloat16)

    spec = jax.ShapeDtypeStruct
    exp = export.export(jax.jit(f))(spec((8, 16), jnp.float32), spec((4, 16), jnp.float32))
    return (
        bytes(exp.mlir_module_serialized),
        bytes(stablehlo.serialize_portable_artifact_str(exp.mlir_module(), "1.0.0")),
    )


def _readers() -> list:
    return [
        (deserialize_portable_artifact, 1),
        (get_portable_artifact_version, 1),
        (lambda d: check_compat(d, "current"), 16),
        (lambda d: check_compat(d, "0.9.0"), 16),
    ]


# =============================================================================================
# Seeds and the mutation engine


def test_seeds_cover_every_bytecode_version_and_read_back() -> None:
    versions = set()
    for data in seeds():
        versions.add(Reader(data, 4).varint())
        deserialize_portable_artifact(data)
    assert {0, 1, 3, 4, 6} <= versions


def test_a_length_fix_up_keeps_the_artifact_readable() -> None:
    """Growing a string by 300 bytes re-encodes its size, then the string section's length."""
    data = seeds()[5]
    lay = mf.analyse(data)
    img = mf.Image(lay)
    i = next(
        i
        for i, f in enumerate(lay.fields)
        if f.kind == "string" and data[f.start : f.end] == b"f.py\x00"
    )
    img.replace(int(img.st[i]), int(img.st[i]) + 1, b"f" * 300)
    module = deserialize_portable_artifact(img.bytes())
    locs = [str(getattr(op.location, "data", "")) for op in module.walk()]
    assert '"' + "f" * 300 + '.py":3:1' in locs


# =============================================================================================
# The CI fuzz run


def test_mutated_mlir_artifacts_raise_only_toolkit_errors() -> None:
    t0 = time.process_time()
    result = mf.run(seeds(), CASES, seed=20260523, readers=_readers(), slow=5.0)
    assert result.cases == CASES
    assert not result.findings, "\n".join(
        f"{why}\n  input: {data[:120]!r}" for data, why in result.findings[:5]
    )
    assert result.refused > CASES // 2  # most mutations are caught
    assert result.accepted > 0  # some (a flipped constant byte) are still valid programs
    assert time.process_time() - t0 < 120


def test_deep_and_shared_artifacts_are_refused_quickly() -> None:
    for what, data in mf.deep_artifacts(3000):
        for read in (deserialize_portable_artifact, lambda d: check_compat(d, "0.9.0")):
            t0 = time.process_time()
            with pytest.raises(StableHLOError):
                read(data)
            assert time.process_time() - t0 < 2.0, what


HEADER = b"ML\xefR\x0dStableHLO_v1.0.0\x00"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_after_a_valid_header(body: bytes) -> None:
    for read in (deserialize_portable_artifact, get_portable_artifact_version):
        try:
            read(HEADER + body)
        except StableHLOError:
            pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=12), st.integers(0, 12))
def test_reader_primitives_raise_only_bytecode_errors(data: bytes, at: int) -> None:
    for op in (
        lambda r: r.varint(),
        lambda r: r.svarint(),
        lambda r: r.count(2, "items"),
        lambda r: r.section_header(),
        lambda r: r.cstring(),
        lambda r: r.apint(7),
        lambda r: r.apint(33),
        lambda r: r.apint(130),
        lambda r: r.bytes(r.varint()),
    ):
        r = Reader(data, min(at, len(data)))
        try:
            op(r)
        except BytecodeError as e:
            assert 0 <= e.offset <= len(data)
        else:
            assert r.pos <= len(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_varint_set_to_any_value(data: st.DataObject) -> None:
    """Hypothesis picks a seed, one of its varints and a new value (shrinking to the simplest)."""
    small = seeds()[6:12]  # SEED_B: cheap to read
    i = data.draw(st.integers(0, len(small) - 1))
    lay = _layout(i + 6)
    v = data.draw(st.integers(0, len(lay.varints) - 1))
    value = data.draw(
        st.one_of(
            st.integers(0, 300), st.sampled_from(mf.INTERESTING_VALUES), st.integers(0, 2**64 - 1)
        )
    )
    img = mf.Image(lay)
    var = lay.varints[v]
    img.replace(var.pos, var.pos + var.size, varint_bytes(value))
    try:
        deserialize_portable_artifact(img.bytes())
    except StableHLOError:
        pass


@functools.cache
def _layout(i: int) -> mf.Layout:
    return mf.analyse(seeds()[i])


# =============================================================================================
# Each kind of structural damage: the exact message and byte offset


def _refusal(data: bytes, header_ok: bool = True, check_compat_too: bool = True) -> tuple[str, int]:
    """(message, offset) of the SerializationError that reading ``data`` raises, the same from
    ``deserialize_portable_artifact`` and (for damage the decoder sees) ``check_compat``; the
    version still reads from the header."""
    got = []
    readers = [deserialize_portable_artifact]
    if check_compat_too:
        readers.append(lambda d: check_compat(d, "0.9.0"))
    for read in readers:
        t0 = time.process_time()
        with pytest.raises(SerializationError) as e:
            read(data)
        assert time.process_time() - t0 < 2.0
        got.append((e.value.message, getattr(e.value, "offset", None)))
    assert got[0] == got[-1]
    if header_ok:
        get_portable_artifact_version(data)
    return got[0]


def _invalid_program(data: bytes) -> str:
    """The message of deserialize_portable_artifact's refusal of ``data``."""
    with pytest.raises(SerializationError) as e:
        deserialize_portable_artifact(data)
    return e.value.message


def _section(data: bytes, sid: int) -> tuple[int, int, int]:
    """(header start, body start, end) of top-level section ``sid``."""
    _, secs = mf.top_sections(data)
    for start, _end in secs:
        got, body, end = Reader(data, start).section_header()
        if got == sid:
            return start, body, end
    raise AssertionError(sid)


def _set_varint(lay: mf.Layout, pos: int, value: int, fix: bool = True) -> bytes:
    """``lay``'s artifact with the varint at ``pos`` set to ``value`` (lengths fixed up)."""
    var = next(v for v in lay.varints if v.pos == pos)
    img = mf.Image(lay)
    img.replace(pos, pos + var.size, varint_bytes(value), fix)
    return img.bytes()


@pytest.fixture(scope="module")
def current() -> mf.Layout:
    return _layout(5)  # SEED_A at the current version (bytecode version 6)


def test_truncated_header() -> None:
    assert _refusal(seeds()[5][:10], header_ok=False) == (
        "MLIR bytecode truncated inside its header",
        10,
    )


def test_truncated_inside_a_section(current: mf.Layout) -> None:
    start, body, end = _section(current.data, 2)
    assert _refusal(current.data[: body + 5]) == (
        f"the attribute/type section declares {end - body} bytes but only 5 remain",
        start,
    )


def test_truncated_nine_byte_varint(current: mf.Layout) -> None:
    start, body, end = _section(current.data, 0)
    data = current.data[:body] + b"\x00\xff\xff"  # the string count, cut inside its 9 bytes
    assert _refusal(data) == (
        f"the string section declares {end - body} bytes but only 3 remain",
        start,
    )
    # the same with the section's length fixed: the varint itself is cut
    data = current.data[: start + 1] + b"\x07\x00\xff\xff" + current.data[end:]
    assert _refusal(data) == ("truncated 9-byte varint in the string section", start + 2)


def test_varint_replaced_by_a_huge_count(current: mf.Layout) -> None:
    _, body, end = _section(current.data, 0)
    data = _set_varint(current, body, 1 << 40)  # the string count
    assert _refusal(data) == (
        (
            f"a list of {1 << 40} strings cannot fit in the {end - body - 1} bytes left in the "
            "string section"
        ),
        body,
    )


def test_varint_replaced_by_the_largest_value(current: mf.Layout) -> None:
    _, body, _ = _section(current.data, 3)
    data = _set_varint(current, body, 2**64 - 1)  # the attribute count, 9 bytes
    left = _section(data, 3)[2] - body - 9
    assert _refusal(data) == (
        (
            f"a list of {2**64 - 1} attributes cannot fit in the {left} bytes left in the "
            "attribute/type offset section"
        ),
        body,
    )


def test_section_length_changed(current: mf.Layout) -> None:
    start, body, end = _section(current.data, 8)  # the last section
    data = _set_varint(current, start + 1, end - body + 1, fix=False)
    assert _refusal(data) == (
        f"the properties section declares {end - body + 1} bytes but only {end - body} remain",
        start,
    )
    start, body, end = _section(current.data, 1)  # the first: the next header is misread
    data = _set_varint(current, start + 1, end - body + 1, fix=False)
    message, offset = _refusal(data)
    assert offset == end + 1 and message.startswith("a section with the unknown id"), message


def test_duplicate_and_missing_sections(current: mf.Layout) -> None:
    data = current.data
    start, _, end = _section(data, 1)
    assert _refusal(data[:end] + data[start:end] + data[end:]) == ("duplicate dialect section", end)
    s0, _, e0 = _section(data, 0)
    assert _refusal(data[:s0] + data[e0:]) == ("missing string section", len(data) - (e0 - s0))
    s5, _, e5 = _section(data, 5)
    assert _refusal(data[:s5] + data[e5:]) == (
        "resource and resource offset sections must both be present",
        len(data) - (e5 - s5),
    )
    s8, _, _ = _section(data, 8)
    assert _refusal(data[:s8]) == (
        "missing properties section (required from bytecode version 5)",
        s8,
    )


def test_counts_changed(current: mf.Layout) -> None:
    _, body, end = _section(current.data, 3)
    n_attrs = len(current.attr_entries)
    data = _set_varint(current, body, n_attrs + 1)
    message, offset = _refusal(data)
    assert message.startswith("a group lists ") and message.endswith(
        f"entries but only 1 of the {n_attrs + 1} attributes remain in the attribute/type offset "
        "section"
    )
    assert body < offset < end
    data = _set_varint(current, body + 1, len(current.type_entries) + 1)  # the type count
    assert _refusal(data) == (
        "unexpected end of data (expected a varint) in the attribute/type offset section",
        end,
    )


def test_references_out_of_range(current: mf.Layout) -> None:
    _, body, _ = _section(current.data, 4)
    r = Reader(current.data, body)
    r.varint()  # one top-level op
    r.varint()  # its name
    r.byte()  # its mask
    loc = r.pos
    n = len(current.attr_entries)
    assert _refusal(_set_varint(current, loc, n)) == (
        f"attribute index {n} out of range ({n} attributes)",
        loc,
    )
    assert _refusal(_set_varint(current, body + 1, 1 << 20)) == (
        f"op name index {1 << 20} out of range in the IR section",
        body + 1,
    )
    refs = [v for v in current.varints if v.ref and v.ref[0] == "type" and v.owner is None]
    t = refs[0]  # a type reference of an op (a result or block argument type)
    k = len(current.type_entries)
    assert _refusal(_set_varint(current, t.pos, (k + 5) << t.ref[2])) == (
        f"type index {k + 5} out of range ({k} types)",
        t.pos,
    )


def test_self_referencing_attribute_and_type(current: mf.Layout) -> None:
    data = current.data
    name_locs = [  # the child reference of a NameLoc (builtin code 14)
        v
        for v in current.varints
        if v.ref
        and v.owner
        and v.owner[0] == "attr"
        and v.ref[0] == "attr"
        and data[current.attr_entries[v.owner[1]][0]] == 0x1D
    ]
    v = name_locs[-1]
    start = current.attr_entries[v.owner[1]][0]
    assert _refusal(_set_varint(current, v.pos, v.owner[1])) == (
        "an attribute refers to itself (a reference cycle)",
        start,
    )
    elements = [  # the element type of a tensor type
        v
        for v in current.varints
        if v.ref and v.owner and v.owner[0] == "type" and v.ref[0] == "type"
    ]
    v = elements[0]
    start = current.type_entries[v.owner[1]][0]
    assert _refusal(_set_varint(current, v.pos, v.owner[1])) == (
        "a type refers to itself (a reference cycle)",
        start,
    )


def _nested_arrays(depth: int) -> bytes:
    """vhlo.func_v1 with a discardable attribute of ``depth`` nested #vhlo.array_v1 around []."""
    extra = [(_VHLO, _v(1, 1, 7 + i - 1 if i else 2)) for i in range(depth)]
    extra.append((_BUILTIN, _v(1, 1, 1, 7 + depth - 1)))
    return mf.func_artifact(extra, attr_dict=7 + depth)


def test_deep_nesting() -> None:
    deserialize_portable_artifact(_nested_arrays(MAX_NESTING - 2))  # dictionary, arrays, []
    data = _nested_arrays(MAX_NESTING - 1)
    assert _refusal(data) == (
        (
            f"attribute nests more than {MAX_NESTING} levels deep (attributes and types inside "
            "each other), which this toolkit does not support"
        ),
        _entry_start(data, 7 + MAX_NESTING - 1),
    )
    deep = dict(mf.deep_artifacts(3000))
    message, _ = _refusal(deep["deep nested modules (v6)"])
    assert message == (
        f"regions nest more than {MAX_NESTING} levels deep, which this toolkit does not support in "
        "the IR section"
    )
    for what in ("deep NameLoc chain", "deep forward NameLoc chain", "deep nested arrays"):
        message, _ = _refusal(deep[what])
        assert message == "attribute and type references nest more than 1500 levels deep", what


def _entry_start(data: bytes, idx: int, is_type: bool = False) -> int:
    """Where attribute (or type) ``idx`` starts in the attribute/type section."""
    _, body, _ = _section(data, 3)
    _, dpos, _ = _section(data, 2)
    r = Reader(data, body)
    n_attrs = r.varint()
    r.varint()  # the type count
    want = idx + (n_attrs if is_type else 0)
    seen = 0
    while True:
        r.varint()
        for _ in range(r.varint()):
            if seen == want:
                return dpos
            dpos += r.varint() >> 1
            seen += 1


def test_exponentially_shared_attributes_are_refused_at_once() -> None:
    data = mf.shared_vhlo_arrays(64)  # attribute 7 + k holds 2**(k + 2) - 1 arrays
    budget = EXPANSION_BUDGET + 16 * len(data)
    k = next(k for k in range(64) if 2 ** (k + 2) - 1 > budget)
    assert _refusal(data) == (
        (
            f"attribute expands to more than {budget} values (sub-attributes shared "
            "exponentially); refusing to expand it"
        ),
        _entry_start(data, 7 + k),
    )


def test_splat_tensor_standing_for_a_huge_dimension_list(current: mf.Layout) -> None:
    data = current.data
    # tensor<1xi64>, the type of transpose's permutation: [1] becomes [2**40]
    t = next(
        i for i, (s, _) in enumerate(current.type_entries) if data[s : s + 3] == b"\x29\x03\x05"
    )
    s = current.type_entries[t][0]
    img = mf.Image(current)
    img.replace(s + 2, s + 3, varint_bytes(2 << 40))
    message, _ = _refusal(img.bytes())
    assert message == (
        f"attribute 'permutation' of vhlo.transpose_v1 holds a splat tensor standing for {1 << 40} "
        "elements; outside constant values tensors are limited to 65536 elements stored as one"
    )


def test_builtin_values_inside_vhlo_ones() -> None:
    data = mf.func_artifact(
        [(_VHLO, _v(17, 1))], extra_types=[(_BUILTIN, _v(0, 32 << 2))], props=(2, 7, 2, 3, 4)
    )
    assert _refusal(data) == (
        "expected a VHLO type reference, found builtin integer_type",
        _entry_start(data, 7),
    )
    data = mf.func_artifact([(_VHLO, _v(1, 1, 0))], props=(7, 5, 2, 3, 4))
    assert _refusal(data) == (
        "expected a VHLO attribute reference, found a location",
        _entry_start(data, 7),
    )


def test_region_declaring_more_values_than_bytes(current: mf.Layout) -> None:
    _, body, _ = _section(current.data, 4)
    r = Reader(current.data, body)
    r.varint(), r.varint(), r.byte(), r.varint(), r.varint(), r.varint(), r.varint()
    _, sub, _ = r.section_header()  # the module's region (lazy-loading section)
    r = Reader(current.data, sub)
    r.varint()  # one block
    at = r.pos
    data = _set_varint(current, at, 1 << 40)
    message, offset = _refusal(data)
    assert (message, offset) == (
        f"{1 << 40} values cannot be defined in the bytes left in the IR section",
        at,
    )


def test_newer_bytecode_version(current: mf.Layout) -> None:
    data = current.data[:4] + b"\x0f" + current.data[5:]
    assert _refusal(data) == (
        (
            "MLIR bytecode version 7 is newer than this reader supports (0..6); the artifact's "
            f"producer is 'StableHLO_v{get_portable_artifact_version(data)}'"
        ),
        4,
    )


def test_non_utf8_string_in_a_program_that_does_not_verify(current: mf.Layout) -> None:
    """xDSL's diagnostic printer cannot print non-UTF-8 strings: the verification error is still
    the one reported."""
    data = current.data
    img = mf.Image(current)
    i = next(
        i
        for i, f in enumerate(current.fields)
        if f.kind == "string" and data[f.start : f.end] == b"{replicated}\x00"
    )
    img.replace(int(img.st[i]), int(img.st[i]) + 1, b"\xff")
    deserialize_portable_artifact(img.bytes())  # reads (the string keeps its byte)
    # the first constant's value swapped for the second's (another type): it does not verify
    props = _section(data, 8)
    tensors = [
        (i, v)
        for i, v in enumerate(current.varints)
        if props[1] <= v.pos < props[2]
        and v.ref
        and data[current.attr_entries[v.ref[1]][0]] == 0x1F
    ]
    (i, a), (_, b) = tensors[0], tensors[1]
    img.replace(int(img.vp[i]), int(img.vp[i]) + a.size, varint_bytes(b.value))
    assert _invalid_program(img.bytes()).startswith(
        "the artifact decodes, but its program is not valid: 'stablehlo.constant' op inferred "
        "type(s) 'tensor<4xi4>' are incompatible with return type(s) of operation 'tensor<9xi1>'"
    ), e.value.message


def test_float_attribute_of_a_type_without_values() -> None:
    """A builtin FloatAttr of tf32 (no value representation here) is refused with its offset."""
    data = mf.func_artifact(
        [(_BUILTIN, _v(9, 1, 2)), (_BUILTIN, _v(1, 1, 1, 7))],
        attr_dict=8,
        extra_types=[(_BUILTIN, _v(21))],
    )
    assert _refusal(data) == (
        "a float attribute of type tf32 is not supported",
        _entry_start(data, 7),
    )


def test_producer_version_with_huge_numbers() -> None:
    """A producer whose numbers are no version names none: the header gives no version (as
    upstream's getPortableArtifactVersion fails), the artifact still reads (as upstream's
    deserializer parses any bytecode), versioned by its ops."""
    data = b"ML\xefR\x0dStableHLO_v" + b"9" * 5000 + b".0.0\x00" + seeds()[5][23:]
    with pytest.raises(SerializationError) as e:
        get_portable_artifact_version(data)
    assert e.value.offset == 5  # type: ignore[attr-defined]
    assert e.value.message == (
        f"the producer of this MLIR bytecode is 'StableHLO_v{'9' * 66}...', which names no "
        "StableHLO version (a portable artifact's is 'StableHLO_vX.Y.Z'), so the version cannot "
        "be read from its header"
    )
    assert deserialize_portable_artifact_str(data) == deserialize_portable_artifact_str(seeds()[5])


def test_wide_integers_read_in_linear_time() -> None:
    words = 200_000  # a 12.8M-bit APInt (MLIR's widest integer type has 2**24 - 1 bits)
    data = varint_bytes(words) + varint_bytes(2) * words
    t0 = time.process_time()
    value = Reader(data).apint(2**24 - 1)
    assert time.process_time() - t0 < 2.0
    assert value == int.from_bytes(b"\x01" + b"\x00" * 7, "little") * (
        (2 ** (64 * words) - 1) // (2**64 - 1)
    )


CONV = """func.func @main(%x: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32>
  return %0 : tensor<1x2x2x5xf32>
}
"""


def test_convolution_dimension_out_of_range() -> None:
    """A dimension number beyond the rank is a program error, not an IndexError of the conversion."""
    data = serialize_portable_artifact_str(CONV, "current", format="mlir")
    lay = mf.analyse(data)
    # #vhlo.integer_v1<3 : i64> (the feature dimensions): its APInt, zigzagged, is the varint 6
    var = next(
        v
        for v in lay.varints
        if v.owner
        and v.owner[0] == "attr"
        and v.value == 6
        and data[lay.attr_entries[v.owner[1]][0]] == 0x13
    )
    img = mf.Image(lay)
    img.replace(var.pos, var.pos + var.size, varint_bytes(2 * 9043969))
    assert _invalid_program(img.bytes()) == (
        "the artifact decodes, but its program is not valid: failed to legalize operation "
        "'vhlo.convolution_v1' that was explicitly marked illegal: 'dimension_numbers': "
        "convolution dimension 9043969 is out of range or repeated for rank 4"
    )


def test_dimension_list_of_floats(current: mf.Layout) -> None:
    """transpose's permutation as a tensor of f64 NaN: refused by name, not a ValueError of int()."""
    data = current.data
    types = current.type_entries
    perm = next(i for i, (s, _) in enumerate(types) if data[s : s + 3] == b"\x29\x03\x05")
    f64 = next(i for i, (s, e) in enumerate(types) if data[s:e] == b"\x0b")
    elem = next(v for v in current.varints if v.owner == ("type", perm) and v.ref)
    tensor = next(  # #vhlo.tensor_v1 (code 15) of that type: 1f <type> 11 <8 bytes>
        s for s, e in current.attr_entries if data[s] == 0x1F and data[s + 1] == 2 * perm + 1
    )
    img = mf.Image(current)
    img.replace(tensor + 3, tensor + 11, b"\x01\x00\x00\x00\x00\x00\xf8\x7f")  # a NaN
    img.replace(
        int(img.vp[current.varints.index(elem)]),
        int(img.vp[current.varints.index(elem)]) + elem.size,
        varint_bytes(f64),
    )
    assert _invalid_program(img.bytes()) == (
        "the artifact decodes, but its program is not valid: failed to legalize operation "
        "'vhlo.transpose_v1' that was explicitly marked illegal: 'permutation' must be a tensor "
        "of integers"
    )


COMPLEX = """func.func @main(%a: tensor<2xcomplex<f32>>, %b: tensor<3xf32>) -> tensor<2xcomplex<f32>> {
  %0 = stablehlo.negate %a : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
"""


def test_complex_of_a_tensor() -> None:
    """!vhlo.complex_v1 of a tensor decodes (VHLO does not constrain it) but has no StableHLO type;
    in a dense value the decoder already refuses it."""
    data = serialize_portable_artifact_str(COMPLEX, "current", format="mlir")
    lay = mf.analyse(data)
    types = lay.type_entries
    cplx = next(i for i, (s, _) in enumerate(types) if data[s] == 0x03)  # complex_v1 (code 1)
    tensor = next(  # tensor<3xf32>: a tensor_v1 (code 20) of rank 1, dimension 3
        i for i, (s, _) in enumerate(types) if data[s : s + 3] == b"\x29\x03\x0d"
    )
    elem = next(v for v in lay.varints if v.owner == ("type", cplx) and v.ref)
    message, _ = _refusal(_set_varint(lay, elem.pos, tensor), check_compat_too=False)
    assert message == (
        "the artifact decodes, but its program is not valid: failed to legalize operation "
        "'vhlo.func_v1' that was explicitly marked illegal: no builtin counterpart for "
        "!vhlo.complex_v1<!vhlo.tensor_v1<3x!vhlo.f32_v1>>"
    )
    current = _layout(5)  # SEED_A: the complex type of a constant
    cplx = next(i for i, (s, _) in enumerate(current.type_entries) if current.data[s] == 0x03)
    elem = next(v for v in current.varints if v.owner == ("type", cplx) and v.ref)
    tensor = next(i for i, (s, _) in enumerate(current.type_entries) if current.data[s] == 0x29)
    message, _ = _refusal(_set_varint(current, elem.pos, tensor))
    assert message.startswith("invalid vhlo.tensor_v1: ") and message.endswith(
        "cannot hold dense data (no builtin counterpart for !vhlo.complex_v1<!vhlo.tensor_v1<2x"
        "!vhlo.f32_v1>>)"
    )


MESH = """module {
  func.func @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @m()
}
"""


def test_mesh_axes_that_are_not_a_list() -> None:
    data = serialize_portable_artifact_str(MESH, "current", format="mlir")
    lay = mf.analyse(data)
    # #vhlo.replica_group_mesh_axes_v1 (code 23): mesh, axes; the axes become the mesh's name
    entry = next(i for i, (s, _) in enumerate(lay.attr_entries) if data[s] == 0x2F)
    mesh, axes = (v for v in lay.varints if v.owner == ("attr", entry) and v.ref)
    message, _ = _refusal(_set_varint(lay, axes.pos, mesh.value), check_compat_too=False)
    assert message == (
        "the artifact decodes, but its program is not valid: failed to legalize operation "
        "'vhlo.all_reduce_v2' that was explicitly marked illegal: attribute 'replica_groups' = "
        '#vhlo.replica_group_mesh_axes_v1<mesh = #vhlo.string_v1<"m">, axes = '
        '#vhlo.string_v1<"m">> has no StableHLO counterpart'
    )
