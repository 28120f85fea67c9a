"""Whether a backend is installed: its modules, or :class:`BackendUnavailable` naming the extra
that brings it."""

from __future__ import annotations

import importlib
from types import ModuleType

from stablehlo_py.errors import NotSupportedError


class BackendUnavailable(NotSupportedError):
    """A backend's Python package is not installed."""


def _import(name: str, what: str, extra: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise BackendUnavailable(
            f"{what} is not installed ({e.name or name} cannot be imported)",
            note=f"pip install 'stablehlo-py[{extra}]'",
        ) from None


def require_xla() -> ModuleType:
    """``jax`` (XLA is reached through jax/jaxlib: the ``oracle`` extra)."""
    jax = _import("jax", "XLA (jax and jaxlib)", "oracle")
    _import("jaxlib.xla_client", "XLA (jax and jaxlib)", "oracle")
    return jax


def require_iree(runtime: bool = True) -> tuple[ModuleType, ModuleType | None]:
    """IREE's compiler module and, with ``runtime``, its runtime module (the ``iree`` extra)."""
    ic = _import("iree.compiler", "IREE's compiler (iree-base-compiler)", "iree")
    if not runtime:
        return ic, None
    return ic, _import("iree.runtime", "IREE's runtime (iree-base-runtime)", "iree")
