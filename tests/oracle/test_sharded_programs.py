"""Differential tests (`oracle` extra): sharded JAX programs, `jax.jit` with `NamedSharding` over 4 CPU
devices (`--xla_force_host_platform_device_count=4`, so JAX runs in a subprocess where the flag
applies), with `shard_map` regions and collectives inside them.  Each program is exported
(`jax.export`, GSPMD form: `@Sharding`, `@SPMDFullToShardShape`, `@SPMDShardToFullShape` custom
calls), read back from the serialized artifact by our reader, run by our interpreter once per
partition (`custom_calls/spmd.py`) and compared with what XLA computed on the 4 devices."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import needs_spmd, num_partitions, run_spmd
from stablehlo_py.serialization import deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported

from stablehlo_py.cli.translate import main as translate_main
from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir import parse, print_ir

SCRIPT = r"""
import json, os, sys
import numpy as np
import jax, jax.numpy as jnp
from jax import export
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

jax.config.update("jax_use_shardy_partitioner", False)  # the GSPMD custom-call form
out_dir = sys.argv[1]
assert jax.device_count() == 4, jax.devices()
auto = (AxisType.Auto, AxisType.Auto)
mesh22 = jax.make_mesh((2, 2), ("x", "y"), axis_types=auto)
mesh4 = jax.make_mesh((4,), ("i",), axis_types=(AxisType.Auto,))
rng = np.random.default_rng(0)


def ns(mesh, *spec):
    return NamedSharding(mesh, P(*spec))


def matmul_constraint(a, b):
    c = jnp.sin(a) @ b
    c = jax.lax.with_sharding_constraint(c, ns(mesh22, "x", None))
    return jnp.tanh(c) + 1.0, c.sum(axis=0)


def psum_region(a, b):
    c = jnp.sin(a) @ b
    def body(u, v):
        return u * 2 + jax.lax.psum(v.sum(), "y")
    d = jax.shard_map(body, mesh=mesh22, in_specs=(P("x", "y"), P(None, "y")), out_specs=P("x", "y"))(c, b)
    return d.T @ a


def collectives_region(a):
    def body(u):
        g = jax.lax.all_gather(u, "i", tiled=True)            # every device: the whole column
        s = jax.lax.psum_scatter(u * 2, "i", scatter_dimension=1, tiled=True)
        r = jax.lax.ppermute(u, "i", perm=[(k, (k + 1) % 4) for k in range(4)])
        k = jax.lax.axis_index("i").astype(u.dtype)
        return g.sum(axis=0, keepdims=True) + r * k, s, jax.lax.pmax(u, "i")
    f = jax.shard_map(body, mesh=mesh4, in_specs=P("i", None),
                      out_specs=(P("i", None), P("i", None), P(None, None)))
    x, s, m = f(a)
    return x + 1.0, s, m


def two_regions(a, b):
    def scale(u):
        return u * (jax.lax.axis_index("x") + 1).astype(u.dtype)
    first = jax.shard_map(scale, mesh=mesh22, in_specs=P("x", None), out_specs=P("x", None))(a)
    mixed = jnp.exp(first / 10.0) @ b
    def total(u):
        return jax.lax.psum(u, ("x", "y"))
    second = jax.shard_map(total, mesh=mesh22, in_specs=P("x", "y"), out_specs=P(None, None))(mixed)
    return mixed, second


def int_region(a):
    def body(u):
        return jax.lax.psum(u, "i") - u, jax.lax.pmin(u, "i")
    return jax.shard_map(body, mesh=mesh4, in_specs=P(None, "i"), out_specs=(P(None, "i"), P()))(a)


