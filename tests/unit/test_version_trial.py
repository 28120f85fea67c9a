"""Issue 24's measure of "one description per op", kept as a test: following docs/adding-a-version.md,
a new attribute with a default in a new release touches four files for dot_general, scatter and while
(tools/version_trial.py edits a copy of the package and runs the op end to end: text, interpreter,
both artifact formats at the new and the previous version, legalization to VHLO)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("version_trial", REPO / "tools" / "version_trial.py")
version_trial = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(version_trial)

FILES = {
    "dot_general": ["stablehlo_py/ir/ops/linalg.py", "vhlo/forks/dot_general.py"],
    "scatter": ["stablehlo_py/ir/ops/data_movement.py", "vhlo/forks/scatter.py"],
    "while": ["stablehlo_py/ir/ops/control_flow.py", "vhlo/forks/while_loop.py"],
}


@pytest.mark.parametrize("op", sorted(FILES))
def test_a_new_attribute_in_a_new_release_is_four_files(op: str) -> None:
    files, proc = version_trial.trial(op)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert sorted(files) == sorted(["specs/ops.toml", "specs/releases.toml", *FILES[op]])
    assert proc.stdout.count("ok   ") == 10, proc.stdout


@pytest.mark.parametrize(
    ("step", "says"),
    [
        (
            "fork pair",
            "no upgrade/downgrade pair between scatter_v2 and scatter_v3: add Fork('scatter', 2, "
            "upgrade_v2, downgrade_v3) to FORKS in vhlo/forks/<scatter>.py (docs/adding-a-version.md)",
        ),
        ("property", "property 'trial_attr' is not defined by the operation 'stablehlo.scatter'"),
    ],
)
def test_the_trial_fails_without_a_step_of_the_recipe_saying_which(step: str, says: str) -> None:
    files, proc = version_trial.trial("scatter", omit=step)
    assert proc.returncode != 0
    assert says in proc.stdout + proc.stderr, proc.stdout + proc.stderr[-3000:]


def test_a_moved_anchor_is_a_clear_error(tmp_path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "ops.toml").write_text('[[op]]\nname = "add_v1"\n')
    with pytest.raises(version_trial.TrialError, match="specs/ops.toml has no row scatter_v2"):
        version_trial.apply(tmp_path, "scatter")
