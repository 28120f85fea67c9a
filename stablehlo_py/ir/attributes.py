"""Attributes that are not xDSL builtins.

`OpaqueAttr` keeps an attribute of a dialect we do not model (e.g. `#sdy.sharding<...>`,
`#mhlo.frontend_attributes<...>`) as its exact text, so it round-trips unchanged.
`TypedStringAttr` is MLIR's StringAttr with a type (`"foo" : tensor<3xf32>`).
StableHLO's own enums live in `stablehlo_py.ir.enums`, its struct attributes (one description each) in
`stablehlo_py.ir.attrs`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Data, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


class TextData(Data[object]):
    """Base of the toolkit's own Data attributes and types: stablehlo_py.ir.text reads and writes
    them; xDSL's parser never does, and its printer shows `parameter_text()`."""

    PARSE_ERROR: ClassVar[str] = "parsed by stablehlo_py.ir.text"

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError(cls.PARSE_ERROR)

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        printer.print_string(self.xdsl_parameter_text())

    def xdsl_parameter_text(self) -> str:
        """What xDSL's printer writes after `#name` (`!name` for a type): valid MLIR when the class
        has an `mlir_text()` that starts with that prefix (`#stablehlo.dot<...>`: the rest of it) or
        has no parameter (`!stablehlo.token`); `parameter_text()` otherwise.  (Opaque attributes
        and types, whose name is not their MLIR name, are handled in ir/xdsl_compat/printing.py.)"""
        if self.data is None:
            return ""
        mlir_text = getattr(self, "mlir_text", None)
        if mlir_text is not None:
            try:
                text = mlir_text()
            except NotImplementedError:
                text = None
            if text is not None:
                prefix = ("!" if isinstance(self, TypeAttribute) else "#") + self.name
                if text.startswith(prefix):
                    return text[len(prefix) :]
        return self.parameter_text()

    def parameter_text(self) -> str:
        return str(self.data)


class MlirTextData(TextData):
    """A TextData whose text is its MLIR spelling, `mlir_text()`."""

    def parameter_text(self) -> str:
        return self.mlir_text()

    def mlir_text(self) -> str:
        raise NotImplementedError


class StructAttr(MlirTextData):
    """An attribute holding a frozen dataclass `STRUCT`, built from it or from its fields as keywords
    (lists become tuples)."""

    MNEMONIC: ClassVar[str]
    STRUCT: ClassVar[type]

    def __init__(self, data: Any = None, **kw: Any) -> None:
        if data is None:
            data = self.STRUCT(
                **{k: (tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in kw.items()}
            )
        super().__init__(data)


@irdl_attr_definition
class OpaqueAttr(TextData):
    """An attribute of an unmodelled dialect, stored as its full text (starting with `#`)."""

    name = "stablehlo_py.opaque_attr"


@irdl_attr_definition
class OpaqueType(TextData, TypeAttribute):
    """A type of an unmodelled dialect, stored as its full text (starting with `!`)."""

    name = "stablehlo_py.opaque_type"


@irdl_attr_definition
class TypedStringAttr(ParametrizedAttribute):
    """MLIR's StringAttr with a type other than `none` (`"foo" : tensor<3xf32>`).  xDSL's StringAttr
    has no type (and is final), so a typed one is its own class; ODS's `StrAttr` accepts both (see
    `ods_types.STR_ATTR_CONSTRAINT`).  `data` is the string, as for StringAttr.  VHLO has no typed
    string: legalizing an op holding one fails, as upstream's."""

    name = "stablehlo_py.typed_string"
    value: StringAttr
    type: Attribute

    @property
    def data(self) -> str:
        return self.value.data
