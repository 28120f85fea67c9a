"""Delta debugging for StableHLO programs (issue 27): shrink a program while an interestingness
test keeps holding, every candidate a verified program.

- :func:`reduce` / :class:`Session` (``session``): a reduction and its :class:`Result`;
- ``tests``: interestingness tests (:class:`FailsWith`; any callable taking a :class:`Program`),
  ``divergence`` (:class:`DivergesFrom`: the interpreter and XLA/IREE differ), ``commands``
  (:class:`Crashes`, :class:`Script`: a command run on each candidate); ``consumers``: running
  the backends and commands;
- ``moves``: the candidate edits; ``ddmin``: the search; ``program``: a program with its inputs
  and its size; ``files``: ``OUT.mlir`` + ``OUT.inputs.npz``.
"""

from stablehlo_py.reduce.commands import Crashes, Script
from stablehlo_py.reduce.divergence import DivergesFrom
from stablehlo_py.reduce.files import write_program
from stablehlo_py.reduce.moves import ALL_MOVES, MOVES, Move
from stablehlo_py.reduce.program import Program, ReduceError, Size
from stablehlo_py.reduce.session import Result, Session, reduce
from stablehlo_py.reduce.tests import FailsWith, InterestingnessTest

__all__ = [
    "ALL_MOVES",
    "MOVES",
    "Crashes",
    "DivergesFrom",
    "FailsWith",
    "InterestingnessTest",
    "Move",
    "Program",
    "ReduceError",
    "Result",
    "Script",
    "Session",
    "Size",
    "reduce",
    "write_program",
]
