"""XLA's HloSharding text (the `mhlo.sharding` attribute JAX writes on values and on its `Sharding` custom
calls), read into a device tile assignment, and the shard a device holds.

Forms (HloSharding::ToString): `{replicated}`, `{manual}`, `{maximal device=N}`,
`{devices=[d0,d1,...]i0,i1,...}` (explicit device list), `{devices=[d0,...]<=[r0,...]T(p0,...)}`
(iota tile assignment: iota over the devices, reshaped to `r`, transposed by `p`, reshaped to `d`),
followed by `last_tile_dim_replicate` or `last_tile_dims={manual, replicated, ...}` when the trailing
tile dimensions group devices holding the same tile rather than tiling the tensor; `metadata={...}`
is ignored.  A tuple sharding `{{...}, {...}}` is not a per-value sharding."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from stablehlo_py.errors import InterpreterError, NotSupportedError


@dataclass(frozen=True)
class HloSharding:
    kind: str  # "replicated", "manual", "maximal", "tiled"
    tiles: np.ndarray | None = None  # device ids, shape = tile dims (+ subgroup dims)
    subgroups: int = 0  # trailing dims of `tiles` that group devices instead of tiling
    subgroup_types: tuple[str, ...] = ()  # "replicated" / "manual" per subgroup dim
    device: int = 0  # for maximal

    @property
    def is_manual(self) -> bool:
        """Fully manual (`{manual}`) or manual over some mesh axes (`last_tile_dims={manual, ...}`)."""
        return self.kind == "manual" or "manual" in self.subgroup_types

    @property
    def tile_shape(self) -> tuple[int, ...]:
        assert self.tiles is not None
        dims = self.tiles.shape
        return tuple(dims[: len(dims) - self.subgroups])

    def num_devices(self) -> int:
        return 1 if self.tiles is None else int(self.tiles.size)

    def tile_index(self, device: int) -> tuple[int, ...]:
        """The tile (per tensor dimension) `device` holds."""
        assert self.tiles is not None
        where = np.argwhere(self.tiles == device)
        if where.size == 0:
            raise InterpreterError(
                f"device {device} is not in the sharding's tile assignment "
                f"(devices {sorted(int(d) for d in self.tiles.ravel())})"
            )
        return tuple(int(i) for i in where[0][: len(self.tile_shape)])


_METADATA = re.compile(r"\s*metadata=\{[^{}]*\}")


def parse_sharding(text: str) -> HloSharding:
    """`text` (an HloSharding string) read; a clear error for forms without one device layout."""
    s = _METADATA.sub("", text.strip())
    if not (s.startswith("{") and s.endswith("}")):
        raise InterpreterError(f"mhlo.sharding '{text}' is not an HloSharding ('{{...}}')")
    body = s[1:-1].strip()
    if body.startswith("{"):
        raise NotSupportedError(
            f"mhlo.sharding '{text}' is a tuple sharding; a single value needs one sharding"
        )
    if body in ("replicated", ""):
        return HloSharding("replicated")
    if body == "manual":
        return HloSharding("manual")
    m = re.fullmatch(r"maximal device=(\d+)", body)
    if m:
        return HloSharding("maximal", device=int(m.group(1)))
    m = re.fullmatch(
        r"devices=\[([\d,\s]+)\]\s*(<=\[[\d,\s]+\](?:T\([\d,\s]+\))?|[\d,\s]+?)"
        r"(\s+last_tile_dim_replicate|\s+last_tile_dims=\{[a-z_,\s]+\})?",
        body,
    )
    if not m:
        raise NotSupportedError(
            f"mhlo.sharding '{text}': this form of HloSharding is not supported"
        )
    dims = [int(d) for d in m.group(1).split(",")]
    devices_text = m.group(2).strip()
    if devices_text.startswith("<="):
        im = re.fullmatch(r"<=\[([\d,\s]+)\](?:T\(([\d,\s]+)\))?", devices_text)
        assert im is not None
        reshape = [int(d) for d in im.group(1).split(",")]
        devices = np.arange(int(np.prod(reshape))).reshape(reshape)
        if im.group(2):
            devices = devices.transpose([int(p) for p in im.group(2).split(",")])
    else:
        devices = np.array([int(d) for d in devices_text.split(",")])
    if devices.size != int(np.prod(dims)):
        raise InterpreterError(
            f"mhlo.sharding '{text}': {devices.size} devices for a tile assignment of {dims}"
        )
    tiles = devices.reshape(dims)
    last = m.group(3) or ""
    if "last_tile_dim_replicate" in last:
        types: tuple[str, ...] = ("replicated",)
    elif "last_tile_dims" in last:
        types = tuple(t for t in re.split(r"[{},\s]+", last.split("=", 1)[1]) if t)
    else:
        types = ()
    return HloSharding("tiled", tiles=tiles, subgroups=len(types), subgroup_types=types)


def shard_shape(sharding: HloSharding, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The per-device shape of a `shape` value (XLA rounds uneven tiles up)."""
    if sharding.kind != "tiled":
        return tuple(shape)
    tiles = sharding.tile_shape
    if len(tiles) != len(shape):
        raise InterpreterError(
            f"a sharding tiling {len(tiles)} dimensions ({list(tiles)}) on a value of rank {len(shape)}"
        )
    return tuple(-(-d // t) for d, t in zip(shape, tiles))


def shard_of(sharding: HloSharding, value: np.ndarray, device: int) -> np.ndarray:
    """The shard of the global `value` that `device` holds (zero-padded where tiles are uneven)."""
    if sharding.kind != "tiled":
        return value
    shape = shard_shape(sharding, value.shape)
    index = sharding.tile_index(device)
    region = tuple(slice(i * s, (i + 1) * s) for i, s in zip(index, shape))
    piece = value[region]
    if piece.shape != shape:
        padded = np.zeros(shape, value.dtype)
        padded[tuple(slice(0, n) for n in piece.shape)] = piece
        piece = padded
    return piece


def assemble(
    sharding: HloSharding, shards: dict[int, np.ndarray], shape: tuple[int, ...]
) -> np.ndarray:
    """The global value of `shape` from each device's shard (`shards[device]`)."""
    if sharding.kind != "tiled":
        return next(iter(shards.values()))
    first = next(iter(shards.values()))
    out = np.zeros(shape, first.dtype)
    done: set[tuple[int, ...]] = set()
    for device, piece in sorted(shards.items()):
        index = sharding.tile_index(device)
        if index in done:  # a replica of a tile already placed
            continue
        done.add(index)
        region = tuple(
            slice(i * s, min((i + 1) * s, d)) for i, s, d in zip(index, piece.shape, shape)
        )
        out[region] = piece[tuple(slice(0, r.stop - r.start) for r in region)]
    return out
