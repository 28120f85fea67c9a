"""`view-op-graph`: the DOT of MLIR's pass (mlir/lib/Transforms/ViewOpGraph.cpp, current layout)
line for line, our `format=svg` and `output=FILE`, and the command line.

The goldens are upstream's print-op-graph tests (their inputs; the expected lines of the record nodes
and of the edges between them are upstream's own, the region-op clusters written out for the current
layout: name and attributes as the cluster label, an input bar above the blocks, an output bar
below) and StableHLO programs worked out the same way.  `test_records_match_iree_opt` compares with
a real MLIR build where one is installed: IREE's `iree-opt`, whose MLIR (LLVM 24) still draws region
ops as an anchor node with the result types in the cluster label, and does not number the ports of
an operand given twice; everything else (names, attributes, elision, escaping, colours, the edges
between record nodes) must be equal.  upstream's print-op-graph.mlir itself is the lit test
tests/filecheck/view_op_graph.mlir."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Block, Operation, Region

import stablehlo_py.passes.view_op_graph as view_op_graph
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.registry import unregistered_op_class
from stablehlo_py.ir.text.op_graph import GraphOptions, escape_label, op_graph_dot
from stablehlo_py.passes import PASSES, run_pipeline
from tests.unit.passes.helpers import run_tool, tool

HEADER = """\
digraph G {
  compound = true;
  subgraph cluster_1 {
    labeljust = "l";
    labelloc = "t";
    label = "builtin.module\\l";
    v2 [label = " ", shape = plain];
"""


# ---------------------------------------------------------------------------- upstream's tests
def test_back_edges() -> None:
    """print-op-graph-back-edges.mlir: a use before its definition (the module's body is a graph
    region) still gets its edge: edges are written after every node.  stablehlo-py's parser wants
    definitions first, so the `arith.addi` is moved in front after parsing."""
    module = parse(
        "module {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %add = arith.addi %c0, %c1 : index\n}"
    )
    block = module.body.block
    add = block.last_op
    assert add is not None and block.first_op is not None
    add.detach()
    block.insert_op_before(add, block.first_op)
    assert op_graph_dot(module) == HEADER + r"""    subgraph cluster_3 {
      v4 [label = " ", shape = plain];
      label = "";
      v5 [fillcolor = "0.000000 0.3 0.95", label = "{{<arg_c0> %c0|<arg_c1> %c1}|arith.addi\l\loverflowFlags: #arith.overflow\<none...\l|{<res_0> %0 index}}", shape = Mrecord, style = filled];
      v6 [fillcolor = "0.333333 0.3 0.95", label = "{arith.constant\l\lvalue: 0 : index\l|{<res_c0> %c0 index}}", shape = Mrecord, style = filled];
      v7 [fillcolor = "0.333333 0.3 0.95", label = "{arith.constant\l\lvalue: 1 : index\l|{<res_c1> %c1 index}}", shape = Mrecord, style = filled];
    }
    v8 [label = " ", shape = plain];
    v2 -> v4[style = invis];
    v7 -> v8[style = invis];
  }
  v6:res_c0:s -> v5:arg_c0:n[style = solid];
  v7:res_c1:s -> v5:arg_c1:n[style = solid];
}
"""


def _unregistered(name: str, results: int = 1, regions: int = 0) -> Operation:
    return unregistered_op_class(name).create(
        result_types=[i32] * results, regions=[Region(Block()) for _ in range(regions)]
    )


def test_cycles() -> None:
    """print-op-graph-cycles.mlir: a graph region whose ops use each other (and themselves), one
    inside a region op that uses that op's own result.  Built directly: stablehlo-py's parser reads
    neither forward references nor op names without a dialect (`"op1"`)."""
    op1, op2, op3 = _unregistered("op1"), _unregistered("op2"), _unregistered("op3")
    inner = _unregistered("op2")
    ssacfg = _unregistered("test.ssacfg_region", regions=1)
    ssacfg.regions[0].block.add_op(inner)
    op1.operands = [op1.results[0], op2.results[0]]
    inner.operands = [op1.results[0], ssacfg.results[0], op2.results[0], op3.results[0]]
    op2.operands = [op1.results[0], op3.results[0]]
    op3.operands = [op1.results[0]]
    graph = _unregistered("test.graph_region", results=0, regions=1)
    for op in (op1, ssacfg, op2, op3):
        graph.regions[0].block.add_op(op)
    assert op_graph_dot(ModuleOp([graph])) == HEADER + r"""    subgraph cluster_3 {
      v4 [label = " ", shape = plain];
      label = "";
      subgraph cluster_5 {
        labeljust = "l";
        labelloc = "t";
        label = "test.graph_region\l";
        v6 [label = " ", shape = plain];
        subgraph cluster_7 {
          v8 [label = " ", shape = plain];
          label = "";
          v9 [fillcolor = "0.000000 0.3 0.95", label = "{{<arg_0> %0|<arg_2> %2}|op1\l|{<res_0> %0 i32}}", shape = Mrecord, style = filled];
          subgraph cluster_10 {
            labeljust = "l";
            labelloc = "t";
            label = "test.ssacfg_region\l";
            v11 [label = " ", shape = plain];
            subgraph cluster_12 {
              v13 [label = " ", shape = plain];
              label = "";
              v14 [fillcolor = "0.166667 0.3 0.95", label = "{{<arg_0> %0|<arg_1> %1|<arg_2> %2|<arg_3> %3}|op2\l|{<res_4> %4 i32}}", shape = Mrecord, style = filled];
            }
            v15 [fillcolor = "0.333333 0.3 0.95", label = "results|<res_1> %1 i32", shape = Mrecord, style = filled];
            v11 -> v13[style = invis];
            v14 -> v15[style = invis];
          }
          v16 [fillcolor = "0.166667 0.3 0.95", label = "{{<arg_0> %0|<arg_3> %3}|op2\l|{<res_2> %2 i32}}", shape = Mrecord, style = filled];
          v17 [fillcolor = "0.500000 0.3 0.95", label = "{{<arg_0> %0}|op3\l|{<res_3> %3 i32}}", shape = Mrecord, style = filled];
        }
        v18 [label = " ", shape = plain];
        v6 -> v8[style = invis];
        v17 -> v18[style = invis];
      }
    }
    v19 [label = " ", shape = plain];
    v2 -> v4[style = invis];
    v6 -> v19[style = invis];
  }
  v9:res_0:s -> v9:arg_0:n[style = solid];
  v16:res_2:s -> v9:arg_2:n[style = solid];
  v9:res_0:s -> v14:arg_0:n[style = solid];
  v15:res_1:s -> v14:arg_1:n[style = solid];
  v16:res_2:s -> v14:arg_2:n[style = solid];
  v17:res_3:s -> v14:arg_3:n[style = solid];
  v9:res_0:s -> v16:arg_0:n[style = solid];
  v17:res_3:s -> v16:arg_3:n[style = solid];
  v9:res_0:s -> v17:arg_0:n[style = solid];
}
"""


# --------------------------------------------------------------------------- StableHLO programs
WHILE_REDUCE = """\
func.func @main(%arg0: tensor<4x5xf32>, %arg1: tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %big = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 6.0]]> : tensor<4x5xf32>
  %a = stablehlo.add %arg0, %big : tensor<4x5xf32>
  %r = stablehlo.reduce(%a init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %w:2 = stablehlo.while(%i = %arg1, %acc = %r) : tensor<i64>, tensor<4xf32>
   cond {
    %p = stablehlo.compare LT, %i, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i64>
    %m = stablehlo.multiply %acc, %acc : tensor<4xf32>
    stablehlo.return %n, %m : tensor<i64>, tensor<4xf32>
  }
  %s = stablehlo.subtract %arg1, %w#0 : tensor<i64>
  return %w#1, %s : tensor<4xf32>, tensor<i64>
}
"""


def test_while_and_reduce() -> None:
    """Region ops of StableHLO: `reduce` and `while` as clusters with input and output bars; the
    20-element constant elided to `[[...]] : type`; an attribute cut at 20 characters; `%arg1`, an
    operand of the while, reaches the compare inside it through the while's input bar (`:arg...:s`),
    and the subtract after it straight from its block argument; the multiply's operand given twice
    has a port per operand (`_0`, `_1`); values leave the while from its output bar."""
    assert op_graph_dot(parse(WHILE_REDUCE)) == HEADER + r"""    subgraph cluster_3 {
      v4 [label = " ", shape = plain];
      label = "";
      subgraph cluster_5 {
        labeljust = "l";
        labelloc = "t";
        label = "func.func\lfunction_type: (tensor\<4x5xf32\>, te...\lsym_name: \"main\"\l";
        v6 [label = " ", shape = plain];
        subgraph cluster_7 {
          v8 [label = " ", shape = plain];
          label = "";
          v9 [label = "<res_arg0> %arg0 tensor\<4x5xf32\>", shape = Mrecord];
          v10 [label = "<res_arg1> %arg1 tensor\<i64\>", shape = Mrecord];
          v11 [fillcolor = "0.000000 0.3 0.95", label = "{stablehlo.constant\l\lvalue: dense\<0.000000e+00\> : tensor\<f32\>\l|{<res_cst> %cst tensor\<f32\>}}", shape = Mrecord, style = filled];
          v12 [fillcolor = "0.000000 0.3 0.95", label = "{stablehlo.constant\l\lvalue: [[...]] : tensor\<4x5xf32\>\l|{<res_cst_0> %cst_0 tensor\<4x5xf32\>}}", shape = Mrecord, style = filled];
          v13 [fillcolor = "0.090909 0.3 0.95", label = "{{<arg_arg0> %arg0|<arg_cst_0> %cst_0}|stablehlo.add\l|{<res_0> %0 tensor\<4x5xf32\>}}", shape = Mrecord, style = filled];
          subgraph cluster_14 {
            labeljust = "l";
            labelloc = "t";
            label = "stablehlo.reduce\ldimensions: array\<i64: 1\>\l";
            v15 [fillcolor = "0.272727 0.3 0.95", label = "operands|<arg_0> %0|<arg_cst> %cst", shape = Mrecord, style = filled];
            subgraph cluster_16 {
              v17 [label = " ", shape = plain];
              label = "";
              v18 [label = "<res_arg2> %arg2 tensor\<f32\>", shape = Mrecord];
              v19 [label = "<res_arg3> %arg3 tensor\<f32\>", shape = Mrecord];
              v20 [fillcolor = "0.090909 0.3 0.95", label = "{{<arg_arg2> %arg2|<arg_arg3> %arg3}|stablehlo.add\l|{<res_4> %4 tensor\<f32\>}}", shape = Mrecord, style = filled];
              v21 [fillcolor = "0.181818 0.3 0.95", label = "{{<arg_4> %4}|stablehlo.return\l}", shape = Mrecord, style = filled];
            }
            v22 [fillcolor = "0.272727 0.3 0.95", label = "results|<res_1> %1 tensor\<4xf32\>", shape = Mrecord, style = filled];
            v15 -> v17[style = invis];
            v21 -> v22[style = invis];
          }
          v23 [fillcolor = "0.000000 0.3 0.95", label = "{stablehlo.constant\l\lvalue: dense\<1\> : tensor\<i64\>\l|{<res_c> %c tensor\<i64\>}}", shape = Mrecord, style = filled];
          subgraph cluster_24 {
            labeljust = "l";
            labelloc = "t";
            label = "stablehlo.while\l";
            v25 [fillcolor = "0.545455 0.3 0.95", label = "operands|<arg_arg1> %arg1|<arg_1> %1", shape = Mrecord, style = filled];
            subgraph cluster_26 {
              v27 [label = " ", shape = plain];
              label = "";
              v28 [label = "<res_iterArg> %iterArg tensor\<i64\>", shape = Mrecord];
              v29 [label = "<res_iterArg_1> %iterArg_1 tensor\<4xf32\>", shape = Mrecord];
              v30 [fillcolor = "0.363636 0.3 0.95", label = "{{<arg_iterArg> %iterArg|<arg_arg1> %arg1}|stablehlo.compare\l\lcomparison_direction: #stablehlo\<compariso...\l|{<res_4> %4 tensor\<i1\>}}", shape = Mrecord, style = filled];
              v31 [fillcolor = "0.181818 0.3 0.95", label = "{{<arg_4> %4}|stablehlo.return\l}", shape = Mrecord, style = filled];
            }
            subgraph cluster_32 {
              v33 [label = " ", shape = plain];
              label = "";
              v34 [label = "<res_iterArg> %iterArg tensor\<i64\>", shape = Mrecord];
              v35 [label = "<res_iterArg_1> %iterArg_1 tensor\<4xf32\>", shape = Mrecord];
              v36 [fillcolor = "0.090909 0.3 0.95", label = "{{<arg_iterArg> %iterArg|<arg_c> %c}|stablehlo.add\l|{<res_4> %4 tensor\<i64\>}}", shape = Mrecord, style = filled];
              v37 [fillcolor = "0.454545 0.3 0.95", label = "{{<arg_iterArg_1_0> %iterArg_1|<arg_iterArg_1_1> %iterArg_1}|stablehlo.multiply\l|{<res_5> %5 tensor\<4xf32\>}}", shape = Mrecord, style = filled];
              v38 [fillcolor = "0.181818 0.3 0.95", label = "{{<arg_4> %4|<arg_5> %5}|stablehlo.return\l}", shape = Mrecord, style = filled];
            }
            v39 [fillcolor = "0.545455 0.3 0.95", label = "results|<res_2_0> %2#0 tensor\<i64\>|<res_2_1> %2#1 tensor\<4xf32\>", shape = Mrecord, style = filled];
            v25 -> v27[style = invis];
            v31 -> v39[style = invis];
            v25 -> v33[style = invis];
            v38 -> v39[style = invis];
          }
          v40 [fillcolor = "0.636364 0.3 0.95", label = "{{<arg_arg1> %arg1|<arg_2_0> %2#0}|stablehlo.subtract\l|{<res_3> %3 tensor\<i64\>}}", shape = Mrecord, style = filled];
          v41 [fillcolor = "0.727273 0.3 0.95", label = "{{<arg_2_1> %2#1|<arg_3> %3}|func.return\l}", shape = Mrecord, style = filled];
        }
        v42 [label = " ", shape = plain];
        v6 -> v8[style = invis];
        v41 -> v42[style = invis];
      }
    }
    v43 [label = " ", shape = plain];
    v2 -> v4[style = invis];
    v6 -> v43[style = invis];
  }
  v9:res_arg0:s -> v13:arg_arg0:n[style = solid];
  v12:res_cst_0:s -> v13:arg_cst_0:n[style = solid];
  v18:res_arg2:s -> v20:arg_arg2:n[style = solid];
  v19:res_arg3:s -> v20:arg_arg3:n[style = solid];
  v20:res_4:s -> v21:arg_4:n[style = solid];
  v13:res_0:s -> v15:arg_0:n[style = solid];
  v11:res_cst:s -> v15:arg_cst:n[style = solid];
  v28:res_iterArg:s -> v30:arg_iterArg:n[style = solid];
  v25:arg_arg1:s -> v30:arg_arg1:n[style = solid];
  v30:res_4:s -> v31:arg_4:n[style = solid];
  v34:res_iterArg:s -> v36:arg_iterArg:n[style = solid];
  v23:res_c:s -> v36:arg_c:n[style = solid];
  v35:res_iterArg_1:s -> v37:arg_iterArg_1_0:n[style = solid];
  v35:res_iterArg_1:s -> v37:arg_iterArg_1_1:n[style = solid];
  v36:res_4:s -> v38:arg_4:n[style = solid];
  v37:res_5:s -> v38:arg_5:n[style = solid];
  v10:res_arg1:s -> v25:arg_arg1:n[style = solid];
  v22:res_1:s -> v25:arg_1:n[style = solid];
  v10:res_arg1:s -> v40:arg_arg1:n[style = solid];
  v39:res_2_0:s -> v40:arg_2_0:n[style = solid];
  v39:res_2_1:s -> v41:arg_2_1:n[style = solid];
  v40:res_3:s -> v41:arg_3:n[style = solid];
}
"""


SMALL = """\
func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _records(dot: str) -> list[str]:
    """The labels of the record nodes (ops without regions and block arguments), in order."""
    return re.findall(r'^\s*v\d+ \[.*?label = "((?:\{|<res).*?)", shape = Mrecord', dot, re.M)


