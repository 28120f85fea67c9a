"""interpreter.run_parallel's processes handed to a host (impls/interpreter_ops.py `ParallelHost`,
the MPI engine's interpreter/mpi/parallel.py), and how a process's results travel between ranks
(`pack_results` / `unpack_results`); no MPI needed."""

from __future__ import annotations

import json
from typing import Any

import ml_dtypes
import numpy as np
from stablehlo_py.interpreter.evaluator import TOKEN, Evaluator, Token
from stablehlo_py.interpreter.impls.interpreter_ops import PARALLEL_HOST
from stablehlo_py.interpreter.impls.process_grid import ProcessGrid
from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.interpreter.mpi.parallel import pack_results, unpack_results

from stablehlo_py.ir import parse


def _travel(values: list[Any]) -> list[Any]:
    """`values` as another rank gets them: structure as JSON, arrays through wire's bytes."""
    structure, leaves = pack_results(values)
    header, buffers = wire.encode(leaves)
    arrays = wire.decode(header, [bytes(np.asarray(b).reshape(-1).view(np.uint8)) for b in buffers])
    return unpack_results(json.loads(json.dumps(structure)), arrays)


def test_results_travel_with_tokens_tuples_scalars_and_bits() -> None:
    nan = np.array([0x7FC1, 0x8000], np.uint16).view(ml_dtypes.bfloat16)  # NaN payload, -0.0
    values = [
        TOKEN,
        np.float32(-0.0),
        nan,
        (np.arange(3, dtype=np.int8), TOKEN, (np.array(1 + 2j, np.complex64),)),
        np.zeros((0, 2), np.uint8),
        np.array(True),
    ]
    got = _travel(values)
    assert isinstance(got[0], Token)
    assert isinstance(got[1], np.float32) and np.signbit(got[1])
    assert got[2].dtype == ml_dtypes.bfloat16
    assert got[2].view(np.uint16).tolist() == [0x7FC1, 0x8000]
    assert isinstance(got[3], tuple) and isinstance(got[3][1], Token)
    assert got[3][0].tolist() == [0, 1, 2] and got[3][0].dtype == np.int8
    assert isinstance(got[3][2], tuple) and got[3][2][0] == np.complex64(1 + 2j)
    assert got[4].shape == (0, 2) and got[4].dtype == np.uint8
    assert isinstance(got[5], np.ndarray) and got[5].shape == () and bool(got[5])


PROGRAM = """
func.func @ids(%x: tensor<i64>, %t: !stablehlo.token) -> (tensor<i64>, tensor<ui32>, tensor<2xi64>, !stablehlo.token) {
  %r = stablehlo.replica_id : tensor<ui32>
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %x, %r, %v#0, %v#1 : tensor<i64>, tensor<ui32>, tensor<2xi64>, !stablehlo.token
}
func.func @inner() -> tensor<ui32> {
  %q = stablehlo.partition_id : tensor<ui32>
  return %q : tensor<ui32>
}
func.func @nested() -> (tensor<ui32>, tensor<ui32>) {
  %r:2 = "interpreter.run_parallel"() {programs = [[@inner, @inner]]} : () -> (tensor<ui32>, tensor<ui32>)
  return %r#0, %r#1 : tensor<ui32>, tensor<ui32>
}
func.func @seven() -> tensor<2xi64> {
  %c = stablehlo.constant dense<7> : tensor<2xi64>
  return %c : tensor<2xi64>
}
func.func @eight() -> tensor<2xi64> {
  %c = stablehlo.constant dense<8> : tensor<2xi64>
  return %c : tensor<2xi64>
}
func.func @main() -> (tensor<i64>, tensor<ui32>, tensor<2xi64>, tensor<i64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>, tensor<ui32>) {
  %a = stablehlo.constant dense<3> : tensor<i64>
  %b = stablehlo.constant dense<4> : tensor<i64>
  %t = stablehlo.after_all : !stablehlo.token
  %r:8 = "interpreter.run_parallel"(%a, %t, %b, %t) {infeed = [@seven, @eight], programs = [[@ids], [@ids]]}
    : (tensor<i64>, !stablehlo.token, tensor<i64>, !stablehlo.token)
      -> (tensor<i64>, tensor<ui32>, tensor<2xi64>, !stablehlo.token, tensor<i64>, tensor<ui32>, tensor<2xi64>, !stablehlo.token)
  %n:2 = "interpreter.run_parallel"() {programs = [[@nested]]} : () -> (tensor<ui32>, tensor<ui32>)
  return %r#0, %r#1, %r#2, %r#4, %r#5, %r#6, %n#0, %n#1 : tensor<i64>, tensor<ui32>, tensor<2xi64>, tensor<i64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>, tensor<ui32>
}
"""


class SequentialHost:
    """Runs a run_parallel's processes one after the other on a threaded grid's queues (the
    programs here meet at no collective), recording each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, list[str], int]] = []

    def run_processes(self, ev: Any, num_replicas: int, num_partitions: int,
                      infeed: list[str], processes: list[Any]) -> list[Any]:
        self.calls.append((num_replicas, num_partitions, list(infeed), len(processes)))
        grid = ProcessGrid(num_replicas, num_partitions, infeed)
        return [p(grid) for p in processes]


def test_a_host_runs_the_processes_and_its_answer_is_the_ops_results() -> None:
    host = SequentialHost()
    ev = Evaluator(parse(PROGRAM))
    setattr(ev, PARALLEL_HOST, host)
    got = ev.call("main", [])
    # the nested run_parallel (inside process @nested) ran in threads, not through the host
    assert host.calls == [(2, 1, ["seven", "eight"], 2), (1, 1, [], 1)]
    assert [np.asarray(v).tolist() for v in got] == [3, 0, [7, 7], 4, 1, [8, 8], 0, 1]
    threads = Evaluator(parse(PROGRAM)).call("main", [])
    assert [np.asarray(v).tolist() for v in threads] == [np.asarray(v).tolist() for v in got]
