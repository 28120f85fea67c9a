"""The one place that lists why XLA CPU and the spec may legitimately disagree, and the classifier.

DEVIATIONS (class i): XLA CPU's known deviations from the StableHLO spec.  Each has a name, a
description, a minimal JAX reproducer (`source`, `args`) with the spec's result (`spec`, which our
interpreter gives), the jaxlib versions that show it (tests/oracle/test_xla_deviations.py runs each
reproducer on the installed jaxlib: XLA must still deviate there, and must not where it is not listed)
and a predicate that recognises a fuzzer mismatch of its class.

IMPLEMENTATION_DEFINED (class ii): the spec's implementation-defined cases, named per class, each with a
predicate.

KNOWN_BUGS (class iii, ours): bugs of our interpreter that are known and being fixed, each with the
issue's reproducer (tests/oracle/test_differential_sample.py fails once one no longer reproduces, so the
list is kept current) and a predicate that names a fuzzer mismatch it explains.  Any other class (iii)
mismatch is named "new".
"""

from __future__ import annotations

import re
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import ml_dtypes
import numpy as np

from tests.differential import compare as cmp
from tests.differential.generator import FLOAT_SMALL, dtype, is_float, is_int

if TYPE_CHECKING:
    from tests.differential.runner import Outcome

JAXLIBS = ("0.10", "0.12")


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    matches: Callable[["Outcome", cmp.Comparison], bool]
    source: str = ""                      # a lambda (the namespace of generator.namespace())
    args: str = ""                        # a tuple expression of numpy arrays
    spec: str = ""                        # the spec's result: a list expression of numpy arrays
    jaxlibs: tuple[str, ...] = JAXLIBS    # the jaxlib versions whose XLA shows it
    family: str = ""                      # the reproducer as a fuzzer case: its family, ops and tags
    ops: tuple[str, ...] = ()
    tags: tuple[tuple[str, object], ...] = ()
    on_error: bool = False                # a known bug that shows as our interpreter raising
    group: str = ""                       # the deviation's family (cpu_flush_to_zero, ...): its name if empty

    @property
    def family_name(self) -> str:
        return self.group or self.name

    def case(self):
        """The reproducer as a `Case`, so that the classifier can be shown to recognise it."""
        from tests.differential.generator import Case, namespace

        ns = namespace()
        args = eval(self.args, ns)  # noqa: S307 - our own table
        return Case(-1, 0, self.family, self.ops, self.source, tuple(np.asarray(a) for a in args),
                    dict(self.tags))

    def spec_result(self) -> list[np.ndarray]:
        from tests.differential.generator import namespace

        return [np.asarray(v) for v in eval(self.spec, namespace())]  # noqa: S307 - our own table


# ------------------------------------------------------------------------------------------- helpers


def _bad_inputs(out: "Outcome", res: cmp.Comparison, arg: int = 0) -> np.ndarray | None:
    """The elements of input `arg` at the differing positions of an elementwise case's results."""
    if arg >= len(out.case.args):
        return None
    a = out.case.args[arg].reshape(-1)
    masks = [leaf.bad for leaf in res.leaves if leaf.reason and leaf.bad is not None]
    if not masks or any(m.size != a.size for m in masks):
        return None
    m = np.logical_or.reduce(masks)
    return a[m]


def _rerun_ours(out: "Outcome", args) -> list[np.ndarray] | None:
    from tests.differential.runner import lower, run_ours

    try:
        lowered = lower(out.case.fn(), args)
        return run_ours(lowered.as_text(), args)
    except Exception:
        return None


_F32_TINY = float(np.finfo(np.float32).tiny)
_F64_TINY = float(np.finfo(np.float64).tiny)


def _flush(a: np.ndarray) -> np.ndarray:
    """Flush the values XLA CPU flushes (float32/float64 subnormals, of any type computed in them)."""
    a = np.asarray(a)
    dt = a.dtype
    if dt.kind == "c":  # by parts (re + 1j * im would turn an infinite part into NaN)
        out = np.empty(a.shape, dt)
        out.real, out.imag = _flush(a.real), _flush(a.imag)
        return out
    if not is_float(dt.name):
        return a
    if dt.name == "float8_e8m0fnu":  # no zero: XLA's flushed 0 converts back to NaN
        x = a.astype(np.float64)
        return np.where(x < _F32_TINY, np.nan, x).astype(dt)
    with np.errstate(all="ignore"):
        x = a.astype(np.float64)
        tiny = _F64_TINY if dt == np.float64 else _F32_TINY
        sub = (x != 0) & (np.abs(x) < tiny)
        if not sub.any():
            return a
        return np.where(sub, np.copysign(0.0, x), x).astype(dt)


# ops that move or reinterpret bits without float arithmetic: XLA CPU's denormals-are-zero does not
# touch their operands (a bitcast of a subnormal keeps its bits)
_NO_FLOAT_ARITHMETIC = {
    "stablehlo." + n for n in (
        "bitcast_convert", "reshape", "transpose", "slice", "dynamic_slice", "dynamic_update_slice",
        "concatenate", "broadcast_in_dim", "pad", "gather", "reverse", "tuple", "get_tuple_element", "iota",
        "constant", "optimization_barrier", "while", "if", "case", "return", "real", "imag", "complex",
        "select", "sort", "scatter")
} | {"func.return", "func.call", "chlo.top_k"}


def _flush_value(v):
    if isinstance(v, tuple):
        return tuple(_flush_value(x) for x in v)
    if isinstance(v, np.ndarray) and (v.dtype.kind in "fc" or is_float(v.dtype.name)):
        return _flush(v)
    return v


@contextlib.contextmanager
def xla_cpu_ftz():
    """Our interpreter with XLA CPU's flush-to-zero and denormals-are-zero emulated op by op: the float
    operands and results of every op that computes on floats are flushed (an IMPL_WRAPPERS hook, for the
    modules parsed while it is installed), and reduction bodies run op by op (no numpy ufunc for a body
    of one known op), so each partial result of a reduce/reduce_window/scatter is flushed too."""
    from stablehlo_py.interpreter import evaluator
    from stablehlo_py.interpreter.compiled import IMPL_WRAPPERS
    from stablehlo_py.interpreter.impls import reduction

    def hook(op, fn):
        if fn is None or op.name in _NO_FLOAT_ARITHMETIC:
            return fn

        def flushed(ev, op_, args, env):
            return [_flush_value(r) for r in fn(ev, op_, [_flush_value(a) for a in args], env)]

        return flushed

    kinds = evaluator.region_kind, reduction.region_kind
    IMPL_WRAPPERS.append(hook)
    evaluator.region_kind = reduction.region_kind = lambda region: None
    try:
        yield
    finally:
        IMPL_WRAPPERS.remove(hook)
        evaluator.region_kind, reduction.region_kind = kinds


def run_ours_ftz(text: str, args) -> list[np.ndarray]:
    """Our result with XLA CPU's flushing emulated (xla_cpu_ftz) on the program with its CHLO ops
    decomposed into StableHLO ops (chlo-legalize-to-stablehlo, upstream's decompositions as XLA runs
    them), so that the decompositions' intermediates and constants are flushed too."""
    from stablehlo_py.interpreter import run
    from stablehlo_py.ir import parse
    from stablehlo_py.passes import chlo_legalize_to_stablehlo

    with xla_cpu_ftz():
        module = parse(text)
        if "chlo." in text:
            module = chlo_legalize_to_stablehlo.run(module, {})
        return [np.asarray(v) for v in run(module, *args)]


# ------------------------------------------------------------------------------------- class (i)


def _underflowed(out: "Outcome", res: cmp.Comparison) -> bool:
    """XLA's result is 0 where ours is below 2^24 times the smallest normal of the type it is computed in:
    an intermediate that became subnormal, flushed (a product of tiny values, then scaled)."""
    for leaf in res.leaves:
        if not leaf.reason:
            continue
        t = np.asarray(out.theirs[leaf.index])
        if t.dtype.kind == "c" or not is_float(t.dtype.name):
            return False
        tiny = _F64_TINY if t.dtype == np.float64 else _F32_TINY
        o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
        tb = t.reshape(-1)[leaf.bad].astype(np.float64)
        if not ((tb == 0) & (np.abs(o) < tiny * 2.0**24)).all():
            return False
    return True


def _ftz_emulated(out: "Outcome") -> bool:
    """Our result with XLA CPU's flushing emulated op by op (xla_cpu_ftz) equals XLA's."""
    if not any(a.dtype.kind in "fc" or is_float(a.dtype.name) for a in list(out.case.args) + list(out.theirs)):
        return False
    from tests.differential.runner import run_ours

    try:
        with np.errstate(all="ignore"):
            ours = [_flush(np.asarray(o)) for o in run_ours_ftz(out.text, out.case.args)]
            plain = run_ours(out.text, out.case.args)
    except Exception:
        return False
    if len(plain) != len(out.ours) or any(np.asarray(p).tobytes() != np.asarray(o).tobytes()
                                          for p, o in zip(plain, out.ours)):
        return False  # not the result this program gives: nothing to explain by flushing
    if all(o.tobytes() == p.tobytes() for o, p in zip(ours, out.ours)):
        return False  # flushing changes nothing: not the explanation
    return cmp.compare(ours, [_flush(t) for t in out.theirs], cmp.tolerance(out.case)).ok


def _ftz(out: "Outcome", res: cmp.Comparison) -> bool:
    """Our result with subnormal inputs and outputs flushed to zero equals XLA's (flushed), or XLA's is 0
    where ours is tiny (an intermediate flushed).  (Other intermediates: cpu_flush_to_zero_intermediate.)"""
    return _underflowed(out, res) or _ftz_io(out)


def _ftz_e8m0(out: "Outcome") -> bool:
    """f8e8m0fnu computed in float32, where its smallest value 2^-127 is subnormal: our result for the
    program on float32 inputs with 2^-127 read as 0 (the zero that XLA computes on), converted back to
    f8e8m0fnu (a 0 result becomes NaN), equals XLA's."""
    if not any(a.dtype.name == "float8_e8m0fnu" for a in out.case.args) or out.case.family not in (
            "elementwise_unary", "elementwise_binary", "select_clamp", "compare"):
        return False
    with np.errstate(all="ignore"):
        up = []
        for a in out.case.args:
            if a.dtype.name == "float8_e8m0fnu":
                x = a.astype(np.float32)
                x[x < _F32_TINY] = 0.0
                up.append(x)
            else:
                up.append(a)
    ours = _rerun_ours(out, tuple(up))
    if ours is None or len(ours) != len(out.theirs):
        return False
    with np.errstate(all="ignore"):
        ours = [np.asarray(_flush(np.asarray(o))).astype(t.dtype) for o, t in zip(ours, out.theirs)]
    return cmp.compare(ours, out.theirs, cmp.tolerance(out.case)).ok


