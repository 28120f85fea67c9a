"""Scale: time linear in size and peak memory against the constant's bytes (issue 12, deliverable 6).

    python bench/scale.py [--quick | --smoke] [--dense-mb MB] [--ops N] [--fractions 1/8,1/4,1/2,1] [--keep DIR]

Two programs, each at several sizes (the fractions of the largest):

* ``dense``: one ``stablehlo.constant dense<"0x..."> : tensor<Kxf32>`` of random bytes (``--dense-mb``,
  default 1024 = 1 GiB), summed by a ``stablehlo.reduce``; the unit is the constant's MB;
* ``ops``: a straight-line module of ``--ops`` ops (default 200k; the 10k-op module of
  ``bench/parse_print.py`` made longer); the unit is the op.

Each size runs in a fresh subprocess, which times each step in turn (parse, verify, print, serialize
and deserialize in our msgpack format and in upstream's MLIR bytecode, interpret) and measures its
peak memory: Linux's peak resident set (``VmHWM``), reset before each step through
``/proc/self/clear_refs``, less the process's size after its imports.  A step's peak therefore
includes what it keeps alive (the module, the text being parsed or printed); ``x const`` is that peak
over the constant's bytes (target <= 3x); printing writes to a file, as `stablehlo-opt -o` does
(`print_ir_to`).  Steps that need a module start from the parsed one; the
script drops its copy of the input text after parsing (a module parsed from a large text keeps only
its line starts), and the printed text is checked against the input's digest; both deserialized
modules are checked to print as the input.
The default sizes need about 10 GB of memory at the peak (printing the 1 GiB constant); use
``--dense-mb`` for a smaller machine.

Per-unit cost (seconds per MB or µs per op) is printed per size, and ``large/small``: the largest
size's per-unit cost over the smallest's (1.0 = linear; a quadratic step doubles it with each size
doubling).  ``--quick`` runs small sizes (8 MB, 4k ops) in seconds, as the smoke test does.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

STEPS = (
    "parse",
    "verify",
    "print",
    "write msgpack",
    "write mlirbc",
    "read msgpack",
    "read mlirbc",
    "interpret",
)
MB = 1 << 20
_CHUNK = 1 << 24  # elements of hex text generated at a time (keeps the generator's memory small)


# ------------------------------------------------------------------------------------ programs
def write_dense_program(path: Path, n_bytes: int, seed: int = 0) -> None:
    """A constant of `n_bytes` random f32 bytes (finite values), reduced to its sum."""
    import numpy as np

    n = n_bytes // 4
    rng = np.random.default_rng(seed)
    with path.open("w") as f:
        f.write("module {\n  func.func @main() -> tensor<f32> {\n")
        f.write('    %cst = stablehlo.constant dense<"0x')
        for start in range(0, n, _CHUNK):
            k = min(_CHUNK, n - start)
            chunk = rng.uniform(-1.0, 1.0, k).astype("<f4")
            f.write(chunk.tobytes().hex().upper())
        f.write(f'"> : tensor<{n}xf32>\n')
        f.write("    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n")
        f.write(
            "    %0 = stablehlo.reduce(%cst init: %cst_0) applies stablehlo.add across dimensions = [0]"
            f" : (tensor<{n}xf32>, tensor<f32>) -> tensor<f32>\n"
        )
        f.write("    return %0 : tensor<f32>\n  }\n}\n")


def write_ops_program(path: Path, n_ops: int) -> None:
    from parse_print import generated_module

    path.write_text(generated_module(n_ops))


# ------------------------------------------------------------------------------------ the child
def _kib(field: str) -> int:
    with open("/proc/self/status") as f:
        m = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.MULTILINE)
    return int(m.group(1)) * 1024 if m else 0


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident size (Linux >= 4.0)
        return True
    except OSError:
        return False


def child(kind: str, path: str) -> None:
    """Run every step on one program; print one JSON object: {step: [seconds, peak bytes]}."""
    import numpy as np
    from stablehlo_py.interpreter import run
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
    )

    from stablehlo_py.ir import parse, print_ir, print_ir_to
    from stablehlo_py.ir.verify import verify

    def pipeline(text: str, args: list[object]) -> None:
        m = parse(text)
        verify(m)
        print_ir(m)
        for fmt in ("msgpack", "mlir"):
            deserialize_portable_artifact(serialize_portable_artifact(m, "current", format=fmt))
        run(m, *args)

    rng = np.random.default_rng(0)
    if kind == "dense":
        args: list[object] = []
    else:
        args = [
            rng.standard_normal((16, 32)).astype(np.float32),
            rng.standard_normal(32).astype(np.float32),
        ]
    # warm-up on a small program of the same kind: imports, registries and caches are not the step's
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.mlir"
        if kind == "dense":
            write_dense_program(small, 4096)
        else:
            write_ops_program(small, 100)
        pipeline(small.read_text(), args)
    gc.collect()
    base = _kib("VmRSS")
    out: dict[str, object] = {"resettable": _reset_peak()}

    @contextmanager
    def step(name: str) -> Iterator[None]:
        gc.collect()
        _reset_peak()
        t = time.perf_counter()
        yield
        out[name] = [time.perf_counter() - t, max(0, _kib("VmHWM") - base)]

    with open(path) as f:  # the text is part of the parse step's peak (the parser holds it)
        text = f.read()
    with step("parse"):
        module = parse(text, path)
    digest = _digest(text)  # the input is checked against the printed text by its digest:
    del text  # the later steps' peaks are the toolkit's, not this script's copy of the input
    with step("verify"):
        verify(module)
    printed_path = Path(path).with_suffix(".printed.mlir")
    with step("print"):  # to a file, as stablehlo-opt -o does: the text is written piece by piece
        with open(printed_path, "w") as f:
            print_ir_to(module, f)
    # the dense program is written as the printer writes it; the generated ops program is not, so
    # its printed text is checked to be stable instead (outside the timed steps)
    if digest != _file_digest(printed_path):
        printed = printed_path.read_text()
        if kind == "dense" or print_ir(parse(printed)) != printed:
            raise SystemExit(f"{path}: the printed module differs from the input")
        del printed
    printed_path.unlink()
    for fmt, label in (("msgpack", "msgpack"), ("mlir", "mlirbc")):
        with step(f"write {label}"):
            data = serialize_portable_artifact(module, "current", format=fmt)
        with step(f"read {label}"):
            back = deserialize_portable_artifact(data)
        del data
        if kind == "ops" and print_ir(back) != print_ir(module):
            raise SystemExit(f"{path}: the {label} artifact reads back as a different module")
        del back
    with step("interpret"):
        run(module, *args)
    print(json.dumps(out))


def _digest(text: str) -> bytes:
    """SHA-256 of the text's UTF-8 bytes, encoded a piece at a time (no copy of a large text)."""
    import hashlib

    h = hashlib.sha256()
    for i in range(0, len(text), 1 << 24):
        h.update(text[i : i + (1 << 24)].encode())
    return h.digest()


