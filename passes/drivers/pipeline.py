"""Running passes: MLIR's textual pass pipeline read into passes with their options
(`parse_pass_pipeline`), and the passes run in order with the IR verified after each
(`run_pipeline`, as MLIR's pass manager)."""

from __future__ import annotations

from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.passes.drivers.options import parse_pass_options, split_top_level
from stablehlo_py.passes.registry import PASSES, PIPELINES


def run_pipeline(op: Operation, pipeline: str | list[tuple[str, dict[str, str]]]) -> Operation:
    """Run the passes in order; like MLIR's pass manager, verify the IR after each one.
    ``pipeline`` is MLIR's textual pipeline (``"inline,stablehlo-legalize-to-vhlo"``, as
    :func:`parse_pass_pipeline` reads it) or a list of (pass name, options) pairs."""
    from stablehlo_py.ir.verify import verify

    if isinstance(pipeline, str):
        pipeline = parse_pass_pipeline(pipeline)
    for step in pipeline:
        if not (
            isinstance(step, (tuple, list)) and len(step) == 2 and isinstance(step[0], str)
            and isinstance(step[1], dict)
        ):
            raise StableHLOError(
                f"run_pipeline: expected a textual pipeline or (pass name, options dict) pairs, "
                f"got {step!r}"
            )
        name, options = step
        info = PASSES.get(name)
        if info is None:
            raise StableHLOError(f"unknown pass '{name}'; available: {', '.join(sorted(PASSES))}")
        op = info.run(op, options)
        verify(op)
    return op


def parse_pass_pipeline(text: str) -> list[tuple[str, dict[str, str]]]:
    """MLIR's textual pass pipeline (`--pass-pipeline='builtin.module(a, b{k=v}, func.func(c))'`)
    -> the passes in order, with their options.  Nested anchors (`func.func(...)`) run their passes
    over every function of the module, which is what this toolkit's passes do anyway; a registered
    pipeline name expands to its passes.  An unknown pass or malformed text is a StableHLOError."""
    text = text.strip().strip("'\"").strip()
    out: list[tuple[str, dict[str, str]]] = []
    for item in split_top_level(text, ","):
        head, brace, rest = item.partition("{")
        if "(" in head:
            anchor, _, inner = item.partition("(")
            if not inner.endswith(")") or not anchor.strip():
                raise StableHLOError(
                    f"malformed pass pipeline '{text}': '{item}' is not `op-name(pass, ...)`"
                )
            out.extend(parse_pass_pipeline(inner[:-1]))
            continue
        name = head.strip()
        if brace and not rest.endswith("}"):
            raise StableHLOError(f"malformed pass pipeline '{text}': '{item}' has no closing '}}'")
        options = parse_pass_options(rest[:-1]) if brace else {}
        if name in PIPELINES:
            if options:
                raise StableHLOError(f"pass pipeline '{name}' takes no options")
            out.extend((n, dict(o)) for n, o in PIPELINES[name])
        elif name in PASSES:
            out.append((name, options))
        else:
            known = ", ".join(sorted([*PASSES, *PIPELINES]))
            raise StableHLOError(
                f"'{name}' in --pass-pipeline does not refer to a registered pass or pass "
                f"pipeline; known: {known}"
            )
    return out
