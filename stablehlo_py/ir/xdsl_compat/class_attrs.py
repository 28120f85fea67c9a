"""MLIR's result names and attribute text given to xDSL's own classes (class attributes added to
xDSL 0.74's arith and tensor classes).

The toolkit reads and prints a few ops and attributes of xDSL's arith and tensor dialects
(`arith.constant`, `tensor.cast`, `#arith.fastmath<...>`, ...) with the classes xDSL defines.  Our
printer asks an op class for `asm_result_names()` (the name MLIR's `getAsmResultNames` suggests:
`%c0`, `%cst`, `%cast`, `%dim`) and an attribute for `mlir_text()` (its MLIR spelling), as our
own classes define them.  xDSL's classes have neither method, so these functions add it to the
class: nothing of xDSL's is replaced (tests/unit/ir/test_xdsl_compat.py checks that xDSL defines
neither name on them, and the printed text).

The ops modules that read and print these classes call the functions once, when imported, with the
names and spellings they own (ir/ops/arith.py, tensor.py, shape_computation.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from xdsl.ir import Attribute, Operation

OpT = TypeVar("OpT", bound=Operation)
AttrT = TypeVar("AttrT", bound=Attribute)

ADDED: list[tuple[type, str]] = []
"""(xDSL class, attribute name) of every addition, in order (what the regression test checks)."""


def give_result_names(cls: type[OpT], names: str | Callable[[OpT], str]) -> None:
    """MLIR's result name for the ops of the xDSL class `cls`: a fixed name, or a function of the
    op (`asm_result_names`, read by ir/text/printer.py)."""
    fn = (lambda self: names) if isinstance(names, str) else names
    _add(cls, "asm_result_names", fn)


def give_mlir_text(cls: type[AttrT], text: Callable[[AttrT], str]) -> None:
    """The MLIR spelling of the attributes of the xDSL class `cls` (`mlir_text`, read by
    ir/text/spelling.py and so by the printer and `str(attr)`)."""
    _add(cls, "mlir_text", text)


def _add(cls: type, name: str, fn: Callable[..., object]) -> None:
    setattr(cls, name, fn)
    ADDED.append((cls, name))
