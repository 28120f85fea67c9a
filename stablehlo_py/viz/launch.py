"""``python -m stablehlo_py.viz FILE`` / ``stablehlo-viz FILE``: open a program in Google's Model
Explorer with this package's adapter selected.

    stablehlo-viz program.mlir                      # StableHLO text (or .mlir.gz)
    stablehlo-viz program.shlo --vhlo               # an artifact's VHLO at its version
    stablehlo-viz mlp.jax_exported --port=8090 --no_open_in_browser
    stablehlo-viz model.mlir --trace=run.npz --compare-to=reference.npz   # a run's overlays

Model Explorer picks the first adapter that claims a file's suffix, and its built-in MLIR adapter
claims ``.mlir`` and ``.mlirbc``: ``model-explorer FILE --extensions=stablehlo_py.viz`` opens
those with the built-in adapter unless "StableHLO (stablehlo-py)" is picked in the upload dialog.
This launcher names our adapter for the file (``adapterId``), so it always applies.  The file is
converted once before the server starts (an unreadable program is an error here, not in the
page), and that result serves the page's first load.

``--trace=T.npz`` (a run's trace, ``stablehlo-translate --interpret --trace-output=T.npz``) adds
node data (:mod:`stablehlo_py.viz.overlays`): NaN/Inf counts and times per op, and with
``--compare-to=REF.npz`` the differences from another run's trace.  ``--node_data_paths`` takes
Model Explorer node data files, or directories of them (``--node-data-output=DIR``'s).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from stablehlo_py.errors import StableHLOError
from stablehlo_py.viz.adapter_ids import ADAPTER_ID, EXTENSION, VHLO_ADAPTER_ID

__all__ = ["main", "parser"]

NEEDS_VIZ = (
    "stablehlo-viz needs Google's Model Explorer, which is not installed; install it with: "
    "pip install 'stablehlo-py[viz]'"
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stablehlo-viz",
        description="Open a StableHLO program (text, portable artifact or JAX export) in Model "
        "Explorer as a graph: a graph per function, layers from JAX's name stacks and regions.",
        epilog="`model-explorer FILE --extensions=stablehlo_py.viz` loads the same adapters, but "
        "Model Explorer opens .mlir and .mlirbc files with its built-in MLIR adapter unless "
        "'StableHLO (stablehlo-py)' is picked in its Adapter column; .shlo, .jax_exported and "
        ".mlir.gz open with ours.",
    )
    p.add_argument("file", help="StableHLO text (.mlir, .mlir.gz), a portable artifact "
                   "(msgpack or MLIR bytecode) or a JAX export (.jax_exported)")
    p.add_argument("--vhlo", action="store_true",
                   help="show an artifact's VHLO at the version it was written for")
    p.add_argument("--host", default="localhost", help="the server's host (default localhost)")
    p.add_argument("--port", type=int, default=8080,
                   help="the server's port (default 8080, or the next free one up to 8099)")
    p.add_argument("--no_open_in_browser", "--no-open-in-browser", action="store_true",
                   help="do not open a browser tab (print the URL only)")
    p.add_argument("--node_data_paths", "--node-data", default="",
                   help="comma-separated Model Explorer node data JSON files to overlay, or "
                   "directories of them (every .json file: what stablehlo-translate --interpret "
                   "--node-data-output=DIR writes)")
    p.add_argument("--trace", metavar="T.npz", default=None,
                   help="overlay a run of the program: the trace file of stablehlo-translate "
                   "--interpret FILE --trace-output=T.npz; each op's NaN and Inf elements "
                   "(nan_count, inf_count) and time in microseconds (time_us)")
    p.add_argument("--compare-to", metavar="REF.npz", default=None,
                   help="with --trace: also overlay how each op's results differ from another "
                   "run's trace (of this program or the one it was derived from): max_abs_diff, "
                   "max_rel_diff, mismatched (elements beyond the tolerance).  For XLA or IREE "
                   "write the overlays with stablehlo-translate --interpret FILE --inputs=... "
                   "--compare-to=xla --node-data-output=DIR and open DIR with --node_data_paths")
    return p


def _node_data_files(paths: str) -> list[str]:
    """The files of ``--node_data_paths``: each file given, each directory's .json files."""
    files = []
    for path in filter(None, (p.strip() for p in paths.split(","))):
        if os.path.isdir(path):
            found = sorted(glob.glob(os.path.join(glob.escape(path), "*.json")))
            if not found:
                raise StableHLOError(f"--node_data_paths: no .json file in the directory {path}")
            files += found
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise StableHLOError(f"--node_data_paths: no file or directory {path}")
    return files


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        import model_explorer
    except ImportError:
        print(f"error: {NEEDS_VIZ}", file=sys.stderr)
        return 2
    from stablehlo_py.viz.main import prepare

    view = "vhlo" if args.vhlo else "stablehlo"
    try:
        overlays = _overlays(args)
        files = _node_data_files(args.node_data_paths)
        prepare(args.file, view)
    except StableHLOError as e:
        print(e, file=sys.stderr)
        return 1
    config = model_explorer.config()
    config.add_model_from_path(args.file, adapterId=VHLO_ADAPTER_ID if args.vhlo else ADAPTER_ID)
    for name, data in overlays.items():
        config.add_node_data(name, json.dumps(data, allow_nan=False))
    for path in files:
        config.add_node_data_from_path(path)
    model_explorer.visualize_from_config(
        config=config,
        host=args.host,
        port=args.port,
        extensions=[EXTENSION],
        no_open_in_browser=args.no_open_in_browser,
    )
    return 0


def _overlays(args: argparse.Namespace) -> dict[str, Any]:
    """``--trace``'s (and ``--compare-to``'s) node data, by overlay name."""
    if args.trace is None:
        if args.compare_to is not None:
            raise StableHLOError("--compare-to compares the run of --trace: add --trace=T.npz")
        return {}
    if args.vhlo:
        raise StableHLOError(
            "--trace overlays the StableHLO view (a run's ops are StableHLO ops): drop --vhlo"
        )
    from stablehlo_py.viz.overlays import file_overlays

    return file_overlays(args.file, args.trace, args.compare_to)
