"""Modules and functions: ``Module``, ``Module.func`` (a decorator that builds a ``func.func`` by
calling the Python function on its arguments), ``Function`` (callable: it emits ``func.call``)
and ``call``.

    m = Module("jit_f", attributes={"mhlo.num_partitions": np.int32(1)})

    @m.func(tensor((2, 3)), "tensor<2x3xf32>", visibility="public",
            res_attrs=[{"jax.result_info": "result"}])
    def main(x, y):
        return stablehlo.add(x, y)

    print(m)                     # upstream's text
    m.run(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region, SSAValue

from stablehlo_py.builder.attrs import to_attribute
from stablehlo_py.builder.core import discard, insert, inserting, operand_constant
from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.sites import arity_problem, defined_at, site
from stablehlo_py.builder.types import to_type
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.types import tensor_type

_VISIBILITIES = (None, "public", "private", "nested")


def _attr_dicts(
    spec: Sequence[Mapping[str, Any] | None] | None, n: int, what: str, fn: str
) -> ArrayAttr | None:
    if spec is None:
        return None
    items = list(spec)
    if len(items) != n:
        raise BuildError(f"function @{fn}: {what} has {len(items)} entries; the function has {n}")
    dicts = [DictionaryAttr({k: to_attribute(v) for k, v in (d or {}).items()}) for d in items]
    if not any(d.data for d in dicts):
        return None
    return ArrayAttr(dicts)


class Function:
    """A built ``func.func``; calling it inside another function emits ``func.call``."""

    def __init__(self, op: FuncOp):
        self.op = op

    @property
    def sym_name(self) -> str:
        return self.op.sym_name.data

    @property
    def arg_types(self) -> list[Attribute]:
        return list(self.op.function_type.inputs.data)

    @property
    def result_types(self) -> list[Attribute]:
        return list(self.op.function_type.outputs.data)

    def __repr__(self) -> str:
        return f"<builder Function @{self.sym_name}>"

    def __call__(self, *args: Any) -> Any:
        return call(self, *args)


def call(fn: Function | Callable[..., Any], *args: Any) -> Any:
    """``func.call @fn(args)``; returns the single result, a tuple of several, or the op.  ``fn``
    may be a Python callable: it is built as a private function ``@<its name>`` of the module being
    built, once per (callable, argument types) -- a later call with the same types reuses it."""
    made: list[SSAValue] = []
    try:
        return _call(fn, args, made)
    except BuildError as e:
        discard(made)
        if e.location is None:
            e.at(site())
        raise


def _call(fn: Any, args: tuple[Any, ...], made: list[SSAValue]) -> Any:
    if not isinstance(fn, Function) and callable(fn):
        fn, args = _function_of(fn, args, made)
    if not isinstance(fn, Function):
        raise BuildError(
            f"call: expected a builder Function (from Module.func) or a Python callable; got {fn!r}"
        )
    types = fn.arg_types
    if len(args) != len(types):
        raise BuildError(f"call @{fn.sym_name}: takes {len(types)} argument(s); got {len(args)}")
    operands = []
    for i, (a, t) in enumerate(zip(args, types)):
        if not isinstance(a, SSAValue):
            a = operand_constant(
                a, t, False, f"call @{fn.sym_name}", f"argument #{i}", "the function takes {type}"
            )
            made.append(a)
        if a.type != t:
            from stablehlo_py.ir.text.printer import type_to_str

            raise BuildError(
                f"call @{fn.sym_name}: argument #{i} has type {type_to_str(a.type)}; "
                f"the function takes {type_to_str(t)}"
            )
        operands.append(a)
    op = CallOp.create(
        operands=operands,
        result_types=fn.result_types,
        properties={"callee": SymbolRefAttr(fn.sym_name)},
    )
    insert(op)
    res = op.results
    return res[0] if len(res) == 1 else (tuple(res) if res else op)


def _function_of(
    py_fn: Callable[..., Any], args: tuple[Any, ...], made: list[SSAValue]
) -> tuple[Function, tuple[Any, ...]]:
    """The private Function ``call(py_fn, *args)`` calls (``forms.function_for``), and the
    arguments as values: argument types from the values, Python numbers with JAX's default types."""
    from stablehlo_py.builder import forms
    from stablehlo_py.builder.core import current_module

    module = current_module()
    if module is None:
        raise BuildError("call: a Python callable needs a Module being built (call it inside one)")
    values = []
    for i, a in enumerate(args):
        if not isinstance(a, SSAValue):
            a = operand_constant(a, None, False, "call", f"argument #{i}")
            made.append(a)
        values.append(a)
    base = getattr(py_fn, "__name__", "callee")
    base = base if base.isidentifier() else "callee"
    fn = forms.function_for(module, py_fn, [v.type for v in values], base)[0]
    return fn, tuple(values)


