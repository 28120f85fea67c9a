"""Representative programs for the golden artifacts: one feature per function, each tagged with the
StableHLO version that introduced it.

The golden artifact of version V holds every feature with ``since <= V`` (so the newest features of
V are in it, serialized at target V).  Features marked ``run`` are called from ``@main`` (which takes
no arguments: each feature's inputs are constants in its function) and their results are compared
with the stored expected outputs; the others (collectives across devices, host transfers, custom
calls, buffers) are deserialized and printed but not interpreted.

The expected outputs come from an independent oracle, never from our interpreter
(``tests/golden/generate.py``): XLA through jaxlib where it runs the feature, else the feature's
``reference``, a hand-checked numpy function written out below from the spec (XLA:CPU has no
``collective_broadcast``, its HLO verifier refuses a promotable ``reduce``, and jaxlib's MLIR
context cannot parse ``!quant.uniform`` types; ``tests/golden/test_references.py`` runs these
references against the interpreter on harder inputs).

These are our own programs (written for stablehlo-py; upstream's test data is never copied).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Feature:
    name: str
    since: str
    """The StableHLO version that introduced the feature (the first golden that holds it)."""
    results: str
    """Result types of the function, e.g. ``tensor<2x3xf32>, tensor<i32>``."""
    body: str
    """Body of ``func.func @feat_<name>() -> (<results>)``, ending in its return."""
    run: bool = True
    extra: str = ""
    """Extra top-level functions the feature refers to (decompositions, callees)."""
    args: str = ""
    """Arguments of the function when ``run`` is False (non-interpreted features may take some)."""
    reference: Callable[[], list[Any]] | None = None
    """The oracle of a feature XLA cannot run: a numpy function returning its results, computed
    from the spec independently of the interpreter (None: the oracle is XLA)."""


# ----------------------------------------------------------------------------- numpy references
# Oracles for the features XLA cannot run.  Each follows the spec's definition step by step in
# numpy, sharing no code with the interpreter; the values are checked by hand in the comments.


def spec_collective_broadcast(
    operands: list[np.ndarray], replica_groups: list[list[int]]
) -> list[np.ndarray]:
    """``collective_broadcast`` (spec 1.20, has_dynamic_root = false) over a grid of
    ``len(operands)`` processes, ``operands[p]`` being the operand at process p: within each group
    every process receives the operand of the group's first process; a process in no group
    receives zeros."""
    results = [np.zeros_like(operands[p]) for p in range(len(operands))]
    for group in replica_groups:
        source = group[0]
        for p in group:
            results[p] = operands[source].copy()
    return results


def ref_collective_broadcast() -> list[np.ndarray]:
    """The golden runs with ``mhlo.num_replicas = 1`` and channel_handle 0 (cross_replica), groups
    [[0]]: replica 0 is its group's source, so it keeps its own operand [3, 4]."""
    x = np.array([3, 4], dtype=np.int64)
    (result,) = spec_collective_broadcast([x], [[0]])  # one replica
    return [result]


def spec_promotable_reduce_add(x: np.ndarray, init: np.generic, accumulation: Any) -> np.ndarray:
    """``reduce`` over dimension 0 with an ``add`` body on ``accumulation`` wider than the input
    (spec: the inputs and the init value are converted to the body's element type, then folded;
    here in ascending index order)."""
    acc = np.full(x.shape[1:], accumulation(init), dtype=accumulation)
    for row in x:
        for j in np.ndindex(*x.shape[1:]):
            acc[j] = acc[j] + accumulation(row[j])
    return acc


def ref_promotable_reduce() -> list[np.ndarray]:
    """``reduce`` whose body takes f64 while its input is f32: each column of [[1, 5, 3], [4, 2, 6]]
    is 0 + a + b in f64: [5, 7, 9]."""
    x = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], dtype=np.float32)
    return [spec_promotable_reduce_add(x, np.float32(0.0), np.float64)]