def partial_manual(a):
    # manual over "x" only; "y" stays automatic inside the region
    body = lambda u: u * 2 + jax.lax.psum(u, "x")
    return jax.shard_map(body, mesh=mesh22, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(a)


CASES = {
    "partial_manual": (partial_manual, [(8, 4)], np.float32, (ns(mesh22, "x", "y"),)),
    "matmul_constraint": (matmul_constraint, [(8, 4), (4, 4)], np.float32,
                          (ns(mesh22, "x", None), ns(mesh22, None, "y"))),
    "psum_region": (psum_region, [(8, 4), (4, 4)], np.float32,
                    (ns(mesh22, "x", None), ns(mesh22, None, "y"))),
    "collectives_region": (collectives_region, [(8, 4)], np.float32, (ns(mesh4, "i", None),)),
    "two_regions": (two_regions, [(4, 6), (6, 4)], np.float32,
                    (ns(mesh22, "x", None), ns(mesh22))),
    "int_region": (int_region, [(3, 8)], np.int32, (ns(mesh4, None, "i"),)),
}

index = {}
for name, (fn, shapes, dtype, shardings) in CASES.items():
    if np.dtype(dtype).kind == "f":
        args = [rng.normal(size=s).astype(dtype) for s in shapes]
    else:
        args = [rng.integers(-50, 50, size=s).astype(dtype) for s in shapes]
    jf = jax.jit(fn, in_shardings=shardings)
    exp = export.export(jf)(*args)
    outs = jax.tree_util.tree_leaves(jf(*[jax.device_put(a, s) for a, s in zip(args, shardings)]))
    with open(os.path.join(out_dir, name + ".exported"), "wb") as f:
        f.write(exp.serialize())
    np.savez(os.path.join(out_dir, name + ".npz"),
             **{f"arg{k}": a for k, a in enumerate(args)},
             **{f"out{k}": np.asarray(o) for k, o in enumerate(outs)})
    index[name] = {"args": len(args), "outs": len(outs), "nr_devices": exp.nr_devices}

# a host callback: its lowering, as text (jax.export refuses to serialize it)
def with_callback(x):
    y = jax.pure_callback(lambda v: np.asarray(v) * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y + 1.0
with open(os.path.join(out_dir, "callback.mlir"), "w") as f:
    f.write(jax.jit(with_callback).lower(np.ones(3, np.float32)).as_text())

with open(os.path.join(out_dir, "index.json"), "w") as f:
    json.dump(index, f)
"""


def export_programs(out: Path, script: str) -> Path:
    """Run ``script`` (SCRIPT or a variant) in a subprocess with 4 CPU devices; it writes to ``out``."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
    ).strip()
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run(
        [sys.executable, "-c", script, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export_programs(tmp_path_factory.mktemp("sharded"), SCRIPT)


CASES = [
    "matmul_constraint",
    "psum_region",
    "collectives_region",
    "two_regions",
    "int_region",
    "partial_manual",
]


def _load(exported: Path, name: str):
    meta = json.loads((exported / "index.json").read_text())[name]
    data = (exported / f"{name}.exported").read_bytes()
    module = deserialize_portable_artifact(read_jax_exported(data).mlir_module_serialized)
    arrays = np.load(exported / f"{name}.npz")
    args = [arrays[f"arg{k}"] for k in range(meta["args"])]
    outs = [arrays[f"out{k}"] for k in range(meta["outs"])]
    return module, args, outs, meta


def _compare(ours, xla) -> None:
    assert len(ours) == len(xla)
    for k, (g, w) in enumerate(zip(ours, xla)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w, err_msg=f"result #{k}")
        else:
            scale = max(1.0, float(np.max(np.abs(w))))
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5 * scale, err_msg=f"result #{k}")


@pytest.mark.parametrize("name", CASES)
def test_sharded_program_matches_xla(exported: Path, name: str) -> None:
    module, args, outs, meta = _load(exported, name)
    assert meta["nr_devices"] == 4 and num_partitions(module) == 4
    _compare(run_spmd(module, *args), outs)


@pytest.mark.parametrize("name", CASES)
def test_regions_are_detected(exported: Path, name: str) -> None:
    module, *_ = _load(exported, name)
    text = print_ir(module)
    assert "@Sharding" in text
    assert needs_spmd(module) == ("SPMDFullToShardShape" in text)
    assert needs_spmd(module) == (name != "matmul_constraint")


def test_global_program_without_regions_runs_in_one_process(exported: Path) -> None:
    module, args, outs, _ = _load(exported, "matmul_constraint")
    _compare(run(module, *args), outs)


@pytest.mark.parametrize("name", ["psum_region", "int_region"])
def test_run_runs_a_partitioned_program_once_per_partition(exported: Path, name: str) -> None:
    module, args, outs, _ = _load(exported, name)
    _compare(run(module, *args), outs)


def test_a_region_run_as_one_partition_says_how_to_run_it(exported: Path) -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator

    module, args, _, _ = _load(exported, "psum_region")
    with pytest.raises(NotSupportedError, match="run_spmd"):
        Evaluator(module).call("main", list(args))


def test_cli_interprets_a_partitioned_program(exported: Path, tmp_path: Path, capsys) -> None:
    module, args, outs, _ = _load(exported, "int_region")
    path = tmp_path / "int_region.mlir"
    path.write_text(print_ir(module))
    (a,) = args
    dense = "[" + ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in a) + "]"
    rc = translate_main(
        [
            "--interpret",
            "--interpreter-print-dense",
            f"--args=[dense<{dense}> : tensor<3x8xi32>]",
            str(path),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    got = [line for line in out.splitlines() if line.startswith("dense<")]
    assert len(got) == 2
    want0 = (
        "dense<["
        + ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in outs[0])
        + "]>"
    )
    assert got[0].startswith(want0)


def test_host_callback_is_refused_with_the_reason(exported: Path) -> None:
    module = parse((exported / "callback.mlir").read_text())
    with pytest.raises(NotSupportedError) as e:
        run(module, np.ones(3, np.float32))
    msg = str(e.value)
    assert "host callback" in msg and "not part of the" in msg
