"""Write JAX's pre-FFI CPU LAPACK artifacts (issue 25, plan 4.4 way 4) with an old jax from PyPI.

jax/jaxlib <= 0.4.30 lowered CPU linear algebra to the pre-FFI custom calls `lapack_?potrf`,
`lapack_?getrf`, `lapack_?geqrf` + `lapack_?orgqr`/`?ungqr`, `lapack_?gesdd`, `lapack_?syevd`/`?heevd`,
`lapack_?geev`, `lapack_?gees`, `lapack_?gehrd`, `lapack_?sytrd`/`?hetrd` and `blas_?trsm`
(`api_version = 2`, scalar operands first, workspaces as extra results).  jax >= 0.6.0 can no longer
run such artifacts, but StableHLO's 5-year window keeps them readable; this script writes a few
with that old jax so that `tests/unit/test_lapack_old_forms.py` can run them without it.

Run it with a throwaway venv (Python 3.11; the old jaxlib has no wheel for 3.12+):

    $(pyenv root)/versions/3.11.7/bin/python -m venv /work/venv_jax0430
    /work/venv_jax0430/bin/pip install jax==0.4.30 jaxlib==0.4.30 'numpy<2' scipy absl-py
    /work/venv_jax0430/bin/python tools/write_old_cpu_artifacts.py tests/data/jax_old_forms/cpu

For every case it writes `<case>.mlirbc` (the export's `mlir_module_serialized`: the StableHLO
portable artifact, VHLO bytecode, exactly what `jax.export` serializes) and `<case>.npz` (`input_<i>`,
and `expected_<i>`: what jax 0.4.30 itself computed by calling the export on XLA CPU), and one
`manifest.json` (per case: function, dtype, shapes, the custom-call targets the module carries, the
jax/jaxlib versions).  The inputs are seeded, so a rerun writes the same inputs (the bytes of the
artifact also depend on nothing else but the jax version)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def _matrix(shape: tuple[int, ...], dtype: Any, kind: str, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * r.normal(size=shape)
    n = shape[-1]
    ah = np.conj(np.swapaxes(a, -1, -2))
    if kind == "spd":
        a = a @ ah + n * np.eye(n)
    elif kind == "hermitian":
        a = a + ah
    elif kind == "triangular":  # well conditioned: a dominant diagonal
        a = a + 4 * np.eye(n)
    return a.astype(dtype)


def _cases() -> dict[str, tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]], tuple[str, ...]]]:
    """case -> (function, its arguments as (shape, kind), the dtypes it is written for)."""
    import jax
    import jax.numpy as jnp

    lax_linalg = jax.lax.linalg
    every = tuple(DTYPES)
    return {
        "cholesky": (jnp.linalg.cholesky, [((4, 4), "spd")], every),
        "cholesky_batched": (jnp.linalg.cholesky, [((2, 3, 3), "spd")], ("f32", "c128")),
        "lu": (lax_linalg.lu, [((4, 4), "general")], every),
        "lu_wide": (lax_linalg.lu, [((3, 4), "general")], ("f64",)),
        "qr": (jnp.linalg.qr, [((4, 3), "general")], every),
        "qr_batched": (jnp.linalg.qr, [((2, 3, 3), "general")], ("f64",)),
        "svd": (jnp.linalg.svd, [((4, 3), "general")], every),
        "svd_reduced": (lambda a: jnp.linalg.svd(a, full_matrices=False), [((3, 4), "general")], ("f32", "c64")),
        "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [((4, 4), "general")], every),
        "eigh": (jnp.linalg.eigh, [((4, 4), "hermitian")], every),
        "eigh_batched": (jnp.linalg.eigh, [((2, 3, 3), "hermitian")], ("f32",)),
        "eig": (jnp.linalg.eig, [((4, 4), "general")], every),
        "schur": (jax.scipy.linalg.schur, [((4, 4), "general")], every),
        "hessenberg": (lax_linalg.hessenberg, [((4, 4), "general")], every),
        "tridiagonal": (lambda a: lax_linalg.tridiagonal(a, lower=True), [((4, 4), "hermitian")], every),
        "tridiagonal_upper": (lambda a: lax_linalg.tridiagonal(a, lower=False), [((4, 4), "hermitian")], ("f64", "c64")),
        "triangular_solve": (
            lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True, lower=True),
            [((4, 4), "triangular"), ((4, 2), "general")],
            every,
        ),
        "triangular_solve_right": (
            lambda a, b: lax_linalg.triangular_solve(
                a, b, left_side=False, lower=False, transpose_a=True, conjugate_a=True, unit_diagonal=True
            ),
            [((3, 3), "triangular"), ((2, 3), "general")],
            ("f32", "c128"),
        ),
    }


def main(out: Path) -> None:
    import jax
    import jaxlib
    from jax import export

    jax.config.update("jax_enable_x64", True)
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {}
    # gehrd and sytrd/hetrd were not yet in jax 0.4.30's list of stable custom-call targets (they
    # joined it with their FFI forms): its export refuses them unless told
    unstable = [f"lapack_{p}{r}" for p in "sdcz" for r in ("gehrd", "sytrd", "hetrd")]
    checks = [export.DisabledSafetyCheck.custom_call(t) for t in unstable]
    for name, (fn, arg_specs, dtypes) in _cases().items():
        for dname in dtypes:
            dtype = DTYPES[dname]
            case = f"{name}_{dname}"
            args = [
                _matrix(shape, dtype, kind, seed=1000 * i + len(case))
                for i, (shape, kind) in enumerate(arg_specs)
            ]
            specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
            exported = export.export(jax.jit(fn), platforms=["cpu"], disabled_checks=checks)(*specs)
            text = exported.mlir_module()
            targets = sorted(set(re.findall(r"stablehlo\.custom_call @([\w$.]+)", text)))
            expected = [np.asarray(x) for x in jax.tree_util.tree_leaves(exported.call(*args))]
            (out / f"{case}.mlirbc").write_bytes(bytes(exported.mlir_module_serialized))
            arrays = {f"input_{i}": a for i, a in enumerate(args)}
            arrays.update({f"expected_{i}": x for i, x in enumerate(expected)})
            np.savez_compressed(out / f"{case}.npz", **arrays)
            manifest[case] = {
                "function": name,
                "dtype": dname,
                "inputs": [list(a.shape) for a in args],
                "outputs": [f"{x.dtype}{list(x.shape)}" for x in expected],
                "custom_call_targets": targets,
                "not_stable_in_this_jax": sorted(set(targets) & set(unstable)),
            }
            print(case, targets)
    header = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__,
              "python": sys.version.split()[0], "platform": "cpu"}
    (out / "manifest.json").write_text(json.dumps({"written_by": header, "cases": manifest}, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