def promotable_reduce_body(x: str, x_type: str, result: str) -> str:
    """The promotable reduce feature's body: the f32 constant ``x`` (of ``x_type``) reduced over
    dimension 0 from an f32 zero by an ``add`` body on f64, giving ``result``
    (tests/golden/test_references.py runs it on a harder ``x``)."""
    return f"""
    %x = stablehlo.constant dense<{x}> : {x_type}
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.reduce"(%x, %z) ({{
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %s = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %s : tensor<f64>
    }}) {{dimensions = array<i64: 0>}} : ({x_type}, tensor<f32>) -> {result}
    return %0 : {result}"""


def spec_quantize_dequantize(
    x: np.ndarray,
    scales: np.ndarray,
    zero_points: np.ndarray,
    axis: int,
    storage: tuple[int, int] = (-128, 127),
) -> np.ndarray:
    """``uniform_dequantize(uniform_quantize(x))`` for a per-axis quantized type (spec
    ``quantize``/``dequantize``): along ``axis``, slice k has scale ``scales[k]`` and zero point
    ``zero_points[k]``; quantize is x / s + z, clamped to the storage range, rounded half to even;
    dequantize is (q - z) * s; all in f32, the expressed type."""
    shape = [1] * x.ndim
    shape[axis] = -1
    s = scales.astype(np.float32).reshape(shape)
    z = zero_points.astype(np.float32).reshape(shape)
    scaled = x.astype(np.float32) / s + z
    clamped = np.minimum(np.maximum(scaled, np.float32(storage[0])), np.float32(storage[1]))
    q = np.round(clamped)  # numpy rounds half to even, as round_nearest_even
    return ((q - z) * s).astype(np.float32)


def ref_per_axis_quantization() -> list[np.ndarray]:
    """``uniform_quantize`` then ``uniform_dequantize`` to ``!quant.uniform<i8:f32:1, {0.5:1,
    0.25:-2}>``.  Column 0: 1.0/0.5+1 = 3, 3.5/0.5+1 = 8; column 1: -2.0/0.25-2 = -10,
    0.25/0.25-2 = -1 (all within i8); dequantized (q - z) * s gives back [[1.0, -2.0], [3.5, 0.25]]
    (the golden's values round-trip exactly; tests/golden/test_references.py checks the rounding,
    the clamping and the axis on harder inputs)."""
    x = np.array([[1.0, -2.0], [3.5, 0.25]], dtype=np.float32)
    scales = np.array([0.5, 0.25], dtype=np.float32)
    zero_points = np.array([1, -2], dtype=np.int8)
    return [spec_quantize_dequantize(x, scales, zero_points, axis=1)]


def _convert_round_trip(name: str, since: str, values: str, *element_types: str) -> Feature:
    """The feature of new element types: an f32 constant of ``values`` converted to each of
    ``element_types`` and back (the results, in their order)."""
    n = len(values.split(", "))
    f32 = f"tensor<{n}xf32>"
    k = len(element_types)
    lines = [f"    %x = stablehlo.constant dense<[{values}]> : {f32}"]
    lines += [
        f"    %{i} = stablehlo.convert %x : ({f32}) -> tensor<{n}x{t}>"
        for i, t in enumerate(element_types)
    ]
    lines += [
        f"    %{k + i} = stablehlo.convert %{i} : (tensor<{n}x{t}>) -> {f32}"
        for i, t in enumerate(element_types)
    ]
    results = ", ".join([f32] * k)
    lines.append(f"    return {', '.join(f'%{k + i}' for i in range(k))} : {results}")
    return Feature(name, since, results, "\n" + "\n".join(lines))