def test_options_turn_parts_off() -> None:
    """print-attrs=false drops the attributes (and the cluster label's), print-result-types=false
    the types of results and block arguments, print-data-flow-edges=false every solid edge;
    print-control-flow-edges=true adds dashed edges between consecutive ops."""
    options = GraphOptions(
        print_attrs=False,
        print_result_types=False,
        print_data_flow_edges=False,
        print_control_flow_edges=True,
    )
    dot = op_graph_dot(parse(SMALL), options)
    assert 'label = "func.func\\l";' in dot
    assert _records(dot) == [
        "<res_arg0> %arg0",
        "{{<arg_arg0_0> %arg0|<arg_arg0_1> %arg0}|stablehlo.add\\l|{<res_0> %0}}",
        "{{<arg_0> %0}|func.return\\l}",
    ]
    assert dot.endswith("  }\n  v10 -> v11[style = dashed];\n}\n")
    assert "solid" not in dot


def test_max_label_len_cuts_attributes_and_types() -> None:
    dot = op_graph_dot(parse(SMALL), GraphOptions(max_label_len=6))
    assert "function_type: (tenso...\\l" in dot
    assert "<res_arg0> %arg0 tensor...\"" in dot
    exact = op_graph_dot(parse(SMALL), GraphOptions(max_label_len=len("tensor<2xf32>")))
    assert "<res_arg0> %arg0 tensor\\<2xf32\\>\"" in exact
    full = op_graph_dot(parse(SMALL), GraphOptions(max_label_len=1000))
    assert "function_type: (tensor\\<2xf32\\>) -\\> tensor\\<2xf32\\>\\l" in full


