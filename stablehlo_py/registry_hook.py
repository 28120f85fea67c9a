"""How ``stablehlo_py.ir`` learns to build the default dialect registry without importing the
layers above it.

``stablehlo_py.ir`` must not import ``stablehlo_py.vhlo`` (layers import one way: ir <- vhlo), yet
``ir.parse`` reads VHLO text.  So the registry of every dialect is assembled above vhlo, by
``stablehlo_py.dialects.build_registry``, and ``stablehlo_py/__init__.py`` -- which Python always
runs before any ``stablehlo_py.ir`` module -- installs that function here with
:func:`set_registry_builder`.  ``stablehlo_py.ir.dialects.default_registry()`` calls the installed
builder once (ir's own ``build_registry`` when none is installed).

The reference is kept in this module, not in ``stablehlo_py.ir.dialects``, because this one imports
nothing: installing it costs ``import stablehlo_py`` nothing, where reaching a setter inside
``stablehlo_py.ir`` would load xDSL (about 0.2 s) for every user of the package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry

_BUILDER: Callable[[], Registry] | None = None


def set_registry_builder(builder: Callable[[], Registry]) -> None:
    """Install the function ``stablehlo_py.ir.dialects.default_registry()`` builds its registry
    with (``stablehlo_py/__init__.py`` installs ``stablehlo_py.dialects.build_registry``).  It takes
    effect for a registry not built yet."""
    global _BUILDER
    _BUILDER = builder


def registry_builder() -> Callable[[], Registry] | None:
    """The installed builder (None: none installed)."""
    return _BUILDER
