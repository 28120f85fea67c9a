"""Which names a file may give an argument by (stablehlo_py/io/params.py): name locations,
jax.arg_info, a JAX export's argument paths (a dropped argument named from a kept sibling)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.io.errors import InputError
from stablehlo_py.io.params import entry_function, exported_params, function_params, result_names
from stablehlo_py.ir import parse
from stablehlo_py.serialization import deserialize_portable_artifact
from stablehlo_py.serialization.jax_export import read_jax_exported

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

PROGRAM = """
func.func @main(%a: tensor<2xf32> loc("x"), %b: tensor<i1> {jax.arg_info = "flag"} loc("f.py":1:2),
                %c: !stablehlo.token, %d: tensor<?x3xbf16> {jax.arg_info = "y"} loc("y"("f.py":3:4)))
    -> (tensor<2xf32> {jax.result_info = "out"}, tensor<i1>) {
  return %a, %b : tensor<2xf32>, tensor<i1>
}
func.func @other() -> () {
  return
}
"""


def test_function_params_names_types_and_loadability() -> None:
    params = function_params(entry_function(PROGRAM))
    assert [p.names for p in params] == [("x",), ("flag",), (), ("y",)]
    assert [p.type_text for p in params] == [
        "tensor<2xf32>", "tensor<i1>", "!stablehlo.token", "tensor<?x3xbf16>"
    ]
    assert [p.loadable for p in params] == [True, True, False, True]
    assert params[1].dtype == np.bool_ and params[2].dtype is None
    assert params[0].describe() == "parameter 0 of @main (tensor<2xf32>, named 'x')"
    params[3].check_shape(np.zeros((5, 3)), "d.npy")  # ? binds any size
    with pytest.raises(InputError, match=r"d.npy \(for parameter 3 of @main\): dimension 1 is 4"):
        params[3].check_shape(np.zeros((5, 4)), "d.npy")


def test_result_names() -> None:
    func = entry_function(PROGRAM)
    assert result_names(func) == ["out", None]
    assert result_names(func, 1) == [None]


def test_entry_function_errors() -> None:
    module = parse(PROGRAM)
    assert entry_function(module, "other").sym_name.data == "other"
    with pytest.raises(InputError, match=r"no function @nope .*have: @main, @other"):
        entry_function(module, "nope")
    with pytest.raises(InputError, match="not int"):
        entry_function(3)


def test_export_arguments_are_named_by_their_paths() -> None:
    exp = read_jax_exported((EXAMPLES / "mlp.jax_exported").read_bytes())
    module = deserialize_portable_artifact(exp.mlir_module_serialized)
    params = exported_params(exp, entry_function(module))
    # 6 flattened arguments; `state['steps']` was dropped from the module (module_kept_var_idx)
    # and is named from its kept siblings' `state[...]` locations
    assert [p.names for p in params] == [
        ("state['b1']",), ("state['b2']",), ("state['steps']",), ("state['w1']",),
        ("state['w2']",), ("x",),
    ]
    assert params[2].type_text == "int32[]" and params[2].dtype == np.int32
    assert params[5].label == "argument 5 of the exported function predict"
    with pytest.raises(InputError, match=r"has shape \[2\] but argument 5 .* is float32\[2,2\]"):
        params[5].check_shape(np.zeros(2, np.float32), "x.npy")