def _ftz_io(out: "Outcome") -> bool:
    if _ftz_e8m0(out):
        return True
    flushed = tuple(_flush(a) for a in out.case.args)
    changed_in = any(f.tobytes() != a.tobytes() for f, a in zip(flushed, out.case.args))
    ours = _rerun_ours(out, flushed) if changed_in else out.ours
    if ours is None:
        return False
    ours = [_flush(o) for o in ours]
    theirs = [_flush(t) for t in out.theirs]
    changed_out = any(o.tobytes() != p.tobytes() for o, p in zip(ours, out.ours))
    if not (changed_in or changed_out):
        return False
    return cmp.compare(ours, theirs, cmp.tolerance(out.case)).ok


def _int4_popcnt(out: "Outcome", res: cmp.Comparison) -> bool:
    if out.case.ops != ("popcnt",) or out.case.tags.get("dtype") != "int4":
        return False
    x = out.case.args[0].astype(np.int8)  # sign-extended to 8 bits
    counts = np.array([bin(int(v) & 0xFF).count("1") for v in x.reshape(-1)]).astype(np.int8)
    wrapped = ((counts + 8) % 16 - 8).astype(ml_dtypes.int4).reshape(x.shape)
    return np.asarray(out.theirs[0]).astype(np.int8).tobytes() == wrapped.astype(np.int8).tobytes()


def _reduce_window_padding(out: "Outcome", res: cmp.Comparison) -> bool:
    return (any(op.startswith("reduce_window") for op in out.case.ops) and out.case.tags.get("padded")
            and not out.case.tags.get("identity", True))


_MULTI_OP_FAMILIES = ("reduction", "dot_conv", "control_flow")


def _init_dropped(out: "Outcome", res: cmp.Comparison) -> bool:
    """Our result with the init value replaced by the body's identity equals XLA's."""
    src = out.case.tags.get("identity_source")
    if out.case.tags.get("identity", True) or not src or len(out.case.args) != 2:
        return False
    from tests.differential.generator import namespace

    ident = np.asarray(eval(src, namespace()))  # noqa: S307 - the generator's own expression
    ours = _rerun_ours(out, (out.case.args[0], ident.astype(out.case.args[1].dtype)))
    return ours is not None and cmp.compare(ours, out.theirs, cmp.tolerance(out.case)).ok


_LOW_RE = re.compile(r"(?<=[x<])b?f16(?=>)")
_CONVERT_DOWN_RE = re.compile(
    r"(%[\w#]+) = stablehlo\.convert (%[\w#]+) : \(tensor<([\dx]*)f32>\) -> tensor<[\dx]*(b?f16)>")
_FORMAT = {"bf16": "e8m7", "f16": "e5m10"}


def _keep_in_f32(text: str) -> str:
    """The program with bf16/f16 computed in f32: explicit conversions down still round (as
    reduce_precision to the type's format), op results do not."""
    text = _CONVERT_DOWN_RE.sub(lambda m: f"{m[1]} = stablehlo.reduce_precision {m[2]}, format = "
                                          f"{_FORMAT[m[4]]} : tensor<{m[3]}f32>", text)
    return _LOW_RE.sub("f32", text)


def _excess_precision(out: "Outcome", res: cmp.Comparison) -> bool:
    """XLA keeps bfloat16/float16 intermediate results in float32: our result for the program with every
    bf16/f16 type made f32 (inputs converted up, results rounded back) equals XLA's.  Only for programs
    of several ops (a chain, a conversion pair, a reduction, a loop): one op rounds once either way."""
    if not _LOW_RE.search(out.text) or ("chain" not in out.case.ops and out.case.family not in
                                       _MULTI_OP_FAMILIES + ("conversion",)):
        return False
    if "reduce_precision" in out.case.ops:
        return False
    from tests.differential.runner import run_ours

    up = tuple(a.astype(np.float32) if a.dtype.name in ("float16", "bfloat16") else a for a in out.case.args)
    try:
        with np.errstate(all="ignore"):
            ours = run_ours(_keep_in_f32(out.text), up)
            ours = [np.asarray(o).astype(t.dtype) for o, t in zip(ours, out.theirs)]
    except Exception:
        return False
    return len(ours) == len(out.theirs) and cmp.compare(ours, out.theirs, cmp.tolerance(out.case)).ok


_MUL_RE = re.compile(r"(%[\w#]+) = (?:stablehlo\.multiply|chlo\.square)")  # square: x * x


def _multiply_feeds_add(text: str) -> bool:
    names = _MUL_RE.findall(text)
    # abs(x * x) is x * x to XLA's simplifier: the square's abs feeds the add as the product would
    names += [m[1] for n in list(names) for m in re.finditer(rf"(%[\w#]+) = stablehlo\.abs {re.escape(n)}\b", text)]
    return any(re.search(rf"stablehlo\.(add|subtract) [^\n]*{re.escape(n)}\b", text) for n in names)