LARGE = """\
func.func @f() -> tensor<2x3x3xi32> {
  %0 = stablehlo.constant dense<[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 0]]]> : tensor<2x3x3xi32>
  %1 = stablehlo.constant dense<7> : tensor<100x100xi32>
  %2 = stablehlo.constant dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi32>
  %3 = stablehlo.constant dense<> : tensor<0xf32>
  %4 = stablehlo.constant dense<1.0> : tensor<3x0xf32>
  %5 = stablehlo.constant {big = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17], small = [1, 2]} dense<[1]> : tensor<1xi32>
  return %0 : tensor<2x3x3xi32>
}
"""


def test_large_elements_are_elided_splats_never() -> None:
    """More than 16 elements (MLIR's default limit): `[[[...]]] : type`, a bracket per dimension;
    a splat is printed whole however large (and not cut); 16 elements are printed, cut at
    max-label-len; so is an empty one; a 0-element splat and a 1-element attribute are splats; an
    array attribute of 17 elements is `[...]`."""
    records = _records(op_graph_dot(parse(LARGE)))
    values = [re.search(r"\\l\\l(.*?)\\l\|", r).group(1) for r in records[:6]]  # type: ignore[union-attr]
    assert values == [
        "value: [[[...]]] : tensor\\<2x3x3xi32\\>",
        "value: dense\\<7\\> : tensor\\<100x100xi32\\>",
        "value: dense\\<[1, 2, 3, 4, 5...",
        "value: dense\\<\\> : tensor\\<0xf...",
        "value: dense\\<1.000000e+00\\> : tensor\\<3x0xf32\\>",
        "big: [...]\\lsmall: [1, 2]\\lvalue: dense\\<1\\> : tensor\\<1xi32\\>",
    ]


