"""Write JAX's pre-FFI CPU LAPACK artifacts (issue 25, plan 4.4 way 4) with an old jax from PyPI.

jax/jaxlib <= 0.4.30 lowered CPU linear algebra to the pre-FFI custom calls `lapack_?potrf`,
`lapack_?getrf`, `lapack_?geqrf` + `lapack_?orgqr`/`?ungqr`, `lapack_?gesdd`, `lapack_?syevd`/`?heevd`,
`lapack_?geev`, `lapack_?gees`, `lapack_?gehrd`, `lapack_?sytrd`/`?hetrd` and `blas_?trsm`
(`api_version = 2`, scalar operands first, workspaces as extra results).  jax >= 0.6.0 can no longer
run such artifacts, but StableHLO's 5-year window keeps them readable; this script writes a few
with that old jax so that `tests/unit/interpreter/test_cpu_old_forms.py` runs them without jax.

Run it with a throwaway venv (Python 3.11; the old jaxlib has no wheel for 3.12+):

    $(pyenv root)/versions/3.11.7/bin/python -m venv /work/venv_jax0430
    /work/venv_jax0430/bin/pip install jax==0.4.30 jaxlib==0.4.30 'numpy<2' scipy absl-py
    /work/venv_jax0430/bin/python tools/write_old_cpu_artifacts.py tests/data/jax_old_forms/cpu

The second set, `fft`, is `jnp.fft` as jax 0.4.13 - 0.4.20 lowered it on the CPU: the
`dynamic_ducc_fft` custom call (`interpreter/custom_calls/ducc_fft.py`), with one
shape-polymorphic export; it needs jax 0.4.20 (whose export API is `jax.experimental.export`):

    $(pyenv root)/versions/3.11.7/bin/python -m venv /work/venv_jax0420
    /work/venv_jax0420/bin/pip install jax==0.4.20 jaxlib==0.4.20 'numpy<2' 'scipy<1.12' \
        'ml_dtypes<0.3' flatbuffers absl-py
    /work/venv_jax0420/bin/python tools/write_old_cpu_artifacts.py tests/data/jax_old_forms/cpu_fft fft

For every case it writes `<case>.mlirbc` (the export's `mlir_module_serialized`: the StableHLO
portable artifact, VHLO bytecode, exactly what `jax.export` serializes), `<case>.npz` (`input_<i>`,
and `expected_<i>`: what that jax itself computed by calling the export on XLA CPU), and one
`manifest.json` (per case: function, dtype, shapes, the custom-call targets the module carries; the
jax/jaxlib versions).  The inputs are seeded and a rerun writes byte-identical files (the
artifacts' debug locations name this script's lines: editing it changes those bytes only)."""

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


Cases = dict[str, tuple[Callable[..., Any], list[tuple[Any, ...]], tuple[str, ...]]]


def _lapack_cases() -> Cases:
    """case -> (function, its arguments as (shape, kind[, symbolic shape]), the dtypes it is
    written for)."""
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
        "svd_reduced": (
            lambda a: jnp.linalg.svd(a, full_matrices=False), [((3, 4), "general")], ("f32", "c64")
        ),
        "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [((4, 4), "general")], every),
        "eigh": (jnp.linalg.eigh, [((4, 4), "hermitian")], every),
        "eigh_batched": (jnp.linalg.eigh, [((2, 3, 3), "hermitian")], ("f32",)),
        "eig": (jnp.linalg.eig, [((4, 4), "general")], every),
        "schur": (jax.scipy.linalg.schur, [((4, 4), "general")], every),
        "hessenberg": (lax_linalg.hessenberg, [((4, 4), "general")], every),
        "tridiagonal": (
            lambda a: lax_linalg.tridiagonal(a, lower=True), [((4, 4), "hermitian")], every
        ),
        "tridiagonal_upper": (
            lambda a: lax_linalg.tridiagonal(a, lower=False), [((4, 4), "hermitian")], ("f64", "c64")
        ),
        "triangular_solve": (
            lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True, lower=True),
            [((4, 4), "triangular"), ((4, 2), "general")],
            every,
        ),
        "triangular_solve_right": (
            lambda a, b: lax_linalg.triangular_solve(
                a, b, left_side=False, lower=False, transpose_a=True, conjugate_a=True,
                unit_diagonal=True,
            ),
            [((3, 3), "triangular"), ((2, 3), "general")],
            ("f32", "c128"),
        ),
    }


