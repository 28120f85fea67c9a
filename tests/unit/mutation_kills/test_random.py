"""stablehlo_py/semantics/random.py: rng_bit_generator bit for bit against XLA, rng against numpy's
generator it documents, and the refusals word for word.

XLA_VECTORS were computed by XLA:CPU (a StableHLO module with one ``rng_bit_generator``, compiled by
jaxlib 0.10.2 and 0.12.0.1 alike; XLA returns signed and float outputs as their unsigned bit
patterns, so each row holds the first 16 hex digits of the SHA-256 of the output's bytes) and the
new state XLA returned.  The shapes cover XLA's ``SplitShapeIntoHalves`` (first even dimension, else
the first largest one; scalars), the counter wrapping past 2**64 (``0x...FFFD``), Philox's carry into
the counter's high word (3-word states) and every generator width (8/16 bits: the low bits of the
32-bit generator; 64 bits: one Threefry block / two Philox words per element).
"""

from __future__ import annotations

import hashlib
import warnings

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.semantics.random import philox4x32, rng, rng_bit_generator, threefry2x32

U64 = np.uint64
TYPES = {
    "ui8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "ui32": np.dtype(np.uint32),
    "f32": np.dtype(np.float32),
    "ui64": np.dtype(np.uint64),
    "f64": np.dtype(np.float64),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
}