def _fma(out: "Outcome", res: cmp.Comparison) -> bool:
    """The program multiplies into an add or subtract, and XLA's result is what the contraction gives:
    within 256 ulps of ours or 16 ulps of the largest input squared (a loop amplifies the dropped
    rounding), or for float32 programs between ours and ours on float64 inputs (the product unrounded)."""
    if not _multiply_feeds_add(out.text):
        return False
    args = out.case.args
    floats = {a.dtype for a in args if a.dtype.kind in "fc"}
    if not floats or not floats <= {np.dtype(np.float32), np.dtype(np.complex64), np.dtype(np.float64),
                                    np.dtype(np.complex128)}:
        return False
    wide = None
    if floats <= {np.dtype(np.float32), np.dtype(np.complex64)}:
        up = tuple(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) if a.dtype.kind in "fc" else a
                   for a in args)
        wide = _rerun_ours(out, up)
        if wide is None or len(wide) != len(out.theirs):
            return False
    with np.errstate(all="ignore"):
        big = max([float(np.max(np.abs(a[np.isfinite(a)]), initial=0)) for a in args if a.dtype.kind in "fc"],
                  default=0.0)
        for leaf in res.leaves:
            if not leaf.reason:
                continue
            t = np.asarray(out.theirs[leaf.index])
            o = np.asarray(out.ours[leaf.index])
            if leaf.bad is None or t.dtype.kind not in "fc":
                return False
            eps = float(np.finfo(t.real.dtype).eps)
            tb = t.reshape(-1)[leaf.bad].astype(np.complex128)
            ob = o.reshape(-1)[leaf.bad].astype(np.complex128)
            scale = np.maximum(np.abs(tb), np.abs(ob))
            err = np.abs(tb - ob)
            near = np.isfinite(err) & ((err <= 256 * eps * scale) | (err <= 16 * eps * big * big))
            if wide is not None and not near.all():
                wb = np.asarray(wide[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
                slack = 2 * eps * np.maximum(np.abs(tb), np.abs(wb))
                ok = np.ones(tb.shape, bool)
                for part in (np.real, np.imag):
                    lo = np.minimum(part(ob), part(wb)) - slack
                    hi = np.maximum(part(ob), part(wb)) + slack
                    ok &= (part(tb) >= lo) & (part(tb) <= hi)
                if not ok.all():
                    return False
                ok |= near
                if not ok.all():
                    return False
            elif not near.all():
                return False
    return True


def _conv_holes(out: "Outcome", res: cmp.Comparison) -> bool:
    """A convolution with padding or lhs dilation whose inputs hold an infinity or NaN, and ours is NaN
    where XLA's is not: the spec multiplies the padded/inserted zeros (0 * inf = NaN), XLA skips them.
    With subnormal inputs, ours is computed on the inputs flushed (elements that then equal XLA's are
    its flush to zero)."""
    if "convolution" not in out.case.ops:
        return False
    src = out.case.source
    if "lhs_dilation=None" in src and ('"VALID"' in src or "[(0, 0), (0, 0)]" in src):
        return False
    if not any(np.isinf(a.astype(np.float64)).any() or np.isnan(a.astype(np.float64)).any()
               for a in out.case.args if a.dtype.kind == "f"):
        return False
    ours = out.ours
    flushed = tuple(_flush(a) for a in out.case.args)
    if any(f.tobytes() != a.tobytes() for f, a in zip(flushed, out.case.args)):
        ours = _rerun_ours(out, flushed)  # subnormal inputs as XLA CPU reads them (cpu_flush_to_zero)
        if ours is None:
            return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            same = (o == t) | (np.isnan(o) & np.isnan(t))
            if not (same | (np.isnan(o) & ~np.isnan(t))).all() or same.all():
                return False
    return True


_DIV_RE = re.compile(r"^(\s*)(%[\w#]+) = stablehlo\.divide (%[\w#]+), (%[\w#]+) : (\S+)$", re.M)


def _reassociate_divisions(text: str) -> str:
    """(a / b) / c written as a / (b * c), as XLA's algebraic simplifier rewrites it."""
    defs = {m[2]: m for m in _DIV_RE.finditer(text)}

    def rewrite(m: re.Match) -> str:
        inner = defs.get(m[3])
        if inner is None:
            return m[0]
        t = "%reassoc_" + m[2][1:].replace("#", "_")
        return (f"{m[1]}{t} = stablehlo.multiply {inner[4]}, {m[4]} : {m[5]}\n"
                f"{m[1]}{m[2]} = stablehlo.divide {inner[3]}, {t} : {m[5]}")

    return _DIV_RE.sub(rewrite, text)


def _div_reassociated(out: "Outcome", res: cmp.Comparison) -> bool:
    """Our result for the program with (a / b) / c rewritten as a / (b * c) (XLA's flush to zero applied
    to inputs and results) equals XLA's."""
    text = _reassociate_divisions(out.text)
    if text == out.text:
        return False
    from tests.differential.runner import run_ours

    args = tuple(_flush(a) for a in out.case.args)
    try:
        with np.errstate(all="ignore"):
            ours = [_flush(o) for o in run_ours(text, args)]
    except Exception:
        return False
    theirs = [_flush(t) for t in out.theirs]
    left = cmp.compare(ours, theirs, cmp.tolerance(out.case))
    if left.ok:
        return True
    # complex: where b * c overflows (or underflows), XLA's quotient by it follows its complex formulas
    # (x / (inf + inf i) = NaN + inf i) where ours gives Annex G's values: only those may be left
    products = [m for m in _DIV_RE.finditer(text) if m[4].startswith("%reassoc_")]
    mul = re.search(r"%reassoc_\w+ = stablehlo\.multiply %arg(\d+), %arg(\d+)", text)
    if not products or mul is None or not out.case.tags.get("dtype", "").startswith("complex") or len(left.leaves) != 1:
        return False
    with np.errstate(all="ignore"):
        b, c = args[int(mul[1])], args[int(mul[2])]
        prod = np.broadcast_to(b * c, ours[0].shape).reshape(-1)
        extreme = ~np.isfinite(prod) | (np.abs(prod.real) + np.abs(prod.imag) < float(np.finfo(prod.real.dtype).tiny))
    return bool(extreme[left.leaves[0].bad].all())


def _installed_jaxlib() -> str:
    import jaxlib

    return ".".join(jaxlib.__version__.split(".")[:2])


def _digamma_old(out: "Outcome", res: cmp.Comparison) -> bool:
    """digamma/polygamma where XLA gives NaN and ours does not, on a jaxlib whose decomposition is older."""
    entry = next(e for e in DEVIATIONS if e.name == "chlo_digamma_old_decomposition")
    if _installed_jaxlib() not in entry.jaxlibs or not {"digamma", "polygamma"} & set(out.case.ops):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            if not (np.isnan(t).all() and not np.isnan(o).any()):
                return False
    return True


def _double_rounding(out: "Outcome", res: cmp.Comparison) -> bool:
    """One elementwise op on an 8/4-bit float type: our result for the op on the inputs converted to
    float16 or float32, rounded back to the type (two roundings, as XLA computes), equals XLA's."""
    dts = {a.dtype.name for a in out.case.args if is_float(a.dtype.name)}
    if out.case.family not in ("elementwise_unary", "elementwise_binary") or "chain" in out.case.ops:
        return False
    if not dts or not dts <= set(FLOAT_SMALL):
        return False
    for wide in (np.float16, np.float32):
        with np.errstate(all="ignore"):
            up = tuple(a.astype(wide) if is_float(a.dtype.name) else a for a in out.case.args)
        ours = _rerun_ours(out, up)
        if ours is None or len(ours) != len(out.theirs):
            continue
        with np.errstate(all="ignore"):
            ours = [np.asarray(o).astype(t.dtype) for o, t in zip(ours, out.theirs)]
        if cmp.compare(ours, out.theirs, cmp.tolerance(out.case)).ok:
            return True
    return False


def _two_bit_sort(out: "Outcome", res: cmp.Comparison) -> bool:
    return "sort" in out.case.ops and out.case.tags.get("dtype") in ("int2", "uint2")


def _cbrt_subnormal(out: "Outcome", res: cmp.Comparison) -> bool:
    if "cbrt" not in out.case.ops or out.case.tags.get("dtype") not in ("float32", "bfloat16"):
        return False
    bad = _bad_inputs(out, res)
    x = None if bad is None else np.abs(bad.astype(np.float64))
    return x is not None and x.size > 0 and bool(((x > 0) & (x < _F32_TINY)).all())


_REFERENCE = {
    "power": np.power, "atan2": np.arctan2, "cbrt": np.cbrt, "exponential": np.exp, "log": np.log,
    "log_plus_one": np.log1p, "exponential_minus_one": np.expm1, "sine": np.sin, "cosine": np.cos,
    "tan": np.tan, "tanh": np.tanh, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
}


def _subnormal_input(out: "Outcome", res: cmp.Comparison) -> bool:
    """One real elementwise op on float32/float64/bfloat16 where every differing element has a subnormal
    input and ours is within 4 ulps of numpy's float64 value of the op (an independent reference)."""
    case = out.case
    if len(case.ops) != 1 or case.ops[0] not in _REFERENCE:
        return False
    if case.tags.get("dtype") in ("complex64", "complex128"):
        return _subnormal_complex_input(out, res)
    if case.tags.get("dtype") not in ("float32", "float64", "bfloat16"):
        return False
    ins = [_bad_inputs(out, res, i) for i in range(len(case.args))]
    if any(x is None or x.size == 0 for x in ins):
        return False
    dt = out.theirs[0].dtype
    tiny = float(ml_dtypes.finfo(dt).tiny)
    with np.errstate(all="ignore"):
        x64 = [x.astype(np.float64) for x in ins]
        sub = np.zeros(x64[0].shape, bool)
        for x in x64:
            sub |= (x != 0) & (np.abs(x) < tiny)
        if not sub.all():
            return False
        ref = np.asarray(_REFERENCE[case.ops[0]](*x64)).astype(dt)
        o = np.asarray(out.ours[0]).reshape(-1)[res.leaves[0].bad].astype(dt)
    return cmp.compare_leaf(0, o, ref, cmp.Tolerance(4, 0)).reason == ""


def _subnormal_complex_input(out: "Outcome", res: cmp.Comparison) -> bool:
    """The complex case of _subnormal_input: a part of each differing input is subnormal, ours within 4 ulps
    (of the larger part) of numpy's complex128 value."""
    op = out.case.ops[0]
    if op in ("atan2", "cbrt", "power"):
        return False
    z = _bad_inputs(out, res)
    if z is None or z.size == 0 or len(out.case.args) != 1:
        return False
    tiny = float(np.finfo(z.real.dtype).tiny)
    with np.errstate(all="ignore"):
        parts = np.stack([z.real.astype(np.float64), z.imag.astype(np.float64)])
        if not ((parts != 0) & (np.abs(parts) < tiny)).any(axis=0).all():
            return False
        ref = np.asarray(_REFERENCE[op](z.astype(np.complex128))).astype(z.dtype)
        o = np.asarray(out.ours[0]).reshape(-1)[res.leaves[0].bad]
    return cmp.compare_leaf(0, o, ref, cmp.Tolerance(4, 0)).reason == ""


def _reduce_precision_nan(out: "Outcome", res: cmp.Comparison) -> bool:
    """reduce_precision(x, e, 0) of any float type where the input is NaN, ours +inf and XLA's NaN."""
    src = out.case.source
    if out.case.ops != ("reduce_precision",) or not re.search(r"reduce_precision\(x0, \d+, 0\)", src):
        return False
    bad = _bad_inputs(out, res)
    if bad is None or bad.size == 0 or not np.isnan(bad.astype(np.float64)).all():
        return False
    o = np.asarray(out.ours[0]).reshape(-1)[res.leaves[0].bad].astype(np.float64)
    t = np.asarray(out.theirs[0]).reshape(-1)[res.leaves[0].bad].astype(np.float64)
    return bool((np.isposinf(o) & np.isnan(t)).all())


def _f4_six_to_int(out: "Outcome", res: cmp.Comparison) -> bool:
    if out.case.ops != ("convert",) or out.case.tags.get("src") != "float4_e2m1fn" or not is_int(
            out.case.tags.get("dst", "")):
        return False
    bad = _bad_inputs(out, res)
    return bad is not None and bad.size > 0 and bool(np.all(np.abs(bad.astype(np.float32)) == 6.0))


def _zeta_flushed_constant(out: "Outcome", res: cmp.Comparison) -> bool:
    """zeta/polygamma where ours is an infinity and XLA's NaN (upstream's test |q^-x| < |sum| * 2^-149
    with sum = inf, its constant flushed to 0 by XLA CPU)."""
    if not {"zeta", "polygamma"} & set(out.case.ops):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            if not (np.isinf(o) & np.isnan(t)).all():
                return False
    return True


# the complex functions where stablehlo_py/semantics/chlo.py departs from upstream's decomposition
_CHLO_COMPLEX = {"sinh": "sinh", "cosh": "cosh", "atan": "atan", "atanh": "atanh"}


def _exact_within(value: complex, ref: complex, part_type, ulps: int) -> bool:
    """value within `ulps` of ref in each part, measured on the larger part of ref (and 1 eps absolute)."""
    fi = np.finfo(part_type)
    scale = max(abs(ref.real), abs(ref.imag))
    allowed = max(ulps * float(np.spacing(part_type(min(scale, float(fi.max))))), float(fi.eps) * 1.0)
    return abs(value.real - ref.real) <= allowed and abs(value.imag - ref.imag) <= allowed


def _chlo_departure(out: "Outcome", res: cmp.Comparison) -> bool:
    """Where stablehlo_py/semantics/chlo.py departs from upstream's decomposition on purpose: complex
    sinh/cosh/atan/atanh where ours is within 16 ulps of the exact value (cmath on the float64 or
    complex128 input) and XLA's is not; zeta/polygamma at q = +inf where ours is the limit 0 and XLA's
    NaN (upstream's 0 * inf)."""
    ops = out.case.ops
    if len(ops) == 1 and ops[0] in ("zeta", "polygamma") and len(out.case.args) == 2:
        q = _bad_inputs(out, res, 1)
        if q is None or q.size == 0 or not np.isposinf(q.astype(np.float64)).all():
            return False
        for leaf in res.leaves:
            if leaf.reason:
                o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
                t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
                if not ((o == 0) & np.isnan(t)).all():
                    return False
        return True
    if len(ops) != 1 or ops[0] not in _CHLO_COMPLEX or not out.case.tags.get("dtype", "").startswith("complex"):
        return False
    import cmath

    fn = getattr(cmath, _CHLO_COMPLEX[ops[0]])
    z = _bad_inputs(out, res)
    if z is None or z.size == 0:
        return False
    part = np.float32 if z.dtype == np.complex64 else np.float64
    o = np.asarray(out.ours[0]).reshape(-1)
    t = np.asarray(out.theirs[0]).reshape(-1)
    bad = res.leaves[0].bad
    for zi, oi, ti in zip(z, o[bad], t[bad]):
        try:
            ref = fn(complex(zi))
        except (ValueError, OverflowError):
            return False
        if not (cmath.isfinite(ref) and cmath.isfinite(complex(oi))):
            return False
        if not _exact_within(complex(oi), ref, part, 16) or (
                cmath.isfinite(complex(ti)) and _exact_within(complex(ti), ref, part, 16)):
            return False
    return True


_ADD_SUB_RE = re.compile(r"^(\s*)(%[\w#]+) = stablehlo\.(add|subtract) (%[\w#]+), (%[\w#]+) : (\S+)$", re.M)


def _cancel_add_sub(text: str) -> str:
    """(a - b) + b, b + (a - b), (a + b) - b and (b + a) - b written as a, as jaxlib 0.10's algebraic
    simplifier rewrites them on complex types."""
    defs = {m[2]: m for m in _ADD_SUB_RE.finditer(text)}

    def rewrite(m: re.Match) -> str:
        kept = None
        if m[3] == "add":
            for inner_name, other in ((m[4], m[5]), (m[5], m[4])):
                inner = defs.get(inner_name)
                if inner is not None and inner[3] == "subtract" and inner[5] == other:
                    kept = inner[4]
                    break
        else:
            inner = defs.get(m[4])
            if inner is not None and inner[3] == "add" and m[5] in (inner[4], inner[5]):
                kept = inner[5] if m[5] == inner[4] else inner[4]
        if kept is None or "complex" not in m[6]:
            return m[0]
        return f"{m[1]}{m[2]} = stablehlo.reshape {kept} : ({m[6]}) -> {m[6]}"

    return _ADD_SUB_RE.sub(rewrite, text)


def _rewrite_explains(out: "Outcome", name: str, rewrite: Callable[[str], str]) -> bool:
    """On a jaxlib that entry `name` lists: our result for the program rewritten as XLA's simplifier
    rewrites it (`rewrite`, which changed something) equals XLA's (both with XLA's flush applied)."""
    entry = next(e for e in DEVIATIONS if e.name == name)
    if _installed_jaxlib() not in entry.jaxlibs:
        return False
    text = rewrite(out.text)
    if text == out.text:
        return False
    from tests.differential.runner import run_ours

    try:
        with np.errstate(all="ignore"):
            ours = [_flush(o) for o in run_ours(text, tuple(_flush(a) for a in out.case.args))]
    except Exception:
        return False
    return cmp.compare(ours, [_flush(t) for t in out.theirs], cmp.tolerance(out.case)).ok


def _add_sub_cancelled(out: "Outcome", res: cmp.Comparison) -> bool:
    """Our result for the program with (a - b) + b (and the like) replaced by a equals XLA's (jaxlib
    0.10 only)."""
    return _rewrite_explains(out, "complex_add_sub_cancelled", _cancel_add_sub)


_SQUARE_RE = re.compile(r"^\s*(%[\w#]+) = (?:chlo\.square (%[\w#]+)|stablehlo\.multiply (%[\w#]+), \3) :", re.M)
_ABS_RE = re.compile(r"^\s*(%[\w#]+) = stablehlo\.abs (%[\w#]+) :", re.M)
_SQRT_RE = re.compile(r"^(\s*)(%[\w#]+) = stablehlo\.sqrt (%[\w#]+) : (tensor<.*>)$", re.M)


def _sqrt_square_to_abs(text: str) -> str:
    """sqrt(x * x) and sqrt(abs(x * x)) on real types written as abs(x), as jaxlib 0.10's algebraic
    simplifier rewrites them."""
    squares = {m[1]: m[2] or m[3] for m in _SQUARE_RE.finditer(text)}
    abses = {m[1]: m[2] for m in _ABS_RE.finditer(text)}

    def rewrite(m: re.Match) -> str:
        operand = abses.get(m[3], m[3])
        x = squares.get(operand)
        if x is None or "complex" in m[4]:
            return m[0]
        return f"{m[1]}{m[2]} = stablehlo.abs {x} : {m[4]}"

    return _SQRT_RE.sub(rewrite, text)


def _sqrt_of_square(out: "Outcome", res: cmp.Comparison) -> bool:
    """Our result for the program with sqrt(x * x) (and sqrt(abs(x * x))) replaced by abs(x) equals XLA's
    (jaxlib 0.10 only)."""
    return _rewrite_explains(out, "sqrt_of_square_simplified", _sqrt_square_to_abs)


DEVIATIONS: list[Entry] = [
    Entry("cpu_flush_to_zero",
          "XLA CPU runs with flush-to-zero and denormals-are-zero: float32/float64 subnormal inputs read as 0 "
          "and subnormal results are written as 0 (the spec keeps IEEE gradual underflow); bfloat16 and the "
          "8-bit types computed in float32 inherit it.",
          _ftz, "lambda x, y: x * y", "(np.array([1e-40], np.float32), np.array([1.0], np.float32))",
          "[np.array([1e-40], np.float32)]", family="elementwise_binary", ops=("multiply",),
          tags=(("dtype", "float32"),), group="cpu_flush_to_zero"),
    Entry("zeta_subnormal_constant_flushed",
          "chlo.zeta at huge x: upstream's decomposition keeps the plain sum when |q^-x| < |sum| * "
          "smallest_subnormal; with sum = +inf that holds (0 < inf) and the result is +inf (ours, and the "
          "mathematics: zeta(1e9, 1/2) >= 2^1e9).  XLA CPU flushes the subnormal constant to 0, inf * 0 is "
          "NaN, the test fails and the Euler-Maclaurin tail's 0 * inf gives NaN.",
          _zeta_flushed_constant, "lambda x0, x1: lax.zeta(x0, x1)",
          "(np.array([1e9], np.float32), np.array([0.5], np.float32))", "[np.array([np.inf], np.float32)]",
          family="elementwise_binary", ops=("zeta",), tags=(("dtype", "float32"),), group="cpu_flush_to_zero"),
    Entry("cpu_flush_to_zero_intermediate",
          "The same flush on a value computed mid-program: a product or sum that becomes subnormal is written "
          "as 0 and the ops after it compute on 0.  Recognised by running our interpreter with XLA CPU's "
          "flushing emulated op by op (xla_cpu_ftz: every float operand and result of an arithmetic op "
          "flushed) and finding XLA's result.",
          lambda out, res: _ftz_emulated(out), "lambda x: (x * x) * np.float32(1e20)",
          "(np.array([1e-20], np.float32),)", "[np.array([9.999946e-21], np.float32)]",
          family="elementwise_binary", ops=("multiply", "chain"), tags=(("dtype", "float32"),),
          group="cpu_flush_to_zero"),
    Entry("int4_popcnt_sign_extended",
          "popcnt on int4 counts the bits of the value sign-extended to 8 bits (popcnt(-1) = 8, wrapping to "
          "-8; the spec counts the 4 bits: 4).",
          _int4_popcnt, "lax.population_count", "(np.array([-1, -8, 7], ml_dtypes.int4),)",
          "[np.array([4, 1, 3], ml_dtypes.int4)]", family="integer", ops=("popcnt",), tags=(("dtype", "int4"),)),
    Entry("reduce_window_padding_skipped",
          "reduce_window skips padded (and base-dilation) positions instead of folding the init value in for "
          "each of them, so the result differs when the init value is not an identity of the body.",
          _reduce_window_padding,
          "lambda x: lax.reduce_window(x, np.float32(1), lax.add, (3,), (1,), [(1, 1)])",
          "(np.arange(4, dtype=np.float32),)", "[np.array([3, 4, 7, 7], np.float32)]", family="reduction",
          ops=("reduce_window_add",), tags=(("dtype", "float32"), ("identity", False), ("padded", True))),
    Entry("reduce_init_dropped",
          "reduce (and reduce_window) over dimensions or windows of size 1: XLA's simplifier replaces the "
          "reduction by its operand, dropping a non-identity init value that the spec folds in.",
          _init_dropped, "lambda x, i: lax.reduce(x, i, lax.add, (1,))",
          "(np.array([[1.0], [2.0]], np.float32), np.float32(10))", "[np.array([11.0, 12.0], np.float32)]",
          family="reduction", ops=("reduce_add",),
          tags=(("dtype", "float32"), ("identity", False), ("identity_source", "np.array(0, np.float32)")),
          group="algebraic_simplification"),
    Entry("bf16_excess_precision",
          "XLA CPU keeps bfloat16 results in float32 where they feed further computation (it drops the "
          "f32->bf16->f32 rounding: excess precision), where the spec rounds every op's result to its type.  "
          "The issue saw it as 'f16 chains kept in f32'; with jaxlib 0.10 and 0.12 float16 chains round per "
          "op on CPU, bfloat16 ones do not.",
          _excess_precision, "lambda x0: (x0.astype(jnp.bfloat16) * x0.astype(jnp.bfloat16)).astype(jnp.float32)",
          "(np.array([3.14159265], np.float32),)", "[np.array([9.875], np.float32)]", family="conversion",
          ops=("convert", "multiply", "chain"), tags=(("dtype", "bfloat16"),)),
    Entry("fma_contraction",
          "XLA CPU contracts a multiply feeding an add or subtract into one fused multiply-add (one rounding), "
          "where the spec rounds the product first; its dot_general/convolution accumulate with FMAs too "
          "(a product beyond the type's range stays finite, so inf - inf = NaN of the rounded products "
          "becomes an infinity).",
          lambda out, res: _fma(out, res) or _dot_fma_overflow(out, res), "lambda x, y, z: x * y + z",
          "(np.float32(1.0000001), np.float32(1.0000001), np.float32(-1.0000002))",
          "[np.array(0.0, np.float32)]", family="elementwise_binary", ops=("multiply", "chain"),
          tags=(("dtype", "float32"),)),
    Entry("conv_padding_skipped",
          "convolution skips padded positions and lhs-dilation holes instead of multiplying the zeros the "
          "spec inserts, so an infinite (or NaN) kernel value meeting one gives 0 where the spec gives NaN.",
          _conv_holes, "lambda x0, x1: lax.conv_general_dilated(x0, x1, (1, 1), [(0, 0), (0, 0)], "
          "lhs_dilation=(1, 2))", "(np.array([[[[1.0, 2.0]]]]), np.array([[[[np.inf]]]]))",
          "[np.array([[[[np.inf, np.nan, np.inf]]]])]", family="dot_conv", ops=("convolution",),
          tags=(("dtype", "float64"), ("k", 1))),
    Entry("div_div_reassociated",
          "XLA's algebraic simplifier rewrites (a / b) / c as a / (b * c): one rounding fewer, a different "
          "result in the last bit (or an overflow/underflow of b * c).",
          _div_reassociated, "lambda x0, x1: lax.div(lax.div(x0, x1), x1)",
          "(np.array([1.0493150403222757]), np.array([-4.644502223998049]))",
          "[np.array([0.04864380597080112])]", family="elementwise_binary", ops=("divide", "chain"),
          tags=(("dtype", "float64"),), group="algebraic_simplification"),
    Entry("complex_add_sub_cancelled",
          "jaxlib 0.10's algebraic simplifier rewrites (a - b) + b, b + (a - b) and (a + b) - b as a on "
          "complex types, where the spec rounds (and overflows: (1 - 1e30) + 1e30 = 0, (1 - inf) + inf = "
          "NaN).  jaxlib 0.12 computes them.",
          _add_sub_cancelled, "lambda x0, x1: (x0 - x1) + x1",
          "(np.array([1, 1], np.complex128), np.array([1e30, np.inf], np.complex128))",
          "[np.array([0, complex(np.nan, 0)], np.complex128)]", jaxlibs=("0.10",), family="elementwise_binary",
          ops=("subtract", "add", "chain"), tags=(("dtype", "complex128"),), group="algebraic_simplification"),
    Entry("sqrt_of_square_simplified",
          "jaxlib 0.10's algebraic simplifier rewrites sqrt(x * x) (and sqrt(abs(x * x))) as abs(x) on real "
          "types, where the spec rounds the square (which overflows to inf or underflows to 0).  jaxlib 0.12 "
          "computes them.",
          _sqrt_of_square, "lambda x0: lax.sqrt(lax.abs(lax.square(x0)))",
          "(np.array([1e200, 1e-200, -3.0]),)", "[np.array([np.inf, 0.0, 3.0])]", jaxlibs=("0.10",),
          family="elementwise_unary", ops=("square", "chain"), tags=(("dtype", "float64"),),
          group="algebraic_simplification"),
    Entry("chlo_upstream_decomposition_inaccurate",
          "Where upstream's CHLO decompositions (which XLA runs) are plainly wrong and ours departs on purpose "
          "(stablehlo_py/semantics/chlo.py's docstring): complex sinh/cosh with |Re z| < 1 (upstream's "
          "e^(z + log 1/2) - e^(log 1/2 - z) cancels: sinh(1e-20 + 0i) = 0 in complex64), complex atan/atanh "
          "beside +-i/+-1 where (1 - |x|)^2 + y^2 underflows (upstream: an infinite part), zeta(x > 1, +inf) "
          "and polygamma(n >= 1, +inf) (upstream: NaN from 0 * inf; the limit is 0).  Ours must be within 16 "
          "ulps of the exact value (cmath on the wider input) where XLA's is not.  Reproducers of each: "
          "tests/oracle/test_fuzzer_found_bugs_2_vs_xla.py (the fuzzer's tolerance of 1 eps absolute hides "
          "the sinh/cosh cancellation; the reproducer here is atan(1e-30 + i): XLA inf, ours 34.885).",
          _chlo_departure, "lambda x0: lax.atan(x0)", "(np.array([1e-30 + 1j, 0.5 + 0.5j], np.complex64),)",
          "[np.array([0.7853981852531433 + 34.88534927368164j, 0.5535743832588196 + 0.4023594856262207j], "
          "np.complex64)]", family="elementwise_unary", ops=("atan",),
          tags=(("dtype", "complex64"),), group="chlo_decomposition"),
    Entry("chlo_digamma_old_decomposition",
          "jaxlib 0.10's XLA decomposes chlo.digamma (and polygamma through it) with an older expansion "
          "that gives NaN at the poles' signed zeros and for some large arguments, where the newest "
          "upstream (StableHLO 1.22, jaxlib 0.12) and ours give -inf or the finite value.",
          _digamma_old, "lambda x0: lax.digamma(x0)", "(np.array([-0.0, 0.0], np.float32),)",
          "[np.array([-np.inf, -np.inf], np.float32)]", jaxlibs=("0.10",), family="elementwise_unary",
          ops=("digamma",), tags=(("dtype", "float32"),), group="chlo_decomposition"),
    Entry("narrow_float_double_rounding",
          "XLA CPU computes an op on an 8/4-bit float type in float16 or float32 and rounds the result to the "
          "type: rounded twice, where the spec (and ours, exact in float64) rounds once.",
          _double_rounding, "lambda x0: lax.sqrt(x0)", "(np.array([15.5], ml_dtypes.float8_e3m4),)",
          "[np.array([3.875], ml_dtypes.float8_e3m4)]", family="elementwise_unary", ops=("sqrt",),
          tags=(("dtype", "float8_e3m4"),)),
    Entry("two_bit_int_sort_unsorted",
          "sort of int2/uint2 along the last dimension leaves rows unsorted (or reorders them along another "
          "dimension): an XLA CPU bug with the 2-bit types; its output changes from run to run (a 3x5 "
          "reproducer, so that a chance agreement with the sorted rows is negligible).",
          _two_bit_sort, "lambda x0: lax.sort(x0, dimension=1)",
          "(np.array([[1, -1, 0, -2, 1], [-2, 0, 1, 1, -1], [0, 1, -2, -1, 0]], np.int8).astype(ml_dtypes.int2),)",
          "[np.array([[-2, -1, 0, 1, 1], [-2, -1, 0, 1, 1], [-2, -1, 0, 0, 1]], np.int8).astype(ml_dtypes.int2)]", family="sort", ops=("sort",),
          tags=(("dtype", "int2"),)),
    Entry("cbrt_subnormal",
          "float32 (and bfloat16, computed in float32) cbrt of a subnormal gives -5.5951735e-16 whatever the input's sign (XLA's approximation on "
          "an input read as 0 by denormals-are-zero), where the spec's is the cube root (and flushing "
          "alone would give 0).",
          _cbrt_subnormal, "lambda x0: lax.cbrt(x0)", "(np.array([1e-40], np.float32),)",
          "[np.array([4.6415806e-14], np.float32)]", family="elementwise_unary", ops=("cbrt",),
          tags=(("dtype", "float32"),), group="cpu_flush_to_zero"),
    Entry("subnormal_input_misread",
          "XLA CPU's pow and atan2 (and other approximations) on a subnormal input give neither the spec's "
          "value nor that of the input flushed to zero: atan2(5e-324, -1) = -pi (the spec's, and atan2(+0, "
          "-1), is +pi), pow(1e-40f, 0.5f) = 2.6e-23 (the spec's 1e-20), complex sqrt(-4 - 1e-45i) = +2i (the "
          "spec's -2i: XLA's formula compares the subnormal part with 0).  Ours must be within 4 ulps of "
          "numpy's float64/complex128 value of the op.",
          _subnormal_input, "lambda x0, x1: lax.atan2(x0, x1)", "(np.array([5e-324]), np.array([-1.0]))",
          "[np.array([np.pi])]", family="elementwise_binary", ops=("atan2",), tags=(("dtype", "float64"),),
          group="cpu_flush_to_zero"),
    Entry("reduce_precision_nan_kept",
          "reduce_precision with mantissa_bits = 0 keeps a NaN (every float type with an infinity: f16, bf16, "
          "f32, f64, f8E5M2, f8E4M3, f8E3M4), where the spec's steps truncate its mantissa to no bits, leaving "
          "the all-ones exponent of an infinity; upstream's reference interpreter (Element.cpp "
          "reducePrecision, and its test interpret/reduce_precision.mlir: e5m0 of an f64 NaN is +inf) and "
          "ours give +inf.",
          _reduce_precision_nan, "lambda x0: lax.reduce_precision(x0, 11, 0)",
          "(np.array([np.nan, 1.5], np.float32),)", "[np.array([np.inf, 2.0], np.float32)]",
          family="conversion", ops=("reduce_precision",), tags=(("dtype", "float32"),)),
    Entry("f4e2m1fn_six_to_int_saturates",
          "convert from f4e2m1fn of +-6.0 (its largest value) to an integer type gives the integer type's "
          "max/min (as an overflow), where the spec gives +-6.",
          _f4_six_to_int, "lambda x: lax.convert_element_type(x, jnp.int8)",
          "(np.array([6.0, -6.0, 4.0], ml_dtypes.float4_e2m1fn),)", "[np.array([6, -6, 4], np.int8)]",
          family="conversion", ops=("convert",), tags=(("src", "float4_e2m1fn"), ("dst", "int8"))),
]


# ------------------------------------------------------------------------------------ class (ii)


def _float_to_int_range(out: "Outcome", res: cmp.Comparison) -> bool:
    src, dst = out.case.tags.get("src", ""), out.case.tags.get("dst", "")
    if out.case.ops != ("convert",) or not is_float(src) or not is_int(dst):
        return False
    bad = _bad_inputs(out, res)
    if bad is None or bad.size == 0:
        return False
    ii = ml_dtypes.iinfo(dtype(dst))
    x = bad.astype(np.float64)
    return bool(np.all(~np.isfinite(x) | (np.trunc(x) < int(ii.min)) | (np.trunc(x) > int(ii.max))))


def _lacks(name: str) -> tuple[bool, bool, bool]:
    """(has NaN, has inf, has a signed zero) of a float type."""
    if name == "float4_e2m1fn":
        return False, False, True
    if name == "float8_e8m0fnu":
        return True, False, False
    if name.endswith("fnuz"):
        return True, False, False
    if name == "float8_e4m3fn":
        return True, False, True
    return True, True, True


def _special_to_float(out: "Outcome", res: cmp.Comparison) -> bool:
    """convert of a NaN, an infinity or a zero to a float type without them (f4e2m1fn has no NaN or inf,
    the FNUZ types no inf or -0, f8e4m3fn no inf, f8e8m0fnu no zero): the spec does not say what it gives."""
    src, dst = out.case.tags.get("src", ""), out.case.tags.get("dst", "")
    if out.case.ops != ("convert",) or not is_float(src) or not is_float(dst):
        return False
    bad = _bad_inputs(out, res)
    if bad is None or bad.size == 0:
        return False
    nan, inf, szero = _lacks(dst)
    x = bad.astype(np.float64)
    odd = np.zeros(x.shape, bool)
    if not nan:
        odd |= np.isnan(x)
    if not inf:
        odd |= np.isinf(x)
    if not szero:
        odd |= x == 0
    if dst == "float8_e8m0fnu":
        odd |= x < 0
    return bool(odd.all())


def _nan_without_nan(out: "Outcome", res: cmp.Comparison) -> bool:
    """A result of f4e2m1fn (no NaN, no inf) where both are zeros of different sign, or one side is 0 and
    the other the largest value: an invalid result (NaN) has no encoding and the spec does not say which
    value stands for it."""
    r = _reference(out, res) if out.theirs and np.asarray(out.theirs[0]).dtype.name == "float4_e2m1fn" else None
    if r is not None:  # the op's value is NaN (numpy in float64 on the inputs): any stand-in
        case = out.case
        ins = [_bad_inputs(out, res, i).astype(np.float64) for i in range(len(case.args))]
        with np.errstate(all="ignore"):
            if np.isnan(np.asarray(_REFERENCE[case.ops[0]](*ins), np.float64)).all():
                return True
    for leaf in res.leaves:
        if not leaf.reason:
            continue
        t = np.asarray(out.theirs[leaf.index])
        if t.dtype.name != "float4_e2m1fn":
            return False
        o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
        tb = t.reshape(-1)[leaf.bad].astype(np.float64)
        if not ((o == 0) & (tb == 0)).all():
            return False
    return True


def _complex_power_extremes(out: "Outcome", res: cmp.Comparison) -> bool:
    """complex power whose result (either side) is infinite, NaN or zero where they differ: the magnitude
    exp(Re(y log x)) overflows or underflows and the phase Im(y log x) is huge or infinite, so the signs of
    infinite parts, and NaN against 0, follow from the formula, which the spec does not fix; with them,
    elements that differ only in the sign of a zero part (x ** (-0 - 0j) = 1 -+ 0j)."""
    if "power" not in out.case.ops or not out.case.tags.get("dtype", "").startswith("complex"):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
            # (o == t: equal up to the sign of a zero part, which the formula fixes as well)
            odd = ~np.isfinite(o) | ~np.isfinite(t) | (o == 0) | (t == 0) | (o == t)
            if not odd.all():
                return False
    return True


def _zero_sign_only(out: "Outcome", res: cmp.Comparison, parts: bool) -> bool:
    for leaf in res.leaves:
        if not leaf.reason:
            continue
        o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad]
        t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad]
        if parts != (t.dtype.kind == "c"):
            return False
        pairs = [(o.real, t.real), (o.imag, t.imag)] if parts else [(o, t)]
        for a, b in pairs:
            a = np.asarray(a).astype(np.float64)
            b = np.asarray(b).astype(np.float64)
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            if not same.all():
                return False
    return True


