"""The custom-call registry and its versioned plugin API: negotiation, the struct_size rule, the
deprecated register_custom_call path, plugin errors and the listing."""

from __future__ import annotations

import warnings
from itertools import pairwise
from types import SimpleNamespace

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls import CUSTOM_CALL_TARGETS, register_custom_call
from stablehlo_py.interpreter.custom_calls import entry_points
from stablehlo_py.interpreter.custom_calls.context import (
    API_VERSION,
    DEPRECATED_FIELDS,
    FIELD_SINCE,
    FIELDS,
    CallContext,
    fields_of_version,
)
from stablehlo_py.interpreter.custom_calls.registry import REGISTRY, PluginError, negotiate

from stablehlo_py.cli.translate import main as translate_main
from stablehlo_py.errors import InterpreterError

# The record's fields as API 1.0 published them: the struct_size rule says they never move.
FIELDS_1_0 = (
    "struct_size",
    "api_version",
    "target_name",
    "operands",
    "operand_types",
    "result_types",
    "backend_config",
    "attributes",
    "operand_layouts",
    "result_layouts",
    "api_version_attr",
    "has_side_effect",
)

PROGRAM_TEXT = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @TARGET(%x) {backend_config = {scale = 3.0 : f32, mode = "m"},
      api_version = 4 : i32, has_side_effect = true,
      operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>],
      mhlo.frontend_attributes = {tag = "t"}} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


def program(target: str) -> str:
    return PROGRAM_TEXT.replace("TARGET", target)


X = np.array([1.0, 2.0, 3.0], np.float32)


@pytest.fixture(autouse=True)
def isolated_registry():
    """Targets, plugin errors and refusals added by a test are dropped after it."""
    REGISTRY.targets()  # built-ins and installed plugins loaded before the snapshot
    saved = (dict(REGISTRY._targets), list(REGISTRY.plugin_errors), dict(REGISTRY.refused))
    yield
    REGISTRY._targets.clear()
    REGISTRY._targets.update(saved[0])
    REGISTRY.plugin_errors[:] = saved[1]
    REGISTRY.refused.clear()
    REGISTRY.refused.update(saved[2])


def fake_entry_point(name: str, obj=None, error: Exception | None = None):
    def load():
        if error is not None:
            raise error
        return obj

    return SimpleNamespace(name=name, value=f"{name}_pkg.targets", dist=None, load=load)


# ------------------------------------------------------------------------------ negotiation


def test_same_major_older_or_equal_minor_is_accepted() -> None:
    assert negotiate((API_VERSION[0], 0), "'p'") == (API_VERSION[0], 0)
    assert negotiate(API_VERSION, "'p'") == API_VERSION
    assert negotiate([API_VERSION[0], 0], "'p'") == (API_VERSION[0], 0)


def test_newer_minor_is_refused_naming_plugin_and_versions() -> None:
    newer = (API_VERSION[0], API_VERSION[1] + 1)
    with pytest.raises(PluginError) as e:
        negotiate(newer, "'toonew'")
    msg = str(e.value)
    assert "'toonew'" in msg
    assert f"{newer[0]}.{newer[1]}" in msg and f"{API_VERSION[0]}.{API_VERSION[1]}" in msg
    assert "newer" in msg


@pytest.mark.parametrize("major", [API_VERSION[0] - 1, API_VERSION[0] + 1])
def test_other_major_is_refused(major: int) -> None:
    with pytest.raises(PluginError, match="major versions must match"):
        negotiate((major, 0), "'other'")


@pytest.mark.parametrize("bad", ["1.0", (1,), (1, -1), (1.0, 0), None, (True, 0)])
def test_malformed_version_is_refused(bad) -> None:
    with pytest.raises(PluginError, match="pair of non-negative integers"):
        negotiate(bad, "'bad'")


# ------------------------------------------------------------------------------ struct_size


def test_record_fields_are_only_appended() -> None:
    assert FIELDS[: len(FIELDS_1_0)] == FIELDS_1_0
    assert fields_of_version((1, 0)) == FIELDS_1_0
    assert fields_of_version(API_VERSION) == FIELDS
    assert "process_id" in FIELDS and "process_id" not in fields_of_version((1, 0))