def test_blocks_in_order_between_the_bars() -> None:
    """A region op's blocks are clusters in order, each kept below the input bar (its anchor) and
    above the output bar (its last op); an op's attribute names are escaped in a cluster label,
    as upstream, but not in a record label."""
    dot = op_graph_dot(
        parse(
            """module attributes {"a<b>" = 1 : i32} {
  func.func @f(%arg0: i32) -> i32 {
    %0:2 = "test.two_blocks"() ({
      "test.br"(%arg0)[^bb1] : (i32) -> ()
    ^bb1(%1: i32):
      "test.yield"(%1) {"c|d" = 2 : i32} : (i32) -> ()
    }) : () -> (i32, i32)
    return %0#1 : i32
  }
}""",
            allow_unregistered=True,
        )
    )
    assert 'label = "builtin.module\\la\\<b\\>: 1 : i32\\l";' in dot
    lines = dot.splitlines()
    at = lines.index("          subgraph cluster_10 {")
    assert lines[at : at + 22] == [
        "          subgraph cluster_10 {",
        '            labeljust = "l";',
        '            labelloc = "t";',
        '            label = "test.two_blocks\\l";',
        '            v11 [label = " ", shape = plain];',
        "            subgraph cluster_12 {",
        '              v13 [label = " ", shape = plain];',
        '              label = "";',
        '              v14 [fillcolor = "0.000000 0.3 0.95", label = "{{<arg_arg0> %arg0}|test.br\\l}", shape = Mrecord, style = filled];',
        "            }",
        "            subgraph cluster_15 {",
        '              v16 [label = " ", shape = plain];',
        '              label = "";',
        '              v17 [label = "<res_1> %1 i32", shape = Mrecord];',
        '              v18 [fillcolor = "0.166667 0.3 0.95", label = "{{<arg_1> %1}|test.yield\\l\\lc|d: 2 : i32\\l}", shape = Mrecord, style = filled];',
        "            }",
        '            v19 [fillcolor = "0.333333 0.3 0.95", label = "results|<res_0_0> %0#0 i32|<res_0_1> %0#1 i32", shape = Mrecord, style = filled];',
        "            v11 -> v13[style = invis];",
        "            v14 -> v19[style = invis];",
        "            v11 -> v16[style = invis];",
        "            v18 -> v19[style = invis];",
        "          }",
    ]


