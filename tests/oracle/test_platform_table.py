"""Issue 25's Done-when table: every JAX function of `platform_table.ROWS`, exported for each of
`platforms=["cpu"]`, `["cuda"]`, `["rocm"]`, `["tpu"]` at each dtype it allows, runs in our
interpreter and agrees with XLA CPU running the CPU export.

A cell goes the way a user's artifact goes: `Exported.serialize()`, our `read_jax_exported` and
`deserialize_portable_artifact` (a VHLO portable artifact), `run`.  Shape-polymorphic rows are
exported once with symbolic shapes and run at each of `POLY_SIZES`, as exported and after
`refine_polymorphic_shapes` (which must leave no dynamic type).  The comparison is the row's
(`platform_table` docstring): by value, bit for bit, or by a decomposition's identities
(`tests/linalg_identities.py`'s `CHECKS`).  Exports and XLA CPU's results are cached per row and
dtype, so XLA compiles each function once per dtype (and size).

`python tools/platform_table_report.py` prints the counts per platform and dtype.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("jax.export")

from stablehlo_py.interpreter import run
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.interpreter.printing import type_of_value
from stablehlo_py.serialization import deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported
from tests.oracle import platform_table as table
from tests.linalg_identities import CHECKS, assert_bits, assert_close


pytestmark = pytest.mark.usefixtures("x64")  # tests/oracle/conftest.py


def _cells() -> list[Any]:
    cells = []
    for row in table.ROWS:
        for platform in row.platforms:
            for dtype in row.dtypes:
                reason = row.pending.get(f"{platform}/{dtype}") or row.pending.get(platform)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                cells.append(pytest.param(row.name, platform, dtype, marks=marks,
                                          id=f"{row.name}-{platform}-{dtype}"))
    return cells


@cache
def exported(name: str, platform: str, dtype: str) -> Any:
    """The row's export for ``platform`` (or the exception JAX raised)."""
    try:
        return table.export(table.ROW[name], platform, dtype)
    except Exception as e:  # noqa: BLE001 -- asserted by the caller
        return e


@cache
def reference(name: str, dtype: str, n: int) -> list[np.ndarray]:
    """XLA CPU running the CPU export on the row's arguments of size ``n``."""
    row = table.ROW[name]
    cpu = table.export_reference(row, dtype) if row.reference else exported(name, "cpu", dtype)
    results = cpu.call(*table.arguments(row, dtype, n))
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(results)]


def _compare(row: table.Row, args: tuple[np.ndarray, ...], got: list[np.ndarray],
             want: list[np.ndarray]) -> None:
    assert len(got) == len(want), f"{len(got)} results, XLA CPU has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), (
            f"result {i}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"
        )
    if row.compare in CHECKS:
        CHECKS[row.compare](args[0], got, want)
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if row.compare == "bits":
            assert_bits(g, w, f"result {i}")
        elif row.compare == "value":
            assert_close(g, w, f"result {i}", n=max(table.N, *g.shape[-2:]) if g.ndim else table.N)
        else:
            assert row.compare == "shape", f"unknown comparison {row.compare!r}"


@pytest.mark.parametrize(("name", "platform", "dtype"), _cells())
def test_cell(name: str, platform: str, dtype: str) -> None:
    row = table.ROW[name]
    if table.JAX_VERSION < row.since:
        pytest.skip(f"jax {jax.__version__} is older than {'.'.join(map(str, row.since))}")
    exp = exported(name, platform, dtype)
    if platform in row.not_lowered:
        assert isinstance(exp, (NotImplementedError, ValueError)), (
            f"JAX now exports {name} for {platform}: delete its not_lowered entry"
        )
        pytest.skip(f"not lowered by JAX for this platform: {row.not_lowered[platform]}")
    if isinstance(exp, Exception):
        raise exp
    if row.config:  # e.g. the GPU threefry kernel: the export must call it
        assert "threefry2x32_ffi" in exp.mlir_module()
    artifact = read_jax_exported(exp.serialize(), f"{name}/{platform}/{dtype}")
    assert artifact.platforms == (platform,)
    module = deserialize_portable_artifact(artifact.mlir_module_serialized, name=name)
    for n in table.POLY_SIZES if row.poly else (table.N,):
        args = table.arguments(row, dtype, n)
        want = reference(name, dtype, n)
        module_args = artifact.module_arguments(args)
        _compare(row, args, _results(artifact, module, module_args), want)
        if row.poly:
            from stablehlo_py.passes.stablehlo_refine_polymorphic_shapes import (
                refine_polymorphic_shapes,
            )

            types = [type_to_str(type_of_value(np.asarray(a))) for a in module_args]
            static = refine_polymorphic_shapes(
                deserialize_portable_artifact(artifact.mlir_module_serialized, name=name), types
            )
            _compare(row, args, _results(artifact, static, module_args), want)


