"""Golden artifacts: one per StableHLO minor version, committed, never regenerated silently.

* every release of the log has a golden, and each file still has the hash its manifest recorded;
* backward compatibility: each golden deserializes with today's toolkit, decodes to the program its
  source compiles to today, and interprets to the stored expected outputs;
* forward compatibility: writing each golden's program for its version today produces only what is
  legal at that version (the reader checks every op, type and attribute against the header's
  version), the same VHLO as the golden, and a consumer at that version accepts it; a consumer one
  release older is refused exactly when the program uses that release's new features.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest

from stablehlo_py import specs
from stablehlo_py.ir import print_ir
from stablehlo_py.version import Version
from tests.golden.generate import HERE, load_expected, load_manifest
from tests.golden.programs import FEATURES, features_at, program

RELEASES = [str(r.version) for r in specs.releases()]
MANIFEST = load_manifest()


def _entry(version: str) -> dict:
    entry = MANIFEST["goldens"].get(version)
    if entry is None:
        pytest.fail(f"no golden artifact for {version}: run python tests/golden/generate.py")
    return entry


def _artifact(version: str) -> bytes:
    return (HERE / _entry(version)["artifact"]).read_bytes()


def test_every_release_has_a_golden() -> None:
    missing = [v for v in RELEASES if v not in MANIFEST["goldens"]]
    assert not missing, (
        f"releases without a golden artifact: {missing} (run python tests/golden/generate.py)"
    )


@pytest.mark.parametrize("version", RELEASES)
def test_golden_files_are_unchanged(version: str) -> None:
    entry = _entry(version)
    for key in ("artifact", "expected"):
        path = HERE / entry[key]
        assert path.exists(), f"{path} is missing"
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest == entry[f"{key}_sha256"], (
            f"{path.name} changed since it was committed; goldens are never regenerated silently "
            "(restore it, or regenerate it on purpose with generate.py --force --version and say why)"
        )


@pytest.mark.parametrize("version", RELEASES)
def test_backward_compatibility(version: str) -> None:
    from stablehlo_py.interpreter import run
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        deserialize_portable_artifact_str,
        get_portable_artifact_version,
        serialize_portable_artifact_str,
    )

    data = _artifact(version)
    assert get_portable_artifact_version(data) == Version.from_string(version)
    module = deserialize_portable_artifact(data, name=f"stablehlo_v{version}.shlo")
    # the same program as today's round trip of its source at the current version (a round trip
    # writes defaults out and erases them again, so `stride = [1, 1]` in the source reads back absent)
    today = deserialize_portable_artifact_str(
        serialize_portable_artifact_str(program(version), "current")
    )
    assert print_ir(module) == today, "the golden decodes to a different program"
    outputs = run(module)
    expected = load_expected((HERE / _entry(version)["expected"]).read_bytes())
    assert len(outputs) == len(expected)
    for i, (got, want) in enumerate(zip(outputs, expected)):
        assert got.dtype == want.dtype and got.shape == want.shape, i
        if got.dtype.kind in "fc":
            np.testing.assert_allclose(
                got, want, rtol=1e-6, atol=0, equal_nan=True, err_msg=f"output {i}"
            )
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"output {i}")


@pytest.mark.parametrize("version", RELEASES)
def test_forward_compatibility(version: str) -> None:
    from stablehlo_py.serialization import (
        check_compat,
        read_artifact,
        serialize_portable_artifact_str,
    )

    target = Version.from_string(version)
    data = serialize_portable_artifact_str(program(version), version)
    header, vhlo = read_artifact(data)  # refuses any op, type or attribute not in `version`
    assert header.version == target
    for op in vhlo.walk():
        if op.name.startswith("vhlo."):
            assert specs.op(op.name).is_legal_at(target), op.name
    _, golden = read_artifact(_artifact(version))
    assert print_ir(vhlo, generic=True) == print_ir(golden, generic=True), (
        f"writing this program for {version} today gives other VHLO than the committed golden (old "
        "consumers would read something else); if the change is intended and compatible, regenerate "
        f"with tests/golden/generate.py --force --version {version} and say why in the commit"
    )
    assert check_compat(data, version).compatible
    index = RELEASES.index(version)
    if index == 0:
        return
    previous = RELEASES[index - 1]
    new_here = [f.name for f in FEATURES if f.since == version]
    report = check_compat(data, previous)
    assert not report.compatible  # written for `version`: an older consumer refuses it
    can_rewrite = any("re-serialize" in n for n in report.notes)
    assert can_rewrite == (not new_here), (version, new_here, report.render())


def test_features_are_cumulative() -> None:
    for older, newer in itertools.pairwise(RELEASES):
        assert {f.name for f in features_at(older)} <= {f.name for f in features_at(newer)}
