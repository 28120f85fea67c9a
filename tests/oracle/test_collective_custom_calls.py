"""Differential tests (`oracle` extra): JAX's collectives that are not StableHLO ops, exported from a
`shard_map` over 8 CPU devices (`--xla_force_host_platform_device_count=8`, in a subprocess where
the flag applies) and run by our interpreter once per partition (`spmd.run_spmd`) from the
serialized artifact:

- the async collectives (`all_gather_start`, `psum_start`, `psum_scatter_start`,
  `all_to_all_start`, `ppermute_start` and their `.done()`): jax >= 0.12 writes them as custom
  calls (`@"all-gather-start"` ... with `async_collective_config`, exported only with
  `DisabledSafetyCheck.custom_call`), jax 0.10-0.11 as `stablehlo.async_start`/`async_done` ops;
  both forms are compared with what XLA computed on the 8 devices;
- `jax.lax.ragged_all_to_all` (`@ragged_all_to_all`, api_version 4): XLA's CPU backend does not
  implement it ("HLO opcode `ragged-all-to-all` is not supported by XLA:CPU", jaxlib 0.10.2 and
  0.12.0.1), so the interpreter's results are compared with the numpy model of XLA's semantics
  (tests/unit/collectives_model.py); should a jaxlib run it, XLA's results are compared too."""

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

from stablehlo_py.interpreter.custom_calls.spmd import run_spmd
from stablehlo_py.serialization import deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported

from stablehlo_py.ir import print_ir
from tests.unit.collectives_model import ragged_all_to_all_model

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, os, sys
import numpy as np
import jax, jax.numpy as jnp
from jax import export
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from jax._src.lax import parallel as par
from jaxlib.mlir.dialects import stablehlo
from tests.unit.collectives_model import ragged_case

out_dir = sys.argv[1]
assert jax.device_count() == 8, jax.devices()
mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
line = Mesh(np.array(jax.devices()), ("i",))
ASYNC = [f"{c}-{p}" for c in ("all-gather", "all-reduce", "reduce-scatter", "all-to-all",
                             "collective-permute") for p in ("start", "done")]
checks = [export.DisabledSafetyCheck.custom_call(t) for t in ASYNC + ["ragged_all_to_all"]]
rng = np.random.default_rng(0)


def smap(body, m=mesh, spec=P("x", "y"), n_in=1):
    return jax.shard_map(body, mesh=m, in_specs=(spec,) * n_in, out_specs=spec)


def overlapped(u):
    a = par.all_gather_start(u, "x", tiled=True)
    b = par.psum_start(u, "y")
    return a.done()[:4] + b.done()


ASYNC_CASES = {
    "all_gather": (lambda u: par.all_gather_start(u, "y", tiled=True).done(), np.float32),
    "psum": (lambda u: par.psum_start(u, "x").done(), np.float32),
    "psum_int": (lambda u: par.psum_start(u, ("x", "y")).done(), np.int32),
    "psum_scatter": (
        lambda u: par.psum_scatter_start(u, "y", scatter_dimension=1, tiled=True).done(), np.float32
    ),
    "all_to_all": (lambda u: par.all_to_all_start(u, "y", 1, 1, tiled=True).done(), np.float32),
    # split 1, concat 0: jax 0.10's async_start region then holds reshapes, which XLA refuses
    "all_to_all_10": (lambda u: par.all_to_all_start(u, "y", 1, 0, tiled=True).done(), np.float32),
    "ppermute": (
        lambda u: par.ppermute_start(u, "y", perm=[(k, (k + 1) % 4) for k in range(4)]).done(),
        np.float32,
    ),
    "overlapped": (overlapped, np.float32),
}

index = {"stablehlo": list(stablehlo.get_current_version().split(".")), "jax": jax.__version__}


def save(name, f, args, outs, error=None):
    exp = export.export(f, disabled_checks=checks)(*args)
    with open(os.path.join(out_dir, name + ".exported"), "wb") as fh:
        fh.write(exp.serialize())
    arrays = {f"arg{k}": a for k, a in enumerate(args)}
    arrays.update({f"out{k}": np.asarray(o) for k, o in enumerate(outs)})
    np.savez(os.path.join(out_dir, name + ".npz"), **arrays)
    index[name] = {"args": len(args), "outs": len(outs), "xla_error": error}