# (algorithm, initial state, result shape, element type, XLA's output state, sha256(output)[:16])
XLA_VECTORS = [
    ("THREE_FRY", [0x5, 0xb], (), "ui32", [5, 12], "8898328cc703e927"),
    ("THREE_FRY", [0x5, 0xb], (), "ui64", [5, 12], "bcd92b3bc226193c"),
    ("THREE_FRY", [0x5, 0xb], (), "ui8", [5, 12], "414a21e525a759e3"),
    ("THREE_FRY", [0x5, 0xb], (), "i16", [5, 12], "332ff0b2260fff7d"),
    ("THREE_FRY", [0x5, 0xb], (), "bf16", [5, 12], "332ff0b2260fff7d"),
    ("THREE_FRY", [0x5, 0xb], (), "f32", [5, 12], "8898328cc703e927"),
    ("THREE_FRY", [0x5, 0xb], (), "f64", [5, 12], "bcd92b3bc226193c"),
    ("THREE_FRY", [0x5, 0xb], (), "f8E5M2", [5, 12], "414a21e525a759e3"),
    ("THREE_FRY", [0x5, 0xb], (1,), "ui32", [5, 12], "8898328cc703e927"),
    ("THREE_FRY", [0x5, 0xb], (1,), "ui64", [5, 12], "bcd92b3bc226193c"),
    ("THREE_FRY", [0x5, 0xb], (3,), "ui32", [5, 13], "11fbaa6492e5f6e0"),
    ("THREE_FRY", [0x5, 0xb], (3,), "ui64", [5, 14], "cfb54fab9b9c7f56"),
    ("THREE_FRY", [0x5, 0xb], (7,), "ui32", [5, 15], "444363cd45ad62ea"),
    ("THREE_FRY", [0x5, 0xb], (7,), "ui64", [5, 18], "57aae0d95a9c8cb5"),
    ("THREE_FRY", [0x5, 0xb], (7,), "ui8", [5, 15], "a23dc59da8fc9388"),
    ("THREE_FRY", [0x5, 0xb], (7,), "i16", [5, 15], "54e2f7f1027124d7"),
    ("THREE_FRY", [0x5, 0xb], (7,), "bf16", [5, 15], "54e2f7f1027124d7"),
    ("THREE_FRY", [0x5, 0xb], (7,), "f32", [5, 15], "444363cd45ad62ea"),
    ("THREE_FRY", [0x5, 0xb], (7,), "f64", [5, 18], "57aae0d95a9c8cb5"),
    ("THREE_FRY", [0x5, 0xb], (7,), "f8E5M2", [5, 15], "a23dc59da8fc9388"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "ui32", [5, 20], "e04731f7148004a8"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "ui64", [5, 26], "5174d78d8ca65f43"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "ui8", [5, 20], "0b828b046a8ecedf"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "i16", [5, 20], "a29eabd2f43b3182"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "bf16", [5, 20], "a29eabd2f43b3182"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "f32", [5, 20], "e04731f7148004a8"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "f64", [5, 26], "5174d78d8ca65f43"),
    ("THREE_FRY", [0x5, 0xb], (3, 5), "f8E5M2", [5, 20], "0b828b046a8ecedf"),
    ("THREE_FRY", [0x5, 0xb], (3, 5, 5), "ui32", [5, 56], "2daf289ad7768f2e"),
    ("THREE_FRY", [0x5, 0xb], (3, 5, 5), "ui64", [5, 86], "7152f711fb01d26b"),
    ("THREE_FRY", [0x5, 0xb], (5, 3, 5), "ui32", [5, 56], "b696098b40f5daab"),
    ("THREE_FRY", [0x5, 0xb], (5, 3, 5), "ui64", [5, 86], "7152f711fb01d26b"),
    ("THREE_FRY", [0x5, 0xb], (4, 3), "ui32", [5, 17], "ed6e5d3b2d357ad7"),
    ("THREE_FRY", [0x5, 0xb], (4, 3), "ui64", [5, 23], "732fba4cc329d2ff"),
    ("THREE_FRY", [0x5, 0xb], (3, 4), "ui32", [5, 17], "a800e0d50b5a1a14"),
    ("THREE_FRY", [0x5, 0xb], (3, 4), "ui64", [5, 23], "732fba4cc329d2ff"),
    ("THREE_FRY", [0x5, 0xb], (2, 0), "ui32", [5, 11], "e3b0c44298fc1c14"),
    ("THREE_FRY", [0x5, 0xb], (2, 0), "ui64", [5, 11], "e3b0c44298fc1c14"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui32", [81985529216486895, 18446744073709551614], "a5debaec690ab047"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui64", [81985529216486895, 18446744073709551614], "97a6c1dc378d154e"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui8", [81985529216486895, 18446744073709551614], "d2e2adf7177b7a8a"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "i16", [81985529216486895, 18446744073709551614], "61d6273ede231919"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "bf16", [81985529216486895, 18446744073709551614], "61d6273ede231919"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "f32", [81985529216486895, 18446744073709551614], "a5debaec690ab047"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "f64", [81985529216486895, 18446744073709551614], "97a6c1dc378d154e"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (), "f8E5M2", [81985529216486895, 18446744073709551614], "d2e2adf7177b7a8a"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (1,), "ui32", [81985529216486895, 18446744073709551614], "a5debaec690ab047"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (1,), "ui64", [81985529216486895, 18446744073709551614], "97a6c1dc378d154e"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3,), "ui32", [81985529216486895, 18446744073709551615], "9d25157d97250dd9"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3,), "ui64", [81985529216486895, 0], "0006982d193d64f9"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui32", [81985529216486895, 1], "fc3692898da4c7a4"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui64", [81985529216486895, 4], "03cf4710fe77611d"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui8", [81985529216486895, 1], "63402feabcb7f65b"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "i16", [81985529216486895, 1], "efd62cdf522f9eb2"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "bf16", [81985529216486895, 1], "efd62cdf522f9eb2"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f32", [81985529216486895, 1], "fc3692898da4c7a4"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f64", [81985529216486895, 4], "03cf4710fe77611d"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f8E5M2", [81985529216486895, 1], "63402feabcb7f65b"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui32", [81985529216486895, 6], "df85093f20889c79"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui64", [81985529216486895, 12], "07c5dc89e05ae0ef"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui8", [81985529216486895, 6], "bd6c6b900b028509"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "i16", [81985529216486895, 6], "fc81d5314267ca5e"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "bf16", [81985529216486895, 6], "fc81d5314267ca5e"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f32", [81985529216486895, 6], "df85093f20889c79"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f64", [81985529216486895, 12], "07c5dc89e05ae0ef"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f8E5M2", [81985529216486895, 6], "bd6c6b900b028509"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5, 5), "ui32", [81985529216486895, 42], "f8eef5f52bcb2712"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5, 5), "ui64", [81985529216486895, 72], "4f3cfe91293baad5"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (5, 3, 5), "ui32", [81985529216486895, 42], "9c287178af443d88"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (5, 3, 5), "ui64", [81985529216486895, 72], "4f3cfe91293baad5"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (4, 3), "ui32", [81985529216486895, 3], "9fef703f7a6b1c4a"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (4, 3), "ui64", [81985529216486895, 9], "fdb15042608ffdf3"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 4), "ui32", [81985529216486895, 3], "7f22eba9921b6d8b"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (3, 4), "ui64", [81985529216486895, 9], "fdb15042608ffdf3"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (2, 0), "ui32", [81985529216486895, 18446744073709551613], "e3b0c44298fc1c14"),
    ("THREE_FRY", [0x123456789abcdef, 0xfffffffffffffffd], (2, 0), "ui64", [81985529216486895, 18446744073709551613], "e3b0c44298fc1c14"),
    ("PHILOX", [0x5, 0xb], (), "ui32", [5, 12], "5d85eba437793e15"),
    ("PHILOX", [0x5, 0xb], (), "ui64", [5, 12], "1aabc6de48de3fcf"),
    ("PHILOX", [0x5, 0xb], (), "ui8", [5, 12], "28969cdfa74a12c8"),
    ("PHILOX", [0x5, 0xb], (), "i16", [5, 12], "695327032ef5bbfe"),
    ("PHILOX", [0x5, 0xb], (), "bf16", [5, 12], "695327032ef5bbfe"),
    ("PHILOX", [0x5, 0xb], (), "f32", [5, 12], "5d85eba437793e15"),
    ("PHILOX", [0x5, 0xb], (), "f64", [5, 12], "1aabc6de48de3fcf"),
    ("PHILOX", [0x5, 0xb], (), "f8E5M2", [5, 12], "28969cdfa74a12c8"),
    ("PHILOX", [0x5, 0xb], (1,), "ui32", [5, 12], "5d85eba437793e15"),
    ("PHILOX", [0x5, 0xb], (1,), "ui64", [5, 12], "1aabc6de48de3fcf"),
    ("PHILOX", [0x5, 0xb], (3,), "ui32", [5, 12], "096dbdc18f1793fc"),
    ("PHILOX", [0x5, 0xb], (3,), "ui64", [5, 13], "c735fa64f42893e9"),
    ("PHILOX", [0x5, 0xb], (7,), "ui32", [5, 13], "9586051c4c0c2c32"),
    ("PHILOX", [0x5, 0xb], (7,), "ui64", [5, 15], "bdb30604c2ad746f"),
    ("PHILOX", [0x5, 0xb], (7,), "ui8", [5, 13], "9cc48b276b1ad060"),
    ("PHILOX", [0x5, 0xb], (7,), "i16", [5, 13], "00ae38708573557a"),
    ("PHILOX", [0x5, 0xb], (7,), "bf16", [5, 13], "00ae38708573557a"),
    ("PHILOX", [0x5, 0xb], (7,), "f32", [5, 13], "9586051c4c0c2c32"),
    ("PHILOX", [0x5, 0xb], (7,), "f64", [5, 15], "bdb30604c2ad746f"),
    ("PHILOX", [0x5, 0xb], (7,), "f8E5M2", [5, 13], "9cc48b276b1ad060"),
    ("PHILOX", [0x5, 0xb], (3, 5), "ui32", [5, 15], "3072c97de65c15b1"),
    ("PHILOX", [0x5, 0xb], (3, 5), "ui64", [5, 19], "ac7854fd4c2d8185"),
    ("PHILOX", [0x5, 0xb], (3, 5), "ui8", [5, 15], "a3612a7a1932d6ff"),
    ("PHILOX", [0x5, 0xb], (3, 5), "i16", [5, 15], "44eb6826c94308a3"),
    ("PHILOX", [0x5, 0xb], (3, 5), "bf16", [5, 15], "44eb6826c94308a3"),
    ("PHILOX", [0x5, 0xb], (3, 5), "f32", [5, 15], "3072c97de65c15b1"),
    ("PHILOX", [0x5, 0xb], (3, 5), "f64", [5, 19], "ac7854fd4c2d8185"),
    ("PHILOX", [0x5, 0xb], (3, 5), "f8E5M2", [5, 15], "a3612a7a1932d6ff"),
    ("PHILOX", [0x5, 0xb], (3, 5, 5), "ui32", [5, 30], "7f89dd9ee158a73c"),
    ("PHILOX", [0x5, 0xb], (3, 5, 5), "ui64", [5, 49], "ba2445d8036a2402"),
    ("PHILOX", [0x5, 0xb], (5, 3, 5), "ui32", [5, 30], "7f89dd9ee158a73c"),
    ("PHILOX", [0x5, 0xb], (5, 3, 5), "ui64", [5, 49], "ba2445d8036a2402"),
    ("PHILOX", [0x5, 0xb], (4, 3), "ui32", [5, 14], "d93c10896e9445ee"),
    ("PHILOX", [0x5, 0xb], (4, 3), "ui64", [5, 17], "7d8491ef058f886a"),
    ("PHILOX", [0x5, 0xb], (3, 4), "ui32", [5, 14], "d93c10896e9445ee"),
    ("PHILOX", [0x5, 0xb], (3, 4), "ui64", [5, 17], "7d8491ef058f886a"),
    ("PHILOX", [0x5, 0xb], (2, 0), "ui32", [5, 11], "e3b0c44298fc1c14"),
    ("PHILOX", [0x5, 0xb], (2, 0), "ui64", [5, 11], "e3b0c44298fc1c14"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui32", [81985529216486895, 18446744073709551614], "a5f67f5569a388a4"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui64", [81985529216486895, 18446744073709551614], "f93cfe138566a4ad"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "ui8", [81985529216486895, 18446744073709551614], "cd0aa9856147b6c5"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "i16", [81985529216486895, 18446744073709551614], "00d060262511fc08"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "bf16", [81985529216486895, 18446744073709551614], "00d060262511fc08"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "f32", [81985529216486895, 18446744073709551614], "a5f67f5569a388a4"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "f64", [81985529216486895, 18446744073709551614], "f93cfe138566a4ad"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (), "f8E5M2", [81985529216486895, 18446744073709551614], "cd0aa9856147b6c5"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (1,), "ui32", [81985529216486895, 18446744073709551614], "a5f67f5569a388a4"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (1,), "ui64", [81985529216486895, 18446744073709551614], "f93cfe138566a4ad"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3,), "ui32", [81985529216486895, 18446744073709551614], "73aac978a94a8a1a"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3,), "ui64", [81985529216486895, 18446744073709551615], "9efa7fe91e00b64e"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui32", [81985529216486895, 18446744073709551615], "6a8ac9e9aad2d450"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui64", [81985529216486895, 1], "0013c779f4a93f22"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "ui8", [81985529216486895, 18446744073709551615], "9ab37d5f7f139ca6"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "i16", [81985529216486895, 18446744073709551615], "41b75d38c86ec108"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "bf16", [81985529216486895, 18446744073709551615], "41b75d38c86ec108"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f32", [81985529216486895, 18446744073709551615], "6a8ac9e9aad2d450"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f64", [81985529216486895, 1], "0013c779f4a93f22"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (7,), "f8E5M2", [81985529216486895, 18446744073709551615], "9ab37d5f7f139ca6"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui32", [81985529216486895, 1], "87989a3c97cd13c9"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui64", [81985529216486895, 5], "3806a7c0ffdcba68"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "ui8", [81985529216486895, 1], "d47d9f65dddcd692"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "i16", [81985529216486895, 1], "afa14d96bcb33395"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "bf16", [81985529216486895, 1], "afa14d96bcb33395"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f32", [81985529216486895, 1], "87989a3c97cd13c9"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f64", [81985529216486895, 5], "3806a7c0ffdcba68"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5), "f8E5M2", [81985529216486895, 1], "d47d9f65dddcd692"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5, 5), "ui32", [81985529216486895, 16], "3dd5638206695d21"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 5, 5), "ui64", [81985529216486895, 35], "710352e12a4fc751"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (5, 3, 5), "ui32", [81985529216486895, 16], "3dd5638206695d21"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (5, 3, 5), "ui64", [81985529216486895, 35], "710352e12a4fc751"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (4, 3), "ui32", [81985529216486895, 0], "c080f4b0a155c666"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (4, 3), "ui64", [81985529216486895, 3], "5001c38fc62caa79"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 4), "ui32", [81985529216486895, 0], "c080f4b0a155c666"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (3, 4), "ui64", [81985529216486895, 3], "5001c38fc62caa79"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (2, 0), "ui32", [81985529216486895, 18446744073709551613], "e3b0c44298fc1c14"),
    ("PHILOX", [0x123456789abcdef, 0xfffffffffffffffd], (2, 0), "ui64", [81985529216486895, 18446744073709551613], "e3b0c44298fc1c14"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "ui32", [7, 18446744073709551615, 9], "b24faaf588e4aef2"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "ui64", [7, 18446744073709551615, 9], "e39ea548115a0ad6"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "ui8", [7, 18446744073709551615, 9], "13598656f10fa962"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "i16", [7, 18446744073709551615, 9], "efe263a703d1667f"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "bf16", [7, 18446744073709551615, 9], "efe263a703d1667f"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "f32", [7, 18446744073709551615, 9], "b24faaf588e4aef2"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "f64", [7, 18446744073709551615, 9], "e39ea548115a0ad6"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (), "f8E5M2", [7, 18446744073709551615, 9], "13598656f10fa962"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (1,), "ui32", [7, 18446744073709551615, 9], "b24faaf588e4aef2"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (1,), "ui64", [7, 18446744073709551615, 9], "e39ea548115a0ad6"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3,), "ui32", [7, 18446744073709551615, 9], "838b8fa85802c241"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3,), "ui64", [7, 0, 10], "074dd3467eb5dac9"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "ui32", [7, 0, 10], "ce0b7e96ae5ddf63"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "ui64", [7, 2, 10], "911736d34d417548"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "ui8", [7, 0, 10], "5260d8e598ac2f45"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "i16", [7, 0, 10], "26ca49e8e8e1e319"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "bf16", [7, 0, 10], "26ca49e8e8e1e319"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "f32", [7, 0, 10], "ce0b7e96ae5ddf63"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "f64", [7, 2, 10], "911736d34d417548"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (7,), "f8E5M2", [7, 0, 10], "5260d8e598ac2f45"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "ui32", [7, 2, 10], "842510336a87ef13"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "ui64", [7, 6, 10], "26ad7822a10acedd"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "ui8", [7, 2, 10], "484038dc1dd87c97"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "i16", [7, 2, 10], "12401e6a2871eae0"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "bf16", [7, 2, 10], "12401e6a2871eae0"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "f32", [7, 2, 10], "842510336a87ef13"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "f64", [7, 6, 10], "26ad7822a10acedd"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5), "f8E5M2", [7, 2, 10], "484038dc1dd87c97"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5, 5), "ui32", [7, 17, 10], "70f1289a90ea7fbe"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 5, 5), "ui64", [7, 36, 10], "a73317b8cf059e88"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (5, 3, 5), "ui32", [7, 17, 10], "70f1289a90ea7fbe"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (5, 3, 5), "ui64", [7, 36, 10], "a73317b8cf059e88"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (4, 3), "ui32", [7, 1, 10], "ef60006bac70212b"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (4, 3), "ui64", [7, 4, 10], "ae1d3b9ca395fce2"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 4), "ui32", [7, 1, 10], "ef60006bac70212b"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (3, 4), "ui64", [7, 4, 10], "ae1d3b9ca395fce2"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (2, 0), "ui32", [7, 18446744073709551614, 9], "e3b0c44298fc1c14"),
    ("PHILOX", [0x7, 0xfffffffffffffffe, 0x9], (2, 0), "ui64", [7, 18446744073709551614, 9], "e3b0c44298fc1c14"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "ui32", [7, 0, 0], "03abcdc9e5eac3a0"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "ui64", [7, 0, 0], "2e70789f7b76a8da"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "ui8", [7, 0, 0], "fcb5f40df9be6bae"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "i16", [7, 0, 0], "e9fe8ee5ada9c8bf"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "bf16", [7, 0, 0], "e9fe8ee5ada9c8bf"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "f32", [7, 0, 0], "03abcdc9e5eac3a0"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "f64", [7, 0, 0], "2e70789f7b76a8da"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (), "f8E5M2", [7, 0, 0], "fcb5f40df9be6bae"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (1,), "ui32", [7, 0, 0], "03abcdc9e5eac3a0"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (1,), "ui64", [7, 0, 0], "2e70789f7b76a8da"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3,), "ui32", [7, 0, 0], "52fa3da7f302cac6"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3,), "ui64", [7, 1, 0], "fa24bb5fffa97c4f"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "ui32", [7, 1, 0], "cd660d160a163d7b"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "ui64", [7, 3, 0], "57e7801d566d47fb"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "ui8", [7, 1, 0], "3ae8d83ef8b02775"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "i16", [7, 1, 0], "ae4ba8cad8a13dcb"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "bf16", [7, 1, 0], "ae4ba8cad8a13dcb"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "f32", [7, 1, 0], "cd660d160a163d7b"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "f64", [7, 3, 0], "57e7801d566d47fb"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (7,), "f8E5M2", [7, 1, 0], "3ae8d83ef8b02775"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "ui32", [7, 3, 0], "f67bd8b87e5c42a8"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "ui64", [7, 7, 0], "f200925a366ee373"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "ui8", [7, 3, 0], "1cba5efa3406c4f7"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "i16", [7, 3, 0], "d859d579bd88269a"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "bf16", [7, 3, 0], "d859d579bd88269a"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "f32", [7, 3, 0], "f67bd8b87e5c42a8"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "f64", [7, 7, 0], "f200925a366ee373"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5), "f8E5M2", [7, 3, 0], "1cba5efa3406c4f7"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5, 5), "ui32", [7, 18, 0], "2bfe0e6169ed83a4"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 5, 5), "ui64", [7, 37, 0], "422387840db5a61e"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (5, 3, 5), "ui32", [7, 18, 0], "2bfe0e6169ed83a4"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (5, 3, 5), "ui64", [7, 37, 0], "422387840db5a61e"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (4, 3), "ui32", [7, 2, 0], "14a76ab1399d267c"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (4, 3), "ui64", [7, 5, 0], "0a44aff3757492a2"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 4), "ui32", [7, 2, 0], "14a76ab1399d267c"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (3, 4), "ui64", [7, 5, 0], "0a44aff3757492a2"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (2, 0), "ui32", [7, 18446744073709551615, 18446744073709551615], "e3b0c44298fc1c14"),
    ("PHILOX", [0x7, 0xffffffffffffffff, 0xffffffffffffffff], (2, 0), "ui64", [7, 18446744073709551615, 18446744073709551615], "e3b0c44298fc1c14"),
    ("DEFAULT", [0x5, 0xb], (), "ui32", [5, 12], "5d85eba437793e15"),
    ("DEFAULT", [0x5, 0xb], (), "ui64", [5, 12], "1aabc6de48de3fcf"),
    ("DEFAULT", [0x5, 0xb], (), "ui8", [5, 12], "28969cdfa74a12c8"),
    ("DEFAULT", [0x5, 0xb], (), "i16", [5, 12], "695327032ef5bbfe"),
    ("DEFAULT", [0x5, 0xb], (), "bf16", [5, 12], "695327032ef5bbfe"),
    ("DEFAULT", [0x5, 0xb], (), "f32", [5, 12], "5d85eba437793e15"),
    ("DEFAULT", [0x5, 0xb], (), "f64", [5, 12], "1aabc6de48de3fcf"),
    ("DEFAULT", [0x5, 0xb], (), "f8E5M2", [5, 12], "28969cdfa74a12c8"),
    ("DEFAULT", [0x5, 0xb], (1,), "ui32", [5, 12], "5d85eba437793e15"),
    ("DEFAULT", [0x5, 0xb], (1,), "ui64", [5, 12], "1aabc6de48de3fcf"),
    ("DEFAULT", [0x5, 0xb], (3,), "ui32", [5, 12], "096dbdc18f1793fc"),
    ("DEFAULT", [0x5, 0xb], (3,), "ui64", [5, 13], "c735fa64f42893e9"),
    ("DEFAULT", [0x5, 0xb], (7,), "ui32", [5, 13], "9586051c4c0c2c32"),
    ("DEFAULT", [0x5, 0xb], (7,), "ui64", [5, 15], "bdb30604c2ad746f"),
    ("DEFAULT", [0x5, 0xb], (7,), "ui8", [5, 13], "9cc48b276b1ad060"),
    ("DEFAULT", [0x5, 0xb], (7,), "i16", [5, 13], "00ae38708573557a"),
    ("DEFAULT", [0x5, 0xb], (7,), "bf16", [5, 13], "00ae38708573557a"),
    ("DEFAULT", [0x5, 0xb], (7,), "f32", [5, 13], "9586051c4c0c2c32"),
    ("DEFAULT", [0x5, 0xb], (7,), "f64", [5, 15], "bdb30604c2ad746f"),
    ("DEFAULT", [0x5, 0xb], (7,), "f8E5M2", [5, 13], "9cc48b276b1ad060"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "ui32", [5, 15], "3072c97de65c15b1"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "ui64", [5, 19], "ac7854fd4c2d8185"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "ui8", [5, 15], "a3612a7a1932d6ff"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "i16", [5, 15], "44eb6826c94308a3"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "bf16", [5, 15], "44eb6826c94308a3"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "f32", [5, 15], "3072c97de65c15b1"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "f64", [5, 19], "ac7854fd4c2d8185"),
    ("DEFAULT", [0x5, 0xb], (3, 5), "f8E5M2", [5, 15], "a3612a7a1932d6ff"),
    ("DEFAULT", [0x5, 0xb], (3, 5, 5), "ui32", [5, 30], "7f89dd9ee158a73c"),
    ("DEFAULT", [0x5, 0xb], (3, 5, 5), "ui64", [5, 49], "ba2445d8036a2402"),
    ("DEFAULT", [0x5, 0xb], (5, 3, 5), "ui32", [5, 30], "7f89dd9ee158a73c"),
    ("DEFAULT", [0x5, 0xb], (5, 3, 5), "ui64", [5, 49], "ba2445d8036a2402"),
    ("DEFAULT", [0x5, 0xb], (4, 3), "ui32", [5, 14], "d93c10896e9445ee"),
    ("DEFAULT", [0x5, 0xb], (4, 3), "ui64", [5, 17], "7d8491ef058f886a"),
    ("DEFAULT", [0x5, 0xb], (3, 4), "ui32", [5, 14], "d93c10896e9445ee"),
    ("DEFAULT", [0x5, 0xb], (3, 4), "ui64", [5, 17], "7d8491ef058f886a"),
    ("DEFAULT", [0x5, 0xb], (2, 0), "ui32", [5, 11], "e3b0c44298fc1c14"),
    ("DEFAULT", [0x5, 0xb], (2, 0), "ui64", [5, 11], "e3b0c44298fc1c14"),
]


