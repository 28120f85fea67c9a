"""Results written to files (``--output=out.npz|out.npy``, ``save_results``) and read back.

An ``.npz`` holds ``result0``, ``result1``, ... (uncompressed, so large results are
memory-mapped when read), ``result_types`` (each result's tensor type as MLIR spells it, e.g.
``tensor<2x3xbf16>``) and, when the function names its results (JAX's ``jax.result_info``),
``result_info`` (the names, ``""`` for an unnamed one).  Values of types NumPy has no dtype for
(bf16, f8, i4, ...) are stored as their bits, as probes are; ``result_types`` says how to read them
(:func:`load_results` does).  An ``.npy`` file holds a function's only result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.io.errors import InputError, OutputError
from stablehlo_py.io.npy import Npz, read_npy, typed, write_npy, write_npz
from stablehlo_py.semantics import dtypes

__all__ = ["load_results", "save_inputs", "save_results", "tensor_type_text"]


def tensor_type_text(value: np.ndarray) -> str:
    """The tensor type of an interpreter value: ``tensor<2x3xbf16>``, ``tensor<i1>``."""
    return "tensor<" + "".join(f"{d}x" for d in value.shape) + dtypes.name_of(value.dtype) + ">"


def _arrays(values: Sequence[Any], what: str = "result") -> list[np.ndarray]:
    out = []
    for i, r in enumerate(values):
        if not isinstance(r, (np.ndarray, np.generic)):
            kind = "a tuple" if isinstance(r, tuple) else type(r).__name__
            raise OutputError(f"{what} {i} is {kind}, not a tensor: these files hold tensors only")
        value = np.asarray(r)
        try:
            dtypes.element_type(value.dtype)
        except StableHLOError:
            raise OutputError(
                f"{what} {i} has dtype {value.dtype}, which is no StableHLO element type"
            ) from None
        out.append(value)
    return out


def save_results(
    path: str | os.PathLike[str], results: Sequence[Any], names: Sequence[str | None] | None = None
) -> None:
    """Write ``results`` (a function's, in order) to ``path``: an ``.npz`` archive (see the module
    docstring; ``names`` become ``result_info``), or an ``.npy`` file when there is one result."""
    path = os.fspath(path)
    arrays = _arrays(results)
    if names is not None and len(names) != len(arrays):
        raise OutputError(f"{len(names)} names given for {len(arrays)} results")
    if path.endswith(".npy"):
        if len(arrays) != 1:
            raise OutputError(
                f"an .npy file holds one array but there are {len(arrays)} results: write an .npz "
                "archive (--output=out.npz)",
                location=path,
            )
        write_npy(path, arrays[0])
        return
    if not path.endswith(".npz"):
        raise OutputError(
            "results are written to an .npz archive (every result) or an .npy file (one result): "
            "name the file so", location=path,
        )
    members: dict[str, Any] = {f"result{i}": a for i, a in enumerate(arrays)}
    members["result_types"] = np.array([tensor_type_text(a) for a in arrays], dtype=str)
    if names is not None and any(n is not None for n in names):
        members["result_info"] = np.array([n or "" for n in names], dtype=str)
    write_npz(path, members)


def load_results(path: str | os.PathLike[str]) -> list[np.ndarray]:
    """The results an ``.npz`` written by :func:`save_results` holds, each decoded to its type
    (``result_types``); an ``.npy`` file's one array as stored."""
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    path = os.fspath(path)
    if path.endswith(".npy"):
        return [read_npy(path)]
    npz = Npz(path)
    if "result_types" not in npz:
        raise InputError("has no 'result_types' member: not written by save_results", location=path)
    types = [str(t) for t in npz["result_types"]]
    out = []
    for i, text in enumerate(types):
        key = f"result{i}"
        if key not in npz:
            raise InputError(f"has no member '{key}' ({len(types)} result types)", location=path)
        p = Parser(text, default_registry(), f"{path}[result_types]")
        dtype = dtype_of_type(p.parse_type())
        where, target = f"{path}[{key}]", f"result_types says {text}"
        out.append(typed(npz[key], dtype, where=where, target=target))
    return out


def save_inputs(path: str | os.PathLike[str], arrays: Sequence[Any]) -> None:
    """Write a function's arguments as an ``.npz`` archive that ``--inputs`` / ``load_inputs``
    read back exactly: ``arg0``, ``arg1``, ... (bf16/f8/i4 values as their bits, decoded by the
    parameters' types when read)."""
    path = os.fspath(path)
    if not path.endswith(".npz"):
        raise OutputError("inputs are written to an .npz archive: name the file so", location=path)
    write_npz(path, {f"arg{i}": a for i, a in enumerate(_arrays(arrays, "argument"))})