def _fft_cases() -> Cases:
    import jax.numpy as jnp

    fft = jnp.fft
    complex_types, real_types = ("c64", "c128"), ("f32", "f64")
    return {
        "fft": (fft.fft, [((3, 4), "general")], complex_types),
        "ifft": (fft.ifft, [((3, 4), "general")], complex_types),
        "rfft": (fft.rfft, [((3, 8), "general")], real_types),
        "irfft": (fft.irfft, [((3, 5), "general")], complex_types),
        "fft2": (fft.fft2, [((2, 3, 4), "general")], ("c64",)),
        "ifftn": (fft.ifftn, [((2, 3, 4), "general")], ("c128",)),
        "rfft2": (fft.rfft2, [((2, 4, 6), "general")], ("f32",)),
        "irfft2": (fft.irfft2, [((2, 4, 4), "general")], ("c128",)),
        "rfft_poly": (fft.rfft, [((3, 8), "general", "b, 8")], ("f32",)),
    }


CASE_SETS = {"lapack": _lapack_cases, "fft": _fft_cases}


def _export_api() -> tuple[Any, Any, Any]:
    """(export(fn, platforms, **options)(*specs), call(exported)(*args), spec(shape, dtype,
    symbolic)): jax >= 0.4.30 has `jax.export`, jax 0.4.13 - 0.4.2x `jax.experimental.export.export`
    (with `lowering_platforms`)."""
    import jax

    try:
        from jax import export as api
    except ImportError:
        from jax.experimental.export import export as api

        def spec(shape: Any, dtype: Any, poly: str | None) -> Any:
            if poly is None:
                return jax.ShapeDtypeStruct(shape, dtype)
            return api.poly_spec(shape, dtype, poly)

        def export_old(fn: Any, platforms: Any, **options: Any) -> Any:
            return api.export(fn, lowering_platforms=platforms, **options)

        return export_old, api.call_exported, spec

    def spec_new(shape: Any, dtype: Any, poly: str | None) -> Any:
        return jax.ShapeDtypeStruct(api.symbolic_shape(poly) if poly else shape, dtype)

    return api.export, lambda e: e.call, spec_new


def main(out: Path, case_set: str = "lapack") -> None:
    import jax
    import jaxlib

    export, call, spec = _export_api()
    jax.config.update("jax_enable_x64", True)
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {}
    # gehrd and sytrd/hetrd were not yet in jax 0.4.30's list of stable custom-call targets (they
    # joined it with their FFI forms): its export refuses them unless told
    unstable = [f"lapack_{p}{r}" for p in "sdcz" for r in ("gehrd", "sytrd", "hetrd")]
    options = {}
    if case_set == "lapack":
        from jax import export as api

        options = {"disabled_checks": [api.DisabledSafetyCheck.custom_call(t) for t in unstable]}
    for name, (fn, arg_specs, dtypes) in CASE_SETS[case_set]().items():
        for dname in dtypes:
            dtype = DTYPES[dname]
            case = f"{name}_{dname}"
            args = [
                _matrix(arg[0], dtype, arg[1], seed=1000 * i + len(case))
                for i, arg in enumerate(arg_specs)
            ]
            specs = [spec(a.shape, a.dtype, (*arg, None)[2]) for a, arg in zip(args, arg_specs)]
            exported = export(jax.jit(fn), platforms=["cpu"], **options)(*specs)
            text = exported.mlir_module()
            targets = sorted(set(re.findall(r"stablehlo\.custom_call @([\w$.]+)", text)))
            expected = [np.asarray(x) for x in jax.tree_util.tree_leaves(call(exported)(*args))]
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
                **({"symbolic_shapes": [(*a, None)[2] for a in arg_specs]}
                   if any(len(a) > 2 for a in arg_specs) else {}),
            }
            print(case, targets)
    header = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__,
              "python": sys.version.split()[0], "platform": "cpu"}
    text = json.dumps({"written_by": header, "cases": manifest}, indent=1)
    (out / "manifest.json").write_text(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] and sys.argv[2] not in CASE_SETS:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), *sys.argv[2:])