def test_every_field_has_a_version_and_deprecated_fields_stay() -> None:
    assert set(FIELD_SINCE) == set(FIELDS)
    assert all(FIELD_SINCE[a] <= FIELD_SINCE[b] for a, b in pairwise(FIELDS))  # appended
    assert set(DEPRECATED_FIELDS) <= set(FIELDS)  # a deprecated field keeps its place


def test_old_record_plugin_works_unchanged() -> None:
    """A plugin built against API 1.0 reads only 1.0 fields and checks presence of newer ones."""
    seen = {}

    def old_scale(ctx):
        seen["struct_size"] = ctx.struct_size
        seen["has_process_id"] = ctx.has_field("process_id")
        seen["has_unknown"] = ctx.has_field("future_field")
        seen["config"] = ctx.backend_config
        return [ctx.operands[0] * np.float32(ctx.backend_config["scale"])]

    plugin = SimpleNamespace(API_VERSION=(1, 0), TARGETS={"test.old_scale": old_scale})
    entry_points.load_entry_point(REGISTRY, fake_entry_point("old_plugin", plugin))
    target = REGISTRY.get("test.old_scale")
    assert target is not None and target.api_version == (1, 0)
    assert target.source == "entry point old_plugin"
    (out,) = run(program("test.old_scale"), X)
    np.testing.assert_allclose(out, X * 3)
    assert seen["struct_size"] == len(FIELDS)
    assert seen["has_process_id"] is True and seen["has_unknown"] is False
    assert seen["config"] == {"scale": 3.0, "mode": "m"}


def test_too_new_plugin_refused_at_load_and_at_use() -> None:
    newer = (API_VERSION[0], API_VERSION[1] + 1)
    plugin = SimpleNamespace(API_VERSION=newer, TARGETS={"test.needs_new": lambda ctx: []})
    entry_points.load_entry_point(REGISTRY, fake_entry_point("new_plugin", plugin))
    assert REGISTRY.peek("test.needs_new") is None
    assert len([m for _, m in REGISTRY.plugin_errors if "new_plugin" in m]) == 1
    with pytest.raises(InterpreterError) as e:
        run(program("test.needs_new"), X)
    msg = str(e.value)
    assert "'new_plugin'" in msg and f"{newer[0]}.{newer[1]}" in msg
    assert "Traceback" not in msg


def test_record_carries_the_call() -> None:
    seen: dict[str, CallContext] = {}

    def record(ctx):
        seen["ctx"] = ctx
        return [ctx.operands[0]]

    register_custom_call("test.record", record)
    run(program("test.record"), X)
    ctx = seen["ctx"]
    assert isinstance(ctx, CallContext)
    assert ctx.struct_size == len(FIELDS) and ctx.api_version == API_VERSION
    assert ctx.target_name == "test.record"
    np.testing.assert_array_equal(ctx.operands[0], X)
    assert [str(t) for t in ctx.operand_types] == ["tensor<3xf32>"]
    assert [str(t) for t in ctx.result_types] == ["tensor<3xf32>"]
    assert ctx.backend_config == {"scale": 3.0, "mode": "m"}
    assert ctx.attributes["mhlo.frontend_attributes"] == {"tag": "t"}
    assert ctx.operand_layouts == ((0,),) and ctx.result_layouts == ((0,),)
    assert ctx.api_version_attr == 4 and ctx.has_side_effect is True
    assert (ctx.process_id, ctx.num_processes, ctx.replica_id, ctx.partition_id) == (0, 1, 0, 0)


# ------------------------------------------------------------------------------ plugin errors


def test_plugin_import_error_is_one_clear_error_at_use() -> None:
    entry_points.load_entry_point(
        REGISTRY, fake_entry_point("broken", error=ImportError("No module named 'missing_dep'"))
    )
    with pytest.raises(InterpreterError) as e:
        run(program("test.from_broken"), X)
    msg = str(e.value)
    assert "unsupported custom_call target 'test.from_broken'" in msg
    assert "'broken'" in msg and "cannot be imported" in msg and "missing_dep" in msg


