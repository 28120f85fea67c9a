"""`#stablehlo.channel_handle<handle = 1, type = 0>`: a channel id and its type (spec `channel_id`
of send, recv and the collectives). Read as parseStruct (both fields optional, 0 by default); VHLO
flattens it into `channel_id` and `channel_type` (send, recv) or keeps only the handle."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import INT, DescribedAttr, KeywordList, field

COLLECTIVE_STRUCT = KeywordList(
    unknown="unknown field '{key}' in {what} (expected one of {names})",
    duplicate="field '{key}' given twice in {what}",
    missing="{what} needs a '{key}'",
    keyword_keys=True,
    trailing_comma=False,
)
"""parseStruct as the collectives' attributes (channel_handle, axis_ref, replica_group_mesh_axes)
read it, with their messages: a key is a keyword, no trailing comma."""


@dataclass(frozen=True)
class ChannelHandle:
    handle: int = field(INT, 0, vhlo="channel_id")
    type: int = field(INT, 0, vhlo="channel_type")
    """xla::ChannelHandle::ChannelType: 1 DEVICE_TO_DEVICE, 2 DEVICE_TO_HOST, 3 HOST_TO_DEVICE."""


@irdl_attr_definition
class ChannelHandleAttr(DescribedAttr):
    """`#stablehlo.channel_handle<handle = 1, type = 0>`: a channel id and its type (spec `channel_id`)."""

    name = "stablehlo.channel_handle"
    STRUCT = ChannelHandle
    SYNTAX = COLLECTIVE_STRUCT
    BYTECODE = 1

    def __init__(self, handle: int, type_: int) -> None:
        super().__init__(ChannelHandle(int(handle), int(type_)))

    @property
    def handle(self) -> int:
        return self.data.handle  # type: ignore[attr-defined]

    @property
    def channel_type(self) -> int:
        return self.data.type  # type: ignore[attr-defined]
