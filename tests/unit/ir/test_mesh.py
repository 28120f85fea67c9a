"""`stablehlo_py.ir.mesh.mesh_from_attr`: a `#stablehlo.mesh` kept as text, read by its description
(`ir/attrs/mesh.py`) in either spelling; anything else is not a mesh (None, never an exception)."""

from __future__ import annotations

import pytest

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.mesh import Mesh, mesh_from_attr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
            '#stablehlo.mesh_axis<size = 3, name = "y">]>',
            Mesh((("x", 2), ("y", 3))),
        ),
        (
            '#stablehlo.mesh<axes=[<name = "i", size = 4>], '
            "device_ids = dense<[3, 2, 1, 0]> : tensor<4xi64>>",
            Mesh((("i", 4),), (3, 2, 1, 0)),
        ),
        (
            "#stablehlo.mesh<device_ids = dense<[1, 0]> : tensor<2xi64>, "
            'axes = [<name = "x", size = 2>]>',
            Mesh((("x", 2),), (1, 0)),
        ),
    ],
)
def test_mesh_from_text(text: str, expected: Mesh) -> None:
    assert mesh_from_attr(OpaqueAttr(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x">]>',  # no size
        '#stablehlo.mesh<axes = [<name = "x", size = 2>], bogus = 1>',
        '#stablehlo.mesh<axes = [<name = "x", size = 2>]> trailing',
        '#stablehlo.mesh<axes = [<name = "x", size = 2>]',
        '#stablehlo.mesh_axis<name = "x", size = 2>',
        '#sdy.mesh<["x"=2]>',
    ],
)
def test_not_a_mesh(text: str) -> None:
    assert mesh_from_attr(OpaqueAttr(text)) is None
