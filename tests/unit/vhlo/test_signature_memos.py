"""The VHLO passes' per-op memos (issue 28) against the conversion they skip.

``stablehlo-legalize-to-vhlo`` and ``vhlo-legalize-to-stablehlo`` remember what an op without
regions becomes by the identities of its attributes and result types (their ``_SIGNATURES``), and
``vhlo-to-version`` remembers, per target, whether ops alike stay or which fork they take
(``_transitions``, which also holds the "stays" decisions).  Here each program goes through
legalize -> every target -> current -> back twice: once with the memos answering nothing (every op
converted and planned one by one: the conversion the memos replace) and once with memos warmed by
an earlier run (every op alike answered by them).  The printed text after every step, and the
diagnostic of every step that fails (a downgrade an op does not allow), must be the same.

Programs: upstream's VHLO compendium (one function per op and attribute form, features from 0.9.0
to the current version; ``../shared/conformance/vhlo``), a sample of upstream's conformance testdata
(JAX-exported programs), the golden artifacts' programs (tests/golden/programs.py) and the versioning
bench's module (bench/versioning.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from xdsl.ir import Operation

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes import stablehlo_legalize_to_vhlo as to_vhlo
from stablehlo_py.passes import vhlo_legalize_to_stablehlo as to_stablehlo
from stablehlo_py.passes import vhlo_to_version

from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.context import fresh_context
from tests.conftest import conformance_files

REPO = Path(__file__).resolve().parents[3]
RELEASES = [str(r.version) for r in specs.releases()]
TARGETS = sorted({RELEASES[0], *RELEASES[:: max(1, len(RELEASES) // 12)], RELEASES[-1]}, key=RELEASES.index)
"""About a dozen releases from the oldest to the newest (each fork boundary is crossed by some
program between two of them)."""


class _Forgetful:
    """A memo that remembers nothing (``get_seq`` answers None)."""

    def get_seq(self, *args: Any, **kwargs: Any) -> None:
        return None

    def put_seq(self, objs: Any, value: Any, extra: Any = ()) -> Any:
        return value


def _without_memos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(to_vhlo, "_signatures_get", lambda *a, **k: None)
    monkeypatch.setattr(to_stablehlo, "_signatures_get", lambda *a, **k: None)
    monkeypatch.setattr(vhlo_to_version, "_transitions", lambda *a, **k: _Forgetful())


def _options(text: str) -> dict[str, str]:
    return {"allow-other-dialects": "true"} if "chlo." in text else {}


def _trace(module: Operation, text: str) -> list[str]:
    """The printed module after legalize, after each target and back to current, and after the
    way back, each step run on a clone (which shares the attribute and type objects: the memos'
    keys); a failing step's diagnostic in its place."""
    other = _options(text)
    out = []
    vhlo = run_pipeline(module.clone(), [("stablehlo-legalize-to-vhlo", other)])
    out.append(print_ir(vhlo))
    for target in TARGETS:
        try:
            down = run_pipeline(vhlo.clone(), [("vhlo-to-version", {"target": target, **other})])
        except StableHLOError as e:
            out.append(f"{target}: {type(e).__name__}: {e}")
            continue
        out.append(print_ir(down))
        up = run_pipeline(down, [("vhlo-to-version", {"target": "current", **other})])
        out.append(print_ir(up))
    back = run_pipeline(vhlo.clone(), [("vhlo-legalize-to-stablehlo", other)])
    out.append(print_ir(back))
    return out


def _compendium() -> list[tuple[str, str]]:
    path = [p for p in conformance_files("vhlo") if p.name == "stablehlo_legalize_to_vhlo.mlir"]
    if not path:
        return []
    text = path[0].read_text()
    return [(path[0].name, "\n".join(l for l in text.splitlines() if not l.startswith("//")))]


def _testdata(every: int = 40) -> list[tuple[str, str]]:
    files = conformance_files("testdata")
    return [(p.name, p.read_text()) for p in files[::every]]


def _golden() -> list[tuple[str, str]]:
    from tests.golden.programs import program

    return [(f"golden {RELEASES[-1]}", program(RELEASES[-1]))]


