"""The shard plan (interpreter/shard_plan.py): which entry arguments reach the shard_map regions as
each process's tiles and which results stay tiles, decided from the program's text (Shardy and GSPMD
forms, full and partial manual, nested regions, a private call, hand-offs between regions, and the
uses that need a whole value); the region impls' flags (no slice of a given tile, no gather of a
kept result); and `call_spmd(..., tiles=True)`, which gives each process its tiles only and
assembles the results, with the same bytes as the run without a plan, on hand-written programs and
on every program of tests/data/mpi/.  Needs neither jax nor MPI."""

from __future__ import annotations

import gzip
import json
import re
import resource
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter.custom_calls.spmd import call_spmd, run_spmd
from stablehlo_py.interpreter.evaluator import Evaluator, ProcessContext
from stablehlo_py.interpreter.impls.process_grid import GridShape, ProcessGrid
from stablehlo_py.interpreter.shard_plan import RegionFlags, shard_plan
from xdsl.dialects.builtin import UnitAttr

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

DATA = Path(__file__).resolve().parents[2] / "data" / "mpi"
MANIFEST = json.loads((DATA / "manifest.json").read_text())

MESH = 'sdy.mesh @mesh = <["x"=2, "y"=2]>'
PSUM_X = """"stablehlo.all_reduce"({v}) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}}> ({{
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %r = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }}) : (tensor<{shape}xf32>) -> tensor<{shape}xf32>"""
SCALE_BY_PID = """%pid = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %g = stablehlo.add %f, %one : tensor<f32>
      %k = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<{shape}xf32>
      %m = stablehlo.multiply {v}, %k : tensor<{shape}xf32>"""


def _module(body: str, partitions: int = 4, replicas: int = 1, mesh: str = MESH) -> str:
    return (
        f"module @t attributes {{mhlo.num_partitions = {partitions} : i32, "
        f"mhlo.num_replicas = {replicas} : i32}} {{\n  {mesh}\n{body}\n}}\n"
    )


# full manual over x and y: the argument reaches the region through a sharding_constraint; result 0
# is tiled over both axes, result 1 (a psum over x) only over y
FULL = _module(
    """  func.func public @main(%a: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2x6xf32>) {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x6xf32>
    %1:2 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}, {"y"}]>] manual_axes={"x", "y"} (%b: tensor<2x3xf32>) {
      %s = """
    + PSUM_X.format(v="%b", shape="2x3")
    + "\n      "
    + SCALE_BY_PID.format(v="%b", shape="2x3")
    + """
      sdy.return %m, %s : tensor<2x3xf32>, tensor<2x3xf32>
    } : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2x6xf32>)
    return %1#0, %1#1 : tensor<4x6xf32>, tensor<2x6xf32>
  }"""
)

# manual over x only: y is free (its devices hold the same rows)
PARTIAL = _module(
    """  func.func public @main(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%b: tensor<2x2xf32>) {
      %s = """
    + PSUM_X.format(v="%b", shape="2x2")
    + """
      %t = stablehlo.add %b, %s : tensor<2x2xf32>
      sdy.return %t : tensor<2x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }"""
)

NESTED = _module(
    """  func.func public @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<2x4xf32>) {
      %1 = sdy.manual_computation(%b) in_shardings=[<@mesh, [{}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"y"} (%c: tensor<2x2xf32>) {
      """
    + SCALE_BY_PID.format(v="%c", shape="2x2")
    + """
        sdy.return %m : tensor<2x2xf32>
      } : (tensor<2x4xf32>) -> tensor<2x4xf32>
      sdy.return %1 : tensor<2x4xf32>
    } : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }"""
)


def _region(name: str, operand: str, ins: str, outs: str, shape: str, local: str) -> str:
    """A manual region over x and y scaling its tile by (partition id + 1)."""
    return (
        f"""%{name} = sdy.manual_computation({operand}) in_shardings=[<@mesh, {ins}>] out_shardings=[<@mesh, {outs}>] manual_axes={{"x", "y"}} (%b: tensor<{local}xf32>) {{
      """
        + SCALE_BY_PID.format(v="%b", shape=local)
        + f"""
      sdy.return %m : tensor<{local}xf32>
    }} : (tensor<{shape}xf32>) -> tensor<{shape}xf32>"""
    )