@pytest.mark.parametrize(("algorithm", "state", "shape", "ty", "new_state", "digest"), XLA_VECTORS)
def test_rng_bit_generator_matches_xla(algorithm, state, shape, ty, new_state, digest) -> None:
    out_state, out = rng_bit_generator(np.array(state, U64), algorithm, shape, TYPES[ty])
    assert out_state.dtype == U64 and out_state.tolist() == new_state
    assert out.dtype == TYPES[ty] and out.shape == shape
    assert hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()[:16] == digest


def _sign_extend(u: np.ndarray, bits: int) -> np.ndarray:
    u = u.astype(np.int64) & ((1 << bits) - 1)
    return np.where(u >= 1 << (bits - 1), u - (1 << bits), u)


@pytest.mark.parametrize("algorithm", ["THREE_FRY", "PHILOX"])
def test_sub_byte_outputs_are_the_low_bits_of_the_32_bit_generator(algorithm) -> None:
    # XLA converts the 32-bit words to U<width> (keeps the low bits) and bitcasts (spec of the
    # expander); XLA:CPU itself cannot return these types, so the ui32 output is the reference
    init = np.array([0x9E3779B97F4A7C15, 0x243F6A8885A308D3], U64)
    _, words = rng_bit_generator(init, algorithm, (5, 3), np.uint32)
    for dtype, bits, signed in [
        (ml_dtypes.int4, 4, True),
        (ml_dtypes.uint4, 4, False),
        (ml_dtypes.int2, 2, True),
        (ml_dtypes.uint2, 2, False),
    ]:
        _, out = rng_bit_generator(init, algorithm, (5, 3), dtype)
        assert out.dtype == np.dtype(dtype) and out.shape == (5, 3)
        low = (words & ((1 << bits) - 1)).astype(np.int64)
        want = _sign_extend(low, bits) if signed else low
        assert out.astype(np.int64).tolist() == want.tolist()
    _, f4 = rng_bit_generator(init, algorithm, (5, 3), ml_dtypes.float4_e2m1fn)
    # f4E2M1FN: the pattern's sign bit, then 2**(e-1) * (1 + m/2) (e > 0) or m/2 (e = 0)
    low = (words & 0xF).astype(np.int64)
    sign = np.where(low & 8, -1.0, 1.0)
    e, m = (low >> 1) & 3, low & 1
    magnitude = np.where(e == 0, m / 2, 2.0 ** (e - 1) * (1 + m / 2))
    assert f4.astype(np.float64).tolist() == (sign * magnitude).tolist()


