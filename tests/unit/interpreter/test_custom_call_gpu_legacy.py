"""The pre-FFI forms of JAX's GPU eigh targets (interpreter/custom_calls/gpu/legacy.py): the packed
descriptor in backend_config, the workspace result, and the errors.  The real 2024 ROCm artifacts:
tests/oracle/test_jax_back_compat.py."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

pytest.importorskip("scipy")

A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def _program(target: str, desc: bytes, work: int = 8) -> str:
    config = "".join(f"\\{b:02X}" for b in desc)
    return f"""
func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>) {{
  %0:4 = stablehlo.custom_call @{target}(%a) {{api_version = 2 : i32, backend_config = "{config}", operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>]}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>, tensor<{work}xf64>)
  return %0#0, %0#1, %0#2 : tensor<3x3xf64>, tensor<3xf64>, tensor<i32>
}}
"""


@pytest.mark.parametrize(("target", "lower"), [
    ("hipsolver_syevd", 122), ("hipsolver_syevj", 121), ("cusolver_syevd", 0), ("cusolver_syevj", 1),
])
def test_descriptor_form_decomposes(target: str, lower: int) -> None:
    desc = struct.pack("<5i", 1, lower, 1, 3, 8)  # f64, fill mode, batch 1, n 3, lwork 8
    v, w, info = run(parse(_program(target, desc)), A)
    assert int(info) == 0
    np.testing.assert_allclose(w, np.linalg.eigvalsh(A), rtol=1e-12)
    np.testing.assert_allclose(A @ v, v * w, atol=1e-12)


def test_a_damaged_descriptor_and_a_wrong_type_are_clear_errors() -> None:
    with pytest.raises(InterpreterError, match="holds 16 bytes, JAX's syevd descriptor has 20"):
        run(parse(_program("hipsolver_syevd", struct.pack("<4i", 1, 122, 1, 3))), A)
    with pytest.raises(InterpreterError, match="names solver type 0, the operand is float64"):
        run(parse(_program("hipsolver_syevd", struct.pack("<5i", 0, 122, 1, 3, 8))), A)
    with pytest.raises(InterpreterError, match="fill mode 7 is not one of"):
        run(parse(_program("cusolver_syevd", struct.pack("<5i", 1, 7, 1, 3, 8))), A)


# --------------------------------------------------------------------------------------------------
# the other pre-FFI forms (gpu/legacy.py, legacy_sparse.py, legacy_pivots.py): one hand-written call
# each; JAX's exports rewritten into these forms: tests/oracle/test_gpu_old_forms.py


def _bytes(desc: bytes) -> str:
    return "".join(f"\\{b:02X}" for b in desc)


def _layouts(types: list[str], row_major: bool, matrix_rank: int) -> str:
    """JAX's layouts: the matrices (the largest rank) column-major (row-major for gesvd's transposed
    call), the rest row-major."""
    out = []
    for t in types:
        rank = t.count("x")
        order = list(range(rank - 1, -1, -1))
        if rank == matrix_rank and not row_major:
            order = [rank - 2, rank - 1, *order[2:]]
        out.append(f"dense<{order if rank > 1 else order[0] if rank else '' }> : tensor<{rank}xindex>")
    return f"[{', '.join(out)}]"


def _call(target: str, operands: list[str], results: list[str], config: str, *,
          tuple_results: bool = False, row_major: bool = False) -> str:
    """A program calling `target` on its arguments (of types `operands`) and returning every result
    (types `results`); `config` is the call's attributes (JAX's layouts are added)."""
    if "operand_layouts" not in config:
        rank = max(t.count("x") for t in operands + results)
        config += (f", operand_layouts = {_layouts(operands, row_major, rank)}, "
                   f"result_layouts = {_layouts(results, row_major, rank)}")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    uses = ", ".join(f"%a{i}" for i in range(len(operands)))
    types = ", ".join(results)
    if tuple_results:
        gets = "\n".join(
            f"  %g{i} = stablehlo.get_tuple_element %0[{i}] : (tuple<{types}>) -> {t}"
            for i, t in enumerate(results)
        )
        outs = ", ".join(f"%g{i}" for i in range(len(results)))
        call = f"%0 = stablehlo.custom_call @{target}({uses}) {{{config}}} : ({', '.join(operands)}) -> tuple<{types}>\n{gets}"
    else:
        outs = ", ".join(f"%0#{i}" for i in range(len(results))) if len(results) > 1 else "%0"
        lhs = f"%0:{len(results)}" if len(results) > 1 else "%0"
        call = f"{lhs} = stablehlo.custom_call @{target}({uses}) {{{config}}} : ({', '.join(operands)}) -> ({types})"
    return f"""
