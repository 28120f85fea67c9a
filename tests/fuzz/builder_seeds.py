"""Valid calls of the builder's op functions whose parameters a random draw rarely gets right
(dimension numbers, regions, result types), for tests/fuzz/builder_fuzzing.py to mutate.

``SEEDS[op]`` is (the function's argument types, ``call(values) -> (args, kwargs)``): called
inside the function body with its block arguments; it may build helper ops (a tuple for
get_tuple_element) before the call under test.  Elementwise ops need no seed: the random draw
gives them operands of one type often enough.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablehlo_py.builder import tensor
from stablehlo_py.builder import stablehlo as hlo

Call = Callable[[Sequence[Any]], tuple[tuple[Any, ...], dict[str, Any]]]

F2 = tensor((2,), "f32")
F3 = tensor((3,), "f32")
F4 = tensor((4,), "f32")
F22 = tensor((2, 2), "f32")
F23 = tensor((2, 3), "f32")
F32_ = tensor((3, 2), "f32")
F43 = tensor((4, 3), "f32")
F44 = tensor((4, 4), "f32")
F0 = tensor((), "f32")
I0 = tensor((), "i32")
I2 = tensor((2,), "i32")
P0 = tensor((), "i1")
P2 = tensor((2,), "i1")
C4 = tensor((4,), "complex<f32>")
IDX = tensor((2, 1), "i32")
X4 = tensor((1, 8, 8, 4), "f32")
W4 = tensor((3, 3, 4, 4), "f32")
TOKEN = "!stablehlo.token"
Q2 = "tensor<2x!quant.uniform<i8:f32, 1.0>>"
U64 = tensor((2,), "ui64")

GATHER = {
    "offset_dims": [1],
    "collapsed_slice_dims": [0],
    "start_index_map": [0],
    "index_vector_dim": 1,
}
SCATTER = {
    "update_window_dims": [],
    "inserted_window_dims": [0],
    "scatter_dims_to_operand_dims": [0],
    "index_vector_dim": 1,
}
CONTRACT = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
GROUPS = [[0]]


def _add(a: Any, b: Any) -> Any:
    return hlo.add(a, b)


def _less(a: Any, b: Any) -> Any:
    return hlo.compare(a, b, "LT")


def _ge(a: Any, b: Any) -> Any:
    return hlo.compare(a, b, "GE")


def _count_below_10(i: Any) -> Any:
    return hlo.compare(i, 10, "LT")


def _increment(i: Any) -> Any:
    return hlo.add(i, 1)


def _scan_body(x: Any, c: Any) -> Any:
    s = hlo.add(x, c)
    return s, s


def _permute(a: Any) -> Any:
    return hlo.collective_permute(a, [[0, 1]])


def _double(a: Any) -> Any:
    return hlo.add(a, a)


# fmt: off
SEEDS: dict[str, tuple[list[Any], Call]] = {
    "stablehlo.broadcast": ([F2], lambda v: ((v[0], [3]), {})),
    "stablehlo.broadcast_in_dim": ([F2], lambda v: ((v[0], [1]), {"result_type": F32_})),
    "stablehlo.reshape": ([F23], lambda v: ((v[0],), {"result_type": F32_})),
    "stablehlo.iota": ([], lambda v: ((0,), {"result_type": ((4,), "i32")})),
    "stablehlo.concatenate": ([F23, F23], lambda v: (([v[0], v[1]],), {"dimension": 0})),
    "stablehlo.transpose": ([F23], lambda v: ((v[0], [1, 0]), {})),
    "stablehlo.slice": ([F23], lambda v: ((v[0], [0, 0], [1, 2], [1, 1]), {})),
    "stablehlo.dynamic_slice": ([F44, I0], lambda v: ((v[0], [v[1], 1]), {"slice_sizes": [2, 2]})),
    "stablehlo.dynamic_update_slice": ([F44, F22, I0], lambda v: ((v[0], v[1], [v[2], 0]), {})),
    "stablehlo.gather": ([F44, IDX], lambda v: ((v[0], v[1], GATHER), {"slice_sizes": [1, 4]})),
    "stablehlo.dynamic_gather": ([F44, IDX], lambda v: ((v[0], v[1], [1, 4], GATHER), {})),
    "stablehlo.scatter": ([F4, IDX, F2], lambda v: (([v[0]], v[1], [v[2]], SCATTER), {"update_computation": _add})),
    "stablehlo.pad": ([F2], lambda v: ((v[0], 0.0, [1], [1], [0]), {})),
    "stablehlo.reverse": ([F23], lambda v: ((v[0], [0]), {})),
    "stablehlo.reduce": ([F23], lambda v: (([v[0]], [0.0]), {"dimensions": [1], "body": _add})),
    "stablehlo.reduce_window": ([F44], lambda v: (([v[0]], [0.0]), {"window_dimensions": [2, 2], "body": _add})),
    "stablehlo.select_and_scatter": ([F44, F22], lambda v: ((v[0], v[1], 0.0), {"window_dimensions": [2, 2], "window_strides": [2, 2], "select": _ge, "scatter": _add})),
    "stablehlo.sort": ([F23], lambda v: (([v[0]],), {"dimension": 1, "comparator": _less})),
    "stablehlo.map": ([F2, F2], lambda v: (([v[0], v[1]],), {"dimensions": [0], "computation": _add})),
    "stablehlo.while": ([I0], lambda v: (([v[0]],), {"cond": _count_below_10, "body": _increment})),
    "stablehlo.if": ([P0, F2], lambda v: ((v[0],), {"true_branch": lambda: v[1], "false_branch": lambda: v[1]})),
    "stablehlo.case": ([I0, F2], lambda v: ((v[0],), {"branches": [lambda: v[1], lambda: v[1]]})),
    "stablehlo.dot_general": ([F23, F32_], lambda v: ((v[0], v[1], CONTRACT), {})),
    "stablehlo.dot": ([F23, F32_], lambda v: ((v[0], v[1]), {})),
    "stablehlo.convolution": ([X4, W4], lambda v: ((v[0], v[1]), {"dimension_numbers": ("NHWC", "HWIO", "NHWC"), "padding": "SAME"})),
    "stablehlo.dynamic_conv": ([X4, W4], lambda v: ((v[0], v[1], [[1, 1], [1, 1]]), {"dimension_numbers": "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"})),
    "stablehlo.fft": ([C4], lambda v: ((v[0], "FFT", [4]), {})),
    "stablehlo.cholesky": ([F44], lambda v: ((v[0],), {"lower": True})),
    "stablehlo.triangular_solve": ([F44, F44], lambda v: ((v[0], v[1], True, True, False, "NO_TRANSPOSE"), {})),
    "stablehlo.batch_norm_inference": ([F23, F3], lambda v: ((v[0], v[1], v[1], v[1], v[1], 1e-5, 1), {})),
    "stablehlo.batch_norm_training": ([F23, F3], lambda v: ((v[0], v[1], v[1], 1e-5, 1), {})),
    "stablehlo.batch_norm_grad": ([F23, F3], lambda v: ((v[0], v[1], v[1], v[1], v[0], 1e-5, 1), {})),
    "stablehlo.get_dimension_size": ([F23], lambda v: ((v[0], 1), {})),
    "stablehlo.set_dimension_size": ([F23], lambda v: ((v[0], 2, 0), {})),
    "stablehlo.get_tuple_element": ([F2], lambda v: ((hlo.tuple([v[0], v[0]]), 1), {})),
    "stablehlo.tuple": ([F2, I0], lambda v: (([v[0], v[1]],), {})),
    "stablehlo.after_all": ([TOKEN, TOKEN], lambda v: (([v[0], v[1]],), {})),
    "stablehlo.optimization_barrier": ([F2, I0], lambda v: (([v[0], v[1]],), {})),
    "stablehlo.outfeed": ([F2, TOKEN], lambda v: (([v[0]], v[1]), {"outfeed_config": "x"})),
    "stablehlo.infeed": ([TOKEN], lambda v: ((v[0],), {"result_type": [F2, TOKEN]})),
    "stablehlo.send": ([F2, TOKEN], lambda v: (([v[0]], v[1]), {"channel_handle": (1, 1)})),
    "stablehlo.recv": ([TOKEN], lambda v: ((v[0],), {"channel_handle": (2, 1), "result_type": [F2, TOKEN]})),
    "stablehlo.all_gather": ([F23], lambda v: (([v[0]], 0), {"replica_groups": GROUPS, "result_type": [F23]})),
    "stablehlo.all_reduce": ([F23], lambda v: (([v[0]],), {"replica_groups": GROUPS, "computation": _add})),
    "stablehlo.all_to_all": ([F44], lambda v: (([v[0]], 0, 0, 1, GROUPS), {})),
    "stablehlo.collective_broadcast": ([F2], lambda v: (([v[0]],), {"replica_groups": GROUPS})),
    "stablehlo.collective_permute": ([F2], lambda v: ((v[0], [[0, 1]]), {})),
    "stablehlo.collective_reduce": ([F2], lambda v: (([v[0]],), {"replica_groups": GROUPS, "computation": _add})),
    "stablehlo.cross-replica-sum": ([F2], lambda v: ((v[0], GROUPS), {})),
    "stablehlo.reduce_scatter": ([F44], lambda v: ((v[0], 0), {"replica_groups": GROUPS, "computation": _add, "result_type": F44})),
    "stablehlo.async_start": ([F2], lambda v: (([v[0]],), {"body": _permute, "result_type": "!stablehlo.future<tensor<2xf32>>"})),
    "stablehlo.composite": ([F2], lambda v: (([v[0]], "my.double"), {"decomposition": _double, "version": 1})),
    "stablehlo.custom_call": ([F2], lambda v: (([v[0]], "foo"), {"result_type": F2, "backend_config": "cfg"})),
    "stablehlo.rng": ([], lambda v: ((0.0, 1.0, [2, 3], "UNIFORM"), {})),
    "stablehlo.rng_bit_generator": ([U64], lambda v: ((v[0], "DEFAULT"), {"result_type": [U64, ((4,), "ui32")]})),
    "stablehlo.reduce_precision": ([F2], lambda v: ((v[0], 5, 10), {})),
    "stablehlo.bitcast_convert": ([F2], lambda v: ((v[0], "i32"), {})),
    "stablehlo.convert": ([F2], lambda v: ((v[0], "i32"), {})),
    "stablehlo.uniform_quantize": ([F2], lambda v: ((v[0],), {"result_type": Q2})),
    "stablehlo.uniform_dequantize": ([Q2], lambda v: ((v[0],), {})),
    "stablehlo.dynamic_broadcast_in_dim": ([F2], lambda v: ((v[0], [3, 2], [1]), {"result_type": F32_})),
    "stablehlo.dynamic_reshape": ([F23], lambda v: ((v[0], [3, 2]), {"result_type": F32_})),
    "stablehlo.dynamic_iota": ([], lambda v: (([4], 0), {"result_type": ((4,), "i32")})),
    "stablehlo.dynamic_pad": ([F2], lambda v: ((v[0], 0.0, [1], [1], [0]), {"result_type": F4})),
    "stablehlo.real_dynamic_slice": ([F23], lambda v: ((v[0], [0, 0], [1, 2], [1, 1]), {"result_type": ((1, 2), "f32")})),
    "stablehlo.torch_index_select": ([F44, I2], lambda v: ((v[0], v[1], 0, 0), {"result_type": ((2, 4), "f32")})),
    "stablehlo.einsum": ([F23, F32_], lambda v: ((v[0], v[1], "ij,jk->ik"), {"result_type": F22})),
    "stablehlo.unary_einsum": ([F23], lambda v: ((v[0], "ij->ji"), {"result_type": F32_})),
    "stablehlo.select": ([P2, F2], lambda v: ((v[0], v[1], v[1]), {})),
    "stablehlo.clamp": ([F2], lambda v: ((0.0, v[0], 1.0), {})),
    "stablehlo.compare": ([F2], lambda v: ((v[0], 1.0, "LT"), {"compare_type": "FLOAT"})),
    "stablehlo.constant": ([], lambda v: (([[1, 2]],), {})),
    "chlo.constant": ([], lambda v: (([[1, 2]],), {})),
    "chlo.constant_like": ([F23], lambda v: ((v[0], 1.5), {})),
    "chlo.broadcast_select": ([P2, F2], lambda v: ((v[0], v[1], v[1]), {})),
    "chlo.broadcast_compare": ([F3, F23], lambda v: ((v[0], v[1], "LT"), {})),
    "chlo.broadcast_add": ([F3, F23], lambda v: ((v[0], v[1]), {"broadcast_dimensions": [1]})),
    "chlo.top_k": ([F23], lambda v: ((v[0], 2), {})),
    "chlo.scan": ([F43, F3], lambda v: (([v[0]], [v[1]], 0), {"body": _scan_body})),
    "chlo.ragged_dot": ([F23, tensor((2, 3, 4), "f32"), I2], lambda v: ((v[0], v[1], v[2], {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [1], "lhs_ragged_dimensions": [0], "rhs_group_dimensions": [0]}), {})),
    "chlo.minimum_broadcast_shapes": ([tensor((2,), "index")], lambda v: (([v[0], v[0]],), {"result_type": [tensor((2,), "index")] * 2})),
}
"""op -> (the function's argument types, the call)."""
# fmt: on
