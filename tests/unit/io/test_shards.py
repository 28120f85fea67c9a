"""Per-process inputs and outputs (stablehlo_py/io/shards.py, the DIR and streamed .npz writers of
stablehlo_py/io/results.py, interpreter/tiles.py): tiles read as views of memory maps (and only
their pages), compressed archives noticed, replicated and uneven tiles, results written by every
process into a directory and by one process into an .npz, tile by tile, equal to the global
results on the programs of tests/data/mpi run by the threaded engine under the shard plan.  Needs
neither jax nor MPI."""

from __future__ import annotations

import gzip
import json
import os
import tracemalloc
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter.custom_calls.spmd import run_spmd
from stablehlo_py.interpreter.shard_plan import ShardPlan, shard_plan
from stablehlo_py.interpreter.storage import storable
from stablehlo_py.interpreter.tiles import Tile, tiles_of

import stablehlo_py.io.results as results_module
from stablehlo_py.errors import InterpreterError
from stablehlo_py.io import load_inputs, load_results, save_results
from stablehlo_py.io.errors import InputError, OutputError
from stablehlo_py.io.npz_stream import NpzStream
from stablehlo_py.io.results import (
    ResultSpec,
    check_output_path,
    create_result_dir,
    open_result_file,
    write_part,
)
from stablehlo_py.io.shards import (
    compressed_members,
    compressed_notice,
    input_archive,
    is_mapped,
    process_arguments,
    result_specs,
    save_process_results_dir,
    save_process_results_npz,
    stream_order,
    write_result_tiles,
)
from stablehlo_py.ir import parse

DATA = Path(__file__).resolve().parents[2] / "data" / "mpi"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
ROWS = {r["name"]: r for r in MANIFEST["programs"]}

# JAX's GSPMD form over 4 devices: 10 rows do not split evenly (shards of 3, the last holds 1 row,
# padded to 3 by the region); the body scales each shard by (partition id + 1)
UNEVEN = """module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<10x3xf32>) -> tensor<10x3xf32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<10x3xf32>) -> tensor<10x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<10x3xf32>) -> tensor<3x3xf32>
    %pid = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %g = stablehlo.add %f, %one : tensor<f32>
    %k = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %m = stablehlo.multiply %1, %k : tensor<3x3xf32>
    %3 = stablehlo.custom_call @Sharding(%m) {mhlo.sharding = "{manual}"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<3x3xf32>) -> tensor<10x3xf32>
    return %4 : tensor<10x3xf32>
  }
}
"""

# 2 replicas x 2 partitions: a Shardy region over x slicing columns; both replicas hold the same
# tiles; result 1 (a bf16 value computed outside the region) is whole
REPLICATED = """module @r attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<3x4xf32>, %b: tensor<2xbf16>) -> (tensor<3x4xf32>, tensor<2xbf16>) {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{}, {"x"}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%u: tensor<3x2xf32>) {
      %r = stablehlo.replica_id : tensor<ui32>
      %p = stablehlo.partition_id : tensor<ui32>
      %s = stablehlo.add %r, %p : tensor<ui32>
      %f = stablehlo.convert %s : (tensor<ui32>) -> tensor<f32>
      %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
      %m = stablehlo.add %u, %k : tensor<3x2xf32>
      sdy.return %m : tensor<3x2xf32>
    } : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %c = stablehlo.add %b, %b : tensor<2xbf16>
    return %0, %c : tensor<3x4xf32>, tensor<2xbf16>
  }
}
"""


def _program(name: str) -> tuple[object, list[np.ndarray]]:
    row = ROWS[name]
    with gzip.open(DATA / row["file"], "rt") as fh:
        module = parse(fh.read())
    with np.load(DATA / row["data"]) as data:
        args = [data[f"arg{k}"] for k in range(len(row["args"]))]
    return module, args


def _per_process(module, args, monkeypatch) -> tuple[list[np.ndarray], list[list[object]], ShardPlan]:
    """The threaded engine's run under the shard plan: the global results and what each process
    (by rank) held at the end (ShardPlan.assemble's input)."""
    seen: list[list[list[object]]] = []
    assemble = ShardPlan.assemble

    def spy(self, per_process):
        seen.append([list(r) for r in per_process])
        return assemble(self, per_process)

    monkeypatch.setattr(ShardPlan, "assemble", spy)
    out = run_spmd(module, *args, tiles=True)
    return [np.asarray(r) for r in out], seen[0], shard_plan(module)


