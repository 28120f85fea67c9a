"""JAX's own export back-compat test data run through our reader and interpreter.

The installed jax wheel ships real `jax.export` artifacts serialized for CPU, CUDA, ROCm and TPU,
each with its inputs and the outputs computed on that device (`tests/oracle/jax_back_compat.py`
reads them without importing jax).  For every test-data dict (ids like
`cuda_threefry2x32.py::data_2024_07_30`):

* `test_read`: `mlir_module_serialized` (a StableHLO portable artifact: MLIR bytecode of VHLO) read
  with `deserialize_portable_artifact`, and `mlir_module_text` parsed with `stablehlo_py.ir.parse`,
  both verify and print the same module (`TEXT_DIFFERENCES` lists what the VHLO round trip changes).
* `test_run`: the artifact runs on `inputs` (`run`, or `run_spmd` over `nr_devices` partitions for
  a partitioned export) and its results are compared with `expected_outputs`: same count, dtypes
  and shapes; integers and booleans exactly; PRNG results bit for bit (`EXACT`); floats within `TOL`
  machine epsilons of the largest expected magnitude.  Decompositions whose outputs are unique only
  up to signs, phases or a basis of a repeated eigenspace are checked by their defining identities
  (`IDENTITIES`: `A V = V diag(w)`, `Q R = A`, `U diag(s) Vh = A`, `P A = L U`, `S T S^H = A`, with
  orthonormality and the shape of the factors) on the operand the exported function computes, and
  by value where the values are unique (eigen- and singular values, LU factors given equal pivots).
  `test_identities_hold_on_device` applies the same checks to the device's own outputs, so a wrong
  operand or tolerance in this file shows there first.
* Expected failures are explicit.  `KNOWN_UNSUPPORTED` (targets we do not implement yet) and
  `KNOWN_BUGS` (a supported target that fails) map a file, or a `file::name[/key]` prefix, to a
  substring of today's error or mismatch, asserted: an entry that starts to pass FAILS the test
  until its line is deleted, so these lists can only shrink.  `USER_KERNELS` are programs that will
  never run (compiled Pallas/Triton/Mosaic kernels): they must fail with the refusal given.
  `IMPLEMENTATION_DEFINED` are results the spec leaves to the implementation, checked against the
  spec-conforming value we define instead of the device's.

Each wheel's own file set is read (jax 0.12 on Python 3.12, 0.10 on 3.11); the module is skipped
only when the installed jax has no test-data directory.  Everything runs in about 5 s.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import run_spmd
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from stablehlo_py.serialization import deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported
from tests.linalg_identities import (
    TOL,
    assert_bits,
    assert_close,
    bounded,
    check_eig,
    check_eigh,
    check_qr,
    check_schur,
    check_svd,
    eps,
    h,
    norm,
    small,
    wide,
)
from tests.oracle.jax_back_compat import REQUIRED_KEYS, Entry, Serialization, data_dir, load

DATA_DIR = data_dir()
if DATA_DIR is None:
    pytest.skip(
        "the installed jax has no jax/_src/internal_test_util/export_back_compat_test_data "
        "(or jax is not installed)",
        allow_module_level=True,
    )
COUNTS, ENTRIES, SERIALIZATIONS = load(DATA_DIR)

PLATFORMS = {"cpu", "cuda", "rocm", "tpu"}


def _unsupported(target: str) -> str:
    return f"InterpreterError: error: unsupported custom_call target '{target}'"


def _kernel(target: str, kind: str) -> str:
    return f"NotSupportedError: error: custom_call @{target} is a {kind} kernel"


# Targets we do not implement yet (issue 25; the step numbers are those of its plan,
# docs/plans/issue-25-custom-calls.md section 4.2).  Delete a line when its entries pass.
KNOWN_UNSUPPORTED: dict[str, str] = {}

# Supported targets that fail today (a bug to fix, with the exact error or mismatch).  None today.
KNOWN_BUGS: dict[str, str] = {}

# Compiled user kernels: never interpretable; refused with one error naming the kind (plan 1.6).
USER_KERNELS: dict[str, str] = {
    "pallas/mosaic_boolean_constant.py": _kernel("tpu_custom_call", "Pallas TPU (Mosaic)"),
    "pallas/mosaic_matmul.py": _kernel("tpu_custom_call", "Pallas TPU (Mosaic)"),
    "pallas/mosaic_semaphore_dma.py": _kernel("tpu_custom_call", "Pallas TPU (Mosaic)"),
    "pallas/mosaic_gpu_add_one.py": _kernel("mosaic_gpu_v2", "Pallas Mosaic GPU"),
    "pallas/triton_add_one.py": _kernel("__gpu$xla.gpu.triton", "Pallas Triton"),
}

EXPECTED_FAILURES = {
    "KNOWN_UNSUPPORTED": KNOWN_UNSUPPORTED,
    "KNOWN_BUGS": KNOWN_BUGS,
    "USER_KERNELS": USER_KERNELS,
}

# What reading the bytes changes against the module text JAX printed before serializing:
# `collective_permute` is stored in VHLO with its channel id only, and upstream's
# VhloLegalizeToStablehlo (convertChannelId) gives the channel type 0.
TEXT_DIFFERENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "tpu_Sharding.py::data_2025_06_30/gspmd": (
        (
            "#stablehlo.channel_handle<handle = 1, type = 1>",
            "#stablehlo.channel_handle<handle = 1, type = 0>",
        ),
    ),
}

# Float results within TOL machine epsilons (of the result's dtype) times the largest expected
# magnitude (`assert_close(relative=True)`); identity residuals within TOL eps x n x ||A||
# (Frobenius, per matrix of a batch): tests/linalg_identities.py.

# --------------------------------------------------------------------------------------------------
# comparisons


def _assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert_close(got, want, what, relative=True)


def _arange(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """`jnp.arange(prod(shape)).reshape(shape)`: the operand of JAX's qr/lu/eig harnesses."""
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def _eigh_input(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """JAX's `CompatTest.eigh_input`: the Hermitian part of `_arange` (the exported function passes
    its lower triangle with `symmetrize_input=False`, which is the same matrix)."""
    x = _arange(shape, dtype)
    return (x + h(x)) / 2


# --------------------------------------------------------------------------------------------------
# identities (JAX's check_*_results in tests/export_back_compat_test.py, stated as residual bounds;
# those of eigh, eig, schur, svd and qr in tests/linalg_identities.py)


def _check_eigh(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    v, w = got
    check_eigh(_eigh_input(v.shape, v.dtype), v, w, entry.expected[1])


def _check_eig(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    w, vl, vr = got
    check_eig(_arange(vr.shape, np.float64), w, vl, vr, entry.expected[0])


def _check_schur(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    t, s = got
    check_schur(entry.inputs[0], t, s)


def _check_svd(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    u, s, vh = got
    check_svd(entry.inputs[0], u, s, vh, entry.expected[1])


def _check_qr(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    q, r = got
    check_qr(_arange(r.shape, r.dtype), q, r)


def _check_lu(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    lu, pivots, perm = got
    lu_device, pivots_device, _ = entry.expected
    a = wide(_arange(lu.shape, lu.dtype))
    m, n = lu.shape[-2:]
    k, e = min(m, n), eps(lu)
    for idx in np.ndindex(*lu.shape[:-2]):
        f = wide(lu[idx])
        lower = np.tril(f[:, :k], -1) + np.eye(m, k)
        upper = np.triu(f[:k, :])
        p = np.arange(m)
        for i, j in enumerate(pivots[idx]):  # LAPACK's row interchanges, in order
            p[[i, j]] = p[[j, i]]
        assert np.array_equal(p, perm[idx]), f"permutation {perm[idx]} for pivots {pivots[idx]}"
        small("P A - L U", a[idx][p] - lower @ upper, norm(a[idx]), e, max(m, n))
        bounded("|L| (partial pivoting)", np.max(np.abs(lower)), 1 + TOL * e)
    if np.array_equal(pivots, pivots_device):  # given the pivots, L and U are unique
        _assert_close(lu, lu_device, "LU factors (same pivots as the device)")


# file -> identity check (of JAX's harness for that file)
IDENTITIES: dict[str, Callable[[Entry, tuple[np.ndarray, ...]], None]] = {
    "cpu_eig_lapack_geev.py": _check_eig,
    "cpu_eigh_lapack_syev.py": _check_eigh,
    "rocm_eigh_hipsolver_syev.py": _check_eigh,
    "cuda_eigh_cusolver_syev.py": _check_eigh,
    "gpu_eigh_solver_syev.py": _check_eigh,
    "tpu_Eigh.py": _check_eigh,
    "cpu_schur_lapack_gees.py": _check_schur,
    "cpu_svd_lapack_gesdd.py": _check_svd,
    "cuda_svd_cusolver_gesvd.py": _check_svd,
    "rocm_svd_hipsolver_gesvd.py": _check_svd,
    "cpu_qr_lapack_geqrf.py": _check_qr,
    "tpu_Qr.py": _check_qr,
    "cpu_lu_lapack_getrf.py": _check_lu,
    "tpu_Lu.py": _check_lu,
}

# PRNG: the bits are the semantics (jax.random.uniform of threefry bits: exact float arithmetic)
EXACT = {"cuda_threefry2x32.py", "rocm_threefry2x32.py"}


def _reduce_window_one_init(entry: Entry, got: tuple[np.ndarray, ...]) -> None:
    """JAX's test_tpu_stablehlo_dynamic_reduce_window_variadic: reduce_window of (x: f32, y: i32)
    with init values (1.0, 2), body (acc + x, acc - y), window (2, x.shape[0]), stride 1, VALID."""
    from numpy.lib.stride_tricks import sliding_window_view

    x, y = entry.inputs
    window = (2, x.shape[0])
    sums = [sliding_window_view(v, window).sum(axis=(-2, -1)) for v in (x, y)]
    assert_bits(got[0], (np.float32(1) + sums[0]).astype(np.float32), "x: init + window sum")
    assert_bits(got[1], (2 - sums[1]).astype(np.int32), "y: init - window sum")


# The spec leaves these results to the implementation; we check the value we define.
IMPLEMENTATION_DEFINED: dict[str, Callable[[Entry, tuple[np.ndarray, ...]], None]] = {
    # The spec's reduce_window applies init_values an implementation-defined number of times
    # ("interspersed with an implementation-defined amount of init_values"), which matters here
    # since (1.0, 2) is no identity of (add, subtract).  We (and XLA CPU) apply it once; the TPU
    # that wrote the data gave 27 (= 18 + 9 x 1.0) and -608 where one init gives 19 and -616.
    "tpu_stablehlo_dynamic_reduce_window.py::data_variadic_2023_06_17": _reduce_window_one_init,
}


# --------------------------------------------------------------------------------------------------
# lookup of the tables above


def _keys(entry: Entry) -> list[str]:
    """The table keys that name `entry`, most specific first: its id, its parents, its file."""
    parents = [f"{entry.file}::{'/'.join(entry.path[:i])}" for i in range(len(entry.path), 0, -1)]
    return [*parents, entry.file]


def _lookup(table: Mapping[str, Any], entry: Entry) -> tuple[str, Any] | None:
    for key in _keys(entry):
        if key in table:
            return key, table[key]
    return None


def _expected_failure(entry: Entry) -> tuple[str, str, str] | None:
    """(table name, key, error substring) of the entry's expected failure, if it has one."""
    found = [
        (name, *hit) for name, table in EXPECTED_FAILURES.items() if (hit := _lookup(table, entry))
    ]
    assert len(found) <= 1, f"{entry.id} is listed in more than one table: {found}"
    return found[0] if found else None


# --------------------------------------------------------------------------------------------------
# running


def _run(entry: Entry) -> list[np.ndarray]:
    module = deserialize_portable_artifact(entry.serialized, name=entry.id)
    if entry.nr_devices > 1:  # Exported.nr_devices: XLA compiles it for that many partitions
        return run_spmd(module, *entry.inputs, partitions=entry.nr_devices)
    return run(module, *entry.inputs)


def _check(entry: Entry, results: list[np.ndarray]) -> None:
    want = entry.expected
    got = tuple(np.asarray(r) for r in results)
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), (
            f"result {i}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        )
    special = _lookup(IMPLEMENTATION_DEFINED, entry) or _lookup(IDENTITIES, entry)
    if special:
        special[1](entry, got)
        return
    compare = assert_bits if entry.file in EXACT else _assert_close
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        compare(g, w, f"result {i}")


def _outcome(entry: Entry) -> str | None:
    """None when the entry runs and its results check; else the error or mismatch."""
    try:
        results = _run(entry)
    except StableHLOError as e:
        return f"{type(e).__name__}: {e}"
    try:
        _check(entry, results)
    except AssertionError as e:
        return f"mismatch: {e}"
    return None


def _id(item: Entry | Serialization) -> str:
    return item.id


# --------------------------------------------------------------------------------------------------
# tests


def test_every_file_holds_data() -> None:
    """A file this harness does not understand (a new layout in a newer wheel) is not skipped."""
    assert COUNTS, f"no data files in {DATA_DIR}"
    empty = [f for f, n in COUNTS.items() if n == 0]
    assert not empty, f"files with neither test-data dicts nor serializations: {empty}"
    for entry in ENTRIES:
        missing = REQUIRED_KEYS - set(entry.data)
        assert not missing, f"{entry.id}: missing keys {sorted(missing)}"
        platform = entry.data["platform"]
        assert platform in PLATFORMS, f"{entry.id}: platform {platform!r}"


TABLES: dict[str, Mapping[str, Any]] = {
    **EXPECTED_FAILURES,
    "TEXT_DIFFERENCES": TEXT_DIFFERENCES,
    "IDENTITIES": IDENTITIES,
    "IMPLEMENTATION_DEFINED": IMPLEMENTATION_DEFINED,
    "EXACT": dict.fromkeys(EXACT),
}


@pytest.mark.parametrize("table", TABLES)
def test_table_keys_name_entries(table: str) -> None:
    """Every key names entries of the installed wheel (or a file this wheel does not have)."""
    named = {key for entry in ENTRIES for key in _keys(entry)}
    stale = [k for k in TABLES[table] if k.split("::")[0] in COUNTS and k not in named]
    assert not stale, f"{table}: keys that name no entry: {stale}"


def test_lookup_takes_the_most_specific_key() -> None:
    entry = Entry("f.py", ("data_1", "qr", "f32"), {})
    table = {"f.py": "file", "f.py::data_1/qr": "variant", "f.py::data_1/qr/f64": "other"}
    assert _lookup(table, entry) == ("f.py::data_1/qr", "variant")
    assert _lookup({"f.py": "file"}, entry) == ("f.py", "file")
    assert _lookup({"g.py": "file", "f.py::data_1/q": "prefix, not a key"}, entry) is None


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_read(entry: Entry) -> None:
    module = deserialize_portable_artifact(entry.serialized, name=entry.id)  # verifies
    from_text = parse(entry.text, entry.id)
    verify(from_text)
    want = print_ir(from_text)
    for old, new in TEXT_DIFFERENCES.get(entry.id, ()):
        assert old in want, f"TEXT_DIFFERENCES[{entry.id!r}]: {old!r} is not in the text any more"
        want = want.replace(old, new)
    got = print_ir(module)
    lines = difflib.unified_diff(want.splitlines(), got.splitlines(), "text", "bytes", lineterm="")
    diff = "\n".join(lines)
    assert got == want, f"the artifact's module differs from mlir_module_text:\n{diff}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_run(entry: Entry) -> None:
    expected = _expected_failure(entry)
    outcome = _outcome(entry)
    if expected is None:
        targets = entry.data["custom_call_targets"]
        assert outcome is None, f"{entry.id} (targets {targets}): {outcome}"
        return
    table, key, substring = expected
    assert outcome is not None, f"{entry.id} passes now: delete {key!r} from {table}"
    assert substring in outcome, (
        f"{entry.id}: expected the failure {substring!r} ({table}[{key!r}]), got: {outcome}"
    )


IDENTITY_ENTRIES = [e for e in ENTRIES if _lookup(IDENTITIES, e)]


@pytest.mark.parametrize("entry", IDENTITY_ENTRIES, ids=_id)
def test_identities_hold_on_device(entry: Entry) -> None:
    """The identity check accepts the device's own outputs: its operand and tolerance are right."""
    _check(entry, list(entry.expected))


@pytest.mark.parametrize("item", SERIALIZATIONS, ids=_id)
def test_read_exported(item: Serialization) -> None:
    """`export_with_*.py`: serialized `Exported`s (flatbuffers) of every serialization version; the
    older ones are outside JAX's 6-month window (read with allow_expired)."""
    exported = read_jax_exported(item.exported, item.id, allow_expired=True)
    assert exported.platforms and set(exported.platforms) <= PLATFORMS, exported.platforms
    module = deserialize_portable_artifact(exported.mlir_module_serialized, name=item.id)
    main = next(op for op in module.walk() if op.name == "func.func" and op.sym_name.data == "main")
    # main takes the platform index first when the export is for more than one platform
    n_args = len(main.function_type.inputs.data)
    assert n_args == len(exported.in_avals) + (len(exported.platforms) > 1), (
        f"main has {n_args} arguments for {len(exported.in_avals)} avals on {exported.platforms}"
    )
