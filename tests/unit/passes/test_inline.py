"""`-inline` (passes/inline.py): MLIR's inliner followed by the removal of dead private functions.

Each program's expected text is written out in full below; every one of them is what upstream's
MLIR inliner prints too (checked with IREE's `iree-opt --inline`, IREE 3.x, whose inliner is MLIR's;
`test_agrees_with_mlir_s_inliner` re-checks it wherever `iree-opt` is installed -- the `oracle`
extra installs it).  Programs with constants are left out of that comparison: MLIR's `inline` pass
also runs the canonicalizer, which hoists and merges constants, and ours does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.passes import run_pipeline
from tests.unit.passes.helpers import run_opt, run_tool, tool



def inline(text: str) -> str:
    return print_ir(run_pipeline(parse(text, "inline.mlir"), [("inline", {})]))


NESTED = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = func.call @pair(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %1 = func.call @pub(%0#1) : (tensor<3xf32>) -> tensor<3xf32>
  return %1, %0#0 : tensor<3xf32>, tensor<3xf32>
}
func.func private @pair(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = func.call @sq(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.subtract %0, %b : tensor<3xf32>
  return %b, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func private @sq(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<3xf32>
  %1 = stablehlo.abs %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func @pub(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @unused(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
"""

# nested calls (main -> pair -> sq), two results (one of them an argument passed through), a
# public callee inlined and kept, the inlined private ones and an unused private one dropped
NESTED_INLINED = """module {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
    %1 = stablehlo.abs %0 : tensor<3xf32>
    %2 = stablehlo.subtract %1, %arg1 : tensor<3xf32>
    %3 = stablehlo.negate %2 : tensor<3xf32>
    return %3, %arg1 : tensor<3xf32>, tensor<3xf32>
  }
  func.func @pub(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
"""

TWICE = """
func.func @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0:2 = func.call @dup(%x) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  %1:2 = func.call @dup(%0#1) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  func.call @nothing(%x) : (tensor<2xi32>) -> ()
  return %1#0, %0#0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @dup(%a: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = stablehlo.not %a : tensor<2xi32>
  return %0, %0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @nothing(%a: tensor<2xi32>) {
  return
}
"""

# one callee inlined at two call sites (each gets its own copy), the same value returned twice, a
# call without results
TWICE_INLINED = """module {
  func.func @main(%arg0: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
    %0 = stablehlo.not %arg0 : tensor<2xi32>
    %1 = stablehlo.not %0 : tensor<2xi32>
    return %1, %0 : tensor<2xi32>, tensor<2xi32>
  }
}
"""

# private functions named by other ops' attributes (a list of symbols too) are still in use: the
# program is left as it is
SYMBOL_USES = """module {
  func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.custom_call @foo(%arg0) {called_computations = [@g]} : (tensor<i32>) -> tensor<i32>
    %1 = stablehlo.composite "my.c" %0 {decomposition = @h} : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @g(%arg0: tensor<i32>) -> tensor<i32> {
    return %arg0 : tensor<i32>
  }
  func.func private @h(%arg0: tensor<i32>) -> tensor<i32> {
    return %arg0 : tensor<i32>
  }
}
"""

SELF_RECURSIVE = """module {
  func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = call @f(%arg0) : (tensor<i32>) -> tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @f(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.abs %arg0 : tensor<i32>
    %1 = call @f(%0) : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
}
"""

MUTUAL = """
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @f(%a: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.abs %a : tensor<i32>
  %1 = func.call @g(%0) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}
func.func private @g(%a: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.negate %a : tensor<i32>
  %1 = func.call @f(%0) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}
"""

# MLIR's inline history: the call into the cycle is unrolled once around it; f and g keep their calls
MUTUAL_INLINED = """module {
  func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.abs %arg0 : tensor<i32>
    %1 = stablehlo.negate %0 : tensor<i32>
    %2 = call @f(%1) : (tensor<i32>) -> tensor<i32>
    return %2 : tensor<i32>
  }
  func.func private @f(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.abs %arg0 : tensor<i32>
    %1 = call @g(%0) : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @g(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.negate %arg0 : tensor<i32>
    %1 = call @f(%0) : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
}
"""

# (program, expected): all agree with MLIR's inliner (iree-opt --inline)
CASES = {
    "nested": (NESTED, NESTED_INLINED),
    "twice": (TWICE, TWICE_INLINED),
    "symbol_uses": (SYMBOL_USES, SYMBOL_USES),
    "self_recursive": (SELF_RECURSIVE, SELF_RECURSIVE),
    "mutual_recursion": (MUTUAL, MUTUAL_INLINED),
}


@pytest.mark.parametrize("name", CASES)
def test_inlined_text(name: str) -> None:
    program, expected = CASES[name]
    assert inline(program) == expected