TILED = '[{"x"}, {"y"}]'

# two regions handing a value over with the same tiling (the second slices it as the first
# placed it)
HANDOFF = _module(
    f"""  func.func public @main(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {{
    {_region("r1", "%a", TILED, TILED, "4x6", "2x3")}
    %c = sdy.sharding_constraint %r1 <@mesh, [{{"x"}}, {{"y"}}]> : tensor<4x6xf32>
    {_region("r2", "%c", TILED, TILED, "4x6", "2x3")}
    return %r2 : tensor<4x6xf32>
  }}"""
)

# the same with the second region slicing the other way: the first region's result is gathered
HANDOFF_OTHER_WAY = HANDOFF.replace(
    'sdy.manual_computation(%c) in_shardings=[<@mesh, [{"x"}, {"y"}]>]',
    'sdy.manual_computation(%c) in_shardings=[<@mesh, [{"y"}, {"x"}]>]',
)

# the argument also feeds global code; the region's result too (besides the return)
MIXED = _module(
    f"""  func.func public @main(%a: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {{
    {_region("r1", "%a", TILED, TILED, "4x6", "2x3")}
    %e = stablehlo.exponential %a : tensor<4x6xf32>
    %s = stablehlo.add %r1, %e : tensor<4x6xf32>
    return %r1, %s : tensor<4x6xf32>, tensor<4x6xf32>
  }}"""
)

# the region sits in a private function called from one place, the argument passes through it
THROUGH_CALL = _module(
    f"""  func.func public @main(%a: tensor<4x6xf32>, %z: tensor<2xf32>) -> (tensor<4x6xf32>, tensor<2xf32>) {{
    %0 = call @inner(%a) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    return %0, %z : tensor<4x6xf32>, tensor<2xf32>
  }}
  func.func private @inner(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {{
    {_region("r1", "%a", TILED, TILED, "4x6", "2x3")}
    return %r1 : tensor<4x6xf32>
  }}"""
)

CALLED_TWICE = THROUGH_CALL.replace(
    "    return %0, %z",
    "    %1 = call @inner(%0) : (tensor<4x6xf32>) -> tensor<4x6xf32>\n    return %1, %z",
)

# JAX's GSPMD form over 2 devices; 5 rows do not split evenly: XLA pads device 1's shard to 3 rows
GSPMD = """module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<ROWSx2xf32>) -> tensor<ROWSx2xf32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<ROWSx2xf32>) -> tensor<ROWSx2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<ROWSx2xf32>) -> tensor<LOCALx2xf32>
    %2 = call @body(%1) : (tensor<LOCALx2xf32>) -> tensor<LOCALx2xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<LOCALx2xf32>) -> tensor<LOCALx2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<LOCALx2xf32>) -> tensor<ROWSx2xf32>
    return %4 : tensor<ROWSx2xf32>
  }
  func.func private @body(%u: tensor<LOCALx2xf32>) -> tensor<LOCALx2xf32> {
    %s = "stablehlo.all_reduce"(%u) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<LOCALx2xf32>) -> tensor<LOCALx2xf32>
    %r = stablehlo.add %u, %s : tensor<LOCALx2xf32>
    return %r : tensor<LOCALx2xf32>
  }
}
"""


def _gspmd(rows: int, local: int) -> str:
    return GSPMD.replace("ROWS", str(rows)).replace("LOCAL", str(local))


def _ops(module, name: str, target: str | None = None) -> list:
    return [
        op for op in module.walk()
        if op.name == name and (target is None or op.properties["call_target_name"].data == target)
    ]


def _bounds(decision) -> list[list[tuple[int, int]]]:
    return [list(b) for b in decision.tiling.bounds]


