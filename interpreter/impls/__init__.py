"""Interpreter impls, one module per op family; each registers itself with `registry.impl`.

`load()` imports them all; the package `stablehlo_py.interpreter` installs it as the registry's
loader (`registry.install_loader`), so the registry, which the impls import, imports none of them."""

from __future__ import annotations

import importlib
import pkgutil


def load() -> None:
    """Import every module of this package (each registers its impls)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
