"""`.npy`/`.npz` reading (stablehlo_py/io/npy.py) and the storage table it shares with the probe
writer (interpreter/storage.py): memory maps, stored forms decoded by type, errors naming files."""

from __future__ import annotations

import struct
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.interpreter.storage import decode, storable, stored_forms
from stablehlo_py.io.errors import InputError
from stablehlo_py.io.npy import Npz, read_npy, typed, write_npy, write_npz

BF16 = np.dtype(ml_dtypes.bfloat16)


def _raw_npy(path: Path, descr: str, shape: tuple[int, ...], data: bytes) -> None:
    """An .npy file with any descr (NumPy refuses to write ones it does not know)."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data)


def test_npy_is_memory_mapped_read_only(tmp_path: Path) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "a.npy", a)
    got = read_npy(tmp_path / "a.npy")
    assert isinstance(got.base, np.memmap) or isinstance(getattr(got.base, "base", None), np.memmap)
    assert not got.flags.writeable
    np.testing.assert_array_equal(got, a)


def test_fortran_order_big_endian_and_empty(tmp_path: Path) -> None:
    f = np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3))
    np.save(tmp_path / "f.npy", f)
    np.testing.assert_array_equal(read_npy(tmp_path / "f.npy"), f)
    np.save(tmp_path / "b.npy", np.array([1.5, -2], dtype=">f4"))
    big = read_npy(tmp_path / "b.npy")
    assert big.dtype == np.float32 and big.dtype.isnative and big.tolist() == [1.5, -2.0]
    np.save(tmp_path / "e.npy", np.zeros((0, 3), np.int8))
    assert read_npy(tmp_path / "e.npy").shape == (0, 3)


@pytest.mark.parametrize(
    "content,message",
    [
        (b"hello", "not a NumPy .npy file"),
        (b"PK\x03\x04rest", "is an .npz archive"),
    ],
)
def test_not_npy(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "x.npy").write_bytes(content)
    with pytest.raises(InputError, match=message) as e:
        read_npy(tmp_path / "x.npy")
    assert str(tmp_path / "x.npy") in str(e.value) and "\n" not in str(e.value)


def test_missing_truncated_pickled(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read .*nope.npy.*No such file"):
        read_npy(tmp_path / "nope.npy")
    np.save(tmp_path / "t.npy", np.arange(100, dtype=np.float64))
    data = (tmp_path / "t.npy").read_bytes()
    (tmp_path / "t.npy").write_bytes(data[:-8])
    with pytest.raises(InputError, match=r"truncated: .*800 bytes of data\) but it holds 792"):
        read_npy(tmp_path / "t.npy")
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="Python objects"):
        read_npy(tmp_path / "o.npy")


def test_int128_complex_f64_reads_as_raw_bytes(tmp_path: Path) -> None:
    # upstream's interpreter writes complex<f64> under descr '<i16' (an __int128 per element)
    value = np.array([1 + 2j, -3.5 + 0.25j], np.complex128)
    _raw_npy(tmp_path / "c.npy", "<i16", (2,), value.tobytes())
    stored = read_npy(tmp_path / "c.npy")
    assert stored.dtype == np.dtype("V16")
    assert decode(stored, np.complex128) is None  # not a form of our own writer
    np.testing.assert_array_equal(decode(stored, np.complex128, foreign=True), value)


def test_header_is_parsed_not_evaluated(tmp_path: Path) -> None:
    # the header is read as a literal: code in it is refused, never run
    header = b"{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': (1,)}\n"
    (tmp_path / "bad.npy").write_bytes(
        b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0\0\x80?"
    )
    with pytest.raises(InputError, match="malformed .npy header"):
        read_npy(tmp_path / "bad.npy")
    _raw_npy(tmp_path / "ok.npy", "<f4", (1,), b"\0\0\x80?")
    assert read_npy(tmp_path / "ok.npy").tolist() == [1.0]


def test_npz_members_stored_are_mapped_and_compressed_are_read(tmp_path: Path) -> None:
    a, b = np.arange(5, dtype=np.int32), np.ones((2, 2), np.float64)
    np.savez(tmp_path / "s.npz", a=a, b=b)
    np.savez_compressed(tmp_path / "c.npz", a=a, b=b)
    for name in ("s.npz", "c.npz"):
        npz = Npz(tmp_path / name)
        assert sorted(npz) == ["a", "b"] and len(npz) == 2
        np.testing.assert_array_equal(npz["a"], a)
        np.testing.assert_array_equal(npz["b"], b)
    stored = Npz(tmp_path / "s.npz")["a"]
    assert not stored.flags.writeable and not stored.flags.owndata  # a view of the mapped file


def test_bad_npz(tmp_path: Path) -> None:
    (tmp_path / "g.npz").write_text("garbage")
    with pytest.raises(InputError, match="not an .npz archive") as e:
        Npz(tmp_path / "g.npz")
    assert str(e.value).startswith(f"{tmp_path / 'g.npz'}: error:")
    with pytest.raises(InputError, match="cannot read"):
        Npz(tmp_path / "missing.npz")


def test_storable_and_decode_share_one_table() -> None:
    x = np.array([1.5, -2, 3], BF16)
    stored = storable(x)
    assert stored.dtype == np.uint16
    np.testing.assert_array_equal(decode(stored, BF16), x)
    assert decode(x.view("V2"), BF16) is not None  # np.save of an ml_dtypes array: raw bytes
    i4 = np.array([-8, 7], ml_dtypes.int4)
    assert storable(i4).dtype == np.uint8 and decode(storable(i4), i4.dtype).tolist() == [-8, 7]
    # numpy-native values are stored as they are
    for v in (np.array([True]), np.array([1j], np.complex64), np.array([1], np.float16)):
        assert storable(v) is v and decode(v, v.dtype) is v
    # upstream's forms only with foreign=True (a file whose type is known from elsewhere)
    assert decode(np.array([1, 0], np.int8), np.bool_) is None
    assert decode(np.array([1, 0], np.int8), np.bool_, foreign=True).tolist() == [True, False]
    assert decode(np.array([1], np.uint64), np.int64) is None
    assert np.uint64 in stored_forms(np.int64, foreign=True)
    c = np.array([1 + 2j], np.complex64)
    assert decode(c.view(np.float64), np.complex64, foreign=True).tolist() == [1 + 2j]
    with pytest.raises(Exception, match="element 1 is 2, not 0 or 1"):
        decode(np.array([1, 2], np.int8), np.bool_, foreign=True, what="p.npy")


def test_typed_names_the_file_its_dtype_and_the_target(tmp_path: Path) -> None:
    stored = np.zeros(2, np.float64)
    with pytest.raises(InputError) as e:
        typed(stored, np.dtype(np.float32), where="x.npy", target="parameter 0 of @main is tensor<2xf32>")
    text = str(e.value)
    assert text == (
        "x.npy: error: holds float64 but parameter 0 of @main is tensor<2xf32>: save it with that "
        "element type (np.asarray(a, np.float32))"
    )
    with pytest.raises(InputError, match=r"a.astype\(ml_dtypes.bfloat16\)"):
        typed(np.zeros(2, np.float32), BF16, where="x.npy", target="t")


def test_write_and_read_back(tmp_path: Path) -> None:
    x = np.array([[1, 2]], ml_dtypes.float8_e4m3fn)
    write_npy(tmp_path / "x.npy", x)
    assert np.load(tmp_path / "x.npy").dtype == np.uint8  # bits, readable by any NumPy
    np.testing.assert_array_equal(typed(read_npy(tmp_path / "x.npy"), x.dtype, where="", target=""), x)
    write_npz(tmp_path / "m.npz", {"a": x, "b": np.array(True)})
    m = Npz(tmp_path / "m.npz")
    assert m["b"].dtype == np.bool_ and m["a"].dtype == np.uint8
