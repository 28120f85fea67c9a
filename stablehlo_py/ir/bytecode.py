"""`stablehlo-opt --emit-bytecode`: stablehlo-py's IR bytecode, a compact binary container for any IR
the toolkit can print (every dialect, locations kept), read back transparently by stablehlo-opt.

It is not MLIR's bytecode format, and it is not a compatibility format: it holds the IR of this toolkit
version.  Portable artifacts (`--serialize --target=X`, `stablehlo_py.serialization`) are the
versioned exchange format.

Layout: MAGIC (8 bytes), format version (1 byte), zlib stream of the generic form with locations.
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


def write_ir_bytecode(module: Operation) -> bytes:
    from stablehlo_py.ir import print_ir

    text = print_ir(module, generic=True, debuginfo=True).encode("utf-8")
    return MAGIC + bytes([FORMAT_VERSION]) + zlib.compress(text, 6)


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
