"""CHLO elementwise functions (the ones JAX emits) as compositions of the StableHLO semantics.

Each function mirrors upstream's decomposition (``stablehlo/transforms/ChloLegalizeToStablehlo.cpp``,
``ChloDecompositionPatterns.td`` and ``ChloDecompositionPatternsMath.td``): the same formulas, the same
polynomial/rational coefficients, evaluated op by op with this package's StableHLO semantics, so every
intermediate is rounded in the element type exactly as upstream's interpreter would round it after
``--chlo-legalize-to-stablehlo``.  Where upstream upcasts (``materializeWithUpcast``: erf, erfc,
erf_inv, lgamma, digamma, polygamma, zeta, bessel_i1e, cosh, sinh), f16/bf16 (and other narrow
floats) are computed in f32 and converted back; f64 keeps its own (Cephes / Giles double) variants.

Departures from upstream, each where upstream's formula is plainly wrong (so XLA, which runs it, is
too; tests/unit/interpreter/test_chlo_reference.py judges them against SciPy/NumPy and
tests/oracle/test_fuzzer_found_bugs_2_vs_xla.py pins XLA's values): complex ``sinh``/``cosh`` with
``|Re z| < 1`` by parts (upstream's cancels: sinh(1e-20 + 0i) = 0 in complex64); complex
``atanh``/``atan`` beside ±1/±i where ``(1-|x|)² + y²`` underflows (upstream: inf); ``lgamma`` of a
subnormal (``-log|x|``; upstream's reflection rounds πx to a subnormal); ``zeta(x > 1, +inf)`` = 0
(upstream: NaN from 0·inf), hence ``polygamma(n ≥ 1, +inf)`` = ±0.

Accuracy is therefore that of XLA's decompositions: about 1e-7 relative (a few ulp) for f32 and
1e-15 for the f64 variants; ``lgamma``/``digamma``/``zeta`` use a Lanczos (g=7, n=9) approximation
whose f64 accuracy is ~1e-14 relative away from poles.  No scipy.

``top_k`` is in ``semantics/top_k.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import bitwise, conversion, elementwise
from ._common import F32, F64, arr, const_like, unsupported

Array = Any  # an np.ndarray, or a Traced value when the decomposition builds IR


class Traced:
    """A value of a program under construction: what the decompositions compute on when
    ``chlo-legalize-to-stablehlo`` replays them to emit StableHLO ops instead of evaluating them.

    ``builder.emit(op_name, *args)`` creates the op and returns its result as a new ``Traced``;
    ``dtype`` (numpy) and ``shape`` answer the same questions as on an array."""

    __slots__ = ("builder", "dtype", "shape", "value")

    def __init__(self, value: Any, builder: Any, dtype: np.dtype[Any], shape: tuple[int, ...]):
        self.value = value
        self.builder = builder
        self.dtype = dtype
        self.shape = shape


def _op(name: str, numpy_fn: Callable[..., Array]) -> Callable[..., Array]:
    """The StableHLO op `name`: evaluated by its numpy semantics, or emitted for Traced operands."""

    def fn(*args: Any) -> Array:
        for a in args:
            if isinstance(a, Traced):
                return a.builder.emit(name, *args)
        return numpy_fn(*args)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"stablehlo.{name.rstrip('_')}"
    return fn


add = _op("add", elementwise.add)
subtract = _op("subtract", elementwise.subtract)
multiply = _op("multiply", elementwise.multiply)
divide = _op("divide", elementwise.divide)
remainder = _op("remainder", elementwise.remainder)
power = _op("power", elementwise.power)
atan2 = _op("atan2", elementwise.atan2)
maximum = _op("maximum", elementwise.maximum)
minimum = _op("minimum", elementwise.minimum)
negate = _op("negate", elementwise.negate)
_abs = _op("abs", elementwise.abs)
sign = _op("sign", elementwise.sign)
floor = _op("floor", elementwise.floor)
sqrt = _op("sqrt", elementwise.sqrt)
exponential = _op("exponential", elementwise.exponential)
exponential_minus_one = _op("exponential_minus_one", elementwise.exponential_minus_one)
log = _op("log", elementwise.log)
log_plus_one = _op("log_plus_one", elementwise.log_plus_one)
sine = _op("sine", elementwise.sine)
cosine = _op("cosine", elementwise.cosine)
_tan = _op("tan", elementwise.tan)
is_finite = _op("is_finite", elementwise.is_finite)
real = _op("real", elementwise.real)
imag = _op("imag", elementwise.imag)
_complex = _op("complex", elementwise.complex)
clamp = _op("clamp", elementwise.clamp)
select = _op("select", elementwise.select)
compare = _op("compare", elementwise.compare)
convert = _op("convert", conversion.convert)
bitcast_convert = _op("bitcast_convert", conversion.bitcast_convert)
and_ = _op("and", bitwise.and_)
or_ = _op("or", bitwise.or_)
not_ = _op("not", bitwise.not_)
xor = _op("xor", bitwise.xor)
shift_left = _op("shift_left", bitwise.shift_left)
shift_right_logical = _op("shift_right_logical", bitwise.shift_right_logical)
shift_right_arithmetic = _op("shift_right_arithmetic", bitwise.shift_right_arithmetic)


# --------------------------------------------------------------------------------------------
# Building blocks (the helpers of ChloLegalizeToStablehlo.cpp)
# --------------------------------------------------------------------------------------------


def _c(value: Any, like: Array) -> Array:
    """``getConstantLike``: a constant of like's element type, broadcast to its shape."""
    if isinstance(like, Traced):
        return like.builder.constant(value, like)
    return np.broadcast_to(const_like(value, like), like.shape)


def _comparison(direction: str) -> Callable[[Array, Array], Array]:
    """`compare` in one direction (the comparisons the CHLO decompositions use)."""

    def apply(a: Array, b: Array) -> Array:
        return compare(a, b, direction)

    return apply


_lt, _le, _gt, _ge, _eq, _ne = map(_comparison, ("LT", "LE", "GT", "GE", "EQ", "NE"))


def _operand(x: Any) -> Array:
    return x if isinstance(x, Traced) else arr(x)


def _float_operand(op: str, x: Any, *, allow_complex: bool = False) -> Array:
    v = x if isinstance(x, Traced) else arr(x)
    kind = dt.element_type(v.dtype).kind
    if kind == "float" or (allow_complex and kind == "complex"):
        return v
    raise unsupported(op, v.dtype)


