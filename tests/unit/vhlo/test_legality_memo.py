"""vhlo-to-version's legality memos keep small dense tensors (an op's dimensions: asked again by
every op that holds them) and never a large one (a constant's data must be freed with its module)."""

from __future__ import annotations

from stablehlo_py.ir.context import fresh_context
from stablehlo_py.version import Version
from stablehlo_py.vhlo import legality
from stablehlo_py.vhlo.attrs import i64_tensor


def test_small_dense_tensors_are_remembered_large_ones_are_not() -> None:
    small = i64_tensor([0, 1])
    large = i64_tensor(list(range(legality.SMALL_TENSOR)))  # 8 bytes each: over the bound
    assert len(small.raw_data) <= legality.SMALL_TENSOR < len(large.raw_data)
    with fresh_context():
        needs = legality._NEEDS
        first = legality.attr_needs(small)
        assert needs.get(small) == first and legality.attr_needs(small) == first
        got = legality.attr_needs(large)
        assert got == first  # (the same answer, computed each time)
        assert needs.get(large) is None
        ok = legality._at(Version(1, 0, 0)).ok
        assert legality._all_exist(ok, Version(1, 0, 0), (small, large), 2)
        assert ok.knows_all((small,)) and not ok.knows_all((large,))