class Module:
    """A ``builtin.module`` being built (``name`` gives ``module @name``; ``attributes`` its
    attribute dictionary, plain values converted by ``to_attribute``; ``locations`` attaches each
    op's Python call site as its location, printed with ``print(debuginfo=True)``)."""

    def __init__(
        self,
        name: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        *,
        locations: bool = False,
    ):
        props = {"sym_name": StringAttr(name)} if name else {}
        attrs = {k: to_attribute(v) for k, v in (attributes or {}).items()}
        self.op = ModuleOp.create(properties=props, attributes=attrs, regions=[Region(Block())])
        self.locations = locations
        self.functions: dict[str, Function] = {}

    # ------------------------------------------------------------------------- building
    def func(
        self,
        *arg_types: Any,
        name: str | None = None,
        visibility: str | None = None,
        arg_attrs: Sequence[Mapping[str, Any] | None] | None = None,
        res_attrs: Sequence[Mapping[str, Any] | None] | None = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> Callable[[Callable[..., Any]], Function]:
        """Decorator: build ``func.func @name`` (default: the Python function's name) taking
        ``arg_types`` (type specifications, see ``stablehlo_py.builder.types``), by calling the
        decorated function with the arguments as values; what it returns (a value, a tuple of values,
        or None) is returned by ``func.return`` and sets the result types.  ``visibility`` is
        "public" (printed, as JAX does), "private", or None (MLIR's default: public, not printed);
        ``arg_attrs``/``res_attrs`` are one dict (or None) per argument/result."""
        if visibility not in _VISIBILITIES:
            raise BuildError(
                f"function visibility must be one of public, private, nested; got {visibility!r}"
            )
        types = [to_type(t) for t in arg_types]

        def build(py_fn: Callable[..., Any]) -> Function:
            return self.add_function(
                py_fn, types, name or py_fn.__name__, visibility, arg_attrs, res_attrs, attributes
            )

        return build

    def add_function(
        self,
        py_fn: Callable[..., Any],
        arg_types: Sequence[Any],
        name: str,
        visibility: str | None = None,
        arg_attrs: Sequence[Mapping[str, Any] | None] | None = None,
        res_attrs: Sequence[Mapping[str, Any] | None] | None = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> Function:
        """``Module.func`` without the decorator syntax."""
        try:
            return self._add_function(
                py_fn, arg_types, name, visibility, arg_attrs, res_attrs, attributes
            )
        except BuildError as e:
            if e.location is None:
                e.at(site())
            raise

    def _add_function(
        self,
        py_fn: Callable[..., Any],
        arg_types: Sequence[Any],
        name: str,
        visibility: str | None,
        arg_attrs: Sequence[Mapping[str, Any] | None] | None,
        res_attrs: Sequence[Mapping[str, Any] | None] | None,
        attributes: Mapping[str, Any] | None,
    ) -> Function:
        if not callable(py_fn):
            raise BuildError(f"function @{name}: expected a Python callable; got {py_fn!r}")
        if name in self.functions:
            raise BuildError(f"the module already has a function @{name}")
        types = [to_type(t) for t in arg_types]
        problem = arity_problem(py_fn, len(types))
        if problem is not None:
            where = defined_at(py_fn)
            n = len(types)
            raise BuildError(
                f"function @{name}: {n} argument type{' is' if n == 1 else 's are'} given; "
                f"{getattr(py_fn, '__name__', 'the callable')} {problem}",
                note=None if where is None else f"the Python function is defined at {where}",
            )
        block = Block(arg_types=types)
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(types, []),
        }
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        a = _attr_dicts(arg_attrs, len(types), "arg_attrs", name)
        if a is not None:
            props["arg_attrs"] = a
        extra = {k: to_attribute(v) for k, v in (attributes or {}).items()}
        # The function takes its place in the module before its body is built, so a function
        # defined while building another's body follows it (as JAX orders @main and its callees).
        op = FuncOp.create(properties=props, attributes=extra, regions=[Region(block)])
        code = getattr(py_fn, "__code__", None)
        if self.locations and code is not None:  # the function's `def` line
            file = code.co_filename.replace("\\", "\\\\").replace('"', '\\"')
            op.location = TextLoc(f'"{file}":{code.co_firstlineno}:1')  # type: ignore[assignment]
        self.op.body.block.add_op(op)
        self.functions[name] = Function(op)
        try:
            with inserting(block, self.locations, module=self):
                out = py_fn(*block.args)
                items = [] if out is None else list(out) if isinstance(out, tuple | list) else [out]
                values = [
                    v
                    if isinstance(v, SSAValue)
                    else operand_constant(v, None, False, f"@{name}", f"result #{i}")
                    for i, v in enumerate(items)
                ]
                insert(ReturnOp.create(operands=values))
            r = _attr_dicts(res_attrs, len(values), "res_attrs", name)
        except BaseException:
            op.detach()
            del self.functions[name]
            raise
        op.properties["function_type"] = FunctionType.from_lists(types, [v.type for v in values])
        if r is not None:
            op.properties["res_attrs"] = r
        return self.functions[name]

    # -------------------------------------------------------------------------- using
    def text(self, debuginfo: bool = False, generic: bool = False) -> str:
        """The module as upstream's stablehlo-opt prints it."""
        from stablehlo_py.ir import print_ir

        return print_ir(self.op, generic=generic, debuginfo=debuginfo)

    def __str__(self) -> str:
        return self.text()

    def verify(self) -> Module:
        """Verify every op (raises VerifyError with upstream's message); returns the module."""
        from stablehlo_py.ir.verify import verify

        verify(self.op)
        return self

    def run(self, *args: Any, entry: str = "main") -> list[Any]:
        """Run ``entry`` in the reference interpreter on numpy arguments, each of its parameter's
        dtype exactly (a float64 array for a ``tensor<2xf32>`` parameter is refused, not cast;
        ``stablehlo_py.interpreter.run`` casts, as upstream's interpreter) and shape."""
        from stablehlo_py.builder.numbers import check_arguments
        from stablehlo_py.interpreter import run

        fn = self.functions.get(entry)
        if fn is not None:
            check_arguments(entry, fn.arg_types, args)
        return run(self.op, *args, entry=entry)

    def lower(self, *steps: str) -> Module:
        """A new Module: this one's copy with ``steps`` applied, by name (``forms.LOWERINGS``):
        ``"chlo"`` (the default: CHLO ops rewritten as StableHLO, which every serialization format
        needs), ``"composites"`` (composites become calls of their decompositions), ``"inline"``
        (calls inlined).  This module is unchanged."""
        from stablehlo_py.builder import forms

        try:
            op = forms.lowered(self.op, steps or forms.DEFAULT_LOWERING)
        except BuildError as e:
            raise e.at(site()) from None
        new = Module.__new__(Module)
        new.__dict__.update(self.__dict__)
        new.op = op
        new.__dict__.pop("_made_functions", None)  # its Functions are the built module's
        new.functions = {
            f.sym_name.data: Function(f) for f in op.body.block.ops if isinstance(f, FuncOp)
        }
        return new

    def serialize(
        self, target: Any = "current", *, format: str | None = None, **kwargs: Any
    ) -> bytes:
        """A portable artifact for ``target`` (``stablehlo_py.serialize_portable_artifact``) in
        ``format``, which must be given: ``"mlir"`` (upstream's MLIR bytecode: what XLA, IREE and
        upstream's tools read) or ``"msgpack"`` (this toolkit's archive format).  A module that
        still holds CHLO ops is refused (VHLO has no CHLO): ``Module.lower()`` first, or
        ``allow_other_dialects=True`` to keep them as they are (as upstream's flag does)."""
        from stablehlo_py.api import serialize_portable_artifact
        from stablehlo_py.builder import forms

        if format is None:
            raise forms.format_error().at(site())
        chlo = None if kwargs.get("allow_other_dialects") else forms.first_chlo(self.op.walk())
        if chlo is not None:
            raise forms.chlo_error(chlo, format).at(site())
        return serialize_portable_artifact(self.op, target, format=format, **kwargs)


def scalar_type(dtype: Any) -> Attribute:
    """``tensor<dtype>`` (0-d)."""
    from stablehlo_py.builder.types import element_type_of

    return tensor_type(element_type_of(dtype), ())
