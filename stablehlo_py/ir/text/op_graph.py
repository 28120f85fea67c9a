"""An op as a Graphviz graph in the DOT language, line for line as MLIR's `view-op-graph` pass
writes it (mlir/lib/Transforms/ViewOpGraph.cpp, the version with input and output bars on region
ops).

The graph (`digraph G { compound = true; ... }`) holds:

- a record node (`shape = Mrecord`, filled with a colour per op name) per op without regions, its
  label `{{<arg_x> %x|...}|op.name\\l\\lattr: value\\l|{<res_0> %0 type|...}}`: operand ports on
  top, the name and attributes, result ports below;
- a cluster per op with regions (`subgraph cluster_N`, its label the op name and attributes,
  anchored top-left), holding an input bar (`operands|<arg_x> %x|...`) above the op's blocks and an
  output bar (`results|<res_0> %0 type|...`) below them, each an invisible `plain` node when the
  op has no operands or results, and invisible edges (`style = invis`) keeping the bars above and
  below each block;
- a cluster per block with an invisible anchor node (`v<N> [label = " ", shape = plain]`) and a
  record node per block argument;
- after all nodes: the control-flow edges (`style = dashed`, between consecutive ops of a block,
  when asked for), then the data-flow edges (`style = solid`) from a value's result port (`:s`,
  south) to the operand port (`:n`, north) of each use, a value used inside a region op whose
  operand it is entering through that op's input bar.

Node and cluster ids come from one counter in emission order.  Every edge joins two nodes (so
upstream's `lhead`/`ltail`, for edges clipped at a cluster, never arise in this layout).  Port
names are the value's printed name (`%3#1`) with `%` and `#` as `_`, and an operand's port gets
`_<operand number>` appended when the op takes the same value twice.  Attributes are the op's properties and attributes sorted by
name; an elements attribute with more than `large_elements_limit` elements (MLIR's default 16)
prints as `[[...]] : type` (a bracket per dimension), unless it is a splat; an array attribute
with more elements as `[...]`; other attribute and type text is cut at `max_label_len` characters
(`...` appended).  Graphviz's record-label specials (`{ | < } >`, newline, `"`) are escaped.

One behaviour of upstream's is kept to stay line for line: when a region op takes the same value as
two operands, the value stays routed through that op's input bar for the rest of the graph (the
saved routing is restored in operand order, so the second copy restores the first's)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py.ir.text.printer import Namer, attr_to_str, ops_of, type_to_str
from stablehlo_py.ir.types import num_elements, storage_dtype

__all__ = ["GraphOptions", "op_graph_dot"]

_CONTROL_FLOW = "dashed"
_DATA_FLOW = "solid"
_RECORD = "Mrecord"
_NONE = "plain"
_ESCAPES = str.maketrans({c: "\\" + c for c in '{|<}>\n"'})


@dataclass(frozen=True)
class GraphOptions:
    """upstream's pass options (Passes.td's defaults) and the printer's elision limit."""

    max_label_len: int = 20
    print_attrs: bool = True
    print_control_flow_edges: bool = False
    print_data_flow_edges: bool = True
    print_result_types: bool = True
    large_elements_limit: int = 16  # MLIR's when -mlir-elide-elementsattrs-if-larger is not given


def op_graph_dot(op: Operation, options: GraphOptions = GraphOptions()) -> str:
    """The DOT text of `op` (a module), as MLIR's `view-op-graph` writes it to stderr."""
    return _Graph(op, options).text()


def escape_label(text: str) -> str:
    """Backslash before the characters Graphviz record labels treat specially."""
    return text.translate(_ESCAPES)


@dataclass
class _DataFlowEdge:
    """An edge to node `node`'s operand port `dst_port` from the node of `value` (node ids are
    the counter's), or from an input bar."""

    value: SSAValue
    node: int
    src_port: str
    dst_port: str
    source: int | None = None  # an input bar the value enters a region through
    from_arg_port: bool = False


@dataclass
class _Out:
    """MLIR's raw_indented_ostream: two spaces per level at the start of every non-empty line."""

    pieces: list[str] = field(default_factory=list)
    level: int = 0
    at_line_start: bool = True

    def write(self, text: str) -> None:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if i:
                self.pieces.append("\n")
                self.at_line_start = True
            if line:
                if self.at_line_start:
                    self.pieces.append("  " * self.level)
                self.pieces.append(line)
                self.at_line_start = False


