"""Verification entry point: xDSL's structural checks plus each op's spec constraints (`verify_`),
reported as one `VerifyError` naming the op and the location it was parsed from.

Ops whose class has a compiled plan (`verify_plan`) are checked by it; any op it does not pass, and
every op of a class without a plan, goes through xDSL's `op.verify`, which words the diagnostic."""

from __future__ import annotations

import re

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.verify_plan import verifies


def verify(top: Operation) -> None:
    """Verify every op (outer ops first); the first failure is raised with the op's location."""
    for op in top.walk():
        if verifies(op):
            continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            raise VerifyError(f"'{op.name}' op {_message(e)}", location=op_location(op)) from None
        except UnicodeEncodeError as e:
            # xDSL prints the module into its diagnostic and cannot print a string that is not
            # UTF-8 (bytes kept as surrogates): report the verification failure it was printing
            cause = e.__context__
            if not isinstance(cause, VerifyException):
                raise
            raise VerifyError(f"'{op.name}' op {_message(cause)}", location=op_location(op)) from None


def op_location(op: Operation) -> str | None:
    """Where to report a diagnostic for `op`: its `loc(...)` if it has a file one, else where it was parsed."""
    from stablehlo_py.ir.text.parser import op_source_location

    return op_source_location(op)


_REGION_COUNT = re.compile(r"Expected (\d+) regions?, but got \d+")


def _region_count_message(m: re.Match[str]) -> str:
    """MLIR's region-count traits: OneRegion, ZeroRegions, NRegions<N>."""
    n = int(m.group(1))
    return {0: "requires zero regions", 1: "requires one region"}.get(n, f"expected {n} regions")


def _message(e: VerifyException) -> str:
    text = str(e).strip()
    first = text.splitlines()[0] if text else "verification failed"
    # xDSL's structural wording where MLIR's traits say it otherwise
    return _REGION_COUNT.sub(_region_count_message, first)
