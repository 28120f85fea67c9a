"""The artifact fast paths against the slow paths they stand for (DESIGN.md §2: the arrows through
[vhlo @ X] are the semantics, a fast path must give the same bytes and IR).

* writing: ``direct_write.write_direct`` (StableHLO ops straight to msgpack records at the current
  target) gives the bytes of ``write_artifact(vhlo_records(...))``;
* reading: ``direct_read.read_direct`` (msgpack records straight to StableHLO ops, verified) and
  ``read_direct_mlir`` (MLIR bytecode likewise) give the module ``legalize_to_stablehlo`` makes of
  the VHLO records, printed with its locations;
* ``serialize_portable_artifact`` / ``deserialize_portable_artifact`` with the fast paths on and
  off (``serialization.DIRECT``) agree at every target version, in both formats, errors included;
* bad bytes still get the reader's own error, never a traceback, and a program the verifier
  refuses is refused by the fast reader too.

Programs: the repository's JAX artifacts (``tests/data/jax_old_forms``), the golden artifacts,
``program.mlir`` and upstream's conformance testdata (``../shared/conformance/testdata``, every
file, in shards).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import stablehlo_py.serialization as S
from stablehlo_py.serialization.direct_read import read_direct, read_direct_mlir
from stablehlo_py.serialization.mlir_artifact import read_mlir_artifact
from stablehlo_py.serialization.direct_write import NotDirect, write_direct
from stablehlo_py.serialization.mlirbc import write_vhlo
from stablehlo_py.serialization.mlirbc.direct import write_direct_mlir
from stablehlo_py.serialization.reader import build_module, read_raw
from stablehlo_py.serialization.writer import write_artifact

from stablehlo_py.errors import SerializationError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
from stablehlo_py.version import get_current_version, get_minimum_version, Version
from tests.conftest import conformance_files
from tests.unit.serialization.helpers import PROGRAM, first_op, rewrite

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = sorted((ROOT / "golden" / "artifacts").glob("*.shlo"))
JAX = sorted((ROOT / "data" / "jax_old_forms").rglob("*.mlirbc"))
CONFORMANCE = conformance_files("testdata")
SHARDS = 16
CURRENT = get_current_version()


@contextmanager
def slow_paths() -> Iterator[None]:
    S.DIRECT[0] = False
    try:
        yield
    finally:
        S.DIRECT[0] = True


def slow_read(artifact: bytes) -> Any:
    with slow_paths():
        return S.deserialize_portable_artifact(artifact)


def text(module: Any) -> str:
    return print_ir(module, debuginfo=True)


def check_program(module: Any, *, covered: bool = True) -> None:
    """Both fast paths against the slow ones on one module, at the current target; ``covered``:
    the fast paths must take the module (else they may decline it, and then the API's result is
    still compared)."""
    try:
        slow = write_artifact(S.vhlo_records(module, CURRENT), CURRENT)
    except StableHLOError as e:  # not writable: the fast path must not write it either
        with pytest.raises(NotDirect):
            write_direct(module, CURRENT)
        with pytest.raises(NotDirect):
            write_direct_mlir(module, CURRENT)
        with pytest.raises(type(e)):
            S.serialize_portable_artifact(module, CURRENT)
        return
    for stripped in (False, True):  # (with and without locations)
        try:
            got = write_direct_mlir(module, CURRENT, stripped)
        except NotDirect:
            continue
        assert got == write_vhlo(S.vhlo_records(module, CURRENT, stripped), CURRENT, stripped)
    try:
        fast = write_direct(module, CURRENT)
    except NotDirect:
        assert not covered, "the fast writer declined a program it covers"
        fast = S.serialize_portable_artifact(module, CURRENT)
    assert fast == slow
    raw = read_raw(slow)
    want = text(legalize_to_stablehlo(build_module(raw, records=True)))
    try:
        got = text(read_direct(read_raw(slow)))
    except NotDirect:
        assert not covered, "the fast reader declined an artifact it covers"
        got = text(S.deserialize_portable_artifact(slow))
    assert got == want
    assert text(S.deserialize_portable_artifact(slow)) == text(slow_read(slow))
    # MLIR bytecode: the fast writer against the records' encoding
    mlir = write_vhlo(S.vhlo_records(module, CURRENT), CURRENT)
    try:
        fast_mlir = write_direct_mlir(module, CURRENT)
    except NotDirect:
        assert not covered, "the fast MLIR bytecode writer declined a program it covers"
        fast_mlir = S.serialize_portable_artifact(module, CURRENT, format="mlir")
    assert fast_mlir == mlir
    # ... and the fast reader against the records and the legalization
    want_mlir = text(legalize_to_stablehlo(read_mlir_artifact(mlir, records=True)[1]))
    try:
        got_mlir = text(read_direct_mlir(mlir, "<artifact>"))
    except NotDirect:
        assert not covered, "the fast MLIR bytecode reader declined an artifact it covers"
        got_mlir = text(S.deserialize_portable_artifact(mlir))
    assert got_mlir == want_mlir


def test_program_mlir() -> None:
    check_program(parse(PROGRAM, "program.mlir"))


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: p.stem)
def test_golden_artifacts(path: Path) -> None:
    check_program(slow_read(path.read_bytes()))


@pytest.mark.parametrize("path", JAX, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_jax_artifacts(path: Path) -> None:
    module = slow_read(path.read_bytes())
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import holds_other_dialects

    check_program(module, covered=not holds_other_dialects(module))


@pytest.mark.skipif(not CONFORMANCE, reason="../shared/conformance is absent")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_conformance_testdata(shard: int) -> None:
    for path in CONFORMANCE[shard::SHARDS]:
        try:
            module = parse(path.read_text(), str(path))
        except StableHLOError:
            continue  # (a file the parser does not read yet: tests/conformance reports it)
        check_program(module)


def _versions() -> list[Version]:
    from stablehlo_py.specs import releases

    return [r.version for r in releases() if get_minimum_version() <= r.version <= CURRENT]


@pytest.mark.parametrize("fmt", S.FORMATS)
def test_every_target_both_formats(fmt: str) -> None:
    """The public API with the fast paths on and off: the same bytes (or the same error) at every
    target, and the same module read back."""
    modules = [parse(PROGRAM, "program.mlir")] + [slow_read(GOLDENS[-1].read_bytes())]
    for module in modules:
        for v in _versions():
            outs = []
            for direct in (False, True):
                S.DIRECT[0] = direct
                try:
                    outs.append(S.serialize_portable_artifact(module, v, format=fmt))
                except StableHLOError as e:
                    outs.append((type(e), e.message))
                finally:
                    S.DIRECT[0] = True
            assert outs[0] == outs[1], f"target {v}"
            if isinstance(outs[0], bytes):
                assert text(S.deserialize_portable_artifact(outs[0])) == text(slow_read(outs[0]))


def test_fast_paths_are_taken() -> None:
    """The API takes the fast paths where they apply (they are not dead code)."""
    module = parse(PROGRAM, "program.mlir")
    data = S.serialize_portable_artifact(module, CURRENT)
    assert write_direct(module, CURRENT) == data
    assert text(read_direct(read_raw(data))) == text(S.deserialize_portable_artifact(data))
    older = Version.from_string("1.0.0")
    with pytest.raises(NotDirect):
        write_direct(module, older)
    mlir = S.serialize_portable_artifact(module, CURRENT, format="mlir")
    assert write_direct_mlir(module, CURRENT) == mlir
    with pytest.raises(NotDirect):
        write_direct_mlir(module, older)


def test_the_api_takes_the_fast_mlir_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serialize_portable_artifact(format="mlir")`` at the current target goes through
    ``write_direct_mlir`` and never builds VHLO records; with ``use_lists_as`` (a replayed
    conversion history) or an older target it takes the records."""
    module = parse(PROGRAM, "program.mlir")
    calls: list[str] = []
    real_records = S.vhlo_records

    def records(*args: Any, **kw: Any) -> Any:
        calls.append("records")
        return real_records(*args, **kw)

    monkeypatch.setattr(S, "vhlo_records", records)
    fast = S.serialize_portable_artifact(module, CURRENT, format="mlir")
    assert calls == []
    S.serialize_portable_artifact(module, CURRENT, format="mlir", use_lists_as="1.17.0")
    assert calls == ["records"]
    S.serialize_portable_artifact(module, "1.0.0", format="mlir")
    assert calls == ["records", "records"]
    with slow_paths():
        assert S.serialize_portable_artifact(module, CURRENT, format="mlir") == fast
    assert calls == ["records"] * 3