def test_signed_and_float_outputs_are_bitcasts_of_the_unsigned_ones() -> None:
    init = np.array([3, 2**64 - 2], U64)
    for algorithm in ("THREE_FRY", "PHILOX"):
        for signed, unsigned in [
            (np.int8, np.uint8),
            (np.int16, np.uint16),
            (np.float16, np.uint16),
            (ml_dtypes.float8_e4m3fn, np.uint8),
            (np.int32, np.uint32),
            (np.int64, np.uint64),
            (np.float64, np.uint64),
        ]:
            s1, out = rng_bit_generator(init, algorithm, (4, 5), signed)
            s2, ref = rng_bit_generator(init, algorithm, (4, 5), unsigned)
            assert out.dtype == np.dtype(signed) and s1.tolist() == s2.tolist()
            assert out.tobytes() == ref.tobytes()


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [("threefry", "THREE_FRY"), ("three_fry", "THREE_FRY"), ("ThreeFry", "THREE_FRY"),
     ("philox", "PHILOX"), ("default", "PHILOX"), ("DEFAULT", "PHILOX")],
)
def test_algorithm_spellings(spelling, canonical) -> None:
    init = np.array([17, 4], U64)
    s1, o1 = rng_bit_generator(init, spelling, (3,), np.uint32)
    s2, o2 = rng_bit_generator(init, canonical, (3,), np.uint32)
    assert s1.tolist() == s2.tolist() and o1.tolist() == o2.tolist()
    # the two algorithms differ, so the spelling decides
    other = "PHILOX" if canonical == "THREE_FRY" else "THREE_FRY"
    assert rng_bit_generator(init, other, (3,), np.uint32)[1].tolist() != o1.tolist()


