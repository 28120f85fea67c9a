"""Rank program of tests/mpi/test_engine_cli.py: ``python -m tests.mpi.engine_ranks OUT`` under
``mpirun -n 8``.  Every rank runs, through the Python API (``interpreter.run(..., engine="mpi")``):

- each program of :data:`PROGRAMS` (tests/data/mpi) with ``gather="root"``, ``"all"`` and
  ``"none"``, writing ``OUT/<name>.<gather>.rank<r>.json``: what `run` returned (None, or per
  result "array" or "Tile" with its index and global shape, and its bytes: `fingerprint`);
- the CLI's result writer (`translate_mpi.ResultWriter`, `run_rank`'s `deliver`) on each program
  of :data:`WRITTEN`, into ``OUT/<name>.npz`` and ``OUT/<name>.dir/``;
- each program of :data:`CHUNKED` through `run_rank` with MPI transfers of at most
  :data:`CHUNK` bytes: ``gather="root"`` and ``"all"`` (``<name>.chunked_<gather>.rank<r>.json``)
  and the .npz writer (``<name>.chunked.npz``);
- sm_psum with an argument of the wrong shape through `run`: ``OUT/bad_shape.rank<r>.json``;
- :data:`CHECKS` (a program whose check fails on partitions 3 and 6) through `run`, writing
  ``OUT/checks.rank<r>.json``: the exception's type and text.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.tiles import Tile
from stablehlo_py.ir import parse
from tests.mpi.collective_cases import fingerprint

DATA = Path(__file__).parent.parent / "data" / "mpi"
PROGRAMS = ("sm_psum", "sm_all_gather", "sm_psum_scatter", "jit_matmul")
WRITTEN = ("sm_all_gather", "sm_psum_scatter", "jit_matmul")
GATHERS = ("root", "all", "none")
#: run again with every MPI transfer in pieces of CHUNK bytes
CHUNKED = ("sm_all_gather",)
CHUNK = 8

#: the check fails on partitions 3 and 6 (got 3, got 6), after an all_reduce of every partition
CHECKS = """module @checks attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=8]>
  func.func public @main(%a: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %s = "stablehlo.all_reduce"(%b) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %z = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %z : tensor<f32>
      }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xf32>) -> tensor<1xf32>
      %pid = stablehlo.partition_id : tensor<ui32>
      %three = stablehlo.constant dense<3> : tensor<ui32>
      %zero = stablehlo.constant dense<0> : tensor<ui32>
      %rem = stablehlo.remainder %pid, %three : tensor<ui32>
      %ok = stablehlo.compare NE, %rem, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %masked = stablehlo.select %ok, %zero, %pid : tensor<i1>, tensor<ui32>
      check.expect_eq_const %masked, dense<0> : tensor<ui32>
      %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %pp = stablehlo.reshape %p : (tensor<f32>) -> tensor<1xf32>
      %out = stablehlo.add %s, %pp : tensor<1xf32>
      sdy.return %out : tensor<1xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
"""
CHECKS_ARG = np.arange(1, 9, dtype=np.float32)


def program(name: str) -> tuple[str, list[np.ndarray]]:
    """A tests/data/mpi program's text and its arguments."""
    text = gzip.decompress((DATA / f"{name}.mlir.gz").read_bytes()).decode()
    with np.load(DATA / f"{name}.npz") as z:
        args = [z[f"arg{k}"] for k in range(sum(m.startswith("arg") for m in z.files))]
    return text, args


def describe(values: Any) -> Any:
    """What a run returned, as JSON: None, or per value its kind, bytes and (a Tile) place."""
    if values is None:
        return None
    out = []
    for v in values:
        if isinstance(v, Tile):
            out.append({"kind": "Tile", "fp": fingerprint([v.data])[0],
                        "index": [list(b) for b in v.bounds], "global": list(v.global_shape)})
        else:
            out.append({"kind": "array", "fp": fingerprint([v])[0]})
    return out


def main(out: Path) -> int:
    from stablehlo_py.cli.translate_mpi import ResultWriter
    from stablehlo_py.interpreter.mpi.runner import quiet, run_rank

    from mpi4py import MPI

    rank = MPI.COMM_WORLD.Get_rank()
    for name in PROGRAMS:
        text, args = program(name)
        module = parse(text)
        for gather in GATHERS:
            got = run(module, *args, engine="mpi", gather=gather)
            (out / f"{name}.{gather}.rank{rank}.json").write_text(json.dumps(describe(got)))
    for name in WRITTEN:
        text, args = program(name)
        module = parse(text)
        for target in (str(out / f"{name}.npz"), str(out / f"{name}.dir") + "/"):
            writer = ResultWriter(target, module, "main", None)
            run_rank(module, args, gather="none", deliver=writer)
    for name in CHUNKED:  # tiles and results in pieces of 64 bytes
        text, args = program(name)
        module = parse(text)
        for gather in ("root", "all"):
            got = run_rank(module, args, gather=gather, chunk=CHUNK).results
            (out / f"{name}.chunked_{gather}.rank{rank}.json").write_text(json.dumps(describe(got)))
        target = str(out / f"{name}.chunked.npz")
        run_rank(module, args, gather="none", chunk=CHUNK,
                 deliver=ResultWriter(target, module, "main", None))
    text, (a, b) = program("sm_psum")
    try:  # a wrong shape: said before the run, by every rank alike
        run(text, a[:2], b, engine="mpi")
        outcome = {"type": None, "text": "", "quiet": False}
    except StableHLOError as e:
        outcome = {"type": type(e).__name__, "text": str(e), "quiet": quiet(e)}
    (out / f"bad_shape.rank{rank}.json").write_text(json.dumps(outcome))
    try:
        run(CHECKS, CHECKS_ARG, engine="mpi")
        outcome = {"type": None, "text": ""}
    except StableHLOError as e:
        outcome = {"type": type(e).__name__, "text": str(e)}
    (out / f"checks.rank{rank}.json").write_text(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
