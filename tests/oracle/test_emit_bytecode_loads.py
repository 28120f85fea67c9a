"""Our plain dialect bytecode (``stablehlo-opt -emit-bytecode``, :func:`write_dialect`) loads in
its consumers and means what the source means (issue 31).

``test_emit_bytecode.py`` compares our bytes with the jaxlib's own ``write_bytecode``; this file
asks the consumers: for every conformance testdata program, every function of upstream's
``dialect/`` files that the consumer parses, and the examples (``examples/*.mlir`` and the builder
examples' ``build()`` programs), our bytes load (``ir.Module.parse(bytes)``) and print, with
locations, exactly as the consumer prints the source text.

Consumers: jaxlib's MLIR (jax's context: stablehlo, chlo, sdy, func, ... registered), and IREE's
(``iree.compiler.ir``, from the optional ``iree-base-compiler``: its ``Context()`` registers
stablehlo, chlo and vhlo with IREE's own dialects; unregistered dialects are refused).  A consumer
that is not installed is reported by :func:`test_consumer_installed` (skipped with the reason),
not silently left out.  The counts are printed (``-s``).
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")

from stablehlo_py.serialization.mlirbc import write_dialect

from stablehlo_py.ir import parse, print_ir
from tests.conftest import REPO, conformance_files
from tests.oracle.test_emit_bytecode import DIALECT, NEWER_THAN_JAXLIB, _functions

TESTDATA = conformance_files("testdata")
EXAMPLES = sorted((REPO / "examples").glob("*.mlir"))
BUILDER_EXAMPLES = sorted(
    p for p in (REPO / "examples").glob("*.py") if "\ndef build()" in p.read_text()
)
CONSUMERS = ("jaxlib", "iree")
COUNTS: Counter[str] = Counter()


def _jaxlib() -> tuple[Any, Any]:
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    return jax_mlir.make_ir_context(), ir


def _iree() -> tuple[Any, Any] | None:
    if importlib.util.find_spec("iree") is None:
        return None
    if importlib.util.find_spec("iree.compiler") is None:  # iree-base-runtime alone
        return None
    from iree.compiler import ir

    return ir.Context(), ir


@pytest.fixture(scope="module")
def consumers():  # type: ignore[no-untyped-def]
    found = {"jaxlib": _jaxlib()}
    iree = _iree()
    if iree is not None:
        found["iree"] = iree
    yield found
    if COUNTS:
        print(f"\n-emit-bytecode loads: {dict(sorted(COUNTS.items()))}")


@pytest.mark.parametrize("name", CONSUMERS)
def test_consumer_installed(name: str, consumers) -> None:  # type: ignore[no-untyped-def]
    if name not in consumers:
        pytest.skip(f"{name} is not installed: `pip install iree-base-compiler` to check it too")
    ctx, ir = consumers[name]
    for op in ("stablehlo.add", "chlo.erf", "func.func"):
        assert ctx.is_registered_operation(op), f"{name} does not register {op}"


def _asm(ir, module) -> str:  # type: ignore[no-untyped-def]
    return module.operation.get_asm(enable_debug_info=True)


def _check(consumers, source: str, ours: bytes, what: str, count: str) -> None:  # type: ignore[no-untyped-def]
    """Every consumer that parses ``source`` loads ``ours`` and prints it as the source; only an
    older jaxlib may refuse a program with an op whose properties gained an entry after it
    (``NEWER_THAN_JAXLIB``: we write the newest layout)."""
    for name, (ctx, ir) in consumers.items():
        with ctx:
            try:
                expected = _asm(ir, ir.Module.parse(source))
            except Exception:  # noqa: BLE001 - ops or syntax this consumer does not have
                COUNTS[f"{name}: {count} it does not parse"] += 1
                continue
            try:
                got = _asm(ir, ir.Module.parse(ours))
            except Exception:
                if name == "jaxlib" and any(op in source for op in NEWER_THAN_JAXLIB):
                    COUNTS[f"{name}: {count} with ops newer than it, refused"] += 1
                    continue
                raise  # with the consumer's diagnostic
        assert got == expected, f"{name} reads our bytecode of {what} as another program"
        COUNTS[f"{name}: {count} loaded"] += 1


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_testdata_bytecode_loads(path: Path, consumers) -> None:  # type: ignore[no-untyped-def]
    text = path.read_text()
    _check(consumers, text, write_dialect(parse(text, "-")), path.name, "testdata")


@pytest.mark.skipif(not DIALECT, reason="../shared/conformance/dialect is absent")
@pytest.mark.parametrize("path", DIALECT, ids=lambda p: p.name)
def test_dialect_functions_bytecode_loads(path: Path, consumers) -> None:  # type: ignore[no-untyped-def]
    for text in _functions(path):
        _check(consumers, text, write_dialect(parse(text, "-")), text, "dialect functions")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_bytecode_loads(path: Path, consumers) -> None:  # type: ignore[no-untyped-def]
    text = path.read_text()
    _check(consumers, text, write_dialect(parse(text, "-")), path.name, "examples")


@pytest.mark.parametrize("path", BUILDER_EXAMPLES, ids=lambda p: p.name)
def test_builder_example_bytecode_loads(path: Path, consumers) -> None:  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    module = example.build().op
    # the text with our locations, so the consumer's print of the source has the same ones
    text = print_ir(module, debuginfo=True)
    _check(consumers, text, write_dialect(parse(text, "-")), path.name, "examples")