for name, (body, dtype) in ASYNC_CASES.items():
    x = rng.integers(-20, 20, size=(8, 16)).astype(dtype)
    f = jax.jit(smap(body))
    try:
        outs, error = [f(x)], None
    except Exception as e:
        outs, error = [], str(e)[:300]
    save(name, f, [x], outs, error)

RAGGED = {
    # (mesh, axis, axis_index_groups, updates per peer, row shape)
    "ragged_y": (mesh, "y", None, 2, (3,)),
    "ragged_groups": (line, "i", [[0, 2, 4, 6], [1, 3, 5, 7]], 1, ()),
}
for name, (m, axis, groups, k, row) in RAGGED.items():
    names = m.axis_names
    group_rows = groups or [list(g) for g in np.arange(8).reshape(2, 4)]
    case = ragged_case(rng, group_rows, k, row)
    def body(*a, axis=axis, groups=groups):
        a = [x[0] for x in a]
        return par.ragged_all_to_all(*a, axis_name=axis, axis_index_groups=groups)[None]
    f = jax.jit(smap(body, m, P(names), 6))
    args = case.args()
    try:
        outs, error = [f(*args)], None
    except Exception as e:  # XLA:CPU does not implement ragged-all-to-all
        outs, error = [], str(e)[:300]
    save(name, f, args, outs, error)

with open(os.path.join(out_dir, "index.json"), "w") as fh:
    json.dump(index, fh)
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("collective_calls")
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
    env["XLA_FLAGS"] = flags.strip()
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(out)],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _load(exported: Path, name: str):
    index = json.loads((exported / "index.json").read_text())
    meta = index[name]
    data = (exported / f"{name}.exported").read_bytes()
    module = deserialize_portable_artifact(read_jax_exported(data).mlir_module_serialized)
    arrays = np.load(exported / f"{name}.npz")
    args = [arrays[f"arg{k}"] for k in range(meta["args"])]
    outs = [arrays[f"out{k}"] for k in range(meta["outs"])]
    return module, args, outs, meta, index


ASYNC_CASES = [
    "all_gather", "psum", "psum_int", "psum_scatter", "all_to_all", "all_to_all_10", "ppermute",
    "overlapped",
]


@pytest.mark.parametrize("name", ASYNC_CASES)
def test_async_collectives_match_xla(exported: Path, name: str) -> None:
    module, args, outs, meta, index = _load(exported, name)
    text = print_ir(module)
    # jaxlib 0.12 (StableHLO 1.22) writes custom calls; jaxlib 0.10 (1.17) stablehlo.async_start ops
    custom = tuple(int(v) for v in index["stablehlo"][:2]) >= (1, 22)
    assert ('-start"(' in text) == custom and ('-done"(' in text) == custom, text[:2000]
    assert ("stablehlo.async_start" in text) != custom
    (got,) = run_spmd(module, *args)
    if meta["xla_error"] is not None:
        # only jax 0.10's async_start form of an all_to_all that moves data between dimensions:
        # XLA's verifier wants nothing but the collective inside the async region
        assert not custom and name == "all_to_all_10", meta["xla_error"]
        assert "Asynchronous computation" in meta["xla_error"]
        return
    (want,) = outs
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def _groups(module) -> list[list[int]]:
    for op in module.walk():
        target = op.properties.get("call_target_name") if op.name == "stablehlo.custom_call" else None
        if target is not None and target.data == "ragged_all_to_all":
            config = op.properties["backend_config"].data
            return np.asarray(_dense(config["replica_groups"])).tolist()
    raise AssertionError("no ragged_all_to_all in the program")


def _dense(attr):
    from stablehlo_py.interpreter.custom_calls.attributes import python_value

    return python_value(attr)


@pytest.mark.parametrize("name", ["ragged_y", "ragged_groups"])
def test_ragged_all_to_all_matches_xlas_semantics(exported: Path, name: str) -> None:
    module, args, outs, meta, _ = _load(exported, name)
    groups = _groups(module)
    assert sorted(d for g in groups for d in g) == list(range(8))
    (got,) = run_spmd(module, *args)
    want = ragged_all_to_all_model(groups, *args[:5])
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(want, args[1])
    if outs:  # a jaxlib whose CPU backend runs it
        np.testing.assert_array_equal(got, outs[0])
    else:
        assert "ragged-all-to-all" in meta["xla_error"], meta["xla_error"]
