"""A fast path for parsing an op's declarative assembly format, compiled once per op class.

`stablehlo_py.ir.format` interprets an op's format element by element.  For the common shape of an
op's text -- operands by name, punctuation and keywords, no attribute dictionary, types written as
plain ranked tensors (`tensor<4x?xf32>`), `[1, 2]` integer arrays -- this module compiles the same
elements (the single source of truth: `compile_format`'s output) into

* one regular expression that matches the whole op text after its name, and
* a generated Python function (`compile()`d source) that reads the match's groups, looks the
  operands up, interns the types and arrays, checks the operand types against the values and
  builds the op through the class's `build_generic`.

The fast path only succeeds where the interpreted path would succeed with the same op: whenever
the regular expression does not match, a name is undefined, a type is not one the parser interns
here or an operand's type differs, the function returns None without moving the parser, and the
op is parsed again by `format.parse_format`, which reports exactly what it reports today.  A
format with an element the compiler does not handle (optional groups, regions, variadic operands,
property variables, other custom directives, attribute dictionaries given in the text) keeps the
interpreted path only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import DenseArrayBase, IntegerType
from xdsl.ir import Operation, SSAValue

from stablehlo_py.ir import format as fmt
from stablehlo_py.ir.text.parser import _SIMPLE_TENSOR, simple_tensor_type

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser

FastParse = Callable[["Parser"], "Operation | None"]

# What `Parser.ws` skips, without comments (a comment makes the fast path give up).
_W = r"[ \t\r\n]*"
# `Parser.parse_operand`'s `%name` / `%name#i`
_VALUE = r"%([0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)(?:#([0-9]+))?"
# a plain ranked tensor type, as `Parser._parse_type_impl` interns it
_TENSOR = "(" + _SIMPLE_TENSOR.pattern + ")"
# `[1, -2]` of `custom<DenseI64Array>` with decimal elements
_I64_LIST = r"\[" + _W + r"((?:-?[0-9]+(?:" + _W + "," + _W + r"-?[0-9]+)*)?)" + _W + r"\]"
_KEYWORD_END = r"(?![A-Za-z0-9_$.])"  # where `Parser.parse_keyword`'s bare identifier ends
_INT_SEP = re.compile(_W + "," + _W)

_I64 = IntegerType(64)
_I64_ARRAYS: dict[str, DenseArrayBase] = {}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def lookup(p: Parser, name: str, index: str | None) -> SSAValue | None:
    """`Parser.lookup_value` for a defined name and an index in range; None where it would fail."""
    for scope in reversed(p.scopes):
        v = scope.get(name)
        if v is not None:
            break
    else:
        return None
    if isinstance(v, tuple):
        if index is None:
            return v[0]
        i = int(index)
        return v[i] if i < len(v) else None
    if index is not None and int(index) != 0:
        return None
    return v


def i64_array(body: str) -> DenseArrayBase | None:
    """`custom<DenseI64Array>`'s attribute of the list body `1, -2` (None if a value is out of
    int64's range, which the interpreted path reports)."""
    a = _I64_ARRAYS.get(body)
    if a is None:
        values = [int(v) for v in _INT_SEP.split(body)] if body else []
        if any(not _INT64_MIN <= v <= _INT64_MAX for v in values):
            return None
        a = _I64_ARRAYS[body] = DenseArrayBase.from_list(_I64, values)
    return a


class _Unsupported(Exception):
    """The format has an element the fast path does not compile."""


