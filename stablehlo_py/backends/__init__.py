"""StableHLO's consumers as runners: a module run on XLA (through jaxlib) or IREE, for comparing
with the interpreter (`--compare-to`, `stablehlo-reduce --diverges-from`, the pytest plugin).

Both get the module as our MLIR-bytecode portable artifact (:mod:`.artifact`).  Each backend is an
optional extra; a missing one raises :class:`BackendUnavailable` naming the extra to install.

- :func:`run_xla` / :func:`run_iree` (``module, args -> results``), :data:`BACKENDS` by name;
- :func:`static_for`: a dynamically shaped ``main`` made static for given arguments;
- :func:`expose`: the entry function returning every top-level value (per-op comparison);
- :func:`tolerance`: the (rtol, atol) results of a dtype are compared with.
"""

from __future__ import annotations

from stablehlo_py.backends.artifact import IREE_STABLEHLO, artifact, artifact_target, jaxlib_stablehlo
from stablehlo_py.backends.availability import BackendUnavailable, require_iree, require_xla
from stablehlo_py.backends.expose import Exposed, expose
from stablehlo_py.backends.iree import IREE_FLAGS, iree_compile, iree_function, run_iree
from stablehlo_py.backends.static import entry_arg_types, static_for
from stablehlo_py.backends.tolerance import tolerance
from stablehlo_py.backends.xla import run_xla

BACKENDS = {"xla": run_xla, "iree": run_iree}
"""Backend name -> ``run(module, args) -> list of numpy arrays`` (``main`` is the entry)."""

__all__ = [
    "BACKENDS",
    "IREE_FLAGS",
    "IREE_STABLEHLO",
    "BackendUnavailable",
    "Exposed",
    "artifact",
    "artifact_target",
    "entry_arg_types",
    "expose",
    "iree_compile",
    "iree_function",
    "jaxlib_stablehlo",
    "require_iree",
    "require_xla",
    "run_iree",
    "run_xla",
    "static_for",
    "tolerance",
]
