"""Results written to files (``--output=out.npz|out.npy|DIR/``, ``save_results``) and read back.

An ``.npz`` holds ``result0``, ``result1``, ... (uncompressed, so large results are
memory-mapped when read), ``result_types`` (each result's tensor type as MLIR spells it, e.g.
``tensor<2x3xbf16>``) and, when the function names its results (JAX's ``jax.result_info``),
``result_info`` (the names, ``""`` for an unnamed one).  Values of types NumPy has no dtype for
(bf16, f8, i4, ...) are stored as their bits, as probes are; ``result_types`` says how to read them
(:func:`load_results` does).  An ``.npy`` file holds a function's only result.  A directory
(``DIR/``: a path ending in ``/``, or an existing directory) holds the same members as files:
``result<k>.npy``, ``result_types.npy`` and ``result_info.npy`` (always, ``""`` for unnamed).

The ``.npz`` is written member by member from parts (:func:`write_results_npz`, through
``npz_stream.NpzStream``): an MPI run's rank 0 writes a result tile by tile.  A directory is
written in two phases so that the processes of an MPI run can write their own tiles:
:func:`create_result_dir` (on one process) creates every ``.npy`` file at its full size (header,
then a sparse file of zeros), then each process writes the parts it owns with :func:`write_part`
(``stablehlo_py.io.shards.write_result_tiles``; each contiguous run of a part with one write at
its offset, so processes writing different parts of a file on a shared file system never touch
each other's bytes).  Existing files: ``result<k>.npy``, ``result_types.npy`` and
``result_info.npy`` are replaced; a ``result<k>.npy`` beyond this run's results (from an earlier
run) is an error rather than left beside them or removed; other files are left alone.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter.storage import storable
from stablehlo_py.io.errors import InputError, OutputError
from stablehlo_py.io.npy import MAGIC, Npz, read_npy, typed, write_npy
from stablehlo_py.io.npz_stream import NpzStream, npy_header, part_bytes, stored_dtype
from stablehlo_py.semantics import dtypes

__all__ = [
    "ResultSpec",
    "check_output_path",
    "create_result_dir",
    "is_directory_output",
    "load_results",
    "open_result_file",
    "save_inputs",
    "save_results",
    "tensor_type_text",
    "write_part",
    "write_results_npz",
]

_RESULT_FILE = re.compile(r"result(\d+)\.npy")
_SUFFIX_FIX = (
    "results are written to an .npz archive (every result) or an .npy file (one result), or into "
    "a directory (DIR/, one .npy file per result): name the file so, or name an existing "
    "directory or one ending in '/'"
)


def tensor_type_text(value: np.ndarray) -> str:
    """The tensor type of an interpreter value: ``tensor<2x3xbf16>``, ``tensor<i1>``."""
    return ResultSpec.of(value).type_text


@dataclass(frozen=True)
class ResultSpec:
    """A result's element type (its dtype) and global shape: what is known of it before its
    values are (the files are created from these)."""

    dtype: np.dtype[Any]
    shape: tuple[int, ...]

    @classmethod
    def of(cls, value: Any) -> ResultSpec:
        return cls(np.dtype(value.dtype), tuple(int(d) for d in np.shape(value)))

    @property
    def type_text(self) -> str:
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + dtypes.name_of(self.dtype) + ">"

    @property
    def stored(self) -> np.dtype[Any]:
        """The dtype its file holds (the bits' for bf16, f8, i4, ...)."""
        return stored_dtype(self.dtype)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.stored.itemsize


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


def is_directory_output(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a directory to write results into: it ends with ``/`` (or the
    system's separator) or is an existing directory."""
    text = os.fspath(path)
    return text.endswith(("/", os.sep)) or os.path.isdir(text)


def check_output_path(path: str | os.PathLike[str]) -> None:
    """Before a run: OutputError when ``path`` cannot take results (no ``.npz``/``.npy`` suffix
    and not a directory; a directory path naming a file, or one that cannot be created or
    written).  Creates nothing."""
    text = os.fspath(path)
    if is_directory_output(text):
        _check_dir(text)
    elif not text.endswith((".npz", ".npy")):
        raise OutputError(_SUFFIX_FIX, location=text)


def _check_dir(directory: str) -> None:
    """OutputError when ``directory`` is a file, or cannot be created or written into."""
    bare = directory.rstrip("/" + os.sep) or directory
    if os.path.exists(bare) and not os.path.isdir(bare):
        raise OutputError(
            f"results go into a directory, but '{bare}' is a file: remove it, or name a "
            "directory (or an .npz/.npy file, without the trailing '/')"
        )
    existing = bare
    while not os.path.exists(existing):  # the nearest existing ancestor is where it is created
        parent = os.path.dirname(existing) or "."
        if parent == existing:
            break
        existing = parent
    if not os.path.isdir(existing):
        raise OutputError(
            f"cannot create the results directory '{bare}': '{existing}' is a file"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "write into" if existing == bare else f"create '{bare}' in"
        raise OutputError(f"cannot {what} directory '{existing}': permission denied")


def save_results(
    path: str | os.PathLike[str], results: Sequence[Any], names: Sequence[str | None] | None = None
) -> None:
    """Write ``results`` (a function's, in order) to ``path``: an ``.npz`` archive (see the module
    docstring; ``names`` become ``result_info``), an ``.npy`` file when there is one result, or a
    directory (``DIR/``)."""
    path = os.fspath(path)
    arrays = _arrays(results)
    if names is not None and len(names) != len(arrays):
        raise OutputError(f"{len(names)} names given for {len(arrays)} results")
    specs = [ResultSpec.of(a) for a in arrays]
    if is_directory_output(path):
        create_result_dir(path, specs, names)
        for k, (spec, a) in enumerate(zip(specs, arrays)):
            file, offset = open_result_file(path, k, spec)
            write_part(file, offset, spec, tuple(slice(0, n) for n in spec.shape), a)
        return
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
        raise OutputError(_SUFFIX_FIX, location=path)
    write_results_npz(path, specs, lambda k: (arrays[k],), names)


def _type_members(
    specs: Sequence[ResultSpec], names: Sequence[str | None] | None, always_info: bool
) -> dict[str, np.ndarray]:
    out = {"result_types": np.array([s.type_text for s in specs], dtype=str)}
    if always_info or (names is not None and any(n is not None for n in names)):
        given = names if names is not None else [None] * len(specs)
        out["result_info"] = np.array([n or "" for n in given], dtype=str)
    return out


def write_results_npz(
    path: str | os.PathLike[str],
    specs: Sequence[ResultSpec],
    parts_of: Callable[[int], Iterable[Any]],
    names: Sequence[str | None] | None = None,
) -> None:
    """Write the results ``specs`` describes to an ``.npz`` archive (module doc), member by
    member: ``parts_of(k)`` gives result k's parts, whose elements one after another in C order
    are the result's (one whole array; or the tiles of a result tiled along its leading
    dimension, in order), each taken when it is written."""
    if names is not None and len(names) != len(specs):
        raise OutputError(f"{len(names)} names given for {len(specs)} results")
    with NpzStream(path) as z:
        for k, spec in enumerate(specs):
            z.add_parts(f"result{k}", spec.dtype, spec.shape, parts_of(k))
        for name, value in _type_members(specs, names, always_info=False).items():
            z.add(name, value)


# ------------------------------------------------------------------------- a directory of results
def create_result_dir(
    directory: str | os.PathLike[str],
    specs: Sequence[ResultSpec],
    names: Sequence[str | None] | None = None,
) -> list[str]:
    """Phase 1 of writing results into a directory (module doc), on one process: create the
    directory if needed, every ``result<k>.npy`` at its full size (zeros, sparse where the file
    system allows), ``result_types.npy`` and ``result_info.npy``.  Returns the result files."""
    directory = os.fspath(directory)
    if names is not None and len(names) != len(specs):
        raise OutputError(f"{len(names)} names given for {len(specs)} results")
    _check_dir(directory)
    try:
        os.makedirs(directory, exist_ok=True)
        present = os.listdir(directory)
    except OSError as e:
        raise OutputError(
            f"cannot create the results directory '{directory}': {e.strerror or e}"
        ) from None
    stale = sorted(
        (int(m.group(1)), f) for f in present
        if (m := _RESULT_FILE.fullmatch(f)) and int(m.group(1)) >= len(specs)
    )
    if stale:
        files = ", ".join(f for _, f in stale)
        raise OutputError(
            f"holds {files} from an earlier run, which this run ({len(specs)} result"
            f"{'s' if len(specs) != 1 else ''}) would not replace: remove "
            f"{'it' if len(stale) == 1 else 'them'}, or write into another directory",
            location=directory,
        )
    paths = []
    for k, spec in enumerate(specs):
        path = os.path.join(directory, f"result{k}.npy")
        header = npy_header(spec.stored, spec.shape)
        try:
            with open(path, "wb") as f:
                f.write(header)
                f.truncate(len(header) + spec.nbytes)
        except OSError as e:
            raise OutputError(f"cannot write '{path}': {e.strerror or e}") from None
        paths.append(path)
    for name, value in _type_members(specs, names, always_info=True).items():
        write_npy(os.path.join(directory, f"{name}.npy"), value)
    return paths


def open_result_file(
    directory: str | os.PathLike[str], k: int, spec: ResultSpec
) -> tuple[str, int]:
    """Phase 2's start: the path of ``result<k>.npy`` in ``directory`` and the offset of its data,
    after checking that its header is the one :func:`create_result_dir` writes for ``spec``
    (else OutputError: phase 1 has not run, or ran for other results)."""
    path = os.path.join(os.fspath(directory), f"result{k}.npy")
    header = npy_header(spec.stored, spec.shape)
    try:
        with open(path, "rb") as f:
            head = f.read(len(header))
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise OutputError(
            f"cannot open '{path}' to write this process's part of result {k}: "
            f"{e.strerror or e} (create_result_dir makes it, before any process writes)"
        ) from None
    if head != header or size != len(header) + spec.nbytes:
        found = "no .npy file" if not head.startswith(MAGIC) else "another array"
        raise OutputError(
            f"holds {found}, not the {spec.type_text} of result {k} (stored as "
            f"{spec.stored}) that create_result_dir makes before any process writes",
            location=path,
        )
    return path, len(header)


def write_part(
    path: str, offset: int, spec: ResultSpec, index: tuple[slice, ...], value: Any
) -> int:
    """Write ``value``, the part ``index`` (one slice of step 1 per dimension) of a result of
    ``spec``, into its ``.npy`` file whose data starts at ``offset``: each run of the part that is
    contiguous in the file with one write at its place.  Returns the bytes written."""
    value = storable(np.asarray(value))
    bounds = [(s.start, s.stop) for s in index]
    part = tuple(b - a for a, b in bounds)
    if value.shape != part or value.dtype != spec.stored:
        raise OutputError(
            f"the part [{', '.join(f'{a}:{b}' for a, b in bounds)}] of result {spec.type_text} "
            f"is {spec.stored}{list(part)}, the value given is {value.dtype}{list(value.shape)}",
            location=path,
        )
    if value.size == 0:
        return 0
    shape = spec.shape
    # the dimensions from `full` on are whole in the part: a run spans them and dimension
    # `full - 1`'s range; the dimensions before it are iterated
    full = len(shape)
    while full > 0 and bounds[full - 1] == (0, shape[full - 1]):
        full -= 1
    inner = int(np.prod(shape[full:], dtype=np.int64)) * value.dtype.itemsize
    outer = max(full - 1, 0)
    written = 0
    try:
        with open(path, "r+b") as f:
            for prefix in itertools.product(*(range(a, b) for a, b in bounds[:outer])):
                flat = 0
                for d, i in enumerate(prefix):
                    flat = flat * shape[d] + i
                if full > 0:
                    flat = flat * shape[outer] + bounds[outer][0]
                piece = value[tuple(i - a for i, (a, _) in zip(prefix, bounds))]
                data = part_bytes(piece, value.dtype, path)
                f.seek(offset + flat * inner)
                f.write(data)
                written += data.nbytes
    except OSError as e:
        raise OutputError(f"cannot write '{path}': {e.strerror or e}") from None
    return written


# ------------------------------------------------------------------------------------ reading
def load_results(path: str | os.PathLike[str]) -> list[np.ndarray]:
    """The results an ``.npz`` or a directory written by :func:`save_results` holds, each decoded
    to its type (``result_types``); an ``.npy`` file's one array as stored."""
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    path = os.fspath(path)
    if path.endswith(".npy") and not os.path.isdir(path):
        return [read_npy(path)]
    if os.path.isdir(path):
        present = set(os.listdir(path))
        members = {f[: -len(".npy")] for f in present if f.endswith(".npy")}

        def member(name: str) -> np.ndarray:
            return read_npy(os.path.join(path, f"{name}.npy"))

        def where(name: str) -> str:
            return os.path.join(path, f"{name}.npy")
    else:
        npz = Npz(path)
        members = set(npz)
        member = npz.__getitem__

        def where(name: str) -> str:
            return f"{path}[{name}]"
    if "result_types" not in members:
        raise InputError("has no 'result_types' member: not written by save_results", location=path)
    types = [str(t) for t in member("result_types")]
    out = []
    for i, text in enumerate(types):
        key = f"result{i}"
        if key not in members:
            raise InputError(f"has no member '{key}' ({len(types)} result types)", location=path)
        p = Parser(text, default_registry(), where("result_types"))
        dtype = dtype_of_type(p.parse_type())
        target = f"result_types says {text}"
        out.append(typed(member(key), dtype, where=where(key), target=target))
    return out


def save_inputs(path: str | os.PathLike[str], arrays: Sequence[Any]) -> None:
    """Write a function's arguments as an ``.npz`` archive that ``--inputs`` / ``load_inputs``
    read back exactly: ``arg0``, ``arg1``, ... (bf16/f8/i4 values as their bits, decoded by the
    parameters' types when read)."""
    path = os.fspath(path)
    if not path.endswith(".npz"):
        raise OutputError("inputs are written to an .npz archive: name the file so", location=path)
    values = _arrays(arrays, "argument")
    with NpzStream(path) as z:
        for i, a in enumerate(values):
            z.add(f"arg{i}", a)
