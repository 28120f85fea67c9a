"""Arguments from the command line and from files: ``--args``, ``--inputs`` and ``load_inputs``.

``--args`` takes

- the inline form ``[dense<1> : tensor<2xi32>, ...]`` (upstream's, with its error messages, typo
  included);
- ``@FILE``: a file holding that text;
- ``@x.npy,@y.npy``: one entry per argument, each a ``.npy`` file or an inline dense attribute
  (``@x.npy,dense<1> : tensor<i32>``); a ``.npy`` file beside a probe directory's ``index.csv`` is
  typed by it (``@DIR/probe3.npy``);
- ``@run.npz``: an archive whose members name the arguments.

``--inputs`` takes an ``.npz`` archive or a probe directory (the probe ids name the arguments).
Members name arguments by position (``arg0``, ``arg1``, ...) or by name (``params.Param.names``);
every argument needs one, and an archive's every member must name one (a probe directory holds
other values too).  A file's dtype must be the argument's element type, or a stored form of it
(``interpreter.storage``: bf16/f8/i4 as their bits; a probe's types also upstream's forms); its
shape must fit the argument's type.  ``.npy`` files and uncompressed archive members are
memory-mapped, so a large input is not copied before the program reads it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablehlo_py.errors import StableHLOError
from stablehlo_py.io.errors import InputError
from stablehlo_py.io.npy import Npz, read_npy, typed
from stablehlo_py.io.params import Param, entry_function, exported_params, function_params
from stablehlo_py.io.probes import ProbeEntry, entry_for_file, load_probe, read_index

__all__ = ["load_inputs", "parse_inline", "resolve_arguments"]

EXAMPLE = "i.e. --args=[dense<1> : tensor<2xi32>, ...]"
_POSITION = re.compile(r"arg(\d+)")


def _count_error(
    given: int, n: int, what: str, note: str | None, location: str | None = None
) -> InputError:
    return InputError(
        f"incorrect number of arguments specified, provided {given} inputs but {what} expected {n}",
        note=note,
        location=location,
    )


def parse_inline(
    text: str, n: int, what: str, note: str | None = None, location: str | None = None
) -> list[np.ndarray]:
    """The inline form: an array of ``n`` dense attributes (for ``what``: "function", or "the
    exported function"), with upstream's messages."""
    from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr

    from stablehlo_py.interpreter.values import array_from_attr
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    try:
        p = Parser(text, default_registry(), location or "--args")
        attr = p.parse_attribute()
        if not p.at_end():
            raise StableHLOError("trailing text")
    except StableHLOError:
        attr = None
    if not isinstance(attr, ArrayAttr):
        raise InputError(
            f"expectected array attribute string for args, {EXAMPLE}", location=location
        )
    attrs = list(attr.data)
    if not all(isinstance(a, DenseIntOrFPElementsAttr) for a in attrs):
        raise InputError(
            f"expected dense elements attribute for args elements, {EXAMPLE}", location=location
        )
    if len(attrs) != n:
        raise _count_error(len(attrs), n, what, note, location)
    return [array_from_attr(a) for a in attrs]  # type: ignore[arg-type]


def _split_entries(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and string literals."""
    entries, depth, start, quoted, i = [], 0, 0, False, 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in "<[({":
            depth += 1
        elif c in ">])}" and not (c == ">" and text[i - 1 : i] == "-"):
            depth -= 1
        elif c == "," and depth == 0:
            entries.append(text[start:i].strip())
            start = i + 1
        i += 1
    entries.append(text[start:].strip())
    return entries


def _dense_entry(text: str, k: int, param: Param) -> np.ndarray:
    """An inline entry of a mixed list: one dense attribute."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from stablehlo_py.interpreter.values import array_from_attr
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    try:
        p = Parser(text, default_registry(), "--args")
        attr = p.parse_attribute()
        if not p.at_end():
            raise StableHLOError("trailing text")
    except StableHLOError:
        attr = None
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        raise InputError(
            f"--args entry {k} ({text!r}) for {param.label} is neither @FILE.npy nor a dense "
            "attribute such as dense<1> : tensor<2xi32>"
        )
    return array_from_attr(attr)


def _probe_value(entry: ProbeEntry, param: Param, where: str) -> np.ndarray:
    value = load_probe(entry)
    if param.dtype is not None and value.dtype != param.dtype:
        raise InputError(
            f"is probe {entry.probe_id} of type {entry.type_text} ({entry.where}) but "
            f"{param.target}",
            location=where,
        )
    return value


def load_file(path: str, param: Param) -> np.ndarray:
    """One argument from a ``.npy`` file (typed by a probe index beside it, if any)."""
    if not param.loadable:
        raise InputError(f"{param.target}, which no file holds", location=path)
    entry = entry_for_file(path)
    if entry is not None:
        value = _probe_value(entry, param, path)
    else:
        stored = read_npy(path)
        value = stored if param.dtype is None else typed(
            stored, param.dtype, where=path, target=param.target
        )
    param.check_shape(value, path)
    return value


def _from_list(
    entries: Sequence[Any], params: list[Param], what: str, note: str | None, cli: bool
) -> list[np.ndarray]:
    """One value per parameter.  From ``--args`` (``cli``): ``@path`` (a ``.npy`` file) or an
    inline dense attribute; from Python: a path or an array."""
    if len(entries) != len(params):
        raise _count_error(len(entries), len(params), what, note)
    out = []
    for k, (entry, param) in enumerate(zip(entries, params)):
        if cli and not entry.startswith("@"):
            out.append(_dense_entry(entry, k, param))
            continue
        if not cli and not isinstance(entry, (str, os.PathLike)):
            out.append(np.asarray(entry))
            continue
        path = entry[1:] if cli else os.fspath(entry)
        if path.endswith(".npz") or os.path.isdir(path):
            kind = "an .npz archive" if path.endswith(".npz") else "a directory"
            raise InputError(
                f"entry {k} of the argument list is {kind}, which gives every argument alone "
                "(--args=@run.npz or --inputs=PATH); a list takes one .npy file per argument"
            )
        out.append(load_file(path, param))
    return out


def _match(
    keys: Sequence[str],
    params: list[Param],
    source: str,
    load: Callable[[str, Param], np.ndarray],
    strict: bool,
) -> list[np.ndarray]:
    """Values for every parameter from members named ``arg<k>`` or by a parameter's name."""
    by_name: dict[str, list[Param]] = {}
    for p in params:
        for name in p.names:
            by_name.setdefault(name, []).append(p)
    chosen: dict[int, str] = {}
    for key in keys:
        m = _POSITION.fullmatch(key)
        if m is not None:
            index = int(m.group(1))
            if index >= len(params):
                raise InputError(
                    f"member '{key}' names argument {index}, but there are {len(params)}",
                    location=source,
                )
            param = params[index]
        else:
            found = by_name.get(key, [])
            if len(found) > 1:
                raise InputError(
                    f"member '{key}' names {len(found)} arguments ("
                    + ", ".join(p.label for p in found) + "): name them arg<k> by position",
                    location=source,
                )
            if not found:
                if not strict:
                    continue
                raise InputError(
                    f"member '{key}' names no argument: "
                    + "; ".join(p.describe() for p in params)
                    + "; members are named arg<k> by position or by an argument's name",
                    location=source,
                )
            param = found[0]
        if param.index in chosen:
            raise InputError(
                f"members '{chosen[param.index]}' and '{key}' both give {param.label}",
                location=source,
            )
        chosen[param.index] = key
    missing = [p for p in params if p.index not in chosen]
    if missing:
        p = missing[0]
        ways = " or ".join(repr(n) for n in (f"arg{p.index}", *p.names))
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(
            f"no member for {p.label} ({p.type_text}){more}: add one named {ways}",
            location=source,
        )
    return [load(chosen[p.index], p) for p in params]


def _from_npz(path: str, params: list[Param]) -> list[np.ndarray]:
    npz = Npz(path)

    def load(key: str, param: Param) -> np.ndarray:
        where = f"{path}[{key}]"
        if not param.loadable:
            raise InputError(f"{param.target}, which no file holds", location=where)
        stored = npz[key]
        value = stored if param.dtype is None else typed(
            stored, param.dtype, where=where, target=param.target
        )
        param.check_shape(value, where)
        return value

    return _match(list(npz), params, path, load, strict=True)


def _from_probe_dir(path: str, params: list[Param]) -> list[np.ndarray]:
    entries = {e.probe_id: e for e in read_index(path) if e.iteration == 0}

    def load(key: str, param: Param) -> np.ndarray:
        entry = entries[key]
        value = _probe_value(entry, param, entry.path)
        param.check_shape(value, entry.path)
        return value

    return _match(list(entries), params, path, load, strict=False)


def _from_path(path: str, params: list[Param], what: str, note: str | None) -> list[np.ndarray]:
    """Every argument from one path: a probe directory, an archive, a ``.npy`` file (one
    argument) or a file of inline text."""
    if os.path.isdir(path):
        return _from_probe_dir(path, params)
    if path.endswith(".npz"):
        return _from_npz(path, params)
    if path.endswith(".npy"):
        return _from_list([path], params, what, note, cli=False)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read '{path}': {getattr(e, 'strerror', None) or e}") from None
    return parse_inline(text.strip(), len(params), what, note, location=path)


def resolve_arguments(
    args_text: str | None,
    inputs: str | None,
    params: list[Param],
    *,
    what: str = "function",
    note: str | None = None,
) -> list[np.ndarray] | None:
    """The values of ``--args`` / ``--inputs`` for ``params`` (None when neither is given);
    ``what`` and ``note`` go into the count error (upstream's wording)."""
    if args_text is not None and inputs is not None:
        raise InputError("give the arguments with --args or --inputs, not both")
    if inputs is not None:
        if not os.path.isdir(inputs) and not inputs.endswith((".npz", ".npy")):
            raise InputError(
                f"--inputs={inputs}: takes an .npz archive, a .npy file (one argument) or a probe "
                "directory (written by --probe-output-dir)"
            )
        return _from_path(inputs, params, what, note)
    if args_text is None:
        return None
    entries = _split_entries(args_text.strip())
    if not any(e.startswith("@") for e in entries):
        return parse_inline(args_text, len(params), what, note)
    if len(entries) == 1 and not entries[0].endswith(".npy"):
        return _from_path(entries[0][1:], params, what, note)
    return _from_list(entries, params, what, note, cli=True)


def load_inputs(
    path_or_paths: Any, func_or_module: Any, entry: str = "main", *, exported: Any = None
) -> list[np.ndarray]:
    """The arguments of ``@entry`` read from files, as ``--inputs``/``--args`` read them:
    ``path_or_paths`` is an ``.npz`` archive, a probe directory, a ``.npy`` file (a function of
    one argument), a file holding ``[dense<...> : tensor<...>, ...]``, or a list with one entry
    per argument (a ``.npy`` path or an array).  ``func_or_module`` is a module, its text or a
    ``func.func``.  With ``exported`` (a ``JaxExported`` whose module is ``func_or_module``), the
    exported function's arguments (``stablehlo_py.api.load_inputs`` takes the export itself).
    Returns arrays in parameter order (memory-mapped where read from ``.npy`` files)."""
    func = entry_function(func_or_module, entry)
    if exported is not None:
        params, what = exported_params(exported, func), "the exported function"
    else:
        params, what = function_params(func), "function"
    if isinstance(path_or_paths, (list, tuple)):
        return _from_list(list(path_or_paths), params, what, None, cli=False)
    return _from_path(os.fspath(path_or_paths), params, what, None)
