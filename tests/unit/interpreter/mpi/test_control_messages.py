"""interpreter/mpi/messages.py without MPI: the control plane's message bytes, values carried by
broker messages, failures and the report rank 0 prints (plan §3.3)."""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError, VerifyError
from stablehlo_py.interpreter.mpi import messages as M
from stablehlo_py.interpreter.mpi import wire


def test_message_round_trip_keeps_kind_fields_and_payload() -> None:
    data = M.pack("error", {"rank": 3, "text": "é ∑ \n"}, [b"ab", np.arange(3, dtype=np.uint8)])
    got = M.unpack(data)
    assert got == M.Message("error", {"rank": 3, "text": "é ∑ \n"}, b"ab\x00\x01\x02")
    assert M.unpack(bytearray(M.pack("stop"))) == M.Message("stop", {}, b"")
    # the layout: 4-byte little-endian length of the JSON, the JSON, the payload
    n = int.from_bytes(data[:4], "little")
    assert json.loads(data[4 : 4 + n]) == {"k": "error", "rank": 3, "text": "é ∑ \n"}


@pytest.mark.parametrize(
    "data, match",
    [
        (b"\x01", "too short"),
        ((50).to_bytes(4, "little") + b"{}", "fields take 50 bytes, only 2 arrived"),
        ((3).to_bytes(4, "little") + b"{x}", "not JSON"),
        ((2).to_bytes(4, "little") + b"[]", "unknown kind"),
        ((12).to_bytes(4, "little") + b'{"k":"boom"}', "unknown kind"),
    ],
)
def test_unpack_refuses_what_pack_did_not_write(data: bytes, match: str) -> None:
    with pytest.raises(InterpreterError, match=match):
        M.unpack(data)


def test_pack_refuses_an_unknown_kind() -> None:
    with pytest.raises(InterpreterError, match="unknown kind 'hello'"):
        M.pack("hello")


