"""Custom-call targets: the versioned plugin API (`context.CallContext`, `registry`, `entry_points`),
the built-in JAX targets (`jax_targets`, with `spmd.run_spmd` for programs with shard_map regions) and
JAX's CPU LAPACK targets (`lapack`).  See README "Custom calls: built-in targets and plugins"."""

from stablehlo_py.interpreter.custom_calls.context import API_VERSION, CallContext
from stablehlo_py.interpreter.custom_calls.registry import REGISTRY, register_custom_call

__all__ = ["API_VERSION", "REGISTRY", "CallContext", "register_custom_call"]
