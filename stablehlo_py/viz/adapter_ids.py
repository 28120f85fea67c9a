"""The ids and file suffixes of this package's Model Explorer adapters (:mod:`stablehlo_py.viz.main`),
importable without Model Explorer (the launcher and the tests name them)."""

from __future__ import annotations

__all__ = ["ADAPTER_ID", "ARTIFACT_EXTS", "EXTENSION", "TEXT_EXTS", "VHLO_ADAPTER_ID"]

EXTENSION = "stablehlo_py.viz"
"""What ``model-explorer --extensions=`` names (Model Explorer imports ``<it>.main``)."""

ADAPTER_ID = "stablehlo_py"
"""The StableHLO view of text, artifacts and JAX exports."""

VHLO_ADAPTER_ID = "stablehlo_py_vhlo"
"""The VHLO view of an artifact (or a JAX export) at the version it was written for."""

TEXT_EXTS = ["mlir", "gz"]
"""MLIR text (``.mlir``; gzipped ``.mlir.gz``).  Model Explorer's built-in MLIR adapter also claims
``mlir`` and is the default for it: ``python -m stablehlo_py.viz`` selects ours by id."""

ARTIFACT_EXTS = ["shlo", "mlirbc", "bc", "jax_exported"]
"""Portable artifacts (this toolkit's msgpack ``.shlo``, MLIR bytecode) and JAX exports."""
