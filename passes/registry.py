"""The pass table: upstream's pass name -> function(module, options) -> module."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    module: str  # module defining `run(module, options) -> module`

    def run(self, op: Operation, options: dict[str, str]) -> Operation:
        fn: Callable[[Operation, dict[str, str]], Operation] = importlib.import_module(
            self.module
        ).run
        return fn(op, options)


PASSES: dict[str, PassInfo] = {
    p.name: p
    for p in (
        PassInfo(
            "inline",
            "Inline calls to private functions and drop the dead ones",
            "stablehlo_py.passes.inline",
        ),
        PassInfo(
            "chlo-legalize-to-stablehlo",
            "Decompose CHLO ops into StableHLO ops (static shapes)",
            "stablehlo_py.passes.chlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "chlo-pre-serialization-pipeline",
            "Lower as much as possible to StableHLO before serialization: CHLO (static shapes)",
            "stablehlo_py.passes.chlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "stablehlo-legalize-to-vhlo",
            "Legalize StableHLO to VHLO at the current version (defaults written out)",
            "stablehlo_py.passes.stablehlo_legalize_to_vhlo",
        ),
        PassInfo(
            "vhlo-legalize-to-stablehlo",
            "Legalize VHLO (at the current version) to StableHLO (defaults erased)",
            "stablehlo_py.passes.vhlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "hlo-test-infer",
            "Test pass: attach the result types inference gives to `hlo_test_infer.get_return_types` ops",
            "stablehlo_py.passes.hlo_test_infer",
        ),
        PassInfo(
            "vhlo-to-version",
            "Upgrade or downgrade VHLO to target=X.Y.Z (also current, minimum)",
            "stablehlo_py.passes.vhlo_to_version",
        ),
        PassInfo(
            "stablehlo-refine-arguments",
            "Refine the argument types of the main function (types=T0,T1,...), wrapping refined "
            "arguments in shape_refinement_operand_wrapper custom calls",
            "stablehlo_py.passes.stablehlo_refine_arguments",
        ),
        PassInfo(
            "stablehlo-refine-shapes",
            "Refine shapes across the main function: re-infer result types, fold shape computations, "
            "refine callees per call context",
            "stablehlo_py.passes.stablehlo_refine_shapes",
        ),
        PassInfo(
            "stablehlo-legalize-composite-to-call",
            "Replace composites (except those named in except=a,b) by calls of their decompositions",
            "stablehlo_py.passes.stablehlo_legalize_composite_to_call",
        ),
        PassInfo(
            "stablehlo-ext-refine-shapes",
            "XLA's stablehlo-refine-shapes: also refines the experimental custom calls jax.export emits "
            "(dynamic_reduce_window, dynamic_rng_bit_generator, dynamic_top_k)",
            "stablehlo_py.passes.stablehlo_ext_refine_shapes",
        ),
        PassInfo(
            "stablehlo-canonicalize-dynamism",
            "Replace dynamic ops whose shape operands are constants with their static counterparts",
            "stablehlo_py.passes.stablehlo_canonicalize_dynamism",
        ),
        PassInfo(
            "stablehlo-check-shape-assertions",
            "Check `custom_call @shape_assertion` ops with constant operands and erase the ones that hold",
            "stablehlo_py.passes.stablehlo_check_shape_assertions",
        ),
    )
}


_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_KEY = re.compile(r"\s*[A-Za-z_][\w.-]*\s*=")


def split_top_level(text: str, separators: str) -> list[str]:
    """Split `text` at the characters of `separators` that are outside `<>`, `()`, `[]`, `{}` and
    quotes (the `>` of `->` closes nothing).  Empty pieces are dropped."""
    pieces: list[str] = []
    stack: list[str] = []
    quote = ""
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            stack.append(_OPEN[ch])
        elif stack and ch == stack[-1] and not (ch == ">" and i > 0 and text[i - 1] == "-"):
            stack.pop()
        elif not stack and ch in separators:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def split_list_option(value: str) -> list[str]:
    """A list option's value (`tensor<f32>,tensor<1x?xf32>`) -> its elements, split at the commas
    outside brackets (as MLIR's ListOption)."""
    return [v.strip("'\"") for v in split_top_level(value, ",")]


def parse_pass_options(text: str) -> dict[str, str]:
    """`target=1.0.0 allow-other-dialects=true` (also quoted, or wrapped in braces) -> dict.

    Options are separated by spaces, as MLIR's; a comma followed by `name=` also starts a new option
    (`a=1,b=2`).  Any other comma belongs to the value, which is how list options are written
    (`types=tensor<f32>,tensor<1xf32>`, `op-names=stablehlo.add,stablehlo.reduce`; a space after
    such a comma is allowed); commas and spaces inside `<>`, `()`, `[]`, `{}` or quotes never split."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    items: list[str] = []
    after_comma = False  # the previous word ended with a comma: `types=tensor<f32>, tensor<i32>`
    for word in split_top_level(text, " \t\n"):
        for j, piece in enumerate(split_top_level(word, ",")):
            continues = j > 0 or after_comma
            if continues and items and not _KEY.match(piece) and "=" in items[-1]:
                items[-1] += "," + piece  # a further element of a list option's value
            else:
                items.append(piece)
        after_comma = word.endswith(",")
    out: dict[str, str] = {}
    for item in items:
        if "=" in item:
            k, v = item.split("=", 1)
            v = v.strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            out[k.strip()] = v
        else:
            out[item] = "true"
    return out


def run_pipeline(op: Operation, pipeline: list[tuple[str, dict[str, str]]]) -> Operation:
    """Run the passes in order; like MLIR's pass manager, verify the IR after each one."""
    from stablehlo_py.ir.verify import verify

    for name, options in pipeline:
        info = PASSES.get(name)
        if info is None:
            raise StableHLOError(f"unknown pass '{name}'; available: {', '.join(sorted(PASSES))}")
        op = info.run(op, options)
        verify(op)
    return op
