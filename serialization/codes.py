"""Wire codes of portable artifacts: append-only enums.

* **Op codes** are this module's own enum: the position of a VHLO op fork in :data:`OP_CODES`.  Upstream's
  MLIR bytecode names ops by string, so there is no upstream code to reuse.  The tuple was filled once
  from ``specs/ops.toml`` (stablehlo-py 0.1.0, StableHLO 1.20.0) and is **append-only**: a new fork gets
  the next code at the end; a fork that leaves the opset keeps its code forever (its slot is never
  reused), so every artifact ever written keeps decoding.  The first 120 codes went to the forks that
  were current then (msgpack writes codes below 128 in one byte), the 25 older forks followed.
* **Type and attribute codes** are upstream's ``TypeCode`` / ``AttributeCode`` enums from
  VhloBytecode.cpp, recorded per row of ``specs/types.toml`` as ``bytecode_code`` (also append-only
  upstream).  Types and attributes are two namespaces, told apart by each entry's kind.

``tests/unit/serialization/test_codes.py`` checks that every op, type and attribute of the spec tables
has exactly one code, and the schema lint (``serialization/schema_lint.py``) checks that no code moved
relative to the committed fingerprint.
"""

from __future__ import annotations

from functools import cache

from stablehlo_py import specs

__all__ = [
    "OP_CODES",
    "attr_code",
    "attr_name_for_code",
    "op_code",
    "op_name_for_code",
    "type_code",
    "type_name_for_code",
]

OP_CODES: tuple[str, ...] = (
    # 0..119: the forks current at StableHLO 1.20.0, in table order (one-byte codes)
    "abs_v1",
    "add_v1",
    "after_all_v1",
    "all_gather_v2",
    "all_reduce_v2",
    "all_to_all_v2",
    "and_v1",
    "async_start_v1",
    "async_done_v1",
    "atan2_v1",
    "batch_norm_grad_v1",
    "batch_norm_inference_v1",
    "batch_norm_training_v1",
    "bitcast_convert_v1",
    "broadcast_in_dim_v1",
    "broadcast_v1",
    "call_v1",
    "case_v1",
    "cbrt_v2",
    "ceil_v1",
    "cholesky_v1",
    "clamp_v1",
    "count_leading_zeros_v1",
    "collective_broadcast_v2",
    "collective_reduce_v1",
    "collective_permute_v1",
    "compare_v1",
    "complex_v1",
    "composite_v2",
    "concatenate_v1",
    "constant_v1",
    "convert_v1",
    "convolution_v1",
    "cosine_v2",
    "create_token_v1",
    "cross-replica-sum_v1",
    "custom_call_v2",
    "divide_v1",
    "dot_general_v2",
    "dot_v1",
    "dynamic_broadcast_in_dim_v1",
    "dynamic_conv_v2",
    "dynamic_gather_v2",
    "dynamic_iota_v1",
    "dynamic_pad_v1",
    "dynamic_reshape_v1",
    "dynamic_slice_v1",
    "dynamic_update_slice_v1",
    "einsum_v1",
    "exponential_minus_one_v2",
    "exponential_v2",
    "fft_v1",
    "floor_v1",
    "func_v1",
    "gather_v2",
    "get_dimension_size_v1",
    "get_tuple_element_v1",
    "if_v1",
    "imag_v1",
    "infeed_v1",
    "iota_v1",
    "is_finite_v1",
    "log_plus_one_v2",
    "logistic_v2",
    "log_v2",
    "map_v1",
    "maximum_v1",
    "minimum_v1",
    "multiply_v1",
    "negate_v1",
    "not_v1",
    "optimization_barrier_v1",
    "or_v1",
    "outfeed_v1",
    "pad_v1",
    "partition_id_v1",
    "popcnt_v1",
    "power_v1",
    "real_dynamic_slice_v1",
    "real_v1",
    "recv_v2",
    "reduce_v1",
    "reduce_precision_v1",
    "reduce_scatter_v1",
    "reduce_window_v1",
    "remainder_v1",
    "replica_id_v1",
    "reshape_v1",
    "return_v1",
    "reverse_v1",
    "rng_bit_generator_v1",
    "rng_v1",
    "round_nearest_even_v1",
    "round_nearest_afz_v1",
    "rsqrt_v2",
    "scatter_v2",
    "select_and_scatter_v1",
    "select_v1",
    "send_v2",
    "set_dimension_size_v1",
    "shift_left_v1",
    "shift_right_arithmetic_v1",
    "shift_right_logical_v1",
    "sign_v1",
    "sine_v2",
    "slice_v1",
    "sort_v1",
    "sqrt_v2",
    "subtract_v1",
    "tan_v2",
    "tanh_v2",
    "torch_index_select_v1",
    "transpose_v1",
    "triangular_solve_v1",
    "tuple_v1",
    "unary_einsum_v1",
    "uniform_dequantize_v1",
    "uniform_quantize_v1",
    "while_v1",
    "xor_v1",
    # 120..144: the older forks, in table order
    "all_gather_v1",
    "all_reduce_v1",
    "all_to_all_v1",
    "cbrt_v1",
    "collective_broadcast_v1",
    "composite_v1",
    "cosine_v1",
    "custom_call_v1",
    "dot_general_v1",
    "dynamic_conv_v1",
    "dynamic_gather_v1",
    "exponential_minus_one_v1",
    "exponential_v1",
    "gather_v1",
    "log_plus_one_v1",
    "logistic_v1",
    "log_v1",
    "recv_v1",
    "rsqrt_v1",
    "scatter_v1",
    "send_v1",
    "sine_v1",
    "sqrt_v1",
    "tan_v1",
    "tanh_v1",
)
"""VHLO op forks by wire code (code = index).  Append only; never reorder, never remove."""


@cache
def _op_index() -> dict[str, int]:
    index = {name: code for code, name in enumerate(OP_CODES)}
    if len(index) != len(OP_CODES):
        raise ValueError("serialization.codes.OP_CODES lists an op twice")
    return index


def op_code(name: str) -> int:
    """The wire code of a VHLO op fork (``add_v1`` or ``vhlo.add_v1``); KeyError if it has none."""
    return _op_index()[name.removeprefix("vhlo.")]


def op_name_for_code(code: int) -> str | None:
    """The fork with wire code ``code``, or None for a code this toolkit does not know."""
    return OP_CODES[code] if 0 <= code < len(OP_CODES) else None


@cache
def _type_codes() -> tuple[dict[str, int], dict[int, str]]:
    by_name = {t.name: t.bytecode_code for t in specs.types()}
    by_code = {c: n for n, c in by_name.items()}
    if len(by_code) != len(by_name):
        raise ValueError("specs/types.toml gives two types the same bytecode_code")
    return by_name, by_code


@cache
def _attr_codes() -> tuple[dict[str, int], dict[int, str]]:
    by_name = {a.name: a.bytecode_code for a in specs.attrs()}
    by_code = {c: n for n, c in by_name.items()}
    if len(by_code) != len(by_name):
        raise ValueError("specs/types.toml gives two attributes the same bytecode_code")
    return by_name, by_code


def type_code(name: str) -> int:
    """Upstream's TypeCode of a VHLO type (``tensor_v1``)."""
    return _type_codes()[0][name]


def type_name_for_code(code: int) -> str | None:
    return _type_codes()[1].get(code)


def attr_code(name: str) -> int:
    """Upstream's AttributeCode of a VHLO attribute or enum (``integer_v1``)."""
    return _attr_codes()[0][name]


def attr_name_for_code(code: int) -> str | None:
    return _attr_codes()[1].get(code)