def test_state_given_as_a_list_or_as_a_2d_array() -> None:
    want = rng_bit_generator(np.array([1, 2], U64), "THREE_FRY", (2, 2), U64)
    for state in ([1, 2], np.array([[1], [2]], U64), np.array([1, 2], np.int64)):
        got = rng_bit_generator(state, "THREE_FRY", (2, 2), U64)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_refusals_word_for_word() -> None:
    two = np.array([1, 2], U64)
    with pytest.raises(ValueError) as e:
        rng_bit_generator(np.array([1, 2, 3], U64), "THREE_FRY", (2,), U64)
    assert str(e.value) == "THREE_FRY needs a 2-word state, got 3 words"
    with pytest.raises(ValueError) as e:
        rng_bit_generator(np.array([1], U64), "THREE_FRY", (2,), U64)
    assert str(e.value) == "THREE_FRY needs a 2-word state, got 1 words"
    for n in (1, 4):
        with pytest.raises(ValueError) as e:
            rng_bit_generator(np.arange(n, dtype=U64), "PHILOX", (2,), U64)
        assert str(e.value) == f"PHILOX needs a 2- or 3-word state, got {n} words"
    with pytest.raises(ValueError) as e:
        rng_bit_generator(two, "MT19937", (2,), U64)
    assert str(e.value) == "rng_algorithm must be DEFAULT, THREE_FRY or PHILOX, got 'MT19937'"
    for bad in (np.bool_, np.complex64):
        with pytest.raises(TypeError) as e:
            rng_bit_generator(two, "PHILOX", (2,), bad)
        assert str(e.value) == f"rng_bit_generator cannot produce elements of type {np.dtype(bad)}"
    if np.finfo(np.longdouble).bits > 64:
        with pytest.raises(TypeError) as e:
            rng_bit_generator(two, "PHILOX", (2,), np.longdouble)
        assert str(e.value) == f"rng_bit_generator cannot produce {np.finfo(np.longdouble).bits}-bit elements"


