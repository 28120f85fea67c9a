"""Every conformance testdata program through VHLO at its minimum version and back.

For each program, ``minimum_version(program)`` is the floor F: legalize -> to F -> to current -> back
to StableHLO must print exactly the original, and (when F is above the minimum supported version)
the downgrade to the release just below F must fail naming the blocker.  Legality is monotonic in the
target (tests/unit/vhlo covers that), so this checks every version from 0.9.0 to 1.20.0.  Set
``STABLEHLO_PY_VERSION_SWEEP=1`` to also run the round trip at every release explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.vhlo_to_version import DowngradeError

from stablehlo_py import minimum_version, specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files

TESTDATA = conformance_files("testdata")
RELEASES = [str(r.version) for r in specs.releases()]
SWEEP = os.environ.get("STABLEHLO_PY_VERSION_SWEEP") == "1"


def _pipeline(text: str, target: str) -> list[tuple[str, dict[str, str]]]:
    other = {"allow-other-dialects": "true"} if "chlo." in text else {}
    return [
        ("stablehlo-legalize-to-vhlo", other),
        ("vhlo-to-version", {"target": target, **other}),
        ("vhlo-to-version", {"target": "current", **other}),
        ("vhlo-legalize-to-stablehlo", other),
    ]


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_roundtrip_at_the_minimum_version(path: Path) -> None:
    text = path.read_text()
    try:
        original = print_ir(parse(text, str(path)))
    except StableHLOError as e:
        pytest.xfail(f"StableHLO input not readable yet: {e.message}")
    floor = minimum_version(parse(text, str(path)), allow_other_dialects="chlo." in text)
    targets = RELEASES[RELEASES.index(str(floor.version)) :] if SWEEP else [str(floor.version)]
    for target in targets:
        back = run_pipeline(parse(text, str(path)), _pipeline(text, target))
        assert print_ir(back) == original, f"round trip through {target} changed the program"
    below = RELEASES.index(str(floor.version)) - 1
    if below >= 0:
        with pytest.raises(DowngradeError) as info:
            run_pipeline(parse(text, str(path)), _pipeline(text, RELEASES[below]))
        assert floor.feature and any(floor.feature in b.line() for b in info.value.blocked)


# ------------------------------------------------------------------------------------------------
# The VHLO compendium (stablehlo_legalize_to_vhlo.mlir): one program per function, with the functions
# it references.  Its features span 0.9.0 .. 1.20.0, so floors and blockers are exercised for real.

COMPENDIUM = [p for p in conformance_files("vhlo") if p.name == "stablehlo_legalize_to_vhlo.mlir"]


def _functions(path: Path) -> dict[str, str]:
    import re

    text = path.read_text()
    out: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = re.match(r"func\.func\s+(?:\w+\s+)?@(\w+)", lines[i])
        if not m:
            i += 1
            continue
        start = i
        if lines[i].rstrip().endswith(")") or "{" not in lines[i]:
            # a declaration (possibly with a multi-line signature ending without a body)
            while "{" not in lines[i] and not lines[i].rstrip().endswith(")"):
                i += 1
            if "{" not in lines[i]:
                out[m.group(1)] = "".join(lines[start : i + 1])
                i += 1
                continue
        while not lines[i].startswith("}"):
            i += 1
        out[m.group(1)] = "".join(
            l for l in lines[start : i + 1] if not l.lstrip().startswith("//")
        )
        i += 1
    return out


def _programs() -> list[tuple[str, str]]:
    import re

    if not COMPENDIUM:
        return []
    funcs = _functions(COMPENDIUM[0])
    programs = []
    for name, body in funcs.items():
        deps = [d for d in dict.fromkeys(re.findall(r"@(\w+)", body)) if d != name and d in funcs]
        programs.append((name, body + "".join(funcs[d] for d in deps)))
    return programs


PROGRAMS = _programs()


@pytest.mark.skipif(not PROGRAMS, reason="../shared/conformance/vhlo is absent")
@pytest.mark.parametrize(("name", "text"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_compendium_floor_and_blocker(name: str, text: str) -> None:
    try:
        original = print_ir(parse(text, name))
    except StableHLOError as e:
        pytest.xfail(f"StableHLO input not readable yet: {e.message}")
    floor = minimum_version(parse(text, name))
    back = run_pipeline(parse(text, name), _pipeline(text, str(floor.version)))
    assert print_ir(back) == original
    below = RELEASES.index(str(floor.version)) - 1
    if below >= 0:
        with pytest.raises(DowngradeError) as info:
            run_pipeline(parse(text, name), _pipeline(text, RELEASES[below]))
        assert floor.feature and any(floor.feature in b.line() for b in info.value.blocked)
