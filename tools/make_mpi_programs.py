"""Write issue 29's sharded JAX programs (``tests/data/mpi/``; docs/plans/issue-29-mpi.md §5.1).

Each program is ``jax.jit`` over 8 CPU devices (meshes ``("i",) = 8`` and ``("x", "y") = (2, 4)``),
exported with ``jax.export`` and written as MLIR text without locations, gzipped
(``<name>.mlir.gz``), beside ``<name>.npz`` holding its arguments (``arg<k>``, from a generator
seeded by the program's name; ``gspmd_<p>`` gets ``<p>``'s) and what XLA computed for them on the
8 devices (``out<k>``).
``manifest.json`` lists the programs, what each exercises, its form (Shardy, GSPMD custom calls,
global view, pmap), replicas and partitions (the module's ``mhlo.num_replicas`` and
``mhlo.num_partitions``), argument and result types, and the jax/jaxlib that wrote them.

- ``pmap`` cannot be exported (``jax.export`` wants a ``jit``): its text is ``.lower().as_text()``.
- ``gspmd_*`` are three programs again with ``jax_use_shardy_partitioner=False``
  (``@SPMDFullToShardShape``/``@SPMDShardToFullShape`` custom calls), on the same arguments.
- ``async_collectives`` holds ``psum_start``/``all_gather_start`` (custom calls in jax 0.12,
  exported with their safety checks disabled).
- ``big.mlir.gz`` is the 2 GiB done-when program of plan §3.4 (``f32[128, 4194304]`` tiled over
  ``i``): text only, exported from abstract arguments; no data and no XLA run.

Run with jax (the ``oracle`` extra; the files were written by jax 0.12):

    python tools/make_mpi_programs.py            write every program into tests/data/mpi/
    python tools/make_mpi_programs.py --check    regenerate into a temporary directory and compare
    python tools/make_mpi_programs.py big [--out DIR]   write only the 2 GiB program's text

``--check`` compares texts with locations removed, arguments bit for bit, and XLA's outputs bit
for bit or, should XLA differ from run to run, within ``stablehlo_py.backends.tolerance`` for the
dtype (integers exactly); the manifest must be equal but for the versions.  It exits 1 naming
every file that differs (and how), 0 printing ``current``.

The script sets ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` and ``JAX_PLATFORMS=cpu``
itself, before it imports jax.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "mpi"
DEVICES = 8
SEED = 29
BIG_SHAPE = (128, 4194304)


@dataclass(frozen=True)
class Program:
    name: str
    exercises: str
    form: str  # "global", "shardy", "gspmd", "pmap"
    mesh: str  # "m8" or "m24"
    build: Callable[[Any], tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]], tuple]]
    # build(ctx) -> (function, [(shape, dtype)] per argument, in_shardings)

    @property
    def seed_name(self) -> str:
        """The name seeding the arguments: a GSPMD twin gets its Shardy program's arguments."""
        return self.name.removeprefix("gspmd_")


# ---------------------------------------------------------------------------------- programs
# Each builder gets a context with jax, jnp, the meshes and helpers; it returns the function, the
# argument shapes and dtypes, and the in_shardings.  Shapes are small: the committed directory
# stays well under 1 MB.


def _jit_matmul(c):
    jnp, lax = c.jnp, c.jax.lax

    def f(a, b):
        y = jnp.tanh(a @ b)
        y = lax.with_sharding_constraint(y, c.ns(c.m24, "x", "y"))
        return y, y.sum(axis=1)

    return f, [((8, 16), "float32"), ((16, 8), "float32")], (
        c.ns(c.m24, "x", None), c.ns(c.m24, None, "y"))


def _jit_mlp(c):
    jax, jnp = c.jax, c.jnp

    def f(x, w1, w2):
        h = jax.nn.relu(x @ w1)
        h = jax.lax.with_sharding_constraint(h, c.ns(c.m24, "x", "y"))
        return jax.nn.softmax(h @ w2, axis=-1)

    return f, [((16, 8), "float32"), ((8, 32), "float32"), ((32, 8), "float32")], (
        c.ns(c.m24, "x", None), c.ns(c.m24, None, "y"), c.ns(c.m24, "y", None))


