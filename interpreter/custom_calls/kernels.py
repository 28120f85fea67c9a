"""User kernels: custom calls whose computation is not StableHLO but code for one compiler or
library (Pallas on TPU/Mosaic, Mosaic GPU, Triton, cuDNN, MIOpen).  Each is refused with one
`NotSupportedError` naming the kind of kernel, what the call carries instead of a StableHLO body,
what alone can run it, and how to export a program that runs here.

The one exception is `__cudnn$fusion` (`jax._src.cudnn.fusion.cudnn_fusion`): XLA hands the function
in its `called_computations` to cuDNN as one graph, but that function is ordinary StableHLO, the
definition of what the fusion computes; it runs here as that function.

Evidence for each name (`SP/` = the installed jax/jaxlib 0.12.0.1 site-packages, `jax@<tag>` = the
jax-ml/jax repository at that tag or commit) is given next to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.jax_targets import Refusal, call_body

from stablehlo_py.errors import InterpreterError

TPU = frozenset({"tpu"})
CUDA = frozenset({"cuda"})
ROCM = frozenset({"rocm"})
GPU = frozenset({"cuda", "rocm"})

_PALLAS_INSTEAD = (
    "Export the program with the kernel's reference implementation, e.g. "
    "`pallas_call(..., interpret=True)`, to run it here"
)


def kernel(kind: str, body: str, runner: str, instead: str, platforms: frozenset[str]) -> Refusal:
    """The refusal of a user kernel of `kind` ("a <kind> kernel"): `body` is what the call carries
    instead of a StableHLO computation ("its body is ..."), `runner` what alone can run it,
    `instead` how to export a program the interpreter can run, `platforms` whose programs carry
    it."""
    return Refusal(
        kind,
        f"a {kind} kernel: {body} that only {runner} can run, not StableHLO",
        "it cannot be interpreted",
        instead,
        platforms,
        label=f"{kind} kernel",
    )


PALLAS_TPU = kernel(
    "Pallas TPU (Mosaic)",
    "its body is Mosaic TPU IR (an MLIR module serialized in backend_config)",
    "the TPU compiler (libtpu's Mosaic)",
    _PALLAS_INSTEAD,
    TPU,
)
PALLAS_MOSAIC_GPU = kernel(
    "Pallas Mosaic GPU",
    "its body is Mosaic GPU IR (an MLIR module in backend_config)",
    "jaxlib's Mosaic GPU compiler for NVIDIA GPUs",
    _PALLAS_INSTEAD,
    CUDA,
)
PALLAS_TRITON = kernel(
    "Pallas Triton",
    "its body is Triton IR (MLIR bytecode in backend_config)",
    "XLA's GPU backend, through the Triton compiler,",
    _PALLAS_INSTEAD,
    GPU,
)
TRITON_COMPILED = kernel(
    "Triton (jax-triton / Pallas Triton)",
    "its body is compiled GPU code (PTX or an AMDGPU binary in a compressed descriptor in "
    "backend_config)",
    "a GPU, through jaxlib's Triton runtime,",
    "Export the program with the kernel's reference implementation (jax.numpy code, or "
    "`interpret=True` for Pallas) to run it here",
    GPU,
)
CUDNN_ATTENTION = kernel(
    "cuDNN fused attention",
    "it has no StableHLO body, only a cuDNN attention graph described by backend_config (scale, "
    "mask, dropout)",
    "cuDNN",
    "Export the program with `jax.nn.dot_product_attention(..., implementation='xla')` to run it "
    "here",
    CUDA,
)
CUDNN_BLOCK_SCALED_DOT = kernel(
    "cuDNN block-scaled matmul",
    "it has no StableHLO body, only a cuDNN block-scaled (MX) matmul graph described by "
    "backend_config",
    "cuDNN",
    "Export `jax.nn.scaled_matmul` for platforms=['cpu'], where it lowers to StableHLO, to run it "
    "here",
    CUDA,
)
CUDNN_RNN = kernel(
    "cuDNN RNN",
    "it has no StableHLO body, only an opaque RNN descriptor in backend_config (weights in cuDNN's "
    "packed layout)",
    "cuDNN",
    "Export the program with the reference implementation `jax.experimental.rnn.lstm_ref` to run "
    "it here",
    CUDA,
)
MIOPEN_RNN = kernel(
    "MIOpen RNN",
    "it has no StableHLO body, only an opaque RNN descriptor in backend_config (weights in "
    "MIOpen's packed layout)",
    "MIOpen",
    CUDNN_RNN.how,
    ROCM,
)
CUDNN = kernel(
    "cuDNN",
    "it has no StableHLO body, only a cuDNN graph described by backend_config",
    "cuDNN",
    "Export the program with the computation's reference implementation (jax.numpy / lax code) to "
    "run it here",
    GPU,  # XLA's ROCm backend writes MIOpen convolutions under the same `__cudnn$conv*` names
)
XLA_GPU = kernel(
    "built-in XLA GPU",
    "it has no StableHLO body, only the name of a handler compiled into XLA's GPU runtime",
    "XLA's GPU backend",
    CUDNN.how,
    GPU,
)

KERNELS: dict[str, Refusal] = {
    "tpu_custom_call": PALLAS_TPU,  # SP/jax/_src/tpu_custom_call.py:475-476
    "mosaic_gpu_v2": PALLAS_MOSAIC_GPU,  # SP/jax/experimental/mosaic/gpu/core.py:368-369
    # jax 0.4.30 - 0.7: jax@jax-v0.7.0:jax/experimental/mosaic/gpu/core.py:222
    "mosaic_gpu": PALLAS_MOSAIC_GPU,
    # SP/jax/_src/pallas/triton/pallas_call_registration.py:34, 159
    "__gpu$xla.gpu.triton": PALLAS_TRITON,
    "triton_kernel_call": TRITON_COMPILED,  # SP/jaxlib/gpu_triton.py:24 (CUDA), :43 (ROCm)
    # not yet the default: jax@cec06d116c:jax/_src/pallas/triton/pallas_call_registration.py:39, 203
    "triton_kernel_call_ffi": TRITON_COMPILED,
    # SP/jax/_src/cudnn/scaled_matmul_stablehlo.py:41, 95
    "__op$block_scaled_dot": CUDNN_BLOCK_SCALED_DOT,
    # f"{platform}dnn_rnn_ffi" with platform "cu" / "hip": SP/jaxlib/gpu_rnn.py:86, 94-95
    "cudnn_rnn_ffi": CUDNN_RNN,
    "hipdnn_rnn_ffi": MIOPEN_RNN,
    # f"{platform}dnn_rnn_bwd_ffi": SP/jaxlib/gpu_rnn.py:133, 146-147
    "cudnn_rnn_bwd_ffi": CUDNN_RNN,
    "hipdnn_rnn_bwd_ffi": MIOPEN_RNN,
    # before the FFI: jax@jax-v0.4.30:jaxlib/gpu_rnn.py:82, 126 (CUDA only);
    # jax@jax-v0.5.0:jaxlib/gpu_rnn.py:96, 104-105, 143 (f"{platform}dnn_rnn[_bwd]")
    "cudnn_rnn": CUDNN_RNN,
    "cudnn_rnn_bwd": CUDNN_RNN,
    "hipdnn_rnn": MIOPEN_RNN,
    "hipdnn_rnn_bwd": MIOPEN_RNN,
}
"""Exact target name -> its kind."""

KERNEL_PREFIXES: dict[str, Refusal] = {
    # the 10 names of SP/jax/_src/cudnn/fused_attention_stablehlo.py:253-266
    "__cudnn$fmha": CUDNN_ATTENTION,
    # the same, misspelled until jax@5da43a4c55 (2024-02-21, "Fix misspelled cuDNN custom call
    # targets")
    "__cudnn$fhma": CUDNN_ATTENTION,
    # any other cuDNN graph (e.g. XLA's own `__cudnn$conv*` names)
    "__cudnn$": CUDNN,
    # XLA's GPU handlers (JAX writes `__gpu$xla.gpu.triton`, which has its own row above)
    "__gpu$xla.gpu.": XLA_GPU,
}
"""Target name prefix -> the kind of every name with that prefix that has no row in KERNELS (the
longest matching prefix wins)."""


def kernel_kind(name: str) -> Refusal | None:
    """The kind of user kernel `name` is, or None."""
    kind = KERNELS.get(name)
    if kind is not None:
        return kind
    prefixes = [p for p in KERNEL_PREFIXES if name.startswith(p)]
    return KERNEL_PREFIXES[max(prefixes, key=len)] if prefixes else None


def refuse_kernel(ctx: Any) -> list[np.ndarray]:
    kind = kernel_kind(ctx.target_name)
    if kind is None:  # registered for a name of the tables only
        raise InterpreterError(f"custom_call @{ctx.target_name} is not a known user kernel")
    raise kind.error(ctx.target_name)


def _families(
    table: dict[str, Refusal],
) -> list[tuple[dict[str, Any], frozenset[str], tuple[str, ...]]]:
    """`table` as registry families: (name -> refuse_kernel, platforms, forms), one per kind."""
    kinds = list(dict.fromkeys(table.values()))
    return [
        ({n: refuse_kernel for n, k in table.items() if k is kind}, kind.platforms, (kind.form(),))
        for kind in kinds
    ]


KERNEL_FAMILIES = _families(KERNELS)
"""(name -> refusal, platforms, forms) per kind, for `builtins.load`'s families."""
KERNEL_PREFIX_TARGETS: list[tuple[str, Callable[[Any], Any], frozenset[str], tuple[str, ...]]] = [
    (prefix, refuse_kernel, kind.platforms, (kind.form(),))
    for prefix, kind in sorted(KERNEL_PREFIXES.items(), key=lambda item: -len(item[0]))
]
"""(prefix, refusal, platforms, forms), longest prefix first (the registry tries them in order)."""


# ------------------------------------------------------------------------ __cudnn$fusion


CUDNN_FUSION_FORM = "called_computations = [@f], f run on the operands (jax >= 0.4.32)"
KERNEL_EVALUATOR_TARGETS: dict[str, Callable[[Any, Any, list[Any]], list[Any]]] = {
    # `__cudnn$fusion(args) {called_computations = [@f.impl]}` (SP/jax/_src/cudnn/fusion.py:54-68):
    # the called function, run on the operands
    "__cudnn$fusion": call_body,
}

__all__ = [
    "KERNELS",
    "KERNEL_EVALUATOR_TARGETS",
    "KERNEL_FAMILIES",
    "KERNEL_PREFIXES",
    "KERNEL_PREFIX_TARGETS",
    "kernel",
    "kernel_kind",
    "refuse_kernel",
]
