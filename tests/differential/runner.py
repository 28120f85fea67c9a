"""Run a case through our interpreter and XLA CPU and classify the outcome.

`run_case(case)` lowers the case's function with `jax.jit(f, keep_unused=True).lower(*args)`, runs the
StableHLO text (`.as_text()`) with `stablehlo_py.interpreter.run` on the parsed module, runs the compiled
executable on XLA CPU, compares (compare.py) and, for a mismatch, asks `xla_deviations.classify` which
class it is: "xla_deviation" (i), "implementation_defined" (ii) or "bug" (iii).

Outcome statuses: "match"; "mismatch" (with a class and a name); "invalid" (JAX refused the program: a
generator limit, not counted); "xla_unsupported" (XLA CPU could not compile or run it); "ours_error"
(our interpreter raised where XLA ran: a class (iii) bug).

    python -m tests.differential.runner SEED INDEX     # print a case's reproducer and outcome
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tests.differential import compare as cmp
from tests.differential.generator import Case, make_case


@dataclass
class Outcome:
    case: Case
    status: str
    cls: str = ""          # "xla_deviation" | "implementation_defined" | "bug" for mismatches
    name: str = ""         # deviation / implementation-defined class / known bug name
    detail: str = ""
    text: str = ""         # the StableHLO text
    ours: list[Any] = field(default_factory=list)
    theirs: list[Any] = field(default_factory=list)

    def report(self) -> str:
        head = f"case {self.case.id} [{self.case.family}: {', '.join(self.case.ops)}] {self.status}"
        if self.cls:
            head += f" {self.cls}/{self.name}"
        return f"{head}\n  {self.detail}\n" + "\n".join("  " + ln for ln in self.case.reproducer().splitlines())


# Programs that abort XLA CPU (a CHECK failure kills the process): (op, dtype) pairs, never given to XLA.
XLA_ABORTS = {
    ("concatenate", "int2"), ("concatenate", "uint2"),  # ir_array.cc: Check failed: bit_offset != nullptr
}


# Programs whose XLA CPU compilation never finishes, per jaxlib (major.minor): never given to XLA there
# (bench/differential_fuzz.py's --case-timeout found them: seed 3101 cases 1383, 12317, 12566).
XLA_HANGS = {
    "0.12": {("asinh", "float8_e4m3"), ("asinh", "float8_e3m4")},
}


def _jaxlib() -> str:
    import jaxlib

    return ".".join(jaxlib.__version__.split(".")[:2])


def xla_aborts(case: Case) -> bool:
    hangs = XLA_HANGS.get(_jaxlib(), set())
    return any((op, case.tags.get("dtype", "")) in XLA_ABORTS | hangs for op in case.ops)


def _leaves(x) -> list[np.ndarray]:
    import jax

    return [np.asarray(v) for v in jax.tree_util.tree_leaves(x)]


def lower(fn, args):
    import jax

    return jax.jit(fn, keep_unused=True).lower(*args)


def run_ours(text: str, args) -> list[np.ndarray]:
    from stablehlo_py.interpreter import run
    from stablehlo_py.ir import parse

    return [np.asarray(v) for v in run(parse(text), *args)]


def run_xla(lowered, args) -> list[np.ndarray]:
    return _leaves(lowered.compile()(*args))


def evaluate(fn, args) -> tuple[str, list[np.ndarray], list[np.ndarray], str]:
    """(text, ours, theirs, error) for a function on arguments; raises for an invalid program."""
    lowered = lower(fn, args)
    text = lowered.as_text()
    theirs = run_xla(lowered, args)
    ours = run_ours(text, args)
    return text, ours, theirs, ""


def run_case(case: Case) -> Outcome:
    import jax
    import warnings

    from tests.differential import xla_deviations

    with jax.enable_x64(True), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            fn = case.fn()
            lowered = lower(fn, case.args)
            text = lowered.as_text()
        except Exception as e:  # JAX refused the program
            return Outcome(case, "invalid", detail=f"{type(e).__name__}: {str(e)[:300]}")
        if xla_aborts(case):
            return Outcome(case, "xla_unsupported", detail="aborts or hangs XLA CPU (runner.XLA_ABORTS, XLA_HANGS)",
                           text=text)
        try:
            theirs = run_xla(lowered, case.args)
        except Exception as e:
            return Outcome(case, "xla_unsupported", detail=f"{type(e).__name__}: {str(e)[:300]}", text=text)
        try:
            ours = run_ours(text, case.args)
        except Exception as e:
            out = Outcome(case, "ours_error", detail=f"{type(e).__name__}: {str(e)[:500]}", text=text,
                          theirs=theirs)
            out.cls, out.name = xla_deviations.classify_error(out)
            return out
        tol = cmp.tolerance(case)
        result = cmp.compare(ours, theirs, tol)
        out = Outcome(case, "match", text=text, ours=ours, theirs=theirs)
        if result.ok:
            return out
        out.status = "mismatch"
        details = [result.summary()]
        for leaf in result.leaves:
            if leaf.reason and leaf.bad is not None:
                details.append(f"ours: {cmp.show(ours[leaf.index], leaf.bad)}")
                details.append(f"xla:  {cmp.show(theirs[leaf.index], leaf.bad)}")
        out.detail = "\n  ".join(details)
        out.cls, out.name = xla_deviations.classify(out, result)
        return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m tests.differential.runner SEED INDEX", file=sys.stderr)
        return 2
    case = make_case(int(argv[0]), int(argv[1]))
    out = run_case(case)
    print(out.report())
    if out.text:
        print(out.text)
    if out.ours or out.theirs:
        print("ours:", out.ours)
        print("xla: ", out.theirs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