class _Counting(ProcessGrid):
    """The threaded grid, counting the shard_map gathers."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.gathers = 0
        self._lock = threading.Lock()

    def gather_tiles(self, group, channel_id, pid, tiles):
        with self._lock:
            self.gathers += 1
        return super().gather_tiles(group, channel_id, pid, tiles)


def _run(module, args, tiles: bool, monkeypatch) -> tuple[list[np.ndarray], int]:
    """`call_spmd` on the module's grid; its results and how many gathers the processes made."""
    import stablehlo_py.interpreter.impls.collectives as collectives

    grids: list[_Counting] = []

    def make(*a, **k):
        grids.append(_Counting(*a, **k))
        return grids[-1]

    monkeypatch.setattr(collectives, "ProcessGrid", make)
    ev = Evaluator(module)
    attrs = module.attributes
    n = attrs["mhlo.num_partitions"].value.data
    r = attrs["mhlo.num_replicas"].value.data if "mhlo.num_replicas" in attrs else 1
    got = call_spmd(ev, "main", args, n, replicas=r, tiles=tiles)
    assert not ev.failures
    return [np.asarray(g) for g in got], grids[0].gathers


def _same_bytes(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    def key(xs: list[np.ndarray]) -> list:
        return [(x.dtype, x.shape, x.tobytes()) for x in xs]

    return key(a) == key(b)


# ------------------------------------------------------------------------------ decisions
def test_full_manual_argument_and_results_are_tiles(monkeypatch) -> None:
    module = parse(FULL)
    plan = shard_plan(module)
    (arg,), (r0, r1) = plan.args, plan.results
    assert arg.kind == r0.kind == r1.kind == "tile"
    # device 2x + y holds rows x, columns y
    assert _bounds(arg) == [[(0, 2), (0, 3)], [(0, 2), (3, 6)], [(2, 4), (0, 3)], [(2, 4), (3, 6)]]
    assert arg.tiling.local == (2, 3)
    assert arg.index(0, 3) == arg.index(1, 3) == (slice(2, 4), slice(3, 6))
    assert r1.tiling.shape == (2, 6) and r1.tiling.local == (2, 3)
    # result 1 is tiled over y only: devices 2 and 3 hold what 0 and 1 hold, the lower rank writes
    assert [r1.tiling.writer(p) for p in range(4)] == [0, 1, 0, 1]
    assert [r1.writes(0, p) for p in range(4)] == [True, True, False, False]
    (region,) = _ops(module, "sdy.manual_computation")
    assert plan.flags(region) == RegionFlags((True,), (True, True))
    a = np.arange(24, dtype=np.float32).reshape(4, 6) - 7
    plain, plain_gathers = _run(module, [a], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled)
    assert (plain_gathers, tiled_gathers) == (4, 0)


def test_partial_manual_free_axis_holds_the_same_tile(monkeypatch) -> None:
    module = parse(PARTIAL)
    plan = shard_plan(module)
    (arg,), (res,) = plan.args, plan.results
    assert _bounds(arg) == [[(0, 2), (0, 2)], [(0, 2), (0, 2)], [(2, 4), (0, 2)], [(2, 4), (0, 2)]]
    assert res.tiling == arg.tiling and 'manual axes {"x"}' in arg.reason
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    plain, _ = _run(module, [a], False, monkeypatch)
    tiled, gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled) and gathers == 0


def test_nested_regions_use_the_outer_tile(monkeypatch) -> None:
    module = parse(NESTED)
    plan = shard_plan(module)
    outer, inner = _ops(module, "sdy.manual_computation")
    assert plan.args[0].tiling.local == (2, 4) and plan.results[0].kind == "tile"
    assert plan.flags(outer) == RegionFlags((True,), (True,))
    assert plan.flags(inner) is None  # per-device code: runs as without a plan
    a = np.zeros((4, 4), np.float32)
    plain, plain_gathers = _run(module, [a], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled)
    assert (plain_gathers, tiled_gathers) == (8, 4)  # the inner region still gathers


def test_gspmd_form(monkeypatch) -> None:
    module = parse(_gspmd(4, 2))
    plan = shard_plan(module)
    (arg,), (res,) = plan.args, plan.results
    assert _bounds(arg) == [[(0, 2), (0, 2)], [(2, 4), (0, 2)]] and res.tiling == arg.tiling
    assert "@SPMDFullToShardShape under @Sharding {devices=[2,1]<=[2]}" in arg.line()
    (full_to_shard,) = _ops(module, "stablehlo.custom_call", "SPMDFullToShardShape")
    (shard_to_full,) = _ops(module, "stablehlo.custom_call", "SPMDShardToFullShape")
    assert plan.flags(full_to_shard) == RegionFlags((True,), (False,))
    assert plan.flags(shard_to_full) == RegionFlags((False,), (True,))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    plain, plain_gathers = _run(module, [x], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [x], True, monkeypatch)
    assert _same_bytes(plain, tiled) and (plain_gathers, tiled_gathers) == (2, 0)


