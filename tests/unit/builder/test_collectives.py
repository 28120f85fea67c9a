"""Collective ops built with the builder, run on the interpreter's single process (a 1 x 1 grid:
every replica group is [[0]]), where each collective's result is defined by the spec.  (A channel handle's type does not survive a portable artifact: VHLO keeps only the
handle, as upstream's channel_id, so these programs use type 0.)"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program


def test_collectives_on_one_process() -> None:
    m = Module(attributes={"mhlo.num_replicas": np.int32(1), "mhlo.num_partitions": np.int32(1)})

    @m.func(tensor((2, 4), "f32"))
    def main(x):
        s = hlo.all_reduce(x, replica_groups=[[0]], channel_handle=(1, 0), computation=hlo.add)
        g = hlo.all_gather(x, all_gather_dim=1, replica_groups=[[0]], result_type=x.type)
        t = hlo.all_to_all(
            x, split_dimension=1, concat_dimension=1, split_count=1, replica_groups=[[0]]
        )
        p = hlo.collective_permute(
            x, source_target_pairs=[[0, 0]], channel_handle={"handle": 2, "type": 0}
        )
        rs = hlo.reduce_scatter(
            x, scatter_dimension=1, replica_groups=[[0]], computation=hlo.add, result_type=x.type
        )
        b = hlo.collective_broadcast(x, replica_groups=[[0]])
        rid = hlo.replica_id()
        pid = hlo.partition_id()
        return s, g, t, p, rs, b, rid, pid

    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    text = check_program(m, [x], [x, x, x, x, x, x, np.uint32(0), np.uint32(0)])
    assert "channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>" in text
    assert "replica_groups = dense<0> : tensor<1x1xi64>" in text