class _Compiler:
    """Turns one op class's format elements into a regex and the source of its builder."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        d = cls.get_irdl_definition()  # type: ignore[attr-defined]
        self.operand_names = [n for n, _ in d.operands]
        self.result_names = [n for n, _ in d.results]
        if d.regions or d.successors:
            raise _Unsupported("regions")
        self.pattern: list[str] = []
        self.group = 0
        self.code: list[str] = []
        self.operand_group: dict[str, int] = {}  # operand -> group of its name
        self.operand_type: dict[str, str] = {}  # operand -> local holding its declared type
        self.result_type: dict[str, str] = {}  # result -> local holding its type
        self.props: dict[str, str] = {}  # property -> local holding it

    def _groups(self, n: int) -> int:
        first = self.group + 1
        self.group += n
        return first

    def _type(self, local: str) -> None:
        """Match one plain tensor type into `local`."""
        self.pattern.append(_W + _TENSOR)
        g = self._groups(3)
        self.code.append(
            f"    {local} = _tensor_type(m.group({g}), m.group({g + 1}), m.group({g + 2}))"
        )
        self.code.append(f"    if {local} is None: return None")

    def _operand_var(self, e: Any) -> Any:
        if not isinstance(e, fmt.Var) or e.kind not in ("operand", "result"):
            raise _Unsupported(repr(e))
        if e.variadic or e.optional:
            raise _Unsupported("variadic")
        return e

    def _assign_type(self, target: Any, local: str) -> None:
        v = self._operand_var(target)
        (self.operand_type if v.kind == "operand" else self.result_type)[v.name] = local

    def element(self, e: Any) -> None:
        if isinstance(e, fmt.Space):
            return
        if isinstance(e, fmt.Lit):
            v = e.value
            if v[0].isalpha() or v[0] == "_":
                self.pattern.append(_W + re.escape(v) + _KEYWORD_END)
            else:
                self.pattern.append(_W + re.escape(v))
            return
        if isinstance(e, fmt.Var):
            if e.kind != "operand" or e.variadic or e.optional:
                raise _Unsupported(repr(e))
            self.pattern.append(_W + _VALUE)
            self.operand_group[e.name] = self._groups(2)
            return
        if isinstance(e, fmt.AttrDict):
            if e.keyword:
                raise _Unsupported("attr-dict-with-keyword")
            check = getattr(self.cls, "attr_dict_error", None)
            if check is not None and check({}):
                raise _Unsupported("attr_dict_error")
            self.pattern.append(r"(?!" + _W + r"\{)")
            return
        if isinstance(e, fmt.TypeOf):
            local = f"t{len(self.code)}"
            self._type(local)
            self._assign_type(e.target, local)
            return
        if isinstance(e, fmt.FuncType):
            ins = self._targets(e.inputs, "operand")
            outs = self._targets(e.outputs, "result")
            if len(outs) != 1:
                raise _Unsupported("results")
            self.pattern.append(_W + r"\(")
            for i, v in enumerate(ins):
                if i:
                    self.pattern.append(_W + ",")
                local = f"t{len(self.code)}"
                self._type(local)
                self.operand_type[v] = local
            self.pattern.append(_W + r"\)" + _W + "->")
            local = f"t{len(self.code)}"
            self._type(local)
            self.result_type[outs[0]] = local
            return
        if isinstance(e, fmt.Custom):
            self.custom(e)
            return
        raise _Unsupported(repr(e))

    def _targets(self, target: Any, kind: str) -> list[str]:
        """The names a functional-type side covers (`operands`/`results` or one variable)."""
        if target in ("operands", "results"):
            names = self.operand_names if target == "operands" else self.result_names
            d = self.cls.get_irdl_definition()  # type: ignore[attr-defined]
            defs = dict(d.operands if target == "operands" else d.results)
            from xdsl.irdl import OptionalDef, VariadicDef

            if any(isinstance(defs[n], (VariadicDef, OptionalDef)) for n in names):
                raise _Unsupported("variadic")
            return list(names)
        v = self._operand_var(target)
        if v.kind != kind:
            raise _Unsupported(repr(target))
        return [v.name]

    def custom(self, e: Any) -> None:
        if e.name == "SameOperandsAndResultType":
            local = f"t{len(self.code)}"
            self._type(local)
            for a in e.args:
                if not isinstance(a, fmt.TypeOf):
                    raise _Unsupported(repr(a))
                self._assign_type(a.target, local)
            return
        if e.name == "DenseI64Array":
            (a,) = e.args
            if not isinstance(a, fmt.Var) or a.kind != "attr":
                raise _Unsupported(repr(a))
            self.pattern.append(_W + _I64_LIST)
            g = self._groups(1)
            local = f"a{len(self.code)}"
            self.code.append(f"    {local} = _i64_array(m.group({g}))")
            self.code.append(f"    if {local} is None: return None")
            self.props[a.name] = local
            return
        raise _Unsupported(f"custom<{e.name}>")

    def finish(self) -> FastParse:
        for n in self.operand_names:
            if n not in self.operand_group or n not in self.operand_type:
                raise _Unsupported(f"operand {n}")
        for n in self.result_names:
            if n not in self.result_type:
                raise _Unsupported(f"result {n}")
        body = ["def fast_parse(p):", "    m = _RX.match(p.text, p.pos)"]
        body.append("    if m is None: return None")
        body.extend(self.code)
        operands = []
        for i, n in enumerate(self.operand_names):
            g = self.operand_group[n]
            body.append(f"    v{i} = _lookup(p, m.group({g}), m.group({g + 1}))")
            body.append(f"    if v{i} is None or v{i}.type != {self.operand_type[n]}: return None")
            operands.append(f"v{i}")
        results = [self.result_type[n] for n in self.result_names]
        props = ", ".join(f"{n!r}: {local}" for n, local in self.props.items())
        body.append("    p.pos = m.end()")
        body.append(
            f"    return _build([{', '.join(operands)}], [{', '.join(results)}], {{{props}}}, {{}}, [])"
        )
        namespace: dict[str, Any] = {
            "_RX": re.compile("".join(self.pattern)),
            "_tensor_type": simple_tensor_type,
            "_i64_array": i64_array,
            "_lookup": lookup,
            "_build": self.cls.build_generic,
        }
        source = "\n".join(body) + "\n"
        name = f"<fast parse of {self.cls.name}>"  # type: ignore[attr-defined]
        exec(compile(source, name, "exec"), namespace)  # noqa: S102 -- generated from the format
        fn = namespace["fast_parse"]
        fn.source = source  # for debugging: the generated code
        return fn


def compile_fast_parse(elems: list[Any], cls: type) -> FastParse | None:
    """The fast parse function of an op class's compiled format, or None when the format has an
    element the fast path does not handle (the interpreted path is then the only one)."""
    try:
        c = _Compiler(cls)
        for e in elems:
            c.element(e)
        return c.finish()
    except _Unsupported:
        return None
