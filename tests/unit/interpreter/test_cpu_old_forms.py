"""JAX's old CPU custom calls, run from real artifacts an old jax wrote: the pre-FFI LAPACK targets
(`interpreter/custom_calls/lapack/legacy.py`; artifacts of jax 0.4.30 in
`tests/data/jax_old_forms/cpu/`) and the DUCC FFT (`interpreter/custom_calls/ducc_fft.py`; jax
0.4.20, `tests/data/jax_old_forms/cpu_fft/`), each read from its bytes, run, and compared with the
outputs that jax computed (the directories' README.md say how they were made); and, for LAPACK, the
errors for scalar operands that disagree with the shapes and for wrong operand or result counts
(the FFT's own errors: test_ducc_fft.py).  Needs numpy and scipy only (no jax).

Comparison: integers exactly; floats within `TOL` epsilons of the result's dtype times the largest
expected magnitude; eigenvectors, singular vectors and Schur vectors (unique only up to signs,
phases or a basis of a repeated eigenspace) by their defining identities
(`tests/linalg_identities.py`), with the eigen- and singular values against jax's."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("scipy")

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.lapack.legacy import FORMS, TARGETS, form_text
from stablehlo_py.interpreter.custom_calls import REGISTRY
from stablehlo_py.ir import parse
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from stablehlo_py.serialization import deserialize_portable_artifact
from tests.linalg_identities import assert_close, check_eig, check_eigh, check_schur, check_svd

DATA = Path(__file__).resolve().parents[2] / "data" / "jax_old_forms"
SETS = {"cpu": "0.4.30", "cpu_fft": "0.4.20"}
"""Data directory -> the jax version that wrote it."""
MANIFESTS = {d: json.loads((DATA / d / "manifest.json").read_text()) for d in SETS}
CASES: dict[str, dict[str, Any]] = MANIFESTS["cpu"]["cases"]
ALL_CASES = [f"{d}/{case}" for d, m in MANIFESTS.items() for case in sorted(m["cases"])]


def _meta(path: str) -> dict[str, Any]:
    directory, case = path.split("/")
    return MANIFESTS[directory]["cases"][case]


def _load(path: str) -> tuple[Any, list[np.ndarray], list[np.ndarray]]:
    module = deserialize_portable_artifact((DATA / f"{path}.mlirbc").read_bytes(), name=path)
    arrays = np.load(DATA / f"{path}.npz")
    meta = _meta(path)
    inputs = [arrays[f"input_{i}"] for i in range(len(meta["inputs"]))]
    expected = [arrays[f"expected_{i}"] for i in range(len(meta["outputs"]))]
    return module, inputs, expected


def _targets(module: Any) -> list[str]:
    calls = (op for op in module.walk() if op.name == "stablehlo.custom_call")
    return sorted({op.properties["call_target_name"].data for op in calls})


def _by_value(inputs: list[np.ndarray], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_close(g, w, f"result {i}")


def _svd(inputs: list[np.ndarray], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    u, s, vh = got
    check_svd(inputs[0], u, s, vh, want[1])


def _eigh(inputs: list[np.ndarray], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    w, v = got  # jnp.linalg.eigh: (eigenvalues, eigenvectors)
    check_eigh(inputs[0], v, w, want[0])


def _eig(inputs: list[np.ndarray], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    w, vr = got  # jnp.linalg.eig: right eigenvectors only (the call asks LAPACK for no left ones)
    check_eig(inputs[0], w, None, vr, want[0])


def _schur(inputs: list[np.ndarray], got: list[np.ndarray], want: list[np.ndarray]) -> None:
    t, z = got
    check_schur(inputs[0], t, z)


# function (the manifest's) -> how its results are checked; the others by value
IDENTITIES: dict[str, Callable[[list[np.ndarray], list[np.ndarray], list[np.ndarray]], None]] = {
    "svd": _svd,
    "svd_reduced": _svd,
    "eigh": _eigh,
    "eigh_batched": _eigh,
    "eig": _eig,
    "schur": _schur,
}


@pytest.mark.parametrize("directory", sorted(SETS))
def test_manifest_says_how_the_data_was_made(directory: str) -> None:
    written_by = MANIFESTS[directory]["written_by"]
    assert written_by["jax"] == SETS[directory] and written_by["platform"] == "cpu"
    assert set(IDENTITIES) <= {c["function"] for c in CASES.values()}


def test_artifacts_cover_every_old_target() -> None:
    """The 44 pre-FFI LAPACK names (11 routines x 4 types) each occur in at least one artifact,
    the FFT ones carry `dynamic_ducc_fft` (one of them shape-polymorphic)."""
    carried = {t for meta in CASES.values() for t in meta["custom_call_targets"]}
    assert carried == set(TARGETS), sorted(carried ^ set(TARGETS))
    fft = MANIFESTS["cpu_fft"]["cases"].values()
    assert all("dynamic_ducc_fft" in meta["custom_call_targets"] for meta in fft)
    assert any("symbolic_shapes" in meta for meta in fft)


def test_old_targets_are_registered_for_cpu() -> None:
    lasts = {
        f"{f.family}_{p}{f.routine[p in 'cz']}": f.last for f in FORMS.values() for p in "sdcz"
    }
    assert set(lasts) == set(TARGETS)
    for name, last in lasts.items():
        target = REGISTRY.get(name)
        assert target is not None, name
        assert target.platforms == frozenset({"cpu"}), name
        assert target.forms == (form_text(last),), name
    assert "(jax <= 0.4.33)" in REGISTRY.get("lapack_zgetrf").forms[0]


@pytest.mark.parametrize("path", ALL_CASES)
def test_old_jax_artifact(path: str) -> None:
    module, inputs, expected = _load(path)
    targets = _targets(module)
    assert targets == _meta(path)["custom_call_targets"], targets
    assert not any(t.endswith("_ffi") for t in targets), "the old form is what is checked"
    got = [np.asarray(x) for x in run(module, *inputs)]
    assert len(got) == len(expected)
    for i, (g, w) in enumerate(zip(got, expected, strict=True)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"result {i}: {g.dtype}{list(g.shape)}"
    IDENTITIES.get(_meta(path)["function"], _by_value)(inputs, got, expected)


# --------------------------------------------------------------------------------------------------
# errors: hand-written programs in the old form, one scalar or count changed

_LAYOUT = {  # rank -> JAX's layout (scalars, vectors; matrices column-major)
    0: "dense<> : tensor<0xindex>",
    1: "dense<0> : tensor<1xindex>",
    2: "dense<[0, 1]> : tensor<2xindex>",
}


def _program(
    target: str,
    scalars: list[tuple[str, str]],
    arrays: list[str],
    results: list[str],
    tupled: bool = False,
) -> str:
    """`main(arrays...)` calling `target(scalar constants..., arrays...)` -> results, as JAX's
    pre-FFI lowering writes it (scalar types `tensor<i32>` / `tensor<ui8>`, given with values); with
    `tupled`, as 2023's lowering wrote it: one `tuple<...>` result, taken apart with
    get_tuple_element."""
    lines = [f"  %s{i} = stablehlo.constant dense<{v}> : {t}" for i, (v, t) in enumerate(scalars)]
    operands = [f"%s{i}" for i in range(len(scalars))] + [f"%arg{i}" for i in range(len(arrays))]
    types = [t for _, t in scalars] + arrays

    def layouts(ts: list[str]) -> str:
        return ", ".join(_LAYOUT[len(re.findall(r"\d+x", t))] for t in ts)

    config = (
        f"{{api_version = 2 : i32, operand_layouts = [{layouts(types)}], "
        f"result_layouts = [{layouts(results)}]}}"
    )
    call = f"stablehlo.custom_call @{target}({', '.join(operands)}) {config} : ({', '.join(types)})"
    tuple_type = f"tuple<{', '.join(results)}>"
    if tupled:
        lines.append(f"  %t = {call} -> {tuple_type}")
        lines += [
            f"  %r{i} = stablehlo.get_tuple_element %t[{i}] : ({tuple_type}) -> {t}"
            for i, t in enumerate(results)
        ]
        outs = ", ".join(f"%r{i}" for i in range(len(results)))
    else:
        lines.append(f"  %r:{len(results)} = {call} -> ({', '.join(results)})")
        outs = ", ".join(f"%r#{i}" for i in range(len(results)))
    lines.append(f"  return {outs} : {', '.join(results)}")
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arrays))
    return f"func.func @main({params}) -> ({', '.join(results)}) {{\n" + "\n".join(lines) + "\n}\n"


I32 = "tensor<i32>"
A = "tensor<3x3xf32>"
SPD = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)


def _potrf(
    lower: str = "1", batch: str = "1", n: str = "3", *, batch_type: str = I32, n_type: str = I32,
    tupled: bool = False,
) -> str:
    scalars = [(lower, I32), (batch, batch_type), (n, n_type)]
    return _program("lapack_spotrf", scalars, [A], [A, I32], tupled)


@pytest.mark.parametrize(
    "form",
    ["as jax 0.4.30 wrote it", "scalars as tensor<i64> (2023's getrf)", "one tuple result (2023)"],
)
def test_hand_written_potrf_runs(form: str) -> None:
    """The variants JAX's 2023 artifacts carry (checked against the jax repository's back-compat
    data with tools/check_history_artifacts.py) run as the 0.4.30 form does."""
    text = {
        "as jax 0.4.30 wrote it": _potrf(),
        "scalars as tensor<i64> (2023's getrf)": _potrf(n_type="tensor<i64>"),
        "one tuple result (2023)": _potrf(tupled=True),
    }[form]
    factor, info = run(parse(text), SPD)
    np.testing.assert_allclose(np.tril(factor), np.linalg.cholesky(SPD), rtol=1e-6)
    assert info == 0


def _ints(*values: int) -> list[tuple[str, str]]:
    return [(str(v), I32) for v in values]


def _geqrf(lwork: int, results: list[str]) -> str:
    return _program("lapack_sgeqrf", _ints(1, 3, 3, lwork), [A], results)


def _trsm(trans_a: int, m: int) -> str:
    # left_side, lower, trans_a, diag, m, n, batch, alpha
    scalars = [*_ints(1, 1, trans_a, 0, m, 3, 1), ("1.0", "tensor<f32>")]
    return _program("blas_strsm", scalars, [A, A], [A])


U8 = "tensor<ui8>"
C = "tensor<3x3xcomplex<f32>>"
V = "tensor<3xf32>"
GEEV_RESULTS = [A, A, A, V, V, C, C, I32]

BAD_PROGRAMS: dict[str, tuple[str, str]] = {
    # name -> (program, a substring of the error)
    "n disagrees with the shape": (
        _potrf(n="4"),
        "operand #2 ('n') is 4, but it must be the matrix operand's number of columns: 3",
    ),
    "batch disagrees with the shape": (
        _potrf(batch="2"),
        "('batch') is 2, but it must be the product of the batch dimensions",
    ),
    "flag out of range": (_potrf(lower="2"), "operand #0 ('lower') is 2, JAX writes one of 0, 1"),
    "scalar of the wrong type": (
        _potrf(n="3.0", n_type="tensor<f32>"),
        "operand #2 ('n') must be a tensor<i32> scalar",
    ),
    "scalar beyond 32 bits": (
        _potrf(batch=str(2**32 + 1), batch_type="tensor<i64>"),
        "('batch') is 4294967297, which the kernel cannot read as a 32-bit integer",
    ),
    "matrix of another element type": (
        _program("lapack_spotrf", _ints(1, 1, 3), ["tensor<3x3xf64>"], ["tensor<3x3xf64>", I32]),
        "operand #3 ('a') must be a rank >= 2 tensor of float32 (the type the target's name promises), "
        "got float64[3, 3]",
    ),
    "tau of rank 0": (
        _program("lapack_sorgqr", _ints(1, 3, 3, 3, 8), [A, "tensor<f32>"], [A, I32, "tensor<8xf32>"]),
        "operand #6 ('tau') must be a rank >= 1 tensor of float32",
    ),
    "operand missing": (
        _program("lapack_spotrf", _ints(1, 3), [A], [A, I32]),
        "takes 4 operands (lower, batch, n, a), got 3",
    ),
    "result missing": (
        _geqrf(8, [A, V, I32]),
        "gives 4 results (a, tau, info, work), the op declares 3",
    ),
    "lwork disagrees with the workspace": (
        _geqrf(9, [A, V, I32, "tensor<8xf32>"]),
        "('lwork') is 9, but it must be the length of the declared 'work' result: 8",
    ),
    "job character JAX never writes": (
        _program("lapack_sgeev", [*_ints(1, 3), (str(ord("X")), U8), (str(ord("V")), U8)], [A],
                 GEEV_RESULTS),
        "operand #2 ('jobvl') is 'X', JAX writes one of 'V', 'N'",
    ),
    "transpose code out of range": (
        _trsm(trans_a=3, m=3),
        "operand #2 ('trans_a') is 3, JAX writes one of 0, 1, 2",
    ),
    "m of trsm disagrees with the right-hand sides": (
        _trsm(trans_a=0, m=2),
        "operand #4 ('m') is 2, but it must be the matrix operand's number of rows: 3",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_PROGRAMS))
def test_bad_old_form_is_a_clear_error(name: str) -> None:
    text, message = BAD_PROGRAMS[name]
    module = parse(text)
    main = next(op for op in module.walk() if op.name == "func.func")
    args = [np.ones(a.type.get_shape(), dtype_of_type(a.type)) for a in main.args]
    with pytest.raises(InterpreterError) as info:
        run(module, *args)
    assert message in str(info.value)
    assert "lapack_" in str(info.value) or "blas_" in str(info.value)  # names the target