FEATURES: tuple[Feature, ...] = (
    # ----------------------------------------------------------------------------- 0.9.0
    Feature(
        "elementwise",
        "0.9.0",
        "tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>",
        """
    %x = stablehlo.constant dense<[[-1.5, 0.0, 2.25], [3.0, -0.5, 7.0]]> : tensor<2x3xf32>
    %y = stablehlo.constant dense<[[0.5, 4.0, -2.0], [1.0, 2.0, 0.25]]> : tensor<2x3xf32>
    %0 = stablehlo.add %x, %y : tensor<2x3xf32>
    %1 = stablehlo.multiply %0, %y : tensor<2x3xf32>
    %2 = stablehlo.subtract %1, %x : tensor<2x3xf32>
    %3 = stablehlo.divide %2, %y : tensor<2x3xf32>
    %4 = stablehlo.maximum %3, %x : tensor<2x3xf32>
    %5 = stablehlo.minimum %4, %y : tensor<2x3xf32>
    %6 = stablehlo.abs %5 : tensor<2x3xf32>
    %7 = stablehlo.negate %6 : tensor<2x3xf32>
    %8 = stablehlo.exponential %7 : tensor<2x3xf32>
    %9 = stablehlo.log_plus_one %8 : tensor<2x3xf32>
    %10 = stablehlo.tanh %9 : tensor<2x3xf32>
    %11 = stablehlo.sqrt %8 : tensor<2x3xf32>
    %12 = stablehlo.rsqrt %8 : tensor<2x3xf32>
    %13 = stablehlo.power %11, %y : tensor<2x3xf32>
    %14 = stablehlo.sine %13 : tensor<2x3xf32>
    %15 = stablehlo.cosine %12 : tensor<2x3xf32>
    %16 = stablehlo.atan2 %14, %15 : tensor<2x3xf32>
    %17 = stablehlo.floor %x : tensor<2x3xf32>
    %18 = stablehlo.ceil %x : tensor<2x3xf32>
    %19 = stablehlo.round_nearest_even %x : tensor<2x3xf32>
    %20 = stablehlo.round_nearest_afz %x : tensor<2x3xf32>
    %21 = stablehlo.sign %x : tensor<2x3xf32>
    %22 = stablehlo.logistic %16 : tensor<2x3xf32>
    %23 = stablehlo.remainder %x, %y : tensor<2x3xf32>
    %24 = stablehlo.clamp %17, %22, %18 : tensor<2x3xf32>
    %25 = stablehlo.compare GT, %19, %20, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %26 = stablehlo.select %25, %21, %23 : tensor<2x3xi1>, tensor<2x3xf32>
    %27 = stablehlo.is_finite %10 : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %28 = stablehlo.and %25, %27 : tensor<2x3xi1>
    return %24, %26, %28 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>""",
    ),
    Feature(
        "integers",
        "0.9.0",
        "tensor<4xi32>, tensor<4xui8>, tensor<4xf32>",
        """
    %a = stablehlo.constant dense<[7, -12, 255, 1024]> : tensor<4xi32>
    %b = stablehlo.constant dense<[3, 5, 1, 7]> : tensor<4xi32>
    %0 = stablehlo.and %a, %b : tensor<4xi32>
    %1 = stablehlo.or %0, %b : tensor<4xi32>
    %2 = stablehlo.xor %1, %a : tensor<4xi32>
    %3 = stablehlo.not %2 : tensor<4xi32>
    %4 = stablehlo.shift_left %3, %b : tensor<4xi32>
    %5 = stablehlo.shift_right_arithmetic %4, %b : tensor<4xi32>
    %6 = stablehlo.shift_right_logical %a, %b : tensor<4xi32>
    %7 = stablehlo.popcnt %6 : tensor<4xi32>
    %8 = stablehlo.count_leading_zeros %6 : tensor<4xi32>
    %9 = stablehlo.remainder %a, %b : tensor<4xi32>
    %10 = stablehlo.divide %a, %b : tensor<4xi32>
    %11 = stablehlo.add %7, %8 : tensor<4xi32>
    %12 = stablehlo.multiply %11, %9 : tensor<4xi32>
    %13 = stablehlo.subtract %12, %10 : tensor<4xi32>
    %14 = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xui8>
    %15 = stablehlo.convert %13 : (tensor<4xi32>) -> tensor<4xf32>
    return %13, %14, %15 : tensor<4xi32>, tensor<4xui8>, tensor<4xf32>""",
    ),
    Feature(
        "constants",
        "0.9.0",
        "tensor<3xi1>, tensor<2xui64>, tensor<2xf16>, tensor<2xbf16>, tensor<2xf64>, tensor<2xcomplex<f32>>, tensor<4x4xf32>, tensor<2xi8>",
        """
    %0 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %1 = stablehlo.constant dense<[18446744073709551615, 3]> : tensor<2xui64>
    %2 = stablehlo.constant dense<[6.550400e+04, -0.000000e+00]> : tensor<2xf16>
    %3 = stablehlo.constant dense<[1.000000e+00, 3.389530e+38]> : tensor<2xbf16>
    %4 = stablehlo.constant dense<[0x7FF0000000000000, 0x7FF8000000000001]> : tensor<2xf64>
    %5 = stablehlo.constant dense<[(1.000000e+00,-2.000000e+00), (0.000000e+00,5.000000e-01)]> : tensor<2xcomplex<f32>>
    %6 = stablehlo.constant dense<2.500000e+00> : tensor<4x4xf32>
    %7 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xi1>, tensor<2xui64>, tensor<2xf16>, tensor<2xbf16>, tensor<2xf64>, tensor<2xcomplex<f32>>, tensor<4x4xf32>, tensor<2xi8>""",
    ),
    Feature(
        "data_movement",
        "0.9.0",
        "tensor<3x2xf32>, tensor<2x5xf32>, tensor<1x2xf32>, tensor<4x5xf32>, tensor<2x3xf32>, tensor<6xi32>, tensor<2x2xf32>, tensor<2x3xf32>",
        """
    %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %i = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %2 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %3 = stablehlo.concatenate %1, %2, dim = 1 : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
    %4 = stablehlo.slice %3 [1:2, 1:5:2] : (tensor<2x5xf32>) -> tensor<1x2xf32>
    %5 = stablehlo.pad %3, %z, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<2x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    %6 = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>
    %7 = stablehlo.iota dim = 0 : tensor<6xi32>
    %8 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %9 = stablehlo.dynamic_update_slice %x, %8, %i, %i : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %idx = stablehlo.constant dense<[[1], [0]]> : tensor<2x1xi32>
    %10 = "stablehlo.gather"(%x, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
    %11 = "stablehlo.scatter"(%x, %idx, %10) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
    return %0, %3, %4, %5, %6, %7, %10, %11 : tensor<3x2xf32>, tensor<2x5xf32>, tensor<1x2xf32>, tensor<4x5xf32>, tensor<2x3xf32>, tensor<6xi32>, tensor<2x2xf32>, tensor<2x3xf32>""",
    ),
    Feature(
        "reductions",
        "0.9.0",
        "tensor<3xf32>, tensor<2xi32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>",
        """
    %x = stablehlo.constant dense<[[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]> : tensor<2x3xf32>
    %n = stablehlo.constant dense<[[1, 5, 3], [4, 2, 6]]> : tensor<2x3xi32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.constant dense<-2147483648> : tensor<i32>
    %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.reduce(%n init: %m) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
    %2 = "stablehlo.reduce_window"(%x, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
    %3:2 = "stablehlo.sort"(%x, %n) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    %4 = "stablehlo.map"(%x, %x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %p = stablehlo.multiply %a, %b : tensor<f32>
      stablehlo.return %p : tensor<f32>
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3#0, %4 : tensor<3xf32>, tensor<2xi32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>""",
    ),
    Feature(
        "linalg",
        "0.9.0",
        "tensor<2x2xf32>, tensor<1x2x2x1xf32>",
        """
    %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %b = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %img = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
    %k = stablehlo.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
    %1 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
    return %0, %1 : tensor<2x2xf32>, tensor<1x2x2x1xf32>""",
    ),
    Feature(
        "control_flow",
        "0.9.0",
        "tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>",
        """
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %acc0 = stablehlo.constant dense<1.0> : tensor<f32>
    %0:2 = stablehlo.while(%i = %zero, %acc = %acc0) : tensor<i32>, tensor<f32>
    cond {
      %c = stablehlo.compare LT, %i, %ten, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %half = stablehlo.constant dense<1.5> : tensor<f32>
      %a1 = stablehlo.multiply %acc, %half : tensor<f32>
      stablehlo.return %i1, %a1 : tensor<i32>, tensor<f32>
    }
    %p = stablehlo.compare GT, %0#0, %one, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = "stablehlo.if"(%p) ({
      %n = stablehlo.negate %0#1 : tensor<f32>
      stablehlo.return %n : tensor<f32>
    }, {
      stablehlo.return %0#1 : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %2 = "stablehlo.case"(%one) ({
      stablehlo.return %acc0 : tensor<f32>
    }, {
      %s = stablehlo.add %1, %acc0 : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    %t = stablehlo.tuple %2, %0#0 : tuple<tensor<f32>, tensor<i32>>
    %3 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>
    %4 = func.call @feat_control_flow_helper(%3) : (tensor<f32>) -> tensor<f32>
    return %0#0, %1, %2, %4 : tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>""",
        extra="""
  func.func private @feat_control_flow_helper(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.multiply %x, %x : tensor<f32>
    return %0 : tensor<f32>
  }""",
    ),
    Feature(
        "unrun_ops",
        "0.9.0",
        "tensor<4xf32>, !stablehlo.token",
        """
    %0 = stablehlo.custom_call @my_kernel(%x) {backend_config = "opaque\\00bytes", has_side_effect = true, mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.send"(%x, %tok) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %2 = "stablehlo.all_reduce"(%0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    return %2, %1 : tensor<4xf32>, !stablehlo.token""",
        run=False,
        args="%x: tensor<4xf32>, %tok: !stablehlo.token",
    ),
    # ----------------------------------------------------------------------------- newer versions
    _convert_round_trip("fnuz_types", "0.10.0", "0.5, -3.0, 12.0, 0.0625", "f8E4M3FNUZ", "f8E5M2FNUZ"),
    _convert_round_trip("b11fnuz_type", "0.11.0", "0.5, -3.0, 12.0, 0.0625", "f8E4M3B11FNUZ"),
    Feature(
        "collective_broadcast",
        "0.16.0",
        "tensor<2xi64>",
        """
    %x = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2xi64>) -> tensor<2xi64>
    return %0 : tensor<2xi64>""",
        reference=ref_collective_broadcast,
    ),
    Feature(
        "promotable_reduce",
        "0.17.0",
        "tensor<3xf64>",
        promotable_reduce_body(
            "[[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]", "tensor<2x3xf32>", "tensor<3xf64>"
        ),
        reference=ref_promotable_reduce,
    ),
    Feature(
        "per_axis_quantization",
        "0.18.0",
        "tensor<2x2xf32>",
        """
    %x = stablehlo.constant dense<[[1.0, -2.0], [3.5, 0.25]]> : tensor<2x2xf32>
    %0 = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2}>>
    %1 = stablehlo.uniform_dequantize %0 : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2}>>) -> tensor<2x2xf32>
    return %1 : tensor<2x2xf32>""",
        reference=ref_per_axis_quantization,
    ),
    Feature(
        "composite",
        "0.19.0",
        "tensor<i64>",
        """
    %x = stablehlo.constant dense<40> : tensor<i64>
    %0 = stablehlo.composite "golden.add_two" %x {composite_attributes = {n = 2 : i64, tag = "golden"}, decomposition = @feat_composite_impl, version = 1 : i32} : (tensor<i64>) -> tensor<i64>
    return %0 : tensor<i64>""",
        extra="""
  func.func private @feat_composite_impl(%x: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %0 = stablehlo.add %x, %c : tensor<i64>
    return %0 : tensor<i64>
  }""",
    ),
    Feature(
        "batching_dims",
        "1.1.0",
        "tensor<2x1xf32>, tensor<2x3xf32>",
        """
    %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
    %0 = "stablehlo.gather"(%x, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x1xf32>
    %upd = stablehlo.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
    %1 = "stablehlo.scatter"(%x, %idx, %upd) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      stablehlo.return %b : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>} : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    return %0, %1 : tensor<2x1xf32>, tensor<2x3xf32>""",
    ),
    Feature(
        "int2_types",
        "1.2.0",
        "tensor<4xi32>, tensor<4xi32>",
        """
    %x = stablehlo.constant dense<[-2, -1, 0, 1]> : tensor<4xi2>
    %u = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xui2>
    %0 = stablehlo.convert %x : (tensor<4xi2>) -> tensor<4xi32>
    %1 = stablehlo.convert %u : (tensor<4xui2>) -> tensor<4xi32>
    return %0, %1 : tensor<4xi32>, tensor<4xi32>""",
    ),
    Feature(
        "custom_call_dict_config",
        "1.3.0",
        "tensor<f32>",
        """
    %0 = stablehlo.custom_call @my_ffi_kernel(%x) {api_version = 4 : i32, backend_config = {alpha = 4.200000e+01 : f32, name = "k", n = 3 : i32}} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>""",
        run=False,
        args="%x: tensor<f32>",
    ),
    Feature(
        "tan",
        "1.4.0",
        "tensor<3xf32>",
        """
    %x = stablehlo.constant dense<[0.0, 0.5, -1.0]> : tensor<3xf32>
    %0 = stablehlo.tan %x : tensor<3xf32>
    return %0 : tensor<3xf32>""",
    ),
    Feature(
        "variadic_collectives",
        "1.5.0",
        "tensor<2xf32>, tensor<3xi32>",
        """
    %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %y = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
    %0:2 = "stablehlo.all_gather"(%x, %y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>, tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>)
    return %0#0, %0#1 : tensor<2xf32>, tensor<3xi32>""",
    ),
    Feature(
        "dot_algorithm",
        "1.6.0",
        "tensor<2x2xf32>",
        """
    %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %b = stablehlo.constant dense<[[0.5, 0.0], [0.0, 2.0]]> : tensor<2x2xf32>
    %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>""",
    ),
    _convert_round_trip("f8_e4m3_e3m4", "1.7.0", "0.5, -3.0, 12.0", "f8E4M3", "f8E3M4"),
    Feature(
        "mx_types",
        "1.8.0",
        "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>",
        """
    %x = stablehlo.constant dense<[0.5, -3.0, 4.0]> : tensor<3xf32>
    %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
    %1 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf6E2M3FN>
    %2 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf6E3M2FN>
    %p = stablehlo.abs %x : tensor<3xf32>
    %3 = stablehlo.convert %p : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
    %4 = stablehlo.convert %0 : (tensor<3xf4E2M1FN>) -> tensor<3xf32>
    %5 = stablehlo.convert %1 : (tensor<3xf6E2M3FN>) -> tensor<3xf32>
    %6 = stablehlo.convert %2 : (tensor<3xf6E3M2FN>) -> tensor<3xf32>
    %7 = stablehlo.convert %3 : (tensor<3xf8E8M0FNU>) -> tensor<3xf32>
    return %4, %5, %6, %7 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>""",
    ),
    Feature(
        "exp_accuracy",
        "1.9.0",
        "tensor<2xf32>",
        """
    %x = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
    %0 = stablehlo.exponential %x {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
    return %0 : tensor<2xf32>""",
    ),
    Feature(
        "unary_accuracy",
        "1.10.0",
        "tensor<2xf32>, tensor<2xf32>",
        """
    %x = stablehlo.constant dense<[0.25, 1.0]> : tensor<2xf32>
    %0 = stablehlo.cosine %x {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<2xf32>
    %1 = stablehlo.log %x {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 1.000000e-06, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>""",
    ),
    Feature(
        "send_recv_pairs",
        "1.12.0",
        "tensor<f32>, !stablehlo.token",
        """
    %0:2 = "stablehlo.recv"(%tok) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    return %0#0, %0#1 : tensor<f32>, !stablehlo.token""",
        run=False,
        args="%tok: !stablehlo.token",
    ),
    Feature(
        "composite_regions",
        "1.14.0",
        "tensor<f32>",
        """
    %x = stablehlo.constant dense<2.5> : tensor<f32>
    %0 = "stablehlo.composite"(%x) ({
    ^bb0(%a: tensor<f32>):
      stablehlo.return %a : tensor<f32>
    }) {name = "golden.identity", decomposition = @feat_composite_regions_impl, version = 2 : i32} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>""",
        run=False,
        extra="""
  func.func private @feat_composite_regions_impl(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }""",
    ),
    Feature(
        "async_collectives",
        "1.15.0",
        "tensor<2xf32>",
        """
    %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %0 = "stablehlo.async_start"(%x) ({
    ^bb0(%b: tensor<2xf32>):
      %1 = "stablehlo.all_reduce"(%b) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      stablehlo.return %1 : tensor<2xf32>
    }) : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
    %2 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
    return %2 : tensor<2xf32>""",
    ),
    Feature(
        "mesh_replica_groups",
        "1.16.0",
        "tensor<f32>",
        """
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @golden_mesh, axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>""",
        run=False,
        args="%x: tensor<f32>",
        extra="""
  func.func private @golden_mesh()""",
    ),
    Feature(
        "custom_call_future",
        "1.17.0",
        "!stablehlo.future<tensor<2xf32>>",
        """
    %0 = stablehlo.custom_call @start_copy(%x) {api_version = 4 : i32} : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
    return %0 : !stablehlo.future<tensor<2xf32>>""",
        run=False,
        args="%x: tensor<2xf32>",
    ),
    Feature(
        "result_tilings",
        "1.18.0",
        "tensor<8x128xf32>",
        """
    %0 = "stablehlo.custom_call"(%x) {api_version = 2 : i32, call_target_name = "tiled", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>], result_tilings = [[dense<[8, 128]> : tensor<2xindex>]]} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>""",
        run=False,
        args="%x: tensor<8x128xf32>",
    ),
    Feature(
        "collective_reduce",
        "1.19.0",
        "tensor<f32>",
        """
    %0 = "stablehlo.collective_reduce"(%x, %root) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, has_dynamic_root} : (tensor<f32>, tensor<1xi32>) -> tensor<f32>
    return %0 : tensor<f32>""",
        run=False,
        args="%x: tensor<f32>, %root: tensor<1xi32>",
    ),
    Feature(
        "dynamic_root_broadcast",
        "1.20.0",
        "tensor<4xf32>",
        """
    %0 = "stablehlo.collective_broadcast"(%x, %root) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, has_dynamic_root} : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>""",
        run=False,
        args="%x: tensor<4xf32>, %root: tensor<1xi32>",
    ),
)


