"""Structured (non-elementwise) ops of the spec: one import point for the numpy layer.

The functions live in modules named after what they hold; this module re-exports them so
that op wrappers can write ``from stablehlo_py.semantics import structured``
and call ``structured.gather(...)``.

* :mod:`.data_movement` — broadcast_in_dim, concatenate, dynamic_slice,
  dynamic_update_slice, gather, scatter, iota, pad, reshape, reverse, slice, transpose,
  get_dimension_size, set_dimension_size, real_dynamic_slice and the dynamic_* variants;
* :mod:`.reduction` — reduce, reduce_window, select_and_scatter, sort, top_k;
* :mod:`.linalg` — dot_general, convolution, dynamic_conv, triangular_solve, cholesky;
* :mod:`.fft` — fft;
* :mod:`.random` — rng, rng_bit_generator;
* :mod:`.quantization` — uniform_quantize, uniform_dequantize;
* :mod:`.regions` — the :class:`~.regions.Body` protocol for region arguments.
"""

from __future__ import annotations

from .data_movement import (
    broadcast_in_dim,
    concatenate,
    dynamic_broadcast_in_dim,
    dynamic_gather,
    dynamic_iota,
    dynamic_pad,
    dynamic_reshape,
    dynamic_slice,
    dynamic_update_slice,
    gather,
    get_dimension_size,
    iota,
    pad,
    real_dynamic_slice,
    reshape,
    reverse,
    scatter,
    set_dimension_size,
    slice,
    transpose,
)
from .fft import fft
from .linalg import cholesky, convolution, dot_general, dynamic_conv, triangular_solve
from .quantization import uniform_dequantize, uniform_quantize
from .random import rng, rng_bit_generator
from .reduction import reduce, reduce_window, select_and_scatter, sort, top_k
from .regions import Body, make_body, make_comparator

__all__ = [
    "Body",
    "make_body",
    "make_comparator",
    "broadcast_in_dim",
    "concatenate",
    "dynamic_broadcast_in_dim",
    "dynamic_gather",
    "dynamic_iota",
    "dynamic_pad",
    "dynamic_reshape",
    "dynamic_slice",
    "dynamic_update_slice",
    "gather",
    "get_dimension_size",
    "iota",
    "pad",
    "real_dynamic_slice",
    "reshape",
    "reverse",
    "scatter",
    "set_dimension_size",
    "slice",
    "transpose",
    "fft",
    "cholesky",
    "convolution",
    "dot_general",
    "dynamic_conv",
    "triangular_solve",
    "uniform_dequantize",
    "uniform_quantize",
    "rng",
    "rng_bit_generator",
    "reduce",
    "reduce_window",
    "select_and_scatter",
    "sort",
    "top_k",
]