def test_record_specials_are_escaped() -> None:
    assert escape_label('a{b|c<d>e}f"g\nh') == 'a\\{b\\|c\\<d\\>e\\}f\\"g\\\nh'
    dot = op_graph_dot(
        parse(
            'func.func @f() {\n  stablehlo.custom_call @t() {backend_config = "{a|<b>}"} : () -> ()\n'
            "  return\n}"
        )
    )
    assert 'backend_config: \\"\\{a\\|\\<b\\>\\}\\"\\l' in dot


def test_a_value_given_twice_to_a_region_op_stays_routed_through_it() -> None:
    """upstream's behaviour, kept: a region op taking one value as two operands restores its routing
    in operand order, so after the op the value still leaves from the op's input bar (port of its
    first copy); inside, uses take the last copy's port."""
    dot = op_graph_dot(
        parse(
            """func.func @f(%arg0: tensor<i64>) -> tensor<i64> {
  %w:2 = stablehlo.while(%i = %arg0, %j = %arg0) : tensor<i64>, tensor<i64>
   cond {
    %p = stablehlo.compare LT, %i, %arg0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    stablehlo.return %i, %j : tensor<i64>, tensor<i64>
  }
  %s = stablehlo.subtract %arg0, %w#0 : tensor<i64>
  return %s : tensor<i64>
}"""
        )
    )
    bar = re.search(r'(v\d+) \[.*label = "operands\|<arg_arg0_0> %arg0\|<arg_arg0_1> %arg0"', dot)
    assert bar is not None
    compare = re.search(r"(v\d+) \[.*stablehlo\.compare", dot)
    subtract = re.search(r"(v\d+) \[.*stablehlo\.subtract", dot)
    assert compare is not None and subtract is not None
    edges = dot.splitlines()
    assert f"  {bar[1]}:arg_arg0_1:s -> {compare[1]}:arg_arg0:n[style = solid];" in edges
    assert f"  {bar[1]}:arg_arg0_0:s -> {subtract[1]}:arg_arg0:n[style = solid];" in edges


