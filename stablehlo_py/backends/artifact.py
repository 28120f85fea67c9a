"""The bytes a backend reads: a module as our MLIR-bytecode portable artifact, at the newest
StableHLO version that we, the installed jaxlib and IREE all read.

**IREE's StableHLO version** (:data:`IREE_STABLEHLO`) is not exposed to Python (``iree.compiler``
has no ``get_current_version``).  It was found from the VHLO ops IREE's context registers: IREE
3.13 registers all VHLO forks of ``specs/ops.toml``, among them ``vhlo.collective_broadcast_v2``
(new in 1.20.0), so its StableHLO is at least 1.20.0.  No VHLO op, type or attribute starts after
1.20.0 (1.21.0 and 1.22.0 change nothing observable), so artifacts at 1.20.0 and 1.22.0 differ only
in the producer string, which IREE does not read (``tests/oracle/test_builder_consumers.py``
re-checks the floor).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from xdsl.dialects.builtin import ModuleOp

IREE_STABLEHLO = "1.20.0"
"""A floor of IREE 3.13's StableHLO version, the newest our artifacts need (module docstring)."""


def _version_key(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in str(v).split("."))


def jaxlib_stablehlo() -> str:
    """The StableHLO version of the installed jaxlib (1.17.0 for 0.10.2, 1.22.0 for 0.12)."""
    from jaxlib.mlir.dialects import stablehlo

    return str(stablehlo.get_current_version())


def artifact_target() -> str:
    """The newest StableHLO version that ours, the installed jaxlib and IREE all read."""
    from stablehlo_py.version import get_current_version

    candidates = [str(get_current_version()), IREE_STABLEHLO]
    if importlib.util.find_spec("jaxlib") is not None:
        candidates.append(jaxlib_stablehlo())
    return min(candidates, key=_version_key)


def artifact(module: ModuleOp, target: str | None = None) -> bytes:
    """``module`` as a portable artifact in MLIR bytecode (our writer) at ``target``."""
    from stablehlo_py.serialization import serialize_portable_artifact

    return serialize_portable_artifact(module, target or artifact_target(), format="mlir")