def test_uneven_gspmd_shards_are_padded_and_cropped(monkeypatch) -> None:
    module = parse(_gspmd(5, 3))
    plan = shard_plan(module)
    arg = plan.args[0]
    assert _bounds(arg) == [[(0, 3), (0, 2)], [(3, 5), (0, 2)]] and arg.tiling.local == (3, 2)
    x = np.arange(10, dtype=np.float32).reshape(5, 2) + 1
    (given,) = plan.local_args([x], 0, 1)
    assert given.shape == (2, 2)  # the part inside the value; the region pads it
    assert arg.tiling.crop(np.ones((3, 2)), 1).shape == (2, 2)
    plain, _ = _run(module, [x], False, monkeypatch)
    tiled, gathers = _run(module, [x], True, monkeypatch)
    assert _same_bytes(plain, tiled) and gathers == 0


def test_through_a_private_function_called_once(monkeypatch) -> None:
    module = parse(THROUGH_CALL)
    plan = shard_plan(module)
    assert [d.kind for d in (*plan.args, *plan.results)] == ["tile", "whole", "tile", "whole"]
    assert plan.args[1].reason == "returned as is (result 1)"
    assert plan.results[1].reason == "the entry's argument #1, returned as is"
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    z = np.array([1.0, 2.0], np.float32)
    plain, _ = _run(module, [a, z], False, monkeypatch)
    tiled, gathers = _run(module, [a, z], True, monkeypatch)
    assert _same_bytes(plain, tiled) and gathers == 0


def test_function_called_from_two_places_is_global_code(monkeypatch) -> None:
    module = parse(CALLED_TWICE)
    plan = shard_plan(module)
    assert plan.args[0].kind == plan.results[0].kind == "whole"
    assert re.fullmatch(r"used by func\.call @inner at -:\d+:\d+", plan.args[0].reason)
    assert re.fullmatch(r"computed by func\.call @inner at -:\d+:\d+", plan.results[0].reason)
    assert not any(plan.flags(op) for op in _ops(module, "sdy.manual_computation"))
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    z = np.zeros(2, np.float32)
    plain, _ = _run(module, [a, z], False, monkeypatch)
    tiled, _ = _run(module, [a, z], True, monkeypatch)
    assert _same_bytes(plain, tiled)


def test_values_global_code_needs_stay_whole(monkeypatch) -> None:
    module = parse(MIXED)
    plan = shard_plan(module)
    (arg,), (r0, r1) = plan.args, plan.results
    assert arg.kind == r0.kind == r1.kind == "whole"
    assert re.fullmatch(r"used by stablehlo\.exponential at -:\d+:\d+", arg.reason)
    assert re.match(r"gathered: used by stablehlo\.add at -:\d+:\d+ \(from sdy\.manual", r0.reason)
    assert re.fullmatch(r"computed by stablehlo\.add at -:\d+:\d+", r1.reason)
    (region,) = _ops(module, "sdy.manual_computation")
    assert plan.flags(region) is None
    assert arg.line().startswith("arg 0: whole: used by stablehlo.exponential at ")
    a = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    plain, plain_gathers = _run(module, [a], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled) and plain_gathers == tiled_gathers == 4


