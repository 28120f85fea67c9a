"""`stablehlo-translate --interpret --output=DIR/`: one .npy file per result (plus result_types.npy
and result_info.npy), also for partitioned programs run by the threaded engine (tests/data/mpi),
and the directory's errors, said before the program runs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter.custom_calls.spmd import run_spmd
from stablehlo_py.interpreter.storage import storable

from stablehlo_py.io import load_results
from tests.cli.test_interpret_files import EXPECTED, PROGRAM, X, Y, ok, one_line_error, run

DATA = Path(__file__).resolve().parents[1] / "data" / "mpi"
MANIFEST = json.loads((DATA / "manifest.json").read_text())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "p.mlir").write_text(PROGRAM)
    np.savez(tmp_path / "in.npz", x=X, y=Y)
    return tmp_path


def test_results_into_a_new_directory(files: Path) -> None:
    assert ok(run("--interpret", "--inputs=in.npz", "--output=out/", "p.mlir", cwd=files)) == ""
    out = files / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "result0.npy", "result1.npy", "result_info.npy", "result_types.npy"]
    assert np.load(out / "result_info.npy").tolist() == ["sum", "product"]
    assert np.load(out / "result_types.npy").tolist() == ["tensor<2xf32>"] * 2
    assert [r.tolist() for r in load_results(out)] == [(X + Y).tolist(), (X * Y).tolist()]
    np.save(files / "ref.npy", X * Y)
    assert (out / "result1.npy").read_bytes() == (files / "ref.npy").read_bytes()


def test_an_existing_directory_without_a_slash_and_text_with_o(files: Path) -> None:
    (files / "out").mkdir()
    (files / "notes.txt").write_text("kept")
    args = ("--interpret", "--inputs=in.npz", "--output=out", "-o", "out.txt", "p.mlir")
    ok(run(*args, cwd=files))
    assert (files / "out.txt").read_text() == EXPECTED
    assert load_results(files / "out")[0].tolist() == (X + Y).tolist()
    ok(run(*args, cwd=files))  # a second run replaces the files
    assert (files / "notes.txt").read_text() == "kept"


@pytest.mark.parametrize("name", ["sm_psum", "sm_ppermute", "gspmd_sm_partial"])
def test_a_partitioned_program_s_results(name: str, tmp_path: Path) -> None:
    row = next(r for r in MANIFEST["programs"] if r["name"] == name)
    with np.load(DATA / row["data"]) as data:
        args = [data[f"arg{k}"] for k in range(len(row["args"]))]
        xla = [data[f"out{k}"] for k in range(len(row["outs"]))]
    np.savez(tmp_path / "in.npz", **{f"arg{k}": a for k, a in enumerate(args)})
    ok(run("--interpret", str(DATA / row["file"]), "--inputs=in.npz", "--output=res/", cwd=tmp_path))
    with gzip.open(DATA / row["file"], "rt") as fh:
        expected = run_spmd(fh.read(), *args)
    for k, (e, x) in enumerate(zip(expected, xla)):
        np.save(tmp_path / "ref.npy", storable(np.asarray(e)))
        assert (tmp_path / "res" / f"result{k}.npy").read_bytes() == (tmp_path / "ref.npy").read_bytes()
        np.testing.assert_allclose(load_results(tmp_path / "res")[k], x, rtol=2e-5, atol=2e-5)


def test_directory_errors_are_one_line_and_said_before_the_run(files: Path) -> None:
    (files / "afile").write_text("x")
    # the arguments are missing: the run would fail, but the output path is checked first
    err = one_line_error(run("--interpret", "--output=afile/", "p.mlir", cwd=files))
    assert err == ("error: results go into a directory, but 'afile' is a file: remove it, or name a "
                   "directory (or an .npz/.npy file, without the trailing '/')")
    err = one_line_error(run("--interpret", "--output=afile/sub/", "p.mlir", cwd=files))
    assert err == "error: cannot create the results directory 'afile/sub': 'afile' is a file"
    err = one_line_error(run("--interpret", "--output=out.txt", "p.mlir", cwd=files))
    assert err == ("out.txt: error: results are written to an .npz archive (every result) or an .npy "
                   "file (one result), or into a directory (DIR/, one .npy file per result): name the "
                   "file so, or name an existing directory or one ending in '/'")
    assert not (files / "afile" / "sub").exists()


def test_result_files_of_an_earlier_run_are_not_mixed_in(files: Path) -> None:
    (files / "out").mkdir()
    for k in (2, 3):
        np.save(files / "out" / f"result{k}.npy", np.zeros(1))
    err = one_line_error(run("--interpret", "--inputs=in.npz", "--output=out/", "p.mlir", cwd=files))
    assert err == ("out/: error: holds result2.npy, result3.npy from an earlier run, which this run "
                   "(2 results) would not replace: remove them, or write into another directory")
    assert not (files / "out" / "result0.npy").exists()


def test_one_run_per_directory(tmp_path: Path) -> None:
    (tmp_path / "two.mlir").write_text(
        "func.func @main() -> tensor<i32> {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  return %0 : tensor<i32>\n}\n// -----\n"
        "func.func @main() -> tensor<i32> {\n  %0 = stablehlo.constant dense<2> : tensor<i32>\n"
        "  return %0 : tensor<i32>\n}\n"
    )
    err = one_line_error(run("--interpret", "--split-input-file", "--output=d/", "two.mlir", cwd=tmp_path))
    assert err.startswith("error: --output holds the results of one function, but @main runs too")