# ----------------------------------------------------------------------- a real MLIR, if installed
PROGRAMS = [
    WHILE_REDUCE,
    LARGE,
    SMALL,
    """func.func @g(%arg0: tensor<3xi1>, %arg1: tensor<3xf32>) -> tensor<f32> {
  %c = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %0 = stablehlo.and %arg0, %c : tensor<3xi1>
  %1 = stablehlo.convert %0 : (tensor<3xi1>) -> tensor<3xf32>
  %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, HIGHEST] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %3 = stablehlo.custom_call @foo(%2) {backend_config = "{x|<y>}", has_side_effect = true} : (tensor<f32>) -> tensor<f32>
  %idx = stablehlo.constant dense<1> : tensor<i32>
  %4 = "stablehlo.case"(%idx) ({
    stablehlo.return %3 : tensor<f32>
  }, {
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %4 : tensor<f32>
}""",
]


def _strip_duplicate_suffixes(label: str, dup_ports: set[str]) -> str:
    for port in dup_ports:
        label = re.sub(rf"<arg{re.escape(port)}_\d+>", f"<arg{port}>", label)
    return label


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_records_match_iree_opt(index: int, tmp_path: Path) -> None:
    exe = tool("iree-opt")
    if exe is None:
        pytest.skip("iree-opt (a build of MLIR) is not installed")
    text = PROGRAMS[index]
    path = tmp_path / "p.mlir"
    path.write_text(text)
    theirs = subprocess.run(
        [exe, "--view-op-graph", str(path), "-o", os.devnull],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert theirs.returncode == 0, theirs.stderr
    ours = op_graph_dot(parse(text))
    their_records, our_records = _records(theirs.stderr), _records(ours)
    dup_ports = set(re.findall(r"<arg(\w+?)_\d+> (%\S+)\|<arg\1_\d+> \2", ours))
    dup_names = {p for p, _ in dup_ports}
    assert [_strip_duplicate_suffixes(r, dup_names) for r in our_records] == their_records
    # edges between record nodes: the same, but for a value entering a region op, which now
    # comes from the op's input bar
    id_of = lambda dot: re.findall(r'^\s*(v\d+) \[.*label = "(?:\{|<res)', dot, re.M)  # noqa: E731
    mapping = dict(zip(id_of(theirs.stderr), id_of(ours)))
    our_edges = set(ours.splitlines())
    checked = 0
    for line in theirs.stderr.splitlines():
        m = re.fullmatch(r"  (v\d+)(:res\w+:s) -> (v\d+):arg(\w+):n\[style = solid\];", line)
        if m is None or m[1] not in mapping or m[3] not in mapping:
            continue
        src, dst = mapping[m[1]], mapping[m[3]]
        candidates = [f"  {src}{m[2]} -> {dst}:arg{m[4]}{s}:n[style = solid];" for s in ("", "_0", "_1")]
        from_bar = any(
            re.fullmatch(rf"  v\d+:arg\w+:s -> {dst}:arg{m[4]}(_\d+)?:n\[style = solid\];", e)
            for e in our_edges
        )
        assert from_bar or any(c in our_edges for c in candidates), line
        checked += 1
    assert checked >= 1


# ------------------------------------------------------------------------------------- the pass
def test_declared_as_upstream_plus_format_and_output() -> None:
    info = PASSES["view-op-graph"]
    assert info.summary == "Print Graphviz visualization of an operation"
    assert {o.name: o.default for o in info.options} == {
        "max-label-len": 20,
        "print-attrs": True,
        "print-control-flow-edges": False,
        "print-data-flow-edges": True,
        "print-result-types": True,
        "format": "dot",
        "output": "",
    }


def test_dot_goes_to_stderr_and_the_ir_passes_through(capsys: pytest.CaptureFixture[str]) -> None:
    module = parse(WHILE_REDUCE)
    before = print_ir(module)
    out = run_pipeline(module, "builtin.module(view-op-graph{max-label-len=8})")
    assert out is module and print_ir(out) == before
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == op_graph_dot(parse(WHILE_REDUCE), GraphOptions(max_label_len=8))


def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "g.dot"
    run_pipeline(parse(SMALL), [("view-op-graph", {"output": str(target)})])
    assert target.read_text() == op_graph_dot(parse(SMALL))
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "options,words",
    [
        ({"format": "png"}, "option 'format' of pass 'view-op-graph' expects dot or svg, got 'png'"),
        ({"max-label-len": "-1"}, "option 'max-label-len' of pass 'view-op-graph' expects a count"),
        ({"output": "/nonexistent-dir/g.dot"}, "cannot write the graph to '/nonexistent-dir/g.dot'"),
        ({"svg": "true"}, "unknown option 'svg' for pass 'view-op-graph'"),
    ],
)
def test_bad_options_are_one_error(options: dict[str, str], words: str) -> None:
    with pytest.raises(StableHLOError, match=re.escape(words)):
        run_pipeline(parse(SMALL), [("view-op-graph", options)])