def test_a_use_inside_a_branch_needs_the_whole_value(monkeypatch) -> None:
    module = parse(_module(
        f"""  func.func public @main(%a: tensor<4x6xf32>, %i: tensor<i32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {{
    {_region("r1", "%a", TILED, TILED, "4x6", "2x3")}
    %c = "stablehlo.case"(%i) ({{
      stablehlo.return %r1 : tensor<4x6xf32>
    }}, {{
      %n = stablehlo.negate %a : tensor<4x6xf32>
      stablehlo.return %n : tensor<4x6xf32>
    }}) : (tensor<i32>) -> tensor<4x6xf32>
    return %r1, %c : tensor<4x6xf32>, tensor<4x6xf32>
  }}"""))
    plan = shard_plan(module)
    assert re.fullmatch(r"used by stablehlo\.negate inside stablehlo\.case at -:\d+:\d+",
                        plan.args[0].reason)
    assert plan.results[0].reason.startswith("gathered: used by stablehlo.return inside "
                                             "stablehlo.case at ")
    assert re.fullmatch(r"computed by stablehlo\.case at -:\d+:\d+", plan.results[1].reason)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    for i in (0, 1):
        plain, _ = _run(module, [a, np.int32(i)], False, monkeypatch)
        tiled, _ = _run(module, [a, np.int32(i)], True, monkeypatch)
        assert _same_bytes(plain, tiled)


def test_two_regions_hand_off_with_equal_tilings(monkeypatch) -> None:
    module = parse(HANDOFF)
    plan = shard_plan(module)
    first, second = _ops(module, "sdy.manual_computation")
    assert plan.flags(first) == RegionFlags((True,), (True,))
    assert plan.flags(second) == RegionFlags((True,), (True,))
    assert plan.args[0].kind == plan.results[0].kind == "tile"
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    plain, plain_gathers = _run(module, [a], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled) and (plain_gathers, tiled_gathers) == (8, 0)


def test_gspmd_regions_hand_off_with_equal_shardings(monkeypatch) -> None:
    text = _gspmd(4, 2).replace(
        "    return %4 : tensor<4x2xf32>",
        """    %5 = stablehlo.custom_call @Sharding(%4) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %6 = stablehlo.custom_call @SPMDFullToShardShape(%5) {mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<2x2xf32>
    %7 = call @body(%6) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %8 = stablehlo.custom_call @Sharding(%7) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %9 = stablehlo.custom_call @SPMDShardToFullShape(%8) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x2xf32>) -> tensor<4x2xf32>
    return %9 : tensor<4x2xf32>""",
    )
    module = parse(text)
    plan = shard_plan(module)
    assert plan.args[0].kind == plan.results[0].kind == "tile"
    regions = _ops(module, "stablehlo.custom_call", "SPMDFullToShardShape")
    regions += _ops(module, "stablehlo.custom_call", "SPMDShardToFullShape")
    assert [plan.flags(op) for op in regions] == [RegionFlags((True,), (False,))] * 2 + [
        RegionFlags((False,), (True,))] * 2
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    plain, plain_gathers = _run(module, [x], False, monkeypatch)
    tiled, tiled_gathers = _run(module, [x], True, monkeypatch)
    assert _same_bytes(plain, tiled) and (plain_gathers, tiled_gathers) == (4, 0)


def test_a_region_slicing_a_hand_off_another_way_gets_it_gathered(monkeypatch) -> None:
    module = parse(HANDOFF_OTHER_WAY)
    plan = shard_plan(module)
    first, second = _ops(module, "sdy.manual_computation")
    assert plan.flags(first) == RegionFlags((True,), (False,))
    assert plan.flags(second) == RegionFlags((False,), (True,))
    assert plan.results[0].kind == "tile"
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    plain, _ = _run(module, [a], False, monkeypatch)
    tiled, gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled) and gathers == 4


def test_replicas_hold_their_partition_s_tile(monkeypatch) -> None:
    module = parse(HANDOFF.replace("mhlo.num_replicas = 1", "mhlo.num_replicas = 2"))
    plan = shard_plan(module)
    assert (plan.num_replicas, plan.num_partitions) == (2, 4)
    assert plan.results[0].writes(0, 3) and not plan.results[0].writes(1, 3)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert [g.shape for g in plan.local_args([a], 1, 2)] == [(2, 3)]
    plain, _ = _run(module, [a], False, monkeypatch)
    tiled, gathers = _run(module, [a], True, monkeypatch)
    assert _same_bytes(plain, tiled) and gathers == 0
    assert _same_bytes(run_spmd(module, a, tiles=True), plain)