class _Graph:
    def __init__(self, root: Operation, options: GraphOptions):
        self.root = root
        self.o = options
        self.names = Namer(root, generic=False).names
        self.colors = _colors(root)
        self.out = _Out()
        self.counter = 0
        self.edges: list[str] = []
        self.value_node: dict[int, int] = {}
        self.input_bar: dict[int, tuple[int, str]] = {}
        self.data_edges: list[_DataFlowEdge] = []

    def text(self) -> str:
        self.out.write("digraph G {\n")
        self.out.level += 1
        self.out.write("compound = true;\n")
        self._operation(self.root)
        self._all_edges()
        self.out.level -= 1
        self.out.write("}\n")
        return "".join(self.out.pieces)

    # -- text of values, types and attributes
    def _name(self, v: SSAValue) -> str:
        return self.names.get(id(v), "<<UNKNOWN SSA VALUE>>")

    def _port(self, v: SSAValue) -> str:
        return self._name(v).replace("%", "_").replace("#", "_")

    def _operand_ports(self, op: Operation) -> list[str]:
        """The port of each operand: the value's, `_<operand number>` appended when the op takes
        the value more than once."""
        operands = op.operands
        ports = [self._port(v) for v in operands]
        if len({id(v) for v in operands}) < len(operands):
            for i, v in enumerate(operands):
                if sum(1 for w in operands if w is v) > 1:
                    ports[i] += f"_{i}"
        return ports

    def _truncate(self, text: str) -> str:
        n = self.o.max_label_len
        return text if len(text) <= n else text[:n] + "..."

    def _type(self, t: Attribute) -> str:
        return escape_label(self._truncate(type_to_str(t)))

    def _attr(self, a: Attribute) -> str:
        limit = self.o.large_elements_limit
        if isinstance(a, DenseIntOrFPElementsAttr):
            # a splat (one stored element, as MLIR's SplatElementsAttr: also a 1-element or a
            # 0-element one written as a splat) is never cut
            if len(a.data.data) == storage_dtype(a.type.element_type).itemsize:
                return escape_label(attr_to_str(a))
            shape = a.type.get_shape()
            if num_elements(shape) > limit:
                return "[" * len(shape) + "..." + "]" * len(shape) + " : " + self._type(a.type)
        if isinstance(a, ArrayAttr) and len(a.data) > limit:
            return "[...]"
        return escape_label(self._truncate(attr_to_str(a)))

    @staticmethod
    def _attrs(op: Operation) -> list[tuple[str, Attribute]]:
        return sorted({**op.properties, **op.attributes}.items(), key=lambda kv: kv[0])

    # -- labels
    def _operand_fields(self, op: Operation) -> str:
        return "|".join(
            f"<arg{port}> {self._name(v)}"
            for port, v in zip(self._operand_ports(op), op.operands, strict=True)
        )

    def _result_ports(self, op: Operation) -> str:
        return "|".join(self._value_field(r) for r in op.results)

    def _value_field(self, v: SSAValue) -> str:
        text = f"<res{self._port(v)}> {self._name(v)}"
        return text + " " + self._type(v.type) if self.o.print_result_types else text

    def _record_label(self, op: Operation) -> str:
        parts = ["{"]
        if op.operands:
            parts.append("{" + self._operand_fields(op) + "}|")
        parts.append(op.name + "\\l")
        attrs = self._attrs(op)
        if self.o.print_attrs and attrs:
            parts.append("\\l")
            parts.extend(f"{name}: {self._attr(a)}\\l" for name, a in attrs)
        if op.results:
            parts.append("|{" + self._result_ports(op) + "}")
        parts.append("}")
        return "".join(parts)

    def _cluster_label(self, op: Operation) -> str:
        parts = [op.name + "\\l"]
        if self.o.print_attrs:
            parts.extend(
                f"{escape_label(name)}: {self._attr(a)}\\l" for name, a in self._attrs(op)
            )
        return "".join(parts)

    # -- statements
    @staticmethod
    def _attr_list(attrs: dict[str, str]) -> str:
        return "[" + ", ".join(f"{k} = {v}" for k, v in sorted(attrs.items())) + "]"

    def _node(self, label: str, shape: str = _RECORD, background: str = "") -> int:
        self.counter += 1
        attrs = {"label": f'"{label}"', "shape": shape}
        if background:
            attrs["style"] = "filled"
            attrs["fillcolor"] = f'"{background}"'
        self.out.write(f"v{self.counter} {self._attr_list(attrs)};\n")
        return self.counter

    def _edge(
        self,
        n1: int,
        n2: int,
        src_port: str,
        dst_port: str,
        style: str,
        from_arg_port: bool = False,
    ) -> None:
        source = f"v{n1}"
        if src_port:
            source += (":arg" if from_arg_port else ":res") + src_port + ":s"
        target = f"v{n2}"
        if dst_port:
            target += f":arg{dst_port}:n"
        self.edges.append(f"{source} -> {target}[style = {style}]")

    def _ordering_edge(self, a: int, b: int) -> None:
        self.out.write(f"v{a} -> v{b}[style = invis];\n")

    def _all_edges(self) -> None:
        for e in self.data_edges:  # (none are collected without print-data-flow-edges)
            source = e.source if e.source is not None else self.value_node.get(id(e.value), 0)
            self._edge(source, e.node, e.src_port, e.dst_port, _DATA_FLOW, e.from_arg_port)
        for edge in self.edges:
            self.out.write(edge + ";\n")

    # -- the IR
    def _operation(self, op: Operation) -> int:
        """Emit an op (a node, or a cluster when it has regions); returns the node its operands
        enter (what control-flow edges join)."""
        if op.regions:
            sink, source = self._region_op(op)
        else:
            sink = source = self._node(self._record_label(op), _RECORD, self.colors[op.name])
        if self.o.print_data_flow_edges:
            for v, dst in zip(op.operands, self._operand_ports(op), strict=True):
                bar = self.input_bar.get(id(v))
                if bar is not None:
                    self.data_edges.append(_DataFlowEdge(v, sink, bar[1], dst, bar[0], True))
                else:
                    self.data_edges.append(_DataFlowEdge(v, sink, self._port(v), dst))
        for r in op.results:
            self.value_node[id(r)] = source
        return sink

    def _region_op(self, op: Operation) -> tuple[int, int]:
        self.counter += 1
        self.out.write(f"subgraph cluster_{self.counter} {{\n")
        self.out.level += 1
        self.out.write('labeljust = "l";\n')
        self.out.write('labelloc = "t";\n')
        self.out.write(f'label = "{self._cluster_label(op)}";\n')
        color = self.colors[op.name]
        if op.operands:
            inputs = self._node("operands|" + self._operand_fields(op), _RECORD, color)
        else:
            inputs = self._node(" ", _NONE)
        saved: list[tuple[int, tuple[int, str] | None]] = []
        for v, port in zip(op.operands, self._operand_ports(op), strict=True):
            saved.append((id(v), self.input_bar.get(id(v))))
            self.input_bar[id(v)] = (inputs, port)
        blocks: list[tuple[int, int]] = []
        for region in op.regions:
            blocks.extend(self._region(region))
        for key, previous in saved:
            if previous is None:
                self.input_bar.pop(key, None)
            else:
                self.input_bar[key] = previous
        if op.results:
            outputs = self._node("results|" + self._result_ports(op), _RECORD, color)
        else:
            outputs = self._node(" ", _NONE)
        if not blocks:
            self._ordering_edge(inputs, outputs)
        for anchor, last in blocks:
            self._ordering_edge(inputs, anchor)
            self._ordering_edge(last, outputs)
        self.out.level -= 1
        self.out.write("}\n")
        return inputs, outputs

    def _region(self, region: Region) -> list[tuple[int, int]]:
        return [self._block(b) for b in region.blocks]

    def _block(self, block: Block) -> tuple[int, int]:
        """A block's cluster; returns its anchor node and the node of its last op (the anchor
        when the block is empty)."""
        self.counter += 1
        self.out.write(f"subgraph cluster_{self.counter} {{\n")
        self.out.level += 1
        anchor = self._node(" ", _NONE)
        self.out.write('label = "";\n')
        for arg in block.args:
            self.value_node[id(arg)] = self._node(self._value_field(arg))
        previous: int | None = None
        for op in ops_of(block):
            node = self._operation(op)
            if self.o.print_control_flow_edges and previous is not None:
                self._edge(previous, node, "", "", _CONTROL_FLOW)
            previous = node
        self.out.level -= 1
        self.out.write("}\n")
        return anchor, previous if previous is not None else anchor


def _colors(root: Operation) -> dict[str, str]:
    """A fill colour per op name (`"<hue> 0.3 0.95"`, HSV): the names in the order MLIR's
    post-order walk first meets them, the hues evenly spaced."""
    first_seen: dict[str, None] = {}
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            first_seen.setdefault(op.name, None)
            continue
        stack.append((op, True))
        nested = [o for r in op.regions for b in r.blocks for o in ops_of(b)]
        stack.extend((o, False) for o in reversed(nested))
    n = len(first_seen)
    return {name: f"{i / n:.6f} 0.3 0.95" for i, name in enumerate(first_seen)}