needs_dot = pytest.mark.skipif(
    view_op_graph.shutil.which("dot") is None,
    reason="Graphviz's `dot` is not installed (apt-get install graphviz)",
)


@needs_dot
def test_svg(tmp_path: Path) -> None:
    target = tmp_path / "g.svg"
    run_pipeline(parse(WHILE_REDUCE), [("view-op-graph", {"format": "svg", "output": str(target)})])
    svg = target.read_text()
    assert svg.startswith("<?xml") and svg.rstrip().endswith("</svg>")
    dot = op_graph_dot(parse(WHILE_REDUCE))
    clusters = re.findall(r"subgraph (cluster_\d+) \{", dot)
    nodes = re.findall(r"^\s*(v\d+) \[", dot, re.M)
    assert re.findall(r"<title>(cluster_\d+)</title>", svg) == clusters
    assert sorted(re.findall(r'<g id="node\d+" class="node">\s*<title>(v\d+)</title>', svg)) == sorted(nodes)


def test_svg_without_graphviz_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view_op_graph.shutil, "which", lambda name: None)
    with pytest.raises(StableHLOError) as e:
        run_pipeline(parse(SMALL), [("view-op-graph", {"format": "svg"})])
    assert e.value.message == (
        "--view-op-graph=svg needs Graphviz's `dot` (apt-get install graphviz); write DOT with "
        "--view-op-graph and render it elsewhere"
    )


