"""Where built ops go, and the two ways a Python value becomes IR: constants and call-site locations.

Op functions append to the innermost block being built: a function body (``Module.func``) or a
region body (a callable given to ``reduce``, ``while_``, ...).  The stack of those blocks is kept
here, per thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.fastop import new_op
from stablehlo_py.builder.numbers import (
    NumberError,
    cast_exact,
    describe,
    is_number,
    to_element,
    to_elements,
    type_name,
)
from stablehlo_py.builder.sites import column, site, user_frame
from stablehlo_py.builder.types import element_type_of, to_type
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.ops.base import i64_array_attr
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.types import element_type, shape_of, storage_dtype, tensor_type
from stablehlo_py.ir.xdsl_compat.side_data import SRC, attach


class _State(threading.local):
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.locations: list[bool] = []
        self.modules: list[Any] = []


_STATE = _State()


@contextmanager
def inserting(block: Block, locations: bool | None = None, module: Any = None) -> Iterator[Block]:
    """Append the ops built inside the ``with`` to ``block``; ``locations`` (default: as the
    enclosing block) attaches each op's Python call site as its location; ``module`` is the
    builder Module the block belongs to (default: the enclosing one)."""
    st = _STATE
    st.blocks.append(block)
    st.locations.append(st.locations[-1] if locations is None and st.locations else bool(locations))
    st.modules.append(module if module is not None or not st.modules else st.modules[-1])
    try:
        yield block
    finally:
        st.blocks.pop()
        st.locations.pop()
        st.modules.pop()


def current_module() -> Any:
    """The builder Module whose function is being built (None outside one)."""
    return _STATE.modules[-1] if _STATE.modules else None


def current_block() -> Block:
    if not _STATE.blocks:
        raise BuildError(
            "no function is being built",
            note="call op functions inside a function body (@module.func) or a region callable",
        )
    return _STATE.blocks[-1]


class CallSite:
    """Where an op was built, in the shape of the text layer's ``Source`` (``filename``,
    ``line_col(pos)``, ``location(pos)``), so that diagnostics about the op (``VerifyError``'s
    location) name the Python line as they name a parsed op's line."""

    __slots__ = ("filename",)

    def __init__(self, filename: str):
        self.filename = filename

    def line_col(self, pos: tuple[int, int]) -> tuple[int, int]:
        return pos

    def location(self, pos: tuple[int, int]) -> str:
        return f"{self.filename}:{pos[0]}:{pos[1]}"


def insert(op: Operation) -> Operation:
    """Append ``op`` to the current block (with its call site when locations are on: as its
    location, and as where it came from for diagnostics)."""
    block = current_block()
    if _STATE.locations[-1]:
        f = user_frame()
        if f is not None:
            code = f.f_code
            lasti = f.f_lasti + 1  # an `extra` of 0 would mean none
            place = _PLACES.get_seq((code,), lasti)
            if place is None:
                place = _PLACES.put_seq((code,), _place(code, f.f_lineno, f.f_lasti), lasti)
            op.location = place[0]  # type: ignore[assignment]
            attach(op, SRC, place[1])
    block.add_op(op)
    return op


_PLACES = CONTEXT.identity_map("builder.places", 1 << 14)
"""(code object, instruction offset + 1) -> (location, SRC value) of a producer's call site: one
TextLoc per Python instruction."""


def _place(code: Any, line: int, lasti: int) -> tuple[TextLoc, Any]:
    file = code.co_filename
    col = column(code, lasti)
    name = file.replace("\\", "\\\\").replace('"', '\\"')
    return TextLoc(f'"{name}":{line}:{col}'), (CallSite(file), (line, col))


# ----------------------------------------------------------------------------------- constants
_PY_DEFAULT = {bool: "i1", int: "i32", float: "f32", complex: "complex<f32>"}
"""Element types of Python scalars and lists of them when no dtype is given (JAX's defaults)."""