def test_plugin_without_version_or_targets_is_refused() -> None:
    entry_points.load_entry_point(
        REGISTRY, fake_entry_point("noversion", SimpleNamespace(TARGETS={"a.b": lambda ctx: []}))
    )
    entry_points.load_entry_point(
        REGISTRY, fake_entry_point("notargets", SimpleNamespace(API_VERSION=(1, 0)))
    )
    messages = [m for _, m in REGISTRY.plugin_errors]
    assert any("'noversion'" in m and "declares no API_VERSION" in m for m in messages)
    assert any("'notargets'" in m and "neither TARGETS" in m for m in messages)
    assert REGISTRY.peek("a.b") is None


def test_plugin_cannot_take_a_builtin_name_or_the_old_form() -> None:
    clash = SimpleNamespace(
        API_VERSION=(1, 0), TARGETS={"Sharding": lambda ctx: [], "x.y": lambda ctx: []}
    )
    entry_points.load_entry_point(REGISTRY, fake_entry_point("clash", clash))
    old = SimpleNamespace(API_VERSION=(1, 0), TARGETS={"x.old": lambda ev, op, args: []})
    entry_points.load_entry_point(REGISTRY, fake_entry_point("oldform", old))
    messages = [m for _, m in REGISTRY.plugin_errors]
    assert any("'Sharding'" in m and "already registered from built-in" in m for m in messages)
    assert any("'x.old'" in m and "fn(ctx)" in m for m in messages)
    assert REGISTRY.peek("x.y") is None  # a clashing plugin is refused as a whole
    assert REGISTRY.peek("Sharding").source == "built-in"


def test_register_function_form() -> None:
    plugin = SimpleNamespace(API_VERSION=(1, 1))

    def register(api):
        assert api.version == API_VERSION
        api.register("test.negate", lambda ctx: [-ctx.operands[0]])

    plugin.register = register
    entry_points.load_entry_point(REGISTRY, fake_entry_point("regform", plugin))
    (out,) = run(program("test.negate"), X)
    np.testing.assert_array_equal(out, -X)


def test_failing_plugin_target_is_named() -> None:
    def boom(ctx):
        raise ValueError("bad input")

    plugin = SimpleNamespace(API_VERSION=(1, 0), TARGETS={"test.boom": boom})
    entry_points.load_entry_point(REGISTRY, fake_entry_point("boomer", plugin))
    with pytest.raises(
        InterpreterError,
        match=r"@test.boom \(from entry point boomer\) failed: ValueError: bad input",
    ):
        run(program("test.boom"), X)


def test_results_are_checked_against_result_types() -> None:
    register_custom_call("test.wrong_dtype", lambda ctx: [ctx.operands[0].astype(np.float64)])
    with pytest.raises(InterpreterError, match="result #0 has element type float64"):
        run(program("test.wrong_dtype"), X)
    register_custom_call("test.wrong_count", lambda ctx: [])
    with pytest.raises(InterpreterError, match="returned 0 values, the op has 1 results"):
        run(program("test.wrong_count"), X)


# ------------------------------------------------------------------------------ register_custom_call


def test_deprecated_three_argument_register_custom_call() -> None:
    with pytest.warns(DeprecationWarning, match="deprecated"):
        register_custom_call("test.legacy", lambda ev, op, vals: [np.asarray(vals[0]) + 1])
    (out,) = run(program("test.legacy"), X)
    np.testing.assert_array_equal(out, X + 1)
    target = REGISTRY.get("test.legacy")
    assert target.source == "register_custom_call" and target.api_version is None
    assert "test.legacy" in CUSTOM_CALL_TARGETS


def test_context_register_custom_call_is_not_deprecated() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_custom_call("test.ctx", lambda ctx: [ctx.operands[0] * 2])
    (out,) = run(program("test.ctx"), X)
    np.testing.assert_array_equal(out, X * 2)
    target = REGISTRY.get("test.ctx")
    assert target.source == "register_custom_call" and target.api_version == API_VERSION


def test_register_custom_call_refuses_other_signatures() -> None:
    with pytest.raises(PluginError, match="takes 2 arguments"):
        register_custom_call("test.two", lambda a, b: [])


def test_unknown_target_says_how_to_add_one() -> None:
    with pytest.raises(InterpreterError) as e:
        run(program("test.nowhere"), X)
    msg = str(e.value)
    assert "stablehlo_py.custom_calls" in msg and "register_custom_call" in msg


# ------------------------------------------------------------------------------ listing


