"""Portable artifacts: write time, read time and size, side by side with jaxlib in one run.

    python bench/serialization.py [--repeat N] [--layers L] [--ops N] [--smoke]

Programs: a ~2 MB program lowered by JAX (MLP/normalization blocks with weights as constants, debug
locations on, as `jax.export` ships them) and a generated straight-line 10k-op module.  Both toolkits
serialize the same text for the same target (the older of the two current versions).

Rows (best of N runs each):

* write   -- in-memory StableHLO module -> artifact bytes (legalize to VHLO records, fork steps to the
             target version, encode);
             jaxlib: ``serialize_portable_artifact(module, target)`` on a parsed ``ir.Module``
* read    -- artifact bytes -> in-memory StableHLO module at the current version;
             jaxlib: ``deserialize_portable_artifact(context, bytes)``
* text->artifact -- ``serialize_portable_artifact_str`` (includes parsing the text)
* size    -- artifact bytes

for both of our formats (msgpack, the default; and upstream's MLIR bytecode, issue 9), plus our own
breakdown (the VHLO records, encode only, decode only, upgrade + legalization, verification: the
steps of the slow paths) and the msgpack write and read and the MLIR bytecode write through the VHLO
records, the slow paths the fast ones (``serialization/direct_write.py``, ``direct_read.py``,
``mlirbc/direct.py``; issue 28) stand for.  Targets (issues 5 and 9): <= 3x jaxlib's time in
both formats; size <= 1.0x jaxlib's (msgpack) and == (MLIR bytecode).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))


def generated_module(n_ops: int) -> str:
    from parse_print import generated_module as gen  # the same 10k-op module as the parse benchmark

    return gen(n_ops)


def jax_program(layers: int) -> str | None:
    """~2 MB of StableHLO text from JAX, with constants and debug locations."""
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        return None
    jax.config.update("jax_platforms", "cpu")
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal((48, 48)).astype(np.float32) for _ in range(layers)]

    def layer(x: Any, w: Any, i: int) -> Any:
        h = jax.nn.gelu(x @ w + jnp.float32(0.01 * i))
        mu = h.mean(-1, keepdims=True)
        h = (h - mu) / jnp.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        h = jnp.where(h > 0, h, 0.1 * h)
        return x + jax.nn.softmax(h, axis=-1) * h

    def f(x: Any, y: Any) -> Any:
        for i, w in enumerate(weights):
            x = layer(x, jnp.asarray(w), i)
            x = jnp.cumsum(x, axis=0) * 0.5 + jnp.sort(x, axis=-1) * 0.5
            x = jax.lax.fori_loop(0, 2, lambda j, c: c * 0.9 + jnp.tanh(c), x)
        return x.sum(), x @ y.T

    x = jnp.ones((16, 48), jnp.float32)
    y = jnp.ones((8, 48), jnp.float32)
    return jax.jit(f).lower(x, y).as_text(debug_info=True)


CLOCK: list[Callable[[], float]] = [time.perf_counter]
"""The clock ``best`` reads: wall time, or with ``--cpu`` this process's CPU time (steadier when
the machine is shared; jaxlib's columns are timed the same way)."""


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    clock = CLOCK[0]
    times = []
    out = None
    for _ in range(repeat):
        gc.collect()
        t = clock()
        out = fn()
        times.append(clock() - t)
    return min(times), out


