"""Reading JAX's serialized ``Exported`` (serialization/jax_export.py) without JAX.

The flatbuffers here are built with ``flatbuffers.Builder`` by a small writer that follows JAX's
schema (``jax/_src/export/serialization.fbs``) slot by slot, independently of the reader's tables:
every field reads back, detection tells the formats apart, and mutated buffers (truncated,
flipped, spliced, offsets overwritten) raise only SerializationError.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

flatbuffers = pytest.importorskip("flatbuffers")

from stablehlo_py.serialization import jax_export
from stablehlo_py.serialization.format import MAGIC
from stablehlo_py.serialization.jax_export import (
    SUPPORTED_SERIALIZATION_VERSION,
    JaxAbstractDevice,
    JaxAbstractMesh,
    JaxAval,
    JaxNamedSharding,
    is_jax_exported,
    read_jax_exported,
)

from stablehlo_py.errors import NotSupportedError, SerializationError

MODULE = b"ML\xefR\x0dStableHLO_v1.9.0\x00" + bytes(range(40))

# ---------------------------------------------------------------------------------------------
# A writer for the schema (slots in declaration order; Exported has 27 with jax_version).

B = Any  # flatbuffers.Builder


def _vector(b: B, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _strings(b: B, values: list[str]) -> int:
    return _vector(b, [b.CreateString(v) for v in values])


def _ints(b: B, values: list[int], width: int) -> int:
    b.StartVector(width, len(values), width)
    for v in reversed(values):
        (b.PrependUint16 if width == 2 else b.PrependUint32)(v)
    return b.EndVector()


def _table(b: B, nslots: int, fields: list[tuple[str, int, Any]]) -> int:
    """fields: (kind, slot, value) with kind "off", "u8", "i8", "bool", "u16", "i16", "u32"."""
    b.StartObject(nslots)
    prepend = {
        "off": b.PrependUOffsetTRelativeSlot,
        "i8": b.PrependInt8Slot,
        "u8": b.PrependUint8Slot,
        "bool": b.PrependBoolSlot,
        "u16": b.PrependUint16Slot,
        "i16": b.PrependInt16Slot,
        "u32": b.PrependUint32Slot,
    }
    for kind, slot, value in fields:
        if value is not None:
            prepend[kind](slot, value, 0)
    return b.EndObject()


def pytree(b: B, node: Any) -> int:
    """node: "*" | None | tuple | list | dict | ("custom", name, auxdata, [children])."""
    kind, children, names, custom = 0, None, None, None
    if node == "*":
        kind = 0
    elif node is None:
        kind = 1
    elif isinstance(node, tuple) and node and node[0] == "custom":
        kind, custom, children = 5, node[1:3], node[3]
    elif isinstance(node, tuple):
        kind, children = 2, list(node)
    elif isinstance(node, list):
        kind, children = 3, node
    elif isinstance(node, dict):
        kind, children, names = 4, list(node.values()), list(node)
    child_vec = _vector(b, [pytree(b, c) for c in children]) if children else None
    names_vec = _strings(b, names) if names else None
    custom_name = b.CreateString(custom[0]) if custom else None
    custom_aux = b.CreateByteVector(custom[1]) if custom else None
    return _table(
        b,
        5,
        [
            ("i8", 0, kind),
            ("off", 1, child_vec),
            ("off", 2, names_vec),
            ("off", 3, custom_name),
            ("off", 4, custom_aux),
        ],
    )


def aval(b: B, shape: list[str], dtype: int, memory_space: int | None = 1) -> int:
    shape_vec = _strings(b, shape)
    return _table(
        b, 4, [("i8", 0, 0), ("off", 1, shape_vec), ("i8", 2, dtype), ("i8", 3, memory_space)]
    )


def mesh(b: B, sizes: list[int], names: list[str], types: list[int], device: Any = None) -> int:
    sizes_vec = _ints(b, sizes, 4)
    names_vec = _strings(b, names)
    types_vec = b.CreateByteVector(bytes(types))
    dev = None
    if device is not None:
        kind, cores, platform = device
        kind_off = b.CreateString(kind)
        plat_off = b.CreateString(platform) if platform is not None else None
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, kind_off, 0)
        if cores is not None:
            b.PrependUint32Slot(1, cores, 0xFFFFFFFF)  # force: num_cores = null by default
        if plat_off is not None:
            b.PrependUOffsetTRelativeSlot(2, plat_off, 0)
        dev = b.EndObject()
    return _table(
        b, 4, [("off", 0, sizes_vec), ("off", 1, names_vec), ("off", 2, types_vec), ("off", 3, dev)]
    )


def named_sharding(
    b: B,
    partitions: list[list[str]],
    *,
    mesh_off: int | None = None,
    mesh_idx: int | None = None,
    reduced: list[str] = (),  # type: ignore[assignment]
    unreduced: list[str] = (),  # type: ignore[assignment]
    memory_kind: str | None = None,
) -> int:
    parts = [_table(b, 1, [("off", 0, _strings(b, axes))]) for axes in partitions]
    spec = _table(
        b,
        3,
        [
            ("off", 0, _vector(b, parts)),
            ("off", 1, _strings(b, list(reduced))),
            ("off", 2, _strings(b, list(unreduced))),
        ],
    )
    kind = b.CreateString(memory_kind) if memory_kind is not None else None
    return _table(
        b, 4, [("off", 0, mesh_off), ("off", 1, spec), ("off", 2, kind), ("u32", 3, mesh_idx)]
    )


def sharding(b: B, named: int | None = None, proto: bytes | None = None) -> int:
    proto_off = b.CreateByteVector(proto) if proto is not None else None
    return _table(b, 3, [("off", 1, proto_off), ("off", 2, named)])


@dataclass
class Spec:
    """What to write into an Exported table (offsets are built bottom-up by `exported`)."""

    version: int | None = 3
    name: str = "f"
    in_tree: Any = (("*", "*"), {})
    out_tree: Any = ("*",)
    unique_avals: list[tuple[list[str], int, int | None]] | None = None
    in_avals: list[tuple[list[str], int, int | None]] = field(default_factory=list)
    out_avals: list[tuple[list[str], int, int | None]] = field(default_factory=list)
    in_avals_idxs: list[int] | None = None
    out_avals_idxs: list[int] | None = None
    unique_meshes: list[Any] | None = None  # args to mesh()
    unique_named: list[dict[str, Any]] | None = None  # kwargs to named_sharding()
    in_shardings_idxs: list[int] | None = None
    out_shardings_idxs: list[int] | None = None
    in_shardings: list[Any] | None = None  # each: None | bytes | dict (inline named sharding)
    out_shardings: list[Any] | None = None
    nr_devices: int | None = 1
    nr_devices_short: int | None = None
    platforms: list[str] = field(default_factory=lambda: ["cpu"])
    ordered_effects: list[str] = field(default_factory=list)
    unordered_effects: list[str] = field(default_factory=list)
    disabled_checks: list[tuple[int, str | None]] = field(default_factory=list)
    module: bytes | None = MODULE
    calling_convention_version: int = 10
    kept: list[int] = field(default_factory=lambda: [0, 1])
    uses_global_constants: bool = False
    vjp: Spec | None = None
    jax_version: str | None = None
    extra_fields: list[tuple[int, int]] = field(default_factory=list)  # (slot >= 27, u32 value)


def _sharding_list(b: B, items: list[Any]) -> int:
    offs = []
    for item in items:
        if item is None:
            offs.append(sharding(b))
        elif isinstance(item, bytes):
            offs.append(sharding(b, proto=item))
        else:
            kw = dict(item)
            kw["mesh_off"] = mesh(b, *kw.pop("mesh")) if "mesh" in kw else None
            offs.append(sharding(b, named=named_sharding(b, **kw)))
    return _vector(b, offs)


def exported(b: B, s: Spec) -> int:
    name = b.CreateString(s.name)
    in_tree = pytree(b, s.in_tree)
    in_avals = _vector(b, [aval(b, *a) for a in s.in_avals])
    out_tree = pytree(b, s.out_tree)
    out_avals = _vector(b, [aval(b, *a) for a in s.out_avals])
    in_sh = _sharding_list(b, s.in_shardings) if s.in_shardings is not None else None
    out_sh = _sharding_list(b, s.out_shardings) if s.out_shardings is not None else None
    effects = [
        _vector(b, [_table(b, 1, [("off", 0, b.CreateString(e))]) for e in effs])
        for effs in (s.ordered_effects, s.unordered_effects)
    ]
    checks = _vector(
        b,
        [
            _table(b, 2, [("i8", 0, k), ("off", 1, b.CreateString(t) if t is not None else None)])
            for k, t in s.disabled_checks
        ],
    )
    platforms = _strings(b, s.platforms)
    module = b.CreateByteVector(s.module) if s.module is not None else None
    kept = _ints(b, s.kept, 2)
    vjp = exported(b, s.vjp) if s.vjp is not None else None
    uniq_avals = (
        _vector(b, [aval(b, *a) for a in s.unique_avals]) if s.unique_avals is not None else None
    )
    uniq_meshes = (
        _vector(b, [mesh(b, *m) for m in s.unique_meshes]) if s.unique_meshes is not None else None
    )
    uniq_named = (
        _vector(b, [named_sharding(b, **kw) for kw in s.unique_named])
        if s.unique_named is not None
        else None
    )
    idxs = [
        _ints(b, v, 4) if v is not None else None
        for v in (s.in_avals_idxs, s.out_avals_idxs, s.in_shardings_idxs, s.out_shardings_idxs)
    ]
    jax_version = b.CreateString(s.jax_version) if s.jax_version is not None else None
    return _table(
        b,
        max([27] + [slot + 1 for slot, _ in s.extra_fields]),
        [
            *[("u32", slot, value) for slot, value in s.extra_fields],
            ("u16", 0, s.version),
            ("off", 1, name),
            ("off", 2, in_tree),
            ("off", 3, in_avals),
            ("off", 4, out_tree),
            ("off", 5, out_avals),
            ("i16", 6, s.nr_devices_short),
            ("off", 7, in_sh),
            ("off", 8, out_sh),
            ("off", 9, platforms),
            ("off", 10, effects[0]),
            ("off", 11, effects[1]),
            ("off", 12, checks),
            ("off", 13, module),
            ("u16", 14, s.calling_convention_version),
            ("off", 15, kept),
            ("bool", 16, s.uses_global_constants),
            ("off", 17, vjp),
            ("u32", 18, s.nr_devices),
            ("off", 19, uniq_avals),
            ("off", 20, uniq_meshes),
            ("off", 21, uniq_named),
            ("off", 22, idxs[0]),
            ("off", 23, idxs[1]),
            ("off", 24, idxs[2]),
            ("off", 25, idxs[3]),
            ("off", 26, jax_version),
        ],
    )


def build(s: Spec) -> bytes:
    b = flatbuffers.Builder(1024)
    b.Finish(exported(b, s))
    return bytes(b.Output())


# ---------------------------------------------------------------------------------------------
# Specs: a current (v10+) layout, a pre-2026 layout with OpSharding protos, a v6-v9 layout.

F32, BF16, I32, KEY_FRY = 10, 14, 3, 27
CUSTOM = ("custom", "my.Point", b"\x01\x02", ["*", None])


def modern() -> Spec:
    vjp = Spec(
        name="fun_vjp_jax",
        in_tree=(("*", "*", "*"), {}),
        out_tree=("*", "*"),
        unique_avals=[(["b", "3"], F32, 1), ([], F32, 1)],
        in_avals_idxs=[0, 1, 0],
        out_avals_idxs=[0, 1],
        in_shardings_idxs=[0, 0, 0],
        out_shardings_idxs=[0, 0],
        kept=[0, 1, 2],
    )
    return Spec(
        name="my_fn",
        in_tree=((("*", CUSTOM), {"k": "*", "z": [None, "*"]})),
        out_tree={"a": ("*",), "b": "*"},
        unique_avals=[
            (["b", "3"], F32, 1),
            (["2*b + 1"], BF16, 2),
            ([], I32, 1),
            (["4", "4"], KEY_FRY, 3),
        ],
        # legacy vectors, as JAX still writes them next to the index vectors
        in_avals=[(["9"], F32, 1)] * 4,
        out_avals=[(["9"], F32, 1)] * 2,
        in_avals_idxs=[0, 1, 2, 3],
        out_avals_idxs=[0, 2],
        unique_meshes=[
            ([2, 2, 1], ["x", "y", "z"], [2, 2, 1], ("cpu", 8, "cpu")),
            ([4], ["d"], [1], ("TPU v4", None, None)),
        ],
        unique_named=[
            {"partitions": [["x"], []], "mesh_idx": 0},
            {"partitions": [["y", "x"]], "mesh_idx": 0, "memory_kind": "pinned_host"},
            {"partitions": [], "mesh_idx": 1, "reduced": ["d"]},
        ],
        in_shardings_idxs=[1, 2, 0, 3],
        out_shardings_idxs=[0, 3],
        in_shardings=[None] * 4,
        out_shardings=[None] * 2,
        nr_devices=4,
        platforms=["cpu", "cuda"],
        ordered_effects=["<class 'jax._src.effects.OrderedIO'>"],
        unordered_effects=["<class 'x.A'>", "<class 'x.B'>"],
        disabled_checks=[(0, None), (1, "my_target")],
        calling_convention_version=10,
        kept=[0, 1, 3],
        uses_global_constants=True,
        vjp=vjp,
        jax_version="0.10.2",
    )


def legacy() -> Spec:
    return Spec(
        version=2,
        in_avals=[(["2", "3"], F32, None), (["b"], I32, None)],
        out_avals=[(["2"], F32, None)],
        in_shardings=[b"\x08\x01", None],
        out_shardings=[b"\x08\x03\x1a\x01\x02"],
        nr_devices=None,
        nr_devices_short=2,
        kept=[0, 1],
    )


def v6() -> Spec:
    named = {"partitions": [["x"]], "mesh": ([2], ["x"], [2])}
    return Spec(
        version=3,
        in_avals=[(["4"], F32, 1), (["4"], F32, 1)],
        out_avals=[(["4"], F32, 1)],
        in_shardings=[named, None],
        out_shardings=[{"partitions": [], "mesh": ([2], ["x"], [1]), "unreduced": []}],
        nr_devices=2,
    )


# ---------------------------------------------------------------------------------------------
# Reading back


def test_modern_layout_reads_every_field() -> None:
    data = build(modern())
    assert is_jax_exported(data)
    e = read_jax_exported(data)
    assert e.serialization_version == 3
    assert e.function_name == "my_fn"
    assert e.jax_version == "0.10.2"
    assert str(e.in_tree) == (
        "PyTreeDef(((*, CustomNode(my.Point[0102], [*, None])), {'k': *, 'z': [None, *]}))"
    )
    custom = e.in_tree.children[0].children[1]
    assert (custom.kind, custom.custom_name, custom.custom_auxdata) == (
        "custom",
        "my.Point",
        b"\1\2",
    )
    assert e.in_tree.children[1].keys == ("k", "z")
    assert e.in_tree.num_leaves == 4
    assert str(e.out_tree) == "PyTreeDef({'a': (*,), 'b': *})"
    assert e.in_avals == (
        JaxAval(("b", 3), "float32", "device"),
        JaxAval(("2*b + 1",), "bfloat16", "host"),  # memory kind pinned_host
        JaxAval((), "int32", "device"),
        JaxAval((4, 4), "key<fry>", "device"),  # stored Any; the sharding says device
    )
    assert e.out_avals == (JaxAval(("b", 3), "float32"), JaxAval((), "int32"))
    mesh_xyz = JaxAbstractMesh(
        (2, 2, 1),
        ("x", "y", "z"),
        ("Explicit",) * 2 + ("Auto",),
        JaxAbstractDevice("cpu", 8, "cpu"),
    )
    # no platform stored (schema < 11): guessed from the device kind, as JAX does
    mesh_d = JaxAbstractMesh((4,), ("d",), ("Auto",), JaxAbstractDevice("TPU v4", None, "tpu"))
    assert e.in_shardings == (
        JaxNamedSharding(mesh_xyz, ("x", None)),
        JaxNamedSharding(mesh_xyz, (("y", "x"),), memory_kind="pinned_host"),
        None,
        JaxNamedSharding(mesh_d, (), reduced=("d",)),
    )
    assert e.in_shardings_hlo == (
        "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
        "{devices=[4]<=[2,2]T(1,0)}",
        None,
        "{replicated}",
    )
    assert e.out_shardings == (None, JaxNamedSharding(mesh_d, (), reduced=("d",)))
    assert e.out_shardings_hlo == (None, "{replicated}")
    assert e.nr_devices == 4
    assert e.platforms == ("cpu", "cuda")
    assert e.ordered_effects == ("<class 'jax._src.effects.OrderedIO'>",)
    assert e.unordered_effects == ("<class 'x.A'>", "<class 'x.B'>")
    assert e.disabled_safety_checks == ("platform", "custom_call:my_target")
    assert e.mlir_module_serialized == MODULE
    assert e.mlir_module_serialization_version == e.calling_convention_version == 10
    assert e.module_kept_var_idx == (0, 1, 3)
    assert e.uses_global_constants is True
    assert e.has_vjp and e.vjp is not None
    v = e.vjp
    assert (v.function_name, v.has_vjp, v.module_kept_var_idx) == ("fun_vjp_jax", False, (0, 1, 2))
    assert v.in_avals == (JaxAval(("b", 3), "float32"), JaxAval((), "float32"), v.in_avals[0])
    assert v.in_shardings_hlo == (None, None, None)
    assert v.jax_version is None


def test_legacy_layout_with_opsharding_protos() -> None:
    e = read_jax_exported(build(legacy()), allow_expired=True)
    assert e.serialization_version == 2
    assert e.in_avals == (JaxAval((2, 3), "float32"), JaxAval(("b",), "int32"))  # Missing: device
    assert e.in_shardings_hlo == (b"\x08\x01", None)
    assert e.out_shardings_hlo == (b"\x08\x03\x1a\x01\x02",)
    assert e.in_shardings == (None, None) and e.out_shardings == (None,)
    assert e.nr_devices == 2  # from the deprecated nr_devices_short
    assert e.vjp is None and not e.has_vjp
    assert e.jax_version is None
    assert e.ordered_effects == e.unordered_effects == e.disabled_safety_checks == ()
    assert e.uses_global_constants is False


def test_inline_named_shardings_of_v6_to_v9() -> None:
    e = read_jax_exported(build(v6()))
    mesh_x = JaxAbstractMesh((2,), ("x",), ("Explicit",))
    assert e.in_shardings == (JaxNamedSharding(mesh_x, ("x",)), None)
    assert e.in_shardings_hlo == ("{devices=[2]<=[2]}", None)
    assert e.out_shardings_hlo == ("{replicated}",)


def test_metadata_text() -> None:
    text = read_jax_exported(build(modern())).metadata_text()
    for line in (
        "function_name: my_fn",
        "serialization_version: 3",
        "jax_version: 0.10.2",
        "mlir_module_serialization_version: 10",
        f"mlir_module_serialized: {len(MODULE)} bytes (MLIR bytecode)",
        "platforms: cpu, cuda",
        "nr_devices: 4",
        "  [1] bfloat16[2*b + 1]<host>  sharding {devices=[4]<=[2,2]T(1,0)}",
        "  [2] int32[]  sharding unspecified",
        "disabled_safety_checks: platform, custom_call:my_target",
        "uses_global_constants: true",
        "vjp:",
        "  function_name: fun_vjp_jax",
        "  vjp: (none)",
    ):
        assert line in text.splitlines(), line
    legacy_text = read_jax_exported(build(legacy()), allow_expired=True).metadata_text()
    assert "  [0] float32[2,3]  sharding 2-byte OpSharding proto 0801" in legacy_text


@pytest.mark.parametrize(
    ("mesh", "spec", "ndim", "expected"),
    [  # expected strings are XLA's str(HloSharding) for what JAX derives
        (((2, 2), ("x", "y"), ("Explicit",) * 2), ("x", None), 2, "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
        (((2, 2), ("x", "y"), ("Explicit",) * 2), (None, ("y", "x")), 2, "{devices=[1,4]<=[2,2]T(1,0)}"),
        (((2, 2), ("x", "y"), ("Explicit",) * 2), ("y",), 2, "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
        (((2, 2), ("x", "y"), ("Explicit",) * 2), ("x", "y"), 2, "{devices=[2,2]<=[4]}"),
        (((2, 2), ("x", "y"), ("Explicit",) * 2), (), 3, "{replicated}"),
        (((2, 1), ("x", "y"), ("Explicit",) * 2), ("y", "x"), 2, "{devices=[1,2]<=[2]}"),
        (((2, 2, 3), ("x", "y", "z"), ("Explicit", "Manual", "Explicit")), ("z", None), 2,
         "{devices=[3,1,2,2]<=[2,2,3]T(2,1,0) last_tile_dims={manual, replicated}}"),
        (((2,), ("x",), ("Manual",)), (), 1, "{manual}"),
    ],
)  # fmt: skip
def test_named_sharding_to_hlo_text(mesh: Any, spec: Any, ndim: int, expected: str) -> None:
    assert JaxNamedSharding(JaxAbstractMesh(*mesh), spec).hlo_sharding(ndim) == expected


def test_unreduced_axes_in_hlo_text() -> None:
    m = JaxAbstractMesh((2, 2, 3), ("x", "y", "z"), ("Explicit", "Manual", "Explicit"))
    s = JaxNamedSharding(m, ("z", None), unreduced=("x",))
    assert (
        s.hlo_sharding(2)
        == "{devices=[3,1,2,2]<=[2,2,3]T(2,1,0) last_tile_dims={manual, unreduced}}"
    )


# ---------------------------------------------------------------------------------------------
# Detection


def test_detection() -> None:
    for spec in (modern(), legacy(), v6()):
        assert is_jax_exported(build(spec))
    assert is_jax_exported(bytearray(build(legacy())))
    assert is_jax_exported(memoryview(build(legacy())))
    assert not is_jax_exported(MODULE)
    assert not is_jax_exported(b"ML\xefR" + build(legacy()))
    assert not is_jax_exported(MAGIC + b"\x00" * 64)
    assert not is_jax_exported(b"module {\n  func.func @main() {\n    return\n  }\n}\n")
    assert not is_jax_exported(b"func.func @main(%arg0: tensor<f32>) -> tensor<f32>" * 10)
    assert not is_jax_exported(b"")
    assert not is_jax_exported(b"\x10\x00\x00\x00")
    assert not is_jax_exported("not bytes")  # type: ignore[arg-type]
    rng = random.Random(7)
    noise = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) for _ in range(300)]
    assert sum(is_jax_exported(n) for n in noise) == 0
    # A flatbuffer with another root table (a PyTreeDef) is not an Exported.
    b = flatbuffers.Builder(64)
    b.Finish(pytree(b, ("*", "*")))
    assert not is_jax_exported(bytes(b.Output()))


def test_our_formats_are_refused_by_the_reader() -> None:
    for data in (MODULE, MAGIC + b"\x00" * 64, b"module {}\n", b""):
        with pytest.raises(SerializationError):
            read_jax_exported(data)
    with pytest.raises(SerializationError, match="bytes, not str"):
        read_jax_exported("text")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Errors


def _error(data: bytes, *, allow_expired: bool = True) -> SerializationError:
    with pytest.raises(SerializationError) as info:
        read_jax_exported(data, "x.jax", allow_expired=allow_expired)
    return info.value


def test_every_version_up_to_12_reads() -> None:
    assert SUPPORTED_SERIALIZATION_VERSION == 12 == max(jax_export.SERIALIZATION_VERSIONS)
    for version in range(1, SUPPORTED_SERIALIZATION_VERSION + 1):
        s = modern()
        s.version = version
        e = read_jax_exported(build(s))
        assert e.serialization_version == version and e.unknown_fields == ()


def test_expired_artifacts_are_refused_as_jax_refuses_them() -> None:
    """JAX 0.12's _expired_error_msg: a device count only in nr_devices_short (schema < 5) or a
    sharding only as an OpSharding proto (schema < 6) is beyond its 6-month window."""
    short_only = modern()
    short_only.nr_devices, short_only.nr_devices_short = None, 4
    proto_only = v6()
    proto_only.in_shardings = [b"\x08\x01", None]
    for spec, why in (
        (short_only, "device count only in nr_devices_short"),
        (proto_only, "in_shardings hold an OpSharding proto"),
        (legacy(), "device count only in nr_devices_short"),
    ):
        err = _error(build(spec), allow_expired=False)
        text = str(err)
        assert "older than JAX's 6-month backward-compatibility window" in text, text
        assert why in text and f"serialization version {spec.version}" in text
        assert "allow_expired=True" in text and "compatibility-guarantees" in text
        assert text.startswith("x.jax: byte ")
        assert ("written by JAX" in text) == (spec.jax_version is not None)
        assert read_jax_exported(build(spec), allow_expired=True).nr_devices > 0
    assert "written by JAX 0.10.2" in str(_error(build(short_only), allow_expired=False))
    # the device count in nr_devices (schema >= 5) with an empty short one is not expired
    assert read_jax_exported(build(modern())).nr_devices == 4


def test_newer_versions_with_new_trailing_fields_read() -> None:
    """Forward tolerance: a newer JAX's extra fields are skipped (as JAX 0.12's own reader skips
    them) and named in unknown_fields; the known fields read as before."""
    s = modern()
    s.version = SUPPORTED_SERIALIZATION_VERSION + 1
    s.extra_fields = [(27, 5), (29, 1)]
    e = read_jax_exported(build(s))
    assert e.serialization_version == 13
    assert e.unknown_fields == ("Exported field 27", "Exported field 29")
    reference = read_jax_exported(build(modern()))
    assert replace(e, serialization_version=3, unknown_fields=()) == reference
    assert "unknown_fields (skipped): Exported field 27, Exported field 29" in e.metadata_text()
    # ... in a nested vjp too (its fields are reported once)
    s = modern()
    assert s.vjp is not None
    s.vjp.version = 99
    s.vjp.extra_fields = [(30, 7)]
    e = read_jax_exported(build(s))
    assert e.vjp is not None and e.vjp.serialization_version == 99
    assert e.unknown_fields == ("Exported field 30",)


def test_newer_versions_whose_known_fields_changed_are_refused() -> None:
    s = modern()
    s.version = 13
    assert s.unique_avals is not None
    s.unique_avals[0] = (["b", "3"], 42, 1)  # a dtype code this reader does not know
    err = str(_error(build(s)))
    assert "unknown DType code 42" in err and "newer JAX" in err
    s = modern()
    s.version = 13
    s.module = None  # the module moved elsewhere
    assert "mlir_module_serialized is missing" in str(_error(build(s)))


def test_missing_version_and_module() -> None:
    s = legacy()
    s.version = None
    assert "serialization_version is missing" in str(_error(build(s)))
    s = legacy()
    s.module = None
    assert "mlir_module_serialized is missing" in str(_error(build(s)))


def test_inconsistent_metadata() -> None:
    s = legacy()
    s.in_tree = (("*",), {})
    assert "in_tree has 1 leaves but there are 2 in_avals" in str(_error(build(s)))
    s = modern()
    s.in_avals_idxs = [0, 1, 2, 9]
    assert "index 9 is out of range for unique_avals (4 entries)" in str(_error(build(s)))
    s = modern()
    s.in_shardings_idxs = [1, 2, 0, 4]
    assert "index 3 is out of range for unique_named_shardings" in str(_error(build(s)))
    s = modern()
    s.in_shardings_idxs = [1, 2, 0]
    assert "4 in_avals but 3 in_shardings" in str(_error(build(s)))
    s = legacy()
    s.in_avals = [(["2"], 99, None), (["b"], I32, None)]
    assert "unknown DType code 99" in str(_error(build(s)))
    s = modern()
    assert s.unique_named is not None
    s.unique_named[0] = {"partitions": [["w"]], "mesh_idx": 0}
    assert "axis 'w'" in str(_error(build(s)))
    s = modern()
    assert s.unique_named is not None
    s.unique_named[0] = {"partitions": [["x"], [], ["y"]], "mesh_idx": 0}
    assert "shards dimension 2 of a rank-2 array" in str(_error(build(s)))


def test_deep_and_shared_pytrees_are_bounded() -> None:
    s = legacy()
    deep: Any = "*"
    for _ in range(jax_export.MAX_PYTREE_DEPTH + 5):
        deep = [deep]
    s.in_tree = ((deep, "*"), {})
    assert "pytree nested deeper than" in str(_error(build(s)))
    # A DAG: each level's children vector points 8 times at the same child -> 8**12 nodes.
    b = flatbuffers.Builder(1024)
    node = pytree(b, "*")
    for _ in range(12):
        node = _table(b, 5, [("i8", 0, 3), ("off", 1, _vector(b, [node] * 8))])
    args = _table(b, 5, [("i8", 0, 2), ("off", 1, _vector(b, [node]))])
    name, module = b.CreateString("f"), b.CreateByteVector(MODULE)
    root = _table(
        b,
        27,
        [("u16", 0, 3), ("off", 1, name), ("off", 2, args), ("off", 4, args), ("off", 13, module)],
    )
    b.Finish(root)
    assert "more objects than a buffer" in str(_error(bytes(b.Output())))


def test_bad_strings() -> None:
    data = build(legacy())
    i = data.index(b"cpu\x00")
    assert "not valid UTF-8" in str(_error(data[:i] + b"\xff" + data[i + 1 :]))
    assert "not NUL-terminated" in str(_error(data[: i + 3] + b"!" + data[i + 4 :]))


def test_without_flatbuffers_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    data = build(legacy())
    for mod in [m for m in sys.modules if m == "flatbuffers" or m.startswith("flatbuffers.")]:
        monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setitem(sys.modules, "flatbuffers", None)
    assert is_jax_exported(data)  # detection needs no flatbuffers
    with pytest.raises(NotSupportedError, match=r'pip install "stablehlo-py\[jax\]"'):
        read_jax_exported(data)


# ---------------------------------------------------------------------------------------------
# Mutations: ~3000 truncated / flipped / spliced / offset-overwritten buffers.

INTERESTING_U32 = [
    0,
    1,
    2,
    3,
    4,
    0x7F,
    0xFF,
    0xFFFF,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFF,
    0xFFFFFFFC,
]


def _mutate(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    b = bytearray(data)
    n = len(b)
    if n < 8:  # already cut to almost nothing: grow it a little
        return bytes(b) + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    kind = rng.randrange(6)
    if kind == 0:  # truncate
        return bytes(b[: rng.randrange(n)])
    if kind == 1:  # flip bits
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(n)] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 2:  # overwrite a 4-aligned word (offsets, lengths) with an interesting value
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(n // 4) * 4
            value = rng.choice(INTERESTING_U32 + [rng.randrange(n + 8)])
            b[i : i + 4] = value.to_bytes(4, "little")
        return bytes(b)
    if kind == 3:  # overwrite a 2-aligned half word (vtable entries)
        i = rng.randrange(n // 2) * 2
        b[i : i + 2] = rng.choice([0, 1, 2, 4, 0xFF, 0xFFFE, 0xFFFF, rng.randrange(256)]).to_bytes(
            2, "little"
        )
        return bytes(b)
    if kind == 4:  # insert or delete a few bytes
        i = rng.randrange(n)
        if rng.random() < 0.5:
            return bytes(
                b[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + b[i:]
            )
        return bytes(b[:i] + b[i + rng.randint(1, 8) :])
    other = rng.choice(seeds)  # splice
    i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
    k, m = sorted((rng.randrange(len(other) + 1), rng.randrange(len(other) + 1)))
    return bytes(b[:i] + other[k:m] + b[j:])


def test_mutations_raise_only_serialization_error() -> None:
    seeds = [build(modern()), build(legacy()), build(v6())]
    rng = random.Random(20240611)
    outcomes = {"ok": 0, "error": 0}
    for case in range(3000):
        data = _mutate(rng, seeds[case % len(seeds)], seeds)
        if rng.random() < 0.2:
            data = _mutate(rng, data, seeds)
        try:
            read_jax_exported(data, "fuzz", allow_expired=case % 2 == 0)
        except SerializationError as e:
            assert str(e).startswith("fuzz"), e
            outcomes["error"] += 1
        except Exception as e:
            raise AssertionError(f"case {case}: {type(e).__name__}: {e}\n{data.hex()}") from e
        else:
            outcomes["ok"] += 1
        is_jax_exported(data)  # never raises either
    assert outcomes["error"] > 1000 and outcomes["ok"] > 100, outcomes
