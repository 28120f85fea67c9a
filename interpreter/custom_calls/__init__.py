"""Custom-call targets: the versioned plugin API (`context.CallContext`, `registry`, `entry_points`),
the built-in JAX targets (`jax_targets`) and JAX's CPU LAPACK targets (`lapack`)."""
