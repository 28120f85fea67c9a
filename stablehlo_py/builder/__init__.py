"""Build StableHLO programs in Python, with result types inferred as upstream's builders infer them.

    import numpy as np
    from stablehlo_py.builder import Module, stablehlo as hlo, tensor

    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((3, 4), "f32"))
    def main(x, w):
        y = hlo.dot_general(x, w, dot_dimension_numbers={
            "lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]})
        return hlo.maximum(y, 0.0)            # 0.0 becomes a splat constant of y's type

    print(m)                                   # upstream's pretty syntax
    m.verify()
    m.run(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))

What is where:

- ``stablehlo`` / ``chlo``: one function per op, generated from the op classes
  (``stablehlo_py.builder.opgen``: parameters, result types, return values);
- ``stablehlo_py.builder.attrs``: the Python values each kind of attribute takes (``ENUMS`` holds
  ``enum.Enum`` classes such as ``ComparisonDirection``);
- ``stablehlo_py.builder.regions``: regions from callables;
- ``stablehlo_py.builder.types``: type specifications (``tensor``, ``to_type``);
- ``stablehlo_py.builder.core``: ``constant`` and how Python numbers become operands;
- ``stablehlo_py.builder.module``: ``Module``, ``Module.func``, ``Function``, ``call``.
"""

from __future__ import annotations

from stablehlo_py.builder.attrs import ENUMS, to_attribute
from stablehlo_py.builder.core import constant
from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.module import Function, Module, call, scalar_type
from stablehlo_py.builder.opgen import Namespace, OpFunction, generate
from stablehlo_py.builder.types import element_type_of, tensor, to_type

stablehlo: Namespace = generate("stablehlo")
"""Builder functions of the stablehlo dialect's ops (``stablehlo.add``, ``stablehlo.while_``, ...)."""
chlo: Namespace = generate("chlo")
"""Builder functions of the chlo dialect's ops (``chlo.erf``, ``chlo.broadcast_add``, ...)."""

ComparisonDirection = ENUMS["ComparisonDirection"]
ComparisonType = ENUMS["ComparisonType"]
Precision = ENUMS["Precision"]
FftType = ENUMS["FftType"]
RngDistribution = ENUMS["RngDistribution"]
RngAlgorithm = ENUMS["RngAlgorithm"]
Transpose = ENUMS["Transpose"]

__all__ = [
    "ENUMS",
    "BuildError",
    "ComparisonDirection",
    "ComparisonType",
    "FftType",
    "Function",
    "Module",
    "Namespace",
    "OpFunction",
    "Precision",
    "RngAlgorithm",
    "RngDistribution",
    "Transpose",
    "call",
    "chlo",
    "constant",
    "element_type_of",
    "scalar_type",
    "stablehlo",
    "tensor",
    "to_attribute",
    "to_type",
]
