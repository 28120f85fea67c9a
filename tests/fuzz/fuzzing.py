"""Mutation fuzzing of portable artifacts (shared by tests/fuzz/test_fuzz_artifacts.py and
bench/fuzz_artifacts.py).

Each case takes a valid seed artifact and applies one or more mutations:

* byte level: truncation, bit flips, byte overwrites with "interesting" values (msgpack headers that
  declare huge sizes, 0x00/0xff...), insertions, deletions, splices of a range of another seed;
* the same, then with the header's body size fixed up, so that the damage reaches the body decoder
  instead of stopping at the size check;
* structure aware: decode the msgpack, replace one value somewhere in the records (integers off by
  one or huge, type confusion, dropped or duplicated list items, records shortened or extended),
  re-encode with a correct body size -- this reaches the semantic checks.

The oracle: reading must either succeed or raise the toolkit's own error (StableHLOError); any other
exception is a finding.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import msgpack
from stablehlo_py.serialization.format import MAGIC

from stablehlo_py.errors import StableHLOError
# the CPU-time budget the reducer bounds its runs with, shared by the fuzzers
from stablehlo_py.reduce.budget import OutOfTime, cpu_budget  # noqa: F401 (re-exported)

INTERESTING = [
    b"\x00",
    b"\xff",
    b"\x7f",
    b"\x80",
    b"\xc0",
    b"\xc1",
    b"\xc2",
    b"\xc3",
    b"\xdc\xff\xff",
    b"\xdd\x7f\xff\xff\xff",
    b"\xdf\xff\xff\xff\xff",
    b"\xc6\xff\xff\xff\xff",
    b"\xdb\x00\x10\x00\x00",
    b"\xc4\xff",
    b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\xd3\x80" + b"\x00" * 7,
    b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x01",
    b"\x9f",
    b"\x8f",
    b"\xd4\x01\x00",
    b"\xa5hello",
]
INTERESTING_VALUES: list[Any] = [
    0,
    1,
    -1,
    2,
    7,
    127,
    128,
    255,
    256,
    65535,
    1 << 31,
    (1 << 63) - 1,
    -(1 << 63),
    (1 << 64) - 1,
    None,
    True,
    False,
    0.0,
    -0.0,
    float("nan"),
    float("inf"),
    1.5,
    "",
    "x",
    "StableHLO_v1.0.0",
    "\udcff",
    b"",
    b"\x00" * 3,
    b"\xff" * 16,
    [],
    [0],
    [None],
    [[]],
    [1, 2, 3],
    {},
    {"a": 1},
]


def split(data: bytes) -> tuple[list[Any], list[Any]]:
    up = msgpack.Unpacker(raw=False, strict_map_key=False, unicode_errors="surrogatepass")
    up.feed(data[len(MAGIC) :])
    header = up.unpack()
    return header, list(up)


def join(header: list[Any], sections: Sequence[Any]) -> bytes:
    body = b"".join(
        msgpack.packb(s, use_bin_type=True, unicode_errors="surrogatepass") for s in sections
    )
    header = list(header)
    if len(header) > 3:
        header[3] = len(body)
    return MAGIC + msgpack.packb(header, use_bin_type=True, unicode_errors="surrogatepass") + body


def fix_body_size(data: bytes) -> bytes:
    """Set the header's body size to what follows the header (when the header still decodes)."""
    try:
        up = msgpack.Unpacker(raw=False, unicode_errors="surrogatepass")
        up.feed(data[len(MAGIC) :])
        header = up.unpack()
        end = len(MAGIC) + up.tell()
    except Exception:  # noqa: BLE001 - damaged beyond repair: leave it
        return data
    if type(header) is not list or len(header) < 4:
        return data
    header = list(header)
    header[3] = len(data) - end
    return (
        MAGIC
        + msgpack.packb(header, use_bin_type=True, unicode_errors="surrogatepass")
        + data[end:]
    )


def _containers(value: Any, out: list[list[Any]], depth: int = 0) -> None:
    if type(value) is list and depth < 64:
        out.append(value)
        for v in value:
            _containers(v, out, depth + 1)