def test_a_region_given_a_global_value_where_the_plan_says_tile_says_so() -> None:
    module = parse(FULL)
    plan = shard_plan(module)

    ev = Evaluator(module, process=ProcessContext(
        partition_id=0, num_partitions=4, grid=ProcessGrid(1, 4), shard_plan=plan))
    with pytest.raises(InterpreterError, match=r"operand #0 should arrive as this process's tile "
                       r"\[2, 3\] of \[4, 6\] \(the shard plan\), but has shape \[4, 6\]"):
        ev.call("main", [np.zeros((4, 6), np.float32)])
    module = parse(_gspmd(4, 2))
    ev = Evaluator(module, process=ProcessContext(
        partition_id=0, num_partitions=2, grid=ProcessGrid(1, 2), shard_plan=shard_plan(module)))
    with pytest.raises(InterpreterError, match=r"should arrive as this process's shard \[2, 2\] "
                       r"of \[4, 2\] \(the shard plan\), but has shape \[4, 2\]"):
        ev.call("main", [np.zeros((4, 2), np.float32)])


def test_plan_is_found_once_per_module_state() -> None:
    module = parse(FULL)
    plan = shard_plan(module)
    assert shard_plan(module) is plan
    assert shard_plan(module, replicas=2, partitions=4) is not plan
    module.attributes["t.changed"] = UnitAttr()
    assert shard_plan(module) is not plan


def test_bad_requests_are_clear_errors() -> None:
    module = parse(FULL)
    with pytest.raises(InterpreterError, match="no function @nope in the module"):
        shard_plan(module, "nope")
    plan = shard_plan(module)
    with pytest.raises(InterpreterError, match=r"process \(replica 0, partition 4\) is outside"):
        plan.local_args([np.zeros((4, 6), np.float32)], 0, 4)
    with pytest.raises(InterpreterError, match="@main takes 1 arguments, 2 were given"):
        plan.local_args([np.zeros((4, 6), np.float32)] * 2, 0, 0)


def test_a_mesh_of_another_size_leaves_values_whole() -> None:
    plan = shard_plan(parse(FULL), partitions=8)
    assert plan.args[0].kind == "whole"
    assert "the mesh has 4 devices but the program runs on 8 partitions" in plan.args[0].reason


# ------------------------------------------------------------------- the programs of tests/data/mpi
def _program(row) -> tuple[object, list[np.ndarray]]:
    with gzip.open(DATA / row["file"], "rt") as fh:
        module = parse(fh.read())
    with np.load(DATA / row["data"]) as data:
        args = [data[f"arg{k}"] for k in range(len(row["args"]))]
    return module, args


def _skipped_gathers(module, plan) -> int:
    """The gathers a run under the plan skips: one per process for each region op at the entry's
    level whose results all stay tiles and which gathers without a plan."""
    skipped = 0
    for op in module.walk():
        flags = plan.flags(op)
        if flags is None or not all(flags.keep_out):
            continue
        if op.name == "stablehlo.custom_call":  # SPMDShardToFullShape gathers a tiled sharding
            skipped += "{devices=" in op.attributes["mhlo.sharding"].data
        else:
            skipped += 1
    return skipped * plan.num_replicas * plan.num_partitions


@pytest.mark.parametrize("name", sorted(r["name"] for r in MANIFEST["programs"]))
def test_tiles_give_the_same_bytes_on_the_mpi_programs(name: str, monkeypatch) -> None:
    row = next(r for r in MANIFEST["programs"] if r["name"] == name)
    module, args = _program(row)
    plan = shard_plan(module)
    kinds = {d.kind for d in plan.args}
    assert kinds == ({"whole"} if row["form"] == "global" else kinds)
    if row["form"] != "global":
        assert plan.args[0].kind == "tile"
    plain, plain_gathers = _run(module, args, False, monkeypatch)
    tiled, tiled_gathers = _run(module, args, True, monkeypatch)
    assert _same_bytes(plain, tiled)
    assert tiled_gathers == plain_gathers - _skipped_gathers(module, plan)


