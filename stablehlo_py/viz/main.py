"""Model Explorer's adapters for StableHLO programs (``model-explorer FILE
--extensions=stablehlo_py.viz`` imports this module; ``python -m stablehlo_py.viz FILE`` starts
Model Explorer with them selected).

Two adapters: "StableHLO (stablehlo-py)" (:data:`~stablehlo_py.viz.adapter_ids.ADAPTER_ID`) shows
StableHLO text, portable artifacts of either format and JAX exports as StableHLO;
"VHLO view (stablehlo-py)" (:data:`~stablehlo_py.viz.adapter_ids.VHLO_ADAPTER_ID`) shows an
artifact's VHLO at the version it was written for.  The graphs are
:mod:`stablehlo_py.viz.graph`'s, turned into Model Explorer's ``graph_builder`` objects.  Importing
this module loads Model Explorer only: the program readers load on the first conversion.
"""

from __future__ import annotations

import os
from typing import Any

from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs, graph_builder

from stablehlo_py.viz.adapter_ids import ADAPTER_ID, ARTIFACT_EXTS, TEXT_EXTS, VHLO_ADAPTER_ID

__all__ = ["StableHloAdapter", "VhloAdapter", "convert_file", "prepare", "to_graph_collection"]

def _prepared() -> dict[tuple[str, int, int, str, int], ModelExplorerGraphs]:
    """The results :func:`prepare` keeps (the context's table, made on first use: importing this
    module loads no IR code)."""
    from stablehlo_py.ir.context import CONTEXT

    return CONTEXT.table("viz.prepared", 4)


def _key(path: str, view: str, limit: int) -> tuple[str, int, int, str, int]:
    st = os.stat(path)
    return (os.path.realpath(path), st.st_mtime_ns, st.st_size, view, limit)


def _limit(settings: dict[str, Any] | None) -> int:
    from stablehlo_py.viz.graph import ELEMENT_LIMIT

    value = (settings or {}).get("const_element_count_limit", ELEMENT_LIMIT)
    return value if isinstance(value, int) and value >= 0 else ELEMENT_LIMIT


class _Objects:
    """Builds Model Explorer's objects from the dicts; equal key-value pairs share one object
    (op names, types and sources repeat across nodes; Model Explorer only reads them)."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], graph_builder.KeyValue] = {}

    def kvs(self, items: list[dict[str, str]]) -> list[graph_builder.KeyValue]:
        out = []
        for kv in items:
            pair = (kv["key"], kv["value"])
            obj = self.pairs.get(pair)
            if obj is None:
                obj = self.pairs[pair] = graph_builder.KeyValue(key=pair[0], value=pair[1])
            out.append(obj)
        return out

    def metadata(self, items: list[dict[str, Any]]) -> list[graph_builder.MetadataItem]:
        return [graph_builder.MetadataItem(id=m["id"], attrs=self.kvs(m["attrs"])) for m in items]

    def node(self, n: dict[str, Any]) -> graph_builder.GraphNode:
        return graph_builder.GraphNode(
            id=n["id"],
            label=n["label"],
            namespace=n["namespace"],
            subgraphIds=n["subgraphIds"],
            attrs=self.kvs(n["attrs"]),
            incomingEdges=[
                graph_builder.IncomingEdge(
                    sourceNodeId=e["sourceNodeId"],
                    sourceNodeOutputId=e["sourceNodeOutputId"],
                    targetNodeInputId=e["targetNodeInputId"],
                )
                for e in n["incomingEdges"]
            ],
            outputsMetadata=self.metadata(n["outputsMetadata"]),
            inputsMetadata=self.metadata(n["inputsMetadata"]),
            style=graph_builder.GraphNodeStyle(**n["style"]) if "style" in n else None,
        )


def to_graph_collection(collection: dict[str, Any]) -> graph_builder.GraphCollection:
    """:mod:`stablehlo_py.viz.graph`'s dicts as Model Explorer's objects."""
    objects = _Objects()
    return graph_builder.GraphCollection(
        label=collection["label"],
        graphs=[
            graph_builder.Graph(
                id=g["id"],
                nodes=[objects.node(n) for n in g["nodes"]],
                groupNodeAttributes=g.get("groupNodeAttributes"),
            )
            for g in collection["graphs"]
        ],
    )


def convert_file(path: str, view: str = "stablehlo", settings: dict[str, Any] | None = None
                 ) -> ModelExplorerGraphs:
    """The file's graphs in ``view`` as an adapter returns them (a prepared result when
    :func:`prepare` converted this very file)."""
    limit = _limit(settings)
    try:
        prepared = _prepared().pop(_key(path, view, limit), None)
    except OSError:
        prepared = None  # the reader names the problem
    if prepared is not None:
        return prepared
    from stablehlo_py.ir import no_gc
    from stablehlo_py.viz.graph import file_graphs

    collection = file_graphs(path, view, limit)
    with no_gc():
        return {"graphCollections": [to_graph_collection(collection)]}


def prepare(path: str, view: str = "stablehlo", settings: dict[str, Any] | None = None) -> None:
    """Convert the file now (errors are raised here, before a server starts) and keep the result
    for the adapter's first conversion of the same unchanged file."""
    result = convert_file(path, view, settings)
    _prepared().put(_key(path, view, _limit(settings)), result)  # type: ignore[attr-defined]


class StableHloAdapter(Adapter):
    """StableHLO text, portable artifacts and JAX exports, as StableHLO."""

    metadata = AdapterMetadata(
        id=ADAPTER_ID,
        name="StableHLO (stablehlo-py)",
        description=(
            "StableHLO text, portable artifacts (msgpack or MLIR bytecode) and JAX exports: a "
            "graph per function, layers from JAX's name stacks and regions, node ids = op keys."
        ),
        fileExts=[*TEXT_EXTS, *ARTIFACT_EXTS],
    )

    def convert(self, model_path: str, settings: dict[str, Any]) -> ModelExplorerGraphs:
        return convert_file(model_path, "stablehlo", settings)


class VhloAdapter(Adapter):
    """A portable artifact's VHLO at the version it was written for."""

    metadata = AdapterMetadata(
        id=VHLO_ADAPTER_ID,
        name="VHLO view (stablehlo-py)",
        description=(
            "The VHLO ops of a portable artifact or a JAX export at the version it was written "
            "for (VHLO text as it is)."
        ),
        fileExts=[*ARTIFACT_EXTS, *TEXT_EXTS],
    )

    def convert(self, model_path: str, settings: dict[str, Any]) -> ModelExplorerGraphs:
        return convert_file(model_path, "vhlo", settings)