def measure(name: str, text: str, repeat: int) -> dict[str, float]:
    from stablehlo_py.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
    from stablehlo_py.passes.vhlo_to_version import to_version
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
        serialize_portable_artifact_str,
        vhlo_records,
        write_artifact,
    )

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify
    from stablehlo_py.version import Version, get_current_version

    row: dict[str, float] = {}
    try:
        from jaxlib.mlir import ir
        from jaxlib.mlir.dialects import stablehlo as jst
    except ImportError:
        jst = None  # type: ignore[assignment]
    target = str(get_current_version())
    if jst is not None:
        target = str(min(Version.from_string(jst.get_current_version()), get_current_version()))

    module = parse(text, "-")
    n_ops = sum(1 for _ in module.walk())
    row["ops"] = n_ops
    row["text MB"] = len(text) / 1e6
    from stablehlo_py.serialization import read_vhlo_artifact
    from stablehlo_py.serialization.mlir_artifact import write_mlir_artifact

    row["ours write"], data = best(lambda: serialize_portable_artifact(module, target), repeat)
    row["ours read"], _ = best(lambda: deserialize_portable_artifact(data), repeat)
    row["ours text->artifact"], _ = best(
        lambda: serialize_portable_artifact_str(text, target), repeat
    )
    row["ours size"] = len(data)
    row["ours write mlir"], mdata = best(
        lambda: serialize_portable_artifact(module, target, format="mlir"), repeat
    )
    row["ours read mlir"], _ = best(lambda: deserialize_portable_artifact(mdata), repeat)
    row["ours size mlir"] = len(mdata)
    tv = Version.from_string(target)
    records = vhlo_records(module, tv)
    row["ours encode only"], _ = best(lambda: write_artifact(records, tv), repeat)
    row["ours encode only mlir"], _ = best(lambda: write_mlir_artifact(records, tv), repeat)
    row["ours decode only"], _ = best(lambda: read_vhlo_artifact(data, records=True), repeat)
    row["ours decode only mlir"], _ = best(
        lambda: read_vhlo_artifact(mdata, records=True), repeat
    )
    row["ours legalize+to_version"], _ = best(lambda: vhlo_records(module, tv), repeat)

    def upgrade_and_legalize() -> Any:
        version, m = read_vhlo_artifact(data, records=True)
        if version.with_zero_patch() != get_current_version():
            to_version(m, get_current_version())
        return legalize_to_stablehlo(m)

    row["ours to_current+legalize"] = best(upgrade_and_legalize, repeat)[0] - row["ours decode only"]
    back = upgrade_and_legalize()
    row["ours verify"], _ = best(lambda: verify(back), repeat)
    import stablehlo_py.serialization as ser

    direct = getattr(ser, "DIRECT", None)  # the fast paths' switch (serialization/direct_*.py)
    if direct is not None:
        direct[0] = False
        try:
            row["ours write vhlo path"], _ = best(
                lambda: serialize_portable_artifact(module, target), repeat
            )
            row["ours read vhlo path"], _ = best(lambda: deserialize_portable_artifact(data), repeat)
            row["ours write mlir vhlo path"], slow_mdata = best(
                lambda: serialize_portable_artifact(module, target, format="mlir"), repeat
            )
            assert slow_mdata == mdata, "the MLIR bytecode fast path wrote other bytes"
        finally:
            direct[0] = True

    if jst is not None:
        from jax._src.interpreters import mlir as jmlir

        jmod = ir.Module.parse(text, jmlir.make_ir_context())
        row["jax write"], jdata = best(
            lambda: jst.serialize_portable_artifact(jmod, target), repeat
        )
        # a fresh context per read, as a consumer loading an artifact (jax's own context setup)
        row["jax read"], _ = best(
            lambda: jst.deserialize_portable_artifact(jmlir.make_ir_context(), jdata), repeat
        )
        row["jax text->artifact"], _ = best(
            lambda: jst.serialize_portable_artifact_str(text, target), repeat
        )
        row["jax size"] = len(jdata)
    print(f"\n== {name}: {n_ops} ops, {row['text MB']:.2f} MB of text, target {target}")
    for k, jk in (
        ("write", "write"),
        ("read", "read"),
        ("text->artifact", "text->artifact"),
        ("write mlir", "write"),
        ("read mlir", "read"),
    ):
        ours = row[f"ours {k}"]
        line = f"  {k:16s} ours {ours * 1e3:9.1f} ms ({ours / n_ops * 1e6:6.1f} µs/op)"
        if f"jax {jk}" in row:
            j = row[f"jax {jk}"]
            line += f"   jaxlib {j * 1e3:8.1f} ms   ratio {ours / j:6.1f}x"
        print(line)
    for k in ("size", "size mlir"):
        line = f"  {k:16s} ours {row[f'ours {k}'] / 1e3:9.1f} KB"
        if "jax size" in row:
            line += f"   jaxlib {row['jax size'] / 1e3:8.1f} KB   ratio {row[f'ours {k}'] / row['jax size']:6.2f}x"
        print(line)
    print(
        "  ours breakdown: write = legalize+to_version {:.1f} ms + encode {:.1f} ms (mlir {:.1f}); "
        "read = decode {:.1f} ms (mlir {:.1f}) + to_current+legalize {:.1f} ms + verify {:.1f} ms".format(
            row["ours legalize+to_version"] * 1e3,
            row["ours encode only"] * 1e3,
            row["ours encode only mlir"] * 1e3,
            row["ours decode only"] * 1e3,
            row["ours decode only mlir"] * 1e3,
            row["ours to_current+legalize"] * 1e3,
            row["ours verify"] * 1e3,
        )
    )
    if "ours write vhlo path" in row:
        print(
            "  ours msgpack fast paths (write, read): {:.1f} ms, {:.1f} ms; through the VHLO "
            "records (the slow paths): {:.1f} ms, {:.1f} ms".format(
                row["ours write"] * 1e3,
                row["ours read"] * 1e3,
                row["ours write vhlo path"] * 1e3,
                row["ours read vhlo path"] * 1e3,
            )
        )
        print(
            "  ours MLIR bytecode write: fast path {:.1f} ms; through the VHLO records (the slow "
            "path) {:.1f} ms ({:.1f}x)".format(
                row["ours write mlir"] * 1e3,
                row["ours write mlir vhlo path"] * 1e3,
                row["ours write mlir vhlo path"] / row["ours write mlir"],
            )
        )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--layers", type=int, default=76, help="blocks in the JAX program (76 ~ 2 MB)")
    ap.add_argument("--ops", type=int, default=10_000, help="ops in the generated module")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    ap.add_argument(
        "--cpu", action="store_true", help="time CPU time of this process instead of wall time"
    )
    args = ap.parse_args()
    if args.smoke:
        args.repeat, args.layers, args.ops = 1, 1, 100
    if args.cpu:
        CLOCK[0] = time.process_time
        print("(times are CPU times of this process)")
    text = jax_program(args.layers)
    if text is None:
        print(
            "jax is not installed (pip install -e .[oracle]): the JAX program and jaxlib columns are skipped"
        )
    else:
        measure("JAX program", text, args.repeat)
    measure(f"generated {args.ops}-op module", generated_module(args.ops), args.repeat)


if __name__ == "__main__":
    main()
