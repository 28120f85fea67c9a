"""The collectives on MPI against the threaded grid: the cases, how one process of a case runs, and
the rank program of tests/mpi/test_collectives_bits.py.

Each case is a small program over a grid of R replicas x N partitions ("2x2": 4 processes, "1x8":
8) with arguments per process (or the same global arguments for every process, as the shard_map
regions take them): every collective op (all_reduce with a non-associative, non-commutative body
``a - 2*b``, all_gather, reduce_scatter, all_to_all, collective_permute with full and partial pairs,
collective_broadcast, collective_reduce), the process ids, Shardy's and GSPMD's shard_map regions
(their gathers), infeed, outfeed, ``interpreter.print`` and a failing check, over f32 (NaN payloads,
-0.0, infinities, overflow), bf16, complex64, int32 (overflow) and bool data.

:func:`run_process` runs process (replica, partition) of a case on a grid the way
``custom_calls/spmd.py``'s ``call_spmd`` does (``process_evaluator``: a copy of one evaluator with
its own `ProcessContext` and check failures; and a print sink); :func:`threaded_outcomes` runs
every process of a case in-process on the threaded `ProcessGrid`.

``python -m tests.mpi.collective_cases OUT GRID`` under ``mpirun -n R*N``: rank k runs process
divmod(k, N) of every case of GRID on an `MpiGrid` (with a stand-in broker: this rank's own
send/recv queues and infeed list) and writes ``OUT/<case>/rank<k>.npz`` (its results, as raw bytes
with their dtypes and shapes) and ``OUT/<case>/broker<k>.json`` (the broker's calls); rank 0 also
writes ``OUT/<case>/items.json`` (every rank's prints, check failures and outfeed:
`gather_to_root`) and ``OUT/times.json``; every rank writes ``OUT/checks<k>.json`` (the grid's
errors: no broker, a late member's timeout, an abort).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
import time
import zlib
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from stablehlo_py.interpreter.entry_inputs import coerce_args
from stablehlo_py.interpreter.custom_calls.spmd import process_evaluator
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.impls.process_grid import GridShape, ProcessGrid
from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.ir import parse

GRIDS = {"2x2": (2, 2), "1x8": (1, 8)}
CHANNEL = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>"

# ------------------------------------------------------------------------------------------ data

TYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "complex<f32>": np.complex64,
         "i32": np.int32, "i1": np.bool_, "ui32": np.uint32}


def _specials(kind: str) -> list[Any]:
    """Values every array of the type starts with (as far as it has room)."""
    nan = np.array([0x7FC00123, 0xFFA00001], np.uint32).view(np.float32)  # payloads, signs
    if kind == "f32":
        return [nan[0], np.float32(-0.0), np.float32(np.inf), np.float32(3e38), nan[1]]
    if kind == "bf16":
        return [np.float32(-0.0), np.float32(np.nan), np.float32(3e38)]
    if kind == "complex<f32>":
        return [complex(np.nan, 1.0), complex(-0.0, -0.0), complex(np.inf, 2.0)]
    if kind == "i32":
        return [np.iinfo(np.int32).max, np.iinfo(np.int32).min]
    return []


def data(kind: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """An array of element type `kind` (MLIR name) with the type's awkward values first."""
    if kind == "i1":
        return rng.integers(0, 2, size=shape).astype(bool)
    if kind == "i32":
        flat = rng.integers(-(2**31), 2**31, size=int(np.prod(shape)), dtype=np.int64)
        out = flat.astype(np.int32)
    elif kind == "complex<f32>":
        n = int(np.prod(shape))
        out = (rng.standard_normal(n) * 8 + 1j * rng.standard_normal(n) * 8).astype(np.complex64)
    else:
        out = (rng.standard_normal(int(np.prod(shape))) * 8).astype(np.float32)
    special = _specials(kind)[: out.size]
    out[: len(special)] = special
    return out.astype(TYPES[kind]).reshape(shape)


def _rng(name: str, rank: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(name.encode()), rank])


