"""A program as graph data for Google's Model Explorer, as plain dicts (no ``model_explorer``
import: the adapter in :mod:`stablehlo_py.viz.main` turns them into its ``graph_builder`` objects).

The dicts use Model Explorer's field names (``GraphCollection``, ``Graph``, ``GraphNode``, ...)::

    {"label": str, "graphs": [{"id": "main", "nodes": [node, ...],
                               "groupNodeAttributes": {layer: {key: value}}}]}
    node = {"id", "label", "namespace", "subgraphIds", "attrs": [{"key", "value"}],
            "incomingEdges": [{"sourceNodeId", "sourceNodeOutputId", "targetNodeInputId"}],
            "outputsMetadata": [{"id", "attrs"}], "inputsMetadata": [],
            "style": {"backgroundColor", "borderColor"} (Input nodes only)}

One graph per function (id = its symbol name).  One node per op, id = the op key
(:func:`~stablehlo_py.viz.layers.node_keys`: node data recorded by op key lands on its node),
label = the op name without its dialect, attributes = the op's attributes (large constants elided),
its location, name stack and source line; ``namespace`` = its layer
(:func:`~stablehlo_py.viz.layers.namespaces`); one output per result with its type
(``tensor_shape``) and ``tensor_name`` = the op key; an incoming edge per operand from the op or
block argument that defines it.  Block arguments are ``Input`` nodes (a function's at the top, a
region's in the region's layer; ids ``%arg<j>`` and ``<region op key>/<region>/%arg<j>``; green:
:data:`INPUT_STYLE`).  Calls, composites and custom calls with called computations link their
functions' graphs (``subgraphIds``).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from stablehlo_py.ir import no_gc
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.text.name_stack import location_name
from stablehlo_py.viz.load import Program, load_program
from stablehlo_py.viz.layers import (
    functions,
    keys_and_stacks,
    namespaces,
    op_label,
    region_names,
    symbol_names,
)

__all__ = [
    "ELEMENT_LIMIT",
    "INPUT_STYLE",
    "SUBGRAPH_ATTRS",
    "attribute_text",
    "file_graphs",
    "module_graphs",
    "program_graphs",
]

ELEMENT_LIMIT = 16
"""Constants with more elements than this show their type only (Model Explorer's default)."""

SUBGRAPH_ATTRS = ("callee", "decomposition", "called_computations")
"""Attributes naming functions an op runs: their graphs become the node's ``subgraphIds``."""

INPUT_STYLE = {"backgroundColor": "#ceead6", "borderColor": "#137333"}
"""Input nodes (block arguments) are green, ops keep Model Explorer's white (``style``)."""

Dict = dict[str, Any]


def _kv(key: str, value: str) -> Dict:
    return {"key": key, "value": value}


def attribute_text(attr: Attribute, limit: int = ELEMENT_LIMIT) -> str:
    """An attribute's MLIR text; a dense constant of more than ``limit`` elements (not a splat)
    as ``dense<...> : <type>`` with its element count."""
    dense = attr if isinstance(attr, DenseIntOrFPElementsAttr) else getattr(attr, "dense", None)
    if isinstance(dense, DenseIntOrFPElementsAttr):
        count = 1
        for d in dense.get_shape():
            count *= d
        # a splat stores one element (at most 16 bytes: complex<f64>) and prints short; asking
        # is_splat() decodes every element, so only for constants of a few bytes
        if count > limit and (len(dense.data.data) > 16 or not dense.is_splat()):
            return f"dense<...> : {dense.type} ({count} elements)"
    return str(attr)


class _Builder:
    """The graphs of one module (caches shared by its functions)."""

    def __init__(self, module: Operation, limit: int) -> None:
        self.limit = limit
        self.keys, self.stacks = keys_and_stacks(module)
        self.functions = functions(module)
        self.names = {name for name, _ in self.functions}
        self.type_text: dict[Attribute, str] = {}
        self.arg_ids: dict[Block, list[str]] = {}

    def graph(self, fname: str, func: Operation) -> Dict:
        nodes: list[Dict] = []
        layers, block_layers = namespaces(func, self.stacks.__getitem__)
        groups: dict[str, dict[str, str]] = {"": self._function_info(fname, func)}
        for b, block in enumerate(func.regions[0].blocks if func.regions else ()):
            self._inputs(block, f"%bb{b}/" if b else "", "", nodes)
        for op in func.walk():
            if op is func:
                continue
            key = self.keys[op]
            nodes.append(self._node(op, key, layers[op]))
            for rname, region in zip(region_names(op), op.regions):
                for b, block in enumerate(region.blocks):
                    layer = block_layers[block]
                    groups.setdefault(layer, {"region of": key, "region": rname})
                    prefix = f"{key}/{rname}/" + (f"block{b}/" if b else "")
                    self._inputs(block, prefix, layer, nodes)
        return {"id": fname, "nodes": nodes, "groupNodeAttributes": groups}

    def _function_info(self, fname: str, func: Operation) -> dict[str, str]:
        info = {"function": fname}
        for name in ("function_type", "sym_visibility"):
            attr = func.properties.get(name) or func.attributes.get(name)
            if attr is not None:
                info[name] = str(attr)
        return info

    def _type(self, t: Attribute) -> str:
        text = self.type_text.get(t)
        if text is None:
            text = self.type_text[t] = str(t)
        return text

    def _inputs(self, block: Block, prefix: str, layer: str, nodes: list[Dict]) -> None:
        ids = []
        for arg in block.args:
            node_id = f"{prefix}%arg{arg.index}"
            ids.append(node_id)
            named = location_name(arg)  # type: ignore[arg-type]
            if named and "/" in named:
                named = None  # a name stack (JAX's region arguments), not the argument's name
            label = named or arg.name_hint or f"arg{arg.index}"
            nodes.append({
                "id": node_id,
                "label": label,
                "namespace": layer,
                "subgraphIds": [],
                "attrs": [_kv("kind", "Input"), _kv("index", str(arg.index))],
                "incomingEdges": [],
                "outputsMetadata": [{"id": "0", "attrs": [
                    _kv("tensor_shape", self._type(arg.type)), _kv("tensor_name", node_id)]}],
                "inputsMetadata": [],
                "style": dict(INPUT_STYLE),
            })
        self.arg_ids[block] = ids

    def _source(self, value: SSAValue) -> tuple[str, str] | None:
        if isinstance(value, OpResult):
            key = self.keys.get(value.op)
            return None if key is None else (key, str(value.index))
        if isinstance(value, BlockArgument):
            ids = self.arg_ids.get(value.block)
            return None if ids is None else (ids[value.index], "0")
        return None  # pragma: no cover - xDSL's values are results or block arguments

    def _node(self, op: Operation, key: str, layer: str) -> Dict:
        attrs = [_kv(k, attribute_text(v, self.limit)) for k, v in op.properties.items()]
        attrs += [_kv(k, attribute_text(v, self.limit)) for k, v in op.attributes.items()]
        loc = op.location
        if isinstance(loc, TextLoc) and loc.data != "unknown":
            stack = self.stacks[op]
            attrs.append(_kv("location", f"loc({loc.data})"))
            if stack.label:
                name = f"{stack.scope}/{stack.label}" if stack.scope else stack.label
                attrs.append(_kv("name_stack", name))
            if stack.source:
                attrs.append(_kv("source", stack.source))
        edges = []
        for i, operand in enumerate(op.operands):
            source = self._source(operand)
            if source is not None:
                edges.append({"sourceNodeId": source[0], "sourceNodeOutputId": source[1],
                              "targetNodeInputId": str(i)})
        outputs = [
            {"id": str(r.index), "attrs": [
                _kv("tensor_shape", self._type(r.type)), _kv("tensor_name", key)]}
            for r in op.results
        ]
        subgraphs: list[str] = []
        for name in SUBGRAPH_ATTRS:
            attr = op.properties.get(name) or op.attributes.get(name)
            subgraphs += [s for s in symbol_names(attr) if s in self.names and s not in subgraphs]
        return {
            "id": key,
            "label": op_label(op),
            "namespace": layer,
            "subgraphIds": subgraphs,
            "attrs": [_kv("op", op.name), *attrs],
            "incomingEdges": edges,
            "outputsMetadata": outputs,
            "inputsMetadata": [],  # operand names: not worth 15% of a large graph's load time
        }


def module_graphs(
    module: Operation,
    label: str = "",
    info: dict[str, str] | None = None,
    limit: int = ELEMENT_LIMIT,
) -> Dict:
    """The graph collection of ``module`` (a module or one function): one graph per function
    (see the module docstring); ``info`` is shown as each graph's own attributes (the file, its
    format and version); constants of more than ``limit`` elements are elided."""
    graphs = []
    with no_gc():
        builder = _Builder(module, limit)
        for fname, func in builder.functions:
            graph = builder.graph(fname, func)
            if info:
                graph["groupNodeAttributes"][""] = {**info, **graph["groupNodeAttributes"][""]}
            graphs.append(graph)
    return {"label": label, "graphs": graphs}


def program_graphs(program: Program, limit: int = ELEMENT_LIMIT) -> Dict:
    """The graph collection of a program read by :mod:`stablehlo_py.viz.load`."""
    return module_graphs(program.module, program.label, program.info(), limit)


def file_graphs(path: str, view: str = "stablehlo", limit: int = ELEMENT_LIMIT) -> Dict:
    """The graph collection of the program in the file at ``path`` (text, artifact, JAX export)
    in ``view`` (``"stablehlo"`` or ``"vhlo"``)."""
    return program_graphs(load_program(path, view), limit)
