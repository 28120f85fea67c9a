"""Node data overlays of a run (stablehlo_py/viz/overlays.py) without Model Explorer: keyed by the
graph ids and node ids the graph view makes for the same program; the planted-bug model
(tests/data/trace/model_swap) against the original's trace shows its planted op as the first with a
difference; NaN/Inf counts and times from traces; the --trace/--node-data-output entry points."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.cli.translate import main as translate
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.trace import Comparison, Trace, compare_traces, save_trace
from stablehlo_py.viz.graph import module_graphs
from stablehlo_py.viz.launch import _node_data_files, _overlays, parser
from stablehlo_py.viz.overlays import (
    OVERLAYS,
    file_overlays,
    overlay_values,
    overlays,
    write_overlays,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "trace"
PLANTED: dict[str, str] = json.loads((DATA / "planted.json").read_text())


def _module(name: str) -> Any:
    return parse(gzip.decompress((DATA / f"{name}.mlir.gz").read_bytes()).decode(), name)


def _run(module: Any, timing: bool = True) -> Trace:
    inputs = np.load(DATA / "inputs.npz")
    trace = Trace(3, timing=timing)
    run(module, *[inputs[k] for k in ("x", "ws", "gs", "bs")], trace=trace)
    return trace


@pytest.fixture(scope="module")
def reference() -> Trace:
    return _run(_module("model"))


@pytest.fixture(scope="module")
def swap(reference: Trace) -> tuple[Any, Trace, Comparison]:
    module = _module("model_swap")
    trace = _run(module)
    return module, trace, compare_traces(trace, reference, module)


def _node_ids(module: Any) -> dict[str, set[str]]:
    return {g["id"]: {n["id"] for n in g["nodes"]} for g in module_graphs(module)["graphs"]}


def _values(data: dict[str, Any], graph: str = "main") -> dict[str, float]:
    return {k: r["value"] for k, r in data[graph]["results"].items()}


# ------------------------------------------------------------------------------- the keys
def test_keys_are_the_graph_views_node_ids(swap: tuple[Any, Trace, Comparison]) -> None:
    module, trace, comparison = swap
    data = overlays(module, trace, comparison)
    assert list(data) == list(OVERLAYS)  # every overlay has values, in the documented order
    ids = _node_ids(module)
    for name, model in data.items():
        assert set(model) <= set(ids), name
        for graph_id, graph in model.items():
            assert set(graph["results"]) <= ids[graph_id], (name, graph_id)
            assert graph["gradient"][0] == {"stop": 0, "bgColor": "#ffffff"}
            assert all(isinstance(r["value"], int | float) for r in graph["results"].values())
        # ops of called functions sit in their function's graph
        assert {"main", "round", "_where"} <= set(model), name
    # every traced op has its NaN count, on its own node
    placed = {k for g in data["nan_count"].values() for k in g["results"]}
    assert placed == set(trace.keys()) and len(placed) == len(trace)
    json.dumps(data, allow_nan=False)  # JSON that JavaScript reads (no NaN, no Infinity)


def test_the_planted_op_is_the_first_with_a_difference(
    swap: tuple[Any, Trace, Comparison],
) -> None:
    module, trace, comparison = swap
    planted = PLANTED["model_swap"]
    data = overlays(module, trace, comparison)
    abs_diff, rel_diff = _values(data["max_abs_diff"]), _values(data["max_rel_diff"])
    mismatched = _values(data["mismatched"])
    order = [k for k in trace.keys() if k in abs_diff]
    before = order[: order.index(planted)]
    assert len(before) > 200
    assert abs_diff[planted] > 0.1 and rel_diff[planted] > 0 and mismatched[planted] > 0
    assert all(abs_diff[k] == 0 for k in before)
    assert all(mismatched[k] == 0 for k in before)
    first = next(k for k in trace.keys() if mismatched.get(k))
    assert first == planted == comparison.first.key
    # the ops after it inherit the difference (the largest is downstream)
    assert max(abs_diff.values()) >= abs_diff[planted]
    differing = [k for g in data["mismatched"] for k, v in _values(data["mismatched"], g).items()
                 if v]
    assert sorted(differing) == sorted(d.key for d in comparison.differing)


def test_a_moved_infinity_shows_as_mismatched_only(reference: Trace) -> None:
    """model_init's planted constant: -inf became 0 (no finite difference to measure)."""
    module = _module("model_init")
    trace = _run(module, timing=False)
    comparison = compare_traces(trace, reference, module)
    assert comparison.first is not None
    assert comparison.first.reference.key == PLANTED["model_init"]
    key = comparison.first.key
    assert overlay_values("mismatched", trace, comparison)[key] == 1
    assert key not in overlay_values("max_abs_diff", trace, comparison)
    assert "time_us" not in overlays(module, trace, comparison)  # not timed


