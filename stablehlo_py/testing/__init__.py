"""Testing programs with pytest (issue 27): ``assert_matches`` against a backend or a recorded
run, fixtures, and a marker for ``// RUN:``-style conformance files.

    from stablehlo_py.testing import assert_matches, save_reference

    assert_matches(jax_fn, x)                               # the interpreter vs XLA, op by op
    assert_matches(build(), *inputs(), backend="file:ref.npz")
    save_reference("ref.npz", build(), *inputs(), backend="xla")   # record XLA's values once

- `assertions.py`: ``assert_matches``; `programs.py`: what a program may be (JAX function, builder
  Module, ModuleOp, text); `references.py`: reference files (traces, results) and
  ``save_reference``;
- `plugin.py`: the pytest plugin (entry point ``pytest11``): fixtures ``stablehlo_interpreter``,
  ``stablehlo_artifact``, ``stablehlo_backend`` (`fixtures.py`), the marker
  ``@pytest.mark.stablehlo_conformance("file.mlir")`` and ``*.shlo_test.mlir`` files
  (`conformance.py`: their ``// RUN:`` lines, run as lit runs them).

Names are loaded on first use: pytest imports the plugin in every run, so this package imports
nothing heavy (no jax, no xDSL) until a test uses it.
"""

from __future__ import annotations

from typing import Any

_NAMES = {
    "assert_matches": "stablehlo_py.testing.assertions",
    "reference_of": "stablehlo_py.testing.assertions",
    "save_reference": "stablehlo_py.testing.references",
    "compare_results": "stablehlo_py.testing.references",
    "ReferenceFileError": "stablehlo_py.testing.references",
    "program_of": "stablehlo_py.testing.programs",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'stablehlo_py.testing' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