def test_block_functions_are_elementwise_over_arrays() -> None:
    xs = np.array([0, 0xFFFFFFFF, 0x243F6A88], np.uint32)
    ys = np.array([0, 0xFFFFFFFF, 0x85A308D3], np.uint32)
    k0 = np.array([0, 0xFFFFFFFF, 0x13198A2E], np.uint32)
    k1 = np.array([0, 0xFFFFFFFF, 0x03707344], np.uint32)
    a, b = threefry2x32(xs, ys, k0, k1)
    assert a.dtype == np.uint32 and b.dtype == np.uint32
    # Random123 kat_vectors, threefry2x32_20
    assert [hex(int(v)) for v in a] == ["0x6b200159", "0x1cb996fc", "0xc4923a9c"]
    assert [hex(int(v)) for v in b] == ["0x99ba4efe", "0xbb002be7", "0x483df7a0"]
    words = philox4x32(
        (np.array([0, 0x243F6A88], np.uint32), np.array([0, 0x85A308D3], np.uint32),
         np.array([0, 0x13198A2E], np.uint32), np.array([0, 0x03707344], np.uint32)),
        (np.array([0, 0xA4093822], np.uint32), np.array([0, 0x299F31D0], np.uint32)),
    )
    # Random123 kat_vectors, philox4x32_10
    assert [[hex(int(v)) for v in w] for w in words] == [
        ["0x6627e8d5", "0xd16cfe09"], ["0xe169c58d", "0x94fdcceb"],
        ["0xbc57ac4c", "0x5001e420"], ["0x9b00dbd8", "0x24126ea1"]]


