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
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text.parse_types import _TYPE_CACHE
from stablehlo_py.ir.text.parser import _SIMPLE_TENSOR, simple_tensor_type
from stablehlo_py.ir.xdsl_compat.construct import TYPE_FIELD

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
_I64_ARRAYS = CONTEXT.table("format.i64_arrays", 1 << 14)  # list body `1, -2` -> the attribute
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
        a = _I64_ARRAYS.put(body, DenseArrayBase.from_list(_I64, values))
    return a


class _Unsupported(Exception):
    """An element the regular expressions do not cover (it is interpreted instead)."""


class _Segment:
    """A run of format elements matched by one regular expression: its pattern, the code that
    reads the groups into locals (each guarded: a failure hands over to the interpreted path),
    and what the elements store, in element order: (slot, name, local or locals)."""

    def __init__(self, first: int) -> None:
        self.first = first  # index of its first element in the format
        self.pattern: list[str] = []
        self.groups = 0
        self.reads: list[str] = []
        self.stores: list[tuple[str, str, Any]] = []


class _Compiler:
    """Turns one op class's format elements into regular expressions and the source of one
    function that uses them."""

    def __init__(self, cls: type, elems: list[Any]) -> None:
        self.cls = cls
        self.elems = elems
        d = cls.get_irdl_definition()  # type: ignore[attr-defined]
        self.d = d
        self.operand_names = [n for n, _ in d.operands]
        self.result_names = [n for n, _ in d.results]
        self.n_locals = 0
        self.namespace: dict[str, Any] = {}  # what generated code calls besides the fixed names
        # the format as segments (regex runs) and delegated element indices, in order
        self.parts: list[_Segment | int] = []

    # ------------------------------------------------------------------ elements
    def _local(self, prefix: str) -> str:
        self.n_locals += 1
        return f"{prefix}{self.n_locals}"

    def _group(self, seg: _Segment, n: int) -> int:
        first = seg.groups + 1
        seg.groups += n
        return first

    def _type(self, seg: _Segment) -> str:
        """Match one plain tensor type; returns the local holding it."""
        local = self._local("t")
        seg.pattern.append(_W + _TENSOR)
        g = self._group(seg, 3)
        # `simple_tensor_type`, with its table read inline
        seg.reads.append(f"{local} = _tget(m.group({g}))")
        seg.reads.append(
            f"if {local} is None: "
            f"{local} = _tensor_type(m.group({g}), m.group({g + 1}), m.group({g + 2}))"
        )
        seg.reads.append(f"if {local} is None: FAIL")
        return local

    @staticmethod
    def _single(e: Any) -> Any:
        """A non-variadic, non-optional operand or result variable."""
        if not isinstance(e, fmt.Var) or e.kind not in ("operand", "result"):
            raise _Unsupported(repr(e))
        if e.variadic or e.optional:
            raise _Unsupported("variadic")
        return e

    def _type_slot(self, target: Any) -> tuple[str, str]:
        v = self._single(target)
        return ("operand_type" if v.kind == "operand" else "result_type", v.name)

    def _fixed(self, target: str) -> list[str]:
        """The names `operands`/`results` cover, when none is variadic or optional."""
        from xdsl.irdl import OptionalDef, VariadicDef

        defs = self.d.operands if target == "operands" else self.d.results
        if any(isinstance(x, (VariadicDef, OptionalDef)) for _, x in defs):
            raise _Unsupported("variadic")
        return [n for n, _ in defs]

    def element(self, e: Any, seg: _Segment) -> None:
        """Add `e` to `seg` (raises _Unsupported when it has to be interpreted)."""
        if isinstance(e, fmt.Space):
            return
        if isinstance(e, fmt.Lit):
            v = e.value
            if v[0].isalpha() or v[0] == "_":
                seg.pattern.append(_W + re.escape(v) + _KEYWORD_END)
            else:
                seg.pattern.append(_W + re.escape(v))
            return
        if isinstance(e, fmt.Var):
            if e.kind != "operand" or e.variadic or e.optional:
                raise _Unsupported(repr(e))
            local = self._local("v")
            seg.pattern.append(_W + _VALUE)
            g = self._group(seg, 2)
            # `lookup`, with the common case inline: a result of the innermost scope, no `#i`
            name, index = f"m.group({g})", f"m.group({g + 1})"
            seg.reads.append(f"{local} = p.scopes[-1].get({name})")
            seg.reads.append(
                f"{local} = {local}[0] if {local}.__class__ is tuple and {index} is None "
                f"else _lookup(p, {name}, {index})"
            )
            seg.reads.append(f"if {local} is None: FAIL")
            seg.stores.append(("operand", e.name, local))
            return
        if isinstance(e, fmt.AttrDict):
            check = getattr(self.cls, "attr_dict_error", None)
            if e.keyword or (check is not None and check({})):
                raise _Unsupported("attr-dict")
            seg.pattern.append(r"(?!" + _W + r"\{)")
            return
        if isinstance(e, fmt.TypeOf):
            slot = self._type_slot(e.target)
            seg.stores.append((*slot, self._type(seg)))
            return
        if isinstance(e, fmt.FuncType):
            ins = self._side(e.inputs, "operand")
            outs = self._side(e.outputs, "result")
            if outs[1] != 1:
                raise _Unsupported("results")
            seg.pattern.append(_W + r"\(")
            types = []
            for i in range(ins[1]):
                if i:
                    seg.pattern.append(_W + ",")
                types.append(self._type(seg))
            seg.pattern.append(_W + r"\)" + _W + "->")
            out = self._type(seg)
            seg.stores.append((ins[0], ins[2], types if ins[0].endswith("_all") else types[0]))
            seg.stores.append((outs[0], outs[2], [out] if outs[0].endswith("_all") else out))
            return
        if isinstance(e, fmt.Custom):
            self.custom(e, seg)
            return
        raise _Unsupported(repr(e))

    def _side(self, target: Any, kind: str) -> tuple[str, int, str]:
        """One side of a functional-type: (slot, number of types, name)."""
        if target in ("operands", "results"):
            n = len(self._fixed(target))
            return ("operand_types_all" if target == "operands" else "result_types_all", n, "")
        v = self._single(target)
        if v.kind != kind:
            raise _Unsupported(repr(target))
        return (f"{kind}_type", 1, v.name)

    def custom(self, e: Any, seg: _Segment) -> None:
        if e.name == "SameOperandsAndResultType":
            slots = [
                self._type_slot(a.target if isinstance(a, fmt.TypeOf) else None) for a in e.args
            ]
            if not all(isinstance(a, fmt.TypeOf) for a in e.args):
                raise _Unsupported("SameOperandsAndResultType")
            local = self._type(seg)
            seg.stores.extend((*slot, local) for slot in slots)
            return
        if e.name == "DenseI64Array":
            (a,) = e.args
            if not isinstance(a, fmt.Var) or a.kind != "attr":
                raise _Unsupported(repr(a))
            seg.pattern.append(_W + _I64_LIST)
            g = self._group(seg, 1)
            local = self._local("a")
            seg.reads.append(f"{local} = _aget(m.group({g}))")  # `i64_array`'s table, inline
            seg.reads.append(f"if {local} is None: {local} = _i64_array(m.group({g}))")
            seg.reads.append(f"if {local} is None: FAIL")
            seg.stores.append(("prop", a.name, local))
            return
        directive = fmt.CUSTOM_DIRECTIVES.get(e.name)
        fast = directive.fast if directive is not None else None
        if fast is None:
            raise _Unsupported(f"custom<{e.name}>")
        # a directive's own regex: FAST = (pattern, groups, build); build(*groups) gives one value
        # per argument (None: absent) or None when the match is not one it can build
        pattern, n, build = fast
        if any(
            not isinstance(a, fmt.Var) or a.kind != "attr" or a.name not in self.d.properties
            for a in e.args
        ):
            raise _Unsupported(repr(e.args))
        g = self._group(seg, n)
        seg.pattern.append(pattern)
        fn = self._local("_fast")
        self.namespace[fn] = build
        local = self._local("r")
        groups = ", ".join(f"m.group({g + i})" for i in range(n))
        seg.reads.append(f"{local} = {fn}({groups})")
        seg.reads.append(f"if {local} is None: FAIL")
        for i, a in enumerate(e.args):
            seg.stores.append(("prop_opt", a.name, f"{local}[{i}]"))

    # ------------------------------------------------------------------ assembly
    def split(self) -> None:
        """The format as segments and delegated elements."""
        seg: _Segment | None = None
        for i, e in enumerate(self.elems):
            trial = _Segment(i) if seg is None else seg
            saved = (list(trial.pattern), trial.groups, list(trial.reads), list(trial.stores))
            try:
                self.element(e, trial)
            except _Unsupported:
                trial.pattern, trial.groups, trial.reads, trial.stores = saved
                if seg is not None:
                    self.parts.append(seg)
                    seg = None
                self.parts.append(i)
                continue
            seg = trial
        if seg is not None:
            self.parts.append(seg)
        # a run of `` / ` ` spacing only matches nothing: drop it
        self.parts = [x for x in self.parts if not isinstance(x, _Segment) or x.pattern]

    def direct(self) -> FastParse | None:
        """One regex for the whole format, the op built from locals (None when the format is not
        one segment covering every operand and result, or the op has regions)."""
        if len(self.parts) != 1 or not isinstance(self.parts[0], _Segment):
            return None
        if self.d.regions or self.d.successors:
            return None
        seg = self.parts[0]
        operands: dict[str, str] = {}
        operand_types: dict[str, str] = {}
        result_types: dict[str, str] = {}
        props: dict[str, str] = {}
        optional_props: dict[str, str] = {}
        for slot, name, local in seg.stores:
            if slot == "operand":
                operands[name] = local
            elif slot == "operand_type":
                operand_types[name] = local
            elif slot == "operand_types_all":
                operand_types.update(zip(self.operand_names, local))
            elif slot == "result_type":
                result_types[name] = local
            elif slot == "result_types_all":
                result_types.update(zip(self.result_names, local))
            elif slot == "prop_opt":
                optional_props[name] = local
            else:
                props[name] = local
        if set(operands) != set(self.operand_names) or set(operand_types) != set(operands):
            return None
        if set(result_types) != set(self.result_names):
            return None
        body = [
            "def fast_parse(p):",
            "    m = _RX0.match(p.text, p.pos)",
            "    if m is None: return None",
            "    g = m.groups()",  # one call for all groups: `m.group(k)` reads `g[k - 1]`
        ]
        body += [
            "    " + _GROUP.sub(_group_item, r).replace("FAIL", "return None") for r in seg.reads
        ]
        for n in self.operand_names:
            v, t = operands[n], operand_types[n]  # types are interned: `is` first
            body.append(f"    if {v}.{TYPE_FIELD} is not {t} and {v}.type != {t}: return None")
        body.append("    p.pos = m.end()")
        ops = ", ".join(operands[n] for n in self.operand_names)
        results = ", ".join(result_types[n] for n in self.result_names)
        prop_text = ", ".join(f"{n!r}: {v}" for n, v in props.items())
        body.append(f"    props = {{{prop_text}}}")
        for n, v in optional_props.items():
            body.append(f"    if {v} is not None: props[{n!r}] = {v}")
        body.append(f"    return _make([{ops}], [{results}], props)")
        fn = self._make(body, [seg])
        fn.direct = True  # type: ignore[attr-defined]  # see StableHLOOp.direct_parse
        return fn

    def with_state(self) -> FastParse | None:
        """Segments matched by regexes, the other elements interpreted (`format._parse_one`),
        all into the interpreted path's ParseState, the op built by `format.build_from_state`:
        when a segment does not match, the rest of the format is interpreted from its first
        element on, so the state, the op and any diagnostic are the interpreted path's."""
        segments = [x for x in self.parts if isinstance(x, _Segment)]
        if not segments:
            return None
        body = [
            "def fast_parse(p):",
            "    saved = getattr(p, '_current_op_cls', None)",
            "    p._current_op_cls = _cls",
            "    try:",
            "        p.ws()",
            "        st = _ParseState(_cls)",
            "        st.start_pos = p.pos",
        ]
        for part in self.parts:
            if isinstance(part, int):
                e = self.elems[part]
                if isinstance(e, fmt.Custom) and e.name in fmt.CUSTOM_DIRECTIVES:
                    # what _parse_one does for it, without the dispatch
                    body.append(f"        _CUSTOM[{e.name!r}].parse(p, st, *_E[{part}].args)")
                else:
                    body.append(f"        _parse_one(_E[{part}], p, st)")
                continue
            k = segments.index(part)
            fail = f"return _finish(p, st, {part.first})"
            body.append(f"        m = _RX{k}.match(p.text, p.pos)")
            body.append(f"        if m is None: {fail}")
            body += ["        " + r.replace("FAIL", fail) for r in part.reads]
            for slot, name, local in part.stores:
                body.append("        " + _STORE[slot].format(name=name, v=_list(local)))
            body.append("        p.pos = m.end()")
        body += [
            "        return _build_from_state(st, p)",
            "    finally:",
            "        p._current_op_cls = saved",
        ]
        return self._make(body, segments)

    def _make(self, body: list[str], segments: list[_Segment]) -> FastParse:
        elems = self.elems

        def finish(p: Parser, st: Any, first: int) -> Operation:
            fmt._parse_elems_run(elems[first:], p, st)
            return fmt.build_from_state(st, p)

        namespace: dict[str, Any] = {
            "_tensor_type": simple_tensor_type,
            "_i64_array": i64_array,
            "_lookup": lookup,
            "_build": self.cls.build_generic,  # type: ignore[attr-defined]
            "_make": _plain_builder(self.cls),
            "_tget": _TYPE_CACHE.get,
            "_aget": _I64_ARRAYS.get,
            "_cls": self.cls,
            "_E": elems,
            "_ParseState": fmt.ParseState,
            "_parse_one": fmt._parse_one,
            "_CUSTOM": fmt.CUSTOM_DIRECTIVES,
            "_build_from_state": fmt.build_from_state,
            "_finish": finish,
            **self.namespace,
        }
        for k, seg in enumerate(segments):
            namespace[f"_RX{k}"] = re.compile("".join(seg.pattern))
        source = "\n".join(body) + "\n"
        name = f"<fast parse of {self.cls.name}>"  # type: ignore[attr-defined]
        exec(compile(source, name, "exec"), namespace)  # noqa: S102 -- generated from the format
        fn = namespace["fast_parse"]
        fn.source = source  # for debugging: the generated code
        return fn