def _edited(edit: Any) -> bytes:
    data = S.serialize_portable_artifact(parse(PROGRAM, "program.mlir"), CURRENT)
    return rewrite(data, edit)


def _error(artifact: bytes) -> str:
    with pytest.raises(SerializationError) as e:
        S.deserialize_portable_artifact(artifact)
    return str(e.value)


def test_bad_mlir_bytes_get_the_slow_paths_error() -> None:
    """Truncated or corrupted MLIR bytecode: the fast reader declines, the error is the slow
    path's."""
    data = S.serialize_portable_artifact(parse(PROGRAM, "program.mlir"), CURRENT, format="mlir")
    for bad in (data[: len(data) // 2], data[:40] + bytes([0xFF]) * 8 + data[48:]):
        with pytest.raises(NotDirect):
            read_direct_mlir(bad, "<artifact>")
        fast = _error(bad)
        S.DIRECT[0] = False
        try:
            slow = _error(bad)
        finally:
            S.DIRECT[0] = True
        assert fast == slow


@pytest.mark.parametrize(
    "edit",
    [
        lambda h, s: first_op(s).__setitem__(1, [True]),  # an operand that is a boolean
        lambda h, s: first_op(s)[5][0][0][1][0].__setitem__(1, [99]),  # out of scope
        lambda h, s: first_op(s).__setitem__(4, "abc"),  # attributes that are not a list
        lambda h, s: first_op(s).__setitem__(4, [1.0]),  # an entry that is a float
        lambda h, s: first_op(s).__setitem__(0, 100_000),  # an unknown op code
        lambda h, s: first_op(s).__setitem__(2, 10_000),  # a result type out of range
        lambda h, s: first_op(s).__setitem__(3, 10**9),  # a location out of range
        lambda h, s: first_op(s).extend([1, 2, 3]),  # fields of a newer writer, not zero
        lambda h, s: first_op(s)[5][0][0][1].append("op"),  # an op that is not a record
    ],
)
def test_bad_bytes_get_the_slow_paths_error(edit: Any) -> None:
    bad = _edited(edit)
    with pytest.raises(NotDirect):
        read_direct(read_raw(bad))
    fast = _error(bad)
    S.DIRECT[0] = False
    try:
        slow = _error(bad)
    finally:
        S.DIRECT[0] = True
    assert fast == slow


@pytest.mark.parametrize("fmt", ["msgpack", "mlir"])
@pytest.mark.parametrize("keep", [8, 30, 60, -1])
def test_truncated_artifacts_get_the_slow_paths_error(fmt: str, keep: int) -> None:
    """Bytes cut short (in the header, in the body): the API's error is the slow path's, word
    for word -- a reader's refusal is not reworded as an invalid program."""
    data = S.serialize_portable_artifact_str(PROGRAM, str(CURRENT), format=fmt)
    bad = data[:keep]
    fast = _error(bad)
    with slow_paths():
        slow = _error(bad)
    assert fast == slow
    assert "program is not valid" not in fast


def test_a_float_entry_is_refused_after_the_same_ints_were_read() -> None:
    """The fast reader's memo compares keys by value (1 == 1.0 == True): a record whose
    attribute field repeats an earlier op's with floats is still refused."""

    def edit(h: Any, s: Any) -> None:
        body = first_op(s)[5][0][0][1]
        withattrs = [o for o in body if isinstance(o, list) and len(o) > 4 and o[4]]
        assert withattrs
        o = withattrs[0]
        twin = list(o)
        twin[4] = [None if a is None else float(a) for a in o[4]]
        body.insert(body.index(o) + 1, twin)

    bad = _edited(edit)
    with pytest.raises(NotDirect):
        read_direct(read_raw(bad))


def test_an_invalid_program_is_refused_by_the_fast_reader() -> None:
    """A well-formed artifact whose program does not verify (an add whose result type is not its
    operands'): the fast reader's verification refuses it as the slow path does, also when an add
    of the same signature as the valid one came first (its verdict is remembered by signature)."""
    src = (
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n"
        "  %1 = stablehlo.add %0, %a : tensor<2xf32>\n"
        "  %2 = stablehlo.add %1, %a : tensor<2xf32>\n"
        "  return %2 : tensor<2xf32>\n"
        "}\n"
    )
    data = S.serialize_portable_artifact(parse(src, "p.mlir"), CURRENT)

    def retype(h: Any, s: Any) -> None:
        entries = s[0]
        ranked = next(e for e in entries if e[0] == 0 and len(e) > 2 and e[2] == [2])
        entries.append([ranked[0], ranked[1], [3], *ranked[3:]])  # tensor<3xf32>
        first_op(s)[5][0][0][1][1][2] = len(entries) - 1  # the second add's result type

    bad = rewrite(data, retype)
    fast = _error(bad)
    S.DIRECT[0] = False
    try:
        slow = _error(bad)
    finally:
        S.DIRECT[0] = True
    assert fast == slow
    assert "not valid" in fast


def test_the_fast_mlir_writer_writes_no_use_list_order() -> None:
    """The slow path's VHLO records carry no use-list order from the StableHLO values (at the
    current target no op is replaced): a module whose values keep one (read from bytecode that had
    one) gets the slow path's bytes from the fast writer too."""
    from stablehlo_py.ir.xdsl_compat.side_data import USE_ORDER

    module = parse(
        """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
  %2 = stablehlo.subtract %1, %0 : tensor<2xf32>
  return %2 : tensor<2xf32>
}""",
        "uses.mlir",
    )
    ops = {op.name: op for op in module.walk()}
    ops["func.func"].regions[0].blocks.first.args[0].__dict__[USE_ORDER] = [1, 0]
    ops["stablehlo.add"].results[0].__dict__[USE_ORDER] = [2, 0, 1]
    slow = write_vhlo(S.vhlo_records(module, CURRENT), CURRENT)
    assert write_direct_mlir(module, CURRENT) == slow
    assert S.serialize_portable_artifact(module, CURRENT, format="mlir") == slow


@pytest.mark.parametrize("values", [[0, 1, 127], [128, 129, 16383], [16384, 1 << 21, 1 << 40], [5, 16384, 7]])
def test_the_writers_varints_are_the_emitters(values: list[int]) -> None:
    """``writer._put_all`` / ``_put`` (a table of the one- and two-byte forms) write what
    ``Emitter.varint`` writes, on both sides of each size."""
    from stablehlo_py.serialization.mlirbc.encoding import Emitter
    from stablehlo_py.serialization.mlirbc.writer import _put, _put_all

    want = Emitter()
    for v in values:
        want.varint(v)
    got = bytearray()
    _put_all(got, values)
    assert bytes(got) == bytes(want.buf)
    one = bytearray()
    for v in values:
        _put(one, v)
    assert bytes(one) == bytes(want.buf)
    with pytest.raises(ValueError):
        _put(bytearray(), -1)
