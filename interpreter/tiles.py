"""A tile: the part of a global array that one process holds (docs/plans/issue-29-mpi.md §3.4-3.5).

`Tile(data, index, global_shape)`: `data` holds the elements that `index` (one slice per dimension,
step 1) selects from a value of shape `global_shape`.  It is how a process that already holds its
own piece of an argument passes it (`stablehlo_py.io.shards.process_arguments` checks that it is the
piece the shard plan gives that process), and how one process's tile-kept results are handed back
without gathering them (`tiles_of`).  `data` may be anything with `.shape` (a numpy array, a memory
map, an h5py or zarr dataset); it is not read here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError

__all__ = ["Tile", "index_text", "tiles_of"]


def index_text(index: Sequence[slice]) -> str:
    """`[0:16, 0:8]`: the slices of a tile's index (explicit starts and stops)."""
    return "[" + ", ".join(f"{s.start}:{s.stop}" for s in index) + "]"


def _bounds(index: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(start, stop) per dimension of `index` into a value of `shape`; InterpreterError when it
    is not one slice of step 1 per dimension, inside the value."""
    if not isinstance(index, tuple) or len(index) != len(shape):
        raise InterpreterError(
            f"a Tile's index is one slice per dimension of its global shape {list(shape)}, got "
            f"{index!r}"
        )
    out = []
    for k, (s, n) in enumerate(zip(index, shape)):
        if not isinstance(s, slice) or s.step not in (None, 1):
            raise InterpreterError(
                f"a Tile's index has {s!r} for dimension {k}: each must be a slice of step 1"
            )
        start = 0 if s.start is None else int(s.start)
        stop = n if s.stop is None else int(s.stop)
        if not 0 <= start <= stop <= n:
            raise InterpreterError(
                f"a Tile's index has {start}:{stop} for dimension {k}, outside 0:{n} of the global "
                f"shape {list(shape)}"
            )
        out.append((start, stop))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class Tile:
    """The elements `index` selects from a value of `global_shape`, held in `data` (module doc).
    `index` is normalized to explicit starts and stops; `data.shape` must be the part's shape."""

    data: Any
    index: tuple[slice, ...]
    global_shape: tuple[int, ...]

    def __post_init__(self) -> None:
        shape = tuple(int(d) for d in self.global_shape)
        bounds = _bounds(tuple(self.index) if isinstance(self.index, list) else self.index, shape)
        object.__setattr__(self, "global_shape", shape)
        object.__setattr__(self, "index", tuple(slice(a, b) for a, b in bounds))
        have = getattr(self.data, "shape", None)
        if have is None:
            raise InterpreterError(
                f"a Tile's data is {type(self.data).__name__}, which has no shape: give an array "
                "(or anything with .shape, .dtype and slicing)"
            )
        if tuple(have) != self.shape:
            raise InterpreterError(
                f"a Tile's data has shape {list(have)}, but its index "
                f"{self.index_text()} of {list(shape)} selects {list(self.shape)}"
            )

    @property
    def bounds(self) -> tuple[tuple[int, int], ...]:
        """(start, stop) per dimension."""
        return tuple((s.start, s.stop) for s in self.index)

    @property
    def shape(self) -> tuple[int, ...]:
        """The part's shape (that of `data`)."""
        return tuple(b - a for a, b in self.bounds)

    def index_text(self) -> str:
        return index_text(self.index)

    def __repr__(self) -> str:
        dtype = getattr(self.data, "dtype", "?")
        where = f"{self.index_text()} of {list(self.global_shape)}"
        return f"Tile({dtype}{list(self.shape)} at {where})"


def tiles_of(
    decisions: Sequence[Any], results: Sequence[Any], replica: int, partition: int
) -> list[Any]:
    """One process's results as it holds them under a shard plan (`ShardPlan.results`, one
    `Decision` per result): a `Tile` of each tile-kept result (the padding past the value's end of
    an uneven GSPMD shard dropped), the others as they are."""
    if len(decisions) != len(results):
        raise InterpreterError(
            f"the shard plan has {len(decisions)} results, the process gave {len(results)}"
        )
    out: list[Any] = []
    for d, r in zip(decisions, results):
        t = d.tiling
        if t is None:
            out.append(r)
        else:
            out.append(Tile(t.crop(np.asarray(r), partition), d.index(replica, partition), t.shape))
    return out
