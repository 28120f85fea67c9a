"""The toolkit's Python API in one place (upstream's ``stablehlo`` Python module, plus our additions).

Portable artifacts (``stablehlo_py.serialization``)::

    serialize_portable_artifact(module, target_version, allow_other_dialects=False, *, strip_debuginfo=False) -> bytes
    serialize_portable_artifact_str(module_str, target_version) -> bytes
    deserialize_portable_artifact(artifact) -> ModuleOp
    deserialize_portable_artifact_str(artifact) -> str
    get_portable_artifact_version(artifact) -> Version      # header only
    check_compat(artifact, consumer_version) -> CompatReport

Running a JAX export with its calling convention (``Exported.call``'s)::

    run_exported(exported, *flat_args, platform=None) -> list[numpy.ndarray]

Versions (``stablehlo_py.version``): ``get_current_version``, ``get_minimum_version``,
``get_smaller_version``, ``get_version_from_compatibility_requirement``, ``Version``,
``CompatibilityRequirement``.

This module sits on top of the package and may import everything; ``import stablehlo_py`` exposes the
same names lazily (nothing heavy is imported until one is used).
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.serialization import (
    CompatReport,
    check_compat,
    deserialize_portable_artifact,
    deserialize_portable_artifact_str,
    get_portable_artifact_version,
    serialize_portable_artifact,
    serialize_portable_artifact_str,
)
from stablehlo_py.version import (
    CompatibilityRequirement,
    Version,
    get_current_version,
    get_minimum_version,
    get_smaller_version,
    get_version_from_compatibility_requirement,
)

__all__ = [
    "CompatReport",
    "CompatibilityRequirement",
    "Version",
    "check_compat",
    "deserialize_portable_artifact",
    "deserialize_portable_artifact_str",
    "get_current_version",
    "get_minimum_version",
    "get_portable_artifact_version",
    "get_smaller_version",
    "get_version_from_compatibility_requirement",
    "run_exported",
    "serialize_portable_artifact",
    "serialize_portable_artifact_str",
]


def run_exported(
    exported: Any, *args: Any, platform: str | None = None, name: str = "<artifact>"
) -> list[Any]:
    """Interpret a JAX ``Exported`` (its ``serialize()`` bytes, or a ``JaxExported`` already read)
    as ``Exported.call`` runs it: ``args`` are the flattened inputs, one per ``in_avals`` entry,
    unused ones included; the module gets the platform index (of ``platform``, by default "cpu"
    when exported for it, else the first platform), one token per ordered effect and the kept
    arguments (``module_kept_var_idx``), and the flattened results come back without the tokens.
    ``run(module, *args)`` on the bare module keeps taking ``@main``'s own arguments."""
    from stablehlo_py.errors import InterpreterError
    from stablehlo_py.interpreter import run
    from stablehlo_py.interpreter.evaluator import TOKEN
    from stablehlo_py.serialization.jax_export import JaxExported, read_jax_exported

    exp = exported if isinstance(exported, JaxExported) else read_jax_exported(exported, name)
    module = deserialize_portable_artifact(exp.mlir_module_serialized, name=name)
    main = next(
        (op for op in module.ops if getattr(getattr(op, "sym_name", None), "data", None) == "main"),
        None,
    )
    arity = None if main is None else len(main.function_type.inputs.data)  # type: ignore
    if arity != exp.module_arity:
        raise InterpreterError(
            f"{name}: the module's @main takes {arity} argument(s), which does not fit the "
            f"export's calling convention: {exp.calling_convention_text()}"
        )
    module_args = exp.module_arguments(args, platform=platform, token=TOKEN)
    return exp.module_results(run(module, *module_args))