def _with_upcast(args: Sequence[Array], fn: Callable[..., Array]) -> Array:
    """``materializeWithUpcast`` to f32: narrower floats are computed in f32 and converted back."""
    original = args[0].dtype
    if dt.is_float(original) and dt.bitwidth(original) < 32:
        return convert(fn(*(convert(a, F32) for a in args)), original)
    return fn(*args)


def _polynomial(x: Array, coefficients: Sequence[float]) -> Array:
    """``materializePolynomialApproximation``: Horner's rule, highest degree first."""
    poly = _c(coefficients[0], x)
    for coefficient in coefficients[1:]:
        poly = add(multiply(poly, x), _c(coefficient, x))
    return poly


def _chebyshev(x: Array, coefficients: Sequence[float]) -> Array:
    """``materializeChebyshevPolynomialApproximation`` (Clenshaw's recurrence)."""
    b0 = _c(0.0, x)
    b1 = _c(0.0, x)
    b2 = _c(0.0, x)
    for coefficient in coefficients:
        b2 = b1
        b1 = b0
        b0 = add(subtract(multiply(x, b1), b2), _c(coefficient, x))
    return multiply(subtract(b0, b2), _c(0.5, x))


def _max_finite(like: Array) -> Array:
    return _c(dt.max_value(like.dtype), like)


def _smallest_normal(like: Array) -> Array:
    import ml_dtypes

    return _c(float(ml_dtypes.finfo(like.dtype).smallest_normal), like)


def _smallest_subnormal(like: Array) -> Array:
    import ml_dtypes

    return _c(float(ml_dtypes.finfo(like.dtype).smallest_subnormal), like)


def _nan(like: Array) -> Array:
    return _c(np.nan, like)


def _inf(like: Array, negative: bool = False) -> Array:
    return _c(-np.inf if negative else np.inf, like)


# --------------------------------------------------------------------------------------------
# erf, erfc, erf_inv
# --------------------------------------------------------------------------------------------

