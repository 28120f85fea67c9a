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

Inputs and results as files (``stablehlo_py.io``)::

    load_inputs(path_or_paths, func_module_or_export, entry="main") -> list[numpy.ndarray]
    save_results(path, results, names=None)        # .npz: result0.., result_types, result_info

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
    "load_inputs",
    "run_exported",
    "save_results",
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


def load_inputs(
    path_or_paths: Any, func_or_module: Any, entry: str = "main", *, name: str = "<artifact>"
) -> list[Any]:
    """The arguments of ``@entry`` read from files (``stablehlo_py.io.load_inputs``: an ``.npz``
    archive by position ``arg0..`` or argument name, a probe directory, ``.npy`` files, a file of
    ``[dense<...>, ...]`` text).  ``func_or_module`` is a module, its text, a ``func.func``, or a
    JAX export (a ``JaxExported`` or its ``serialize()`` bytes): then the exported function's
    arguments, one per ``in_avals`` entry, named as JAX names them, for ``run_exported``."""
    from stablehlo_py.io import load_inputs as load
    from stablehlo_py.serialization.jax_export import JaxExported, read_jax_exported

    if isinstance(func_or_module, (bytes, bytearray, JaxExported)):
        exp = (
            func_or_module
            if isinstance(func_or_module, JaxExported)
            else read_jax_exported(bytes(func_or_module), name)
        )
        module = deserialize_portable_artifact(exp.mlir_module_serialized, name=name)
        return load(path_or_paths, module, entry, exported=exp)
    return load(path_or_paths, func_or_module, entry)


def save_results(path: Any, results: Any, names: Any = None) -> None:
    """Write a function's results to ``path`` (``stablehlo_py.io.save_results``): an ``.npz``
    archive of ``result0``, ``result1``, ... with ``result_types`` (and ``result_info`` from
    ``names``), or an ``.npy`` file for a single result."""
    from stablehlo_py.io import save_results as save

    save(path, results, names)
