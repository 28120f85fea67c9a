"""Data of ours carried by an object xDSL 0.74 made: an attribute xDSL does not define, set on the
object itself.

It works because the xDSL classes concerned are plain (non-frozen, no ``__slots__``) classes, so an
instance takes any attribute, kept in its ``__dict__``.  Where that is the simplest way to pass
something along, it goes through this module and nowhere else (`attach`/`attached` for one entry,
`data_of` for code that reads or writes several per object on a hot path), under the names
declared here, so that an xDSL upgrade that freezes or slots these classes breaks in one place:

- ir/ops/base.py: a property's in-format syntax (`SYNTAX`) rides on the field definition
  ``prop_def`` returns (xDSL's ``_PropertyFieldDef``) from the class body to ``op_def``, which reads
  it back when the class is defined (``irdl_op_definition`` passes nothing of ours on).
- the text parser: where an op or block argument was parsed (`SRC`: (source, offset)), the
  module it wraps around a file's ops (`IMPLICIT_SRC`: the source, MLIR's ``"file":0:0``), and the
  offset a custom parser chose for its op's location (`LOC_POS`, read once by the parser).
  ir/text/location.py turns `SRC` into MLIR's default location for diagnostics and debug info;
  passes and builders that replace an op carry it over (`carry_place`).
- a value's use-list order (`USE_ORDER`: a permutation of its uses), kept by the MLIR bytecode
  reader and by stablehlo-legalize-to-vhlo for the bytecode writer; a rebuilt or retyped value
  drops it (ir/xdsl_compat/swap.py).
- the interpreter: an op's impl after its wrappers (`INTERP_IMPL`), its prepared step
  (`INTERP_STEP`) and the attribute and type objects both were prepared from (`INTERP_KEY`), kept
  on the op so that running a program again prepares nothing (interpreter/compiled.py,
  interpreter/registry.py); and on a module, the code compiled for it with the snapshot it is
  valid for (`INTERP_CODE`, interpreter/module_code.py), which later runs reuse.

Regression test: tests/unit/ir/test_xdsl_compat.py (xDSL's field definitions, ops, blocks and
values keep what is attached to them in their ``__dict__``, xDSL defines none of the names, and
the op classes get their property syntaxes).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

SYNTAX = "_syntax"
SRC = "_src"
IMPLICIT_SRC = "_implicit_src"
LOC_POS = "_loc_pos"
INTERP_IMPL = "_interp_impl"
INTERP_STEP = "_interp_step"
INTERP_KEY = "_interp_key"
INTERP_CODE = "_interp_code"
USE_ORDER = "_use_order"

NAMES = frozenset(
    {
        SYNTAX, SRC, IMPLICIT_SRC, LOC_POS, INTERP_IMPL, INTERP_STEP, INTERP_KEY, INTERP_CODE,
        USE_ORDER,
    }
)
"""The attribute names used (none of them xDSL's)."""


def attach(obj: object, name: str, value: object) -> None:
    """Give the xDSL object `obj` the attribute `name` (one of NAMES) with `value`."""
    setattr(obj, name, value)


def attached(obj: object, name: str) -> object:
    """What `attach` gave `obj` under `name`, or None."""
    return getattr(obj, name, None)


data_of: Callable[[object], dict[str, object]] = attrgetter("__dict__")
"""`data_of(obj)`: the dict that holds what is attached to the xDSL object `obj` (keys: NAMES), for
code that reads and writes several entries per object on a hot path (a C-level getter: no Python
frame per call, and no class lookup per entry as `getattr` makes)."""


def carry_place(new: object, old: object) -> None:
    """Give `new` (an op or value replacing `old`) the place where `old` was parsed, if it was:
    `SRC`, and `IMPLICIT_SRC` for a module the parser made."""
    d = getattr(old, "__dict__", None)
    if not d:
        return
    for name in (SRC, IMPLICIT_SRC):
        v = d.get(name)
        if v is not None:
            setattr(new, name, v)
