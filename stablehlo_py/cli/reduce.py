"""`stablehlo-reduce`: shrink a program while an interestingness test keeps holding, every
candidate a verified StableHLO program (stablehlo_py.reduce).

    stablehlo-reduce IN -o OUT.mlir TEST [--inputs=run.npz] [--time-limit=S] [--max-tests=N]

    TEST is one of
      --diverges-from=xla|iree [--rtol=R] [--atol=A] [--backend-errors-diverge]
      --fails-with=REGEX [--on=verify|serialize:TARGET|interpret|xla|iree|"COMMAND ..."]
      --crashes="COMMAND ..."
      --test=SCRIPT [--test-arg=ARG ...] [--interesting-exit=zero|nonzero]

IN is StableHLO text (``.gz`` too), a portable artifact of either format or a JAX export.  Writes
OUT.mlir and its inputs OUT.inputs.npz (``stablehlo-translate --interpret --inputs=...`` reads
them); prints the size before and after (ops, functions), the tests run, invalid candidates and
the time; progress on stderr while it runs.  Options are defined in ``reduce_options.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from stablehlo_py.cli.common import normalize_argv, tool_main
from stablehlo_py.cli.reduce_options import reduce_options
from stablehlo_py.errors import StableHLOError

_SHORT = {"-o", "-h"}
_DETAIL = 300  # characters of a tool's error a one-line message keeps


def _one_line(text: str, limit: int = _DETAIL) -> str:
    line = " | ".join(s.strip() for s in text.strip().splitlines() if s.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


# ------------------------------------------------------------------------------- the test
_TESTS = {
    "diverges_from": "--diverges-from",
    "fails_with": "--fails-with",
    "crashes": "--crashes",
    "test": "--test",
}
_BELONGS = {  # option -> the test it belongs to
    "on": "fails_with",
    "rtol": "diverges_from",
    "atol": "diverges_from",
    "backend_errors_diverge": "diverges_from",
    "test_arg": "test",
    "interesting_exit": "test",
}


def _check_test_options(o: dict[str, Any]) -> str:
    chosen = [k for k in _TESTS if o.get(k) is not None]
    if not chosen:
        raise StableHLOError(
            "give an interestingness test: --diverges-from=xla|iree, --fails-with=REGEX "
            "[--on=TOOL], --crashes=COMMAND or --test=SCRIPT; see stablehlo-reduce --help"
        )
    if len(chosen) > 1:
        raise StableHLOError(
            "give one interestingness test, not " + " and ".join(_TESTS[k] for k in chosen)
        )
    for option, test in _BELONGS.items():
        given = o.get(option)
        if given not in (None, False, ()) and test != chosen[0]:
            flag = "--" + option.replace("_", "-")
            raise StableHLOError(f"{flag} goes with {_TESTS[test]}, and the test is "
                                 f"{_TESTS[chosen[0]]}")
    return chosen[0]


def _make_test(o: dict[str, Any]) -> Any:
    from stablehlo_py.backends import BackendUnavailable
    from stablehlo_py.reduce import Crashes, DivergesFrom, FailsWith, ReduceError, Script

    kind = _check_test_options(o)
    timeout = o["timeout"]
    try:
        if kind == "diverges_from":
            return DivergesFrom(
                o["diverges_from"], o["rtol"], o["atol"],
                backend_errors=bool(o["backend_errors_diverge"]),
            )
        if kind == "fails_with":
            try:
                return FailsWith(o["fails_with"], on=o["on"] or "verify", timeout=timeout)
            except ReduceError as e:  # named by the option at fault
                what = e.message.removeprefix("FailsWith: ")
                flag = "--fails-with" if "regular expression" in what else "--on"
                raise StableHLOError(f"{flag}: {what}") from None
        if kind == "crashes":
            return Crashes(o["crashes"], timeout=timeout)
        return Script(
            o["test"], o["test_arg"], timeout=timeout,
            exit_zero_is_interesting=o["interesting_exit"] != "nonzero",
        )
    except BackendUnavailable as e:
        flag = f"--diverges-from={o['diverges_from']}" if kind == "diverges_from" else (
            f"--on={o['on']}")
        raise StableHLOError(f"{flag}: {e.message}; {e.note}") from None


# ------------------------------------------------------------------------------- the input
def _read_program(path: str) -> tuple[Any, Any, str]:
    """(module, the JAX export it came from or None, name) of text (gzip'd too), an artifact
    or a JAX export."""
    import gzip
    import zlib

    from stablehlo_py.cli.common import is_binary, read_input_bytes, read_stablehlo_binary

    data, name = read_input_bytes(path)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise StableHLOError(f"cannot decompress gzipped input: {e}", location=name) from None
    if is_binary(data):
        from stablehlo_py.serialization.jax_export import is_jax_exported, read_jax_exported

        exported = read_jax_exported(data, name) if is_jax_exported(data) else None
        return read_stablehlo_binary(data, name), exported, name
    from stablehlo_py.ir import parse

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StableHLOError(
            f"not a program: neither UTF-8 MLIR text (byte {e.start} is not UTF-8) nor a portable "
            "artifact, a JAX export or gzip'd text",
            location=name,
        ) from None
    if not text.strip():
        raise StableHLOError("the input is empty: nothing to reduce", location=name)
    return parse(text, name), None, name


def _inputs(path: str | None, module: Any, exported: Any, entry: str) -> list[Any] | None:
    """The entry function's inputs from ``--inputs`` (None: made up by the reducer).  A JAX
    export's are the exported function's arguments, mapped to @main's."""
    if path is None:
        return None
    from stablehlo_py.io.args import resolve_arguments
    from stablehlo_py.io.params import entry_function, exported_params, function_params

    func = entry_function(module, entry)
    if exported is None or entry != "main":
        return resolve_arguments(None, path, function_params(func))
    from stablehlo_py.interpreter.evaluator import TOKEN

    given = resolve_arguments(
        None, path, exported_params(exported, func), what="the exported function",
        note=exported.calling_convention_text(),
    )
    return list(exported.module_arguments(given, token=TOKEN))


def _check_output(out: str) -> None:
    parent = Path(out).resolve().parent
    if Path(out).is_dir():
        raise StableHLOError(f"-o {out} is a directory; name the reduced program's file")
    if not parent.is_dir():
        raise StableHLOError(f"cannot write -o {out}: the directory {parent} does not exist")


# ------------------------------------------------------------------------------- the run
class _Progress:
    """The search's events on a progress line (trace/progress.py: tqdm on a terminal)."""

    def __init__(self) -> None:
        from stablehlo_py.trace import start_progress

        self.bar = start_progress(None, "reduce", unit="tests")

    def __call__(self, event: Any) -> None:
        self.bar.update(event.tests, f"{event.size}, {event.move}")

    def close(self) -> None:
        self.bar.close()


def reduce_main(o: dict[str, Any]) -> int:
    from stablehlo_py.reduce import ALL_MOVES, MOVES, Program, Session
    from stablehlo_py.reduce.session import NotInteresting

    test = _make_test(o)
    _check_output(o["output"])
    module, exported, name = _read_program(o["input_file"])
    entry = o["entry"]
    inputs = _inputs(o["inputs"], module, exported, entry)
    moves = MOVES if o["keep_locations"] else ALL_MOVES
    progress = _Progress()
    session = Session(
        module, test, inputs=inputs, entry=entry, moves=moves, time_limit=o["time_limit"],
        max_tests=o["max_tests"], progress=progress,
    )
    before = Program(session.original.module, (), entry).size
    print(f"stablehlo-reduce: {name}: {before}; the test: {test.describe()}", file=sys.stderr,
          flush=True)
    try:
        result = session.run()
    except NotInteresting as e:
        details = "".join(f"; {_one_line(d)}" for d in e.details)
        raise StableHLOError(
            f"nothing to reduce: the test is not interesting on {name} ({e.test}){details}"
        ) from None
    finally:
        progress.close()
    text_path, inputs_path = result.write(o["output"])
    lines = [result.summary(), *test.notes()]
    lines.append(f"wrote {text_path} and {inputs_path}")
    print("\n".join(lines), flush=True)
    return 0


@click.command(context_settings={"help_option_names": ["--help", "-h"]})
@reduce_options
def cli(**options: Any) -> int:
    """Shrink a StableHLO program IN while a test keeps holding (delta debugging; every
    candidate verified).  Give one TEST: --diverges-from, --fails-with, --crashes or --test.
    Writes the smallest program to -o OUT.mlir and its inputs to OUT.inputs.npz; prints the size
    before and after, the tests run, the invalid candidates and the time.

    \b
    stablehlo-reduce model.mlir --inputs=run.npz --diverges-from=iree -o small.mlir
    stablehlo-reduce model.mlir --fails-with='needs 1.4.0' --on=serialize:1.0.0 -o small.mlir
    stablehlo-reduce model.mlir --test=./interesting.sh -o small.mlir"""
    return reduce_main(options)


def main(argv: Sequence[str] | None = None) -> int:
    args = normalize_argv(sys.argv[1:] if argv is None else argv, _SHORT)

    return tool_main(
        "stablehlo-reduce", argv, args,
        lambda a: cli.main(args=a, prog_name="stablehlo-reduce", standalone_mode=False),
    )


if __name__ == "__main__":
    main()
