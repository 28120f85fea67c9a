"""stablehlo-py."""

# Elementwise ops of the spec and the CHLO functions (numpy + ml_dtypes only).
# ``and``/``or``/``not`` are spelled ``and_``/``or_``/``not_``; CHLO ops live under ``chlo``
# (``chlo.erf``, ``chlo.top_k``) because some share a name with a StableHLO op (``tan``).
from . import bitwise, chlo, conversion, elementwise
from .bitwise import (
    and_,
    count_leading_zeros,
    not_,
    or_,
    popcnt,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    xor,
)
from .conversion import bitcast_convert, convert, reduce_precision
from .elementwise import (
    abs,
    add,
    atan2,
    cbrt,
    ceil,
    clamp,
    compare,
    complex,
    cosine,
    divide,
    exponential,
    exponential_minus_one,
    floor,
    imag,
    is_finite,
    log,
    log_plus_one,
    logistic,
    maximum,
    minimum,
    multiply,
    negate,
    power,
    real,
    remainder,
    round_nearest_afz,
    round_nearest_even,
    rsqrt,
    select,
    sign,
    sine,
    sqrt,
    subtract,
    tan,
    tanh,
)
