"""Upstream's own diagnostics for a chunk of MLIR text: jaxlib embeds upstream MLIR and StableHLO
(with their verifiers), so parsing and verifying a chunk there yields the errors upstream's
`stablehlo-opt -verify-diagnostics` would check.  Used by the oracle tests only (needs jaxlib)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LOC = re.compile(r'loc\("[^"]*":(\d+):(\d+)\)')
_TEXT_LOC = re.compile(r'^error: "[^"]*":(\d+):(\d+): (.*)$')


@dataclass(frozen=True)
class Diagnostic:
    line: int | None  # 1-based line in the chunk; None when upstream gives no file location
    message: str


def upstream_errors(chunk: str) -> list[Diagnostic]:
    """The error diagnostics jaxlib's MLIR emits parsing and verifying `chunk`, in order."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    ctx = jax_mlir.make_ir_context()
    seen: list[Diagnostic] = []

    def handler(d) -> bool:
        if "ERROR" in str(d.severity):
            m = _LOC.search(str(d.location))
            seen.append(Diagnostic(int(m.group(1)) if m else None, str(d.message)))
        return True

    ctx.attach_diagnostic_handler(handler)
    with ctx:
        try:
            module = ir.Module.parse(chunk)
            module.operation.verify()
        except Exception as e:  # noqa: BLE001 - the parser reports through the exception too
            if not seen:
                for line in str(e).splitlines():
                    m = _TEXT_LOC.match(line)
                    if m:
                        seen.append(Diagnostic(int(m.group(1)), m.group(3)))
    return seen


# what jaxlib's context cannot judge: dialects it does not register, ops newer than its StableHLO
UNKNOWN_TO_JAXLIB = (
    "type created with unregistered dialect",
    "Dialect `quant' not found",
    "unregistered operation",
)


def unknown_to_jaxlib(errors: list[Diagnostic]) -> str | None:
    for e in errors:
        for marker in UNKNOWN_TO_JAXLIB:
            if marker in e.message:
                return e.message
    return None
