"""Traces as .npz files (stablehlo_py/trace/store.py): a round trip keeps entries, summaries and
values bit for bit (bf16, f8, i4 as their bits; i1, complex, ui64 as they are), a missing value
member is tolerated and listed, and every other defect is a TraceFileError naming the file."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.trace import Trace, TraceFileError, format_trace, load_trace, save_trace
from stablehlo_py.trace.store import INDEX
from tests.unit.trace.programs import LOOP, NAMED

# one op per element type whose storage differs: bf16/f8/i4 (ml_dtypes), i1, complex, ui64
TYPED = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %b = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xbf16>
  %e = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
  %i = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xi4>
  %p = stablehlo.compare GT, %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %c = stablehlo.complex %x, %x : tensor<3xcomplex<f32>>
  %u = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xui64>
  %s = stablehlo.reduce_precision %x, format = e5m10 : tensor<3xf32>
  %z = stablehlo.slice %x [0:0] : (tensor<3xf32>) -> tensor<0xf32>
  return %s : tensor<3xf32>
}"""


def _typed_trace() -> Trace:
    trace = Trace(3)
    run(TYPED, np.array([1.5, -2, 3], np.float32), trace=trace)
    return trace


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_a_round_trip_keeps_every_value_bit_for_bit(tmp_path: Path) -> None:
    trace = _typed_trace()
    path = tmp_path / "t.npz"
    save_trace(trace, path)
    back = load_trace(path)
    assert back.keys() == trace.keys() and back.level == 3 and back.runs == trace.runs
    dtypes = [e.values[0].dtype for e in back]
    assert dtypes[:6] == [
        np.dtype(ml_dtypes.bfloat16),
        np.dtype(ml_dtypes.float8_e4m3fn),
        np.dtype(ml_dtypes.int4),
        np.dtype(np.bool_),
        np.dtype(np.complex64),
        np.dtype(np.uint64),
    ]
    for a, b in zip(trace, back, strict=True):
        assert (a.key, a.op, a.types, a.location, a.position, a.count) == (
            b.key, b.op, b.types, b.location, b.position, b.count
        )
        assert a.results == b.results
        assert all(_same_bits(u, v) for u, v in zip(a.values, b.values, strict=True))
    assert format_trace(back) == format_trace(trace)
    with np.load(path) as npz:  # ml_dtypes values stored as their bits
        assert npz["v0_0"].dtype == np.uint16 and npz["v2_0"].dtype == np.uint8


def test_level_one_stores_summaries_only_at_the_path_given(tmp_path: Path) -> None:
    trace = Trace()
    run(LOOP, np.ones(2, np.float32), trace=trace)
    save_trace(trace, tmp_path / "t.trace", compress=True)
    assert [p.name for p in tmp_path.iterdir()] == ["t.trace"]
    with np.load(tmp_path / "t.trace") as npz:
        assert npz.files == [INDEX]
    back = load_trace(tmp_path / "t.trace")
    assert [e.count for e in back] == [e.count for e in trace]
    assert back["@main/stablehlo.multiply#0"].results == trace["@main/stablehlo.multiply#0"].results
    assert back.first_nonfinite() is None


def _rewrite(src: Path, dst: Path, *, drop: str = "", index: str | None = None) -> None:
    """`src` copied to `dst` without member `drop`, with `index` as the index's JSON text."""
    arrays = dict(np.load(src))
    arrays.pop(drop, None)
    if index is not None:
        arrays[INDEX] = np.array(index)
    np.savez(dst, **arrays)


def test_a_missing_value_member_is_tolerated_and_listed(tmp_path: Path) -> None:
    save_trace(_typed_trace(), tmp_path / "t.npz")
    _rewrite(tmp_path / "t.npz", tmp_path / "u.npz", drop="v1_0")
    back = load_trace(tmp_path / "u.npz")
    assert back.missing == ["@main/stablehlo.convert#1 result 0 (v1_0)"]
    assert back["@main/stablehlo.convert#1"].values == [None]
    assert back["@main/stablehlo.convert#1"].results[0].dtype == "f8E4M3FN"