def _unsigned_zeros(a: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    out.real = out.real + 0.0  # -0 + 0 = +0; every other value unchanged
    out.imag = out.imag + 0.0
    return out


def _complex_zero_sign(out: "Outcome", res: cmp.Comparison) -> bool:
    """Complex results that agree (within the case's tolerance) once the signs of zero parts are ignored:
    the spec fixes no formula for complex divide/sqrt/rsqrt/sign/pow/tan/..., and the sign of a zero part
    follows from the formula (tan(-0 + yi): ours -0, odd as tan is; XLA's formula gives +0)."""
    if not all(np.asarray(out.theirs[leaf.index]).dtype.kind == "c" for leaf in res.leaves if leaf.reason):
        return False
    with np.errstate(all="ignore"):
        ours = [_unsigned_zeros(np.asarray(o)) if np.asarray(o).dtype.kind == "c" else o for o in out.ours]
        theirs = [_unsigned_zeros(np.asarray(t)) if np.asarray(t).dtype.kind == "c" else t for t in out.theirs]
    return cmp.compare(ours, theirs, cmp.tolerance(out.case)).ok


def _iota_without_zero(out: "Outcome", res: cmp.Comparison) -> bool:
    """iota in f8e8m0fnu (no zero): element 0 is convert(0) to a type that cannot hold it (ours NaN, XLA
    NaN or the smallest value 2^-127 depending on the shape)."""
    if out.case.ops != ("iota",) or np.asarray(out.theirs[0]).dtype.name != "float8_e8m0fnu":
        return False
    o = np.asarray(out.ours[0]).reshape(-1)[res.leaves[0].bad].astype(np.float64)
    t = np.asarray(out.theirs[0]).reshape(-1)[res.leaves[0].bad].astype(np.float64)
    return bool((np.isnan(o) & (t == 2.0**-127)).all())


def _sum_zero_sign(out: "Outcome", res: cmp.Comparison) -> bool:
    """dot_general/convolution results that are zeros of different sign: the sign of a zero sum depends
    on the summation's start (+0 or the first product), which the spec leaves open."""
    return bool({"dot_general", "convolution"} & set(out.case.ops)) and _zero_sign_only(out, res, parts=False)


def _complex_atan2_branch(out: "Outcome", res: cmp.Comparison) -> bool:
    """complex atan2 on its branch cut (real parts +-pi), or within 2^20 eps of XLA's result measured on
    max(1, |result|): XLA's formula -i log((x + iy) / sqrt(x^2 + y^2)) cancels (its zero parts come out as
    cos(pi/2) = 6e-17, its small parts lose digits)."""
    if "atan2" not in out.case.ops or not out.case.tags.get("dtype", "").startswith("complex"):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            t0 = np.asarray(out.theirs[leaf.index])
            eps = float(np.finfo(t0.real.dtype).eps)
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
            t = t0.reshape(-1)[leaf.bad].astype(np.complex128)
            cut = np.isclose(np.abs(o.real), np.pi, rtol=1e-5) & np.isclose(np.abs(t.real), np.pi, rtol=1e-5)
            near = np.abs(o - t) <= 2.0**20 * eps * np.maximum(1.0, np.abs(t))
            if not (cut | near).all():
                return False
    return True


_COMPLEX_PRODUCTS = ("multiply", "reduce_mul", "reduce_window_mul", "cumulative_cumprod", "dot_general",
                     "convolution", "divide", "scatter_mul")


def _complex_infinities(out: "Outcome", res: cmp.Comparison) -> bool:
    """complex products (multiply, dot, mul reductions) of values with infinite parts: NaN or inf in each
    part follows from the formula (a*c - b*d with inf - inf; XLA's FMA contraction), which the spec does
    not fix."""
    chain_mul = "chain" in out.case.ops and ("stablehlo.multiply" in out.text or "stablehlo.divide" in out.text)
    if not out.case.tags.get("dtype", "").startswith("complex") or not (
            set(_COMPLEX_PRODUCTS) & set(out.case.ops) or chain_mul):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
            if not (~np.isfinite(o) & ~np.isfinite(t)).all():
                return False
    return True


def _complex_abs_inf_nan(out: "Outcome", res: cmp.Comparison) -> bool:
    """|z| of a complex z with one infinite and one NaN part: inf (IEEE hypot, ours) or NaN (XLA)."""
    if "lax.abs(" not in out.case.source or not any(a.dtype.kind == "c" for a in out.case.args):
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            if not (np.isinf(o) & np.isnan(t)).all():
                return False
    return True


def _nan_payload(out: "Outcome", res: cmp.Comparison) -> bool:
    """Integer results that are the bits of a NaN in both (a bitcast of a NaN): only the payload differs."""
    if "bitcast" not in out.case.ops:
        return False
    src = out.case.tags.get("src", "")
    if not is_float(src) and not src.startswith("complex"):
        return False
    for leaf in res.leaves:
        if not leaf.reason:
            continue
        o, t = np.asarray(out.ours[leaf.index]), np.asarray(out.theirs[leaf.index])
        # view the result back as the source float type
        fdt = dtype(src) if not src.startswith("complex") else np.dtype(np.float32 if src == "complex64" else
                                                                         np.float64)
        try:
            of = np.ascontiguousarray(o).view(fdt).astype(np.float64)
            tf = np.ascontiguousarray(t).view(fdt).astype(np.float64)
        except (ValueError, TypeError):
            return False
        if not (np.isnan(of) == np.isnan(tf)).all() or not (np.isnan(of) | (of.view(np.uint64) ==
                                                                              tf.view(np.uint64))).all():
            return False
    return True


def _reduction_order(out: "Outcome", res: cmp.Comparison) -> bool:
    """A float sum/product reduction whose results differ by no more than the rounding of a different
    order: |ours - XLA| <= n * eps * (sum of |x|) for n reduced elements (products: the product of
    max(|x|, 1)), over the finite inputs; the differing results must be finite on both sides, except on
    complex inputs, whose results that are not finite on both sides are complex products of infinities
    (complex_infinite_products) in a different order."""
    ops = out.case.ops
    if out.case.family != "reduction" or not any(op.endswith(("_add", "_mul", "cumsum", "cumprod", "cumlogsumexp"))
                                                 for op in ops):
        return False
    x = out.case.args[0]
    if x.dtype.kind not in "fc" and not is_float(x.dtype.name):
        return False
    cplx = x.dtype.kind == "c"
    with np.errstate(all="ignore"):
        xv = np.abs(x.astype(np.complex128)) if cplx else np.abs(x.astype(np.float64))
        xv = xv[np.isfinite(xv)]  # the bound of the finite results; the others: below
        n = x.size
        bound = n * float(ml_dtypes.finfo(out.theirs[0].dtype if out.theirs[0].dtype.kind != "c" else
                                          out.theirs[0].real.dtype).eps)
        if any(op.endswith(("_mul", "cumprod")) for op in ops):
            bound *= float(np.prod(np.maximum(xv, 1.0)))
        else:
            bound *= float(xv.sum())
        for leaf in res.leaves:
            if leaf.reason:
                o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
                t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
                both_inf = ~np.isfinite(o) & ~np.isfinite(t)  # complex products of infinite parts
                finite = np.isfinite(o) & np.isfinite(t)
                if not ((finite & (np.abs(o - t) <= bound)) | (cplx & both_inf)).all():
                    return False
    return True


def _dot_conv(out: "Outcome") -> bool:
    return out.case.family == "dot_conv" and len(out.case.ops) == 1 and out.case.ops[0] in (
        "dot_general", "convolution")


def _dot_fma_overflow(out: "Outcome", res: cmp.Comparison) -> bool:
    """dot_general/convolution where ours is NaN and XLA's an infinity, and our result on the inputs made
    float64 (float64 inputs: scaled by 2**-512; exact products, no overflow) is not NaN: a product rounded to
    +-inf met one of the other sign (inf - inf, as the spec's multiply then reduce gives), where XLA's
    fused multiply-add kept the product exact."""
    if not _dot_conv(out):
        return False
    names = {a.dtype.name for a in out.case.args}
    if names <= {"float32", "bfloat16", "float16"}:
        exact = tuple(a.astype(np.float64) for a in out.case.args)
    elif names == {"float64"}:
        # no wider type: both operands scaled by 2**-512 (exact but for values below 2**-562, which
        # become 0 and can only add a NaN, 0 * inf), so that no product of finite values overflows
        exact = tuple(np.ldexp(a, -512) for a in out.case.args)
    else:
        return False
    with np.errstate(all="ignore"):
        wide = _rerun_ours(out, exact)
    if wide is None:
        return False
    for leaf in res.leaves:
        if leaf.reason:
            o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad].astype(np.float64)
            w = np.asarray(wide[leaf.index]).reshape(-1)[leaf.bad]
            if not (np.isnan(o) & np.isinf(t) & ~np.isnan(w)).all():
                return False
    return True


