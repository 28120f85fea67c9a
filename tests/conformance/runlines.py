"""Execute upstream's `// RUN:` lines with our tools, like lit does: the runner lives in the package
(`stablehlo_py.testing.conformance`, which the pytest plugin uses too); the names are kept here for
the suites that import them."""

from __future__ import annotations

from stablehlo_py.testing.conformance import BIN, NOT_AS_LIT, execute, run_lines, substitute, tool

__all__ = ["BIN", "NOT_AS_LIT", "execute", "run_lines", "substitute", "tool"]
