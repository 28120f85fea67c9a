"""vhlo/structs.py: the StableHLO struct attributes VHLO flattens, from the fork rows' `flatten` key and
the structs' descriptions (no text round trip)."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.vhlo import structs

from stablehlo_py import specs
from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.attributes import OpaqueAttr

DOT = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
"""


def test_every_flatten_row_names_the_description_fields() -> None:
    """Each `flatten` entry of a fork mapping to StableHLO resolves: its struct is described and
    every field's VHLO name is an attribute of the row, in the description's order."""
    seen = 0
    for o in specs.ops():
        if not o.stablehlo:
            continue
        for flat in structs.flattening_of_fork(o.name):
            seen += 1
            assert flat.names == tuple(f.vhlo for f in flat.desc.fields)
            assert set(flat.names) <= set(o.attribute_names)
    assert seen == 9  # 8 ops; dot_general flattens two structs


def _legalized(module):  # type: ignore[no-untyped-def]
    return print_ir(run_pipeline(module, [("stablehlo-legalize-to-vhlo", {})]))


def test_a_struct_kept_as_text_converts_as_the_described_one() -> None:
    want = _legalized(parse(DOT))
    m = parse(DOT)
    op = next(o for o in m.walk() if o.name == "stablehlo.dot_general")
    op.properties["dot_dimension_numbers"] = OpaqueAttr(
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>"
    )
    assert _legalized(m) == want


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("#stablehlo.dot<lhs_contracting_dimensions = [1], bogus = [0]>", "cannot read"),
        ('#stablehlo.gather<offset_dims = [1]>', "should be a #stablehlo.dot"),
    ],
)
def test_a_bad_struct_kept_as_text_is_refused(text: str, message: str) -> None:
    m = parse(DOT)
    op = next(o for o in m.walk() if o.name == "stablehlo.dot_general")
    op.properties["dot_dimension_numbers"] = OpaqueAttr(text)
    with pytest.raises(StableHLOError, match=message):
        _legalized(m)


def test_regrouped_structs_are_shared() -> None:
    """Equal structs read back from VHLO are one attribute (the verifier's memos rely on it)."""
    vhlo = _legalized(parse(DOT.replace("@main", "@f") + DOT))
    back = run_pipeline(parse(vhlo), [("vhlo-legalize-to-stablehlo", {})])
    dims = [o.properties["dot_dimension_numbers"] for o in back.walk() if o.name == "stablehlo.dot_general"]
    assert len(dims) == 2 and dims[0] is dims[1]
