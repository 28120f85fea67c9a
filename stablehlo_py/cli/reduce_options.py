"""`stablehlo-reduce`'s command-line options (cli/reduce.py), in the order --help lists them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

_OPTIONS: list[Callable[[Any], Any]] = [
    click.argument("input_file", metavar="IN"),
    click.option(
        "-o", "output", required=True, metavar="OUT.mlir",
        help="The reduced program; its inputs go to OUT.inputs.npz beside it.",
    ),
    click.option(
        "--inputs", default=None, metavar="FILE",
        help="The entry function's inputs: an .npz archive (arg0, arg1, ... or the arguments' "
        "names), a .npy file or a probe directory, as stablehlo-translate --interpret --inputs "
        "reads them (a JAX export's: the exported function's).  Default: small random values "
        "made with a fixed seed.",
    ),
    click.option("--entry", default="main", show_default=True, help="The function to reduce."),
    # ---- the tests
    click.option(
        "--diverges-from", type=click.Choice(["xla", "iree"]), default=None,
        help="TEST: the interpreter's results and XLA's (oracle extra) or IREE's (iree extra) "
        "differ beyond the tolerance on the inputs.  A candidate the backend refuses or fails "
        "on is not interesting (counted in the report) unless --backend-errors-diverge.",
    ),
    click.option(
        "--rtol", type=click.FloatRange(min=0), default=None,
        help="Relative tolerance of --diverges-from for floats (default per type: f32 2e-4, "
        "f16/bf16 2e-2, f64 1e-10); integers and booleans compare exactly.",
    ),
    click.option(
        "--atol", type=click.FloatRange(min=0), default=None,
        help="Absolute tolerance of --diverges-from for floats (default per type: f32 2e-5, "
        "f16/bf16 2e-2, f64 1e-12).",
    ),
    click.option(
        "--backend-errors-diverge", is_flag=True, default=False,
        help="With --diverges-from: a candidate the backend fails on counts as diverging.",
    ),
    click.option(
        "--fails-with", default=None, metavar="REGEX",
        help="TEST: the tool --on fails with an error matching REGEX (Python re.search on "
        "'ErrorType: message'; a command's exit status, stderr and stdout).",
    ),
    click.option(
        "--on", default=None, metavar="TOOL",
        help="The tool of --fails-with: verify (default), serialize:TARGET[:FORMAT] (e.g. "
        "serialize:1.0.0), interpret, xla or iree (compiled and run on the inputs), or a "
        "command (\"iree-compile --flag\"; the candidate's path is appended; it fails when it "
        "exits non-zero).",
    ),
    click.option(
        "--crashes", default=None, metavar="COMMAND",
        help="TEST: COMMAND (the candidate's path appended) dies by a signal or exits with a "
        "status >= 128.",
    ),
    click.option(
        "--test", default=None, metavar="SCRIPT",
        help="TEST: an interestingness script run as SCRIPT [--test-arg ...] CANDIDATE.mlir "
        "(its inputs are CANDIDATE.inputs.npz beside it).  creduce's convention: exit status 0 "
        "means interesting (mlir-reduce's is the opposite: --interesting-exit=nonzero).",
    ),
    click.option(
        "--test-arg", multiple=True, metavar="ARG",
        help="An argument of --test's script, before the candidate's path (repeatable).",
    ),
    click.option(
        "--interesting-exit", type=click.Choice(["zero", "nonzero"]), default=None,
        help="Which exit status of --test's script means interesting: zero (default, as "
        "creduce) or nonzero (as mlir-reduce, whose scripts exit 0 when the candidate is not "
        "interesting).",
    ),
    click.option(
        "--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0,
        show_default=True, metavar="S",
        help="Seconds a command (--crashes, --test, --on=COMMAND) gets per candidate; a "
        "candidate it times out on is not interesting (counted in the report).",
    ),
    # ---- the search
    click.option(
        "--time-limit", type=click.FloatRange(min=0), default=None, metavar="S",
        help="Stop after S seconds and write the smallest program found so far.",
    ),
    click.option(
        "--max-tests", type=click.IntRange(min=1), default=None, metavar="N",
        help="Stop after N tests and write the smallest program found so far.",
    ),
    click.option(
        "--keep-locations/--strip-locations", "keep_locations", default=True,
        help="Keep the ops' locations (JAX's name stacks and source lines: default), or also "
        "try removing them.",
    ),
]


def reduce_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_OPTIONS):
        f = option(f)
    return f