func.func @main({args}) -> ({types}) {{
  {call}
  return {outs} : {types}
}}
"""


def _opaque(desc: bytes) -> str:
    return f'api_version = 2 : i32, backend_config = "{_bytes(desc)}"'


G = np.array([[1.0, 2.0, 0.5], [4.0, 1.0, 3.0], [0.5, 2.0, 6.0], [1.0, 0.0, 2.0]])  # 4 x 3


@pytest.mark.parametrize("target", ["cusolver_getrf", "hipsolver_getrf"])
def test_getrf_factors_with_partial_pivoting(target: str) -> None:
    text = _call(target, ["tensor<4x3xf64>"],
                 ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xf64>"],
                 _opaque(struct.pack("<5i", 1, 1, 4, 3, 7)))
    lu, ipiv, info, work = run(parse(text), G)
    assert int(info) == 0 and not work.any()
    p = np.arange(4)
    for i, j in enumerate(ipiv - 1):
        p[[i, j]] = p[[j, i]]
    np.testing.assert_allclose((np.tril(lu, -1) + np.eye(4, 3)) @ np.triu(lu[:3]), G[p], atol=1e-12)


@pytest.mark.parametrize("tuple_results", [False, True])
def test_batched_getrf_and_geqrf_of_the_blas_library(tuple_results: bool) -> None:
    a = np.stack([A, A + np.eye(3)])
    getrf = _call("cublas_getrf_batched", ["tensor<2x3x3xf64>"],
                  ["tensor<2x3x3xf64>", "tensor<2x3xi32>", "tensor<2xi32>", "tensor<16xi8>"],
                  _opaque(struct.pack("<3i", 1, 2, 3)), tuple_results=tuple_results)
    out = run(parse(getrf), a)
    lu = out[0]
    assert np.allclose(np.prod(np.diagonal(lu, axis1=1, axis2=2), -1) ** 2, np.linalg.det(a) ** 2)
    geqrf = _call("hipblas_geqrf_batched", ["tensor<2x3x3xf64>"],
                  ["tensor<2x3x3xf64>", "tensor<2x3xf64>", "tensor<16xi8>", "tensor<16xi8>"],
                  _opaque(struct.pack("<4i", 1, 2, 3, 3)), tuple_results=tuple_results)
    out = run(parse(geqrf), a)
    np.testing.assert_allclose(np.abs(np.diagonal(out[0], axis1=1, axis2=2)),
                               np.abs(np.diagonal(np.linalg.qr(a)[1], axis1=1, axis2=2)), rtol=1e-12)


def test_geqrf_then_orgqr_give_q() -> None:
    geqrf = _call("cusolver_geqrf", ["tensor<4x3xf64>"],
                  ["tensor<4x3xf64>", "tensor<3xf64>", "tensor<i32>", "tensor<5xf64>"],
                  _opaque(struct.pack("<5i", 1, 1, 4, 3, 5)))
    r, tau, info, _ = run(parse(geqrf), G)
    orgqr = _call("cusolver_orgqr", ["tensor<4x3xf64>", "tensor<3xf64>"],
                  ["tensor<4x3xf64>", "tensor<i32>", "tensor<5xf64>"],
                  _opaque(struct.pack("<6i", 1, 1, 4, 3, 3, 5)))
    q, info2, _ = run(parse(orgqr), r, tau)
    assert int(info) == int(info2) == 0
    np.testing.assert_allclose(q @ np.triu(r[:3]), G, atol=1e-12)


@pytest.mark.parametrize(("shape", "job", "full"), [((4, 3), "A", True), ((3, 4), "S", False), ((3, 4), "A", True)])
def test_gesvd_and_its_transposed_call(shape: tuple[int, int], job: str, full: bool) -> None:
    m, n = shape
    a = G[:m, :n] if m > n else G.T[:m, :n].copy()
    k = min(m, n)
    u_cols = m if full else k
    vt_rows = n if full else k
    if m >= n:
        desc = struct.pack("<5i2b2x", 1, 1, m, n, 4, ord(job), ord(job))
        results = [f"tensor<{m}x{n}xf64>", f"tensor<{k}xf64>", f"tensor<{m}x{u_cols}xf64>",
                   f"tensor<{n}x{n}xf64>", "tensor<i32>", "tensor<4xf64>"]
    else:  # JAX called gesvd on the transpose: (n, m) in the descriptor, results (s, vt, u)
        desc = struct.pack("<5i2b2x", 1, 1, n, m, 4, ord(job), ord(job))
        results = [f"tensor<{m}x{n}xf64>", f"tensor<{k}xf64>", f"tensor<{vt_rows}x{n}xf64>",
                   f"tensor<{m}x{m}xf64>", "tensor<i32>", "tensor<4xf64>"]
    text = _call("cusolver_gesvd", [f"tensor<{m}x{n}xf64>"], results, _opaque(desc), row_major=m < n)
    _, s, first, second, info, _ = run(parse(text), a)
    u, vt = (first, second) if m >= n else (second, first)
    assert int(info) == 0
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose((u[:, :k] * s) @ vt[:k], a, atol=1e-12)


@pytest.mark.parametrize(("jobz", "econ"), [(1, 0), (1, 1), (0, 0)])
def test_gesvdj_gives_v(jobz: int, econ: int) -> None:
    k = 3
    cols = (k, k) if econ else (4, 3)
    results = ["tensor<4x3xf64>", "tensor<3xf64>", f"tensor<4x{cols[0]}xf64>", f"tensor<3x{cols[1]}xf64>",
               "tensor<i32>", "tensor<2xf64>"]
    text = _call("cusolver_gesvdj", ["tensor<4x3xf64>"], results,
                 _opaque(struct.pack("<7i", 1, 1, 4, 3, 2, jobz, econ)))
    _, s, u, v, info, _ = run(parse(text), G)
    np.testing.assert_allclose(s, np.linalg.svd(G, compute_uv=False), rtol=1e-12)
    if jobz:
        np.testing.assert_allclose((u[:, :k] * s) @ v[:, :k].T, G, atol=1e-12)
    else:
        assert not u.any() and not v.any()


@pytest.mark.parametrize(("target", "uplo", "lower"), [("cusolver_sytrd", 0, True), ("hipsolver_sytrd", 121, False)])
def test_sytrd_reads_the_fill_mode(target: str, uplo: int, lower: bool) -> None:
    from scipy.linalg import lapack

    text = _call(target, ["tensor<3x3xf64>"],
                 ["tensor<3x3xf64>", "tensor<3xf64>", "tensor<2xf64>", "tensor<2xf64>", "tensor<i32>", "tensor<6xf64>"],
                 _opaque(struct.pack("<6i", 1, uplo, 1, 3, 3, 6)))
    c, d, e, tau, info = lapack.dsytrd(np.tril(A) if lower else np.triu(A), lower=int(lower))[:5]
    got = run(parse(text), np.tril(A) if lower else np.triu(A))
    for g, w in zip(got, (c, d, e, tau)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


GTSV2_TYPES = ["tensor<4xf32>"] * 3 + ["tensor<4x2xf32>"]


@pytest.mark.parametrize("form", ["opaque", "ffi"])
@pytest.mark.parametrize("vendor", ["cu", "hip"])
def test_gtsv2_f32_solves(form: str, vendor: str) -> None:
    desc = struct.pack("<4i", 1, 4, 2, 4)
    if form == "ffi":
        target, config = f"{vendor}sparse_gtsv2_f32_ffi", f'mhlo.backend_config = {{opaque = "{_bytes(desc)}"}}'
    else:
        target, config = f"{vendor}sparse_gtsv2_f32", _opaque(desc)
    text = _call(target, GTSV2_TYPES, ["tensor<4x2xf32>", "tensor<32xi8>"],
                 config + ", operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]")
    dl = np.array([0, 1, 1, 1], np.float32)
    d = np.array([4, 4, 4, 4], np.float32)
    du = np.array([1, 1, 1, 0], np.float32)
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    x, work = run(parse(text), dl, d, du, b)
    t = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    np.testing.assert_allclose(t @ x, b, rtol=1e-5, atol=1e-5)
    assert work.dtype == np.int8 and not work.any()


PIVOT_FORMS = {
    "opaque": _opaque(struct.pack("<qii", 2, 3, 5)),
    "dict": "mhlo.backend_config = {batch_size = 2 : i64, pivot_size = 3 : i32, permutation_size = 5 : i32}",
    "size": "mhlo.backend_config = {permutation_size = 5 : i32}",
    "ffi": "mhlo.backend_config = {}",
}


@pytest.mark.parametrize("form", sorted(PIVOT_FORMS))
def test_lu_pivots_to_permutation_in_every_form(form: str) -> None:
    text = _call("hip_lu_pivots_to_permutation", ["tensor<2x3xi32>"], ["tensor<2x5xi32>"], PIVOT_FORMS[form],
                 row_major=True)
    (perm,) = run(parse(text), np.array([[2, 2, 4], [0, 1, 2]], np.int32))
    assert perm.tolist() == [[2, 0, 4, 3, 1], [0, 1, 2, 3, 4]]


ERRORS = [
    # (target, operand types, result types, config, error)
    ("cusolver_getrf", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xf64>"],
     _opaque(struct.pack("<5i", 1, 1, 3, 4, 7)), r"descriptor says m = 3, n = 4, but the operand shapes give m = 4, n = 3"),
    ("cusolver_getrf", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xf64>"],
     _opaque(struct.pack("<5i", 1, 1, 4, 3, 9)), r"workspace result is tensor<7xf64>, its descriptor says lwork = 9"),
    ("cusolver_getrf", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>"],
     _opaque(struct.pack("<5i", 1, 1, 4, 3, 7)), r"gives \(a, ipiv, info, work\), the op declares 3 results"),
    ("cusolver_getrf", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xf64>"],
     _opaque(struct.pack("<5i", 9, 1, 4, 3, 7)), r"names solver type 9, the operand is float64"),
    ("cusolver_getrf", ["tensor<4xf64>"], ["tensor<4xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xf64>"],
     _opaque(struct.pack("<5i", 1, 1, 4, 3, 7)), r"works on a \(batch of\) matrices, got operand shapes \[\[4\]\]"),
    ("cublas_getrf_batched", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<i32>", "tensor<7xi8>"],
     _opaque(struct.pack("<5i", 1, 1, 4, 3, 7)), r"holds 20 bytes, JAX's getrf_batched descriptor has 12"),
    ("hipsolver_sytrd", ["tensor<3x3xf64>"], ["tensor<3x3xf64>", "tensor<3xf64>", "tensor<2xf64>", "tensor<2xf64>", "tensor<i32>", "tensor<6xf64>"],
     _opaque(struct.pack("<6i", 1, 0, 1, 3, 3, 6)), r"fill mode 0 is not one of \[121, 122\]"),
    ("cusolver_gesvd", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xf64>", "tensor<4x4xf64>", "tensor<3x3xf64>", "tensor<i32>", "tensor<4xf64>"],
     _opaque(struct.pack("<5i2b2x", 1, 1, 4, 3, 4, ord("X"), ord("X"))), r"jobu \(a character code\) = 88 is not one of JAX's values \[65, 78, 83\]"),
    ("cusolver_gesvdj", ["tensor<4x3xf64>"], ["tensor<4x3xf64>", "tensor<3xf64>", "tensor<4x4xf64>", "tensor<3x3xf64>", "tensor<i32>", "tensor<4xf64>"],
     _opaque(struct.pack("<7i", 1, 1, 4, 3, 4, 2, 0)), r"jobz = 2 is not one of JAX's values \[0, 1\]"),
    ("cusparse_gtsv2_f64", GTSV2_TYPES, ["tensor<4x2xf32>", "tensor<32xi8>"],
     _opaque(struct.pack("<4i", 1, 4, 2, 4)), r"solves float64 systems \(its name says so\), the operands are float32"),
    ("cusparse_gtsv2_f32_ffi", GTSV2_TYPES, ["tensor<4x2xf32>", "tensor<32xi8>"],
     "mhlo.backend_config = {}", r"needs its packed descriptor as the mhlo.backend_config's 'opaque' string, got NoneType"),
    ("cusparse_gtsv2_f32", GTSV2_TYPES, ["tensor<4x2xf32>", "tensor<32xi8>"],
     _opaque(struct.pack("<4i", 1, 4, 3, 4)), r"descriptor says n = 3, but the right-hand sides' shape give n = 2"),
    ("cu_lu_pivots_to_permutation", ["tensor<2x3xi32>"], ["tensor<2x5xi32>"],
     "mhlo.backend_config = {permutation_size = 6 : i32}", r"says permutation_size = 6, but the pivots' and the permutation's shapes give permutation_size = 5"),
    ("cu_lu_pivots_to_permutation", ["tensor<2x3xi32>"], ["tensor<2x5xi32>"],
     "mhlo.backend_config = {size = 6 : i32}", r"attribute\(s\) size are in no form JAX wrote"),
    ("cu_lu_pivots_to_permutation", ["tensor<2x3xi32>"], ["tensor<2x5xi32>"],
     'mhlo.backend_config = {permutation_size = "5"}', r"attribute\(s\) permutation_size must be integers"),
    ("cu_lu_pivots_to_permutation", ["tensor<2x3xi32>"], ["tensor<2x5xi32>"],
     _opaque(struct.pack("<qi", 2, 3)), r"holds 12 bytes, JAX's lu_pivots_to_permutation descriptor has 16"),
]


@pytest.mark.parametrize(("target", "operands", "results", "config", "error"), ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_bad_old_forms_are_clear_errors(target: str, operands: list[str], results: list[str], config: str,
                                        error: str) -> None:
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    module = parse(_call(target, operands, results, config))
    args = [np.zeros(tuple(a.type.get_shape()), dtype_of_type(a.type))
            for a in module.body.block.ops.first.body.block.args]
    with pytest.raises(InterpreterError, match=error):
        run(module, *args)


def test_syevd_with_a_dynamic_batch_operand_and_result_shape_operands() -> None:
    """jax 0.4.30's syevd with a dynamic batch: descriptor batch -1, the batch size as operand #1,
    and (mk_result_types_and_shapes) the result shapes as operands listed in
    indices_of_shape_operands."""
    a = np.stack([A, 2 * A])
    shapes = ["tensor<3xi32>", "tensor<2xi32>", "tensor<1xi32>", "tensor<1xi32>"]
    text = _call("cusolver_syevd", ["tensor<2x3x3xf64>", "tensor<i32>", *shapes],
                 ["tensor<2x3x3xf64>", "tensor<2x3xf64>", "tensor<2xi32>", "tensor<8xf64>"],
                 _opaque(struct.pack("<5i", 1, 0, -1, 3, 8))
                 + ", indices_of_shape_operands = dense<[2, 3, 4, 5]> : tensor<4xi64>")
    sizes = [np.array(s, np.int32) for s in ([2, 3, 3], [2, 3], [2], [8])]
    v, w, info, _ = run(parse(text), a, np.int32(2), *sizes)
    assert not info.any()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-12)
    with pytest.raises(InterpreterError, match="says batch = 3, but the operand shapes give batch = 2"):
        run(parse(text), a, np.int32(3), *sizes)