_ERF_F64_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_ERF_F64_U = (
    1.00000000000000000000e0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_ERFC_F64_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_ERFC_F64_Q = (
    1.00000000000000000000e0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_ERFC_F64_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_ERFC_F64_S = (
    1.00000000000000000000e0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
)
_MAXLOG_F64 = 7.09782712893383996843e2

_ERFC_F32_P = (
    +2.326819970068386e-2,
    -1.387039388740657e-1,
    +3.687424674597105e-1,
    -5.824733027278666e-1,
    +6.210004621745983e-1,
    -4.944515323274145e-1,
    +3.404879937665872e-1,
    -2.741127028184656e-1,
    +5.638259427386472e-1,
)
_ERFC_F32_R = (
    -1.047766399936249e1,
    +1.297719955372516e1,
    -7.495518717768503e0,
    +2.921019019210786e0,
    -1.015265279202700e0,
    +4.218463358204948e-1,
    -2.820767439740514e-1,
    +5.641895067754075e-1,
)
_ERF_F32_T = (
    +7.853861353153693e-5,
    -8.010193625184903e-4,
    +5.188327685732524e-3,
    -2.685381193529856e-2,
    +1.128358514861418e-1,
    -3.761262582423300e-1,
    +1.128379165726710e0,
)
_MAXLOG_F32 = 88.72283905206835
_ERF_F32_ALPHA = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_F32_BETA = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


def _f32_coefficients(values: Sequence[float]) -> tuple[float, ...]:
    """C++ ``float`` literals: each coefficient is first rounded to f32."""
    return tuple(float(np.float32(v)) for v in values)


def _erf_f64_le_one(x: Array) -> Array:
    x2 = multiply(x, x)
    return divide(multiply(x, _polynomial(x2, _ERF_F64_T)), _polynomial(x2, _ERF_F64_U))


def _erfc_f64_ge_one(x: Array) -> Array:
    z = negate(multiply(x, x))
    exp_z = exponential(z)
    ax = _abs(x)
    erfc_1_8 = divide(multiply(exp_z, _polynomial(ax, _ERFC_F64_P)), _polynomial(ax, _ERFC_F64_Q))
    erfc_8_inf = divide(multiply(exp_z, _polynomial(ax, _ERFC_F64_R)), _polynomial(ax, _ERFC_F64_S))
    approx = select(_lt(ax, _c(8.0, x)), erfc_1_8, erfc_8_inf)
    approx = select(_lt(z, _c(-_MAXLOG_F64, x)), _c(0.0, x), approx)
    return select(_lt(x, _c(0.0, x)), subtract(_c(2.0, x), approx), approx)


def _erfc_f32_ge_one(x: Array) -> Array:
    x2 = multiply(x, x)
    z = negate(x2)
    ax = _abs(x)
    one = _c(1.0, x)
    reciprocal_x2 = divide(one, x2)
    scale = multiply(exponential(z), divide(one, ax))
    poly = select(
        _lt(ax, _c(2.0, x)),
        _polynomial(reciprocal_x2, _f32_coefficients(_ERFC_F32_P)),
        _polynomial(reciprocal_x2, _f32_coefficients(_ERFC_F32_R)),
    )
    approx = multiply(scale, poly)
    approx = select(_lt(z, _c(-_MAXLOG_F32, x)), _c(0.0, x), approx)
    return select(_lt(x, _c(0.0, x)), subtract(_c(2.0, x), approx), approx)


def _erf_f32_le_one(x: Array) -> Array:
    return multiply(x, _polynomial(multiply(x, x), _f32_coefficients(_ERF_F32_T)))


def _erf_f32(x: Array) -> Array:
    """Eigen's rational approximation (as XLA), on x clamped to [-4, 4], clamped to [-1, 1]."""
    x = clamp(_c(-4.0, x), x, _c(4.0, x))
    x2 = multiply(x, x)
    alpha = _polynomial(x2, _f32_coefficients(_ERF_F32_ALPHA))
    beta = _polynomial(x2, _f32_coefficients(_ERF_F32_BETA))
    return clamp(_c(-1.0, x), divide(multiply(x, alpha), beta), _c(1.0, x))


def erf(operand: Any) -> Array:
    """chlo.erf: Cephes for f64, Eigen's rational approximation in f32 otherwise."""
    x = _float_operand("chlo.erf", operand)
    if x.dtype == F64:
        one = _c(1.0, x)
        return select(_lt(_abs(x), one), _erf_f64_le_one(x), subtract(one, _erfc_f64_ge_one(x)))
    return _with_upcast([x], _erf_f32)


def _erfc_f32(x: Array) -> Array:
    one = _c(1.0, x)
    return select(_lt(_abs(x), one), subtract(one, _erf_f32_le_one(x)), _erfc_f32_ge_one(x))


def erfc(operand: Any) -> Array:
    """chlo.erfc: Cephes (f64 and f32 variants)."""
    x = _float_operand("chlo.erfc", operand)
    if x.dtype == F64:
        one = _c(1.0, x)
        return select(_lt(_abs(x), one), subtract(one, _erf_f64_le_one(x)), _erfc_f64_ge_one(x))
    return _with_upcast([x], _erfc_f32)


_ERF_INV_F32_LT5 = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERF_INV_F32_GE5 = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)

_ERF_INV_F64_LT625 = (
    -3.6444120640178196996e-21,
    -1.685059138182016589e-19,
    1.2858480715256400167e-18,
    1.115787767802518096e-17,
    -1.333171662854620906e-16,
    2.0972767875968561637e-17,
    6.6376381343583238325e-15,
    -4.0545662729752068639e-14,
    -8.1519341976054721522e-14,
    2.6335093153082322977e-12,
    -1.2975133253453532498e-11,
    -5.4154120542946279317e-11,
    1.051212273321532285e-09,
    -4.1126339803469836976e-09,
    -2.9070369957882005086e-08,
    4.2347877827932403518e-07,
    -1.3654692000834678645e-06,
    -1.3882523362786468719e-05,
    0.0001867342080340571352,
    -0.00074070253416626697512,
    -0.0060336708714301490533,
    0.24015818242558961693,
    1.6536545626831027356,
)
_ERF_INV_F64_LT16 = (
    2.2137376921775787049e-09,
    9.0756561938885390979e-08,
    -2.7517406297064545428e-07,
    1.8239629214389227755e-08,
    1.5027403968909827627e-06,
    -4.013867526981545969e-06,
    2.9234449089955446044e-06,
    1.2475304481671778723e-05,
    -4.7318229009055733981e-05,
    6.8284851459573175448e-05,
    2.4031110387097893999e-05,
    -0.0003550375203628474796,
    0.00095328937973738049703,
    -0.0016882755560235047313,
    0.0024914420961078508066,
    -0.0037512085075692412107,
    0.005370914553590063617,
    1.0052589676941592334,
    3.0838856104922207635,
)
_ERF_INV_F64_GE16 = (
    -2.7109920616438573243e-11,
    -2.5556418169965252055e-10,
    1.5076572693500548083e-09,
    -3.7894654401267369937e-09,
    7.6157012080783393804e-09,
    -1.4960026627149240478e-08,
    2.9147953450901080826e-08,
    -6.7711997758452339498e-08,
    2.2900482228026654717e-07,
    -9.9298272942317002539e-07,
    4.5260625972231537039e-06,
    -1.9681778105531670567e-05,
    7.5995277030017761139e-05,
    -0.00021503011930044477347,
    -0.00013871931833623122026,
    1.0103004648645343977,
    4.8499064014085844221,
)


def _erf_inv_edges(x: Array, result: Array) -> Array:
    """erfinv(±1) = ±inf."""
    return select(_eq(_abs(x), _c(1.0, x)), multiply(x, _inf(x)), result)


def _erf_inv_f32(x: Array) -> Array:
    w = negate(log_plus_one(multiply(x, negate(x))))
    lt = _lt(w, _c(5.0, x))
    small = _f32_coefficients(_ERF_INV_F32_LT5)
    large = _f32_coefficients(_ERF_INV_F32_GE5)

    def coefficient(i: int) -> Array:
        return select(lt, _c(small[i], x), _c(large[i], x))

    w = select(lt, subtract(w, _c(2.5, x)), subtract(sqrt(w), _c(3.0, x)))
    p = coefficient(0)
    for i in range(1, 9):
        p = add(coefficient(i), multiply(p, w))
    return _erf_inv_edges(x, multiply(p, x))


def _erf_inv_f64(x: Array) -> Array:
    w = negate(log_plus_one(multiply(x, negate(x))))
    lt625 = _lt(w, _c(6.25, x))
    lt16 = _lt(w, _c(16.0, x))

    def coefficient(i: int) -> Array:
        c = _c(_ERF_INV_F64_LT625[i], x)
        if i < 19:
            c = select(lt625, c, _c(_ERF_INV_F64_LT16[i], x))
        if i < 17:
            c = select(lt16, c, _c(_ERF_INV_F64_GE16[i], x))
        return c

    shifted = subtract(sqrt(w), select(lt16, _c(3.25, x), _c(5.0, x)))
    w = select(lt625, subtract(w, _c(3.125, x)), shifted)
    p = coefficient(0)
    for i in range(1, 17):
        p = add(coefficient(i), multiply(p, w))
    for i in range(17, 19):
        p = select(lt16, add(coefficient(i), multiply(p, w)), p)
    for i in range(19, 23):
        p = select(lt625, add(coefficient(i), multiply(p, w)), p)
    return _erf_inv_edges(x, multiply(p, x))


def erf_inv(operand: Any) -> Array:
    """chlo.erf_inv: Giles' single/double precision approximations; erf_inv(±1) = ±inf."""
    x = _float_operand("chlo.erf_inv", operand)
    if x.dtype == F64:
        return _erf_inv_f64(x)
    return _with_upcast([x], _erf_inv_f32)


# --------------------------------------------------------------------------------------------
# lgamma, digamma, zeta, polygamma
# --------------------------------------------------------------------------------------------

_LANCZOS_GAMMA = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
)
_LOG_LANCZOS_GAMMA_PLUS_HALF = float(np.log(_LANCZOS_GAMMA + 0.5))
_HALF_LOG_TWO_PI = float((np.log(2.0) + np.log(np.pi)) / 2)
_LOG_PI = float(np.log(np.pi))


def _lanczos_z(x: Array) -> tuple[Array, Array]:
    """(need_to_reflect, z) with z = -x if x < 1/2 else x - 1."""
    reflect = _lt(x, _c(0.5, x))
    return reflect, select(reflect, negate(x), subtract(x, _c(1.0, x)))


