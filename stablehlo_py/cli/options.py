"""The command-line options stablehlo-opt and stablehlo-translate both declare, each defined once
(flag, destination, help), so the two tools spell and explain them alike."""

from __future__ import annotations

import click

INPUT_FILE = click.argument("input_file", default="-", required=False)
OUTPUT = click.option("-o", "output", default=None, help="Output file (default: stdout).")
SPLIT_INPUT_FILE = click.option(
    "--split-input-file", is_flag=True, help="Process each `// -----` chunk separately."
)
PRINT_GENERIC = click.option(
    "--mlir-print-op-generic", "generic", is_flag=True, help="Print ops in generic form."
)
PRINT_DEBUGINFO = click.option(
    "--mlir-print-debuginfo", "debuginfo", is_flag=True, help="Print locations."
)
PRINT_LOCAL_SCOPE = click.option(
    "--mlir-print-local-scope",
    "local_scope",
    is_flag=True,
    help="Print locations inline instead of as #loc aliases (with --mlir-print-debuginfo).",
)
TARGET = click.option(
    "--target", default=None, help="Target version for --serialize (X.Y.Z or 'current')."
)
STRIP_DEBUGINFO = click.option(
    "--strip-debuginfo", is_flag=True, help="Drop locations when serializing."
)