def features_at(version: str) -> list[Feature]:
    from stablehlo_py.version import Version

    v = Version.from_string(version)
    return [f for f in FEATURES if Version.from_string(f.since) <= v]


def program(version: str) -> str:
    """The golden program of ``version``: every feature up to it, and ``@main`` calling the ones that
    run (results in feature order)."""
    feats = features_at(version)
    lines = [
        f"module @golden_v{version.replace('.', '_')} attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{"
    ]
    main_results: list[str] = []
    main_body: list[str] = []
    for f in feats:
        lines.append(
            f"  func.func private @feat_{f.name}({f.args}) -> ({f.results}) {{{f.body}\n  }}"
        )
        if f.extra:
            lines.append(f.extra.strip("\n"))
        if f.run:
            types = [t.strip() for t in _split_types(f.results)]
            names = f"%{f.name}" + (f":{len(types)}" if len(types) > 1 else "")
            main_body.append(f"    {names} = func.call @feat_{f.name}() : () -> ({f.results})")
            for i, t in enumerate(types):
                main_results.append((f"%{f.name}#{i}" if len(types) > 1 else f"%{f.name}", t))
    ret_vals = ", ".join(v for v, _ in main_results)
    ret_types = ", ".join(t for _, t in main_results)
    lines.append(f"  func.func public @main() -> ({ret_types}) {{")
    lines.extend(main_body)
    lines.append(f"    return {ret_vals} : {ret_types}")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def feature_module(f: Feature) -> str:
    """A module whose public ``@main`` is the feature alone (what the oracle runs)."""
    return (
        "module {\n"
        + f"  func.func public @main() -> ({f.results}) {{{f.body}\n  }}\n"
        + f.extra
        + "\n}\n"
    )


def outputs_of(version: str) -> list[tuple[Feature, int]]:
    """For each result of the golden ``@main`` of ``version``, in order: (feature, result index)."""
    return [
        (f, i)
        for f in features_at(version)
        if f.run
        for i in range(len(_split_types(f.results)))
    ]


def _split_types(text: str) -> list[str]:
    """Split a comma-separated type list at top level (types contain commas inside <...>)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out
