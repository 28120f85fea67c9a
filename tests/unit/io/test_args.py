"""`--args`/`--inputs` and `load_inputs` (stablehlo_py/io/args.py): every form, the member
matching rules and their one-line errors."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.io import load_inputs
from stablehlo_py.io.args import parse_inline, resolve_arguments
from stablehlo_py.io.errors import InputError
from stablehlo_py.io.params import entry_function, function_params
from stablehlo_py.ir import parse

PROGRAM = """
func.func @main(%x: tensor<2xf32> loc("x"), %y: tensor<2xbf16> loc("y"), %n: tensor<i32>)
    -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
"""
PARAMS = function_params(entry_function(PROGRAM))
X = np.array([1, 2], np.float32)
Y = np.array([0.5, -1], ml_dtypes.bfloat16)
N = np.array(7, np.int32)


def _files(d: Path) -> None:
    np.save(d / "x.npy", X)
    np.save(d / "y.npy", Y.view(np.uint16))  # bf16 as bits, as probes store it
    np.save(d / "n.npy", N)


def _check(values: list[np.ndarray]) -> None:
    assert [v.dtype for v in values] == [X.dtype, Y.dtype, N.dtype]
    assert [v.tolist() for v in values] == [X.tolist(), Y.tolist(), N.tolist()]


def test_inline_form_and_upstream_messages() -> None:
    text = "[dense<[1.0, 2.0]> : tensor<2xf32>, dense<[0.5, -1.0]> : tensor<2xbf16>, dense<7> : tensor<i32>]"
    _check(resolve_arguments(text, None, PARAMS))
    with pytest.raises(InputError, match=r"^error: expectected array attribute string for args, i\.e\."):
        resolve_arguments("dense<1> : tensor<i32>", None, PARAMS)
    with pytest.raises(InputError, match="expected dense elements attribute for args elements"):
        resolve_arguments("[1 : i32]", None, PARAMS)
    with pytest.raises(
        InputError, match="incorrect number of arguments specified, provided 1 inputs but function expected 3"
    ):
        resolve_arguments("[dense<1> : tensor<i32>]", None, PARAMS)
    assert resolve_arguments(None, None, PARAMS) is None


def test_at_file_holds_the_inline_text(tmp_path: Path) -> None:
    (tmp_path / "a.mlir").write_text(
        "[dense<[1.0, 2.0]> : tensor<2xf32>,\n dense<[0.5, -1.0]> : tensor<2xbf16>,\n dense<7> : tensor<i32>]\n"
    )
    _check(resolve_arguments(f"@{tmp_path}/a.mlir", None, PARAMS))
    (tmp_path / "b.mlir").write_text("[dense<1> : tensor<i32>]")
    with pytest.raises(InputError, match=r"b.mlir: error: incorrect number of arguments"):
        resolve_arguments(f"@{tmp_path}/b.mlir", None, PARAMS)


def test_npy_list_mixed_with_dense(tmp_path: Path) -> None:
    _files(tmp_path)
    _check(resolve_arguments(f"@{tmp_path}/x.npy,@{tmp_path}/y.npy,@{tmp_path}/n.npy", None, PARAMS))
    mixed = f"@{tmp_path}/x.npy, dense<[0.5, -1.0]> : tensor<2xbf16>, dense<7> : tensor<i32>"
    _check(resolve_arguments(mixed, None, PARAMS))
    with pytest.raises(InputError, match="provided 2 inputs but function expected 3"):
        resolve_arguments(f"@{tmp_path}/x.npy,@{tmp_path}/y.npy", None, PARAMS)
    with pytest.raises(InputError, match=r"--args entry 2 \('7'\) for parameter 2 of @main is neither"):
        resolve_arguments(f"@{tmp_path}/x.npy,@{tmp_path}/y.npy,7", None, PARAMS)
    with pytest.raises(InputError, match="entry 0 of the argument list is an .npz archive"):
        resolve_arguments(f"@{tmp_path}/r.npz,@{tmp_path}/y.npy,@{tmp_path}/n.npy", None, PARAMS)


def test_npy_dtype_must_be_the_parameter_type(tmp_path: Path) -> None:
    _files(tmp_path)
    np.save(tmp_path / "x64.npy", X.astype(np.float64))
    with pytest.raises(InputError) as e:
        resolve_arguments(f"@{tmp_path}/x64.npy,@{tmp_path}/y.npy,@{tmp_path}/n.npy", None, PARAMS)
    assert str(e.value) == (
        f"{tmp_path}/x64.npy: error: holds float64 but parameter 0 of @main is tensor<2xf32>: "
        "save it with that element type (np.asarray(a, np.float32))"
    )
    np.save(tmp_path / "x3.npy", np.zeros(3, np.float32))
    with pytest.raises(InputError, match=r"x3.npy \(for parameter 0 of @main\): dimension 0 is 3"):
        resolve_arguments(f"@{tmp_path}/x3.npy,@{tmp_path}/y.npy,@{tmp_path}/n.npy", None, PARAMS)


def test_npz_by_position_and_by_name(tmp_path: Path) -> None:
    np.savez(tmp_path / "pos.npz", arg0=X, arg1=Y.view(np.uint16), arg2=N)
    np.savez(tmp_path / "names.npz", x=X, y=Y.view(np.uint16), arg2=N)
    for name in ("pos.npz", "names.npz"):
        _check(resolve_arguments(f"@{tmp_path}/{name}", None, PARAMS))
        _check(resolve_arguments(None, f"{tmp_path}/{name}", PARAMS))


@pytest.mark.parametrize(
    "members,message",
    [
        ({"x": X, "y": Y}, r"no member for parameter 2 of @main \(tensor<i32>\): add one named 'arg2'"),
        ({"x": X}, r"no member for parameter 1 .* \(and 1 more\)"),
        ({"x": X, "y": Y, "arg2": N, "z": N}, r"member 'z' names no argument: parameter 0 of @main \(tensor<2xf32>, named 'x'\)"),
        ({"x": X, "arg0": X, "y": Y, "arg2": N}, r"members '(x|arg0)' and '(x|arg0)' both give parameter 0"),
        ({"x": X, "y": Y, "arg5": N}, r"member 'arg5' names argument 5, but there are 3"),
        ({"x": X.astype(np.int32), "y": Y, "arg2": N}, r"run.npz\[x\]: error: holds int32 but parameter 0"),
    ],
)
def test_npz_errors(tmp_path: Path, members: dict[str, np.ndarray], message: str) -> None:
    np.savez(tmp_path / "run.npz", **members)
    with pytest.raises(InputError, match=message) as e:
        resolve_arguments(None, f"{tmp_path}/run.npz", PARAMS)
    assert "\n" not in str(e.value)


def test_duplicate_names_must_be_given_by_position(tmp_path: Path) -> None:
    text = """
    func.func @main(%a: tensor<i32> loc("v"), %b: tensor<i32> loc("v")) -> tensor<i32> {
      return %a : tensor<i32>
    }"""
    params = function_params(entry_function(text))
    np.savez(tmp_path / "r.npz", v=N, arg1=N)
    with pytest.raises(InputError, match=r"member 'v' names 2 arguments .*name them arg<k>"):
        resolve_arguments(None, f"{tmp_path}/r.npz", params)
    np.savez(tmp_path / "r.npz", arg0=N, arg1=N + 1)
    assert [v.tolist() for v in resolve_arguments(None, f"{tmp_path}/r.npz", params)] == [7, 8]


def test_probe_directory_and_probe_files(tmp_path: Path) -> None:
    # a program whose probes are named as the next program's arguments
    first = """
    func.func @main(%a: tensor<2xbf16>) -> () {
      %0 = stablehlo.negate %a : tensor<2xbf16>
      %1 = interpreter.probe %0, probe_id = "y" : tensor<2xbf16>
      %2 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %3 = interpreter.probe %2, probe_id = "x" : tensor<2xf32>
      %4 = stablehlo.constant dense<7> : tensor<i32>
      %5 = interpreter.probe %4, probe_id = "unused" : tensor<i32>
      return
    }"""
    ev = Evaluator(parse(first))
    ev.probe_dir = str(tmp_path)  # type: ignore[attr-defined]
    ev.call("main", [-Y])
    params = PARAMS
    with pytest.raises(InputError, match="no member for parameter 2 of @main"):
        resolve_arguments(None, str(tmp_path), params)  # the probe dir names x and y only
    two = """
    func.func @main(%x: tensor<2xf32> loc("x"), %y: tensor<2xbf16> loc("y")) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }"""
    got = resolve_arguments(None, str(tmp_path), function_params(entry_function(two)))
    assert got[1].dtype == Y.dtype and [v.tolist() for v in got] == [X.tolist(), Y.tolist()]
    # a probe file is typed by its index: probe1.npy holds uint16 bits of a bf16 value
    values = resolve_arguments(f"@{tmp_path}/probe2.npy,@{tmp_path}/probe1.npy,dense<7> : tensor<i32>", None, params)
    _check(values)
    with pytest.raises(InputError, match=r"probe1.npy: error: is probe y of type tensor<2xbf16> \(.*index.csv:1\) but parameter 0 of @main is tensor<2xf32>"):
        resolve_arguments(f"@{tmp_path}/probe1.npy,@{tmp_path}/probe1.npy,dense<7> : tensor<i32>", None, params)


def test_both_options_or_a_bad_inputs_path() -> None:
    with pytest.raises(InputError, match="--args or --inputs, not both"):
        resolve_arguments("[]", "r.npz", PARAMS)
    with pytest.raises(InputError, match="--inputs=r.txt: takes an .npz archive"):
        resolve_arguments(None, "r.txt", PARAMS)


def test_load_inputs_in_python(tmp_path: Path) -> None:
    _files(tmp_path)
    np.savez(tmp_path / "r.npz", x=X, y=Y, arg2=N)  # y saved by np.savez as raw bytes ('<V2')
    module = parse(PROGRAM)
    _check(load_inputs(tmp_path / "r.npz", module))
    _check(load_inputs(str(tmp_path / "r.npz"), PROGRAM))
    _check(load_inputs([tmp_path / "x.npy", tmp_path / "y.npy", N], module))
    one = "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}"
    assert load_inputs(tmp_path / "x.npy", one, entry="f")[0].tolist() == [1.0, 2.0]
    with pytest.raises(StableHLOError, match="provided 1 inputs but function expected 3"):
        load_inputs(tmp_path / "x.npy", module)


def test_parse_inline_location() -> None:
    with pytest.raises(InputError) as e:
        parse_inline("[", 1, "function", location="args.mlir")
    assert str(e.value).startswith("args.mlir: error: expectected array attribute string")