def _lanczos_log_t(z: Array) -> tuple[Array, Array]:
    """(t, log(t)) with t = z + g + 1/2, log(t) = log(g + 1/2) + log1p(z / (g + 1/2))."""
    g_half = _c(_LANCZOS_GAMMA + 0.5, z)
    t = add(g_half, z)
    log_t = add(_c(_LOG_LANCZOS_GAMMA_PLUS_HALF, z), log_plus_one(divide(z, g_half)))
    return t, log_t


def _is_inf(x: Array) -> Array:
    return _eq(_abs(x), _inf(x))


def _lgamma(x: Array) -> Array:
    reflect, z = _lanczos_z(x)
    a = _c(_LANCZOS_BASE, x)
    for i, coefficient in enumerate(_LANCZOS):
        a = add(a, divide(_c(coefficient, x), add(z, _c(i + 1, x))))
    t, log_t = _lanczos_log_t(z)
    half = _c(0.5, x)
    r = multiply(subtract(add(z, half), divide(t, log_t)), log_t)
    lgamma_ = add(add(_c(_HALF_LOG_TWO_PI, x), r), log(a))

    abs_x = _abs(x)
    abs_frac = subtract(abs_x, floor(abs_x))
    abs_frac = select(_lt(half, abs_frac), subtract(_c(1.0, x), abs_frac), abs_frac)
    reflection_denom = log(sine(multiply(_c(np.pi, x), abs_frac)))
    reflection = subtract(subtract(_c(_LOG_PI, x), reflection_denom), lgamma_)
    reflection = select(is_finite(reflection_denom), reflection, negate(reflection_denom))
    lgamma_ = select(reflect, reflection, lgamma_)
    # A subnormal x: pi*|x| in the reflection is rounded to a subnormal (pi * 5e-324 = 1.5e-323),
    # log|sin| is off by up to log(3); lgamma(x) = -log|x| - gamma*x + O(x^2) is exact to the
    # last bit there (not upstream's: it computes the reflection; XLA flushes such an x to 0)
    tiny = and_(_ne(x, _c(0.0, x)), _lt(abs_x, _smallest_normal(x)))
    lgamma_ = select(tiny, negate(log(abs_x)), lgamma_)
    return select(_is_inf(x), _inf(x), lgamma_)


def lgamma(operand: Any) -> Array:
    """chlo.lgamma: log|Γ(x)| by Lanczos (g=7, n=9) with reflection; poles and ±inf give +inf;
    ``-log|x|`` for a subnormal x (upstream's reflection loses the digits there)."""
    x = _float_operand("chlo.lgamma", operand)
    return _with_upcast([x], _lgamma)


def _digamma(x: Array) -> Array:
    reflect, z = _lanczos_z(x)
    zero = _c(0.0, x)
    a = _c(_LANCZOS_BASE, x)
    a_prime = zero
    for i, coefficient in enumerate(_LANCZOS):
        c = _c(coefficient, x)
        z_term = add(z, _c(i + 1, x))
        a_prime = subtract(a_prime, divide(c, multiply(z_term, z_term)))
        a = add(a, divide(c, z_term))
    t, log_t = _lanczos_log_t(z)
    digamma_ = subtract(add(log_t, divide(a_prime, a)), divide(_c(_LANCZOS_GAMMA, x), t))

    reduced = add(x, _abs(floor(add(x, _c(0.5, x)))))
    pi = _c(np.pi, x)
    pi_x = multiply(pi, reduced)
    reflection = subtract(digamma_, divide(multiply(pi, cosine(pi_x)), sine(pi_x)))
    digamma_ = select(reflect, reflection, digamma_)

    negative_integer = and_(_lt(x, zero), _eq(x, floor(x)))
    result = select(negative_integer, _nan(x), digamma_)
    return select(_eq(x, zero), _inf(x, negative=True), result)


def digamma(operand: Any) -> Array:
    """chlo.digamma: ψ(x) by Lanczos with reflection; NaN at negative integers, -inf at 0."""
    x = _float_operand("chlo.digamma", operand)
    return _with_upcast([x], _digamma)


_ZETA_COEFFICIENTS = (
    -7.1661652561756670113e18,
    1.8152105401943546773e17,
    -4.5979787224074726105e15,
    1.1646782814350067249e14,
    -2.950130727918164224e12,
    7.47242496e10,
    -1.8924375803183791606e9,
    47900160.0,
    -1209600.0,
    30240.0,
    -720.0,
    12.0,
)


def _zeta(x: Array, q: Array) -> Array:
    terms, iterations = 12, 9
    two_terms_minus_one = 2 * terms - 1
    zero = _c(0.0, q)
    one = _c(1.0, q)
    acc = q
    neg_x = negate(x)
    power_sum = power(q, neg_x)
    for _ in range(iterations):
        acc = add(acc, one)
        q_neg_power = power(acc, neg_x)
        power_sum = add(power_sum, q_neg_power)
    acc = add(acc, one)
    q_neg_power = power(acc, neg_x)
    one_like_x = _c(1.0, x)
    correction = divide(multiply(q_neg_power, acc), subtract(x, one_like_x))
    rsqrt_acc = divide(one, multiply(acc, acc))

    horner_sum = zero
    for i in range(terms - 1):
        factor_lhs = add(x, _c(two_terms_minus_one - 1 - 2 * i, x))
        factor_rhs = add(x, _c(two_terms_minus_one - 2 - 2 * i, x))
        horner_product = multiply(factor_lhs, factor_rhs)
        horner_sum = multiply(
            horner_product,
            multiply(rsqrt_acc, add(horner_sum, _c(1.0 / _ZETA_COEFFICIENTS[i], acc))),
        )
    x_div_acc = divide(x, acc)
    tail = multiply(
        q_neg_power,
        add(
            _c(0.5, q_neg_power),
            multiply(x_div_acc, add(_c(1.0 / _ZETA_COEFFICIENTS[terms - 1], acc), horner_sum)),
        ),
    )
    accurate = add(add(power_sum, correction), tail)
    small_enough = _lt(_abs(q_neg_power), multiply(_abs(power_sum), _smallest_subnormal(acc)))
    output = select(small_enough, power_sum, accurate)
    # q = +inf: every term q^-x, (q+k)^-x is 0, the limit 0 (not upstream's: its correction
    # term (q+10)^-x (q+10) / (x-1) is 0 * inf = NaN there)
    output = select(and_(_eq(q, _inf(q)), _gt(x, _c(1.0, x))), zero, output)

    nan = _nan(x)
    output = select(_lt(x, one_like_x), nan, output)
    q_le_zero = _le(q, zero)
    x_not_int = _ne(x, floor(x))
    output = select(and_(q_le_zero, x_not_int), nan, output)
    at_pole = and_(q_le_zero, _eq(q, floor(q)))
    x_even_int = and_(_eq(x, floor(x)), _eq(remainder(x, _c(2.0, x)), zero))
    output = select(at_pole, select(x_even_int, _inf(x), nan), output)
    return select(_eq(x, one), _inf(x), output)


