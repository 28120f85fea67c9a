"""The steps of a bench, each run once and marked so that callgrind counts each one's instructions.

    python bench/instructions.py WORKLOAD [--size N] [--smoke]

WORKLOAD is `versioning` (legalize, downgrade to 0.9.0, upgrade, back: each pass, then its
verification, on bench/versioning.py's module), `serialization` (write and read both artifact
formats of bench/parse_print.py's generated module), `parse_print` (parse, verify, print it) or
`interpreter` (bench/interpreter.py's straight-line program of small ops: its first run, compiling
included, a new evaluator's run, and its second call).

Wall-clock timings of these steps vary by 10 % and more between runs of the same code on a
shared machine; the number of instructions a step executes varies by about 1 %.  So a step is
marked: `os.getppid()` (a C function nothing else here calls) runs just before and just after
it, and `valgrind --tool=callgrind --dump-before=os_getppid` writes one count per stretch
between marks.  tools/bench_instructions.py runs this script that way on two revisions side by
side and prints instructions per op.  Run alone, it runs the steps once (its smoke test).

Before the marked run, every step runs once on a small module (first-use costs -- imports,
compiled printers, memo tables -- are not counted), and the garbage collector's debt is paid
before each step.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

Step = tuple[str, Callable[[dict[str, Any]], None]]


def _versioning() -> tuple[Callable[[int], str], list[Step]]:
    from versioning import generate

    from stablehlo_py.ir.verify import verify
    from stablehlo_py.passes.registry import PASSES

    steps: list[Step] = []
    for name, pass_name, options in (
        ("legalize", "stablehlo-legalize-to-vhlo", {}),
        ("downgrade", "vhlo-to-version", {"target": "0.9.0"}),
        ("upgrade", "vhlo-to-version", {"target": "current"}),
        ("back", "vhlo-legalize-to-stablehlo", {}),
    ):

        def run(s: dict[str, Any], p: str = pass_name, o: dict[str, str] = options) -> None:
            s["module"] = PASSES[p].run(s["module"], o)

        steps += [(name, run), (f"{name} verify", lambda s: verify(s["module"]))]
    return generate, steps


def _serialization() -> tuple[Callable[[int], str], list[Step]]:
    from parse_print import generated_module

    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
    )
    from stablehlo_py.version import get_current_version

    target = str(get_current_version())

    def write(fmt: str) -> Callable[[dict[str, Any]], None]:
        def run(s: dict[str, Any]) -> None:
            s[fmt] = serialize_portable_artifact(s["module"], target, format=fmt)

        return run

    def read(fmt: str) -> Callable[[dict[str, Any]], None]:
        return lambda s: deserialize_portable_artifact(s[fmt])

    return generated_module, [
        ("write msgpack", write("msgpack")),
        ("read msgpack", read("msgpack")),
        ("write mlir", write("mlir")),
        ("read mlir", read("mlir")),
    ]


def _parse_print() -> tuple[Callable[[int], str], list[Step]]:
    from parse_print import generated_module

    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.verify import verify

    def parse_step(s: dict[str, Any]) -> None:
        s["module"] = parse(s["text"])

    return generated_module, [
        ("parse", parse_step),
        ("verify", lambda s: verify(s["module"])),
        ("print", lambda s: print_ir(s["module"])),
    ]


def _interpreter() -> tuple[Callable[[int], str], list[Step]]:
    import numpy as np
    from interpreter import straight_line_program

    from stablehlo_py.interpreter import run
    from stablehlo_py.interpreter.evaluator import Evaluator

    r = np.random.default_rng(0)
    args = [r.normal(size=(2, 4)).astype(np.float32) for _ in range(2)]

    def first(s: dict[str, Any]) -> None:
        run(s["module"], *args)  # compiling included

    def again(s: dict[str, Any]) -> None:
        s["evaluator"] = Evaluator(s["module"])
        s["evaluator"].call("main", args)  # a new evaluator: the compiled code is cached

    def call(s: dict[str, Any]) -> None:
        s["evaluator"].call("main", args)

    return straight_line_program, [("first run", first), ("new evaluator", again), ("second call", call)]


WORKLOADS: dict[str, Callable[[], tuple[Callable[[int], str], list[Step]]]] = {
    "versioning": _versioning,
    "serialization": _serialization,
    "parse_print": _parse_print,
    "interpreter": _interpreter,
}
"""Workload name -> (the generator of its module's text, its steps in order)."""


def step_names(workload: str) -> list[str]:
    return [name for name, _ in WORKLOADS[workload]()[1]]


def run_steps(text: str, steps: list[Step], mark: Callable[[], object] | None) -> int:
    """Run `steps` on the module of `text` (parsed unmarked, except by the parse step itself);
    `mark()` before and after each step.  Returns the module's op count."""
    from stablehlo_py.ir import parse

    state: dict[str, Any] = {"text": text}
    if steps[0][0] != "parse":
        state["module"] = parse(text)
    for _name, step in steps:
        gc.collect()
        if mark is not None:
            mark()
        step(state)
        if mark is not None:
            mark()
    module = state["module"]
    return sum(1 for _ in module.walk())


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("workload", choices=sorted(WORKLOADS))
    ap.add_argument("--size", type=int, default=2000, help="ops in the measured module (2000)")
    ap.add_argument("--smoke", action="store_true", help="a tiny module (the smoke test)")
    args = ap.parse_args()
    size = 60 if args.smoke else args.size
    if size < 1:
        ap.error("--size must be at least 1")
    generate, steps = WORKLOADS[args.workload]()
    run_steps(generate(50), steps, None)  # warm-up: first-use costs are not counted
    n = run_steps(generate(size), steps, os.getppid)
    print(f"ops: {n}")
    print("steps: " + ", ".join(name for name, _ in steps))


if __name__ == "__main__":
    main()
