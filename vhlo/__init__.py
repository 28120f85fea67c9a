"""VHLO, the versioned StableHLO dialect (`vhlo.add_v1`, `!vhlo.tensor_v1<...>`, `#vhlo.integer_v1<...>`).

Everything here is generated from or checked against the version tables in ``specs/``:

* ``types`` — the 42 VHLO types;  ``attrs`` — the 25 VHLO attributes and enums;
* ``ops`` — the 145 VHLO op forks (one class each, generated from ``specs/ops.toml``);
* ``convert`` — builtin/StableHLO types and attributes <-> VHLO;
* ``legality`` — what each op, type and attribute needs from a target version;
* ``forks`` — one upgrade/downgrade pair per fork, in a module named after the op.

The text layer learns VHLO through ``register``, which ``stablehlo_py.dialects`` (above this
package) calls when it builds the default registry; ``stablehlo_py.ir`` never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablehlo_py.vhlo import attrs, ops, types
from stablehlo_py.vhlo.ops import OP_CLASSES, VhloOp, op_class

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry


def register(reg: Registry) -> None:
    """Teach the text layer VHLO's types, attributes and ops (called when the registry is built)."""
    types.register(reg)
    attrs.register(reg)
    ops.register(reg)


__all__ = ["OP_CLASSES", "VhloOp", "attrs", "op_class", "ops", "register", "types"]