def zeta(x: Any, q: Any) -> Array:
    """chlo.zeta: Hurwitz ζ(x, q) by Euler-Maclaurin (Johansson 2015), as XLA; 0 at q = +inf
    (x > 1), where upstream's decomposition gives NaN."""
    xa = _float_operand("chlo.zeta", x)
    qa = _operand(q)
    return _with_upcast([xa, qa], _zeta)


def _polygamma(n: Array, x: Array) -> Array:
    one = _c(1.0, x)
    two = _c(2.0, x)
    sign_ = subtract(multiply(two, remainder(n, two)), one)
    n_plus_one = add(n, one)
    result = multiply(multiply(sign_, exponential(_lgamma(n_plus_one))), _zeta(n_plus_one, x))
    zero = _c(0.0, x)
    result = select(_eq(n, zero), _digamma(x), result)
    non_natural = or_(_ne(n, floor(n)), _lt(n, zero))
    return select(non_natural, _nan(x), result)


def polygamma(n: Any, x: Any) -> Array:
    """chlo.polygamma: ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! ζ(n+1, x); digamma for n = 0; NaN unless n ∈ ℕ."""
    na = _float_operand("chlo.polygamma", n)
    xa = _operand(x)
    return _with_upcast([na, xa], _polygamma)


# --------------------------------------------------------------------------------------------
# bessel_i1e
# --------------------------------------------------------------------------------------------

_I1E_F64_A = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1E_F64_B = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)
# The float32 series are the last (lowest-order) terms of the double ones, as upstream's.
_I1E_F32_A = _I1E_F64_A[-17:]
_I1E_F32_B = _I1E_F64_B[-7:]


def _bessel_i1e(x: Array, a: Sequence[float], b: Sequence[float]) -> Array:
    z = _abs(x)
    half, two, eight = _c(0.5, x), _c(2.0, x), _c(8.0, x)
    x_le_8 = multiply(z, _chebyshev(subtract(multiply(half, z), two), a))
    x_gt_8 = divide(_chebyshev(subtract(divide(_c(32.0, x), z), two), b), sqrt(z))
    return multiply(sign(x), select(_le(z, eight), x_le_8, x_gt_8))


def bessel_i1e(operand: Any) -> Array:
    """chlo.bessel_i1e: exponentially scaled modified Bessel function I1 (Cephes Chebyshev)."""
    x = _float_operand("chlo.bessel_i1e", operand)
    if x.dtype == F64:
        return _bessel_i1e(x, _I1E_F64_A, _I1E_F64_B)
    a, b = _f32_coefficients(_I1E_F32_A), _f32_coefficients(_I1E_F32_B)
    return _with_upcast([x], lambda v: _bessel_i1e(v, a, b))


# --------------------------------------------------------------------------------------------
# next_after, is_inf, conj
# --------------------------------------------------------------------------------------------


def next_after(x: Any, y: Any) -> Array:
    """chlo.next_after: the representable neighbour of x toward y, by integer arithmetic on the
    bit patterns (upstream's ``materializeNextAfter``, op for op)."""
    xf = _float_operand("chlo.next_after", x)
    yf = _operand(y)
    bits = dt.bitwidth(xf.dtype)
    int_type = dt.dtype_of(f"i{bits}")
    x_as_int = bitcast_convert(xf, int_type)
    y_as_int = bitcast_convert(yf, int_type)
    nan_input = or_(_ne(xf, xf), _ne(yf, yf))
    result_for_nan = bitcast_convert(_nan(xf), int_type)
    sign_bit = 1 << (bits - 1)
    sign_mask = _c(-sign_bit, x_as_int)
    negated_sign_mask = _c(sign_bit - 1, x_as_int)
    x_abs = and_(x_as_int, negated_sign_mask)
    y_abs = and_(y_as_int, negated_sign_mask)
    x_and_y_are_equal = _eq(xf, yf)
    zero = _c(0, x_as_int)
    x_abs_is_zero = _eq(x_abs, zero)
    y_abs_is_zero = _eq(y_abs, zero)
    x_sign = and_(x_as_int, sign_mask)
    y_sign = and_(y_as_int, sign_mask)
    one = _c(1, x_as_int)
    # x is ±0 and y is not: the smallest subnormal with y's sign.
    result_for_x_zero_y_non_zero = or_(y_sign, one)
    signs_disagree = _ne(x_sign, y_sign)
    x_magnitude_larger_than_y = _gt(x_abs, y_abs)
    result_has_smaller_magnitude = or_(x_magnitude_larger_than_y, signs_disagree)
    minus_one = _c(-1, x_as_int)
    magnitude_adjustment = select(result_has_smaller_magnitude, minus_one, one)
    result = add(x_as_int, magnitude_adjustment)
    result = select(
        x_abs_is_zero, select(y_abs_is_zero, y_as_int, result_for_x_zero_y_non_zero), result
    )
    result = select(x_and_y_are_equal, y_as_int, result)
    result = select(nan_input, result_for_nan, result)
    return bitcast_convert(result, xf.dtype)