def _file_digest(path: Path) -> bytes:
    """SHA-256 of a text file's bytes, read a piece at a time."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            h.update(chunk)
    return h.digest()


def run_child(kind: str, path: Path) -> dict[str, list[float]]:
    p = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    if p.returncode != 0:
        raise SystemExit(f"scale step failed for {path.name}:\n{p.stdout}{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# a program's writer and its file name at a size
PROGRAMS = {
    "dense": (write_dense_program, lambda size: f"dense_{size // MB}MB.mlir"),
    "ops": (write_ops_program, lambda size: f"ops_{size}.mlir"),
}


def run_sizes(kind: str, sizes: list[int], folder: Path, keep: bool) -> list[dict]:
    """The `kind` program at each size, written to `folder` and timed in a fresh process (the file is
    deleted after its run unless `keep`)."""
    write, file_name = PROGRAMS[kind]
    results = []
    for size in sizes:
        path = folder / file_name(size)
        write(path, size)
        results.append(run_child(kind, path))
        if not keep:
            path.unlink()
    return results


# ------------------------------------------------------------------------------------ report
def report(
    kind: str, sizes: list[int], results: list[dict], unit: str, const_bytes: int
) -> dict[str, object]:
    """Print one table (per step: the time per unit at each size, large/small, peak memory of the
    largest size) and return the same figures."""
    scale = 1.0 if unit == "s/MB" else 1e6
    div = [s / MB for s in sizes] if unit == "s/MB" else [float(s) for s in sizes]
    labels = [f"{s / MB:g} MB" if unit == "s/MB" else f"{s} ops" for s in sizes]
    head = f"{kind + ' step':16}" + "".join(f"{lab:>12}" for lab in labels) + f"{'large/small':>12}"
    print(head + "  peak MB (largest)" + ("   x const" if const_bytes else ""))
    print(f"{'(' + unit + ')':16}")
    steps: dict[str, dict[str, object]] = {}
    for name in STEPS:
        per = [r[name][0] / d * scale for r, d in zip(results, div)]
        peak = results[-1][name][1]
        fig: dict[str, object] = {"per_unit": per, "large_small": per[-1] / per[0], "peak": peak}
        row = f"{name:16}" + "".join(f"{v:12.3f}" if unit == "s/MB" else f"{v:12.1f}" for v in per)
        row += f"{per[-1] / per[0]:12.2f}{peak / MB:19.0f}"
        if const_bytes:
            fig["x_const"] = peak / const_bytes
            row += f"{peak / const_bytes:10.2f}"
        steps[name] = fig
        print(row)
    total = [sum(r[n][0] for n in STEPS) for r in results]
    print(f"{'total seconds':16}" + "".join(f"{t:12.2f}" for t in total))
    print()
    return {"unit": unit, "sizes": sizes, "steps": steps, "total_seconds": total}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="small sizes (8 MB constant, 4000 ops)")
    ap.add_argument(
        "--dense-mb", type=int, default=None, help="largest constant in MiB (default 1024)"
    )
    ap.add_argument("--ops", type=int, default=None, help="largest op count (default 200000)")
    ap.add_argument(
        "--fractions", default="1/8,1/4,1/2,1", help="sizes as fractions of the largest"
    )
    ap.add_argument("--only", choices=("dense", "ops"), default=None, help="run one program only")
    ap.add_argument("--keep", default=None, help="write the programs to this folder (kept)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one repetition, the same code paths (tests/unit/test_bench_smoke.py runs it)")
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.smoke:  # one size each: a 1 MiB constant, 200 ops
        args.dense_mb, args.ops, args.fractions = args.dense_mb or 1, args.ops or 200, "1"
    dense_mb = args.dense_mb or (8 if args.quick else 1024)
    n_ops = args.ops or (4000 if args.quick else 200_000)
    fractions = [Fraction(f) for f in args.fractions.split(",")]
    print(
        f"scale: constant up to {dense_mb} MiB, up to {n_ops} ops, sizes {args.fractions} "
        f"(each size in a fresh process; {os.cpu_count()} CPUs)"
    )
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="shlo-scale-") as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if args.only in (None, "dense"):
            sizes = [int(dense_mb * MB * f) // 4 * 4 for f in fractions]
            results = run_sizes("dense", sizes, folder, keep=bool(args.keep))
            figures["dense"] = report("dense", sizes, results, "s/MB", sizes[-1])
        if args.only in (None, "ops"):
            sizes = [max(8, int(n_ops * f)) for f in fractions]
            results = run_sizes("ops", sizes, folder, keep=bool(args.keep))
            figures["ops"] = report("ops", sizes, results, "µs/op", 0)
        figures["peak_per_step"] = bool(results and results[-1]["resettable"])
        if not figures["peak_per_step"]:
            print(
                "(peak memory could not be reset per step: each peak is the process's peak so far)"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
