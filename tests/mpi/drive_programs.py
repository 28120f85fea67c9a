"""Rank program of tests/mpi/test_programs.py (issue 29's first done-when, plan §5.1):
``python -m tests.mpi.drive_programs OUT [NAME ...]`` under ``mpirun -n 8``, one launch for every
program of tests/data/mpi (all of the manifest's, or the NAMEs given).

Every rank, for each program in manifest order:

1. runs it through the public API, ``interpreter.run(module, *args, engine="mpi",
   gather="root")``, on the committed arguments (numpy arrays, as a user passes them); rank 0
   writes the results as ``OUT/<name>.npz`` (members ``out<k>``, ``np.savez``: dtype, shape and
   bytes kept), or the error as ``OUT/<name>.error.txt`` (and goes on with the next program);
2. when the shard plan holds any argument or result as tiles (the shard_map programs), runs it
   again through ``run_rank(..., gather="none")`` with each argument wrapped in a
   :class:`Recorder` (an h5py-like argument: ``.shape``, ``.dtype``, slicing) that notes what the
   rank read of it; every rank writes ``OUT/<name>.plan.rank<r>.json``: the reads per argument,
   what it was handed (per result a ``Tile`` with its bounds, or an array) with the bytes
   (`fingerprint`), and on rank 0 the plan's report as the run saw it (`RankRun.plan`).

At the end rank 0 writes ``OUT/driver.json``: the seconds each step of each program took on rank 0,
the network interfaces rank 0 sees (``socket.if_nameindex()``) and the MPI settings of its
environment (``OMPI_MCA_*``, ``HYDRA_IFACE``): what the test reads to confirm loopback only.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.tiles import Tile
from stablehlo_py.ir import parse
from tests.mpi.collective_cases import fingerprint

DATA = Path(__file__).parent.parent / "data" / "mpi"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
PROGRAMS = [row["name"] for row in MANIFEST["programs"]]


def program(name: str) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """A tests/data/mpi program's text, its arguments and XLA's outputs (the manifest's row)."""
    row = next(r for r in MANIFEST["programs"] if r["name"] == name)
    text = gzip.decompress((DATA / row["file"]).read_bytes()).decode()
    with np.load(DATA / row["data"]) as z:
        args = [z[f"arg{k}"] for k in range(len(row["args"]))]
        outs = [z[f"out{k}"] for k in range(len(row["outs"]))]
    return text, args, outs


def bounds(index: Any) -> list[list[int]]:
    """[[start, stop], ...] of a tuple of slices (of step 1, explicit bounds)."""
    return [[int(s.start), int(s.stop)] for s in index]


class Recorder:
    """An argument that notes what is read of it: ``reads`` gets the bounds of each slicing
    (``[[start, stop], ...]``) and ``"whole"`` for each conversion of all of it to an array."""

    def __init__(self, data: np.ndarray) -> None:
        self._data = data
        self.shape = data.shape
        self.dtype = data.dtype
        self.reads: list[Any] = []

    def __getitem__(self, index: Any) -> np.ndarray:
        full = tuple(slice(*s.indices(n)[:2]) for s, n in zip(index, self.shape))
        self.reads.append(bounds(full))
        return self._data[index]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        self.reads.append("whole")
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self) -> int:
        return len(self._data)


def handed(values: Any) -> Any:
    """What `run_rank(gather="none")` handed this rank, as JSON (None, or per result its kind,
    bytes and, for a Tile, its bounds and global shape)."""
    if values is None:
        return None
    out = []
    for v in values:
        if isinstance(v, Tile):
            out.append({"kind": "Tile", "fp": fingerprint([v.data])[0], "bounds": bounds(v.index),
                        "global": list(v.global_shape)})
        else:
            out.append({"kind": "array", "fp": fingerprint([v])[0]})
    return out


def uses_tiles(plan: Any) -> bool:
    return plan is not None and any(d.kind == "tile" for d in (*plan.args, *plan.results))


def main(out: Path, names: list[str]) -> int:
    from stablehlo_py.interpreter.custom_calls.spmd import needs_grid
    from stablehlo_py.interpreter.mpi.runner import run_rank
    from stablehlo_py.interpreter.shard_plan import shard_plan

    from mpi4py import MPI

    rank = MPI.COMM_WORLD.Get_rank()
    seconds: dict[str, dict[str, float]] = {}
    for name in names:
        text, args, _ = program(name)
        module = parse(text)
        took = seconds.setdefault(name, {})
        start = time.perf_counter()
        try:
            got = run(module, *args, engine="mpi", gather="root")
        except Exception as e:  # noqa: BLE001 - said in a file; the next program still runs
            if rank == 0:
                (out / f"{name}.error.txt").write_text(
                    f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
            continue
        took["run"] = time.perf_counter() - start
        if rank == 0:
            np.savez(out / f"{name}.npz",
                     **{f"out{k}": np.asarray(v) for k, v in enumerate(got or [])})
        # every rank alike: the same module and plan
        if not (needs_grid(module) and uses_tiles(shard_plan(module))):
            continue
        start = time.perf_counter()
        recorders = [Recorder(a) for a in args]
        try:
            ran = run_rank(module, recorders, gather="none")
        except Exception as e:  # noqa: BLE001
            if rank == 0:
                (out / f"{name}.plan_error.txt").write_text(
                    f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
            continue
        took["plan_run"] = time.perf_counter() - start
        record = {
            "rank": rank,
            "replica": ran.replica,
            "partition": ran.partition,
            "reads": [r.reads for r in recorders],
            "handed": handed(ran.results),
            "report": ran.plan.report() if ran.plan is not None else None,
        }
        (out / f"{name}.plan.rank{rank}.json").write_text(json.dumps(record))
    if rank == 0:
        env = {k: v for k, v in os.environ.items()
               if k.startswith("OMPI_MCA_") or k == "HYDRA_IFACE"}
        info = {
            "size": MPI.COMM_WORLD.Get_size(),
            "seconds": seconds,
            "interfaces": sorted(n for _, n in socket.if_nameindex()),
            "env": env,
        }
        (out / "driver.json").write_text(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:] or PROGRAMS))