def mulhi(lhs: Any, rhs: Any) -> Array:
    """chlo.mulhi: the high half of the double-width product of two integers of one type
    (upstream's decomposition: a double-width multiply and shift; for 64 bits, 32-bit limbs on
    ui64 and, for signed operands, the two's-complement correction)."""
    a, b = _operand(lhs), _operand(rhs)
    if not dt.is_int(a.dtype):  # signed or unsigned integers (i1 is boolean, not an integer)
        raise unsupported("chlo.mulhi", a.dtype)
    width = dt.bitwidth(a.dtype)
    signed = dt.is_signed_int(a.dtype)
    if width < 64:
        wide = dt.dtype_of(f"{'i' if signed else 'ui'}{2 * width}")
        product = multiply(convert(a, wide), convert(b, wide))
        shift = shift_right_arithmetic if signed else shift_right_logical
        return convert(shift(product, _c(width, product)), a.dtype)
    u64 = dt.dtype_of("ui64")
    a_u, b_u = convert(a, u64), convert(b, u64)

    def high(v: Array) -> Array:
        return shift_right_logical(v, _c(32, v))

    def low(v: Array) -> Array:
        return and_(v, _c(0xFFFF_FFFF, v))

    a_hi, b_hi = high(a_u), high(b_u)
    hi_hi = multiply(a_hi, b_hi)
    a_lo = low(a_u)
    lo_hi = multiply(a_lo, b_hi)
    b_lo = low(b_u)
    carry = add(lo_hi, high(multiply(a_lo, b_lo)))
    result = add(hi_hi, high(carry))
    result = add(result, high(add(multiply(a_hi, b_lo), low(carry))))
    if not signed:
        return result
    for x, y in ((a, b), (b, a)):
        negative = _lt(x, _c(0, x))
        result = subtract(result, select(negative, convert(y, u64), _c(0, a_u)))
    return convert(result, a.dtype)


def ragged_prefix(ragged: int, lhs_batching: list[int], lhs_contracting: list[int]) -> list[int]:
    """chlo.ragged_dot: the lhs dimensions that `group_sizes`' leading dimensions index (all but its
    last): the batch dimensions, and for a ragged contracting dimension the contracting dimensions
    before it, for a ragged non-contracting one the free dimensions before it."""
    if ragged in lhs_batching:
        return lhs_batching[: lhs_batching.index(ragged)]
    if ragged in lhs_contracting:
        return [*lhs_batching, *lhs_contracting[: lhs_contracting.index(ragged)]]
    free_before = [i for i in range(ragged) if i not in lhs_batching and i not in lhs_contracting]
    return [*lhs_batching, *free_before]


def is_inf(operand: Any) -> Array:
    """chlo.is_inf: ``|x| == +inf``."""
    x = _float_operand("chlo.is_inf", operand)
    return _is_inf(x)


def is_pos_inf(operand: Any) -> Array:
    """chlo.is_pos_inf: ``x == +inf``."""
    x = _float_operand("chlo.is_pos_inf", operand)
    return _eq(x, _inf(x))


def is_neg_inf(operand: Any) -> Array:
    """chlo.is_neg_inf: ``x == -inf``."""
    x = _float_operand("chlo.is_neg_inf", operand)
    return _eq(x, _inf(x, negative=True))


def conj(operand: Any) -> Array:
    """chlo.conj: ``complex(real(x), -imag(x))``."""
    x = _float_operand("chlo.conj", operand, allow_complex=True)
    if dt.is_float(x.dtype):
        return x if isinstance(x, Traced) else x.copy()
    return _complex(real(x), negate(imag(x)))


# --------------------------------------------------------------------------------------------
# Hyperbolic functions
# --------------------------------------------------------------------------------------------


def _exp_half_pair(x: Array) -> tuple[Array, Array]:
    """(e^(x + log ½), e^(log ½ - x)); log ½ is computed with ``log`` in the element type."""
    log_half = log(_c(0.5, x))
    return exponential(add(x, log_half)), exponential(subtract(log_half, x))


def _cosh(x: Array) -> Array:
    e_plus, e_minus = _exp_half_pair(x)
    return add(e_plus, e_minus)


def _complex_by_parts(z: Array, fn: Callable[[Array], Array], real_fn: Callable[[Array], Array],
                      imag_fn: Callable[[Array], Array], trig: tuple[Callable, Callable]) -> Array:
    """``fn(z)`` (upstream's complex formula) where ``|Re z| >= 1``; elsewhere
    ``real_fn(x) trig[0](y) + i imag_fn(x) trig[1](y)`` with the real sinh/cosh, whose expm1 keeps
    the digits that ``e^(x + log ½) - e^(log ½ - x)`` cancels for a small x (upstream's complex
    sinh and cosh lose them: sinh(1e-20 + 0i) = 0 in complex64)."""
    x, y = real(z), imag(z)
    by_parts = _complex(multiply(real_fn(x), trig[0](y)), multiply(imag_fn(x), trig[1](y)))
    return select(_lt(_abs(x), _c(1.0, x)), by_parts, fn(z))


def cosh(operand: Any) -> Array:
    """chlo.cosh: ``e^(x + log ½) + e^(log ½ - x)`` (no premature overflow); complex with a real
    part below 1 in magnitude: ``cosh x cos y + i sinh x sin y``."""
    x = _float_operand("chlo.cosh", operand, allow_complex=True)
    if dt.is_complex(x.dtype):
        return _complex_by_parts(x, _cosh, _cosh, _sinh, (cosine, sine))
    return _with_upcast([x], _cosh)


def _sinh_large(x: Array) -> Array:
    e_plus, e_minus = _exp_half_pair(x)
    return subtract(e_plus, e_minus)


def _sinh(x: Array) -> Array:
    large = _sinh_large(x)
    em1 = exponential_minus_one(x)
    one = _c(1.0, x)
    small = multiply(_c(0.5, x), add(em1, divide(em1, add(em1, one))))
    return select(_lt(_abs(x), one), small, large)


def sinh(operand: Any) -> Array:
    """chlo.sinh: expm1-based for |x| < 1, ``e^(x + log ½) - e^(log ½ - x)`` otherwise; complex
    with a real part below 1 in magnitude: ``sinh x cos y + i cosh x sin y``."""
    x = _float_operand("chlo.sinh", operand, allow_complex=True)
    if dt.is_complex(x.dtype):
        return _complex_by_parts(x, _sinh_large, _sinh, _cosh, (cosine, sine))
    return _with_upcast([x], _sinh)


def tan(operand: Any) -> Array:
    """chlo.tan: ``stablehlo.tan``."""
    return _tan(_float_operand("chlo.tan", operand, allow_complex=True))


# --------------------------------------------------------------------------------------------
# Inverse trigonometric and hyperbolic functions
# --------------------------------------------------------------------------------------------


