"""Random JAX programs with edge-value inputs, reproducible from (seed, index).

A `Case` holds the program as Python source (a lambda over `lax`, `jnp`, `np`, `ml_dtypes`), its inputs
(numpy arrays), the op names it uses (for tolerances and classification), its op family and tags that
the classifiers of `xla_deviations.py` read.  `make_case(seed, index)` always builds the same case;
`Case.reproducer()` prints a standalone script that rebuilds the inputs bit for bit.

Families (FAMILIES below): elementwise unary/binary (incl. transcendental and CHLO ops), comparisons,
integer/bitwise/shift/popcnt/clz, conversions/bitcast/reduce_precision, reductions (incl. argmax-style
variadic reduce), reduce_window and cumulative ops, dot_general/convolution, gather/scatter/dynamic
slices (out-of-bounds indices), data movement (pad/slice/concatenate/transpose/reverse/broadcast/iota),
select/clamp, sort/top_k, control flow (while/cond/scan/switch), rng_bit_generator.  Dtypes: every float
type (f4/f8/bf16/f16/f32/f64), complex, int2..int64, uint2..uint64, bool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import ml_dtypes
import numpy as np

# ---------------------------------------------------------------------------------------------- dtypes

_NUMPY_NAMES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"}


def dtype(name: str) -> np.dtype:
    return np.dtype(name) if name in _NUMPY_NAMES else np.dtype(getattr(ml_dtypes, name))


FLOAT_MAIN = ("float16", "bfloat16", "float32", "float64")
FLOAT_SMALL = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
               "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn")
FLOATS = FLOAT_MAIN + FLOAT_SMALL
COMPLEX = ("complex64", "complex128")
SINTS = ("int2", "int4", "int8", "int16", "int32", "int64")
UINTS = ("uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
INTS = SINTS + UINTS
ALL = FLOATS + COMPLEX + INTS + ("bool",)


def is_float(name: str) -> bool:
    return name in FLOATS


def is_complex(name: str) -> bool:
    return name in COMPLEX


def is_int(name: str) -> bool:
    return name in INTS


def bits_of(name: str) -> int:
    if name == "bool":
        return 8
    if is_float(name):
        return int(ml_dtypes.finfo(dtype(name)).bits)
    if is_int(name):
        return int(ml_dtypes.iinfo(dtype(name)).bits)
    return dtype(name).itemsize * 8


# ---------------------------------------------------------------------------------------------- values

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, np.nan, -np.nan, np.inf, -np.inf, np.pi, 1e-3, 100.0, 127.5,
            128.0, -128.5, -129.0, 255.5, 256.0, 32767.5, 32768.0, 65536.0, 2.0**31, -(2.0**31) - 1.0, 2.0**32,
            2.0**63, -(2.0**63), 2.0**64, 1e10, -1e20, 6.0, -6.0, 4.0, 0.75, 1e-30, 1e30]


def _float_specials(name: str) -> np.ndarray:
    fi = ml_dtypes.finfo(dtype(name))
    extra = [float(fi.max), -float(fi.max), float(fi.tiny), -float(fi.tiny), float(fi.smallest_subnormal),
             -float(fi.smallest_subnormal), float(fi.eps), 1.0 + float(fi.eps), float(fi.tiny) * 0.75]
    with np.errstate(all="ignore"):
        return np.array(_SPECIAL + extra, np.float64).astype(dtype(name))


class Gen:
    """The random source of one case, with value generators per dtype."""

    def __init__(self, seed: int, index: int) -> None:
        self.rng = np.random.default_rng([seed, index])

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def int(self, lo: int, hi: int) -> int:  # inclusive
        return int(self.rng.integers(lo, hi + 1))

    def shape(self, rank: int | None = None, lo: int = 1, hi: int = 4) -> tuple[int, ...]:
        rank = self.choice((0, 1, 1, 2, 2, 3)) if rank is None else rank
        return tuple(self.int(lo, hi) for _ in range(rank))

    def values(self, name: str, shape: tuple[int, ...], mode: str = "edge") -> np.ndarray:
        n = int(np.prod(shape, dtype=np.int64))
        dt = dtype(name)
        if name == "bool":
            return self.rng.integers(0, 2, size=shape).astype(bool)
        if is_complex(name):
            part = "float32" if name == "complex64" else "float64"
            re = self.values(part, shape, mode)
            im = self.values(part, shape, mode)
            out = np.empty(shape, dt)
            out.real, out.imag = re, im
            return out
        if is_int(name):
            ii = ml_dtypes.iinfo(dt)
            lo, hi = int(ii.min), int(ii.max)
            out = []
            pool = [v for v in (0, 1, -1, 2, 3, -2, lo, hi, lo + 1, hi - 1, 7, 8, 15, 16, 31, 32, 63, 64)
                    if lo <= v <= hi]
            for _ in range(n):
                r = self.rng.random()
                if mode == "edge" and r < 0.35:
                    out.append(self.choice(pool))
                elif r < 0.7:
                    out.append(self.int(max(lo, -5), min(hi, 9)))
                else:
                    out.append(int(self.rng.integers(lo, hi, endpoint=True, dtype=np.int64))
                               if hi < 2**63 else int(self.rng.integers(0, 2**64, dtype=np.uint64)))
            return np.array(out, dtype=object).astype(np.int64 if lo < 0 else np.uint64).astype(dt).reshape(shape)
        # floats
        fi = ml_dtypes.finfo(dt)
        nbits = int(fi.bits)
        specials = _float_specials(name)
        ubits = np.dtype(f"u{dt.itemsize}")
        out = np.empty(n, dt)
        with np.errstate(all="ignore"):
            for i in range(n):
                r = self.rng.random()
                if mode == "edge" and r < 0.3:
                    out[i] = specials[int(self.rng.integers(len(specials)))]
                elif mode == "edge" and r < 0.45:
                    b = int(self.rng.integers(0, 2**min(nbits, 63), dtype=np.uint64))
                    if nbits == 64 and self.chance(0.5):
                        b |= 1 << 63
                    out[i:i + 1] = np.array([b], np.uint64).astype(ubits).view(dt)
                else:
                    scale = 10.0 ** self.rng.uniform(-2, 2.5) if mode == "edge" else 3.0
                    out[i] = dt.type(self.rng.normal() * scale)
        return out.reshape(shape)

    def indices(self, shape: tuple[int, ...], bound: int) -> np.ndarray:
        """int32 indices, mostly in [0, bound), some out of bounds on either side."""
        out = [self.int(0, max(bound - 1, 0)) if self.chance(0.7) else self.choice((-1, -3, bound, bound + 2,
                                                                                   -(2**31), 2**31 - 1))
               for _ in range(int(np.prod(shape, dtype=np.int64)))]
        return np.array(out, np.int32).reshape(shape)


# ---------------------------------------------------------------------------------------------- cases


@dataclass
class Case:
    seed: int
    index: int
    family: str
    ops: tuple[str, ...]
    source: str
    args: tuple[np.ndarray, ...]
    tags: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.seed}:{self.index}"

    def fn(self) -> Callable:
        return eval(self.source, namespace())  # noqa: S307 - our own generated source

    def reproducer(self) -> str:
        lines = [
            f"# differential case {self.id}: family {self.family}, ops {', '.join(self.ops)}",
            "import numpy as np, ml_dtypes, jax, jax.numpy as jnp",
            "from jax import lax",
            "from stablehlo_py.interpreter import run",
            "from stablehlo_py.ir import parse",
            "jax.config.update('jax_enable_x64', True)",
            f"f = {self.source}",
            "args = (" + "".join(arg_source(a) + ", " for a in self.args) + ")",
            "lowered = jax.jit(f, keep_unused=True).lower(*args)",
            "print('xla ', [np.asarray(v) for v in jax.tree_util.tree_leaves(lowered.compile()(*args))])",
            "print('ours', run(parse(lowered.as_text()), *args))",
        ]
        return "\n".join(lines)


def namespace() -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "ml_dtypes": ml_dtypes}


def dtype_source(name: str) -> str:
    return f"np.{name}" if name in _NUMPY_NAMES and name != "bool" else ("np.bool_" if name == "bool"
                                                                            else f"ml_dtypes.{name}")


def arg_source(a: np.ndarray) -> str:
    name = a.dtype.name
    if a.dtype == np.dtype(bool):
        return f"np.array({a.reshape(-1).astype(int).tolist()}, dtype=np.bool_).reshape({a.shape})"
    width = min(a.dtype.itemsize, 8)  # complex128: two uint64 per element
    bits = np.ascontiguousarray(a).reshape(-1).view(np.dtype(f"u{width}"))
    return (f"np.array({bits.tolist()}, dtype=np.uint{width * 8}).view({dtype_source(name)})"
            f".reshape({a.shape})")


def _dt(name: str) -> str:
    return f"jnp.{name}" if name != "bool" else "jnp.bool_"


# ------------------------------------------------------------------------------------ op tables
# An elementwise op: expression template over {0}, {1}; the dtypes it takes.
R = FLOATS            # real floats
RM = FLOAT_MAIN
RC = FLOATS + COMPLEX
RMC = FLOAT_MAIN + COMPLEX

UNARY_FLOAT: dict[str, tuple[str, tuple[str, ...]]] = {
    "negate": ("-{0}", RC), "abs": ("lax.abs({0})", RC), "sign": ("lax.sign({0})", RC),
    "floor": ("lax.floor({0})", R), "ceil": ("lax.ceil({0})", R),
    "round_nearest_afz": ("lax.round({0})", R),
    "round_nearest_even": ("lax.round({0}, lax.RoundingMethod.TO_NEAREST_EVEN)", R),
    "sqrt": ("lax.sqrt({0})", RC), "rsqrt": ("lax.rsqrt({0})", RC), "cbrt": ("lax.cbrt({0})", R),
    "exponential": ("lax.exp({0})", RC), "exponential_minus_one": ("lax.expm1({0})", RC),
    "exp2": ("lax.exp2({0})", RM), "log": ("lax.log({0})", RC), "log_plus_one": ("lax.log1p({0})", RC),
    "logistic": ("lax.logistic({0})", RMC), "sine": ("lax.sin({0})", RC), "cosine": ("lax.cos({0})", RC),
    "tan": ("lax.tan({0})", RC), "tanh": ("lax.tanh({0})", RC), "atan": ("lax.atan({0})", RC),
    "asin": ("lax.asin({0})", RC), "acos": ("lax.acos({0})", RC), "sinh": ("lax.sinh({0})", RC),
    "cosh": ("lax.cosh({0})", RC), "asinh": ("lax.asinh({0})", RC), "acosh": ("lax.acosh({0})", RC),
    "atanh": ("lax.atanh({0})", RC), "erf": ("lax.erf({0})", RM), "erfc": ("lax.erfc({0})", RM),
    "erf_inv": ("lax.erf_inv({0})", RM), "lgamma": ("lax.lgamma({0})", RM), "digamma": ("lax.digamma({0})", RM),
    "bessel_i1e": ("lax.bessel_i1e({0})", RM), "bessel_i0e": ("lax.bessel_i0e({0})", RM),
    "is_finite": ("lax.is_finite({0})", R), "is_inf": ("jnp.isinf({0})", R), "is_nan": ("jnp.isnan({0})", RC),
    "square": ("lax.square({0})", RC), "real": ("lax.real({0})", COMPLEX), "imag": ("lax.imag({0})", COMPLEX),
    "conj": ("lax.conj({0})", COMPLEX),
}

BINARY_FLOAT: dict[str, tuple[str, tuple[str, ...]]] = {
    "add": ("{0} + {1}", RC), "subtract": ("{0} - {1}", RC), "multiply": ("{0} * {1}", RC),
    "divide": ("lax.div({0}, {1})", RC), "maximum": ("lax.max({0}, {1})", RC), "minimum": ("lax.min({0}, {1})", RC),
    "power": ("lax.pow({0}, {1})", RC), "atan2": ("lax.atan2({0}, {1})", RC), "remainder": ("lax.rem({0}, {1})", R),
    "next_after": ("lax.nextafter({0}, {1})", ("float32", "float64")), "complex": ("lax.complex({0}, {1})",
                                                                                   ("float32", "float64")),
    "polygamma": ("lax.polygamma(lax.round(lax.abs({0})) % 4, {1})", ("float32", "float64")),
    "zeta": ("lax.zeta({0}, {1})", ("float32", "float64")), "igamma": ("lax.igamma({0}, {1})", ("float32", "float64")),
    "igammac": ("lax.igammac({0}, {1})", ("float32", "float64")),
}

UNARY_INT: dict[str, tuple[str, tuple[str, ...]]] = {
    "negate": ("-{0}", INTS), "abs": ("lax.abs({0})", SINTS), "sign": ("lax.sign({0})", INTS),
    "not": ("lax.bitwise_not({0})", INTS + ("bool",)), "popcnt": ("lax.population_count({0})", INTS),
    "count_leading_zeros": ("lax.clz({0})", INTS),
}

BINARY_INT: dict[str, tuple[str, tuple[str, ...]]] = {
    "add": ("{0} + {1}", INTS), "subtract": ("{0} - {1}", INTS), "multiply": ("{0} * {1}", INTS),
    "divide": ("lax.div({0}, {1})", INTS), "remainder": ("lax.rem({0}, {1})", INTS),
    "maximum": ("lax.max({0}, {1})", INTS + ("bool",)), "minimum": ("lax.min({0}, {1})", INTS + ("bool",)),
    "and": ("lax.bitwise_and({0}, {1})", INTS + ("bool",)), "or": ("lax.bitwise_or({0}, {1})", INTS + ("bool",)),
    "xor": ("lax.bitwise_xor({0}, {1})", INTS + ("bool",)), "shift_left": ("lax.shift_left({0}, {1})", INTS),
    "shift_right_arithmetic": ("lax.shift_right_arithmetic({0}, {1})", INTS),
    "shift_right_logical": ("lax.shift_right_logical({0}, {1})", INTS)
}

COMPARISONS = {"eq": "lax.eq", "ne": "lax.ne", "lt": "lax.lt", "le": "lax.le", "gt": "lax.gt", "ge": "lax.ge"}

# chain ops applied after a float elementwise op (exact IEEE operations only)
CHAIN = ("({e}) * {x}", "({e}) + {x}", "lax.abs({e}) - {x}", "lax.max({e}, {x})", "lax.div({e}, {x})",
         "lax.sqrt(lax.abs({e}))", "-({e}) * ({e})")


def _pick_dtype(g: Gen, allowed: tuple[str, ...]) -> str:
    # main types more often than the 8/4-bit ones
    main = [d for d in allowed if d not in FLOAT_SMALL and d not in ("int2", "uint2", "int4", "uint4")]
    if main and g.chance(0.7):
        return g.choice(main)
    return g.choice(allowed)


def _args(g: Gen, names: list[str], shape: tuple[int, ...]) -> list[np.ndarray]:
    return [g.values(n, shape) for n in names]


def _lam(nargs: int, body: str) -> str:
    return f"lambda {', '.join(f'x{i}' for i in range(nargs))}: {body}"


# ---------------------------------------------------------------------------------------------- families


def fam_unary_float(g: Gen):
    op = g.choice(sorted(UNARY_FLOAT))
    tmpl, allowed = UNARY_FLOAT[op]
    dt = _pick_dtype(g, allowed)
    shape = g.shape()
    body = tmpl.format("x0")
    ops = [op]
    nargs = 1
    if g.chance(0.25) and op not in ("is_finite", "is_inf", "is_nan", "real", "imag") and dt in RMC:
        body = g.choice(CHAIN).format(e=body, x="x0")
        ops.append("chain")
    return "elementwise_unary", ops, _lam(nargs, body), _args(g, [dt] * nargs, shape), {"dtype": dt}


def fam_binary_float(g: Gen):
    op = g.choice(sorted(BINARY_FLOAT))
    tmpl, allowed = BINARY_FLOAT[op]
    dt = _pick_dtype(g, allowed)
    shape = g.shape()
    body = tmpl.format("x0", "x1")
    ops = [op]
    if g.chance(0.25) and op != "complex" and dt in RMC:
        body = g.choice(CHAIN).format(e=body, x="x1")
        ops.append("chain")
    return "elementwise_binary", ops, _lam(2, body), _args(g, [dt, dt], shape), {"dtype": dt}


def fam_compare(g: Gen):
    op = g.choice(sorted(COMPARISONS))
    allowed = ALL if op in ("eq", "ne") else FLOATS + INTS + ("bool",)
    dt = _pick_dtype(g, allowed)
    shape = g.shape()
    a = g.values(dt, shape)
    b = g.values(dt, shape)
    if g.chance(0.3):  # equal elements to hit the boundary
        b = np.where(g.rng.random(shape) < 0.5, a, b).astype(a.dtype)
    return "compare", ["compare_" + op], _lam(2, f"{COMPARISONS[op]}(x0, x1)"), [a, b], {"dtype": dt}


def fam_int(g: Gen):
    if g.chance(0.4):
        op = g.choice(sorted(UNARY_INT))
        tmpl, allowed = UNARY_INT[op]
        dt = _pick_dtype(g, allowed)
        shape = g.shape()
        return "integer", [op], _lam(1, tmpl.format("x0")), [g.values(dt, shape)], {"dtype": dt}
    op = g.choice(sorted(BINARY_INT))
    tmpl, allowed = BINARY_INT[op]
    dt = _pick_dtype(g, allowed)
    shape = g.shape()
    a = g.values(dt, shape)
    if op.startswith("shift"):
        nb = bits_of(dt)
        ii = ml_dtypes.iinfo(dtype(dt))
        vals = [v for v in range(-2, nb + 3) if ii.min <= v <= ii.max]
        b = np.array([g.choice(vals) if g.chance(0.85) else int(g.choice((ii.min, ii.max)))
                      for _ in range(int(np.prod(shape, dtype=np.int64)))], dtype=object)
        b = b.astype(np.int64 if ii.min < 0 else np.uint64).astype(dtype(dt)).reshape(shape)
    else:
        b = g.values(dt, shape)
    return "integer", [op], _lam(2, tmpl.format("x0", "x1")), [a, b], {"dtype": dt}


def fam_convert(g: Gen):
    kind = g.choice(("convert", "convert", "convert", "bitcast", "reduce_precision"))
    shape = g.shape()
    if kind == "convert":
        src = g.choice(ALL)
        dst = g.choice(ALL)
        if is_complex(src) and not is_complex(dst):
            dst = g.choice(COMPLEX)
        x = g.values(src, shape)
        return ("conversion", ["convert"], _lam(1, f"lax.convert_element_type(x0, {_dt(dst)})"), [x],
                {"src": src, "dst": dst})
    if kind == "bitcast":
        src = g.choice([d for d in ALL if d != "bool" and bits_of(d) >= 8])
        same = [d for d in ALL if d != "bool" and bits_of(d) == bits_of(src) and dtype(d).itemsize ==
                dtype(src).itemsize]
        other = [d for d in ALL if d != "bool" and bits_of(d) >= 8 and bits_of(d) == dtype(d).itemsize * 8
                 and not is_complex(d)]
        if g.chance(0.7) or is_complex(src):
            dst = g.choice(same)
        else:
            dst = g.choice(other)
            if bits_of(dst) > bits_of(src):  # narrower -> wider needs a trailing dim of the ratio
                shape = shape + (bits_of(dst) // bits_of(src),)
        x = g.values(src, shape)
        return ("conversion", ["bitcast"], _lam(1, f"lax.bitcast_convert_type(x0, {_dt(dst)})"), [x],
                {"src": src, "dst": dst})
    dt = g.choice(FLOATS)
    e = g.int(1, 11)
    m = g.int(0, 24)
    x = g.values(dt, shape)
    return ("conversion", ["reduce_precision"], _lam(1, f"lax.reduce_precision(x0, {e}, {m})"), [x],
            {"dtype": dt, "exponent_bits": e, "mantissa_bits": m})


_REDUCERS = {  # name: (lax computation, identity expression over dtype, dtypes)
    "add": ("lax.add", "0", RMC + INTS), "mul": ("lax.mul", "1", RMC + INTS),
    "max": ("lax.max", "-inf", RM + INTS + ("bool",)), "min": ("lax.min", "inf", RM + INTS + ("bool",)),
    "and": ("lax.bitwise_and", "ones", INTS + ("bool",)), "or": ("lax.bitwise_or", "0", INTS + ("bool",)),
}


def _identity(kind: str, dt: str) -> str:
    d = dtype(dt)
    if kind == "0":
        return f"np.array(0, {dtype_source(dt)})"
    if kind == "1":
        return f"np.array(1, {dtype_source(dt)})"
    if kind == "ones":
        return f"np.array({'True' if dt == 'bool' else -1 if dt in SINTS else ml_dtypes.iinfo(d).max}, " \
               f"{dtype_source(dt)})"
    if dt == "bool":
        return f"np.array({kind == 'inf'}, np.bool_)"
    if is_int(dt):
        ii = ml_dtypes.iinfo(d)
        return f"np.array({ii.max if kind == 'inf' else ii.min}, {dtype_source(dt)})"
    return f"np.array({'' if kind == 'inf' else '-'}np.inf, {dtype_source(dt)})"


def fam_reduce(g: Gen):
    kind = g.choice(("reduce", "reduce", "argmax", "reduce_window", "reduce_window", "cumulative"))
    if kind == "argmax":
        dt = _pick_dtype(g, FLOATS + INTS)
        shape = g.shape(rank=g.int(1, 3))
        ax = g.int(0, len(shape) - 1)
        fn = g.choice(("jnp.argmax", "jnp.argmin"))
        x = g.values(dt, shape)
        if g.chance(0.5):  # ties
            x = np.where(g.rng.random(shape) < 0.5, x.reshape(-1)[0], x).astype(x.dtype)
        return "reduction", ["argmax"], _lam(1, f"{fn}(x0, axis={ax})"), [x], {"dtype": dt}
    red = g.choice(sorted(_REDUCERS))
    comp, ident, allowed = _REDUCERS[red]
    dt = _pick_dtype(g, allowed)
    if kind == "cumulative":
        dt = _pick_dtype(g, RM + INTS if red != "and" else INTS)
        fn = {"add": "lax.cumsum", "mul": "lax.cumprod", "max": "lax.cummax", "min": "lax.cummin",
              "and": "lax.cumsum", "or": "lax.cumlogsumexp"}[red]
        if fn == "lax.cumlogsumexp":
            dt = g.choice(RM)
        shape = g.shape(rank=g.int(1, 3), hi=6)
        ax = g.int(0, len(shape) - 1)
        rev = g.chance(0.5)
        return ("reduction", ["cumulative_" + fn.split(".")[1]], _lam(1, f"{fn}(x0, axis={ax}, reverse={rev})"),
                [g.values(dt, shape)], {"dtype": dt})
    init = _identity(ident, dt)
    identity = True
    identity_source = init
    if g.chance(0.3):
        identity = False
        init = "x1"
    shape = g.shape(rank=g.int(1, 3), hi=5)
    x = g.values(dt, shape)
    args = [x]
    if not identity:
        args.append(g.values(dt, ()))
    if kind == "reduce":
        axes = tuple(sorted(set(g.int(0, len(shape) - 1) for _ in range(g.int(1, len(shape))))))
        body = f"lax.reduce(x0, {init}, {comp}, {axes})"
        return "reduction", ["reduce_" + red], _lam(len(args), body), args, {
            "dtype": dt, "identity": identity, "identity_source": identity_source}
    wd = tuple(g.int(1, min(3, s + 1)) for s in shape)
    st = tuple(g.int(1, 2) for _ in shape)
    pad = tuple((g.int(0, 2), g.int(0, 2)) if g.chance(0.5) else (0, 0) for _ in shape)
    bd = tuple(g.choice((1, 1, 2)) for _ in shape)
    wdl = tuple(g.choice((1, 1, 2)) for _ in shape)
    padded = any(p != (0, 0) for p in pad) or any(b != 1 for b in bd)
    body = (f"lax.reduce_window(x0, {init}, {comp}, {wd}, {st}, {list(pad)}, base_dilation={bd}, "
            f"window_dilation={wdl})")
    return ("reduction", ["reduce_window_" + red], _lam(len(args), body), args,
            {"dtype": dt, "identity": identity, "padded": padded, "identity_source": identity_source})


def fam_dot(g: Gen):
    if g.chance(0.7):
        dt = g.choice(("float32", "float64", "float16", "bfloat16", "int32", "int8", "complex64", "int64"))
        b, m, k, n = g.int(1, 2), g.int(1, 3), g.int(1, 4), g.int(1, 3)
        batch = g.chance(0.4)
        sa = (b, m, k) if batch else (m, k)
        sb = (b, k, n) if batch else (k, n)
        dims = "(((2,), (1,)), ((0,), (0,)))" if batch else "(((1,), (0,)), ((), ()))"
        pref = ""
        if dt == "int8" and g.chance(0.5):
            pref = ", preferred_element_type=jnp.int32"
        mode = "edge" if g.chance(0.2) else "normal"
        return ("dot_conv", ["dot_general"], _lam(2, f"lax.dot_general(x0, x1, {dims}{pref})"),
                [g.values(dt, sa, mode), g.values(dt, sb, mode)], {"dtype": dt, "k": k})
    dt = g.choice(("float32", "float64", "int32"))
    n, c, o = g.int(1, 2), g.int(1, 2), g.int(1, 2)
    h, w = g.int(2, 5), g.int(2, 5)
    kh, kw = g.int(1, 2), g.int(1, 2)
    stride = (g.int(1, 2), g.int(1, 2))
    lhs_d = g.choice(("None", "(2, 1)"))
    padding = g.choice(('"VALID"', '"SAME"', "[(1, 0), (0, 1)]") if lhs_d == "None" else
                       ("[(0, 0), (0, 0)]", "[(1, 0), (0, 1)]"))
    rhs_d = g.choice(("None", "(1, 2)"))
    body = (f"lax.conv_general_dilated(x0, x1, {stride}, {padding}, lhs_dilation={lhs_d}, "
            f"rhs_dilation={rhs_d})")
    mode = "edge" if g.chance(0.2) else "normal"
    return ("dot_conv", ["convolution"], _lam(2, body),
            [g.values(dt, (n, c, h, w), mode), g.values(dt, (o, c, kh, kw), mode)], {"dtype": dt, "k": c * kh * kw})


def fam_index(g: Gen):
    kind = g.choice(("take", "scatter", "dynamic_slice", "dynamic_update_slice", "gather_index"))
    dt = _pick_dtype(g, ALL)
    shape = g.shape(rank=g.int(1, 3), hi=5)
    x = g.values(dt, shape)
    if kind == "take":
        ax = g.int(0, len(shape) - 1)
        idx = g.indices(g.shape(rank=g.int(0, 2)), shape[ax])
        mode = g.choice(('"clip"', '"fill"', "None"))
        return "indexing", ["gather"], _lam(2, f"jnp.take(x0, x1, axis={ax}, mode={mode})"), [x, idx], {"dtype": dt}
    if kind == "gather_index":
        idx = g.indices((g.int(1, 4),), shape[0])
        mode = g.choice(('"clip"', '"fill"', '"promise_in_bounds"'))
        return ("indexing", ["gather"], _lam(2, f"x0.at[x1].get(mode={mode})"), [x, idx], {"dtype": dt})
    if kind == "scatter":
        idx = g.indices((g.int(1, 4),), shape[0])
        dup = len(set(idx.tolist())) < len(idx)
        upd = g.values(dt, (len(idx),) + shape[1:])
        method = g.choice(("set", "add", "mul", "min", "max")) if dt != "bool" else g.choice(("set", "min", "max"))
        if is_complex(dt) and method in ("min", "max"):
            method = "add"
        mode = g.choice(('"drop"', '"clip"', '"promise_in_bounds"'))
        return ("indexing", ["scatter_" + method], _lam(3, f"x0.at[x1].{method}(x2, mode={mode})"), [x, idx, upd],
                {"dtype": dt, "duplicates": dup})
    starts = [np.int32(g.indices((), s + 2).item()) for s in shape]
    sizes = tuple(g.int(1, s) for s in shape)
    sargs = ", ".join(f"x{i + 1}" for i in range(len(shape)))
    if kind == "dynamic_slice":
        return ("indexing", ["dynamic_slice"], _lam(1 + len(shape), f"lax.dynamic_slice(x0, ({sargs},), {sizes})"),
                [x, *[np.array(s, np.int32) for s in starts]], {"dtype": dt})
    upd = g.values(dt, sizes)
    n = 1 + len(shape)
    return ("indexing", ["dynamic_update_slice"],
            _lam(n + 1, f"lax.dynamic_update_slice(x0, x{n}, ({sargs},))"),
            [x, *[np.array(s, np.int32) for s in starts], upd], {"dtype": dt})


def fam_movement(g: Gen):
    kind = g.choice(("pad", "slice", "concatenate", "transpose", "rev", "broadcast", "iota", "reshape"))
    dt = _pick_dtype(g, ALL)
    shape = g.shape(rank=g.int(1, 3), hi=4)
    x = g.values(dt, shape)
    r = len(shape)
    if kind == "pad":
        cfg = [(g.int(-1, 2), g.int(-1, 2), g.int(0, 2)) for _ in shape]
        # keep every dimension non-negative
        cfg = [(lo, hi, it) if s + (s - 1) * it + lo + hi >= 0 else (0, 0, it) for s, (lo, hi, it) in zip(shape, cfg)]
        return "data_movement", ["pad"], _lam(2, f"lax.pad(x0, x1, {cfg})"), [x, g.values(dt, ())], {"dtype": dt}
    if kind == "slice":
        start = [g.int(0, s - 1) for s in shape]
        limit = [g.int(a + 1, s) for a, s in zip(start, shape)]
        strides = [g.int(1, 2) for _ in shape]
        return ("data_movement", ["slice"], _lam(1, f"lax.slice(x0, {start}, {limit}, {strides})"), [x],
                {"dtype": dt})
    if kind == "concatenate":
        ax = g.int(0, r - 1)
        s2 = tuple(g.int(1, 3) if i == ax else s for i, s in enumerate(shape))
        return ("data_movement", ["concatenate"], _lam(2, f"lax.concatenate([x0, x1, x0], {ax})"),
                [x, g.values(dt, s2)], {"dtype": dt})
    if kind == "transpose":
        perm = tuple(int(p) for p in g.rng.permutation(r))
        return "data_movement", ["transpose"], _lam(1, f"lax.transpose(x0, {perm})"), [x], {"dtype": dt}
    if kind == "rev":
        dims = tuple(sorted(set(g.int(0, r - 1) for _ in range(g.int(1, r)))))
        return "data_movement", ["reverse"], _lam(1, f"lax.rev(x0, {dims})"), [x], {"dtype": dt}
    if kind == "broadcast":
        out = tuple(shape) + (g.int(1, 3),)
        dims = tuple(range(r))
        if g.chance(0.5):
            out = (g.int(1, 3),) + tuple(shape)
            dims = tuple(range(1, r + 1))
        return ("data_movement", ["broadcast_in_dim"], _lam(1, f"lax.broadcast_in_dim(x0, {out}, {dims})"), [x],
                {"dtype": dt})
    if kind == "iota":
        idt = g.choice([d for d in ALL if d != "bool"])
        dim = g.int(0, r - 1)
        return ("data_movement", ["iota"], _lam(0, f"lax.broadcasted_iota({_dt(idt)}, {shape}, {dim})"), [],
                {"dtype": idt})
    n = int(np.prod(shape))
    out = g.choice([(n,), (1, n), (n, 1)])
    return "data_movement", ["reshape"], _lam(1, f"lax.reshape(x0, {out})"), [x], {"dtype": dt}


def fam_select(g: Gen):
    dt = _pick_dtype(g, ALL)
    shape = g.shape()
    if g.chance(0.5) or dt in COMPLEX or dt == "bool":
        p = g.values("bool", shape)
        return ("select_clamp", ["select"], _lam(3, "lax.select(x0, x1, x2)"),
                [p, g.values(dt, shape), g.values(dt, shape)], {"dtype": dt})
    lo = g.values(dt, shape if g.chance(0.5) else ())
    hi = g.values(dt, lo.shape)
    return ("select_clamp", ["clamp"], _lam(3, "lax.clamp(x0, x1, x2)"), [lo, g.values(dt, shape), hi],
            {"dtype": dt})


def fam_sort(g: Gen):
    kind = g.choice(("sort", "sort_multi", "top_k", "argsort"))
    dt = _pick_dtype(g, FLOATS + INTS + ("bool",) if kind != "top_k" else RM + ("int32", "int64", "uint32"))
    shape = g.shape(rank=g.int(1, 2), hi=6)
    x = g.values(dt, shape)
    if g.chance(0.5):  # ties, signed zeros
        x = np.where(g.rng.random(shape) < 0.4, x.reshape(-1)[0], x).astype(x.dtype)
    if kind == "sort":
        stable = g.chance(0.5)
        return ("sort", ["sort"], _lam(1, f"lax.sort(x0, dimension={len(shape) - 1}, is_stable={stable})"), [x],
                {"dtype": dt})
    if kind == "sort_multi":
        v = g.values("int32", shape)
        stable = g.chance(0.7)
        return ("sort", ["sort"], _lam(2, f"lax.sort((x0, x1), num_keys=1, is_stable={stable})"), [x, v],
                {"dtype": dt, "unstable_multi": not stable})
    if kind == "argsort":
        return ("sort", ["sort"], _lam(1, "jnp.argsort(x0, axis=-1, stable=True)"), [x], {"dtype": dt})
    k = g.int(1, shape[-1])
    return "sort", ["top_k"], _lam(1, f"lax.top_k(x0, {k})"), [x], {"dtype": dt}


def fam_control(g: Gen):
    kind = g.choice(("fori", "while", "cond", "switch", "scan"))
    dt = _pick_dtype(g, RM + ("int32", "int64", "uint8"))
    shape = g.shape(rank=g.int(0, 2))
    x = g.values(dt, shape, "normal" if g.chance(0.6) else "edge")
    y = g.values(dt, shape, "normal")
    if kind == "fori":
        n = g.int(0, 5)
        return ("control_flow", ["while"], _lam(2, f"lax.fori_loop(0, {n}, lambda i, c: c * x1 + "
                                                   f"lax.convert_element_type(i, c.dtype), x0)"), [x, y], {"dtype": dt})
    if kind == "while":
        return ("control_flow", ["while"],
                _lam(2, "lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * c[1] - x1), "
                        "(np.int32(0), x0))[1]"), [x, y], {"dtype": dt})
    if kind == "cond":
        p = g.values("int32", ())
        return ("control_flow", ["cond"],
                _lam(3, "lax.cond(x0 > 0, lambda a, b: a + b, lambda a, b: a * b, x1, x2)"), [p, x, y],
                {"dtype": dt})
    if kind == "switch":
        p = np.array(g.choice((-1, 0, 1, 2, 7)), np.int32)
        return ("control_flow", ["case"],
                _lam(3, "lax.switch(x0, [lambda a, b: a - b, lambda a, b: a * b, lambda a, b: lax.max(a, b)], "
                        "x1, x2)"), [p, x, y], {"dtype": dt})
    xs = g.values(dt, (g.int(1, 4),) + shape, "normal")
    return ("control_flow", ["while"], _lam(2, "lax.scan(lambda c, a: (c * a + a, c - a), x0, x1)"), [x, xs],
            {"dtype": dt})


def fam_rng(g: Gen):
    alg = g.choice(("RNG_THREE_FRY", "RNG_PHILOX", "RNG_DEFAULT"))
    out = g.choice(("uint8", "uint16", "uint32", "uint64"))
    shape = g.shape(rank=g.int(1, 2), hi=5)
    key = g.values("uint32", (4,))
    return ("rng", ["rng_bit_generator"],
            _lam(1, f"lax.rng_bit_generator(x0, {shape}, {_dt(out)}, algorithm=lax.RandomAlgorithm.{alg})"), [key],
            {"algorithm": alg})


FAMILIES: dict[str, tuple[float, Callable]] = {
    "elementwise_unary": (5, fam_unary_float),
    "elementwise_binary": (3, fam_binary_float),
    "compare": (1.5, fam_compare),
    "integer": (2.5, fam_int),
    "conversion": (3, fam_convert),
    "reduction": (3, fam_reduce),
    "dot_conv": (1, fam_dot),
    "indexing": (2, fam_index),
    "data_movement": (1.5, fam_movement),
    "select_clamp": (1, fam_select),
    "sort": (1, fam_sort),
    "control_flow": (1, fam_control),
    "rng": (0.5, fam_rng),
}


def make_case(seed: int, index: int, family: str | None = None) -> Case:
    g = Gen(seed, index)
    names = sorted(FAMILIES)
    if family is None:
        w = np.array([FAMILIES[n][0] for n in names])
        family = names[int(g.rng.choice(len(names), p=w / w.sum()))]
    fam, ops, source, args, tags = FAMILIES[family][1](g)
    return Case(seed, index, fam, tuple(ops), source, tuple(np.asarray(a) for a in args), tags)
