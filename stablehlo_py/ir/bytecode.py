"""The legacy stablehlo-py IR bytecode (read only; nothing writes it any more).

Earlier versions of `stablehlo-opt --emit-bytecode` wrote this toolkit-private container: MAGIC
(8 bytes), format version (1 byte), zlib stream of the generic form with locations.  `--emit-bytecode`
now writes MLIR bytecode exactly as upstream's `stablehlo-opt -emit-bytecode`
(`stablehlo_py.serialization.mlirbc.write_dialect`).

Why it is kept: files written in the old container by those earlier versions are still read
back, transparently, by the command-line tools: `stablehlo-opt` (`cli/opt.py` `read_binary`) and
`stablehlo-translate --interpret` (`cli/common.py` `is_binary`, `read_stablehlo_binary`) recognize
MAGIC and parse the stream here.  Removing this module would make those files unreadable, a
user-visible change (`test_legacy_ir_bytecode_is_still_read` in
tests/unit/serialization/test_dialect_bytecode.py pins it).
"""

from __future__ import annotations

import zlib

from xdsl.ir import Operation

from stablehlo_py.errors import ParseError

MAGIC = b"\x89SPYIR\r\n"
FORMAT_VERSION = 1
MAX_TEXT_BYTES = 1 << 31  # refuse to inflate beyond 2 GiB


def is_ir_bytecode(data: bytes) -> bool:
    return data.startswith(MAGIC)


def read_ir_bytecode(data: bytes, name: str = "-") -> Operation:
    from stablehlo_py.ir import parse

    if not is_ir_bytecode(data):
        raise ParseError("not stablehlo-py IR bytecode (bad magic)", location=f"{name}:offset 0")
    if len(data) <= len(MAGIC):
        raise ParseError("IR bytecode is truncated after the magic", location=f"{name}:offset {len(data)}")
    version = data[len(MAGIC)]
    if version != FORMAT_VERSION:
        raise ParseError(
            f"IR bytecode format {version} is not supported (this stablehlo-py reads format {FORMAT_VERSION}); "
            "IR bytecode is tied to the toolkit version: use portable artifacts (--serialize) to exchange programs",
            location=f"{name}:offset {len(MAGIC)}",
        )
    d = zlib.decompressobj()
    try:
        raw = d.decompress(data[len(MAGIC) + 1 :], MAX_TEXT_BYTES)
    except zlib.error as e:
        raise ParseError(f"IR bytecode body is corrupted ({e})", location=f"{name}:offset {len(MAGIC) + 1}") from None
    if d.unconsumed_tail or not d.eof:
        raise ParseError("IR bytecode body is truncated or too large", location=f"{name}:offset {len(data)}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ParseError(f"IR bytecode body is not UTF-8 (byte {e.start})", location=name) from None
    return parse(text, name)
