"""The locations section stores structure when (and only when) it prints back identically."""

from __future__ import annotations

import pytest
from stablehlo_py.serialization.locations import LocationError, LocationTable, render_locations

TEXTS = [
    '"f.py":12:7',
    '"f.py":13:1',
    '"jit(f)/add"("f.py":12:7)',
    '"name"',
    'callsite("g"("a.py":3:1) at "b.py":9:2)',
    'fused["a", "b.py":1:2]',
    '"f.py":1:2 to 3:4',
    '"f.py":1:2 to :9',
    '"f.py":1:2 to 1:9',
    'fused<"meta">["a"]',
    '"esc\\"aped\\0A"("f.py":1:1)',
    "callsite( weird spacing )",
    '"x":01:2',
]


def test_every_location_renders_back_exactly() -> None:
    table = LocationTable()
    refs = [table.ref(t) for t in TEXTS]
    texts = render_locations(table.items, 1 << 20)
    assert [texts[r] for r in refs] == TEXTS
    assert table.ref("unknown") == 0
    # the file name is stored once
    assert table.items.count("f.py") == 1
    # structured when possible, text otherwise
    assert isinstance(table.items[refs[0] - 1], list)
    assert isinstance(table.items[refs[6] - 1], list)  # a range
    assert (
        table.items[refs[8] - 1] == TEXTS[8]
    )  # `to 1:9` on the same line: MLIR would print `to :9`


def test_malformed_items_are_refused() -> None:
    for items in ([[0, 5, 1, 1]], [[9]], [[0, 1, 1, 1]], [3.0], ["x", [1, 1, 7]], ["x", [3, []]]):
        with pytest.raises(LocationError):
            render_locations(items, 1 << 20)


def test_shared_sublocations_cannot_blow_up_memory() -> None:
    items: list[object] = ["f"]
    for i in range(64):
        items.append([2, len(items), len(items)])  # each doubles the text
    with pytest.raises(LocationError, match="more memory"):
        render_locations(items, 1 << 20)
