"""`stablehlo-translate --interpret` with inputs and results as files (issue 27): `--args=@FILE`,
`@x.npy` lists, `.npz` archives by position and name, JAX exports, probe directories fed back,
`--output`, one-line errors, and a 100 MB input run through memory-mapped files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.interpreter import run as interpret
from stablehlo_py.io import load_results, read_probes

BIN = Path(sys.executable).parent
TRANSLATE = str(BIN / "stablehlo-translate") if (BIN / "stablehlo-translate").exists() else shutil.which(
    "stablehlo-translate"
)
OPT = str(BIN / "stablehlo-opt") if (BIN / "stablehlo-opt").exists() else shutil.which("stablehlo-opt")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PROGRAM = """
func.func @main(%x: tensor<2xf32> loc("x"), %y: tensor<2xf32> loc("y"))
    -> (tensor<2xf32> {jax.result_info = "sum"}, tensor<2xf32> {jax.result_info = "product"}) {
  %0 = stablehlo.add %x, %y : tensor<2xf32>
  %1 = stablehlo.multiply %x, %y : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
"""
X = np.array([1.5, -2], np.float32)
Y = np.array([4, 0.5], np.float32)
EXPECTED = "tensor<2xf32> {\n  [5.500000e+00, -1.500000e+00]\n}\ntensor<2xf32> {\n  [6.000000e+00, -1.000000e+00]\n}\n"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    assert TRANSLATE, "console scripts are not installed (pip install -e .)"
    return subprocess.run(
        [TRANSLATE, *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def ok(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 0, r.stderr
    return r.stdout


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "p.mlir").write_text(PROGRAM)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "y.npy", Y)
    return tmp_path


def test_at_file_holds_the_attribute_text(files: Path) -> None:
    (files / "args.mlir").write_text(
        "[dense<[1.5, -2.0]> : tensor<2xf32>,\n dense<[4.0, 0.5]> : tensor<2xf32>]\n"
    )
    assert ok(run("--interpret", "--args=@args.mlir", "p.mlir", cwd=files)) == EXPECTED
    inline = "--args=[dense<[1.5, -2.0]> : tensor<2xf32>, dense<[4.0, 0.5]> : tensor<2xf32>]"
    assert ok(run("--interpret", inline, "p.mlir", cwd=files)) == EXPECTED


def test_npy_list_and_mixed_entries(files: Path) -> None:
    assert ok(run("--interpret", "--args=@x.npy,@y.npy", "p.mlir", cwd=files)) == EXPECTED
    mixed = "--args=@x.npy,dense<[4.0, 0.5]> : tensor<2xf32>"
    assert ok(run("--interpret", mixed, "p.mlir", cwd=files)) == EXPECTED
    absolute = f"--args=@{files}/x.npy,@{files}/y.npy"
    assert ok(run("--interpret", absolute, str(files / "p.mlir"))) == EXPECTED


def test_npz_by_position_and_by_name(files: Path) -> None:
    np.savez(files / "pos.npz", arg0=X, arg1=Y)
    np.savez(files / "named.npz", y=Y, x=X)  # the members' order does not matter
    for option in ("--inputs=pos.npz", "--inputs=named.npz", "--args=@named.npz"):
        assert ok(run("--interpret", option, "p.mlir", cwd=files)) == EXPECTED, option


def test_output_npz_matches_run(files: Path) -> None:
    np.savez(files / "pos.npz", arg0=X, arg1=Y)
    assert ok(run("--interpret", "--inputs=pos.npz", "--output=out.npz", "p.mlir", cwd=files)) == ""
    saved = np.load(files / "out.npz")
    assert saved["result_info"].tolist() == ["sum", "product"]
    assert saved["result_types"].tolist() == ["tensor<2xf32>", "tensor<2xf32>"]
    expected = interpret(PROGRAM, X, Y)
    for i, value in enumerate(expected):
        np.testing.assert_array_equal(saved[f"result{i}"], value)
    # -o still prints the text while --output writes the file
    ok(run("--interpret", "--inputs=pos.npz", "--output=out2.npz", "-o", "out.txt", "p.mlir", cwd=files))
    assert (files / "out.txt").read_text() == EXPECTED and (files / "out2.npz").exists()


def test_output_npy_single_result(tmp_path: Path) -> None:
    (tmp_path / "neg.mlir").write_text(
        "func.func @main(%a: tensor<3xbf16>) -> tensor<3xbf16> {\n"
        "  %0 = stablehlo.negate %a : tensor<3xbf16>\n  return %0 : tensor<3xbf16>\n}\n"
    )
    a = np.array([1, -2.5, 0.125], ml_dtypes.bfloat16)
    np.save(tmp_path / "a.npy", a.view(np.uint16))  # bf16 as its bits, as probes store it
    ok(run("--interpret", "--args=@a.npy", "--output=neg.npy", "neg.mlir", cwd=tmp_path))
    got = np.load(tmp_path / "neg.npy")
    assert got.dtype == np.uint16 and got.view(ml_dtypes.bfloat16).tolist() == [-1.0, 2.5, -0.125]
    (tmp_path / "p.mlir").write_text(PROGRAM)
    np.savez(tmp_path / "in.npz", x=X, y=Y)
    err = one_line_error(run("--interpret", "--inputs=in.npz", "--output=out.npy", "p.mlir", cwd=tmp_path))
    assert err == (
        "out.npy: error: an .npy file holds one array but there are 2 results: write an .npz "
        "archive (--output=out.npz)"
    )


def test_jax_export_with_npz(tmp_path: Path) -> None:
    # examples/mlp.jax_exported: predict(state, x); JAX dropped the unused state['steps'] from the
    # module, but the exported function takes it (Exported.call's convention), named by its path
    f32 = np.float32
    members = {
        "state['b1']": np.array([0, 1, -1], f32), "state['b2']": np.array([10, 20], f32),
        "state['steps']": np.array(1000, np.int32),
        "state['w1']": np.array([[1, -1, 2], [0, 1, -2]], f32),
        "state['w2']": np.array([[1, 0], [2, 1], [-1, 3]], f32), "x": np.array([[1, 2], [3, -1]], f32),
    }
    np.savez(tmp_path / "named.npz", **members)
    np.savez(tmp_path / "pos.npz", **{f"arg{i}": v for i, v in enumerate(members.values())})
    for name in ("named.npz", "pos.npz"):
        ok(run("--interpret", f"--inputs={name}", "--output=out.npz",
               str(EXAMPLES / "mlp.jax_exported"), cwd=tmp_path))
        assert load_results(tmp_path / "out.npz")[0].tolist() == [[15.0, 22.0], [6.0, 41.0]]
    del members["state['steps']"]
    np.savez(tmp_path / "short.npz", **members)
    err = one_line_error(run("--interpret", "--inputs=short.npz", str(EXAMPLES / "mlp.jax_exported"),
                             cwd=tmp_path))
    assert err == (
        "short.npz: error: no member for argument 2 of the exported function predict (int32[]): "
        "add one named 'arg2' or \"state['steps']\""
    )


SUFFIXED = """
func.func @main(%x: tensor<4xf32>, %flags: tensor<4xi1>, %z: tensor<4xcomplex<f32>>)
    -> (tensor<4xf32>, tensor<4xi1>, tensor<4xcomplex<f32>>) {
  %h = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16> loc("hidden")
  %n = stablehlo.not %flags : tensor<4xi1> loc("negated")
  %w = stablehlo.multiply %z, %z : tensor<4xcomplex<f32>> loc("squared")
  %r:3 = func.call @suffix(%h, %n, %w)
      : (tensor<4xbf16>, tensor<4xi1>, tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xcomplex<f32>>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xi1>, tensor<4xcomplex<f32>>
}
func.func private @suffix(%h: tensor<4xbf16>, %n: tensor<4xi1>, %w: tensor<4xcomplex<f32>>)
    -> (tensor<4xf32>, tensor<4xi1>, tensor<4xcomplex<f32>>) {
  %m = stablehlo.multiply %h, %h : tensor<4xbf16>
  %c = stablehlo.convert %m : (tensor<4xbf16>) -> tensor<4xf32>
  %a = stablehlo.and %n, %n : tensor<4xi1>
  %s = stablehlo.add %w, %w : tensor<4xcomplex<f32>>
  return %c, %a, %s : tensor<4xf32>, tensor<4xi1>, tensor<4xcomplex<f32>>
}
"""


def _suffix_as_main(names: tuple[str, str, str] | None = None) -> str:
    """@suffix alone, as @main (its parameters optionally named by probe ids)."""
    body = SUFFIXED[SUFFIXED.index("func.func private @suffix"):].replace("func.func private @suffix", "func.func @main")
    if names:
        for param, name in zip(("%h: tensor<4xbf16>", "%n: tensor<4xi1>", "%w: tensor<4xcomplex<f32>>"), names):
            body = body.replace(param, f'{param} loc("{name}")', 1)
    return body


def test_probe_round_trip_bf16_i1_complex(tmp_path: Path) -> None:
    """Instrument a program with probes, run it with --probe-output-dir, and feed the probed
    intermediates (bf16 stored as bits, i1, complex) to the program's suffix: its results are the
    whole program's."""
    assert OPT
    (tmp_path / "full.mlir").write_text(SUFFIXED)
    instrumented = subprocess.run(
        [OPT, "--interpreter-instrument-with-probe=useDebugInfo=true", "full.mlir", "-o", "probed.mlir"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert instrumented.returncode == 0, instrumented.stderr
    x = np.array([1.5, -3, 0.1, 1e3], np.float32)
    flags = np.array([True, False, False, True])
    z = np.array([1 + 2j, -1j, 0.5, 3 - 1j], np.complex64)
    np.savez(tmp_path / "in.npz", arg0=x, arg1=flags, arg2=z)
    whole = ok(run("--interpret", "--inputs=in.npz", "--probe-output-dir=probes", "probed.mlir",
                   "--interpreter-print-dense", cwd=tmp_path))
    assert whole == ok(run("--interpret", "--inputs=in.npz", "full.mlir", "--interpreter-print-dense",
                           cwd=tmp_path))
    probes = read_probes(tmp_path / "probes")
    ids = {p.split(".")[0]: p for p in probes}
    assert probes[ids["hidden"]].dtype == ml_dtypes.bfloat16
    index = (tmp_path / "probes" / "index.csv").read_text().splitlines()
    files = {line.split(",")[0]: Path(line.rsplit(",", 1)[1]).name for line in index}
    (tmp_path / "suffix.mlir").write_text(_suffix_as_main())
    chosen = ",".join(f"@probes/{files[ids[k]]}" for k in ("hidden", "negated", "squared"))
    assert ok(run("--interpret", f"--args={chosen}", "suffix.mlir", "--interpreter-print-dense",
                  cwd=tmp_path)) == whole
    # the whole directory as --inputs: the suffix's parameters named by the probe ids
    (tmp_path / "named.mlir").write_text(_suffix_as_main((ids["hidden"], ids["negated"], ids["squared"])))
    assert ok(run("--interpret", "--inputs=probes", "named.mlir", "--interpreter-print-dense",
                  cwd=tmp_path)) == whole
    # a probe's type must be the parameter's: the bf16 probe for the i1 parameter
    wrong = ",".join(f"@probes/{files[ids[k]]}" for k in ("hidden", "hidden", "squared"))
    err = one_line_error(run("--interpret", f"--args={wrong}", "suffix.mlir", cwd=tmp_path))
    assert f"is probe {ids['hidden']} of type tensor<4xbf16>" in err
    assert "but parameter 1 of @main is tensor<4xi1>" in err


@pytest.mark.parametrize(
    "option,expected",
    [
        ("--args=@x64.npy,@y.npy",
         "x64.npy: error: holds float64 but parameter 0 of @main is tensor<2xf32>: save it with that "
         "element type (np.asarray(a, np.float32))"),
        ("--inputs=short.npz",
         "short.npz: error: no member for parameter 1 of @main (tensor<2xf32>): add one named 'arg1' or 'y'"),
        ("--args=@x.npy",
         "error: incorrect number of arguments specified, provided 1 inputs but function expected 2"),
        ("--args=@x.npy,@missing.npy", "error: cannot read 'missing.npy': No such file or directory"),
        ("--args=@x.npy,@p.mlir", "p.mlir: error: is not a NumPy .npy file (no '\\x93NUMPY' header)"),
        ("--inputs=bad.npz", "bad.npz: error: is not an .npz archive (not a zip file): write one with numpy.savez"),
        ("--inputs=extra.npz",
         "extra.npz: error: member 'z' names no argument: parameter 0 of @main (tensor<2xf32>, named 'x'); "
         "parameter 1 of @main (tensor<2xf32>, named 'y'); members are named arg<k> by position or by an "
         "argument's name"),
        ("--inputs=nodir", "error: nodir has no index.csv: a probe directory is what `stablehlo-translate "
         "--interpret --probe-output-dir=DIR` writes"),
        ("--args=dense<1>",
         "error: expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]"),
        ("--output=out.txt", "out.txt: error: results are written to an .npz archive (every result) or an "
         ".npy file (one result), or into a directory (DIR/, one .npy file per result): name the file so, "
         "or name an existing directory or one ending in '/'"),
    ],
)
def test_errors_are_one_line(files: Path, option: str, expected: str) -> None:
    np.save(files / "x64.npy", X.astype(np.float64))
    np.savez(files / "short.npz", x=X)
    np.savez(files / "extra.npz", x=X, y=Y, z=Y)
    (files / "bad.npz").write_text("not a zip")
    (files / "nodir").mkdir()
    extra = [] if option.startswith("--args") or option.startswith("--inputs") else ["--args=@x.npy,@y.npy"]
    assert one_line_error(run("--interpret", option, *extra, "p.mlir", cwd=files)) == expected


def test_output_needs_one_run(tmp_path: Path) -> None:
    (tmp_path / "two.mlir").write_text(
        "func.func @main() -> tensor<i32> {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  return %0 : tensor<i32>\n}\n// -----\n"
        "func.func @main() -> tensor<i32> {\n  %0 = stablehlo.constant dense<2> : tensor<i32>\n"
        "  return %0 : tensor<i32>\n}\n"
    )
    err = one_line_error(run("--interpret", "--split-input-file", "--output=o.npz", "two.mlir", cwd=tmp_path))
    assert err.startswith("error: --output holds the results of one function, but @main runs too")


def test_arguments_without_main_are_an_error(tmp_path: Path) -> None:
    """--args and --inputs give @main's arguments: a program without @main is told so, not run
    without them."""
    (tmp_path / "f.mlir").write_text(PROGRAM.replace("@main", "@f"))
    np.savez(tmp_path / "in.npz", x=X, y=Y)
    for option in ("--args=@in.npz", "--inputs=in.npz"):
        err = one_line_error(run("--interpret", option, "f.mlir", cwd=tmp_path))
        assert err == (
            "error: --args/--inputs give @main's arguments, and the program has no @main "
            "(its functions: @f); name the entry function main"
        )


def test_help_names_the_options() -> None:
    text = ok(run("--help"))
    for option in ("--args", "--inputs", "--output", "@run.npz", "probe directory", "result_info"):
        assert option in text, option


WRAPPER = """
import resource, sys
from stablehlo_py.cli.translate import main
code = main(sys.argv[1:])
print(f"maxrss_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
sys.exit(code)
"""


def test_100mb_input_through_files(tmp_path: Path) -> None:
    """25M float32 (100 MB) as a memory-mapped .npy through reduce + add: the sums are exact and
    the process's peak RSS stays under 1 GB (the text path would need several GB)."""
    rows, cols = 5000, 5000
    x = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float32, shape=(rows, cols))
    pattern = (np.arange(cols, dtype=np.int64) % 7 - 3).astype(np.float32)  # row sum: small ints
    for start in range(0, rows, 500):
        x[start : start + 500] = pattern + (np.arange(start, start + 500) % 64).astype(np.float32)[:, None]
    x.flush()
    del x
    assert (tmp_path / "x.npy").stat().st_size >= 100_000_000
    bias = np.arange(rows, dtype=np.float32) * -1
    np.save(tmp_path / "bias.npy", bias)
    (tmp_path / "sum.mlir").write_text(
        f"""func.func @main(%x: tensor<{rows}x{cols}xf32>, %b: tensor<{rows}xf32>) -> tensor<{rows}xf32> {{
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<{rows}x{cols}xf32>, tensor<f32>) -> tensor<{rows}xf32>
  %r = stablehlo.add %s, %b : tensor<{rows}xf32>
  return %r : tensor<{rows}xf32>
}}
"""
    )
    r = subprocess.run(
        [sys.executable, "-c", WRAPPER, "--interpret", "--args=@x.npy,@bias.npy", "--output=r.npy",
         "sum.mlir"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "r.npy")
    # row i: sum(pattern) + cols * (i % 64) - i, every partial sum an integer below 2**24: exact
    i = np.arange(rows, dtype=np.float64)
    expected = float(pattern.sum()) + cols * (i % 64) - i
    np.testing.assert_array_equal(got.astype(np.float64), expected)
    peak_mb = int(r.stderr.split("maxrss_kb=")[1].split()[0]) / 1024
    print(f"100 MB input: peak RSS {peak_mb:.0f} MB")
    assert peak_mb < 1024, peak_mb