def test_two_regions_program_keeps_the_gather_global_code_needs() -> None:
    row = next(r for r in MANIFEST["programs"] if r["name"] == "two_regions")
    module, _ = _program(row)
    plan = shard_plan(module)
    assert [d.kind for d in (*plan.args, *plan.results)] == ["tile", "whole", "tile"]
    assert plan.args[1].reason.startswith("used by stablehlo.dot_general at ")
    first, second = _ops(module, "sdy.manual_computation")
    assert plan.flags(first) == RegionFlags((True,), (False,))
    assert plan.flags(second) == RegionFlags((False,), (True,))


def test_big_program_decisions() -> None:
    with gzip.open(DATA / MANIFEST["big"]["file"], "rt") as fh:
        plan = shard_plan(parse(fh.read()))
    lines = plan.report().splitlines()
    assert lines[0] == "shard plan of @main (1 replica x 8 partitions):"
    assert lines[1].startswith(
        'arg 0: tile [16, 4194304] of [128, 4194304] by sdy.manual_computation in-sharding '
        '<@mesh, [{"i"}, {}]> (manual axes {"i"}) at ')
    assert lines[2].startswith("result 0: tile [16] of [128] from sdy.manual_computation ")
    assert lines[3].startswith("result 1: tile [4096] of [4096] (every process holds all of it)")
    assert lines[4].startswith("result 2: tile [] of [] (every process holds all of it)")
    assert plan.args[0].index(0, 3) == (slice(48, 64), slice(0, 4194304))


# ---------------------------------------------------------------- one rank on a memory-mapped tile
class _Alone(GridShape):
    """One process standing in for all: every member of a group contributed what it did."""

    def rendezvous(self, group, channel_id, pid, values):
        return {p: values for p in group}

    def send(self, channel_id, values):
        raise AssertionError("no send in this program")

    def recv(self, channel_id):
        raise AssertionError("no recv in this program")

    def infeed(self):
        raise AssertionError("no infeed in this program")

    def add_outfeed(self, pid, values):
        raise AssertionError("no outfeed in this program")


def test_one_rank_runs_big_on_its_memory_mapped_tile_without_copying_it(tmp_path) -> None:
    """`big`'s structure at 1/16 of its columns (a 16 MiB tile of a 128 MiB argument, of which only
    the tile is written): the rank's tile is a view of the memory map, and running the body on it
    allocates far less than the tile (numpy's allocations, as tracemalloc sees them).  The peak RSS
    is printed (-s), not asserted."""
    cols = 1 << 18
    with gzip.open(DATA / MANIFEST["big"]["file"], "rt") as fh:
        text = fh.read()
    text = (text.replace("4194304", str(cols)).replace("4096x1024", f"{cols // 1024}x1024")
            .replace("tensor<4096xf32>", f"tensor<{cols // 1024}xf32>"))
    module = parse(text)
    plan = shard_plan(module)
    partition = 5
    rows = plan.args[0].index(0, partition)[0]
    path = tmp_path / "x.npy"
    x = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(128, cols))
    j = np.arange(cols)
    for i in range(rows.start, rows.stop):
        x[i] = ((i * 7919 + j) % 1000) / 1000 - 0.5
    x.flush()
    del x
    x = np.load(path, mmap_mode="r")
    (tile,) = plan.local_args([x], 0, partition)
    assert tile.shape == (16, cols) and np.shares_memory(tile, x)
    ev = Evaluator(module, process=ProcessContext(
        partition_id=partition, num_partitions=8, grid=_Alone(1, 8), shard_plan=plan))
    ev.call("main", [tile])  # compiled once
    tracemalloc.start()
    try:
        rows_sum, total, top = ev.call("main", [tile])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < tile.nbytes / 4, f"{peak} bytes allocated running on a {tile.nbytes}-byte tile"
    u = np.asarray(tile, np.float64)
    np.testing.assert_allclose(rows_sum, u.sum(axis=1), rtol=1e-5, atol=1e-3)
    blocks = np.asarray(tile).reshape(16, cols // 1024, 1024).max(axis=2)
    np.testing.assert_allclose(total, 8 * blocks.astype(np.float64).sum(axis=0), rtol=1e-5)
    assert float(top) == float(np.max(tile))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"one rank on a {tile.nbytes >> 20} MiB tile: numpy peak {peak / 1024:.0f} KiB, "
          f"process peak RSS {rss:.0f} MB")