def test_listing_shows_every_source(capsys) -> None:
    register_custom_call("test.listed", lambda ctx: [ctx.operands[0]])
    plugin = SimpleNamespace(API_VERSION=(1, 0), TARGETS={"test.from_plugin": lambda ctx: []})
    entry_points.load_entry_point(REGISTRY, fake_entry_point("listed_plugin", plugin))
    rc = translate_main(["--interpret", "--list-custom-calls"])
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines()[2:]}
    assert rc == 0
    assert rows["check.expect_eq"].split()[:2] == ["any", "built-in"]
    assert rows["shape_assertion"].split()[:2] == ["any", "built-in"]
    assert rows["lapack_spotrf_ffi"].split("  [")[0].split() == [
        "cpu",
        "built-in",
        "api",
        f"{API_VERSION[0]}.{API_VERSION[1]}",
    ]
    assert rows["lapack_spotrf_ffi"].endswith("[typed FFI, attributes in mhlo.backend_config (jax >= 0.4.31)]")
    assert rows["Sharding"].split()[:2] == ["any", "built-in"]
    assert rows["test.listed"].split() == ["any", "register_custom_call", "api", "1.1"]
    assert rows["test.from_plugin"].split() == ["any", "entry", "point", "listed_plugin", "api", "1.0"]


def test_no_built_in_row_of_the_listing_lacks_platforms_or_forms(capsys) -> None:
    """Every built-in target declares the platforms whose programs call it and the forms it
    accepts (`builtin(...)` and `builtins.load`'s families require both), and the listing shows
    them: a platform list and a bracketed form on every built-in row."""
    from stablehlo_py.interpreter.custom_calls.registry import BUILT_IN, PLATFORMS

    assert translate_main(["--interpret", "--list-custom-calls"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    built_in = [row for row in rows if row.split()[2] == BUILT_IN]
    assert len(built_in) > 200  # LAPACK, GPU, TPU, JAX's markers, kernels, check.*, ...
    lacking = []
    for row in built_in:
        name, platforms = row.split()[:2]
        ok_platforms = platforms == "any" or set(platforms.split(",")) <= set(PLATFORMS)
        forms = row.partition("  [")[2]
        if not ok_platforms or not forms.endswith("]") or len(forms) < 3:
            lacking.append(name)
    assert not lacking, lacking
    targets = {t.name: t for t in REGISTRY.targets() if t.source == BUILT_IN}
    assert all(t.platforms and all(f.strip() for f in t.forms) for t in targets.values())
    for name in ("ApproxTopK", "stablehlo.dynamic_top_k", "check.expect_eq", "shape_assertion", "Sharding"):
        assert targets[name].forms, name


def test_builtin_requires_platforms_and_forms() -> None:
    from stablehlo_py.interpreter.custom_calls.registry import EVALUATOR, builtin

    with pytest.raises(TypeError):
        builtin("test.no_forms", EVALUATOR)  # type: ignore[call-arg]


def test_listing_reports_broken_plugins(capsys) -> None:
    entry_points.load_entry_point(
        REGISTRY, fake_entry_point("broken_listed", error=SyntaxError("bad"))
    )
    rc = translate_main(["--interpret", "--list-custom-calls"])
    captured = capsys.readouterr()
    assert rc == 1
    assert "'broken_listed'" in captured.err and "cannot be imported" in captured.err
    assert "Traceback" not in captured.err
    assert "check.expect_eq" in captured.out


def test_a_prefix_target_answers_the_names_without_their_own() -> None:
    """`Registry.add_prefix`: one target for a family of names (user kernels such as
    `__cudnn$fmha...`); a name with its own target keeps it; the listing shows `prefix*`."""
    from stablehlo_py.interpreter.custom_calls.registry import BUILT_IN, Registry, Target

    reg = Registry()
    family = Target("fam.", lambda ctx: [], BUILT_IN, API_VERSION, platforms=frozenset({"cuda"}))
    own = Target("fam.own", lambda ctx: [], BUILT_IN, API_VERSION)
    reg.add_prefix("fam.", family)
    reg.add(own)
    assert reg.get("fam.anything") is family
    assert reg.get("fam.own") is own
    assert reg.get("other.fam.x") is None
    listed = {t.name: t for t in reg.targets()}
    assert set(listed) == {"fam.*", "fam.own"}
    assert listed["fam.*"].platform_text() == "cuda" and listed["fam.own"].platform_text() == "any"
