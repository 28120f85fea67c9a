"""The registry of every dialect the toolkit reads and writes: ``stablehlo_py.ir``'s (stablehlo,
chlo, check, func, builtin, ...; ``stablehlo_py.ir.dialects.build_registry``) and VHLO's.

It sits above ``stablehlo_py.vhlo`` so that ``stablehlo_py.ir`` never imports vhlo:
``stablehlo_py/__init__.py`` installs :func:`build_registry` as the builder of
``stablehlo_py.ir.dialects.default_registry()`` (through ``stablehlo_py.registry_hook``).  ir is
imported when the registry is built, not when this module is, so ``import stablehlo_py`` stays
light; VHLO is registered lazily (``Registry.add_lazy``): it is imported the first time the
registry is asked for a ``vhlo`` name, so a program without VHLO never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry


def _add_vhlo(reg: Registry) -> None:
    from stablehlo_py import vhlo
    from stablehlo_py.ir import dialects

    dialects.add_module(reg, vhlo)


def build_registry() -> Registry:
    """ir's dialects, and VHLO's types, attributes and ops on first use."""
    from stablehlo_py.ir import dialects

    reg = dialects.build_registry()
    reg.add_lazy("vhlo", _add_vhlo)
    return reg