# How a segment stores what it matched, as the interpreted elements do (`format._parse_one`,
# `_assign_types`, `set_slot`).
_STORE = {
    "operand": "st.operands[{name!r}] = {v}",
    "operand_type": "st.operand_types[{name!r}] = {v}",
    "operand_types_all": "st.operand_types['*'] = {v}",
    "result_type": "st.result_types[{name!r}] = {v}",
    "result_types_all": "st.all_result_types = {v}",
    "prop": "st.props[{name!r}] = {v}",
    "prop_opt": "if {v} is not None: st.props[{name!r}] = {v}",
}


def _plain_builder(cls: type) -> Callable[..., Operation]:
    """`cls.plain_builder()`, or `build_generic` without attributes and regions."""
    make = getattr(cls, "plain_builder", None)
    if make is not None:
        return make()  # type: ignore[no-any-return]
    build = cls.build_generic  # type: ignore[attr-defined]
    return lambda operands, results, props: build(operands, results, props, {}, [])


_GROUP = re.compile(r"m\.group\(([0-9]+)\)")


def _group_item(m: re.Match[str]) -> str:
    """`m.group(k)` in generated code -> `g[k - 1]` (`g = m.groups()`)."""
    return f"g[{int(m.group(1)) - 1}]"


def _list(local: Any) -> str:
    return f"[{', '.join(local)}]" if isinstance(local, list) else local


def compile_fast_parse(elems: list[Any], cls: type) -> FastParse | None:
    """The fast parse function of an op class's compiled format: one regex and a direct build
    when the whole format is simple (it returns None to hand over to the interpreted path), or
    regex segments between interpreted elements (it always finishes the parse).  None when no
    element of the format is simple."""
    c = _Compiler(cls, elems)
    c.split()
    return c.direct() or c.with_state()
