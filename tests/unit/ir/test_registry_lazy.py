"""A dialect registered lazily (`Registry.add_lazy`) loads on the first lookup of one of its names,
once, from any thread; VHLO is registered that way, so a program without VHLO never imports it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
from xdsl.irdl import IRDLOperation, irdl_op_definition

from stablehlo_py.ir.registry import Registry


@irdl_op_definition
class ToyOp(IRDLOperation):
    name = "toy.op"


def _toy_registry(calls: list[str], seen_inside: list[object] | None = None, delay: float = 0.0):
    reg = Registry()

    def load(r: Registry) -> None:
        calls.append("load")
        time.sleep(delay)
        if seen_inside is not None:  # the loader's own lookups see its dialect absent
            seen_inside.append(r.ops.get("toy.op"))
            seen_inside.append("toy.op" in r.ops)
        r.add_ops(ToyOp)
        r.type_parsers["toy.thing"] = lambda p: None  # type: ignore[assignment,return-value]

    reg.add_lazy("toy", load)
    return reg


def test_a_lookup_of_one_of_its_names_loads_the_dialect_once() -> None:
    calls: list[str] = []
    reg = _toy_registry(calls)
    assert calls == []
    assert reg.ops.get("stablehlo.add") is None and calls == []  # other dialects do not load it
    assert reg.ops.get("toy.op") is ToyOp
    assert calls == ["load"]
    assert reg.ops["toy.op"] is ToyOp and "toy.thing" in reg.type_parsers
    assert reg.ops.get("toy.missing") is None and "toy.missing" not in reg.ops
    with pytest.raises(KeyError):
        reg.ops["toy.missing"]
    assert calls == ["load"]


@pytest.mark.parametrize(
    "first",
    [
        lambda reg: reg.ops["toy.op"],
        lambda reg: "toy.op" in reg.ops,
        lambda reg: reg.type_parsers.get("toy.thing"),
        lambda reg: reg.attr_parsers.get("toy"),  # `#toy<...>`: the bare dialect name
        lambda reg: list(reg.ops),
        lambda reg: len(reg.type_parsers),
        lambda reg: dict(reg.ops.items()),
        lambda reg: reg.dialects(),
    ],
    ids=["getitem", "contains", "get", "bare-name", "iter", "len", "items", "dialects"],
)
def test_every_way_of_reading_a_table_sees_the_lazy_dialect(first) -> None:
    calls: list[str] = []
    reg = _toy_registry(calls)
    first(reg)
    assert calls == ["load"]
    assert "toy.op" in dict(reg.ops.items()) and "toy" in reg.dialects()


def test_the_loaders_own_lookups_see_the_dialect_absent() -> None:
    calls: list[str] = []
    seen: list[object] = []
    reg = _toy_registry(calls, seen)
    assert reg.ops.get("toy.op") is ToyOp
    assert seen == [None, False] and calls == ["load"]


def test_threads_that_miss_while_another_loads_wait_for_it() -> None:
    calls: list[str] = []
    reg = _toy_registry(calls, delay=0.2)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(reg.ops.get("toy.op"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [ToyOp] * 4 and calls == ["load"]


def test_a_dialect_added_lazily_twice_is_refused() -> None:
    reg = _toy_registry([])
    with pytest.raises(ValueError, match="toy registered lazily twice"):
        reg.add_lazy("toy", lambda r: None)


_PROBE = r"""
import sys
from stablehlo_py.ir import parse
parse('func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
      '  %0 = stablehlo.compare GT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n'
      '  %1 = stablehlo.add %a, %a : tensor<2xf32>\n  return %1 : tensor<2xf32>\n}')
print("after stablehlo:", "stablehlo_py.vhlo" in sys.modules)
a = parse('"test.keep"() {d = #vhlo<comparison_direction_v1 GT>} : () -> ()', allow_unregistered=True)
print("after vhlo:", "stablehlo_py.vhlo" in sys.modules)
print(a)
"""


def test_vhlo_loads_only_for_a_program_that_names_it() -> None:
    """In a fresh interpreter: a StableHLO program leaves VHLO unimported; the first VHLO name
    (here an enum attribute, `#vhlo<...>`, the bare-dialect lookup) loads it and parses."""
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["after stablehlo: False", "after vhlo: True"], done.stdout
    assert "#vhlo<comparison_direction_v1 GT>" in done.stdout
