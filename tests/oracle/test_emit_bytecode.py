"""``stablehlo-opt -emit-bytecode`` against jaxlib's ``Operation.write_bytecode`` (issue 9, item 4).

* Every conformance testdata program (CHLO ones included): our bytes == jaxlib's bytes for the same
  text, and our reader reads jaxlib's bytes back to a module that prints as the source does (with
  and without locations).
* Every function of upstream's ``dialect/`` files that jaxlib 0.10.2 accepts: the same, where a
  difference may only be jaxlib's use-list orders (MLIR records a non-default order left by its
  parser; they carry no meaning and we never write them: jaxlib re-reading our bytes and writing
  them again must give our bytes, mlir-bytecode.md §2), or an op whose upstream ODS gained an
  inherent attribute after jaxlib 0.10.2 (:data:`NEWER_THAN_JAXLIB`: we write the reference
  upstream's layout, and read both).

Our bytes carry the jaxlib's producer string (``MLIR23.0.0git`` for jaxlib 0.10, ``MLIR24.0.0git``
for 0.12: its LLVM's version; :data:`~stablehlo_py.serialization.mlirbc.DIALECT_PRODUCER` is ours by
default).  The counts are printed (``-s``) for the notes.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from stablehlo_py.serialization.mlirbc import read_dialect, write_dialect

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files
from tests.unit.serialization.helpers import bytecode_sections

TESTDATA = conformance_files("testdata")
DIALECT = conformance_files("dialect")

def _jaxlib_stablehlo() -> tuple[int, ...]:
    from jaxlib.mlir.dialects import stablehlo

    return tuple(int(x) for x in str(stablehlo.get_current_version()).split("."))


# ops whose ODS (upstream's 1.20.0, ours) gained an inherent attribute after the jaxlib's StableHLO:
# their properties record has one entry more than the jaxlib writes (we read both layouts)
NEWER_THAN_JAXLIB = tuple(
    op
    for op, since in {
        "stablehlo.collective_broadcast": (1, 18, 0),  # has_dynamic_root
        "stablehlo.custom_call": (1, 18, 0),  # result_tilings
        "chlo.top_k": (1, 19, 0),  # is_stable
    }.items()
    if _jaxlib_stablehlo() < since
)
COUNTS: Counter[str] = Counter()


def write_bytecode(ir, ctx, source: str | bytes) -> bytes:  # type: ignore[no-untyped-def]
    """jaxlib's bytes of ``source`` (text or bytecode): parsed and written by its ``ir`` in ``ctx``."""
    with ctx:
        module = ir.Module.parse(source)
        out = io.BytesIO()
        module.operation.write_bytecode(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def jaxlib():  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    ctx = jax_mlir.make_ir_context()
    data = write_bytecode(ir, ctx, "")
    producer = data[5 : data.index(b"\x00", 5)].decode()
    yield ctx, ir, producer
    if COUNTS:
        print(f"\n-emit-bytecode vs jaxlib: {dict(sorted(COUNTS.items()))}")


def _write(jaxlib, source: str | bytes) -> bytes:  # type: ignore[no-untyped-def]
    ctx, ir, _ = jaxlib
    return write_bytecode(ir, ctx, source)


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_testdata_bytes_are_jaxlibs(path: Path, jaxlib) -> None:  # type: ignore[no-untyped-def]
    text = path.read_text()
    module = parse(text, "-")
    theirs = _write(jaxlib, text)
    if any(op in text for op in NEWER_THAN_JAXLIB):
        COUNTS["testdata with ops newer than jaxlib"] += 1
    else:
        assert write_dialect(module, producer=jaxlib[2]) == theirs
        COUNTS["testdata byte-identical"] += 1
    _, _, back = read_dialect(theirs)
    assert print_ir(back) == print_ir(module)
    assert print_ir(back, debuginfo=True) == print_ir(module, debuginfo=True)  # locations too
    COUNTS["testdata read back"] += 1


def _functions(path: Path) -> list[str]:
    """Each function of each ``// -----`` chunk of ``path``, as our printer prints it."""
    out = []
    for chunk in re.split(r"^// -----\s*$", path.read_text(), flags=re.MULTILINE):
        if "expected-error" in chunk:
            continue
        try:
            text = print_ir(parse(chunk, "-"))
        except StableHLOError:
            continue
        lines = text.splitlines()
        first = next((i for i, x in enumerate(lines) if x.startswith("module")), None)
        if first is None or any(x.startswith("#") for x in lines[:first]):
            continue  # aliases: not a plain list of functions
        start = None
        for i, line in enumerate(lines[first + 1 : -1], first + 1):
            if line.startswith("  func.func"):
                if not line.endswith("{"):  # a declaration
                    out.append(line[2:] + "\n")
                    continue
                start = i
            elif start is not None and line == "  }":
                out.append("\n".join(x[2:] for x in lines[start : i + 1]) + "\n")
                start = None
    return out


def _only_ir_differs(a: bytes, b: bytes) -> bool:
    """Same sections but the IR's (where use-list orders live)."""

    def split(data: bytes) -> dict[int, bytes]:
        spans = bytecode_sections(data)
        return {sid: data[s:e] if sid != 4 else b"" for sid, (s, e) in spans.items()}

    return split(a) == split(b)


@pytest.mark.skipif(not DIALECT, reason="../shared/conformance/dialect is absent")
@pytest.mark.parametrize("path", DIALECT, ids=lambda p: p.name)
def test_dialect_functions_bytes_are_jaxlibs(path: Path, jaxlib) -> None:  # type: ignore[no-untyped-def]
    compared = 0
    for text in _functions(path):
        try:
            theirs = _write(jaxlib, text)
        except Exception:  # noqa: BLE001 - ops or syntax newer than jaxlib 0.10.2
            COUNTS["dialect functions jaxlib rejects"] += 1
            continue
        module = parse(text, "-")
        ours = write_dialect(module, producer=jaxlib[2])
        compared += 1
        _, _, back = read_dialect(theirs)
        assert print_ir(back) == print_ir(module), text
        if ours == theirs:
            COUNTS["dialect functions byte-identical"] += 1
        elif any(op in text for op in NEWER_THAN_JAXLIB):
            COUNTS["dialect functions with ops newer than jaxlib"] += 1
        else:
            assert _only_ir_differs(ours, theirs), text
            assert _write(jaxlib, ours) == ours, text  # jaxlib's use-list orders only
            COUNTS["dialect functions identical but for jaxlib's use-list orders"] += 1
    assert compared or path.name not in ("ops_stablehlo_roundtrip.mlir", "ops_chlo_roundtrip.mlir")
