"""The modes of stablehlo-translate (each `fn(options) -> exit code`)."""

from __future__ import annotations

import sys
from typing import Any

from stablehlo_py.cli.common import read_input, split_chunks, write_output
from stablehlo_py.errors import StableHLOError


def interpret(options: dict[str, Any]) -> int:
    """Run `main` (or, without one, every function taking no arguments) of each chunk; report every
    failing check with its function, op and values; exit 1 if any failed."""
    from stablehlo_py.interpreter.evaluator import Evaluator
    from stablehlo_py.interpreter.printing import format_value
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    text, name = read_input(str(options["input_file"]))
    failures = 0
    out: list[str] = []
    for offset, chunk in split_chunks(text, bool(options.get("split_input_file"))):
        if not chunk.strip():
            continue
        module = parse(chunk, name, offset)
        verify(module)
        ev = Evaluator(module)
        ev.probe_dir = options.get("probe_output_dir") or None  # type: ignore[attr-defined]
        ev.print_sink = out.append  # type: ignore[attr-defined]  # interpreter.print, in order
        if "main" in ev.funcs:
            entries = ["main"]
        else:
            entries = [n for n, f in ev.funcs.items() if not f.function_type.inputs.data]
        args_text = options.get("args_")
        for entry in entries:
            args: list[Any] = []
            if args_text and entry == "main":
                args = _parse_args(str(args_text), ev.funcs[entry])
            results = ev.call(entry, args)
            types = ev.funcs[entry].function_type.outputs.data
            dense = bool(options.get("interpreter_print_dense"))
            for r, t in zip(results, types):
                out.append(format_value(r, t, dense=dense) + "\n")
        for f in ev.failures:
            print(str(f), file=sys.stderr)
        failures += len(ev.failures)
    if out:
        write_output(options.get("output"), "".join(out))  # type: ignore[arg-type]
    return 1 if failures else 0


def _parse_args(text: str, func: Any) -> list[Any]:
    """`--args=dense<...> : tensor<..>, dense<...> : tensor<..>`: MLIR dense attributes, one per argument."""
    from stablehlo_py.interpreter.values import array_from_attr
    from stablehlo_py.ir.registry import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "--args")
    bracketed = p.try_literal("[")  # upstream's form: --args="[dense<1> : tensor<2xi32>, ...]"
    attrs = p.parse_comma_list(p.parse_attribute)
    if bracketed:
        p.parse_literal("]")
    if not p.at_end():
        p.error("unexpected text after the arguments")
    n = len(func.function_type.inputs.data)
    if len(attrs) != n:
        raise StableHLOError(f"@main takes {n} arguments, --args gave {len(attrs)}")
    return [array_from_attr(a) for a in attrs]  # type: ignore[arg-type]
