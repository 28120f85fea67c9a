"""A program written out: its text to ``OUT.mlir`` and its inputs to ``OUT.inputs.npz`` (members
``arg0`` .. ``argN``, by position).

:data:`save_inputs` is the one place inputs are stored: ``stablehlo_py.io``'s, which stores
bf16/f8/i4 values as their bits so that ``--inputs`` / ``load_inputs`` read them back exactly
(decoded by the parameters' types).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stablehlo_py.io import save_inputs as _io_save_inputs
from stablehlo_py.reduce.program import Program

__all__ = ["inputs_path", "save_inputs", "write_program"]


save_inputs: Callable[[Path, Sequence[Any]], None] = _io_save_inputs
"""Store a program's inputs (``arg0`` .. ``argN``) at a path (an ``.npz`` archive)."""


def inputs_path(path: str | Path) -> Path:
    """``OUT.mlir`` -> ``OUT.inputs.npz`` (any other name: the name + ``.inputs.npz``)."""
    p = Path(path)
    stem = p.name[: -len(".mlir")] if p.name.endswith(".mlir") else p.name
    return p.with_name(f"{stem}.inputs.npz")


def write_program(program: Program, path: str | Path) -> tuple[Path, Path]:
    """Write ``program``'s text to ``path`` and its inputs beside it; both paths."""
    p = Path(path)
    p.write_text(program.text)
    ip = inputs_path(p)
    save_inputs(ip, program.inputs)
    return p, ip