def _python_kind(value: Any) -> type | None:
    """bool/int/float/complex when ``value`` is a Python number or a nested list of them."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, int | float | complex):
        return type(value)
    if isinstance(value, list | tuple) and value:
        kinds = {_python_kind(v) for v in value}
        if None in kinds:
            return None
        for k in (complex, float, int, bool):
            if k in kinds:
                return k
    return None


def constant(value: Any, dtype: Any = None, *, shape: Sequence[int] | None = None) -> SSAValue:
    """A ``stablehlo.constant`` holding ``value``.

    - numpy arrays and numpy scalars keep their dtype and shape (``np.float64`` gives ``f64``);
    - Python numbers and (nested) lists of them take ``dtype`` or, without one, JAX's defaults:
      ``bool`` -> ``i1``, ``int`` -> ``i32``, ``float`` -> ``f32``, ``complex`` -> ``complex<f32>``;
    - ``dtype`` (an element-type spelling or numpy dtype) converts the value;
    - ``shape`` broadcasts the value (stored once, as a splat, when it is a single number).

    No value changes silently: Python numbers follow the number rule (``builder.numbers``: never
    truncated, wrapped or overflowed; ``constant(2**40)`` is an error, as in JAX), and a numpy
    value is converted to ``dtype`` only when every element survives (``numbers.cast_exact``).

    A bad value is a BuildError at the producer's line.
    """
    if isinstance(value, SSAValue):
        return value
    try:
        return _constant(value, dtype, shape)
    except BuildError as e:
        if e.location is None:
            e.at(site())
        raise


def _constant(value: Any, dtype: Any, shape: Sequence[int] | None) -> SSAValue:
    t, arr = _constant_data(value, dtype, shape)
    return _constant_op(t, arr)


def dense_value(value: Any) -> Attribute:
    """``value`` (a number, a (nested) list of numbers, a numpy array or scalar) as the dense
    elements attribute ``constant(value)`` would hold: the ``value`` of ``hlo.constant(value)``."""
    t, arr = _constant_data(value, None, None)
    return make_dense(t, _stored(t, arr))


def _constant_data(
    value: Any, dtype: Any, shape: Sequence[int] | None
) -> tuple[TensorType, np.ndarray]:
    """The type and data of ``constant(value, dtype, shape=shape)`` (a splat: one element)."""
    if dtype is None:
        kind = None if isinstance(value, np.ndarray | np.generic) else _python_kind(value)
        if kind is None and not isinstance(value, np.ndarray | np.generic):
            raise BuildError(
                f"cannot make a constant of {value!r}",
                note="give a number, a (nested) list of numbers, or a numpy array",
            )
        elem = (
            element_type_of(_PY_DEFAULT[kind])
            if kind is not None
            else element_type_of(np.asarray(value).dtype)
        )
    else:
        elem = element_type_of(dtype)
    arr = _elements(value, elem)
    if shape is not None:
        shape = tuple(shape)
        if arr.ndim == 0:  # a splat: stored as its one element
            return tensor_type(elem, shape), arr.reshape(1)
        arr = np.broadcast_to(arr, shape)
    return tensor_type(elem, tuple(arr.shape)), arr


def _elements(value: Any, elem: Attribute) -> np.ndarray:
    """``value``'s elements as ``elem``'s: Python numbers by the number rule (never truncated or
    overflowed), numpy values converted only when every value survives (``cast_exact``)."""
    if isinstance(value, np.ndarray | np.generic):
        try:
            return cast_exact(np.asarray(value), elem)
        except NumberError as e:
            raise BuildError(
                f"cannot make a constant of type {type_name(elem)} from {describe(value)}, "
                f"{e.reason}",
                note="round or clip it first (np.round, np.clip), or convert in the program with "
                "hlo.convert",
            ) from None
    obj = np.empty((), object)
    obj[()] = value
    try:
        obj = np.asarray(value, dtype=object)
    except ValueError:  # nested lists of different lengths
        pass
    if isinstance(value, list | tuple) and (obj.ndim == 0 or obj.dtype != object):
        raise BuildError(f"cannot make a constant of {value!r}: the lists are ragged")
    out = np.empty(obj.shape, storage_dtype(elem))
    for k, v in np.ndenumerate(obj):
        if isinstance(v, list | tuple) or not is_number(v):
            raise BuildError(
                f"cannot make a constant of {value!r}"
                + (": the lists are ragged" if isinstance(v, list | tuple) else ""),
                note="give a number, a (nested) list of numbers of one shape, or a numpy array",
            )
        try:
            out[k] = to_element(v, elem, "the constant's type is")
        except NumberError as e:
            at = "".join(f"[{j}]" for j in k)
            raise BuildError(
                f"cannot make a constant: {describe(v)}{' at ' + at if at else ''}, {e.reason}"
            ) from None
    return out


def _stored(t: TensorType, arr: np.ndarray) -> np.ndarray:
    try:
        return arr.astype(storage_dtype(t.element_type), copy=False)
    except (TypeError, ValueError, OverflowError) as e:  # OverflowError: an int too large
        raise BuildError(f"cannot store {arr.dtype} values as {t}: {e}") from None


def _constant_op(t: TensorType, arr: np.ndarray) -> SSAValue:
    from stablehlo_py.ir.dialects import default_registry

    cls = _CONSTANT.get("cls")
    if cls is None:
        cls = _CONSTANT.put("cls", default_registry().ops["stablehlo.constant"])
    op = new_op(cls, (), [t], {"value": make_dense(t, _stored(t, arr))})
    insert(op)
    return op.results[0]


_CONSTANT = CONTEXT.table("builder.constant_class", 1)  # "cls" -> stablehlo.constant's class


def operand_constant(
    value: Any,
    like: SSAValue | Attribute | None,
    full_shape: bool,
    op_name: str,
    what: str,
    source: str | None = None,
    made: list[SSAValue] | None = None,
) -> SSAValue:
    """A Python number (or numpy scalar, 0-d array) written where an op takes a tensor: a splat
    constant of the element type of ``like`` (the value, or the type, whose element type the op
    needs there) by the number rule (``builder.numbers``: never truncated, wrapped or overflowed)
    and, when ``full_shape`` (the op's operands must all have one shape), ``like``'s static shape,
    else 0-d.  Without ``like``, JAX's defaults for Python numbers; numpy values keep their dtype.
    An n-d numpy array keeps its shape and takes ``like``'s element type by the same rule as
    numpy scalars (its dtype, or the 64-bit one JAX canonicalizes to it).  ``source`` says where ``like`` comes from, ``{type}`` standing
    for its type (``"operand 'lhs' is {type}"``), for the error's note.

    Against a shape with dynamic dimensions (``tensor<?x4xf32>``), the splat is built as JAX's
    ``mlir.shape_tensor`` does: a 0-d constant, the shape as a ``tensor<Rxi32>`` (static sizes as
    constants, dynamic ones from ``get_dimension_size``, joined by ``concatenate``), and
    ``dynamic_broadcast_in_dim`` to ``like``'s type; the ops made before the last one are appended
    to ``made`` (so that a failed call can erase them)."""
    array = isinstance(value, np.ndarray) and value.ndim != 0
    if not array and not is_number(value):
        raise BuildError(
            f"{op_name}: {what} must be a value built by the builder (an SSAValue), a number or a "
            f"numpy array; got {value!r}"
        )
    lt = like.type if isinstance(like, SSAValue) else like
    if not isinstance(lt, TensorType):  # no tensor to follow (none, or a token)
        return _own_type_constant(value, op_name, what)
    elem = element_type(lt)
    if elem.__class__.__name__ == "UniformQuantizedType":
        if array:
            return constant(value)  # its own type: the op's check says what it needs
        raise BuildError(
            f"{op_name}: {what} is a number but the operands are quantized; build it with constant()"
        )
    try:
        data = to_elements(value, elem) if array else to_element(value, elem)
    except NumberError as e:
        from stablehlo_py.ir.verify.constraints import t2s

        err = BuildError(
            f"{op_name}: {what} is {describe(value)}, {e.reason}",
            note=None if source is None else source.format(type=t2s(lt)),
        )
        raise (err if e.hint is None else err.also(e.hint)) from None
    if array:  # its own shape: the op's check compares it
        return _constant_op(tensor_type(elem, data.shape), data)
    shape = shape_of(lt) if full_shape else ()
    if shape is None:
        shape = ()
    elif any(d < 0 for d in shape):
        return _dynamic_splat(data, elem, lt, like, made)
    return _constant_op(tensor_type(elem, tuple(shape)), data)


def _own_type_constant(value: Any, op_name: str, what: str) -> SSAValue:
    """A number or numpy array with no operand to take the type of: a numpy value keeps its dtype,
    which must be an element type; a Python number takes JAX's default type (``_PY_DEFAULT``) by
    the number rule (an int that does not fit i32, a float that overflows f32 are refused)."""
    if isinstance(value, np.ndarray | np.generic):
        try:
            element_type_of(value.dtype)
        except BuildError:
            raise BuildError(
                f"{op_name}: {what} is {describe(value)}, whose dtype is not an element type"
            ) from None
        return constant(value)
    kind = _python_kind(value)
    assert kind is not None  # is_number(value)
    elem = element_type_of(_PY_DEFAULT[kind])
    try:
        data = to_element(value, elem)
    except NumberError as e:
        raise BuildError(
            f"{op_name}: {what} is {describe(value)}, {e.reason}",
            note=f"with no operand to take the type of, a Python {kind.__name__} is "
            f"{_PY_DEFAULT[kind]} (JAX's default)",
        ) from None
    return _constant_op(tensor_type(elem, ()), data)


def _dynamic_splat(
    data: np.ndarray,
    elem: Attribute,
    t: TensorType,
    like: SSAValue | Attribute | None,
    made: list[SSAValue] | None,
) -> SSAValue:
    """``data`` broadcast to ``t``, whose shape has dynamic sizes read from ``like``."""
    if not isinstance(like, SSAValue):
        raise BuildError(f"a number cannot take the dynamic shape of {t} without a value of it")
    steps: list[SSAValue] = [] if made is None else made
    i32 = element_type_of("i32")
    one = tensor_type(i32, (1,))
    scalar = _constant_op(tensor_type(elem, ()), data)
    steps.append(scalar)
    parts = []
    for d, size in enumerate(shape_of(t) or ()):
        if size >= 0:
            part = _constant_op(one, np.asarray([size], np.int32))
        else:
            n = _shape_op(
                "stablehlo.get_dimension_size", [like], tensor_type(i32, ()), {"dimension": _i64(d)}
            )
            steps.append(n)
            part = _shape_op("stablehlo.reshape", [n], one, {})
        steps.append(part)
        parts.append(part)
    dims = _concatenate(parts, i32)
    if len(parts) > 1:
        steps.append(dims)
    return _shape_op(
        "stablehlo.dynamic_broadcast_in_dim",
        [scalar, dims],
        t,
        {"broadcast_dimensions": i64_array_attr(())},
    )


def _concatenate(parts: Sequence[SSAValue], i32: Attribute) -> SSAValue:
    """``parts`` (each a ``tensor<1xi32>``) joined into a ``tensor<Nxi32>`` (one part: itself)."""
    if len(parts) == 1:
        return parts[0]
    t = tensor_type(i32, (len(parts),))
    return _shape_op("stablehlo.concatenate", parts, t, {"dimension": _i64(0)})


def index_array(value: Any, like: Attribute, op_name: str, name: str) -> SSAValue:
    """Indices written as a (nested) list of ints (``gather(x, [[1], [3]], ...)``): a constant of
    ``like``'s element type and the list's shape, each entry by the number rule."""
    elem = element_type(like)
    arr = np.asarray(value, dtype=object)
    out = np.empty(arr.shape, storage_dtype(elem))
    for k, v in np.ndenumerate(arr):
        if isinstance(v, list | tuple) or not is_number(v):
            raise BuildError(
                f"{op_name}: operand '{name}' must be a (nested) list of integers; got {value!r}"
            )
        try:
            out[k] = to_element(v, elem)
        except NumberError as e:
            raise BuildError(
                f"{op_name}: operand '{name}{''.join(f'[{j}]' for j in k)}' is {describe(v)}, "
                f"{e.reason}",
                note="indices are integers",
            ) from None
    return _constant_op(tensor_type(elem, out.shape), out)


def _shape_op(
    name: str, operands: Sequence[SSAValue], t: Attribute, properties: dict[str, Attribute]
) -> SSAValue:
    """One op of the shape helpers below (``get_dimension_size``, ``reshape``, ``convert``,
    ``concatenate``, ``dynamic_broadcast_in_dim``), made from its class with the result type the
    helper computed: core sits below the generated op functions (``builder.opgen`` imports it), so
    it builds these few ops itself; ``Module.verify`` checks them as every other op."""
    from stablehlo_py.ir.dialects import default_registry

    op = new_op(default_registry().ops[name], operands, [t], properties)
    insert(op)
    return op.results[0]


def _i64(value: int) -> IntegerAttr:
    return IntegerAttr(value, IntegerType(64))


def shape_tensor(value: Any, op_name: str, what: str, made: list[SSAValue]) -> SSAValue:
    """A shape operand written as a sequence of sizes (ints, and 0-d integer values built by the
    builder), as JAX's ``mlir.shape_tensor`` makes it: all ints -> one ``tensor<Rxi32>`` constant;
    else each size a ``tensor<1xi32>`` (a value converted to i32 if needed, then reshaped) joined
    by ``concatenate``.  The ops made before the last one are appended to ``made``."""
    if (
        isinstance(value, np.ndarray | str | bytes | bytearray)
        or not isinstance(value, Sequence)
    ):
        return operand_constant(value, None, False, op_name, what)
    i32 = element_type_of("i32")
    for k, v in enumerate(value):
        if isinstance(v, SSAValue):
            st = v.type
            et = element_type(st) if isinstance(st, TensorType) else None
            if (
                not isinstance(et, IntegerType)
                or et.width.data == 1
                or (shape_of(st) or ()) not in ((), (1,))
            ):
                from stablehlo_py.ir.verify.constraints import t2s

                raise BuildError(
                    f"{op_name}: {what}[{k}] is {t2s(st)}; a size is an integer of shape () or (1,)"
                )
        elif isinstance(v, bool) or not is_number(v):
            raise BuildError(f"{op_name}: {what}[{k}] is {v!r}; sizes are integers")
        else:
            try:
                to_element(v, i32)
            except NumberError as e:
                raise BuildError(
                    f"{op_name}: {what}[{k}] is {describe(v)}, {e.reason}",
                    note="sizes are integers (i32, as JAX's shape tensors)",
                ) from None
    if all(not isinstance(v, SSAValue) for v in value):
        return _constant_op(tensor_type(i32, (len(value),)), np.asarray(value, np.int32))
    one = tensor_type(i32, (1,))
    parts = []
    for v in value:
        if isinstance(v, SSAValue):
            if element_type(v.type) != i32:
                v = _shape_op("stablehlo.convert", [v], tensor_type(i32, shape_of(v.type) or ()), {})
                made.append(v)
            if shape_of(v.type) != (1,):
                v = _shape_op("stablehlo.reshape", [v], one, {})
                made.append(v)
        else:
            v = _constant_op(one, np.asarray([v], np.int32))
            made.append(v)
        parts.append(v)
    return _concatenate(parts, i32)


def discard(values: Sequence[SSAValue]) -> None:
    """Erase the ops that made ``values`` (the constants a failed call made for Python numbers),
    last first, when nothing uses them: the failed call leaves nothing in the block."""
    for v in reversed(values):
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent is not None and not v.uses:
            owner.detach()
            owner.erase()


def _is_type_sequence(spec: Any) -> bool:
    if isinstance(spec, list):
        return True
    if isinstance(spec, tuple) and spec:
        first = spec[0]
        is_shape = isinstance(first, Sequence | np.ndarray) and not isinstance(first, str)
        return not is_shape
    return False


def result_types_of(spec: Any, n: int | None, op_name: str) -> list[Attribute]:
    """``result_type=``: one type specification, or a list (or tuple) of them for several results
    (a tuple whose first item is a shape is one ``(shape, dtype)`` type)."""
    try:
        types = [to_type(s) for s in spec] if _is_type_sequence(spec) else [to_type(spec)]
    except BuildError as e:
        raise BuildError(f"{op_name}: result_type: {e.message}", note=e.note) from None
    if n is not None and len(types) != n:
        raise BuildError(
            f"{op_name}: result_type gives {len(types)} type(s); the op has {n} result(s)"
        )
    return types
