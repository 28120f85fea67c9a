"""The graph view's data (stablehlo_py/viz/{graph,layers,load}.py): Model Explorer's graph as plain
dicts, without Model Explorer."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.serialization import get_portable_artifact_version, serialize_portable_artifact
from stablehlo_py.viz.graph import (
    INPUT_STYLE,
    attribute_text,
    file_graphs,
    module_graphs,
    program_graphs,
)
from stablehlo_py.viz.layers import namespaces, node_keys, region_names
from stablehlo_py.viz.load import read_program

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

PROGRAM = '''
module @jit_f {
  func.func public @main(%x: tensor<4xf32> loc("x"), %p: tensor<i32>) -> (tensor<4xf32>, tensor<f32>) {
    %0 = stablehlo.sine %x : tensor<4xf32> loc(#sin)
    %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("jit(f)/blk/const"(#src))
    %big = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]> : tensor<17xf32>
    %1 = stablehlo.add %0, %c : tensor<4xf32> loc("jit(f)/blk/add"(#src))
    %2:2 = stablehlo.while(%i = %p, %v = %1) : tensor<i32>, tensor<4xf32>
    cond {
      %3 = stablehlo.compare LT, %i, %p, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc("jit(f)/blk/while/cond/lt"(#src))
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = stablehlo.cosine %v : tensor<4xf32> loc("jit(f)/blk/while/body/inner/cos"(#src))
      %4 = stablehlo.add %3, %c : tensor<4xf32> loc("jit(f)/blk/while/body/add"(#src))
      stablehlo.return %i, %4 : tensor<i32>, tensor<4xf32> loc("jit(f)/blk/while"(#src))
    } loc("jit(f)/blk/while"(#src))
    %5 = func.call @square(%2#1) : (tensor<4xf32>) -> tensor<4xf32> loc("jit(f)/jit(square)"(#src))
    %6 = stablehlo.composite "my.sq" %5 {decomposition = @square} : (tensor<4xf32>) -> tensor<4xf32>
    %7 = stablehlo.custom_call @target(%6) {called_computations = [@square, @nowhere]} : (tensor<4xf32>) -> tensor<4xf32>
    %8 = "stablehlo.case"(%p) ({
      stablehlo.return %7 : tensor<4xf32>
    }, {
      %9 = stablehlo.negate %7 : tensor<4xf32>
      stablehlo.return %9 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r = stablehlo.reduce(%8 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %8, %r : tensor<4xf32>, tensor<f32>
  }
  func.func private @square(%y: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %y, %y : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
#src = loc("f.py":12:4)
#sin = loc("jit(f)/blk/sin"(callsite("f.py":10:2 at "g.py":3:0)))
'''


def _graphs(text: str = PROGRAM) -> tuple[object, dict]:
    module = parse(text, "prog.mlir")
    return module, module_graphs(module)


def _nodes(graph: dict) -> dict[str, dict]:
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert len(nodes) == len(graph["nodes"]), "node ids repeat"
    return nodes


def _attr(node: dict, key: str) -> str | None:
    values = [kv["value"] for kv in node["attrs"] if kv["key"] == key]
    return values[0] if values else None


def test_one_graph_per_function_one_node_per_op_and_block_argument() -> None:
    module, coll = _graphs()
    assert [g["id"] for g in coll["graphs"]] == ["main", "square"]
    keys = op_keys(module)
    for graph in coll["graphs"]:
        func = next(f for f in module.body.block.ops if f.sym_name.data == graph["id"])
        ops = [op for op in func.walk() if op is not func]
        args = [a for op in [func, *ops] for r in op.regions for b in r.blocks for a in b.args]
        nodes = _nodes(graph)
        assert len(nodes) == len(ops) + len(args)
        # node ids are the op keys (node data recorded by op key lands on its node)
        assert {keys[op] for op in ops} <= set(nodes)
        for op in ops:
            assert nodes[keys[op]]["label"] == op.name.partition(".")[2]
            assert _attr(nodes[keys[op]], "op") == op.name
        inputs = [n for n in graph["nodes"] if _attr(n, "kind") == "Input"]
        assert len(inputs) == len(args)
        # inputs are drawn green, ops in Model Explorer's own colours
        assert all(n["style"] == INPUT_STYLE for n in inputs)
        assert not any("style" in nodes[keys[op]] for op in ops)


def test_node_ids_are_the_op_keys() -> None:
    module = parse(PROGRAM, "prog.mlir")
    assert node_keys(module) == op_keys(module)
    jax_like = (EXAMPLES / "viz" / "mlp.mlir").read_text()
    module = parse(jax_like)
    assert node_keys(module) == op_keys(module)


def test_edges_follow_ssa_uses() -> None:
    module, coll = _graphs()
    main = coll["graphs"][0]
    nodes = _nodes(main)
    keys = op_keys(module)
    func = module.body.block.first_op
    arg_ids = {}
    for op in [func, *func.walk()]:
        for r_i, region in enumerate(op.regions):
            for block in region.blocks:
                for a in block.args:
                    prefix = "" if op is func else f"{keys[op]}/{region_names(op)[r_i]}/"
                    arg_ids[a] = f"{prefix}%arg{a.index}"
    edges = 0
    for op in func.walk():
        if op is func:
            continue
        got = nodes[keys[op]]["incomingEdges"]
        want = []
        for i, v in enumerate(op.operands):
            src = (keys[v.op], str(v.index)) if hasattr(v, "op") else (arg_ids[v], "0")
            want.append({"sourceNodeId": src[0], "sourceNodeOutputId": src[1],
                         "targetNodeInputId": str(i)})
        assert got == want, op.name
        edges += len(want)
    assert edges == sum(len(op.operands) for op in func.walk())
    # every edge's source is a node of the graph, and names an output it has
    for node in main["nodes"]:
        for e in node["incomingEdges"]:
            outs = {o["id"] for o in nodes[e["sourceNodeId"]]["outputsMetadata"]}
            assert e["sourceNodeOutputId"] in outs
    # a value used inside a region comes from outside it (the while body reads %c)
    body_add = nodes["jit(f)/blk/while/body/stablehlo.add#0"]
    assert body_add["incomingEdges"][1]["sourceNodeId"] == "jit(f)/blk/stablehlo.constant#0"
    # the while's second result feeds the call
    call = nodes["jit(f)/func.call#0"]
    assert call["incomingEdges"] == [{"sourceNodeId": "jit(f)/blk/stablehlo.while#0",
                                      "sourceNodeOutputId": "1", "targetNodeInputId": "0"}]


def test_namespaces_from_name_stacks_and_region_layers() -> None:
    _, coll = _graphs()
    nodes = _nodes(coll["graphs"][0])
    ns = {k: n["namespace"] for k, n in nodes.items()}
    assert ns["jit(f)/blk/stablehlo.sine#0"] == "jit(f)/blk"
    assert ns["jit(f)/blk/stablehlo.while#0"] == "jit(f)/blk"
    # region ops: <layer of the while>/<label>_<k>/<region>, then the op's scope below the while's
    # name stack without JAX's region segment ("body")
    assert ns["jit(f)/blk/while/cond/stablehlo.compare#0"] == "jit(f)/blk/while_0/cond"
    assert ns["jit(f)/blk/while/body/inner/stablehlo.cosine#0"] == "jit(f)/blk/while_0/body/inner"
    assert ns["jit(f)/blk/while/body/stablehlo.add#0"] == "jit(f)/blk/while_0/body"
    assert ns["jit(f)/blk/stablehlo.return#0"] == "jit(f)/blk/while_0/body"
    # ops without a name location sit at the top; a case's branches are numbered
    assert ns["@main/stablehlo.negate#0"] == "case_0/branches_1"
    assert ns["@main/stablehlo.add#0"] == "reduce_0/body"
    assert ns["@main/stablehlo.constant#0"] == ""
    # block arguments of a region are inputs in the region's layer
    arg = nodes["jit(f)/blk/stablehlo.while#0/body/%arg1"]
    assert (arg["namespace"], _attr(arg, "kind")) == ("jit(f)/blk/while_0/body", "Input")
    # the function's arguments: at the top, named by their location
    assert (nodes["%arg0"]["label"], nodes["%arg0"]["namespace"]) == ("x", "")
    assert nodes["%arg1"]["label"] == "arg1"  # no location: its position
    groups = coll["graphs"][0]["groupNodeAttributes"]
    assert groups["jit(f)/blk/while_0/body"] == {
        "region of": "jit(f)/blk/stablehlo.while#0", "region": "body"}


def test_second_region_op_of_a_layer_gets_its_own_layer() -> None:
    text = '''
func.func @main(%a: tensor<3xf32>, %z: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %1 = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}'''
    module = parse(text)
    func = module.body.block.first_op
    layers, blocks = namespaces(func)
    inner = sorted({layers[op] for op in func.walk() if op.name in ("stablehlo.add", "stablehlo.maximum")})
    assert inner == ["reduce_0/body", "reduce_1/body"]
    assert sorted(blocks.values()) == inner


def test_outputs_attributes_and_locations() -> None:
    _, coll = _graphs()
    nodes = _nodes(coll["graphs"][0])
    wh = nodes["jit(f)/blk/stablehlo.while#0"]
    assert [o["id"] for o in wh["outputsMetadata"]] == ["0", "1"]
    assert wh["outputsMetadata"][1]["attrs"] == [
        {"key": "tensor_shape", "value": "tensor<4xf32>"},
        {"key": "tensor_name", "value": "jit(f)/blk/stablehlo.while#0"}]
    sine = nodes["jit(f)/blk/stablehlo.sine#0"]
    assert _attr(sine, "name_stack") == "jit(f)/blk/sin"
    assert _attr(sine, "source") == "f.py:10"
    assert _attr(sine, "location").startswith('loc("jit(f)/blk/sin"(callsite(')
    # attributes in MLIR text; constants above 16 elements are elided, not printed in full
    assert _attr(nodes["jit(f)/blk/stablehlo.constant#0"], "value") == (
        "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>")
    big = _attr(nodes["@main/stablehlo.constant#0"], "value")
    assert big == "dense<...> : tensor<17xf32> (17 elements)"
    assert _attr(nodes["jit(f)/blk/while/cond/stablehlo.compare#0"], "comparison_direction") == (
        "#stablehlo<comparison_direction LT>")


def test_attribute_text_keeps_splats_and_small_constants() -> None:
    m = parse('func.func @f() -> tensor<1000xf32> {\n'
              '  %c = stablehlo.constant dense<1.5> : tensor<1000xf32>\n'
              '  return %c : tensor<1000xf32>\n}')
    const = next(op for op in m.walk() if op.name == "stablehlo.constant")
    assert attribute_text(const.properties["value"]) == "dense<1.500000e+00> : tensor<1000xf32>"
    assert attribute_text(const.properties["value"], limit=0).startswith("dense<1.5")
    small = parse('func.func @f() -> tensor<2xf64> {\n'
                  '  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>\n'
                  '  return %c : tensor<2xf64>\n}')
    const = next(op for op in small.walk() if op.name == "stablehlo.constant")
    assert attribute_text(const.properties["value"], limit=1) == (
        "dense<...> : tensor<2xf64> (2 elements)")
    assert attribute_text(const.properties["value"], limit=2).startswith("dense<[1.0")


def test_calls_composites_and_custom_calls_link_function_graphs() -> None:
    _, coll = _graphs()
    nodes = _nodes(coll["graphs"][0])
    assert nodes["jit(f)/func.call#0"]["subgraphIds"] == ["square"]
    assert nodes["@main/stablehlo.composite#0"]["subgraphIds"] == ["square"]
    # only names of functions in the module
    assert nodes["@main/stablehlo.custom_call#0"]["subgraphIds"] == ["square"]
    assert all(not n["subgraphIds"] for k, n in nodes.items()
               if k not in ("jit(f)/func.call#0", "@main/stablehlo.composite#0",
                            "@main/stablehlo.custom_call#0"))


def test_graph_data_is_json() -> None:
    _, coll = _graphs()
    assert json.loads(json.dumps(coll)) == coll


def test_artifacts_of_both_formats_give_the_text_graph() -> None:
    module, want = _graphs()
    for fmt in ("msgpack", "mlir"):
        data = serialize_portable_artifact(module, "1.0.0", format=fmt)
        program = read_program(data, f"prog.{fmt}")
        assert (program.format, str(program.version)) == (fmt, "1.0.0")
        got = program_graphs(program)
        for g_got, g_want in zip(got["graphs"], want["graphs"], strict=True):
            assert [n["id"] for n in g_got["nodes"]] == [n["id"] for n in g_want["nodes"]]
            assert [n["incomingEdges"] for n in g_got["nodes"]] == [
                n["incomingEdges"] for n in g_want["nodes"]]
            assert [n["namespace"] for n in g_got["nodes"]] == [
                n["namespace"] for n in g_want["nodes"]]
        info = got["graphs"][0]["groupNodeAttributes"][""]
        assert info["version"] == "1.0.0" and info["file"] == f"prog.{fmt}"


@pytest.mark.parametrize("fmt", ["msgpack", "mlir"])
def test_vhlo_view_at_the_artifacts_version(fmt: str) -> None:
    module = parse(PROGRAM, "prog.mlir")
    for target in ("1.0.0", "1.9.0"):
        data = serialize_portable_artifact(module, target, format=fmt)
        program = read_program(data, "prog.art", view="vhlo")
        assert str(program.version) == target == str(get_portable_artifact_version(data))
        coll = program_graphs(program)
        assert coll["label"] == f"VHLO {target}"
        main = coll["graphs"][0]
        assert [g["id"] for g in coll["graphs"]] == ["main", "square"]
        labels = {n["label"] for n in main["nodes"] if _attr(n, "kind") != "Input"}
        assert {"add_v1", "while_v1", "call_v1", "case_v1", "return_v1"} <= labels
        assert all(not k.startswith("stablehlo.") for k in labels)
        nodes = _nodes(main)
        # the same layers and node ids (with VHLO's op names) as the StableHLO view
        assert nodes["jit(f)/blk/while/body/inner/vhlo.cosine_v1#0"]["namespace"] == (
            "jit(f)/blk/while_v1_0/body/inner")
        call = next(n for n in main["nodes"] if n["label"] == "call_v1")
        assert call["subgraphIds"] == ["square"]
        keys = node_keys(program.module)
        every = {n["id"] for g in coll["graphs"] for n in g["nodes"]}
        assert len(keys) == len(op_keys(module)) == 24 and set(keys.values()) <= every


def test_jax_export_graph_and_vhlo_view() -> None:
    pytest.importorskip("flatbuffers")
    path = EXAMPLES / "mlp.jax_exported"
    coll = file_graphs(str(path))
    assert coll["label"] == "predict"
    info = coll["graphs"][0]["groupNodeAttributes"][""]
    assert info["jax function"] == "predict" and info["platforms"] == "cpu"
    assert info["format"].startswith("JAX export")
    labels = [n["label"] for g in coll["graphs"] for n in g["nodes"]]
    assert "dot_general" in labels
    vhlo = file_graphs(str(path), "vhlo")
    assert vhlo["label"].startswith("predict VHLO ")
    # jax 0.12 wrote it for 1.18.0: dot_general has its second VHLO version there
    assert "dot_general_v2" in [n["label"] for g in vhlo["graphs"] for n in g["nodes"]]
    # the arguments named by their locations (JAX's pytree paths)
    assert "state['w1']" in [n["label"] for n in coll["graphs"][0]["nodes"]]


def test_examples_and_gzipped_text(tmp_path: Path) -> None:
    for name in ("mlp.mlir", "call.mlir", "chlo.mlir", "two_programs.mlir", "custom_call.mlir"):
        coll = file_graphs(str(EXAMPLES / name))
        assert coll["graphs"] and all(g["nodes"] for g in coll["graphs"])
    gz = tmp_path / "prog.mlir.gz"
    gz.write_bytes(gzip.compress(PROGRAM.encode()))
    assert file_graphs(str(gz)) == {**_graphs()[1], "graphs": [
        {**g, "groupNodeAttributes": {**g["groupNodeAttributes"], "": {
            **read_program(PROGRAM.encode(), str(gz)).info(),
            **g["groupNodeAttributes"][""]}}} for g in _graphs()[1]["graphs"]]}


def test_vhlo_text_opens_in_both_views() -> None:
    module = parse(PROGRAM, "prog.mlir")
    from stablehlo_py.serialization import to_vhlo

    vhlo_text = str(to_vhlo(module, "1.0.0", in_place=False))
    as_hlo = program_graphs(read_program(vhlo_text.encode(), "v.mlir"))
    assert "sine" in [n["label"] for n in as_hlo["graphs"][0]["nodes"]]
    as_vhlo = program_graphs(read_program(vhlo_text.encode(), "v.mlir", view="vhlo"))
    assert "sine_v1" in [n["label"] for n in as_vhlo["graphs"][0]["nodes"]]


def test_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(StableHLOError, match="VHLO view is of a portable artifact"):
        read_program(PROGRAM.encode(), "p.mlir", view="vhlo")
    with pytest.raises(StableHLOError, match="unknown graph view 'hlo'"):
        read_program(PROGRAM.encode(), "p.mlir", view="hlo")
    with pytest.raises(StableHLOError, match="not a program"):
        read_program(b"\xff\xfe\x00garbage", "junk.bin")
    with pytest.raises(StableHLOError, match="cannot open"):
        file_graphs(str(tmp_path / "missing.mlir"))
    with pytest.raises(StableHLOError, match="decompress"):
        read_program(b"\x1f\x8b\x08\x00broken", "x.mlir.gz")
    with pytest.raises(StableHLOError) as e:
        read_program(b"func.func @f( {", "broken.mlir")
    assert "broken.mlir" in str(e.value)
