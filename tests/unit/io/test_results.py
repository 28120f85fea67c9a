"""Results to files and back (stablehlo_py/io/results.py), and the same names from the API."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import stablehlo_py
from stablehlo_py.interpreter import run
from stablehlo_py.io import load_inputs, load_results, save_inputs, save_results
from stablehlo_py.io.errors import OutputError
from stablehlo_py.io.results import tensor_type_text

PROGRAM = """
func.func @main(%x: tensor<2xbf16>, %b: tensor<i1>) -> (tensor<2xbf16> {jax.result_info = "doubled"},
                                                       tensor<i1>, tensor<2xcomplex<f32>>) {
  %0 = stablehlo.add %x, %x : tensor<2xbf16>
  %1 = stablehlo.not %b : tensor<i1>
  %2 = stablehlo.constant dense<[(1.0, 2.0), (0.0, -1.0)]> : tensor<2xcomplex<f32>>
  return %0, %1, %2 : tensor<2xbf16>, tensor<i1>, tensor<2xcomplex<f32>>
}
"""
X = np.array([1.5, -0.25], ml_dtypes.bfloat16)


def test_round_trip_with_types_and_names(tmp_path: Path) -> None:
    results = run(PROGRAM, X, np.array(True))
    save_results(tmp_path / "out.npz", results, ["doubled", None, None])
    raw = np.load(tmp_path / "out.npz")
    assert sorted(raw.files) == ["result0", "result1", "result2", "result_info", "result_types"]
    assert raw["result_types"].tolist() == ["tensor<2xbf16>", "tensor<i1>", "tensor<2xcomplex<f32>>"]
    assert raw["result_info"].tolist() == ["doubled", "", ""]
    assert raw["result0"].dtype == np.uint16  # bits, readable without ml_dtypes
    back = load_results(tmp_path / "out.npz")
    assert [b.dtype for b in back] == [r.dtype for r in results]
    for b, r in zip(back, results):
        np.testing.assert_array_equal(b, r)
    save_results(tmp_path / "plain.npz", results)
    assert "result_info" not in np.load(tmp_path / "plain.npz").files


def test_single_result_npy(tmp_path: Path) -> None:
    save_results(tmp_path / "one.npy", [np.arange(3, dtype=np.int64)])
    assert load_results(tmp_path / "one.npy")[0].tolist() == [0, 1, 2]
    with pytest.raises(OutputError, match=r"one.npy: error: an .npy file holds one array but there are 2 results"):
        save_results(tmp_path / "one.npy", [np.zeros(1), np.zeros(1)])


@pytest.mark.parametrize(
    "path,results,message",
    [
        ("out.txt", [np.zeros(1)], "results are written to an .npz archive .* or an .npy file"),
        ("out.npz", [(np.zeros(1),)], "result 0 is a tuple, not a tensor"),
        ("out.npz", [np.array(["a"])], "result 0 has dtype <U1, which is no StableHLO element type"),
        ("nodir/out.npz", [np.zeros(1)], "cannot write .*nodir/out.npz"),
    ],
)
def test_errors(tmp_path: Path, path: str, results: list[object], message: str) -> None:
    with pytest.raises(OutputError, match=message):
        save_results(tmp_path / path, results)
    with pytest.raises(OutputError, match="2 names given for 1 results"):
        save_results(tmp_path / "x.npz", [np.zeros(1)], ["a", "b"])


def test_save_inputs_reads_back_with_load_inputs(tmp_path: Path) -> None:
    save_inputs(tmp_path / "in.npz", [X, np.array(False)])
    args = load_inputs(tmp_path / "in.npz", PROGRAM)
    assert args[0].dtype == X.dtype and args[0].tolist() == X.tolist()
    assert args[1].dtype == np.bool_ and not args[1]


def test_type_text() -> None:
    assert tensor_type_text(np.zeros((2, 3), ml_dtypes.float8_e5m2)) == "tensor<2x3xf8E5M2>"
    assert tensor_type_text(np.array(1j, np.complex128)) == "tensor<complex<f64>>"


def test_api_exports(tmp_path: Path) -> None:
    from stablehlo_py import api

    assert "load_inputs" in api.__all__ and "save_results" in api.__all__
    assert stablehlo_py.save_results is api.save_results
    stablehlo_py.save_results(tmp_path / "r.npz", [X])
    np.savez(tmp_path / "i.npz", arg0=X, arg1=np.array(True))
    assert stablehlo_py.load_inputs(tmp_path / "i.npz", PROGRAM)[0].tolist() == X.tolist()
    assert load_results(tmp_path / "r.npz")[0].tolist() == X.tolist()


def test_api_load_inputs_takes_a_jax_export(tmp_path: Path) -> None:
    from stablehlo_py.api import run_exported

    data = (Path(__file__).resolve().parents[3] / "examples" / "mlp.jax_exported").read_bytes()
    f32 = np.float32
    np.savez(
        tmp_path / "run.npz",
        **{
            "state['b1']": np.array([0, 1, -1], f32), "state['b2']": np.array([10, 20], f32),
            "arg2": np.array(1000, np.int32), "state['w1']": np.array([[1, -1, 2], [0, 1, -2]], f32),
            "state['w2']": np.array([[1, 0], [2, 1], [-1, 3]], f32), "x": np.array([[1, 2], [3, -1]], f32),
        },
    )
    args = stablehlo_py.load_inputs(tmp_path / "run.npz", data)
    assert len(args) == 6
    # the README's figures for examples/mlp.jax_exported
    assert run_exported(data, *args)[0].tolist() == [[15.0, 22.0], [6.0, 41.0]]