def _fake_dot(tmp_path: Path, body: str) -> str:
    script = tmp_path / "dot"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_failing_or_slow_dot_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = _fake_dot(tmp_path, "echo 'Error: syntax error in line 3' >&2; exit 1")
    monkeypatch.setattr(view_op_graph.shutil, "which", lambda name: failing)
    with pytest.raises(StableHLOError, match=r"`dot -Tsvg` failed \(exit status 1\): Error: syntax"):
        view_op_graph.render_svg("digraph G {}")
    slow = _fake_dot(tmp_path, "sleep 5")
    monkeypatch.setattr(view_op_graph.shutil, "which", lambda name: slow)
    with pytest.raises(StableHLOError, match=r"did not finish within 0.2 s"):
        view_op_graph.render_svg("digraph G {}", timeout=0.2)


# ------------------------------------------------------------------------------ the command line
def test_cli_writes_dot_to_stderr_and_the_ir_to_stdout(tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(WHILE_REDUCE)
    plain = run_tool("stablehlo-opt", str(path))
    viewed = run_tool("stablehlo-opt", "--view-op-graph", str(path))
    assert viewed.returncode == 0, viewed.stderr
    assert viewed.stdout == plain.stdout
    assert viewed.stderr == op_graph_dot(parse(WHILE_REDUCE))
    piped = run_tool(
        "stablehlo-opt",
        "--pass-pipeline=builtin.module(view-op-graph{print-attrs=false max-label-len=4})",
        str(path),
    )
    assert piped.stderr == op_graph_dot(
        parse(WHILE_REDUCE), GraphOptions(print_attrs=False, max_label_len=4)
    )


@needs_dot
def test_cli_svg_shorthand(tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(SMALL)
    out = run_tool("stablehlo-opt", "--view-op-graph=svg", str(path), "-o", os.devnull)
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith("<?xml") and "<title>cluster_1</title>" in out.stderr
    spelled = run_tool(
        "stablehlo-opt", f"--view-op-graph=format=svg output={tmp_path / 'g.svg'}", str(path)
    )
    assert spelled.returncode == 0 and spelled.stderr == ""
    assert (tmp_path / "g.svg").read_text() == out.stderr


def test_cli_svg_without_graphviz(tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(SMALL)
    empty = tmp_path / "bin"
    empty.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.opt", "--view-op-graph=svg", str(path)],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PATH": str(empty)},
    )
    assert proc.returncode == 1
    assert proc.stderr == (
        "error: --view-op-graph=svg needs Graphviz's `dot` (apt-get install graphviz); write DOT "
        "with --view-op-graph and render it elsewhere\n"
    )