def _npy_bytes(value: np.ndarray, tmp_path: Path) -> bytes:
    path = tmp_path / "reference.npy"
    np.save(path, storable(np.asarray(value)))
    return path.read_bytes()


# -------------------------------------------------------------------------------- reading tiles
def _mapping_rss(path: Path) -> int:
    """The resident bytes of this process's mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(head[1]) * 1024
    return total


def test_tile_fed_arguments_are_views_of_the_memory_map(tmp_path: Path) -> None:
    module, args = _program("sm_psum")
    for k, a in enumerate(args):
        np.save(tmp_path / f"a{k}.npy", a)
    mapped = load_inputs([tmp_path / "a0.npy", tmp_path / "a1.npy"], module)
    assert all(is_mapped(m) for m in mapped)
    plan = shard_plan(module)
    for partition in range(8):
        tiles = process_arguments(mapped, plan, 0, partition)
        for k, (tile, m, a) in enumerate(zip(tiles, mapped, args)):
            index = plan.args[k].index(0, partition)
            assert is_mapped(tile) and np.shares_memory(tile, m)
            assert tile.tobytes() == a[index].tobytes()
    assert not is_mapped(args[0]) and not is_mapped(np.ones(3))


# an identity region over 8 devices slicing rows or columns of an int32 argument
IDENTITY = """module attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=8]>
  func.func public @main(%a: tensor<SHAPExi32>) -> tensor<SHAPExi32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, SPEC>] out_shardings=[<@mesh, SPEC>] manual_axes={"i"} (%u: tensor<LOCALxi32>) {
      sdy.return %u : tensor<LOCALxi32>
    } : (tensor<SHAPExi32>) -> tensor<SHAPExi32>
    return %0 : tensor<SHAPExi32>
  }
}
"""


def _fault_granule(path: Path) -> int:
    """The bytes the kernel maps for one touched element of `path` (a page, more with fault-around
    or large page-cache folios: 2 MiB on Linux 6.18 with ext4)."""
    probe = np.load(path, mmap_mode="r")
    int(probe.reshape(-1)[probe.size // 2 + 1])
    granule = _mapping_rss(path)
    del probe
    assert _mapping_rss(path) == 0
    return granule


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux's /proc/self/smaps")
@pytest.mark.parametrize("rows", [True, False], ids=["row-tile", "column-tile"])
def test_a_tile_reads_only_its_own_pages(tmp_path: Path, rows: bool) -> None:
    """A 32 MiB argument over 8 processes: process 5 sums its 4 MiB tile (rows: one contiguous
    range; columns: a 2 MiB piece of each of 2 rows); the memory map's resident bytes are the
    tile's and at most what the kernel maps around each end of a contiguous run, not the file's."""
    shape, local = ((16, 1 << 19), (2, 1 << 19)) if rows else ((2, 1 << 22), (2, 1 << 19))
    spec = '[{"i"}, {}]' if rows else '[{}, {"i"}]'
    text = (IDENTITY.replace("SHAPE", "x".join(map(str, shape)))
            .replace("LOCAL", "x".join(map(str, local))).replace("SPEC", spec))
    module = parse(text)
    plan = shard_plan(module)
    path = tmp_path / "x.npy"
    np.save(path, np.arange(np.prod(shape), dtype=np.int32).reshape(shape))
    granule = _fault_granule(path)
    runs = 1 if rows else shape[0]
    bound = (4 << 20) + runs * 2 * granule
    if bound >= path.stat().st_size:
        pytest.skip(f"this kernel maps {granule >> 10} KiB per fault: the tile's pages cannot be told "
                    "from the file's")
    (x,) = load_inputs(path, module)
    (tile,) = process_arguments([x], plan, 0, 5)
    assert tile.shape == local and is_mapped(tile)
    index = plan.args[0].index(0, 5)
    expected = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)[index].sum()
    assert int(tile.sum(dtype=np.int64)) == expected
    resident = _mapping_rss(path)
    assert tile.nbytes <= resident <= bound, (resident, tile.nbytes, granule)


def test_a_compressed_archive_is_read_whole_with_a_notice(tmp_path: Path) -> None:
    module, args = _program("sm_psum")
    plan = shard_plan(module)
    np.savez_compressed(tmp_path / "z.npz", arg0=args[0], arg1=args[1])
    np.savez(tmp_path / "s.npz", arg0=args[0], arg1=args[1])
    assert compressed_members(tmp_path / "z.npz") == ["arg0", "arg1"]
    assert compressed_members(tmp_path / "s.npz") == []
    assert compressed_notice(tmp_path / "z.npz", plan) == (
        f"note: {tmp_path / 'z.npz'} stores arg0, arg1 compressed, which cannot be memory-mapped: "
        "every process reads them whole; use np.savez, not savez_compressed, or .npy files"
    )
    assert compressed_notice(tmp_path / "s.npz", plan) is None
    assert compressed_notice(None, plan) is None
    matmul, margs = _program("jit_matmul")  # nothing is tile-fed: reading whole loses nothing
    np.savez_compressed(tmp_path / "m.npz", arg0=margs[0], arg1=margs[1])
    assert compressed_notice(tmp_path / "m.npz", shard_plan(matmul)) is None
    whole = load_inputs(tmp_path / "z.npz", module)
    assert not any(is_mapped(w) for w in whole)
    tiles = process_arguments(whole, plan, 0, 3)
    assert [t.tobytes() for t in tiles] == [
        a[d.index(0, 3)].tobytes() for a, d in zip(args, plan.args)
    ]
    assert input_archive(None, "run.npz") == "run.npz"
    assert input_archive("@run.npz", None) == "run.npz"
    assert input_archive("@x.npy,@y.npy", None) is None
    assert input_archive(None, "probes") is None


def test_replicated_tiles_are_read_by_each_process_and_written_by_the_lowest(monkeypatch) -> None:
    module = parse(REPLICATED)
    plan = shard_plan(module)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.array([1.5, -2], ml_dtypes.bfloat16)
    got = {(r, p): process_arguments([a, b], plan, r, p) for r in range(2) for p in range(2)}
    for p in range(2):
        assert got[0, p][0].tobytes() == got[1, p][0].tobytes() == a[:, 2 * p: 2 * p + 2].tobytes()
    assert all(g[1] is b for g in got.values())  # whole: as given
    writers = [(r, p) for r in range(2) for p in range(2) if plan.results[0].writes(r, p)]
    assert writers == [(0, 0), (0, 1)]
    partial, _ = _program("sm_partial")  # the free axis y: partitions 0-3 hold the same rows
    d = shard_plan(partial).args[0]
    assert [d.index(0, p) for p in range(4)] == [(slice(0, 2), slice(0, 8))] * 4
    assert [p for p in range(8) if d.tiling.writer(p) == p] == [0, 4]


def test_uneven_gspmd_tiles_are_read_as_the_part_inside_the_value(tmp_path: Path, monkeypatch) -> None:
    module = parse(UNEVEN)
    plan = shard_plan(module)
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    shapes = [process_arguments([x], plan, 0, p)[0].shape for p in range(4)]
    assert shapes == [(3, 3), (3, 3), (3, 3), (1, 3)]
    glob, per_process, _ = _per_process(module, [x], monkeypatch)
    assert [np.shape(r[0]) for r in per_process] == [(3, 3)] * 4  # the last shard is padded
    tiles = tiles_of(plan.results, per_process[3], 0, 3)
    assert tiles[0].index == (slice(9, 10), slice(0, 3)) and tiles[0].data.shape == (1, 3)
    assert stream_order(plan.results[0], 4) == [0, 1, 2, 3]
    save_process_results_dir(tmp_path / "d", per_process, plan)
    assert (tmp_path / "d" / "result0.npy").read_bytes() == _npy_bytes(glob[0], tmp_path)
    save_process_results_npz(tmp_path / "r.npz", per_process, plan)
    assert load_results(tmp_path / "r.npz")[0].tobytes() == glob[0].tobytes()
    np.testing.assert_array_equal(glob[0], x * np.repeat(np.arange(1, 5), 3)[:10, None])


def test_a_process_may_give_its_own_tile(tmp_path: Path) -> None:
    module, args = _program("sm_psum")
    plan = shard_plan(module)
    index0, index1 = (d.index(0, 6) for d in plan.args)
    np.save(tmp_path / "t.npy", args[1][index1])
    mine = [Tile(args[0][index0], index0, (4, 16)), Tile(np.load(tmp_path / "t.npy", mmap_mode="r"),
                                                          index1, (16, 8))]
    given = process_arguments(mine, plan, 0, 6)
    assert [g.tobytes() for g in given] == [args[0][index0].tobytes(), args[1][index1].tobytes()]
    assert is_mapped(given[1])
    with pytest.raises(InputError, match=r"argument 0 is given as Tile\(float32\[4, 2\] at \[0:4, 0:2\] "
                       r"of \[4, 16\]\), but process \(replica 0, partition 6\) holds \[0:4, 12:14\] of \[4, 16\]"):
        process_arguments([Tile(args[0][:, :2], (slice(0, 4), slice(0, 2)), (4, 16)), args[1]], plan, 0, 6)
    matmul, margs = _program("jit_matmul")
    with pytest.raises(InputError, match=r"argument 1 is given as a Tile, but every process needs all "
                       r"of it \(used by stablehlo.dot_general"):
        process_arguments([margs[0], Tile(margs[1], (slice(None),) * 2, (16, 8))], shard_plan(matmul), 0, 0)
    with pytest.raises(InputError, match="no shard plan"):
        process_arguments([Tile(margs[0], (slice(None),) * 2, (8, 16))], None, 0, 0)
    assert process_arguments(margs, None, 0, 0) == margs


@pytest.mark.parametrize(
    "tile,message",
    [
        (lambda: Tile(np.zeros((2, 2)), (slice(0, 2),), (4, 4)), "one slice per dimension"),
        (lambda: Tile(np.zeros((2, 2)), (slice(0, 2), slice(0, 4, 2)), (4, 4)),
         "dimension 1: each must be a slice of step 1"),
        (lambda: Tile(np.zeros((2, 2)), (slice(3, 5), slice(0, 2)), (4, 4)),
         "has 3:5 for dimension 0, outside 0:4"),
        (lambda: Tile(np.zeros((2, 3)), (slice(0, 2), slice(0, 2)), (4, 4)),
         r"data has shape \[2, 3\], but its index \[0:2, 0:2\] of \[4, 4\] selects \[2, 2\]"),
        (lambda: Tile([1, 2], (slice(0, 2),), (2,)), "data is list, which has no shape"),
    ],
)
def test_tile_errors(tile, message: str) -> None:
    with pytest.raises(InterpreterError, match=message):
        tile()


def test_argument_errors() -> None:
    module, args = _program("sm_psum")
    plan = shard_plan(module)
    with pytest.raises(InputError, match=r"argument 1 has shape \[16, 4\], but @main's parameter 1 is \[16, 8\]"):
        process_arguments([args[0], args[1][:, :4]], plan, 0, 0)
    with pytest.raises(InputError, match="@main takes 2 arguments, 1 were given"):
        process_arguments(args[:1], plan, 0, 0)
    with pytest.raises(InputError, match=r"process \(replica 0, partition 8\) is outside the 1 x 8 grid"):
        process_arguments(args, plan, 0, 8)


# ---------------------------------------------------------------------------- writing results
def _covering_parts(shape: tuple[int, ...], split: int) -> list[tuple[slice, ...]]:
    """Parts of a `shape` value, cut in 2 along dimension `split` (whole when it is -1)."""
    full = [slice(0, n) for n in shape]
    if split < 0:
        return [tuple(full)]
    half = shape[split] // 2
    first, second = list(full), list(full)
    first[split], second[split] = slice(0, half), slice(half, shape[split])
    return [tuple(first), tuple(second)]


@pytest.mark.parametrize(
    "shape,dtype,split",
    [
        ((6, 4, 5), np.float32, 0), ((6, 4, 5), np.int16, 1), ((6, 4, 5), np.float64, 2),
        ((6, 4, 5), np.complex64, -1), ((), np.int32, -1), ((0, 3), np.float32, 1),
        ((3, 5), ml_dtypes.bfloat16, 1), ((7,), np.bool_, 0),
    ],
)
def test_parts_written_into_a_created_file_equal_np_save(tmp_path: Path, shape, dtype, split) -> None:
    value = (np.arange(int(np.prod(shape))) % 7 - 3).reshape(shape).astype(dtype)
    spec = ResultSpec.of(value)
    create_result_dir(tmp_path / "d", [spec])
    path, offset = open_result_file(tmp_path / "d", 0, spec)
    for index in reversed(_covering_parts(shape, split)):
        write_part(path, offset, spec, index, value[index])
    assert Path(path).read_bytes() == _npy_bytes(value, tmp_path)
    assert load_results(tmp_path / "d")[0].tobytes() == value.tobytes()


@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_process_writes_its_tiles_and_the_files_are_the_global_results(
    name: str, tmp_path: Path, monkeypatch
) -> None:
    module, args = _program(name)
    glob, per_process, plan = _per_process(module, args, monkeypatch)
    plain = run_spmd(module, *args)
    assert [g.tobytes() for g in glob] == [np.asarray(p).tobytes() for p in plain]
    names = [f"out{k}" for k in range(len(glob))]
    paths = save_process_results_dir(tmp_path / "d", per_process, plan, names)
    for k, path in enumerate(paths):
        assert Path(path).read_bytes() == _npy_bytes(glob[k], tmp_path), f"result {k}"
    assert np.load(tmp_path / "d" / "result_info.npy").tolist() == names
    save_process_results_npz(tmp_path / "r.npz", per_process, plan, names)
    np.savez(tmp_path / "ref.npz", **{f"result{k}": g for k, g in enumerate(glob)},
             result_types=np.load(tmp_path / "d" / "result_types.npy"), result_info=np.array(names))
    with np.load(tmp_path / "r.npz") as got, np.load(tmp_path / "ref.npz") as ref:
        assert got.files == ref.files
        for member in ref.files:
            assert got[member].dtype == ref[member].dtype and got[member].shape == ref[member].shape
            assert got[member].tobytes() == ref[member].tobytes(), member


def test_each_process_writes_only_what_it_owns(tmp_path: Path, monkeypatch) -> None:
    module, args = _program("sm_all_gather")  # result 0: tiles of rows held by 4 partitions each
    glob, per_process, plan = _per_process(module, args, monkeypatch)
    specs = result_specs(per_process[0], plan)
    assert specs == [ResultSpec(np.dtype(np.float32), (16, 2)), ResultSpec(np.dtype(np.float32), (2, 2, 8))]
    create_result_dir(tmp_path, specs)
    written = [write_result_tiles(tmp_path, specs, per_process[p], plan, 0, p) for p in range(8)]
    # result 0: partitions 0 and 4 write their 8 x 2 floats; result 1: partitions 0-3 their 2x2x2
    # (4-7 hold the same parts)
    assert written == [64 + 32, 32, 32, 32, 64, 0, 0, 0]
    assert [r.tobytes() for r in load_results(tmp_path)] == [g.tobytes() for g in glob]


def test_replicated_program_results_into_a_directory(tmp_path: Path, monkeypatch) -> None:
    module = parse(REPLICATED)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.array([1.5, -2], ml_dtypes.bfloat16)
    glob, per_process, plan = _per_process(module, [a, b], monkeypatch)
    assert len(per_process) == 4
    save_process_results_dir(tmp_path, per_process, plan)
    back = load_results(tmp_path)
    assert back[1].dtype == ml_dtypes.bfloat16 and back[1].tobytes() == glob[1].tobytes()
    assert back[0].tobytes() == (a + np.float32([0, 0, 1, 1])).tobytes()  # replica 0 wrote it


def test_stream_order() -> None:
    big = gzip.open(DATA / MANIFEST["big"]["file"], "rt").read()
    plan = shard_plan(parse(big))
    assert [stream_order(d, 8) for d in plan.results] == [list(range(8)), [0], [0]]
    module, _ = _program("sm_all_to_all")  # columns: gathered whole
    assert stream_order(shard_plan(module).results[0], 8) is None
    assert stream_order(None, 8) == [0]


def test_a_streamed_member_holds_one_tile_at_a_time(tmp_path: Path) -> None:
    tile = (4 << 20) // 4  # 4 MiB of float32 per tile, 8 tiles
    spec = ResultSpec(np.dtype(np.float32), (8 * 64, tile // 64))

    def tiles():
        for p in range(8):
            yield np.full((64, tile // 64), p, np.float32)

    tracemalloc.start()
    try:
        results_module.write_results_npz(tmp_path / "r.npz", [spec], lambda k: tiles())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * tile * 4, f"{peak} bytes at peak for 4 MiB tiles of a 32 MiB result"
    got = load_results(tmp_path / "r.npz")[0]
    assert got.shape == spec.shape and [float(got[64 * p, 0]) for p in range(8)] == list(range(8))
    with zipfile.ZipFile(tmp_path / "r.npz") as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}


def test_save_results_into_a_directory_and_back(tmp_path: Path) -> None:
    values = [np.array([1.5, -0.25], ml_dtypes.bfloat16), np.array(True), np.zeros((0, 2), np.int8)]
    save_results(f"{tmp_path}/out/", values, ["a", None, "c"])
    files = sorted(os.listdir(tmp_path / "out"))
    assert files == ["result0.npy", "result1.npy", "result2.npy", "result_info.npy", "result_types.npy"]
    assert np.load(tmp_path / "out" / "result0.npy").dtype == np.uint16  # bits, as in an .npz
    back = load_results(tmp_path / "out")
    assert [b.dtype for b in back] == [v.dtype for v in values]
    assert [b.tobytes() for b in back] == [v.tobytes() for v in values]
    assert np.load(tmp_path / "out" / "result_info.npy").tolist() == ["a", "", "c"]
    save_results(tmp_path / "out", values[::-1])  # an existing directory, no slash: replaced
    assert np.load(tmp_path / "out" / "result_info.npy").tolist() == ["", "", ""]
    assert [b.tobytes() for b in load_results(tmp_path / "out")] == [v.tobytes() for v in values[::-1]]


# -------------------------------------------------------------------------------------- errors
def test_directory_errors(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match=r"results go into a directory, but '.*file' is a file"):
        check_output_path(f"{tmp_path}/file/")
    with pytest.raises(OutputError, match=r"cannot create the results directory '.*file/sub': "
                       r"'.*file' is a file"):
        check_output_path(f"{tmp_path}/file/sub/")
    with pytest.raises(OutputError, match=r"an .npy file \(one result\), or into a directory \(DIR/"):
        check_output_path(tmp_path / "out.txt")
    check_output_path(f"{tmp_path}/new/deeper/")
    assert not (tmp_path / "new").exists()  # checked, not created
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real_access(p, mode))
    with pytest.raises(OutputError, match=r"cannot create '.*/new' in directory '.*': permission denied"):
        check_output_path(f"{tmp_path}/new/")
    monkeypatch.undo()
    save_results(f"{tmp_path}/d/", [np.zeros(2), np.ones(3)])
    with pytest.raises(OutputError, match=r"d/: error: holds result1.npy from an earlier run, which this "
                       r"run \(1 result\) would not replace: remove it, or write into another directory"):
        save_results(f"{tmp_path}/d/", [np.zeros(2)])
    assert load_results(tmp_path / "d")[1].tolist() == [1, 1, 1]  # nothing was touched


def test_writing_a_part_before_the_file_is_created_is_an_error(tmp_path: Path) -> None:
    spec = ResultSpec(np.dtype(np.float32), (4,))
    with pytest.raises(OutputError, match=r"cannot open '.*result0.npy' to write this process's part of "
                       r"result 0: No such file or directory \(create_result_dir makes it"):
        open_result_file(tmp_path, 0, spec)
    create_result_dir(tmp_path, [ResultSpec(np.dtype(np.float64), (4,))])
    with pytest.raises(OutputError, match=r"result0.npy: error: holds another array, not the "
                       r"tensor<4xf32> of result 0"):
        open_result_file(tmp_path, 0, spec)
    path, offset = open_result_file(tmp_path, 0, ResultSpec(np.dtype(np.float64), (4,)))
    with pytest.raises(OutputError, match=r"the part \[0:2\] of result tensor<4xf64> is float64\[2\], "
                       r"the value given is float32\[2\]"):
        write_part(path, offset, ResultSpec(np.dtype(np.float64), (4,)), (slice(0, 2),),
                   np.zeros(2, np.float32))


def test_stream_errors_remove_the_partial_archive(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    with pytest.raises(OutputError, match=r"r.npz\[x\]: its parts hold 8 of the 16 bytes of float32\[4\]"):
        with NpzStream(path) as z:
            z.add_parts("x", np.float32, (4,), [np.zeros(2, np.float32)])
    assert not path.exists()
    with pytest.raises(OutputError, match=r"its parts hold more than the 16 bytes"):
        with NpzStream(path) as z:
            z.add_parts("x", np.float32, (4,), [np.zeros(3, np.float32)] * 2)
    with pytest.raises(OutputError, match=r"a part holds float64, the member float32"):
        with NpzStream(path) as z:
            z.add_parts("x", np.float32, (4,), [np.zeros(4)])
    with pytest.raises(OutputError, match="member 'x' is written twice"):
        with NpzStream(path) as z:
            z.add("x", np.zeros(1))
            z.add("x", np.zeros(1))
    assert not path.exists()
    with pytest.raises(OutputError, match="cannot write"):
        NpzStream(tmp_path / "no" / "r.npz")