def _dot_sum_order(out: "Outcome", res: cmp.Comparison) -> bool:
    """dot_general/convolution results, finite on both sides, within (k + 2) * eps * S of each other, where
    S is the sum of the |products| (our result on |lhs|, |rhs|) and k the contraction size: the rounding
    of a different summation order (and of XLA's fused multiply-adds), which the spec leaves to the
    implementation (dot_general is reduce(multiply(lhs, rhs)); 'the order of reductions is
    implementation-defined')."""
    if not _dot_conv(out) or not all(a.dtype.kind in "fc" or is_float(a.dtype.name) for a in out.case.args):
        return False
    with np.errstate(all="ignore"):
        absolute = _rerun_ours(out, tuple(np.abs(a) for a in out.case.args))
    if absolute is None:
        return False
    k = int(out.case.tags.get("k", 1))
    with np.errstate(all="ignore"):
        for leaf in res.leaves:
            if leaf.reason:
                t0 = np.asarray(out.theirs[leaf.index])
                eps = float(ml_dtypes.finfo(t0.dtype if t0.dtype.kind != "c" else t0.real.dtype).eps)
                o = np.asarray(out.ours[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128)
                t = t0.reshape(-1)[leaf.bad].astype(np.complex128)
                s_ = np.abs(np.asarray(absolute[leaf.index]).reshape(-1)[leaf.bad].astype(np.complex128))
                ok = np.isfinite(o) & np.isfinite(t) & np.isfinite(s_) & (np.abs(o - t) <= (k + 2) * eps * s_)
                if not ok.all():
                    return False
    return True


def _rng_default(out: "Outcome", res: cmp.Comparison) -> bool:
    return out.case.tags.get("algorithm") == "RNG_DEFAULT"


def _scatter_order(out: "Outcome", res: cmp.Comparison) -> bool:
    return any(op.startswith("scatter") for op in out.case.ops) and bool(out.case.tags.get("duplicates"))


def _unstable_sort(out: "Outcome", res: cmp.Comparison) -> bool:
    return bool(out.case.tags.get("unstable_multi"))


IMPLEMENTATION_DEFINED: list[Entry] = [
    Entry("float_to_int_out_of_range",
          "convert of a NaN, an infinity or a float outside the integer type's range: the spec leaves the "
          "result to the implementation.", _float_to_int_range),
    Entry("special_to_narrow_float",
          "convert of a NaN, an infinity or a zero to a float type that cannot hold it (f4e2m1fn, the FNUZ "
          "types, f8e4m3fn, f8e8m0fnu): the spec leaves the result open.", _special_to_float),
    Entry("nan_in_type_without_nan",
          "an op whose result is NaN, in f4e2m1fn (which has no NaN): which value stands for it (+0 or -0, or "
          "for acos(-6) ours 3 and XLA -3) is not specified (the conversion of a value the type cannot "
          "represent is TBD, #180).", _nan_without_nan),
    Entry("complex_branch_cut_zero_sign",
          "a complex function on its branch cut with a zero (or subnormal) imaginary part: ours takes the side "
          "of the zero's sign (C99 Annex G, numpy: sqrt(-x - 0i) = -i sqrt(x)), XLA's formula the other; the "
          "spec gives no formula ('complex square root').", lambda out, res: _branch_cut_zero_sign(out, res)),
    Entry("iota_zero_without_zero",
          "iota in a float type without a zero (f8e8m0fnu): the spec's element 0 is constant(0, type), a "
          "float conversion of a value the type cannot represent, whose behaviour the spec leaves TBD "
          "(convert: 'Otherwise, the behavior is TBD', #180).  Ours gives NaN (as convert 0 -> f8e8m0fnu "
          "does in XLA and ml_dtypes); XLA gives 2^-127 when the iota is folded to a constant.",
          _iota_without_zero),
    Entry("complex_power_extremes",
          "complex power where the result's magnitude overflows or underflows (or an exponent is infinite): "
          "the spec gives no formula, so the signs of infinite parts and NaN against 0 are the "
          "implementation's.", _complex_power_extremes),
    Entry("complex_zero_sign",
          "complex results equal (within the op's tolerance) but for the sign of a zero real or imaginary part: "
          "the spec gives no formula for the complex functions (divide, sqrt, rsqrt, sign, pow, tan, ...; "
          "'Exceptions for nonstandard operations (e.g. complex arithmetic and certain transcendental "
          "functions) are implementation-defined').", _complex_zero_sign),
    Entry("sum_zero_sign",
          "dot_general/convolution results that are zeros of different sign: whether a sum starts from +0 or "
          "from its first product is left open.", _sum_zero_sign),
    Entry("complex_atan2_formula",
          "complex atan2: the spec gives no formula; XLA's cancels (zero parts as 6e-17, small parts losing "
          "digits, the side of the branch cut), so results within 2^20 eps of the magnitude, or on the cut, "
          "are the implementation's.", _complex_atan2_branch),
    Entry("complex_infinite_products",
          "complex products and quotients (multiply, divide, dot_general, mul reductions) of values with "
          "infinite parts: which parts are inf or NaN follows from the formula (Smith's ratio, its FMA "
          "contraction, Annex G's recovery); the spec does not fix it.",
          _complex_infinities),
    Entry("complex_abs_inf_nan",
          "abs of a complex number with one infinite and one NaN part: inf (IEEE hypot) or NaN; the spec does "
          "not say.", _complex_abs_inf_nan),
    Entry("nan_payload",
          "The payload and sign of a NaN produced by an op are implementation-defined; only a bitcast shows "
          "them.", _nan_payload),
    Entry("float_reduction_order",
          "reduce/reduce_window/cumulative sums and products on floats: the spec leaves the order of the "
          "body's applications to the implementation (ours follows XLA's float32 order; XLA's float16/"
          "bfloat16 order differs).", _reduction_order),
    Entry("dot_sum_order",
          "dot_general/convolution results within (k + 2) * eps * sum|products| of each other: the order of "
          "the sum (dot_general is reduce(multiply(lhs, rhs)); 'The order of reductions is "
          "implementation-defined'), which with cancellation moves the result by more ulps than the "
          "per-op tolerance.", _dot_sum_order),
    Entry("chain_amplified_accuracy",
          "an elementwise chain whose first op agrees with XLA within its tolerance, and whose later ops, fed "
          "XLA's value of that op, give XLA's result: the later ops amplify a difference of accuracy, on "
          "which the spec gives no guarantee ('StableHLO does not provide guarantees about numerical "
          "accuracy').  Found by classify() after the other classes (its predicate here never matches "
          "alone).", lambda out, res: False),
    Entry("xla_less_accurate",
          "one elementwise op where ours is within 2 ulps of numpy's float64/complex128 value and XLA's is "
          "outside the op's tolerance of it (e.g. XLA's float64 log1p(-0.393) 34 ulps off): 'StableHLO does "
          "not provide guarantees about numerical accuracy'.", lambda out, res: _xla_less_accurate(out, res)),
    Entry("rng_default_algorithm",
          "rng_bit_generator with algorithm DEFAULT: the generator is implementation-defined.", _rng_default),
    Entry("scatter_overlapping_updates",
          "scatter with duplicate indices: the order in which updates to the same element are applied is "
          "implementation-defined.", _scatter_order),
    Entry("unstable_sort_ties",
          "sort with is_stable = false: the order of equal keys (and so the other operands) is "
          "implementation-defined.", _unstable_sort),
]


# ----------------------------------------------------------------------------- class (iii), known


# The seven bugs of issue 30 item 7 (acos(-1), signed zeros in max/min folds, reduce_precision on the
# narrow floats, complex square, complex expm1/log1p, complex sign overflow, pow with a signaling NaN)
# were fixed in 540915f; tests/oracle/test_fuzzer_found_bugs_vs_xla.py keeps their reproducers.  This
# fuzzer then found: the FNUZ NaN's place in the total order (fixed, 6dc1389 / 8b685fb), reduce with a
# max/min/and/or body raising on int2/uint2/int4/uint4, complex divide overflowing for representable
# quotients ((1.797e308 - 1e20j) / (6 - 0.137j)), complex rsqrt of an infinite part giving NaN (all three
# fixed in stablehlo_py/semantics by the helper working there).
# zeta_large_x (ours +inf where XLA gives NaN at huge x) was XLA CPU's flush of a subnormal constant of
# upstream's decomposition: it is the deviation zeta_subnormal_constant_flushed.  The list is empty;
# an entry takes the form of DEVIATIONS' (source, args, the spec's result) with its predicate.
KNOWN_BUGS: list[Entry] = []


_HEX_TYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _chain_origin(out: "Outcome", res: cmp.Comparison) -> tuple[str, str] | None:
    """An elementwise chain ("op then a few plain ops") whose mismatch comes from its first op: our result
    for the program with that op's result replaced by XLA's value of the op alone (a constant) equals
    XLA's.  The mismatch then takes the class of the op alone (run as its own case), or, where the op
    alone agrees within its tolerance, implementation_defined/chain_amplified_accuracy (the later ops
    amplify a difference the spec allows: it gives no accuracy guarantee)."""
    from tests.differential.generator import BINARY_FLOAT, UNARY_FLOAT, Case, _lam
    from tests.differential.runner import run_case, run_ours

    case = out.case
    if "chain" not in case.ops or len(case.ops) != 2 or case.family not in ("elementwise_unary",
                                                                             "elementwise_binary"):
        return None
    op = case.ops[0]
    table = UNARY_FLOAT if case.family == "elementwise_unary" else BINARY_FLOAT
    if op not in table or case.tags.get("dtype") not in _HEX_TYPES:
        return None
    nargs = 1 if case.family == "elementwise_unary" else 2
    inner = table[op][0].format(*[f"x{i}" for i in range(nargs)])
    if inner not in case.source:
        return None
    sub = run_case(Case(case.seed, case.index, case.family, (op,), _lam(nargs, inner), case.args[:nargs],
                        dict(case.tags)))
    if sub.status not in ("match", "mismatch") or len(sub.theirs) != 1:
        return None
    line_re = re.compile(rf"^(\s*)(%[\w#]+) = (?:stablehlo|chlo)\.{re.escape(op)} ((?:%arg\d+(?:, )?)+)[^\n]*$", re.M)
    lines = list(line_re.finditer(out.text))
    if not lines:
        return None
    value = np.ascontiguousarray(sub.theirs[0])
    const = f'dense<"0x{value.tobytes().hex().upper()}">'

    def replace(m: re.Match) -> str:
        line = m[0]
        return f"{m[1]}{m[2]} = stablehlo.constant {const} : {line[line.rindex('tensor<'):].strip()}"

    text = line_re.sub(replace, out.text)
    try:
        with np.errstate(all="ignore"):
            ours = run_ours(text, case.args)
    except Exception:
        return None
    if len(ours) != len(out.theirs):
        return None
    for leaf in res.leaves:  # the differing elements only (the others may have another class)
        if leaf.reason:
            if leaf.bad is None:
                return None
            o = np.asarray(ours[leaf.index]).reshape(-1)[leaf.bad]
            t = np.asarray(out.theirs[leaf.index]).reshape(-1)[leaf.bad]
            if cmp.compare_leaf(leaf.index, o, t, cmp.tolerance(case)).reason:
                return None
    if sub.status == "match":
        return "implementation_defined", "chain_amplified_accuracy"
    if sub.cls == "bug":
        return None
    return sub.cls, sub.name


# Ops JAX lowers to a chain of other ops on some types and jaxlibs (jaxlib 0.10: complex logistic as
# 1 / (1 + exp(-x))): the op of the chain whose rounding the later ops amplify, and its value as a lax
# expression of the case's argument.
_EXPANSIONS = {"logistic": ("exponential", "lax.exp(lax.neg(x0))")}


def _expansion_origin(out: "Outcome", res: cmp.Comparison) -> tuple[str, str] | None:
    """A one-op case that JAX lowered to a chain (_EXPANSIONS) whose mismatch comes from the chain's
    inner op: that op alone agrees with XLA within its tolerance, and our result for the program with
    the op's result replaced by XLA's value of it equals XLA's: implementation_defined/
    chain_amplified_accuracy, as _chain_origin."""
    from tests.differential.generator import Case, _lam
    from tests.differential.runner import run_case, run_ours

    case = out.case
    if len(case.ops) != 1 or case.ops[0] not in _EXPANSIONS or len(case.args) != 1:
        return None
    inner, expr = _EXPANSIONS[case.ops[0]]
    line_re = re.compile(rf"^(\s*)(%[\w#]+) = stablehlo\.{inner} %[\w#]+ : (tensor<.*>)$", re.M)
    lines = list(line_re.finditer(out.text))
    if re.search(rf"\.{case.ops[0]}\b", out.text) or len(lines) != 1:
        return None
    sub = run_case(Case(case.seed, case.index, case.family, (inner,), _lam(1, expr), case.args,
                        dict(case.tags)))
    if sub.status != "match" or len(sub.theirs) != 1:
        return None
    value = np.ascontiguousarray(sub.theirs[0])
    const = f'dense<"0x{value.tobytes().hex().upper()}">'
    text = line_re.sub(lambda m: f"{m[1]}{m[2]} = stablehlo.constant {const} : {m[3]}", out.text)
    try:
        with np.errstate(all="ignore"):
            ours = run_ours(text, case.args)
    except Exception:
        return None
    if not cmp.compare(ours, out.theirs, cmp.tolerance(case)).ok:
        return None
    return "implementation_defined", "chain_amplified_accuracy"


def _reference(out: "Outcome", res: cmp.Comparison):
    """(numpy's value of a single elementwise op at the differing elements, in the result type, ours and
    XLA's there) or None."""
    case = out.case
    if len(case.ops) != 1 or case.ops[0] not in _REFERENCE or case.family not in (
            "elementwise_unary", "elementwise_binary") or len(out.theirs) != 1:
        return None
    ins = [_bad_inputs(out, res, i) for i in range(len(case.args))]
    if any(x is None or x.size == 0 for x in ins):
        return None
    dt = out.theirs[0].dtype
    wide = np.complex128 if dt.kind == "c" else np.float64
    if dt.kind == "c" and case.ops[0] in ("atan2", "cbrt"):
        return None
    with np.errstate(all="ignore"):
        ref = np.asarray(_REFERENCE[case.ops[0]](*[x.astype(wide) for x in ins])).astype(dt)
    bad = res.leaves[0].bad
    return ref, np.asarray(out.ours[0]).reshape(-1)[bad], np.asarray(out.theirs[0]).reshape(-1)[bad]


def _xla_less_accurate(out: "Outcome", res: cmp.Comparison) -> bool:
    """One elementwise op where ours is within 2 ulps of numpy's float64/complex128 value (an independent
    reference) and XLA's is not within the op's tolerance of it."""
    r = _reference(out, res)
    if r is None or not is_float(out.theirs[0].dtype.name) and out.theirs[0].dtype.kind != "c":
        return False
    ref, o, t = r
    ok_ours = cmp.compare_leaf(0, o, ref, cmp.Tolerance(2, 0)).reason == ""
    xla_far = cmp.compare_leaf(0, t, ref, cmp.tolerance(out.case))
    return ok_ours and xla_far.bad is not None and bool(xla_far.bad.all())


def _branch_cut_zero_sign(out: "Outcome", res: cmp.Comparison) -> bool:
    """A complex function on its branch cut where the input's imaginary part is +-0 (or subnormal): ours
    takes the side of the sign of zero (C99 Annex G, numpy's value), XLA's the other (the conjugate)."""
    r = _reference(out, res)
    if r is None or out.theirs[0].dtype.kind != "c" or len(out.case.args) != 1:
        return False
    ref, o, t = r
    z = _bad_inputs(out, res)
    tiny = float(np.finfo(z.real.dtype).tiny)
    if not (np.abs(z.imag.astype(np.float64)) < tiny).all():
        return False
    tol = cmp.tolerance(out.case)
    return (cmp.compare_leaf(0, o, ref, tol).reason == "" and
            cmp.compare_leaf(0, np.conj(o), t, tol).reason == "")


def _after_flush(out: "Outcome", depth: int) -> tuple[str, str] | None:
    """A mismatch of two causes, XLA's flush of subnormal inputs and another class: the case on the inputs
    flushed (ours re-run, XLA's results flushed) takes the other class."""
    import dataclasses

    from tests.differential.runner import Outcome

    flushed = tuple(_flush(a) for a in out.case.args)
    if all(f.tobytes() == a.tobytes() for f, a in zip(flushed, out.case.args)):
        return None
    ours = _rerun_ours(out, flushed)
    if ours is None or len(ours) != len(out.theirs):
        return None
    ours = [_flush(np.asarray(o)) for o in ours]
    theirs = [_flush(np.asarray(t)) for t in out.theirs]
    res = cmp.compare(ours, theirs, cmp.tolerance(out.case))
    if res.ok:
        return None  # the flush alone: cpu_flush_to_zero would have said so
    sub = Outcome(dataclasses.replace(out.case, args=flushed), "mismatch", text=out.text, ours=ours, theirs=theirs)
    cls, name = classify(sub, res, depth + 1)
    return None if cls == "bug" else (cls, name)


def _per_element(out: "Outcome", res: cmp.Comparison, depth: int) -> tuple[str, str] | None:
    """A mismatch whose differing elements belong to different classes (each element classified on its
    own; at most 16): the most frequent class names it."""
    bad = [(i, int(k)) for i, leaf in enumerate(res.leaves) if leaf.reason and leaf.bad is not None
           for k in np.flatnonzero(leaf.bad)]
    if len(bad) < 2 or len(bad) > 16 or len(bad) != sum(1 for leaf in res.leaves if leaf.reason
                                                           for _ in np.flatnonzero(leaf.bad)):
        return None
    names: list[tuple[str, str]] = []
    for i, k in bad:
        leaves = []
        for j, leaf in enumerate(res.leaves):
            if j == i:
                mask = np.zeros(leaf.bad.shape, bool)
                mask[k] = True
                leaves.append(cmp.LeafDiff(leaf.index, leaf.reason, mask, leaf.worst))
            else:
                leaves.append(cmp.LeafDiff(leaf.index, "", None))
        cls, name = classify(out, cmp.Comparison(leaves), depth + 1, split=False)
        if cls == "bug":
            return None
        names.append((cls, name))
    return max(set(names), key=names.count)


def group_of(name: str) -> str:
    """The family of a class name (a deviation's `group`, else the name itself)."""
    for entry in DEVIATIONS + IMPLEMENTATION_DEFINED + KNOWN_BUGS:
        if entry.name == name:
            return entry.family_name
    return name


def classify(out: "Outcome", res: cmp.Comparison, depth: int = 0, split: bool = True) -> tuple[str, str]:
    """The class of a mismatch: the first entry of DEVIATIONS, IMPLEMENTATION_DEFINED, KNOWN_BUGS whose
    predicate holds; else a chain's first op's class (_chain_origin, _expansion_origin), the class left once XLA's flush of
    subnormal inputs is applied to both sides (_after_flush), or, element by element, the most frequent
    class of the differing elements (_per_element); else ("bug", "new")."""
    for entry in DEVIATIONS:
        if entry.matches(out, res):
            return "xla_deviation", entry.name
    for entry in IMPLEMENTATION_DEFINED:
        if entry.matches(out, res):
            return "implementation_defined", entry.name
    for entry in KNOWN_BUGS:
        if not entry.on_error and entry.matches(out, res):
            return "bug", "known:" + entry.name
    if depth < 2:
        for fallback in (lambda: _chain_origin(out, res), lambda: _expansion_origin(out, res),
                         lambda: _after_flush(out, depth),
                         lambda: _per_element(out, res, depth) if split else None):
            found = fallback()
            if found is not None:
                return found
    return "bug", "new"


def classify_error(out: "Outcome") -> tuple[str, str]:
    for entry in KNOWN_BUGS:
        if entry.on_error and entry.matches(out, None):
            return "bug", "known:" + entry.name
    return "bug", "interpreter_error"