# ------------------------------------------------------------------------ NaN, Inf, regions
PROGRAM = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %l = stablehlo.log %x : tensor<3xf32> loc("jit(f)/log"("p.py":1:0))
  %c = call @twice(%l) : (tensor<3xf32>) -> tensor<3xf32> loc("jit(f)/call"("p.py":2:0))
  %i0 = stablehlo.constant dense<0> : tensor<i32> loc("jit(f)/zero"("p.py":3:0))
  %w:2 = stablehlo.while(%i = %i0, %v = %c) : tensor<i32>, tensor<3xf32>
  cond {
    %n = stablehlo.constant dense<2> : tensor<i32> loc("jit(f)/while/cond/n"("p.py":4:0))
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      loc("jit(f)/while/cond/lt"("p.py":5:0))
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32> loc("jit(f)/while/body/one"("p.py":6:0))
    %j = stablehlo.add %i, %one : tensor<i32> loc("jit(f)/while/body/inc"("p.py":7:0))
    %s = stablehlo.sqrt %v : tensor<3xf32> loc("jit(f)/while/body/sqrt"("p.py":8:0))
    stablehlo.return %j, %s : tensor<i32>, tensor<3xf32>
  } loc("jit(f)/while"("p.py":9:0))
  return %w#1 : tensor<3xf32>
}
func.func private @twice(%a: tensor<3xf32>) -> tensor<3xf32> {
  %d = stablehlo.add %a, %a : tensor<3xf32> loc("jit(f)/twice/add"("p.py":10:0))
  return %d : tensor<3xf32>
}
"""


def test_nan_and_inf_counts_and_times_per_node() -> None:
    module = parse(PROGRAM)
    trace = Trace(1, timing=True)
    run(module, np.array([-1.0, 0.0, 4.0], np.float32), trace=trace)
    data = overlays(module, trace)
    assert set(data) == {"nan_count", "inf_count", "time_us"}  # no comparison: no differences
    ids = _node_ids(module)
    nan, inf = _values(data["nan_count"]), _values(data["inf_count"])
    # log([-1, 0, 4]) = [nan, -inf, 1.39]; the called function doubles it
    assert (nan["jit(f)/stablehlo.log#0"], inf["jit(f)/stablehlo.log#0"]) == (1, 1)
    assert _values(data["nan_count"], "twice") == {"jit(f)/twice/stablehlo.add#0": 1}
    assert set(data["nan_count"]["twice"]["results"]) <= ids["twice"]
    # the body ran twice: sqrt of [nan, -inf, 2.77] -> [nan, nan, 1.66], then [nan, nan, 1.29]
    sqrt = "jit(f)/while/body/stablehlo.sqrt#0"
    assert sqrt in ids["main"] and (nan[sqrt], inf[sqrt]) == (4, 0)
    assert nan["jit(f)/while/body/stablehlo.constant#0"] == 0  # no NaN: 0, not left out
    # the while op's own results: (i, v) after the loop
    assert (nan["jit(f)/stablehlo.while#0"], inf["jit(f)/stablehlo.while#0"]) == (2, 0)
    times = _values(data["time_us"])
    assert set(times) | set(_values(data["time_us"], "twice")) == set(trace.keys())
    assert all(t >= 0 for t in times.values())
    assert times[sqrt] == pytest.approx(trace[sqrt].time * 1e6, abs=1e-3)


def test_ops_without_a_value_are_left_out() -> None:
    module = parse(PROGRAM)
    trace = Trace(1)  # not timed: no time_us
    run(module, np.array([1.0, 2.0, 4.0], np.float32), trace=trace)
    assert overlay_values("time_us", trace) == {}
    assert overlay_values("max_abs_diff", trace) == {}  # no comparison
    other = parse(PROGRAM.replace("stablehlo.log", "stablehlo.exponential"))
    data = overlays(other, trace)  # the log's key is not a node of this program
    assert "jit(f)/stablehlo.log#0" not in data["nan_count"]["main"]["results"]
    with pytest.raises(ValueError, match="unknown overlay 'nan'"):
        overlay_values("nan", trace)


# ---------------------------------------------------------------------------- entry points
@pytest.fixture(scope="module")
def trace_files(tmp_path_factory: pytest.TempPathFactory, reference: Trace,
                swap: tuple[Any, Trace, Comparison]) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("traces")
    save_trace(reference, root / "reference.npz")
    save_trace(swap[1], root / "swap.npz")
    return root / "reference.npz", root / "swap.npz"


def test_write_overlays_and_file_overlays_agree(
    tmp_path: Path, trace_files: tuple[Path, Path], swap: tuple[Any, Trace, Comparison]
) -> None:
    ref, ours = trace_files
    module, trace, comparison = swap
    written = write_overlays(tmp_path / "od", module, trace, comparison)
    assert [p.name for p in written] == [f"{n}.json" for n in OVERLAYS]
    from_files = file_overlays(DATA / "model_swap.mlir.gz", ours, ref)
    assert list(from_files) == list(OVERLAYS)
    for path in written:
        on_disk, again = json.loads(path.read_text()), from_files[path.stem]
        assert set(on_disk) == set(again)
        for graph_id, graph in on_disk.items():
            # the same values from the saved traces (times too: the file keeps them)
            assert graph["results"] == again[graph_id]["results"], (path.stem, graph_id)
    assert from_files["max_abs_diff"]["main"]["name"] == f"max_abs_diff vs {ref}"
    times = _values(from_files["time_us"])
    assert times == pytest.approx({e.key: e.time * 1e6 for e in trace if e.key in times},
                                  abs=1e-3)


def test_file_overlays_errors(tmp_path: Path, trace_files: tuple[Path, Path]) -> None:
    ref, ours = trace_files
    with pytest.raises(StableHLOError, match="compares trace files only, not xla") as e:
        file_overlays(DATA / "model_swap.mlir.gz", ours, "xla")
    assert "--node-data-output=DIR" in str(e.value)
    other = tmp_path / "other.mlir"
    other.write_text(PROGRAM)
    with pytest.raises(StableHLOError, match="is not of .*: 1 of its 500 ops are ops of the"):
        file_overlays(other, ours)
    with pytest.raises(StableHLOError, match="no trace file"):
        file_overlays(DATA / "model_swap.mlir.gz", tmp_path / "missing.npz")
    with pytest.raises(StableHLOError, match="cannot write node data"):
        write_overlays(other / "dir", parse(PROGRAM), Trace(1))


def test_viewer_options(tmp_path: Path, trace_files: tuple[Path, Path]) -> None:
    ref, ours = trace_files
    args = parser().parse_args([str(DATA / "model_swap.mlir.gz"), f"--trace={ours}",
                                f"--compare-to={ref}"])
    assert list(_overlays(args)) == list(OVERLAYS)
    with pytest.raises(StableHLOError, match="add --trace"):
        _overlays(parser().parse_args(["f.mlir", f"--compare-to={ref}"]))
    with pytest.raises(StableHLOError, match="drop --vhlo"):
        _overlays(parser().parse_args(["f.shlo", "--vhlo", f"--trace={ours}"]))
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    one = tmp_path / "one.json"
    assert _node_data_files(f"{tmp_path}, {tmp_path / 'a.json'}") == [
        str(tmp_path / "a.json"), str(tmp_path / "b.json"), str(tmp_path / "a.json")]
    with pytest.raises(StableHLOError, match="no file or directory"):
        _node_data_files(str(one))
    (tmp_path / "empty").mkdir()
    with pytest.raises(StableHLOError, match="no .json file"):
        _node_data_files(str(tmp_path / "empty"))


def test_translate_node_data_output(tmp_path: Path, trace_files: tuple[Path, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = trace_files
    out = tmp_path / "od"
    inputs = f"--inputs={DATA / 'inputs.npz'}"
    rc = translate(["--interpret", str(DATA / "model_swap.mlir.gz"), inputs,
                    f"--compare-to={ref}", f"--node-data-output={out}"])
    assert rc == 1  # it differs from the reference
    assert "first diverging op: " + PLANTED["model_swap"] in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.json" for n in OVERLAYS)
    abs_diff = _values(json.loads((out / "max_abs_diff.json").read_text()))
    assert abs_diff[PLANTED["model_swap"]] > 0.1
    assert len(_values(json.loads((out / "time_us.json").read_text()))) > 400
    # without --compare-to: the run's own overlays
    alone = tmp_path / "alone"
    rc = translate(["--interpret", str(DATA / "model.mlir.gz"), inputs,
                    f"--node-data-output={alone}"])
    assert rc == 0
    assert sorted(p.name for p in alone.iterdir()) == ["inf_count.json", "nan_count.json",
                                                       "time_us.json"]
    rc = translate(["--interpret", str(DATA / "model.mlir.gz"), inputs,
                    f"--node-data-output={alone / 'nan_count.json' / 'x'}"])
    err = capsys.readouterr().err
    assert rc == 1 and "cannot write node data to" in err and "Traceback" not in err