def _bench() -> list[tuple[str, str]]:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from versioning import generate
    finally:
        sys.path.remove(str(REPO / "bench"))
    return [("bench/versioning.py", generate(100))]


ATTRIBUTES = """func.func @main(%a: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a {a = 1 : i64} : tensor<4xf32>
  %1 = stablehlo.add %0, %0 {b = 1 : i64} : tensor<4xf32>
  %2 = stablehlo.add %1, %1 {a = 1 : i64, b = 1 : i64} : tensor<4xf32>
  %3 = stablehlo.add %2, %2 {b = 1 : i64, a = 1 : i64} : tensor<4xf32>
  %4 = stablehlo.add %3, %3 : tensor<4xf32>
  %5 = stablehlo.add %4, %4 {mhlo.frontend_attributes = {x = "1"}} : tensor<4xf32>
  %6 = stablehlo.convert %i {a = 1 : i64} : (tensor<4xi32>) -> tensor<4xf32>
  %7 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf16>
  %8 = stablehlo.convert %7 {a = 1 : i64} : (tensor<4xf16>) -> tensor<4xf32>
  %9 = stablehlo.add %5, %6 {a = 1 : i64} : tensor<4xf32>
  %10 = stablehlo.add %9, %8 {b = 1 : i64} : tensor<4xf32>
  return %10 : tensor<4xf32>
}
"""
"""Ops alike but for their discardable attributes' names, order or presence, or their result types:
each must keep its own."""

PROGRAMS = [("attributes", ATTRIBUTES)] + _compendium() + _testdata() + _golden() + _bench()


@pytest.mark.parametrize(("name", "text"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_memos_change_nothing(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        parse(text, name)
    except StableHLOError as e:
        pytest.skip(f"not readable: {e.message}")
    with fresh_context():
        with monkeypatch.context() as m:
            _without_memos(m)
            try:
                slow = _trace(parse(text, name), text)
            except StableHLOError as e:
                slow = [f"{type(e).__name__}: {e}"]
    with fresh_context():
        module = parse(text, name)
        try:
            _trace(module, text)  # (warms the memos)
            fast = _trace(module, text)
        except StableHLOError as e:
            fast = [f"{type(e).__name__}: {e}"]
    assert len(fast) == len(slow)
    for i, (a, b) in enumerate(zip(fast, slow)):
        assert a == b, f"step {i} differs"


def test_the_memos_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memos answer for ops alike (else the comparison above compares the slow path with
    itself): with warm memos, no op of the bench's module goes through the one-by-one conversion."""
    text = _bench()[0][1]
    calls: dict[str, int] = {"legalize": 0, "back": 0, "plan": 0}
    with fresh_context():
        module = parse(text)
        _trace(module, text)
        legalize = to_vhlo._Legalizer._signature
        back = to_stablehlo._Legalizer._split_attributes
        plan = vhlo_to_version.legality.plan
        stays = vhlo_to_version.legality.stays

        def count(key: str, fn: Any) -> Any:
            def wrapped(*a: Any, **k: Any) -> Any:
                calls[key] += 1
                return fn(*a, **k)

            return wrapped

        monkeypatch.setattr(to_vhlo._Legalizer, "_signature", count("legalize", legalize))
        monkeypatch.setattr(to_stablehlo._Legalizer, "_split_attributes", count("back", back))
        monkeypatch.setattr(vhlo_to_version.legality, "plan", count("plan", plan))
        monkeypatch.setattr(vhlo_to_version.legality, "stays", count("plan", stays))
        n = sum(1 for _ in module.walk())
        module = run_pipeline(
            module.clone(),
            [
                ("stablehlo-legalize-to-vhlo", {}),
                ("vhlo-to-version", {"target": "0.9.0"}),
                ("vhlo-to-version", {"target": "current"}),
                ("vhlo-legalize-to-stablehlo", {}),
            ],
        )
    # only the ops with regions (each block's reduce, the function) and returns take the long way
    blocks = text.count("stablehlo.reduce(")
    assert calls["legalize"] <= blocks + 2 < n // 4
    assert calls["back"] <= 3 * blocks + 4 < n // 2
    assert calls["plan"] <= 4 * (blocks + 2)  # (stays, then plan: in each of the two steps)