def _byte_mutation(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    b = bytearray(data)
    kind = rng.randrange(7)
    n = len(b)
    if n == 0:
        return rng.choice(INTERESTING)
    if kind == 0:  # truncate
        return bytes(b[: rng.randrange(n + 1)])
    if kind == 1:  # flip bits
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(n)
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 2:  # overwrite with random bytes
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(n)] = rng.randrange(256)
        return bytes(b)
    if kind == 3:  # overwrite with an interesting sequence
        s = rng.choice(INTERESTING)
        i = rng.randrange(n)
        b[i : i + len(s)] = s
        return bytes(b)
    if kind == 4:  # insert
        s = (
            rng.choice(INTERESTING)
            if rng.random() < 0.5
            else bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        )
        i = rng.randrange(n + 1)
        return bytes(b[:i] + s + b[i:])
    if kind == 5:  # delete a range
        i = rng.randrange(n)
        return bytes(b[:i] + b[i + rng.randint(1, 16) :])
    other = rng.choice(seeds)  # splice
    i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
    k, m = sorted((rng.randrange(len(other) + 1), rng.randrange(len(other) + 1)))
    return bytes(b[:i] + other[k:m] + b[j:])


def _structure_mutation(rng: random.Random, data: bytes) -> bytes:
    header, sections = split(data)
    root: list[Any] = [header, *sections]
    lists: list[list[Any]] = []
    _containers(root, lists)
    target = rng.choice(lists[1:] or lists)
    kind = rng.randrange(6)
    if kind == 0 and target:  # replace one value with an interesting one
        target[rng.randrange(len(target))] = rng.choice(INTERESTING_VALUES)
    elif kind == 1 and target:  # nudge an integer
        i = rng.randrange(len(target))
        if type(target[i]) is int:
            target[i] += rng.choice((-2, -1, 1, 2, 100, -100))
        else:
            target[i] = rng.choice(INTERESTING_VALUES)
    elif kind == 2 and target:  # drop an item
        del target[rng.randrange(len(target))]
    elif kind == 3 and target:  # duplicate an item
        i = rng.randrange(len(target))
        target.insert(i, target[i])
    elif kind == 4:  # extend a record
        target.append(rng.choice(INTERESTING_VALUES))
    elif target:  # swap two items
        i, j = rng.randrange(len(target)), rng.randrange(len(target))
        target[i], target[j] = target[j], target[i]
    return join(root[0], root[1:])


def mutate(rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    data = rng.choice(seeds)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.random()
        try:
            if r < 0.45:
                data = _byte_mutation(rng, data, seeds)
            elif r < 0.7:
                data = fix_body_size(_byte_mutation(rng, data, seeds))
            else:
                data = _structure_mutation(rng, data)
        except Exception:  # noqa: BLE001 - the previous mutation broke the structure: bytes only
            data = _byte_mutation(rng, data, seeds)
    return data


@dataclass
class FuzzResult:
    cases: int = 0
    accepted: int = 0
    refused: int = 0
    findings: list[tuple[bytes, str]] = field(default_factory=list)
    messages: dict[str, int] = field(default_factory=dict)


def run(
    read: Callable[[bytes], object],
    seeds: Sequence[bytes],
    cases: int,
    seed: int = 0,
    keep_messages: bool = False,
    memory_limit: int | None = 6 << 30,
) -> FuzzResult:
    """Feed ``cases`` mutated artifacts to ``read``; collect every exception that is not a
    StableHLOError as a finding (input, traceback summary).  While it runs, the process's address
    space is limited to ``memory_limit`` bytes (soft limit, restored after), so an input that would
    make the reader allocate without bound shows up as a MemoryError finding instead of exhausting
    the machine."""
    import traceback

    rng = random.Random(seed)
    result = FuzzResult()
    with _memory_limit(memory_limit):
        _run_cases(read, seeds, cases, rng, result, keep_messages, traceback)
    return result


def _run_cases(read, seeds, cases, rng, result, keep_messages, traceback) -> None:  # noqa: ANN001
    for _ in range(cases):
        data = mutate(rng, seeds)
        result.cases += 1
        try:
            read(data)
            result.accepted += 1
        except StableHLOError as e:
            result.refused += 1
            if keep_messages:
                key = e.message.split(":")[0][:60]
                result.messages[key] = result.messages.get(key, 0) + 1
        except Exception as e:  # noqa: BLE001 - the finding
            tb = traceback.extract_tb(e.__traceback__)[-1]
            result.findings.append((data, f"{type(e).__name__}: {e} at {tb.filename}:{tb.lineno}"))


@contextmanager
def _memory_limit(limit: int | None) -> Iterator[None]:
    try:
        import resource
    except ImportError:  # not on this platform: run unlimited
        yield
        return
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    new = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (new, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
