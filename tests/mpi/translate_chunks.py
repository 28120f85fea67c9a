"""Many programs in one MPI world: ``stablehlo-translate --interpret --engine=mpi`` on each file of
a list, in order, on every rank (tests/mpi/test_upstream_collectives.py launches it once per
number of processes instead of once per program).

    mpirun -n P python -m tests.mpi.translate_chunks MANIFEST OUTDIR

MANIFEST is JSON: ``{"runs": [{"path": "a.mlir", "options": ["--probe-output-dir=..."]}, ...]}``;
every program must need P processes.  Run k is the command line's `main` (the installed script's
code) with ``--interpret --engine=mpi <options> <path> -o OUTDIR/<k>.out``, so rank 0 writes what
it prints into ``<k>.out`` (no file when it prints nothing).  Each rank writes
``OUTDIR/<k>.rank<r>.json`` after run k: its exit code, what it wrote on stderr (Python's
``sys.stderr``, the control plane's report included; not MPI's own messages) and the seconds the
run took.  A run that fails goes on to the next: the command line turns every error into an exit
code.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m tests.mpi.translate_chunks MANIFEST OUTDIR", file=sys.stderr)
        return 2
    manifest, outdir = Path(argv[0]), Path(argv[1])
    runs = json.loads(manifest.read_text())["runs"]
    from mpi4py import MPI

    from stablehlo_py.cli.translate import main as translate

    rank = MPI.COMM_WORLD.Get_rank()
    for k, run in enumerate(runs):
        err = io.StringIO()
        argv_k = [
            "--interpret", "--engine=mpi", *run.get("options", []), run["path"],
            "-o", str(outdir / f"{k}.out"),
        ]
        start = time.perf_counter()
        with contextlib.redirect_stderr(err):
            code = translate(argv_k)
        seconds = time.perf_counter() - start
        record = {"rc": code, "stderr": err.getvalue(), "seconds": seconds}
        (outdir / f"{k}.rank{rank}.json").write_text(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