def _sm_psum(c):
    lax, P = c.jax.lax, c.P

    def f(a, b):
        body = lambda u, v: lax.psum(u @ v, "i")
        return c.smap(body, mesh=c.m8, in_specs=(P(None, "i"), P("i", None)), out_specs=P())(a, b)

    return f, [((4, 16), "float32"), ((16, 8), "float32")], (
        c.ns(c.m8, None, "i"), c.ns(c.m8, "i", None))


def _sm_pmax(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        body = lambda u: (lax.pmax(u, "i"), lax.pmin(u, "i"))
        return c.smap(body, mesh=c.m8, in_specs=P("i"), out_specs=(P(), P()))(a)

    return f, [((16, 3), "int32")], (c.ns(c.m8, "i"),)


def _sm_all_gather(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        body = lambda u: (lax.all_gather(u, "y", tiled=True), lax.all_gather(u, "x", axis=1))
        return c.smap(body, mesh=c.m24, in_specs=P("x", "y"),
                      out_specs=(P("x", None), P(None, None, "y")), check_vma=False)(a)

    return f, [((4, 8), "float32")], (c.ns(c.m24, "x", "y"),)


def _sm_psum_scatter(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        body = lambda u: lax.psum_scatter(u * 3, "i", scatter_dimension=0, tiled=True)
        return c.smap(body, mesh=c.m8, in_specs=P(None, "i"), out_specs=P("i", None))(a)

    return f, [((16, 8), "float32")], (c.ns(c.m8, None, "i"),)


def _sm_ppermute(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        def body(u):
            ring = lax.ppermute(u, "i", [(k, (k + 3) % 8) for k in range(8)])
            pair = lax.ppermute(u, "i", [(0, 1), (1, 0)])  # devices 2-7 receive zeros
            return ring + 2 * pair
        return c.smap(body, mesh=c.m8, in_specs=P("i"), out_specs=P("i"))(a)

    return f, [((16, 2), "float32")], (c.ns(c.m8, "i"),)


def _sm_all_to_all(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        body = lambda u: lax.all_to_all(u, "i", 1, 0, tiled=True)
        return c.smap(body, mesh=c.m8, in_specs=P("i", None), out_specs=P(None, "i"))(a)

    return f, [((16, 8), "float32")], (c.ns(c.m8, "i", None),)


def _sm_axis_index(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        def body(u):
            y = lax.axis_index("y").astype(u.dtype)
            xy = lax.axis_index(("x", "y")).astype(u.dtype)
            return u * y + xy
        return c.smap(body, mesh=c.m24, in_specs=P("x", "y"), out_specs=P("x", "y"))(a)

    return f, [((4, 8), "float32")], (c.ns(c.m24, "x", "y"),)


def _sm_nested(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        def outer(u):
            inner = c.smap(lambda v: lax.psum(v, "y") * 2, in_specs=P(None, "y"), out_specs=P(),
                           axis_names={"y"})
            return inner(u) + lax.psum(u, "x")[:, :1]
        return c.smap(outer, mesh=c.m24, in_specs=P("x", None), out_specs=P("x", None),
                      axis_names={"x"})(a)

    return f, [((4, 8), "float32")], (c.ns(c.m24, "x", None),)


def _sm_partial(c):
    lax, P = c.jax.lax, c.P

    def f(a):
        body = lambda u: u * 2 + lax.psum(u, "x")
        return c.smap(body, mesh=c.m24, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(a)

    return f, [((4, 8), "float32")], (c.ns(c.m24, "x", "y"),)


def _two_regions(c):
    jnp, lax, P = c.jnp, c.jax.lax, c.P

    def f(a, b):
        scale = lambda u: u * (lax.axis_index("i") + 1).astype(u.dtype)
        first = c.smap(scale, mesh=c.m8, in_specs=P("i"), out_specs=P("i"))(a)
        mixed = jnp.exp(first / 10.0) @ b
        return c.smap(lambda u: lax.psum(u, "i"), mesh=c.m8, in_specs=P(None, "i"),
                      out_specs=P())(mixed)

    return f, [((16, 4), "float32"), ((4, 8), "float32")], (c.ns(c.m8, "i"), c.ns(c.m8))


def _async_collectives(c):
    from jax._src.lax import parallel as par

    P = c.P

    def f(a):
        def body(u):
            gathered = par.all_gather_start(u, "x", tiled=True)  # [4, 2] -> [8, 2]
            summed = par.psum_start(u, "y")
            return gathered.done()[:4] + summed.done()
        return c.smap(body, mesh=c.m24, in_specs=P("x", "y"), out_specs=P("x", "y"))(a)

    return f, [((8, 8), "float32")], (c.ns(c.m24, "x", "y"),)


def _pmap(c):
    jax = c.jax
    f = jax.pmap(lambda x: jax.lax.psum(x, "i") * jax.lax.axis_index("i") + x, axis_name="i")
    return f, [((8, 3), "float32")], None


ASYNC_TARGETS = ("all-gather-start", "all-gather-done", "all-reduce-start", "all-reduce-done")

PROGRAMS = (
    Program("jit_matmul", "jit with NamedSharding (x, None)/(None, y) and "
            "with_sharding_constraint; no shard_map (global view)", "global", "m24", _jit_matmul),
    Program("jit_mlp", "2-layer MLP: relu, softmax, data x tensor parallel shardings; no shard_map "
            "(global view)", "global", "m24", _jit_mlp),
    Program("sm_psum", "shard_map over i=8: local matmul + psum (all_reduce over the mesh axis); "
            "both arguments tiled", "shardy", "m8", _sm_psum),
    Program("sm_pmax", "pmax and pmin on int32 (exact)", "shardy", "m8", _sm_pmax),
    Program("sm_all_gather", "all_gather tiled over y and untiled over x (2-d mesh, "
            "check_vma=False)", "shardy", "m24", _sm_all_gather),
    Program("sm_psum_scatter", "psum_scatter (reduce_scatter), tiled", "shardy", "m8",
            _sm_psum_scatter),
    Program("sm_ppermute", "two ppermutes: a ring shift by 3 and a pair swap of devices 0 and 1 "
            "(targets without a source get zeros)", "shardy", "m8", _sm_ppermute),
    Program("sm_all_to_all", "all_to_all(split_axis=1, concat_axis=0, tiled)", "shardy", "m8",
            _sm_all_to_all),
    Program("sm_axis_index", "axis_index('y') and axis_index(('x', 'y')) (partition_id arithmetic)",
            "shardy", "m24", _sm_axis_index),
    Program("sm_nested", "shard_map over x (partial) holding a shard_map over y with psum('y'), "
            "plus psum('x')", "shardy", "m24", _sm_nested),
    Program("sm_partial", "partial manual shard_map (axis_names={'x'}), y automatic", "shardy",
            "m24", _sm_partial),
    Program("two_regions", "region -> global ops (exp, matmul) -> region: the gathers between "
            "them stay", "shardy", "m8", _two_regions),
    Program("pmap", "jax.pmap with psum and axis_index (lowered text: pmap cannot be exported; "
            "a shard_map over 8 partitions)", "pmap", "m8", _pmap),
    Program("gspmd_sm_psum", "sm_psum in the GSPMD form (@Sharding, @SPMDFullToShardShape, "
            "@SPMDShardToFullShape custom calls)", "gspmd", "m8", _sm_psum),
    Program("gspmd_sm_ppermute", "sm_ppermute in the GSPMD form", "gspmd", "m8", _sm_ppermute),
    Program("gspmd_sm_partial", "sm_partial in the GSPMD form", "gspmd", "m24", _sm_partial),
    Program("async_collectives", "all_gather_start over x and psum_start over y, overlapped "
            "(jax 0.12: @all-gather-start/@all-reduce-start custom calls)", "shardy", "m24",
            _async_collectives),
)


# ------------------------------------------------------------------------------- generation
def _set_up_jax() -> Any:
    """Eight CPU devices, set before jax is imported (an imported jax keeps its devices)."""
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\S+", "", flags)
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={DEVICES}".strip()
    os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        import jax
    except ImportError as e:
        raise SystemExit(f"make_mpi_programs: needs jax (the oracle extra; the committed files "
                         f"were written by jax 0.12): {e}") from None

    if jax.device_count() != DEVICES:
        raise SystemExit(
            f"make_mpi_programs: jax has {jax.device_count()} devices, {DEVICES} needed: run the "
            "script on its own (python tools/make_mpi_programs.py), not after jax was imported"
        )
    jax.config.update("jax_include_debug_info_in_dumps", False)
    return jax


class _Context:
    def __init__(self, jax: Any) -> None:
        import jax.numpy as jnp
        from jax.sharding import AxisType, NamedSharding, PartitionSpec

        self.jax, self.jnp, self.P = jax, jnp, PartitionSpec
        self.m8 = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))
        self.m24 = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
        self.smap = jax.shard_map
        self._named = NamedSharding

    def ns(self, mesh: Any, *spec: Any) -> Any:
        return self._named(mesh, self.P(*spec))


def arguments(name: str, shapes: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    """Program ``name``'s arguments: normal floats, integers in [-50, 50), seeded by the name."""
    rng = np.random.default_rng([SEED, zlib.crc32(name.encode())])
    out = []
    for shape, dtype in shapes:
        if np.dtype(dtype).kind == "f":
            out.append(rng.standard_normal(shape).astype(dtype))
        else:
            out.append(rng.integers(-50, 50, size=shape).astype(dtype))
    return out


def _grid(text: str) -> tuple[int, int]:
    def attr(name: str) -> int:
        m = re.search(rf"mhlo\.{name} = (\d+)", text)
        return int(m.group(1)) if m else 1

    return attr("num_replicas"), attr("num_partitions")


def _describe(arrays: list[Any]) -> list[str]:
    return [f"{np.dtype(a.dtype).name}{list(a.shape)}" for a in arrays]


def _write_text(path: Path, text: str) -> None:
    with gzip.GzipFile(path, "wb", mtime=0) as fh:
        fh.write(text.encode())


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez``'s file (stored ``.npy`` members), with fixed member times, so that writing
    the same arrays again gives the same bytes (no spurious change in git)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for key, array in arrays.items():
            with zf.open(zipfile.ZipInfo(f"{key}.npy", (1980, 1, 1, 0, 0, 0)), "w") as fh:
                np.lib.format.write_array(fh, np.asarray(array), allow_pickle=False)


def _export(
    jax: Any, program: Program, ctx: _Context
) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """The program's text, its arguments and XLA's results."""
    from jax import export

    fn, shapes, shardings = program.build(ctx)
    args = arguments(program.seed_name, shapes)
    if program.form == "pmap":
        text = fn.lower(*args).as_text(debug_info=False)
        outs = jax.tree_util.tree_leaves(fn(*args))
        return text, args, [np.asarray(o) for o in outs]
    shardy = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", program.form != "gspmd")
    try:
        jf = jax.jit(fn, in_shardings=shardings)
        checks = [export.DisabledSafetyCheck.custom_call(t) for t in ASYNC_TARGETS]
        exp = export.export(jf, disabled_checks=checks)(*args)
        text = exp.mlir_module()
        placed = [jax.device_put(a, s) for a, s in zip(args, shardings)]
        outs = jax.tree_util.tree_leaves(jf(*placed))
    finally:
        jax.config.update("jax_use_shardy_partitioner", shardy)
    return text, args, [np.asarray(o) for o in outs]


def _check_form(program: Program, text: str) -> None:
    """The program is what its row says (so a JAX change of form is noticed when writing)."""
    gspmd = "SPMDFullToShardShape" in text
    manual = "sdy.manual_computation" in text
    want = {
        "global": not gspmd and not manual,
        "shardy": manual and not gspmd,
        "pmap": manual and not gspmd,
        "gspmd": gspmd and not manual,
    }[program.form]
    if program.name == "async_collectives":
        want = want and '"all-gather-start"' in text and '"all-reduce-start"' in text
    if not want or _grid(text) != (1, DEVICES):
        raise SystemExit(f"make_mpi_programs: {program.name} is not a {program.form} program "
                         f"over {DEVICES} partitions with this jax (grid {_grid(text)}); look at "
                         "its text")


def big_text(jax: Any, ctx: _Context) -> str:
    """The 2 GiB program of plan §3.4, exported from abstract arguments (nothing is allocated)."""
    from jax import export

    jnp, lax, P = ctx.jnp, jax.lax, ctx.P

    def body(u):  # u: f32[16, 4194304], 256 MiB per device
        rows = u.sum(axis=1)
        blocks = u.reshape(16, 4096, 1024).max(axis=2)
        total = lax.psum(blocks.sum(axis=0), "i")
        top = lax.pmax(u.max(), "i")
        return rows, total, top

    sharding = ctx.ns(ctx.m8, "i", None)
    f = jax.jit(ctx.smap(body, mesh=ctx.m8, in_specs=P("i", None), out_specs=(P("i"), P(), P())),
                in_shardings=(sharding,))
    x = jax.ShapeDtypeStruct(BIG_SHAPE, jnp.float32, sharding=sharding)
    return export.export(f)(x).mlir_module()


def write_big(out: Path) -> dict[str, Any]:
    jax = _set_up_jax()
    text = big_text(jax, _Context(jax))
    out.mkdir(parents=True, exist_ok=True)
    _write_text(out / "big.mlir.gz", text)
    replicas, partitions = _grid(text)
    return {
        "file": "big.mlir.gz",
        "exercises": "the 2 GiB done-when program (plan §3.4): x f32[128, 4194304] tiled over i; "
                     "row sums, block maxima summed with psum, pmax of the maximum; text only",
        "args": [f"float32{list(BIG_SHAPE)}"],
        "num_replicas": replicas,
        "num_partitions": partitions,
    }


def write_all(out: Path, names: list[str] | None = None) -> dict[str, Any]:
    jax = _set_up_jax()
    import jaxlib

    ctx = _Context(jax)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for program in PROGRAMS:
        if names and program.name not in names:
            continue
        text, args, outs = _export(jax, program, ctx)
        _check_form(program, text)
        _write_text(out / f"{program.name}.mlir.gz", text)
        _save_npz(out / f"{program.name}.npz",
                  {f"arg{k}": a for k, a in enumerate(args)}
                  | {f"out{k}": o for k, o in enumerate(outs)})
        replicas, partitions = _grid(text)
        rows.append({
            "name": program.name,
            "file": f"{program.name}.mlir.gz",
            "data": f"{program.name}.npz",
            "exercises": program.exercises,
            "form": program.form,
            "same_args_as": program.seed_name if program.seed_name != program.name else None,
            "mesh": {"m8": {"i": 8}, "m24": {"x": 2, "y": 4}}[program.mesh],
            "num_replicas": replicas,
            "num_partitions": partitions,
            "args": _describe(args),
            "outs": _describe(outs),
        })
    manifest = {
        "written_by": "tools/make_mpi_programs.py",
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "devices": f"{DEVICES} CPU devices (--xla_force_host_platform_device_count={DEVICES})",
        "seed": f"numpy default_rng([{SEED}, crc32(name)])",
        "programs": rows,
        "big": write_big(out),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


# ----------------------------------------------------------------------------------- --check
_LOC = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")


def comparable_text(text: str) -> list[str]:
    """``text`` without locations (``loc(...)`` suffixes and ``#loc`` lines) nor blank lines."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#loc"):
            continue
        line = _LOC.sub("", line).rstrip()
        if line:
            lines.append(line)
    return lines


def _read_text(path: Path) -> str:
    with gzip.open(path, "rt") as fh:
        return fh.read()


def _text_difference(committed: Path, fresh: Path) -> str | None:
    a, b = comparable_text(_read_text(committed)), comparable_text(_read_text(fresh))
    if a == b:
        return None
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {k + 1}: committed {x.strip()[:120]!r}, now {y.strip()[:120]!r}"
    return f"{len(a)} lines committed, {len(b)} now"


def _array_difference(
    where: str, key: str, committed: np.ndarray, fresh: np.ndarray
) -> str | None:
    from stablehlo_py.backends.tolerance import tolerance

    if committed.shape != fresh.shape or committed.dtype != fresh.dtype:
        return (f"{key} is {fresh.dtype}{list(fresh.shape)} now, "
                f"{committed.dtype}{list(committed.shape)} committed")
    if committed.tobytes() == fresh.tobytes():
        return None
    rtol, atol = tolerance(committed.dtype)
    if key.startswith("out") and rtol and np.allclose(fresh, committed, rtol=rtol, atol=atol):
        print(f"note: {where}: {key} differs in its bits, within rtol {rtol:g}, atol {atol:g}")
        return None
    worst = np.max(np.abs(fresh.astype(np.float64) - committed))
    return f"{key} differs (max abs difference {worst:g})"


def _npz_difference(committed: Path, fresh: Path) -> list[str]:
    with np.load(committed) as a, np.load(fresh) as b:
        if sorted(a.files) != sorted(b.files):
            return [f"members {sorted(b.files)} now, {sorted(a.files)} committed"]
        found = [_array_difference(committed.name, k, a[k], b[k]) for k in sorted(a.files)]
    return [d for d in found if d]


def _manifest_difference(committed: Path, fresh: Path) -> list[str]:
    a, b = json.loads(committed.read_text()), json.loads(fresh.read_text())
    for key in ("jax", "jaxlib"):
        if a.get(key) != b.get(key):
            print(f"note: committed with {key} {a.get(key)}, checked with {b.get(key)}")
            a.pop(key, None), b.pop(key, None)
    found = []
    rows_a = {row["name"]: row for row in a.pop("programs", [])}
    rows_b = {row["name"]: row for row in b.pop("programs", [])}
    if list(rows_a) != list(rows_b):
        found.append(f"programs {list(rows_b)} now, {list(rows_a)} committed")
    for name in rows_a.keys() & rows_b.keys():
        keys = sorted(k for k in rows_a[name].keys() | rows_b[name].keys()
                      if rows_a[name].get(k) != rows_b[name].get(k))
        if keys:
            found.append(f"program {name} differs in {', '.join(keys)}")
    keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if keys:
        found.append(f"differs in {', '.join(keys)}")
    return found


def check(committed: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="mpi_programs_") as tmp:
        fresh = Path(tmp)
        write_all(fresh)
        bad: list[str] = []
        names = {p.name for p in committed.iterdir()} | {p.name for p in fresh.iterdir()}
        for name in sorted(names):
            a, b = committed / name, fresh / name
            if not a.exists():
                bad.append(f"{name}: not committed (the script writes it)")
            elif not b.exists():
                bad.append(f"{name}: committed, but the script does not write it")
            elif name.endswith(".mlir.gz"):
                d = _text_difference(a, b)
                bad += [f"{name}: {d}"] if d else []
            elif name.endswith(".npz"):
                bad += [f"{name}: {d}" for d in _npz_difference(a, b)]
            elif name == "manifest.json":
                bad += [f"{name}: {d}" for d in _manifest_difference(a, b)]
            else:
                bad.append(f"{name}: not a file the script writes")
    if bad:
        how = "" if committed.resolve() == OUT else f" --out {committed}"
        print(f"stale (python tools/make_mpi_programs.py{how} rewrites {committed}):")
        print("\n".join(f"  {b}" for b in bad))
        return 1
    print("current")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=("all", "big"), default="all",
                    help="all programs (default), or only the 2 GiB program's text")
    ap.add_argument("--out", type=Path, default=OUT, help=f"directory (default {OUT})")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare with --out")
    opts = ap.parse_args(argv)
    if opts.check:
        if opts.what == "big":
            ap.error("--check compares every program; leave out 'big'")
        if not (opts.out / "manifest.json").is_file():
            print(f"make_mpi_programs: no manifest.json in {opts.out}: nothing to check against")
            return 1
        return check(opts.out)
    if opts.what == "big":
        row = write_big(opts.out)
        print(f"wrote {opts.out / row['file']} ({row['num_partitions']} partitions)")
        return 0
    manifest = write_all(opts.out)
    size = sum(p.stat().st_size for p in opts.out.iterdir())
    print(f"wrote {len(manifest['programs'])} programs and big.mlir.gz into {opts.out} "
          f"({size} bytes), jax {manifest['jax']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