def _results(artifact: Any, module: Any, module_args: list[Any]) -> list[np.ndarray]:
    return [np.asarray(x) for x in artifact.module_results(run(module, *module_args))]


def test_every_entry_point_is_listed() -> None:
    """Each public name of `jnp.linalg` and `jax.scipy.linalg` has a row or is in LEFT_OUT."""
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    for prefix, module, short in (("jnp.linalg", jnp.linalg, "jnp.linalg"),
                                  ("jax.scipy.linalg", jsl, "jsl")):
        names = {n for n in dir(module) if not n.startswith("_")}
        rows = {r.name.split("[")[0].removeprefix(short + ".") for r in table.ROWS
                if r.name.startswith(short + ".")}
        left = set(table.LEFT_OUT[prefix])
        assert not rows & left, f"{prefix}: both a row and left out: {sorted(rows & left)}"
        assert names - left <= rows, f"{prefix}: no row for {sorted(names - left - rows)}"


def test_table_has_at_least_forty_functions() -> None:
    assert len({r.name.split("[")[0] for r in table.ROWS}) >= 40


KERNEL_CELLS = [
    (r.name, p, d) for r in table.ROWS if r.config for p in r.platforms for d in r.dtypes
]


@pytest.mark.parametrize(("name", "platform", "dtype"), KERNEL_CELLS)
def test_gpu_kernel_equals_default_lowering(name: str, platform: str, dtype: str) -> None:
    """Our interpretation of JAX's GPU Threefry kernel (`cu/hip_threefry2x32_ffi`) gives the bits
    of our interpretation of the default lowering (Threefry in StableHLO), whatever is computed
    from them (the normal rows compare with XLA only by value: numpy's erf_inv is not XLA's)."""
    row = table.ROW[name]
    default = name.removesuffix("[gpu_kernel]")
    args = table.arguments(row, dtype)
    results = []
    for which in (name, default):
        artifact = read_jax_exported(exported(which, platform, dtype).serialize(), which)
        module = deserialize_portable_artifact(artifact.mlir_module_serialized, name=which)
        results.append(_results(artifact, module, artifact.module_arguments(args)))
    assert "threefry2x32_ffi" in exported(name, platform, dtype).mlir_module()
    assert "threefry2x32_ffi" not in exported(default, platform, dtype).mlir_module()
    for i, (kernel, plain) in enumerate(zip(*results, strict=True)):
        assert_bits(kernel, plain, f"result {i}")


def test_report_counts_junit_outcomes(tmp_path: Any) -> None:
    """tools/platform_table_report.py reads pytest's JUnit XML: a cell's platform and dtype from
    its id (row names may hold brackets and dashes), skip vs xfail by the skipped element's type,
    a strict XPASS as a failure."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "platform_table_report.py"
    spec = importlib.util.spec_from_file_location("platform_table_report", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    xml = tmp_path / "r.xml"
    xml.write_text(
        '<testsuites><testsuite>'
        '<testcase name="test_cell[jnp.linalg.qr-cpu-f32]"/>'
        '<testcase name="test_cell[a.b[x,y-z]-cuda-c128]">'
        '<skipped type="pytest.skip" message="s1"/></testcase>'
        '<testcase name="test_cell[a.b[x,y-z]-cuda-f32]">'
        '<skipped type="pytest.xfail" message="x1"/></testcase>'
        '<testcase name="test_cell[r-tpu-u8]"><failure message="[XPASS(strict)] x2"/></testcase>'
        '<testcase name="test_other"/>'
        "</testsuite></testsuites>"
    )
    by_dtype, by_row, reasons = tool._collect(xml)
    assert {k: dict(v) for k, v in by_dtype.items()} == {
        ("cpu", "f32"): {"pass": 1}, ("cuda", "c128"): {"skip": 1},
        ("cuda", "f32"): {"xfail": 1}, ("tpu", "u8"): {"fail": 1},
    }
    assert dict(by_row[("a.b[x,y-z]", "cuda")]) == {"skip": 1, "xfail": 1}
    assert dict(reasons) == {
        ("skip", "s1"): 1, ("xfail", "x1"): 1, ("fail", "[XPASS(strict)] x2"): 1
    }
