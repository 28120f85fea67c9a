"""Location aliases (stablehlo_py/ir/text/location_aliases.py): `--mlir-print-debuginfo` without
`--mlir-print-local-scope` prints `#loc` aliases in MLIR's order, and the text parses back to the
same locations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from stablehlo_py.ir import parse, print_ir

PROGRAM = """
func.func @main(%x: tensor<f32> loc("x"), %y: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %x, %y : tensor<f32> loc("a.py":3:4)
  %1 = stablehlo.multiply %0, %0 : tensor<f32> loc(fused["a.py":3:4, "b"("c.py":1:2)])
  %2 = "stablehlo.all_reduce"(%1) ({
  ^bb0(%a: tensor<f32> loc("a.py":3:4), %b: tensor<f32> loc("r")):
    %s = stablehlo.maximum %a, %b : tensor<f32> loc(callsite("f"("d.py":9:1) at "a.py":3:4))
    stablehlo.return %s : tensor<f32> loc(unknown)
  }) {replica_groups = dense<0> : tensor<1x1xi64>} : (tensor<f32>) -> tensor<f32> loc("a.py":3:4)
  return %2 : tensor<f32> loc("a.py":7:1 to :9)
} loc("a.py":1:1)
"""


def _aliased(text: str) -> str:
    return print_ir(parse(text, "p.mlir"), debuginfo=True, location_aliases=True)


def test_aliases_follow_mlir_order_and_nesting() -> None:
    out = _aliased(PROGRAM)
    head, _, rest = out.partition("module {")
    body, _, tail = rest.rpartition("} loc(#loc)\n")
    # block-argument locations are defined before the module and printed inline; the aliases
    # are numbered in visiting order (an op before its regions, a location before the ones
    # nested in it), stably sorted by nesting depth
    assert head.splitlines() == [
        '#loc2 = loc("x")',
        '#loc3 = loc("p.mlir":2:43)',
        '#loc4 = loc("a.py":3:4)',
        '#loc6 = loc("r")',
    ]
    assert '(%arg0: tensor<f32> loc("x"), %arg1: tensor<f32> loc("p.mlir":2:43))' in body
    assert '^bb0(%arg2: tensor<f32> loc("a.py":3:4), %arg3: tensor<f32> loc("r")):' in body
    assert "stablehlo.add %arg0, %arg1 : tensor<f32> loc(#loc4)" in body
    assert "stablehlo.multiply %0, %0 : tensor<f32> loc(#loc12)" in body
    assert "stablehlo.return %3 : tensor<f32> loc(#loc8)" in body
    assert "} loc(#loc1)" in body
    assert tail.splitlines() == [
        '#loc = loc("p.mlir":0:0)',
        '#loc1 = loc("a.py":1:1)',
        '#loc5 = loc("c.py":1:2)',
        '#loc7 = loc("d.py":9:1)',
        "#loc8 = loc(unknown)",
        '#loc9 = loc("a.py":7:1 to :9)',
        '#loc10 = loc("b"(#loc5))',
        '#loc11 = loc("f"(#loc7))',
        "#loc12 = loc(fused[#loc4, #loc10])",
        "#loc13 = loc(callsite(#loc11 at #loc4))",
    ]


def test_aliased_text_parses_back_to_the_same_locations() -> None:
    module = parse(PROGRAM, "p.mlir")
    inline = print_ir(module, debuginfo=True)
    again = parse(_aliased(PROGRAM), "q.mlir")
    assert print_ir(again, debuginfo=True) == inline
    assert print_ir(again, debuginfo=True, location_aliases=True) == _aliased(PROGRAM)


def test_without_debuginfo_nothing_changes() -> None:
    module = parse(PROGRAM, "p.mlir")
    assert print_ir(module, location_aliases=True) == print_ir(module)


def test_cli_aliases_unless_local_scope(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)

    def opt(*args: str) -> str:
        got = subprocess.run(
            [sys.executable, "-m", "stablehlo_py.cli.opt", str(src), *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return got.stdout

    assert "loc(#loc4)" in opt("--mlir-print-debuginfo")
    local = opt("--mlir-print-debuginfo", "--mlir-print-local-scope")
    assert "#loc" not in local and 'loc("a.py":3:4)' in local


def test_what_the_printer_leaves_out_gets_no_alias() -> None:
    """A compact `reduce` prints neither its block arguments nor its inner op, so (as MLIR's
    alias collection, which follows the printer) their locations get no alias."""
    text = """
func.func @main(%a: tensor<4xf32> loc("a"), %z: tensor<f32> loc("z")) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32> loc("hidden_x"), %y: tensor<f32> loc("hidden_y"))  {
    %s = stablehlo.add %x, %y : tensor<f32> loc("hidden_add")
    stablehlo.return %s : tensor<f32> loc("hidden_return")
  } loc("r")
  return %0 : tensor<f32> loc("ret")
} loc("f")
"""
    out = _aliased(text)
    assert "applies stablehlo.add" in out
    assert "hidden" not in out
    assert out.startswith('#loc2 = loc("a")\n#loc3 = loc("z")\nmodule {')


def test_block_argument_locations_nest_aliases() -> None:
    """A block argument's own location is inline, the locations inside it are aliases (MLIR
    prints it with allowAlias=false, its nested attributes with the usual aliases); unknown
    argument locations print too."""
    text = """
func.func @main(%x: tensor<f32> loc("jit(f)"("f.py":4:2)), %y: tensor<f32> loc(unknown)) -> tensor<f32> {
  %0 = stablehlo.add %x, %y : tensor<f32> loc("f.py":4:2)
  return %0 : tensor<f32> loc(unknown)
} loc(unknown)
"""
    out = _aliased(text)
    assert '(%arg0: tensor<f32> loc("jit(f)"(#loc2)), %arg1: tensor<f32> loc(unknown))' in out
    assert out.startswith(
        '#loc1 = loc(unknown)\n#loc2 = loc("f.py":4:2)\n#loc3 = loc("jit(f)"(#loc2))\nmodule {'
    )
    assert out.endswith('} loc(#loc)\n#loc = loc("p.mlir":0:0)\n')
    inline = print_ir(parse(text, "p.mlir"), debuginfo=True)
    assert "%arg1: tensor<f32> loc(unknown)" in inline
    assert print_ir(parse(out, "q.mlir"), debuginfo=True) == inline