def _hypot(a: Array, b: Array, sqrt_two: Array, one: Array, two: Array, zero: Array) -> Array:
    """The overflow-free hypot of ChloDecompositionPatternsMath.td (inputs are non-negative)."""
    mx = maximum(a, b)
    mn = minimum(a, b)
    ratio = divide(mn, mx)
    r = multiply(ratio, ratio)
    sqa = sqrt(add(one, r))
    near_one = and_(_eq(sqa, one), _gt(r, zero))
    general = select(near_one, add(mx, divide(multiply(mx, r), two)), multiply(mx, sqa))
    return select(_eq(mx, mn), multiply(sqrt_two, mx), general)


def _asin_acos_kernel(z: Array) -> tuple[Array, Array, Array, Array]:
    """Shared part of complex asin/acos (modified Hull et al.).

    Returns (signed_x, signed_y, q, imag) where real(asin z) = atan2(signed_x, q),
    real(acos z) = atan2(q, signed_x), and imag is |imag(asin z)|.
    """
    signed_x, signed_y = real(z), imag(z)
    x, y = _abs(signed_x), _abs(signed_y)
    one, half, two, zero = _c(1.0, x), _c(0.5, x), _c(2.0, x), _c(0.0, x)
    sqrt_two = sqrt(two)
    safe_max = divide(sqrt(_max_finite(x)), _c(8.0, x))

    xp1 = add(x, one)
    xm1 = subtract(x, one)
    r = _hypot(_abs(xp1), y, sqrt_two, one, two, zero)
    s = _hypot(_abs(xm1), y, sqrt_two, one, two, zero)
    a = multiply(half, add(r, s))
    half_apx = multiply(half, add(a, x))
    yy = multiply(y, y)
    rpxp1 = add(r, xp1)
    smxm1 = subtract(s, xm1)
    spxm1 = add(s, xm1)

    q = select(
        _ge(maximum(x, y), safe_max),
        y,
        select(
            _le(x, one),
            sqrt(multiply(half_apx, add(divide(yy, rpxp1), smxm1))),
            multiply(y, sqrt(add(divide(half_apx, rpxp1), divide(half_apx, spxm1)))),
        ),
    )

    safe_max_opt = select(
        _lt(x, multiply(safe_max, _c(1e12, x))),
        multiply(safe_max, _c(1e-6, x)),
        multiply(safe_max, _c(100.0, x)),
    )
    y_gt_safe_max_opt = _ge(y, safe_max_opt)
    mx = select(y_gt_safe_max_opt, y, x)
    xoy = select(and_(y_gt_safe_max_opt, not_(_eq(y, _inf(signed_y)))), divide(x, y), zero)
    large = add(add(log(two), log(mx)), multiply(half, log_plus_one(multiply(xoy, xoy))))

    tiny_y = and_(_lt(y, multiply(sqrt(_smallest_normal(x)), _c(4.0, x))), _lt(x, one))
    ap1 = add(a, one)
    half_yy = multiply(half, yy)
    divide_half_yy_rpxp1 = divide(half_yy, rpxp1)
    am1_general = select(
        _ge(x, one),
        add(divide_half_yy_rpxp1, multiply(half, spxm1)),
        select(
            _le(a, _c(1.5, x)),
            add(divide_half_yy_rpxp1, divide(half_yy, smxm1)),
            subtract(a, one),
        ),
    )
    am1 = select(tiny_y, negate(divide(multiply(xp1, xm1), ap1)), am1_general)
    sq = sqrt(multiply(am1, ap1))
    small = select(tiny_y, divide(y, sq), log_plus_one(add(am1, sq)))
    imag_ = select(_ge(mx, select(y_gt_safe_max_opt, safe_max_opt, safe_max)), large, small)
    return signed_x, signed_y, q, imag_


