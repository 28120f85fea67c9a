"""Which ops implement MLIR's ``InferTypeOpInterface`` upstream (``StablehloOps.td`` / ``ChloOps.td``:
``DeclareOpInterfaceMethods<InferTypeOpInterface>``, ``InferTensorType``, ``InferTensorTypeWithReify``,
the elementwise base classes' ``CompatibleOperandsAndResultType``).

It decides one thing about diagnostics: MLIR verifies such an op first by refining its result types
(``verifyInferredResultTypes``); when that fails it reports the rule's error and then a second error,
``'<op>' op failed to infer returned types``, at the same op.  Ops outside this set (``convolution``,
``dot_general``, ``reshape``, ``iota``, ``custom_call`` ...) have inference rules here too -- the
builder and shape refinement use them -- but upstream reports their rule errors once, from the op's
verifier.  tests/oracle/test_infer_type_interface.py checks the set against jaxlib's MLIR."""

from __future__ import annotations

_ELEMENTWISE = (
    "abs add and atan2 cbrt ceil clamp compare complex cosine count_leading_zeros divide exponential "
    "exponential_minus_one floor imag is_finite log log_plus_one logistic maximum minimum multiply "
    "negate not or popcnt power real remainder round_nearest_afz round_nearest_even rsqrt select "
    "shift_left shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh xor"
)
_STABLEHLO = (
    "after_all all_reduce all_to_all async_done async_start batch_norm_grad batch_norm_inference "
    "batch_norm_training broadcast case cholesky collective_broadcast collective_permute "
    "collective_reduce concatenate constant create_token cross-replica-sum dynamic_gather "
    "dynamic_slice dynamic_update_slice fft gather get_dimension_size get_tuple_element if map "
    "optimization_barrier outfeed pad partition_id reduce reduce_precision reduce_window replica_id "
    "reverse rng scatter select_and_scatter send set_dimension_size slice sort transpose "
    "triangular_solve tuple uniform_dequantize while"
)
_CHLO = (
    "acos acosh asin asinh atan atanh bessel_i1e broadcast_add broadcast_and broadcast_atan2 "
    "broadcast_compare broadcast_complex broadcast_divide broadcast_maximum broadcast_minimum "
    "broadcast_multiply broadcast_next_after broadcast_or broadcast_polygamma broadcast_power "
    "broadcast_remainder broadcast_select broadcast_shift_left broadcast_shift_right_arithmetic "
    "broadcast_shift_right_logical broadcast_subtract broadcast_xor broadcast_zeta conj constant "
    "constant_like cosh digamma erf erf_inv erfc is_inf is_neg_inf is_pos_inf lgamma mulhi next_after "
    "polygamma scan sinh square tan top_k zeta _asin_acos_kernel"
)

INFER_TYPE_OP_INTERFACE: frozenset[str] = frozenset(
    [f"stablehlo.{n}" for n in (_ELEMENTWISE + " " + _STABLEHLO).split()]
    + [f"chlo.{n}" for n in _CHLO.split()]
)
"""Op names (as registered here) that implement InferTypeOpInterface upstream."""


_VERIFIED_FIRST = (
    "stablehlo.while stablehlo.all_reduce stablehlo.reduce stablehlo.reduce_window "
    "stablehlo.reverse stablehlo.select_and_scatter stablehlo.scatter stablehlo.sort "
    "stablehlo.collective_broadcast stablehlo.collective_permute stablehlo.collective_reduce "
    "chlo.constant_like chlo.scan"
)
VERIFIED_BEFORE_INFERENCE: frozenset[str] = frozenset(_VERIFIED_FIRST.split())
"""InferTypeOpInterface ops whose own ``verify()`` (run by MLIR before the interface's check)
checks what their rule here checks (upstream's inference of ``reverse``, ``sort``, ``scatter`` ...
cannot fail at all): a rule error comes from ``verify()``, once; only a mismatch of the declared and
inferred types reaches the interface's check and its second error."""


def reports_inference_failure(op_name: str, mismatch: bool = False) -> bool:
    """Does upstream follow this failure -- a rule error, or (`mismatch`) declared result types
    incompatible with the inferred ones -- with "'<op>' op failed to infer returned types"?"""
    if op_name not in INFER_TYPE_OP_INTERFACE:
        return False
    return mismatch or op_name not in VERIFIED_BEFORE_INFERENCE
