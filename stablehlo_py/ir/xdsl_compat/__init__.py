"""Where stablehlo-py works around xDSL 0.74 (the pinned version): upgrading xDSL means re-reading
this package.

The rule (DESIGN.md §10, issue 24): every workaround of xDSL lives here and nowhere else.  That is:
reading or writing xDSL's private fields (`op._operands`, `block._first_op`, ...); assigning
attributes to xDSL's classes, or data of ours to xDSL's objects; patching xDSL's functions or
methods; swapping an object's class at run time; building objects without their constructor
(`cls.__new__` and direct field fills instead of `Operation.__init__`).  Each module says why it is needed and names its regression test, which
fails when an xDSL upgrade breaks the assumption.  tests/unit/test_xdsl_private_access.py and
tests/unit/ir/test_str_prints_upstream_text.py (its guard on class assignments) fail on such code
anywhere else.

The modules import xDSL only, never the rest of the toolkit: what a workaround needs of ours (how an
op prints, which attribute text to add) is passed in by its caller.

- `printing`: `str(op)`, `f"{op}"`, `str(attr)` and xDSL's `Printer.print_attribute` print MLIR's
  text (patches of xDSL's methods, installed once by `stablehlo_py.ir`).
  Test: tests/unit/ir/test_str_prints_upstream_text.py.
- `construct`: `new_op`, the parser's and builder's op constructor, which fills an `Operation`'s
  fields directly (xDSL's `Operation.create` costs a large part of the time spent per op);
  `new_plain_op`, the parser's direct paths' lighter form of it (operand uses and results filled
  without a constructor call each); and `append_ops`, a block's links set directly.
  Tests: tests/unit/builder/test_fastop.py, tests/unit/ir/test_construct_plain.py.
- `class_attrs`: MLIR's result names (`asm_result_names`) and attribute text (`mlir_text`) given to
  xDSL's own arith/tensor classes, which our printer reads.  Test: tests/unit/ir/test_xdsl_compat.py.
- `opdef_split`: an op definition swapped at run time for one that verifies MLIR's
  `SameVariadicOperandSize` split of an uneven operand count.  Test: tests/unit/ir/test_xdsl_compat.py.
- `swap`: ops converted in place by swapping their class and retyping their values (the VHLO
  conversions' fast case, `vhlo.sinks.IN_PLACE`), with the pre-scan and walks through xDSL's
  private links it needs.  Test: tests/unit/ir/test_xdsl_compat.py, tests/unit/vhlo/test_in_place.py.
- `side_data`: data of ours set as an extra attribute on an object xDSL made (a property's
  syntax on its field definition, where an op was parsed, the interpreter's prepared steps).
  Test: tests/unit/ir/test_xdsl_compat.py.
- `fields`: xDSL's private fields read and written in whole loops (`operands_of`, `block_ops`,
  `retype_values`) where the public views cost too much per op or do not exist.
  Test: tests/unit/ir/test_xdsl_compat.py.
- `rewrite_walker`: xDSL's greedy pattern walker bounded to MLIR's maxIterations sweeps (a subclass
  using its private worklist).  Test: tests/unit/ir/test_xdsl_compat.py.
- `identity`: `IdentityMap`, the one cache keyed by `id()` (hashing an xDSL attribute walks its
  parameters on every call); its entries keep their objects alive.  The caches that use it are
  `stablehlo_py.ir.context`'s.  Test: tests/unit/ir/test_xdsl_compat.py.
- `snapshot`: `Snapshot`, the fields of every op, block, region and value of a module recorded, and a
  check in C loops that none changed (the interpreter reuses a module's compiled code while it
  holds).  Test: tests/unit/ir/test_xdsl_snapshot.py.
- `verify_walk`: the verifier driver's reads of xDSL's private fields (an op's stored operands and
  successors, the nested ops' operands for IsolatedFromAbove and region signatures, AnyOf's
  dispatch table), as whole loops.  Test: tests/unit/ir/test_xdsl_compat.py.
"""