# ---- rng: numpy's PCG64 seeded with ``seed`` (the module's documented, implementation-defined choice)


def test_rng_uniform_integers_are_numpys_draws() -> None:
    # int64 bounds that float64 cannot hold exactly (2**62 + 1) are read as integers
    for dtype, a, b in [(np.int32, -5, 9), (np.int8, -128, 127), (np.uint8, 3, 250),
                        (np.int64, -(2**62) - 1, 2**62 + 1), (np.int64, 2**62 + 1, 2**62 + 9)]:
        got = rng(np.array(a, dtype), np.array(b, dtype), [4, 6], "UNIFORM", seed=11)
        want = np.random.default_rng(11).integers(a, b, size=(4, 6), dtype=np.int64).astype(dtype)
        assert got.dtype == np.dtype(dtype) and got.tolist() == want.tolist()
    lo, hi = 2**63 + 5, 2**64 - 1  # above int64: drawn as uint64
    got = rng(np.array(lo, U64), np.array(hi, U64), np.array([[3], [2]]), "UNIFORM", seed=2)
    want = np.random.default_rng(2).integers(lo, hi, size=(3, 2), dtype=np.uint64)
    assert got.dtype == U64 and got.tolist() == want.tolist()
    # the default seed is 0
    assert rng(np.array(0, np.int32), np.array(100, np.int32), [7], "uniform").tolist() == (
        np.random.default_rng(0).integers(0, 100, size=(7,), dtype=np.int64).tolist())


