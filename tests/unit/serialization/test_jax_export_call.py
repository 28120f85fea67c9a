"""Running a JAX ``Exported`` with its calling convention (``Exported.call``'s), without JAX.

The artifacts are built with the schema writer of ``test_jax_export.py`` around a module we
serialize ourselves, whose ``@main`` has every part of JAX's convention: the platform index, a token
for an ordered effect, and only the kept arguments (``module_kept_var_idx``); one argument has a
symbolic dimension.  ``run_exported`` takes one value per ``in_avals`` entry, as ``Exported.call``
does; ``run`` on the bare module keeps taking ``@main``'s own arguments.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("flatbuffers")

from stablehlo_py.api import run_exported
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import TOKEN
from stablehlo_py.ir import parse
from stablehlo_py.serialization import deserialize_portable_artifact, serialize_portable_artifact
from stablehlo_py.serialization.jax_export import (
    SUPPORTED_CALLING_CONVENTIONS,
    _eval_dim,
    read_jax_exported,
)

from stablehlo_py.errors import InterpreterError, NotSupportedError
from tests.unit.serialization.test_jax_export import F32, Spec, build

# @main(platform index, token, x: f32[2], z: f32[?]) -> (token, x + platform index, z * 2)
PROGRAM = """
func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: !stablehlo.token, %arg2: tensor<2xf32>, %arg3: tensor<?xf32>) -> (!stablehlo.token, tensor<2xf32>, tensor<?xf32>) {
  %0 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %2 = stablehlo.add %arg2, %1 : tensor<2xf32>
  %3 = stablehlo.add %arg3, %arg3 : tensor<?xf32>
  return %arg1, %2, %3 : !stablehlo.token, tensor<2xf32>, tensor<?xf32>
}
"""  # noqa: E501


def _module_bytes() -> bytes:
    return serialize_portable_artifact(parse(PROGRAM), "1.0.0", format="mlir")


def _spec(**changes: object) -> Spec:
    """x: f32[2] (kept), y: f32[5] (unused, dropped), z: f32[b] (kept); one ordered effect."""
    spec = Spec(
        name="f",
        in_tree=(("*", "*", "*"), {}),
        out_tree=("*", "*"),
        unique_avals=[(["2"], F32, 1), (["5"], F32, 1), (["b"], F32, 1)],
        in_avals_idxs=[0, 1, 2],
        out_avals_idxs=[0, 2],
        in_shardings_idxs=[0, 0, 0],
        out_shardings_idxs=[0, 0],
        platforms=["cuda", "cpu"],
        ordered_effects=["<class 'jax._src.effects.OrderedIO'>"],
        module=_module_bytes(),
        kept=[0, 2],
        jax_version="0.12.0",
    )
    for key, value in changes.items():
        setattr(spec, key, value)
    return spec


X = np.array([1.0, 2.0], np.float32)
Y = np.zeros(5, np.float32)
Z = np.array([1.0, 2.0, 3.0], np.float32)


def test_run_with_every_flattened_argument() -> None:
    data = build(_spec())
    got = run_exported(data, X, Y, Z)
    assert len(got) == 2  # the token result is not returned
    np.testing.assert_array_equal(got[0], X + 1)  # "cpu" is platform 1
    np.testing.assert_array_equal(got[1], Z * 2)
    assert got[1].dtype == np.float32
    # a JaxExported already read works the same
    np.testing.assert_array_equal(run_exported(read_jax_exported(data), X, Y, Z)[0], X + 1)


def test_module_arguments_follow_the_calling_convention() -> None:
    e = read_jax_exported(build(_spec()))
    assert e.has_platform_index_argument and e.module_arity == 4
    args = e.module_arguments([X, Y, Z], token="tok")
    assert [type(a) for a in args[:2]] == [np.int32, str]
    assert args[0] == 1 and args[1] == "tok"
    assert args[2] is not Y and np.array_equal(args[2], X) and np.array_equal(args[3], Z)
    assert e.module_results(["tok", "r0", "r1"]) == ["r0", "r1"]
    with pytest.raises(InterpreterError, match="returned 2 result"):
        e.module_results(["r0", "r1"])


def test_platform_choice() -> None:
    data = build(_spec())
    np.testing.assert_array_equal(run_exported(data, X, Y, Z, platform="cuda")[0], X + 0)
    with pytest.raises(NotSupportedError, match=r"platforms \['cuda', 'cpu'\], not 'tpu'"):
        run_exported(data, X, Y, Z, platform="tpu")
    # with the platform check disabled at export, an unknown platform runs as platform 0
    unchecked = build(_spec(disabled_checks=[(0, None)]))
    np.testing.assert_array_equal(run_exported(unchecked, X, Y, Z, platform="tpu")[0], X + 0)
    # without "cpu" among the platforms, the first one is chosen
    e = read_jax_exported(build(_spec(platforms=["cuda", "rocm"])))
    assert e.platform_index() == 0 and e.platform_index("rocm") == 1
    # a single platform: no index argument
    single = read_jax_exported(build(_spec(platforms=["cpu"])))
    assert single.platform_index() is None and single.module_arity == 3


def test_wrong_argument_count_names_both_conventions() -> None:
    data = build(_spec())
    with pytest.raises(InterpreterError) as info:
        run_exported(data, X, Z)
    text = str(info.value)
    assert "f was called with 2 argument(s)" in text
    assert "takes 3 flattened argument(s) (in_avals: float32[2], float32[5], float32[b])" in text
    assert "@main takes 4: the platform index (of cuda, cpu), 1 token(s)" in text
    assert "module_kept_var_idx [0, 2]; 1 unused dropped" in text
    with pytest.raises(InterpreterError, match="to pass @main's own arguments, run the module"):
        run_exported(data, np.int32(1), TOKEN, X, Z)


def test_bare_module_keeps_its_own_arguments() -> None:
    module = deserialize_portable_artifact(build(_spec()))
    got = run(module, np.int32(0), TOKEN, X, Z)
    np.testing.assert_array_equal(got[1], X)
    with pytest.raises(InterpreterError, match="@main takes 4 arguments, 3 were given"):
        run(module, X, Y, Z)


def test_arguments_are_checked_against_the_avals() -> None:
    data = build(_spec())
    with pytest.raises(InterpreterError, match=r"argument 1 has shape \(4,\) .* float32\[5\]"):
        run_exported(data, X, np.zeros(4, np.float32), Z)  # the dropped argument is checked too
    with pytest.raises(InterpreterError, match="argument 0 has dtype int32 but the export expects"):
        run_exported(data, X.astype(np.int32), Y, Z)
    with pytest.raises(InterpreterError, match=r"argument 2 has shape \(3, 1\) .* \(rank 1\)"):
        run_exported(data, X, Y, Z[:, None])
    # float64 numpy arrays and Python lists are accepted, as JAX canonicalizes them
    got = run_exported(data, X.astype(np.float64), [0.0] * 5, [1.0, 2.0])
    np.testing.assert_array_equal(got[1], np.array([2.0, 4.0], np.float32))


def test_dimension_variables_are_solved_and_checked() -> None:
    spec = _spec(unique_avals=[(["2"], F32, 1), (["b"], F32, 1), (["2*b + 1"], F32, 1)])
    e = read_jax_exported(build(spec))
    e.module_arguments([X, np.zeros(3), np.zeros(7)])  # b = 3
    with pytest.raises(InterpreterError, match=r"dimension 0 is 2\*b \+ 1 = 7\)"):
        e.module_arguments([X, np.zeros(3), np.zeros(6)])
    spec = _spec(unique_avals=[(["2"], F32, 1), (["b"], F32, 1), (["b"], F32, 1)])
    with pytest.raises(InterpreterError, match="dimension 0 is 4 but b is 3 from an earlier"):
        read_jax_exported(build(spec)).module_arguments([X, np.zeros(3), np.zeros(4)])


@pytest.mark.parametrize(
    ("expr", "env", "value"),
    [
        ("2*b + 1", {"b": 3}, 7),
        ("b // 2", {"b": 7}, 3),
        ("mod(b, 4) - 1", {"b": 6}, 1),
        ("max(a, b) * min(a, b)", {"a": 2, "b": 5}, 10),
        ("non_negative(a - b)", {"a": 2, "b": 5}, 0),
        ("-a + 10", {"a": 2}, 8),
        ("c + 1", {"b": 1}, None),  # unbound
        ("b / 2", {"b": 4}, None),  # not JAX's arithmetic
        ("__import__('os')", {}, None),
        ("b.real", {"b": 1}, None),
        ("mod(b, 0)", {"b": 1}, None),
        ("(" * 300, {}, None),
    ],
)
def test_symbolic_dimension_arithmetic(expr: str, env: dict[str, int], value: int | None) -> None:
    assert _eval_dim(expr, env) == value


def test_unknown_calling_convention_reads_but_does_not_run() -> None:
    newer = SUPPORTED_CALLING_CONVENTIONS.stop
    data = build(_spec(calling_convention_version=newer))
    assert read_jax_exported(data).calling_convention_version == newer
    with pytest.raises(NotSupportedError, match=f"calling convention version {newer}; running"):
        run_exported(data, X, Y, Z)


def test_module_that_does_not_fit_the_metadata() -> None:
    e = read_jax_exported(build(_spec()))
    wrong = replace(e, module_kept_var_idx=(0, 1, 2))
    with pytest.raises(InterpreterError, match="@main takes 4 argument.*does not fit"):
        run_exported(wrong, X, Y, Z)


def test_prng_keys_take_their_key_data() -> None:
    spec = _spec(unique_avals=[(["2"], F32, 1), (["3"], 27, 1), (["b"], F32, 1)])
    e = read_jax_exported(build(spec))
    args = e.module_arguments([X, np.zeros((3, 2), np.uint32), Z])
    assert len(args) == 4
    with pytest.raises(InterpreterError, match=r"key<fry>\[3\] \(rank 2\)"):
        e.module_arguments([X, np.zeros(3, np.uint32), Z])


def test_wrong_count_on_a_jax_program_points_to_run_exported() -> None:
    import stablehlo_py
    from stablehlo_py.errors import InterpreterError
    from stablehlo_py.interpreter import run
    from stablehlo_py.ir import parse

    assert stablehlo_py.run_exported is not None  # part of the package API
    plain = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"
    jaxish = plain.replace("-> tensor<2xf32>", '-> (tensor<2xf32> {jax.result_info = "r"})', 1)
    with pytest.raises(InterpreterError) as info:
        run(parse(plain))
    assert "run_exported" not in str(info.value)
    with pytest.raises(InterpreterError) as info:
        run(parse(jaxish))
    assert "@main takes 1 arguments, 0 were given" in str(info.value)
    assert "stablehlo_py.run_exported" in str(info.value)