# ----------------------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """A program and its arguments per rank: `inputs` lists (element type, shape) per argument;
    `same_args`: every process gets rank 0's (the shard_map regions' global arguments); `infeed`:
    the entries each process takes from the infeed queue; `threaded`: compared with the threaded
    run (else with `expect`, a function of the rank's arguments); `chunk`: run on a grid that
    moves at most that many bytes per MPI call (values in many rounds of a few bytes per rank)."""

    name: str
    text: str
    inputs: tuple[tuple[str, tuple[int, ...]], ...]
    same_args: bool = False
    infeed: tuple[str, ...] = ()
    threaded: bool = True
    expect: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None
    chunk: int | None = None  # the grid's most bytes per MPI call (None: its default)

    def args(self, rank: int) -> list[np.ndarray]:
        rng = _rng(self.name, 0 if self.same_args else rank)
        return [data(kind, shape, rng) for kind, shape in self.inputs]


def _t(kind: str, shape: tuple[int, ...]) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{kind}>"


def _dense(rows: list[list[int]]) -> str:
    width = max(len(r) for r in rows)
    padded = [r + [-1] * (width - len(r)) for r in rows]
    return f"dense<{padded}> : tensor<{len(rows)}x{width}xi64>"


def _scramble(n: int) -> list[int]:
    """0..n-1 in an order that is not sorted (process-group order matters)."""
    order = [(3 * k + 2) % n for k in range(n)] if n % 3 else list(range(n))[::-1]
    return order if n > 1 else [0]


def _region(kind: str, body: str) -> str:
    t = _t(kind, ())
    two = {"f32": "2.0", "bf16": "2.0", "i32": "2", "complex<f32>": "(2.0, 0.0)"}.get(kind)
    if body == "sub2":  # a - 2 * b: neither associative nor commutative
        lines = (f"%two = stablehlo.constant dense<{two}> : {t}\n"
                 f"      %m = stablehlo.multiply %two, %b : {t}\n"
                 f"      %s = stablehlo.subtract %a, %m : {t}")
    else:
        lines = f"%s = stablehlo.{body} %a, %b : {t}"
    return (f"({{\n    ^bb0(%a: {t}, %b: {t}):\n      {lines}\n"
            f"      stablehlo.return %s : {t}\n    }})")


def _module(replicas: int, partitions: int, body: str, extra: str = "") -> str:
    return (f"module attributes {{mhlo.num_replicas = {replicas} : i32, "
            f"mhlo.num_partitions = {partitions} : i32}} {{\n{extra}{body}\n}}\n")


def _op_case(
    name: str, grid: tuple[int, int], op: str, inputs: list[tuple[str, tuple[int, ...]]],
    outputs: list[tuple[str, tuple[int, ...]]], attrs: str, region: str = "",
) -> Case:
    """`main` applying one op (generic form) to its arguments and returning its results."""
    params = ", ".join(f"%x{i}: {_t(*s)}" for i, s in enumerate(inputs))
    operands = ", ".join(f"%x{i}" for i in range(len(inputs)))
    ins = ", ".join(_t(*s) for s in inputs)
    outs = ", ".join(_t(*s) for s in outputs)
    n = len(outputs)
    lhs, rets = ("%r", "%r") if n == 1 else (f"%r:{n}", ", ".join(f"%r#{i}" for i in range(n)))
    body = (f"  func.func @main({params}) -> ({outs}) {{\n"
            f"    {lhs} = \"{op}\"({operands}) {region} {{{attrs}}} : ({ins}) -> ({outs})\n"
            f"    return {rets} : {outs}\n  }}")
    return Case(name, _module(*grid, body), tuple(inputs))


def _reduce_cases(grid: tuple[int, int]) -> list[Case]:
    r, n = grid
    p = r * n
    s = _scramble(p)
    flat = f"{CHANNEL}, use_global_device_ids"
    halves = [s[: p // 2], s[p // 2 :]]
    cases = [
        _op_case("all_reduce_f32_sub2", grid, "stablehlo.all_reduce", [("f32", (3, 5))],
                 [("f32", (3, 5))], f"replica_groups = {_dense([s])}, {flat}",
                 _region("f32", "sub2")),
        _op_case("all_reduce_f32_sub2_halves_0d_empty", grid, "stablehlo.all_reduce",
                 [("f32", (4,)), ("f32", ()), ("f32", (0, 3))],
                 [("f32", (4,)), ("f32", ()), ("f32", (0, 3))],
                 f"replica_groups = {_dense(halves)}, {flat}", _region("f32", "sub2")),
        _op_case("all_reduce_bf16_add", grid, "stablehlo.all_reduce", [("bf16", (6,))],
                 [("bf16", (6,))], f"replica_groups = {_dense([s])}, {flat}",
                 _region("bf16", "add")),
        _op_case("all_reduce_bf16_sub2", grid, "stablehlo.all_reduce", [("bf16", (2, 3))],
                 [("bf16", (2, 3))], f"replica_groups = {_dense([s])}, {flat}",
                 _region("bf16", "sub2")),
        _op_case("all_reduce_c64_multiply", grid, "stablehlo.all_reduce",
                 [("complex<f32>", (5,))], [("complex<f32>", (5,))],
                 f"replica_groups = {_dense([s])}, {flat}", _region("complex<f32>", "multiply")),
        _op_case("all_reduce_i32_sub2", grid, "stablehlo.all_reduce", [("i32", (7,))],
                 [("i32", (7,))], f"replica_groups = {_dense(halves)}, {flat}",
                 _region("i32", "sub2")),
        _op_case("all_reduce_bool_or", grid, "stablehlo.all_reduce", [("i1", (9,))],
                 [("i1", (9,))], f"replica_groups = {_dense([s])}, {flat}", _region("i1", "or")),
        # no channel: cross_replica (with one replica, groups of one process: no MPI)
        _op_case("all_reduce_cross_replica", grid, "stablehlo.all_reduce", [("f32", (4,))],
                 [("f32", (4,))], f"replica_groups = {_dense([list(range(r))[::-1]])}",
                 _region("f32", "sub2")),
        # a channel without use_global_device_ids: cross_replica_and_partition
        _op_case("all_reduce_cross_replica_and_partition", grid, "stablehlo.all_reduce",
                 [("f32", (2, 2))], [("f32", (2, 2))],
                 f"replica_groups = {_dense([list(range(r))[::-1]])}, {CHANNEL}",
                 _region("f32", "sub2")),
        _op_case("reduce_scatter_f32_sub2", grid, "stablehlo.reduce_scatter", [("f32", (2 * p, 3))],
                 [("f32", (2, 3))], f"scatter_dimension = 0 : i64, replica_groups = "
                 f"{_dense([s])}, {flat}", _region("f32", "sub2")),
        _op_case("reduce_scatter_i32_halves", grid, "stablehlo.reduce_scatter", [("i32", (3, p))],
                 [("i32", (3, 2))], f"scatter_dimension = 1 : i64, replica_groups = "
                 f"{_dense(halves)}, {flat}", _region("i32", "sub2")),
        _op_case("collective_reduce_f32_sub2", grid, "stablehlo.collective_reduce",
                 [("f32", (2, 3))], [("f32", (2, 3))],
                 f"replica_groups = {_dense(halves)}, {flat}", _region("f32", "sub2")),
    ]
    return cases


def _gather_cases(grid: tuple[int, int]) -> list[Case]:
    r, n = grid
    p = r * n
    s = _scramble(p)
    flat = f"{CHANNEL}, use_global_device_ids"
    halves = [s[: p // 2], s[p // 2 :]]
    return [
        _op_case("all_gather_f32_bool", grid, "stablehlo.all_gather",
                 [("f32", (2, 3)), ("i1", (2, 1))],
                 [("f32", (2, 3 * p // 2)), ("i1", (2, p // 2))],
                 f"all_gather_dim = 1 : i64, replica_groups = {_dense(halves)}, {flat}"),
        _op_case("all_gather_bf16_c64_i32_empty", grid, "stablehlo.all_gather",
                 [("bf16", (2,)), ("complex<f32>", (1, 2)), ("i32", (0, 2))],
                 [("bf16", (2 * p,)), ("complex<f32>", (p, 2)), ("i32", (0, 2))],
                 f"all_gather_dim = 0 : i64, replica_groups = {_dense([s])}, {flat}"),
    ]


def _partition_cases(grid: tuple[int, int]) -> list[Case]:
    """all_to_all, collective_permute and collective_broadcast across partitions (a channel)."""
    r, n = grid
    if n == 1:
        return []
    ring = [[k, (k + 3) % n] for k in range(n)]
    partial = [[0, 2], [2, 1]] if n > 2 else [[1, 0]]
    groups = [[3, 1, 6], [0, 5]] if n == 8 else [[1, 0]]
    return [
        _op_case("all_to_all_partitions", grid, "stablehlo.all_to_all",
                 [("f32", (2 * n, 3)), ("bf16", (n, 2))],
                 [("f32", (2, 3 * n)), ("bf16", (1, 2 * n))],
                 f"split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = {n} : i64, "
                 f"replica_groups = {_dense([_scramble(n)])}, {CHANNEL}"),
        _op_case("collective_permute_ring_c64", grid, "stablehlo.collective_permute",
                 [("complex<f32>", (3,))], [("complex<f32>", (3,))],
                 f"source_target_pairs = {_dense(ring)}, {CHANNEL}"),
        _op_case("collective_permute_partial_bool", grid, "stablehlo.collective_permute",
                 [("i1", (4,))], [("i1", (4,))],
                 f"source_target_pairs = {_dense(partial)}, {CHANNEL}"),
        _op_case("collective_permute_partial_f32", grid, "stablehlo.collective_permute",
                 [("f32", (2, 2))], [("f32", (2, 2))],
                 f"source_target_pairs = {_dense(partial)}, {CHANNEL}"),
        _op_case("collective_broadcast_partitions", grid, "stablehlo.collective_broadcast",
                 [("f32", (2, 2))], [("f32", (2, 2))],
                 f"replica_groups = {_dense(groups)}, {CHANNEL}"),
        _op_case("collective_broadcast_partitions_bf16", grid, "stablehlo.collective_broadcast",
                 [("bf16", (3,))], [("bf16", (3,))],
                 f"replica_groups = {_dense(groups)}, {CHANNEL}"),
    ]


def _replica_cases(grid: tuple[int, int]) -> list[Case]:
    """The same ops across replicas (no channel)."""
    r, n = grid
    if r == 1:
        return []
    return [
        _op_case("all_to_all_replicas", grid, "stablehlo.all_to_all", [("i32", (2 * r, 2))],
                 [("i32", (2 * r, 2))],
                 f"split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = {r} : i64, "
                 f"replica_groups = {_dense([list(range(r))[::-1]])}"),
        _op_case("collective_permute_replicas", grid, "stablehlo.collective_permute",
                 [("f32", (3,))], [("f32", (3,))], f"source_target_pairs = {_dense([[0, 1]])}"),
        _op_case("collective_broadcast_replicas", grid, "stablehlo.collective_broadcast",
                 [("complex<f32>", (2,))], [("complex<f32>", (2,))],
                 f"replica_groups = {_dense([list(range(r))[::-1]])}"),
    ]


def _ids_case(grid: tuple[int, int]) -> Case:
    body = """  func.func @main(%x: tensor<3xf32>) -> (tensor<ui32>, tensor<ui32>, tensor<3xf32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    %ten = stablehlo.constant dense<10> : tensor<ui32>
    %rt = stablehlo.multiply %r, %ten : tensor<ui32>
    %id = stablehlo.add %rt, %p : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %y = stablehlo.multiply %x, %k : tensor<3xf32>
    return %r, %p, %y : tensor<ui32>, tensor<ui32>, tensor<3xf32>
  }"""
    return Case("replica_and_partition_ids", _module(*grid, body), (("f32", (3,)),))


def _all_reduce_text(kind: str, shape: tuple[int, ...], groups: list[list[int]], x: str) -> str:
    t = _t(kind, shape)
    return (f"%s = \"stablehlo.all_reduce\"({x}) {_region(kind, 'sub2')} {{replica_groups = "
            f"{_dense(groups)}, {CHANNEL}, use_global_device_ids}} : ({t}) -> {t}")


def _sdy_cases(grid: tuple[int, int]) -> list[Case]:
    """sdy.manual_computation: full and partial manual, an all_reduce over "x" inside, results
    gathered (tiled, and replicated over "x")."""
    r, n = grid
    if n == 8:  # mesh x=2, y=4: device 4x + y; "x" pairs devices y and 4 + y
        mesh = '  sdy.mesh @mesh = <["x"=2, "y"=4]>\n'
        x_groups = [[y, 4 + y] for y in range(4)]
        forms = [  # name, global shape, tile, sharding, manual axes, 2nd out sharding, its shape
            ("full_manual", (4, 8), (2, 2), '[{"x"}, {"y"}]', '{"x", "y"}', '[{}, {"y"}]', (2, 8)),
            ("partial_manual", (4, 3), (2, 3), '[{"x", ?}, {?}]', '{"x"}', "[{}, {?}]", (2, 3)),
        ]
    else:  # mesh x=2 over the partitions of each replica
        mesh = '  sdy.mesh @mesh = <["x"=2]>\n'
        x_groups = [[k * n, k * n + 1] for k in range(r)]
        forms = [("full_manual", (4, 3), (2, 3), '[{"x"}, {}]', '{"x"}', "[{}, {}]", (2, 3))]
    cases = []
    for name, shape, tile, sharding, manual, out2, shape2 in forms:
        t, u, t2 = _t("f32", shape), _t("f32", tile), _t("f32", shape2)
        body = f"""  func.func public @main(%a: {t}) -> ({t}, {t2}) {{
    %0:2 = sdy.manual_computation(%a) in_shardings=[<@mesh, {sharding}>] out_shardings=[<@mesh, {sharding}>, <@mesh, {out2}>] manual_axes={manual} (%b: {u}) {{
      {_all_reduce_text("f32", tile, x_groups, "%b")}
      %pid = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> {u}
      %m = stablehlo.subtract %b, %k : {u}
      sdy.return %m, %s : {u}, {u}
    }} : ({t}) -> ({t}, {t2})
    return %0#0, %0#1 : {t}, {t2}
  }}"""
        cases.append(Case(f"sdy_{name}_gathers", _module(*grid, body, mesh), (("f32", shape),),
                          same_args=True))
    return cases


def _gspmd_case(grid: tuple[int, int]) -> Case:
    r, n = grid
    if n == 8:
        shape, tile, sharding = (8, 4), (2, 2), "{devices=[4,2]<=[8]}"
    else:
        shape, tile, sharding = (4, 3), (2, 3), "{devices=[2,1]<=[2]}"
    t, u = _t("f32", shape), _t("f32", tile)
    groups = [[k * n + q for q in _scramble(n)] for k in range(r)]
    body = f"""  func.func @main(%x: {t}) -> {t} {{
    %0 = stablehlo.custom_call @Sharding(%x) {{mhlo.sharding = "{sharding}"}} : ({t}) -> {t}
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {{mhlo.sharding = "{{manual}}"}} : ({t}) -> {u}
    %2 = call @body(%1) : ({u}) -> {u}
    %3 = stablehlo.custom_call @Sharding(%2) {{mhlo.sharding = "{{manual}}"}} : ({u}) -> {u}
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {{mhlo.sharding = "{sharding}"}} : ({u}) -> {t}
    return %4 : {t}
  }}
  func.func private @body(%u: {u}) -> {u} {{
    {_all_reduce_text("f32", tile, groups, "%u")}
    %r = stablehlo.add %u, %s : {u}
    return %r : {u}
  }}"""
    return Case("gspmd_shard_to_full_gather", _module(*grid, body), (("f32", shape),),
                same_args=True)


def _feeds_case(grid: tuple[int, int]) -> Case:
    body = """  func.func @feed() -> tensor<2xui32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %r = stablehlo.replica_id : tensor<ui32>
    %a = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %b = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %c = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    return %c : tensor<2xui32>
  }
  func.func @main(%x: tensor<3xf32>, %y: tensor<2xbf16>) -> tensor<2xui32> {
    %t = stablehlo.after_all : !stablehlo.token
    %f:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    %o = "stablehlo.outfeed"(%x, %f#0, %f#1) : (tensor<3xf32>, tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    %o2 = "stablehlo.outfeed"(%y, %o) : (tensor<2xbf16>, !stablehlo.token) -> !stablehlo.token
    interpreter.print %f#0 : tensor<2xui32>
    %p = stablehlo.partition_id : tensor<ui32>
    check.expect_eq_const %p, dense<1> : tensor<ui32>
    return %f#0 : tensor<2xui32>
  }"""
    return Case("infeed_outfeed_print_check", _module(*grid, body),
                (("f32", (3,)), ("bf16", (2,))), infeed=("feed",))


def _send_recv_case(grid: tuple[int, int]) -> Case:
    """send then recv on one channel, through the broker (MPI only: in the threaded run any
    process may receive any process's values, so the result is its own argument only here)."""
    body = """  func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 2>, is_host_transfer = true} : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
    %y:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
    return %y#0 : tensor<3xf32>
  }"""
    return Case("send_recv_through_the_broker", _module(*grid, body), (("f32", (3,)),),
                threaded=False, expect=lambda args: [args[0]])


#: the small chunk of the `_chunks` cases: 6 bytes per rank and round on 8 ranks (pieces that
#: split elements), 12 on 4
SMALL_CHUNK = 48


def _chunked(case: Case) -> Case:
    return dataclasses.replace(case, name=f"{case.name}_chunks_of_{SMALL_CHUNK}",
                               chunk=SMALL_CHUNK)


def cases(grid_name: str) -> list[Case]:
    grid = GRIDS[grid_name]
    listed = [
        *_reduce_cases(grid), *_gather_cases(grid), *_partition_cases(grid),
        *_replica_cases(grid), _ids_case(grid), *_sdy_cases(grid), _gspmd_case(grid),
        _feeds_case(grid), _send_recv_case(grid),
    ]
    again = {"all_reduce_f32_sub2_halves_0d_empty", "all_gather_bf16_c64_i32_empty",
             "gspmd_shard_to_full_gather", "infeed_outfeed_print_check"}
    return listed + [_chunked(c) for c in listed if c.name in again]


# ------------------------------------------------------------------------------ running a process


@dataclass
class Outcome:
    """What one process of a case left: its results, prints, check failures and outfeed."""

    results: list[Any]
    prints: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    outfeed: list[list[Any]] = field(default_factory=list)


def run_process(
    parent: Evaluator, case: Case, grid: GridShape, rank: int, *,
    failures: list[Any], print_sink: Callable[[str], Any], outfeed: list[Any] | None = None,
) -> list[Any]:
    """Process `rank` of `case` on `grid`, as ``call_spmd`` runs one (`process_evaluator`: a
    copy of `parent` with its own ProcessContext and check-failure list), printing to
    `print_sink`; what it writes to the outfeed is added to `outfeed`."""
    child = process_evaluator(parent, grid, rank, failures=failures)
    child.print_sink = print_sink  # type: ignore[attr-defined]
    if outfeed is not None:
        child.process.outfeed = outfeed
    return child.call("main", coerce_args(child, "main", case.args(rank)))


def threaded_outcomes(case: Case, grid_name: str) -> list[Outcome]:
    """Every process of `case` run in-process (threads on a `ProcessGrid`), in rank order."""
    replicas, partitions = GRIDS[grid_name]
    size = replicas * partitions
    grid = ProcessGrid(replicas, partitions, list(case.infeed) * size)
    parent = Evaluator(parse(case.text))
    outcomes = [Outcome([]) for _ in range(size)]

    def work(rank: int) -> list[Any]:
        failures: list[Any] = []
        results = run_process(parent, case, grid, rank, failures=failures,
                              print_sink=outcomes[rank].prints.append,
                              outfeed=outcomes[rank].outfeed)
        outcomes[rank].failures = [str(f) for f in failures]
        return results

    results = grid.run_processes([lambda k=k: work(k) for k in range(size)])
    for rank, got in enumerate(results):
        outcomes[rank].results = list(got)
    return outcomes


# ----------------------------------------------------------------------------- bytes, files


def fingerprint(values: list[Any]) -> list[list[Any]]:
    """[dtype code, shape, hex of the C-ordered bytes] per value: equal iff the bits are."""
    out = []
    for v in values:
        a = np.ascontiguousarray(np.asarray(v))
        raw = a.reshape(-1).view(np.uint8).tobytes()
        out.append([wire.dtype_code(a.dtype), list(a.shape), raw.hex()])
    return out


def save_values(path: Path, values: list[Any]) -> None:
    """`values` as raw bytes (members v0, v1, ...) and their dtypes and shapes (member meta)."""
    arrays = [np.ascontiguousarray(np.asarray(v)) for v in values]
    meta = json.dumps([[wire.dtype_code(a.dtype), list(a.shape)] for a in arrays])
    members = {f"v{i}": a.reshape(-1).view(np.uint8) for i, a in enumerate(arrays)}
    np.savez(path, meta=np.frombuffer(meta.encode(), np.uint8), **members)


def load_values(path: Path) -> list[list[Any]]:
    """What `save_values` wrote, as `fingerprint` gives it."""
    with np.load(path) as z:
        meta = json.loads(z["meta"].tobytes().decode())
        return [[code, shape, z[f"v{i}"].tobytes().hex()] for i, (code, shape) in enumerate(meta)]


# ---------------------------------------------------------------------------------- the driver


class LocalBroker:
    """Stands in for rank 0's broker: this rank's own FIFO per channel and infeed list."""

    def __init__(self, infeed: tuple[str, ...]) -> None:
        self.queues: dict[int, deque[list[Any]]] = defaultdict(deque)
        self.entries = deque(infeed)
        self.calls: list[list[Any]] = []

    def send(self, channel_id: int, values: list[Any]) -> None:
        self.calls.append(["send", channel_id, len(values)])
        self.queues[channel_id].append(values)

    def recv(self, channel_id: int) -> list[Any]:
        self.calls.append(["recv", channel_id])
        return self.queues[channel_id].popleft()

    def infeed_next(self) -> Any:
        self.calls.append(["infeed"])
        return self.entries.popleft() if self.entries else None


def _run_case(case: Case, grid_name: str, rank: int, out: Path) -> None:
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = GRIDS[grid_name]
    broker = LocalBroker(case.infeed)
    chunk = {} if case.chunk is None else {"chunk": case.chunk}
    grid = MpiGrid(replicas, partitions, broker=broker, timeout=60, **chunk)
    try:
        results = run_process(Evaluator(parse(case.text)), case, grid, rank,
                              failures=grid.failures, print_sink=grid.add_print)
        items = grid.gather_to_root()
    finally:
        grid.close()
    where = out / case.name
    where.mkdir(parents=True, exist_ok=True)
    save_values(where / f"rank{rank}.npz", list(results))
    (where / f"broker{rank}.json").write_text(json.dumps(broker.calls))
    if items is not None:
        (where / "items.json").write_text(json.dumps([
            {"rank": it.rank, "process": list(it.process), "prints": it.prints,
             "failures": [str(f) for f in it.failures],
             "outfeed": [fingerprint(v) for v in it.outfeed]}
            for it in items
        ]))


def _grid_checks(grid_name: str, rank: int) -> dict[str, Any]:
    """The grid's own errors on real ranks: send/recv/infeed without a broker; a rendezvous one
    member of which arrives after the others gave up (the threaded grid's timeout message, on
    every member, the late one too); a rendezvous one member of which never comes, ended by the
    abort flag."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.interpreter.mpi.grid import MpiGrid

    replicas, partitions = GRIDS[grid_name]
    report: dict[str, Any] = {"rank": rank}
    grid = MpiGrid(replicas, partitions)  # the ranks come here apart (rank 0 writes the items)
    grid.timeout = 0.5  # for the rendezvous below
    for name, call in [("send", lambda: grid.send(3, [np.zeros(2)])),
                       ("recv", lambda: grid.recv(3)), ("infeed", grid.infeed)]:
        try:
            call()
            report[name] = None
        except StableHLOError as e:
            report[name] = [type(e).__name__, str(e)]
    members = tuple(grid.pid_of(k) for k in (0, 1, 2))
    if rank in (0, 1, 2):
        if rank == 2:
            time.sleep(1.5)
        start = time.monotonic()
        try:
            grid.rendezvous(members, 9, grid.pid, [np.ones(2)])
            report["late"] = None
        except StableHLOError as e:
            report["late"] = str(e)
        report["late_wait"] = time.monotonic() - start
    stop = threading.Event()
    grid = MpiGrid(replicas, partitions, timeout=60, aborted=stop)
    members = tuple(grid.pid_of(k) for k in (0, 1, 3))
    if rank in (0, 1):  # rank 3 never comes: the run's abort flag ends the wait
        threading.Timer(0.3, stop.set).start()
        start = time.monotonic()
        try:
            grid.rendezvous(members, 9, grid.pid, [np.ones(2)])
            report["aborted"] = None
        except StableHLOError as e:
            report["aborted"] = [type(e).__name__, str(e)]
        report["aborted_wait"] = time.monotonic() - start
    return report


def main(argv: list[str]) -> int:
    from stablehlo_py.interpreter.mpi import require_mpi

    out, grid_name = Path(argv[0]), argv[1]
    comm = require_mpi().COMM_WORLD
    rank = comm.Get_rank()
    replicas, partitions = GRIDS[grid_name]
    if comm.Get_size() != replicas * partitions:
        raise SystemExit(f"grid {grid_name} needs mpirun -n {replicas * partitions}")
    times: dict[str, float] = {}
    start = time.monotonic()
    for case in cases(grid_name):
        t = time.monotonic()
        _run_case(case, grid_name, rank, out)
        times[case.name] = time.monotonic() - t
    times["all cases"] = time.monotonic() - start
    checks = _grid_checks(grid_name, rank)
    (out / f"checks{rank}.json").write_text(json.dumps(checks))
    if rank == 0:
        (out / "times.json").write_text(json.dumps(times))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
