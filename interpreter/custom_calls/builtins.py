"""The toolkit's own targets, registered once in the registry: those the interpreter's op modules
declare (`check.*`, `shape_assertion`, the experimental ops; loaded with the op implementations), JAX's
CPU LAPACK kernels (`lapack.LAPACK_TARGETS`) and JAX's sharding markers and refusals
(`jax_targets.JAX_FAMILIES`), and the refusals of user kernels (Pallas, Mosaic, Triton, cuDNN;
`kernels.py`), JAX's GPU Threefry kernels (`prng.py`) its cuSOLVER / hipSOLVER targets (`gpu/`) and its TPU decompositions (`tpu.py`)."""

from __future__ import annotations

from typing import Any

from stablehlo_py.interpreter.custom_calls.context import API_VERSION
from stablehlo_py.interpreter.custom_calls.registry import (
    BUILT_IN,
    CONTEXT,
    EVALUATOR,
    Target,
)


def load(registry: Any) -> None:
    from stablehlo_py.interpreter.custom_calls.collectives import COLLECTIVE_FAMILIES
    from stablehlo_py.interpreter.custom_calls.jax_targets import JAX_EVALUATOR_FAMILIES, JAX_FAMILIES
    from stablehlo_py.interpreter.custom_calls.kernels import (
        CUDNN_FUSION_FORM,
        KERNEL_EVALUATOR_TARGETS,
        KERNEL_FAMILIES,
        KERNEL_PREFIX_TARGETS,
    )
    from stablehlo_py.interpreter.custom_calls.ducc_fft import FAMILIES as DUCC_FFT_FAMILIES
    from stablehlo_py.interpreter.custom_calls.gpu import GPU_FAMILIES
    from stablehlo_py.interpreter.custom_calls.lapack import LAPACK_LEGACY_FAMILIES, LAPACK_TARGETS
    from stablehlo_py.interpreter.custom_calls.lapack.tridiagonal import PERTURBED_FORM, PERTURBED_TARGETS
    from stablehlo_py.interpreter.custom_calls.prng import PRNG_FAMILIES
    from stablehlo_py.interpreter.custom_calls.tpu import TPU_FAMILY, TPU_FORMS
    from stablehlo_py.interpreter.registry import load_impls

    load_impls()
    families = (
        # (targets, their platforms, the forms they accept)
        (LAPACK_TARGETS, frozenset({"cpu"}), (LAPACK_FORM,)),
        (PERTURBED_TARGETS, frozenset({"cpu"}), (PERTURBED_FORM,)),
        *LAPACK_LEGACY_FAMILIES,
        *DUCC_FFT_FAMILIES,
        *JAX_FAMILIES,
        *KERNEL_FAMILIES,
        *PRNG_FAMILIES,
        *GPU_FAMILIES,
        (TPU_FAMILY, frozenset({"tpu"}), TPU_FORMS),
    )
    for table, platforms, forms in families:
        for name, fn in table.items():
            registry.add(Target(name, fn, BUILT_IN, API_VERSION, CONTEXT, platforms, forms))
    for prefix, fn, platforms, forms in KERNEL_PREFIX_TARGETS:
        target = Target(prefix, fn, BUILT_IN, API_VERSION, CONTEXT, platforms, forms)
        registry.add_prefix(prefix, target)
    evaluator_families = (
        *JAX_EVALUATOR_FAMILIES,
        *COLLECTIVE_FAMILIES,
        (KERNEL_EVALUATOR_TARGETS, frozenset({"cuda"}), (CUDNN_FUSION_FORM,)),
    )
    for table, platforms, forms in evaluator_families:
        for name, fn in table.items():
            registry.add(Target(name, fn, BUILT_IN, None, EVALUATOR, platforms, forms))


LAPACK_FORM = "typed FFI, attributes in mhlo.backend_config (jax >= 0.4.31)"