@pytest.mark.parametrize("name", ["nested", "twice", "symbol_uses", "self_recursive"])
def test_inlining_again_changes_nothing(name: str) -> None:
    """(Not so with a call into a cycle: each run unrolls it once more, as MLIR's does.)"""
    _, expected = CASES[name]
    assert inline(expected) == expected


def test_a_call_into_a_cycle_unrolls_once_per_run() -> None:
    twice = inline(MUTUAL_INLINED)
    main = twice.split("func.func private")[0]
    assert main.count("stablehlo.abs") == 2 and main.count("stablehlo.negate") == 2
    assert main.count("call @f") == 1


REGIONS = """
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %0:2 = stablehlo.while(%i = %x, %acc = %x) : tensor<i32>, tensor<i32>
  cond {
    %c = stablehlo.constant dense<10> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = func.call @step(%i, %acc) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %n : tensor<i32>, tensor<i32>
  }
  return %0#1 : tensor<i32>
}
func.func private @step(%i: tensor<i32>, %acc: tensor<i32>) -> tensor<i32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %p = stablehlo.compare GT, %acc, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = "stablehlo.if"(%p) ({
    %m = stablehlo.multiply %i, %acc : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }, {
    stablehlo.return %i : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  return %r : tensor<i32>
}
"""

# a call inside a while body, of a function whose body has a region using its arguments.  (MLIR's
# inline pass would also hoist and merge the constants: its canonicalizer, see the docstring.)
REGIONS_INLINED = """module {
  func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg0) : tensor<i32>, tensor<i32>
    cond {
      %c = stablehlo.constant dense<10> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1 = stablehlo.compare GT, %iterArg_0, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %2 = "stablehlo.if"(%1) ({
        %4 = stablehlo.multiply %iterArg, %iterArg_0 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }, {
        stablehlo.return %iterArg : tensor<i32>
      }) : (tensor<i1>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %3, %2 : tensor<i32>, tensor<i32>
    }
    return %0#1 : tensor<i32>
  }
}
"""


def _loop_reference(x: int) -> int:
    """What REGIONS computes, in plain Python."""
    i, acc = x, x
    while i < 10:
        acc = i * acc if acc > 0 else i
        i += 1
    return acc


def test_call_in_a_region_of_a_callee_with_regions() -> None:
    assert inline(REGIONS) == REGIONS_INLINED
    before, after = parse(REGIONS, "r.mlir"), parse(REGIONS_INLINED, "r.mlir")
    for x in (-3, 0, 4, 12):
        want = _loop_reference(x)
        assert run(before, np.int32(x))[0] == want
        assert run(after, np.int32(x))[0] == want


def test_inlined_program_computes_the_same() -> None:
    x = np.array([1.5, -2.0, 3.0], np.float32)
    y = np.array([0.5, 4.0, -1.0], np.float32)
    want = [-(np.abs(x * x) - y), y]
    for text in (NESTED, NESTED_INLINED):
        got = run(parse(text, "n.mlir"), x, y)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_private_function_called_only_by_a_dead_one() -> None:
    """The private callers go, and then so does what only they called."""
    program = """
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  return %x : tensor<i32>
}
func.func private @dead(%a: tensor<i32>) -> tensor<i32> {
  %0 = func.call @leaf(%a) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @leaf(%a: tensor<i32>) -> tensor<i32> {
  return %a : tensor<i32>
}
"""
    out = inline(program)
    assert "@dead" not in out and "@leaf" not in out and "func.func @main" in out


BAD_CALLS = """func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @nope(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
// -----
func.func @main(%x: tensor<i32>) -> tensor<f32> {
  %0 = func.call @f(%x) : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  return %x : tensor<i32>
}
"""


def test_bad_calls_are_refused_with_a_located_message(tmp_path: Path) -> None:
    """`stablehlo-opt -inline` on calls that do not match a function: exit 1, each error at its call
    (`file:line:col: error:`), nothing on stdout, no traceback.  (The README's own `-inline` example
    is run and its output checked by tests/unit/test_readme.py.)"""
    (tmp_path / "bad.mlir").write_text(BAD_CALLS)
    proc = run_opt("-inline", "--split-input-file", "bad.mlir", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    errors = proc.stderr.splitlines()
    assert errors[0].startswith("bad.mlir:2:8: error: 'func.call' op '@nope'"), proc.stderr
    assert errors[1].startswith("bad.mlir:7:8: error: 'func.call' op result type mismatch"), proc.stderr
    assert len(errors) == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", CASES)
def test_agrees_with_mlir_s_inliner(name: str, tmp_path: Path) -> None:
    """The expected texts above are MLIR's (IREE's `iree-opt --inline`), where it is installed."""
    if tool("iree-opt") is None:
        pytest.skip("iree-opt is not installed (the `oracle` extra installs it)")
    program, expected = CASES[name]
    path = tmp_path / "p.mlir"
    path.write_text(program)
    proc = run_tool("iree-opt", "--inline", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") + "\n" == expected