def _index_of(path: Path) -> dict:
    with np.load(path) as npz:
        return json.loads(str(npz[INDEX][()]))


def _entry0(d: dict, **changes: object) -> str:
    """The index `d` with its first entry changed, as JSON text."""
    return json.dumps({**d, "entries": [{**d["entries"][0], **changes}]})


def _bad_shape(d: dict) -> str:
    summary = {**d["entries"][0]["results"][0], "shape": [4]}
    return _entry0(d, results=[summary])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: "{not json", "its __index__ member is not JSON text"),
        (lambda d: json.dumps([1]), "not a stablehlo-py trace index"),
        (
            lambda d: json.dumps({**d, "version": 99}),
            "trace format version 99; this stablehlo-py reads up to 1",
        ),
        (
            lambda d: json.dumps({**d, "entries": [{"op": "x"}]}),
            "malformed __index__: KeyError: 'key'",
        ),
        (
            lambda d: _entry0(d, values=[{"member": "v0_0", "dtype": "f99"}]),
            "value v0_0 of @main/stablehlo.convert#0 has element type 'f99'",
        ),
        (
            lambda d: _entry0(d, values=[{"member": "v0_0", "dtype": "f32"}]),
            r"member v0_0 \(@main/stablehlo.convert#0\) holds uint16 values, not f32 or its bits",
        ),
        (
            _bad_shape,
            r"member v0_0 \(@main/stablehlo.convert#0\) has shape \(3,\), its summary says \(4,\)",
        ),
    ],
)
def test_a_damaged_index_is_a_clear_error(
    tmp_path: Path, edit: Callable[[dict], str], message: str
) -> None:
    save_trace(_typed_trace(), tmp_path / "t.npz")
    _rewrite(tmp_path / "t.npz", tmp_path / "u.npz", index=edit(_index_of(tmp_path / "t.npz")))
    with pytest.raises(TraceFileError, match=message) as info:
        load_trace(tmp_path / "u.npz")
    assert str(tmp_path / "u.npz") in str(info.value)


def test_files_that_are_not_traces(tmp_path: Path) -> None:
    with pytest.raises(TraceFileError, match="no trace file .*nothing.npz"):
        load_trace(tmp_path / "nothing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip file at all")
    with pytest.raises(TraceFileError, match="cannot read .*junk.npz as a trace"):
        load_trace(tmp_path / "junk.npz")
    np.save(tmp_path / "one.npy", np.zeros(2))
    with pytest.raises(TraceFileError, match="one.npy is a single .npy array, not a trace"):
        load_trace(tmp_path / "one.npy")
    np.savez(tmp_path / "plain.npz", result0=np.zeros(2))
    with pytest.raises(TraceFileError, match="plain.npz has no __index__ member") as info:
        load_trace(tmp_path / "plain.npz")
    assert "--trace-output" in info.value.render()


def test_a_corrupt_member_is_a_clear_error(tmp_path: Path) -> None:
    save_trace(_typed_trace(), tmp_path / "t.npz")
    with zipfile.ZipFile(tmp_path / "t.npz") as z, zipfile.ZipFile(tmp_path / "u.npz", "w") as out:
        for info in z.infolist():
            data = z.read(info)
            out.writestr(info, data[:20] if info.filename == "v0_0.npy" else data)
    message = r"u.npz: cannot read member v0_0 \(@main/stablehlo.convert#0\)"
    with pytest.raises(TraceFileError, match=message):
        load_trace(tmp_path / "u.npz")


def test_writing_where_it_cannot_is_a_clear_error(tmp_path: Path) -> None:
    trace = Trace()
    run(NAMED, np.zeros(3, np.float32), trace=trace)
    with pytest.raises(TraceFileError, match="cannot write the trace to .*missing_dir"):
        save_trace(trace, tmp_path / "missing_dir" / "t.npz")