def test_values_travel_bit_for_bit() -> None:
    nan = np.array([np.nan, -0.0, 1.5], np.float32)
    nan.view(np.uint32)[0] = 0x7FC00123  # a NaN payload
    values = [
        nan,
        np.arange(12, dtype=np.int64).reshape(3, 4).T,  # not C-ordered
        np.array([1 + 2j, -0.0], np.complex64),
        np.array(3.25, ml_dtypes.bfloat16),  # 0-d, ml_dtypes
        np.zeros((0, 5), np.int8),
        np.array([True, False]),
    ]
    message = M.unpack(M.pack_values("send", values, {"c": 7}, what="send on channel 7"))
    assert message.fields["c"] == 7
    got = M.unpack_values(message)
    assert len(got) == len(values)
    for a, b in zip(values, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.ascontiguousarray(a).tobytes() == b.tobytes()
        assert b.flags.writeable and b.flags.owndata  # copies, not views of the message


def test_values_over_the_limit_are_refused_with_the_way_out(monkeypatch) -> None:
    monkeypatch.setattr(wire, "MAX_CHUNK", 100)
    with pytest.raises(InterpreterError) as caught:
        M.pack_values("send", [np.zeros(26, np.float32)], what="send on channel 2")
    assert "send on channel 2 carries 104 bytes" in str(caught.value)
    assert "at most 100 bytes" in str(caught.value)
    assert "source_target_pairs" in caught.value.note
    M.pack_values("send", [np.zeros(25, np.float32)], what="send")  # 100 bytes pass


def test_values_whose_payload_disagrees_with_their_header_are_refused() -> None:
    message = M.unpack(M.pack_values("send", [np.arange(4, dtype=np.int32)], what="send"))
    short = M.Message(message.kind, message.fields, message.payload[:-1])
    with pytest.raises(InterpreterError):
        M.unpack_values(short)
    long = M.Message(message.kind, message.fields, message.payload + b"x")
    with pytest.raises(InterpreterError, match="carries 17 bytes of values, its header lists 16"):
        M.unpack_values(long)


# ---------------------------------------------------------------------------------- failures


def test_a_toolkit_error_keeps_location_and_note_and_no_traceback() -> None:
    error = VerifyError("'stablehlo.add' op types differ", location="prog.mlir:3:5", note="cast")
    f = M.Failure.of(error, 3, (0, 3))
    assert (f.rank, f.pid, f.kind) == (3, (0, 3), "VerifyError")
    assert f.message == "prog.mlir:3:5: 'stablehlo.add' op types differ"
    assert f.note == "cast" and f.details is None
    assert M.Failure.from_fields(json.loads(json.dumps(f.fields()))) == f


def test_any_other_exception_keeps_its_type_and_traceback() -> None:
    try:
        raise ValueError("bad shape")
    except ValueError as e:
        f = M.Failure.of(e, 1, (0, 1), after_stop=True)
    assert f.message == "ValueError: bad shape" and f.kind == "ValueError"
    assert f.details.startswith("Traceback (most recent call last):")
    assert "raise ValueError" in f.details and f.after_stop
    assert M.Failure.of(KeyboardInterrupt(), 0, (0, 0)).message == "KeyboardInterrupt"
    with pytest.raises(InterpreterError, match="lacks a field"):
        M.Failure.from_fields({"rank": 1})


def _f(rank: int, message: str = "boom", **kw) -> M.Failure:
    return M.Failure(rank, (rank // 4, rank % 4), "InterpreterError", message, **kw)


def test_root_cause_is_a_real_error_before_the_stop_lowest_rank() -> None:
    assert M.root_cause([_f(5), _f(3), _f(6)]).rank == 3
    assert M.root_cause([_f(1, consequence=True), _f(6)]).rank == 6
    assert M.root_cause([_f(2, after_stop=True), _f(7)]).rank == 7
    assert M.root_cause([_f(2, after_stop=True), _f(1, consequence=True)]).rank == 2
    with pytest.raises(InterpreterError):
        M.root_cause([])


def test_the_report_line() -> None:
    msg = "'stablehlo.custom_call' @foo: no implementation"
    assert M.report([_f(3, msg)], 8) == (
        "error: rank 3 (replica 0, partition 3): 'stablehlo.custom_call' @foo: no implementation "
        "(7 other ranks stopped)\n"
    )
    assert M.report([_f(1)], 2) == (
        "error: rank 1 (replica 0, partition 1): boom (1 other rank stopped)\n"
    )
    assert M.report([_f(0)], 1) == "error: rank 0 (replica 0, partition 0): boom\n"
    # ranks still running when the report was made (the failing rank itself is not counted)
    assert M.headline(_f(5), 8, [2, 5]) == (
        "rank 5 (replica 1, partition 1): boom (6 other ranks stopped; rank 2 still running)"
    )
    assert M.headline(_f(5), 8, [0, 2, 6]) == (
        "rank 5 (replica 1, partition 1): boom (4 other ranks stopped; ranks 0, 2, 6 still "
        "running)"
    )
    assert M.headline(_f(1), 3, [0, 2]).endswith(
        "(0 other ranks stopped; ranks 0, 2 still running)"
    )


def test_the_report_adds_note_traceback_and_the_other_failures_in_rank_order() -> None:
    failures = [
        _f(6, "second"),
        _f(2, "first", note="try this"),
        _f(4, "gave up", consequence=True),
        _f(1, "late", after_stop=True, details="Traceback (most recent call last):\n  x\n"),
    ]
    assert M.report(failures, 8).splitlines() == [
        "error: rank 2 (replica 0, partition 2): first (7 other ranks stopped)",
        "note: try this",
        "note: rank 1 (replica 0, partition 1) failed too: late",
        "note: rank 6 (replica 1, partition 2) failed too: second",
    ]
    bug = M.report([_f(0, "ValueError: x", details="Traceback (most recent call last):\n  y\n")], 2)
    assert bug.splitlines()[1:] == ["Traceback (most recent call last):", "  y"]


def test_ranks_text_writes_three_or_more_consecutive_ranks_as_a_range() -> None:
    assert M.ranks_text([4]) == "rank 4"
    assert M.ranks_text([6, 2]) == "ranks 2, 6"
    assert M.ranks_text([1, 2]) == "ranks 1, 2"  # two are not a range
    assert M.ranks_text(range(1, 8)) == "ranks 1-7"
    assert M.ranks_text([0, 1, 3, 4, 5, 6, 7, 9, 10, 12]) == "ranks 0, 1, 3-7, 9, 10, 12"
    assert M.ranks_text([5, 3, 4, 5]) == "ranks 3-5"  # unordered, repeated


MISSING = "cannot read 'x.npy': No such file or directory"


def test_the_same_error_on_every_rank_is_said_once() -> None:
    """Every rank reads the same missing file: one line for the root cause, one for the others
    (not one per rank)."""
    failures = [_f(r, MISSING, note="check the path") for r in (3, 0, 7, 1, 2, 6, 5, 4)]
    assert M.report(failures, 8).splitlines() == [
        f"error: rank 0 (replica 0, partition 0): {MISSING} (7 other ranks stopped)",
        "note: check the path",
        "note: ranks 1-7 failed too, with the same error",
    ]
    # the root need not be rank 0 (rank 0 read the file after the stop had reached it)
    late0 = [_f(0, MISSING, after_stop=True), *(_f(r, MISSING) for r in range(1, 8))]
    assert M.report(late0, 8).splitlines()[1:] == [
        "note: ranks 0, 2-7 failed too, with the same error"
    ]
    # one other rank keeps its (replica, partition)
    assert M.report([_f(2, MISSING), _f(5, MISSING)], 8).splitlines()[1:] == [
        "note: rank 5 (replica 1, partition 1) failed too, with the same error"
    ]


def test_other_errors_are_grouped_by_message_after_the_root_causes() -> None:
    failures = [
        _f(7, "other"),
        _f(1, "first"),
        _f(3, "other"),
        _f(2, "first", after_stop=True),
        _f(4, "lonely"),
        _f(5, "first", consequence=True),  # stopped because of the stop: not a failure of its own
        _f(6, "other"),
    ]
    assert M.report(failures, 8).splitlines() == [
        "error: rank 1 (replica 0, partition 1): first (7 other ranks stopped)",
        "note: rank 2 (replica 0, partition 2) failed too, with the same error",
        "note: ranks 3, 6, 7 failed too, each with: other",
        "note: rank 4 (replica 1, partition 0) failed too: lonely",
    ]


def test_the_abort_line() -> None:
    assert M.abort_line([2], 3.0) == (
        "error: rank 2 did not stop within 3 s of the error: ending the job with MPI_Abort\n"
    )
    assert M.abort_line([6, 0], 0.5).startswith("error: ranks 0, 6 did not stop within 0.5 s")
