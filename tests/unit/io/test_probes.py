"""Probe directories read back typed (stablehlo_py/io/probes.py): what interpreter.probe wrote
for bf16/f8/i1/complex values, upstream's stored forms, moved directories, loops."""

from __future__ import annotations

import shutil
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.io.errors import InputError
from stablehlo_py.io.probes import entry_for_file, load_probe, read_index, read_probes
from stablehlo_py.ir import parse

PROGRAM = """
func.func @main(%x: tensor<3xbf16>, %b: tensor<2xi1>, %c: tensor<2xcomplex<f32>>,
                %e: tensor<2xf8E4M3FN>) -> () {
  %0 = stablehlo.add %x, %x : tensor<3xbf16>
  %1 = interpreter.probe %0, probe_id = "twice" : tensor<3xbf16>
  %2 = stablehlo.not %b : tensor<2xi1>
  %3 = interpreter.probe %2, probe_id = "negated" : tensor<2xi1>
  %4 = interpreter.probe %c, probe_id = "c" : tensor<2xcomplex<f32>>
  %5 = interpreter.probe %e, probe_id = "e" : tensor<2xf8E4M3FN>
  return
}
"""

X = np.array([1.5, -2, 0.25], ml_dtypes.bfloat16)
B = np.array([True, False])
C = np.array([1 + 2j, -0.5j], np.complex64)
E = np.array([0.5, -448], ml_dtypes.float8_e4m3fn)


def _run_with_probes(text: str, directory: Path, *args: object) -> None:
    ev = Evaluator(parse(text))
    ev.probe_dir = str(directory)  # type: ignore[attr-defined]
    ev.call("main", list(args))
    assert not ev.failures


def test_probes_read_back_exactly(tmp_path: Path) -> None:
    _run_with_probes(PROGRAM, tmp_path, X, B, C, E)
    probes = read_probes(tmp_path)
    assert list(probes) == ["twice", "negated", "c", "e"]
    assert probes["twice"].dtype == X.dtype and probes["twice"].tolist() == [3.0, -4.0, 0.5]
    assert probes["negated"].dtype == np.bool_ and probes["negated"].tolist() == [False, True]
    np.testing.assert_array_equal(probes["c"], C)
    assert probes["e"].dtype == E.dtype and probes["e"].tolist() == E.tolist()
    # the bf16 file holds bits, which only the index's type makes a bf16 value
    assert np.load(tmp_path / "probe1.npy").dtype == np.uint16


def test_a_moved_directory_still_reads(tmp_path: Path) -> None:
    _run_with_probes(PROGRAM, tmp_path / "a", X, B, C, E)
    shutil.move(tmp_path / "a", tmp_path / "b")  # index.csv keeps the old absolute paths
    entry = entry_for_file(tmp_path / "b" / "probe1.npy")
    assert entry is not None and entry.probe_id == "twice" and entry.type_text == "tensor<3xbf16>"
    assert load_probe(entry).tolist() == [3.0, -4.0, 0.5]
    assert entry_for_file(tmp_path / "elsewhere.npy") is None


def test_loop_iterations(tmp_path: Path) -> None:
    loop = """
    func.func @main() -> () {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %r = stablehlo.while(%i = %zero) : tensor<i32>
      cond {
        %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %j = stablehlo.add %i, %one : tensor<i32>
        %p = interpreter.probe %j, probe_id = "j" : tensor<i32>
        stablehlo.return %p : tensor<i32>
      }
      return
    }
    """
    _run_with_probes(loop, tmp_path)
    assert [(e.probe_id, e.iteration) for e in read_index(tmp_path)] == [("j", 0), ("j", 1), ("j", 2)]
    assert read_probes(tmp_path)["j"].tolist() == 1
    assert read_probes(tmp_path, iteration=2)["j"].tolist() == 3
    assert read_probes(tmp_path, iteration=3) == {}


def _index(directory: Path, *lines: str) -> None:
    directory.mkdir(exist_ok=True)
    (directory / "index.csv").write_text("".join(line + "\n" for line in lines))


def test_upstream_forms_and_a_quantized_type(tmp_path: Path) -> None:
    # upstream's interpreter stores i1 as int8, f16 as uint16, complex<f32> as float64, signless
    # i64 as uint64 (stablehlo/reference/NumPy.cpp); the index's type says how to read them
    np.save(tmp_path / "p1.npy", np.array([1, 0], np.int8))
    np.save(tmp_path / "p2.npy", np.array([1.5], np.float16).view(np.uint16))
    np.save(tmp_path / "p3.npy", C.view(np.float64))
    np.save(tmp_path / "p4.npy", np.array([2**63 + 5], np.uint64))
    np.save(tmp_path / "p5.npy", np.array([-3, 4], np.int8))
    _index(
        tmp_path,
        f"a,tensor<2xi1>,{tmp_path}/p1.npy",
        f"b,tensor<1xf16>,{tmp_path}/p2.npy",
        f"c,tensor<2xcomplex<f32>>,{tmp_path}/p3.npy",
        f"d,tensor<1xi64>,{tmp_path}/p4.npy",
        f"q,tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>,{tmp_path}/p5.npy",
    )
    p = read_probes(tmp_path)
    assert p["a"].tolist() == [True, False] and p["b"].tolist() == [1.5]
    np.testing.assert_array_equal(p["c"], C)
    assert p["d"].dtype == np.int64 and p["d"].tolist() == [-(2**63) + 5]
    assert p["q"].dtype == np.int8 and p["q"].tolist() == [-3, 4]


@pytest.mark.parametrize(
    "line,message",
    [
        ("a,tensor<2xf32>,{d}/p.npy", r"p.npy: error: holds int32 but .*index.csv:1 says probe a is tensor<2xf32>"),
        ("a,tensor<3xi32>,{d}/p.npy", r"p.npy \(probe a\): dimension 0 is 2 but its type tensor<3xi32> says 3"),
        ("a,tensor<2xnope>,{d}/p.npy", r"index.csv:1: error: type 'tensor<2xnope>' of probe a does not read"),
        ("a;tensor<2xi32>;p.npy", r"index.csv:1: error: is not a probe index line"),
        ("a,tensor<2xi32>,{d}/gone.npy", r"cannot read .*gone.npy"),
    ],
)
def test_index_errors_name_the_line_or_file(tmp_path: Path, line: str, message: str) -> None:
    np.save(tmp_path / "p.npy", np.array([1, 2], np.int32))
    _index(tmp_path, line.format(d=tmp_path))
    with pytest.raises(InputError, match=message) as e:
        read_probes(tmp_path)
    assert "\n" not in str(e.value)


def test_no_index(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="has no index.csv: a probe directory is what"):
        read_index(tmp_path)