def test_rng_uniform_empty_range_gives_a() -> None:
    for a, b in [(5, 5), (5, 3)]:
        got = rng(np.array(a, np.int16), np.array(b, np.int16), [2, 2], "UNIFORM")
        assert got.dtype == np.int16 and got.tolist() == [[a, a], [a, a]]
    got = rng(np.array(True), np.array(False), [3], "UNIFORM")
    assert got.dtype == np.bool_ and got.tolist() == [True] * 3
    got = rng(np.array(False), np.array(True), [3], "UNIFORM")  # [0, 1): always 0
    assert got.dtype == np.bool_ and got.tolist() == [False] * 3


def test_rng_uniform_floats() -> None:
    got = rng(np.array(-2.0, np.float64), np.array(6.0, np.float64), [50], "UNIFORM", seed=5)
    u = np.random.default_rng(5).random((50,))
    assert got.dtype == np.float64 and got.tolist() == (-2.0 + 8.0 * u).tolist()
    # f16 on [0, 1): u close to 1 rounds up to 1.0 = b, which is replaced by a
    got = rng(np.array(0.0, np.float16), np.array(1.0, np.float16), [20000], "UNIFORM", seed=1)
    u = np.random.default_rng(1).random((20000,))
    rounded = u.astype(np.float16)
    assert (rounded == 1.0).any()  # the case exists in this sample
    assert got.dtype == np.float16 and got.max() < 1.0
    assert got.tolist() == np.where(rounded >= 1.0, 0.0, rounded).astype(np.float16).tolist()


def test_rng_normal_is_a_plus_b_z() -> None:
    got = rng(np.array(5.0, np.float32), np.array(0.5, np.float32), [3, 4], "normal", seed=9)
    z = np.random.default_rng(9).standard_normal((3, 4))
    assert got.dtype == np.float32 and got.tolist() == (5.0 + 0.5 * z).astype(np.float32).tolist()


def test_rng_refuses_an_unknown_distribution_word_for_word() -> None:
    with pytest.raises(ValueError) as e:
        rng(np.array(0.0), np.array(1.0), [2], "POISSON")
    assert str(e.value) == "rng_distribution must be UNIFORM or NORMAL, got 'POISSON'"



def test_wrapping_arithmetic_raises_no_warnings() -> None:
    # uint32/uint64 words wrap by design; numpy warns on wrapping *scalar* arithmetic unless told not to
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = threefry2x32(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        assert [hex(int(a)), hex(int(b))] == ["0x1cb996fc", "0xbb002be7"]  # Random123 kat_vectors
        words = philox4x32((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2)
        assert [hex(int(w)) for w in words] == ["0x408f276d", "0x41c83b0e", "0xa20bc7c6", "0x6d5451fd"]
        for algorithm in ("THREE_FRY", "PHILOX"):
            for dtype in (np.uint32, np.uint64):
                state, _ = rng_bit_generator(np.array([7, 2**64 - 1], U64), algorithm, (3,), dtype)
                assert state[1] < 3  # the counter wrapped past 2**64