def asin(operand: Any) -> Array:
    """chlo.asin: ``atan2(x, sqrt((1 - x)(1 + x)))``; complex by modified Hull et al.

    The real formula is the newest upstream's (jaxlib 0.12, StableHLO 1.22.0, established by
    lowering chlo.asin with its chlo-legalize-to-stablehlo); upstream's 1.20.0 source and jaxlib
    0.10 lowered it as ``2 atan2(x, 1 + sqrt((1 - x)(1 + x)))``, which differs in the last bits."""
    z = _float_operand("chlo.asin", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        signed_x, signed_y, q, imag_ = _asin_acos_kernel(z)
        zero = _c(0.0, signed_y)
        return _complex(atan2(signed_x, q), select(_lt(signed_y, zero), negate(imag_), imag_))
    one = _c(1.0, z)
    return atan2(z, sqrt(multiply(subtract(one, z), add(one, z))))


def _acos_parts(z: Array) -> tuple[Array, Array, Array]:
    signed_x, signed_y, q, imag_ = _asin_acos_kernel(z)
    zero = _c(0.0, signed_y)
    acos_real = atan2(q, signed_x)
    acos_imag = select(_lt(signed_y, zero), imag_, negate(imag_))
    return signed_y, acos_real, acos_imag


def acos(operand: Any) -> Array:
    """chlo.acos: ``atan2(sqrt((1 - x)(1 + x)), x)`` (upstream's real formula, π at x = -1, where
    the half-angle form ``2 atan2(sqrt(1 - x²), 1 + x)`` gives 2 atan2(0, 0) = 0); complex by
    modified Hull et al."""
    z = _float_operand("chlo.acos", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        _, acos_real, acos_imag = _acos_parts(z)
        return _complex(acos_real, acos_imag)
    one = _c(1.0, z)
    return atan2(sqrt(multiply(subtract(one, z), add(one, z))), z)


def square(operand: Any) -> Array:
    """chlo.square: ``x * x``; complex ``(x - y)(x + y) + 2xy i`` with a real part of 0 where
    ``x`` is finite and ``|x| = |y|`` (upstream's decomposition: the product ``z * z`` loses the
    real part to ``inf - inf`` or cancellation when ``x² ≈ y²``)."""
    z = _float_operand("chlo.square", operand, allow_complex=True)
    if not dt.is_complex(z.dtype):
        return multiply(z, z)
    x, y = real(z), imag(z)
    cancels = and_(is_finite(x), _eq(_abs(x), _abs(y)))
    re = select(cancels, _c(0.0, x), multiply(subtract(x, y), add(x, y)))
    return _complex(re, multiply(_c(2.0, x), multiply(x, y)))


def acosh(operand: Any) -> Array:
    """chlo.acosh: ``log1p(sqrt(x-1) (sqrt(x+1) + sqrt(x-1)))``, ``log 2 + log x`` near overflow;
    complex ``±i acos(z)``."""
    z = _float_operand("chlo.acosh", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        signed_y, acos_real, acos_imag = _acos_parts(z)
        w = _complex(negate(acos_imag), acos_real)
        return select(_lt(signed_y, _c(0.0, signed_y)), negate(w), w)
    one, two = _c(1.0, z), _c(2.0, z)
    sqrt_xm1 = sqrt(subtract(z, one))
    general = log_plus_one(multiply(sqrt_xm1, add(sqrt(add(z, one)), sqrt_xm1)))
    return select(_ge(z, divide(_max_finite(z), two)), add(log(two), log(z)), general)


def asinh(operand: Any) -> Array:
    """chlo.asinh: ``sign(x) log1p(|x| + x²/(1 + sqrt(1 + x²)))``; complex ``-i asin(i z)``."""
    z = _float_operand("chlo.asinh", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        w = asin(_complex(negate(imag(z)), real(z)))
        return _complex(imag(w), negate(real(w)))
    ax = _abs(z)
    one = _c(1.0, z)
    ax2 = multiply(ax, ax)
    general = log_plus_one(add(ax, divide(ax2, add(one, sqrt(add(one, ax2))))))
    large = add(log(_c(2.0, z)), log(ax))
    return multiply(sign(z), select(_ge(ax, sqrt(_max_finite(z))), large, general))


def _atanh_complex(z: Array) -> Array:
    """Complex atanh of ChloDecompositionPatternsMath.td (safe-region split, no overflow)."""
    x = real(z)
    one, neg_one = _c(1.0, x), _c(-1.0, x)
    sign_x = select(_ge(x, _c(0.0, x)), one, neg_one)
    four = _c(4.0, x)
    ax = _abs(x)
    largest = _max_finite(x)
    safe_max_opt = select(
        _gt(largest, _c(1e308, x)),
        _c(9007199254740994.0, x),
        select(_gt(largest, _c(1e38, x)), _c(16777218.0, x), _c(2050.0, x)),
    )
    safe_max = multiply(safe_max_opt, safe_max_opt)
    y = imag(z)
    ay = _abs(y)
    in_safe_region = and_(_lt(ax, safe_max), _lt(ay, safe_max))
    naxm1 = subtract(one, ax)
    y2 = multiply(y, y)
    safe = divide(ax, add(multiply(naxm1, naxm1), y2))
    y_small = _lt(multiply(ay, safe_max_opt), ax)
    reciprocal_ax = divide(one, ax)
    inf, neg_inf = _inf(x), _inf(x, negative=True)
    x_inf = or_(_eq(x, inf), _eq(x, neg_inf))
    y_inf = or_(_eq(y, inf), _eq(y, neg_inf))
    large = divide(divide(one, add(divide(ax, y), divide(y, ax))), y)
    unsafe = select(y_small, reciprocal_ax, select(or_(x_inf, y_inf), _c(0.0, x), large))
    ratio = select(in_safe_region, safe, unsafe)
    real_part = multiply(multiply(sign_x, log_plus_one(multiply(four, ratio))), _c(0.25, x))
    # Beside ±1 with (1-|x|)^2 + y^2 below the normal range (atanh(1 + 1e-300i)) the ratio
    # overflows or loses its digits to subnormals: there 4 ratio is huge and
    # log1p(4 ratio) = log(4|x|) - log((1-|x|)^2 + y^2), the latter as 2 log m + log(u^2 + v^2)
    # with m the larger of |1-|x||, |y| (not upstream's, which gives inf)
    zero = _c(0.0, x)
    m = maximum(_abs(naxm1), ay)
    beside_one = and_(_lt(m, multiply(sqrt(_smallest_normal(x)), four)), _gt(m, zero))
    u, v = divide(naxm1, m), divide(ay, m)
    log_denominator = add(multiply(_c(2.0, x), log(m)), log(add(multiply(u, u), multiply(v, v))))
    real_beside_one = multiply(multiply(sign_x, subtract(log(multiply(four, ax)), log_denominator)),
                               _c(0.25, x))
    real_part = select(beside_one, real_beside_one, real_part)
    imag_safe = atan2(add(y, y), subtract(multiply(naxm1, add(one, ax)), y2))
    sign_y = select(_ge(y, _c(0.0, x)), one, neg_one)
    imag_unsafe = multiply(sign_y, _c(np.pi, x))
    imag_part = multiply(select(in_safe_region, imag_safe, imag_unsafe), _c(0.5, x))
    return _complex(real_part, imag_part)


def atan(operand: Any) -> Array:
    """chlo.atan: ``atan2(x, 1)``; complex ``-i atanh(i z)``."""
    z = _float_operand("chlo.atan", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        w = _atanh_complex(_complex(negate(imag(z)), real(z)))
        return _complex(imag(w), negate(real(w)))
    return atan2(z, _c(1.0, z))


def atanh(operand: Any) -> Array:
    """chlo.atanh: ``(log1p(x) - log1p(-x)) / 2`` with NaN for |x| > 1; complex by the safe-region
    formula of ChloDecompositionPatternsMath.td."""
    z = _float_operand("chlo.atanh", operand, allow_complex=True)
    if dt.is_complex(z.dtype):
        return _atanh_complex(z)
    value = multiply(subtract(log_plus_one(z), log_plus_one(negate(z))), _c(0.5, z))
    return select(_gt(_abs(z), _c(1.0, z)), _nan(z), value)


# The chlo ops of one operand computed here, each by the function of its name.
UNARY_OPS = (
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bessel_i1e",
    "conj",
    "cosh",
    "digamma",
    "erf",
    "erf_inv",
    "erfc",
    "is_inf",
    "is_neg_inf",
    "is_pos_inf",
    "lgamma",
    "sinh",
    "square",
    "tan",
)

__all__ = ["mulhi", "next_after", "polygamma", "zeta"]
__all__.extend(UNARY_OPS)

from .top_k import top_k

__all__ += ["top_k"]
