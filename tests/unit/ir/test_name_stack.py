"""Name stacks and op keys from JAX's locations (stablehlo_py/ir/text/name_stack.py)."""

from __future__ import annotations

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.name_stack import NameStack, name_stack, op_keys

PROGRAM = '''
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.sine %x : tensor<4xf32> loc(#l1)
  %1 = stablehlo.sine %0 : tensor<4xf32> loc(#l2)
  %2 = stablehlo.add %0, %1 : tensor<4xf32> loc("jit(f)/blk/add"("f.py":12:2))
  %3 = stablehlo.negate %2 : tensor<4xf32> loc("f.py":13:0)
  %4 = stablehlo.negate %3 : tensor<4xf32>
  %5 = stablehlo.abs %4 : tensor<4xf32> loc("plain")
  return %5 : tensor<4xf32>
}
#l0 = loc("f.py":10:4)
#l1 = loc("jit(f)/blk/sin"(callsite(#l0 at "g.py":3:0)))
#l2 = loc("jit(f)/blk/sin"(#l0))
'''


def _ops():
    m = parse(PROGRAM)
    return m, [op for op in m.walk() if op.name.startswith("stablehlo.")]


def test_name_stack_splits_scope_label_and_source() -> None:
    _, ops = _ops()
    assert name_stack(ops[0]) == NameStack("jit(f)/blk", "sin", "f.py:10")
    assert name_stack(ops[2]) == NameStack("jit(f)/blk", "add", "f.py:12")
    assert name_stack(ops[3]) == NameStack("", "", "f.py:13")
    assert name_stack(ops[4]) == NameStack("", "", "")
    assert name_stack(ops[5]) == NameStack("", "plain", "")


def test_op_keys_count_per_scope_and_name() -> None:
    m, ops = _ops()
    keys = op_keys(m)
    assert [keys[o] for o in ops] == [
        "jit(f)/blk/stablehlo.sine#0",
        "jit(f)/blk/stablehlo.sine#1",
        "jit(f)/blk/stablehlo.add#0",
        "@main/stablehlo.negate#0",
        "@main/stablehlo.negate#1",
        "plain/stablehlo.abs#0",
    ]
    assert len(set(keys.values())) == len(keys)  # the return op has a key too
