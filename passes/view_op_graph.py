"""`view-op-graph`: MLIR's pass (mlir/lib/Transforms/ViewOpGraph.cpp) writing a Graphviz graph of
the module; the IR passes through unchanged.

As MLIR's, the graph is DOT text written to stderr (`stablehlo-opt --view-op-graph x.mlir 2> g.dot`,
laid out as `stablehlo_py.ir.text.op_graph` describes), with upstream's options `max-label-len`,
`print-attrs`, `print-control-flow-edges`, `print-data-flow-edges` and `print-result-types`.
Ours besides: `output=FILE` writes the graph to a file instead, and `format=svg` renders it with
Graphviz's `dot -Tsvg` (`stablehlo-opt --view-op-graph=svg` is the shorthand), which must be
installed.  Large elements attributes are elided above MLIR's default limit of 16 elements
(stablehlo-opt has no `-mlir-elide-elementsattrs-if-larger`)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.text.op_graph import GraphOptions, op_graph_dot
from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["NO_DOT", "render_svg", "run"]

PASS_NAME = "view-op-graph"
SUMMARY = "Print Graphviz visualization of an operation"
OPTIONS = (
    PassOption(
        "max-label-len", "int32", 20, "Limit attribute/type length to number of chars"
    ),
    PassOption("print-attrs", "bool", True, "Print attributes of operations"),
    PassOption("print-control-flow-edges", "bool", False, "Print control flow edges"),
    PassOption("print-data-flow-edges", "bool", True, "Print data flow edges"),
    PassOption("print-result-types", "bool", True, "Print result types of operations"),
    PassOption(
        "format",
        "string",
        "dot",
        "dot (Graphviz's text, as MLIR's pass) or svg (rendered by Graphviz's `dot`, which must be "
        "installed); `--view-op-graph=svg` is short for format=svg",
    ),
    PassOption("output", "string", "", "Write the graph to this file (default: stderr)"),
)

FORMATS = ("dot", "svg")
NO_DOT = (
    "--view-op-graph=svg needs Graphviz's `dot` (apt-get install graphviz); write DOT with "
    "--view-op-graph and render it elsewhere"
)
DOT_TIMEOUT_S = 300.0
"""How long `dot -Tsvg` may take (a graph of tens of thousands of ops takes minutes)."""


def run(op: Operation, options: dict[str, object]) -> Operation:
    fmt = str(options["format"])
    if fmt not in FORMATS:
        raise StableHLOError(
            f"option 'format' of pass '{PASS_NAME}' expects dot or svg, got '{fmt}'"
        )
    max_len = int(options["max-label-len"])  # type: ignore[call-overload]
    if max_len < 0:
        raise StableHLOError(
            f"option 'max-label-len' of pass '{PASS_NAME}' expects a count of characters (0 or "
            f"more), got {max_len}"
        )
    graph = op_graph_dot(
        op,
        GraphOptions(
            max_label_len=max_len,
            print_attrs=bool(options["print-attrs"]),
            print_control_flow_edges=bool(options["print-control-flow-edges"]),
            print_data_flow_edges=bool(options["print-data-flow-edges"]),
            print_result_types=bool(options["print-result-types"]),
        ),
    )
    text = render_svg(graph) if fmt == "svg" else graph
    _write(text, str(options["output"]))
    return op


def render_svg(dot_text: str, timeout: float = DOT_TIMEOUT_S) -> str:
    """`dot_text` laid out by Graphviz (`dot -Tsvg`) as SVG text; a StableHLOError when `dot` is
    not installed, fails or takes longer than `timeout` seconds."""
    exe = shutil.which("dot")
    if exe is None:
        raise StableHLOError(NO_DOT)
    try:
        proc = subprocess.run(
            [exe, "-Tsvg"],
            input=dot_text.encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise StableHLOError(
            f"Graphviz's `dot -Tsvg` did not finish within {timeout:g} s; write DOT with "
            "--view-op-graph and render the parts you need elsewhere"
        ) from None
    except OSError as e:
        raise StableHLOError(f"could not run Graphviz's `dot` ({exe}): {e.strerror}") from None
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip()
        raise StableHLOError(
            f"Graphviz's `dot -Tsvg` failed (exit status {proc.returncode}): {detail}"
        )
    return proc.stdout.decode(errors="replace")


def _write(text: str, output: str) -> None:
    if not output:
        sys.stderr.write(text)
        sys.stderr.flush()
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise StableHLOError(
            f"view-op-graph: cannot write the graph to '{output}': {e.strerror}"
        ) from None
