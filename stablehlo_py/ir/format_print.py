"""The print half of the declarative assembly format, compiled once per op class.

`format.py` describes an op's `assemblyFormat` as a list of elements (the single source of truth) and
can interpret it element by element (`format.print_format`).  This module turns the same element list
into one specialized Python function per op class, generated as source and compiled with `compile()`:

- MLIR's OpFormatGen spacing state (`shouldEmitSpaceBefore`, `lastWasPunctuation`) is followed at
  compile time; it only becomes a run-time variable after an optional group whose two branches leave
  different states, so adjacent literals and spaces become one constant string;
- operands, results and regions are read through the op's xDSL accessors resolved once (a fixed
  position indexes the operand tuple, read once through xdsl_compat's `operands_of`) instead of the
  property descriptors on every print;
- per-class facts (declared property defaults, the names the format prints itself, the parent's
  default dialect, the custom directives' print functions) are bound as constants.

The generated function writes exactly what `format.print_format` writes (tests compare the two on
every op of the conformance suites).  Elements the compiler does not know make `compiled_printer`
return None and the op keeps the interpreted path.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import FunctionType, UnitAttr
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import VariadicDef
from xdsl.irdl.operations import BeforeVariadicSingleAccessor

from stablehlo_py.ir import format as fmt
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.fields import operands_of

if TYPE_CHECKING:
    from stablehlo_py.ir.text.printer import Printer

PrintFn = Callable[[Operation, "Printer"], None]

_COMPILED = CONTEXT.table("format.compiled_printers", 4096)  # (op class, with_name) -> fn or None
# `get` bound once (the table is emptied in place, so it stays the context's): looking a method up
# on a dict subclass at each call costs about as much as the lookup itself.
_compiled_get = _COMPILED.get


def compiled_printer(cls: type, with_name: bool = False) -> PrintFn | None:
    """The compiled print function of `cls`'s format (built on first use), or None when the format
    uses an element the compiler does not handle.  `with_name`: it writes the op name first
    (`Printer.op_name`), as the pretty form does before the format."""
    key = (cls, with_name)
    fn: PrintFn | None = _compiled_get(key)
    if fn is not None or key in _COMPILED:  # None: not compiled yet, or the format is not supported
        return fn
    elems = cls.compiled_format()  # type: ignore[attr-defined]
    try:
        fn = _Compiler(cls).build(elems, with_name)
    except _Unsupported:
        fn = None
    _COMPILED.put(key, fn)
    return fn


def generated_source(cls: type, with_name: bool = False) -> str:
    """The Python source `compiled_printer` compiles for `cls` (for reading and debugging)."""
    c = _Compiler(cls)
    c.build(cls.compiled_format(), with_name)  # type: ignore[attr-defined]
    return c.source


class _Unsupported(Exception):
    pass


# ------------------------------------------------------------------------------ run-time helpers
def _names_text(names: dict[int, str], values: Any) -> str:
    unknown = "%<<UNKNOWN SSA VALUE>>"
    return ", ".join([names.get(id(v), unknown) for v in values])


def _types_text(values: Any) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return ", ".join([type_to_str(v.type) for v in values])


def _region_present(v: Any) -> bool:
    return bool(v.blocks) if isinstance(v, Region) else bool(v)


def _single_result_text(type_to_str: Callable[[Attribute], str]) -> Callable[[Attribute], str]:
    """printer.result_types_to_str of one type: bare unless it is a function type."""

    def text(t: Attribute) -> str:
        return type_to_str(t) if not isinstance(t, FunctionType) else "(" + type_to_str(t) + ")"

    return text


def _seq_present(v: Any) -> bool:
    return len(v) > 0 if isinstance(v, (list, tuple)) else v is not None


def _attr_dict_text(
    op: Operation, used: frozenset[str], defaults: dict[str, Any], keyword: bool
) -> str:
    """format.py's attr-dict: the properties the format does not print (and that differ from their
    declared default) plus the discardable attributes, as MLIR's printOptionalAttrDict."""
    from stablehlo_py.ir.text.printer import dict_to_str

    attrs = op.attributes
    merged = {k: v for k, v in op.properties.items() if k not in used and defaults.get(k) != v}
    if attrs:
        merged.update(attrs)
        items = [(k, v) for k, v in merged.items() if k not in used]
    else:
        items = list(merged.items())
    if not items:
        return ""
    return (" attributes " if keyword else " ") + dict_to_str(items)


# ------------------------------------------------------------------------------------- compiler
class _Text(str):
    """Pending literal output (as opposed to a pending expression's source)."""


class _State:
    """The spacing state: each field is a known bool, or None when it lives in a run-time variable."""

    __slots__ = ("punct", "space")

    def __init__(self, space: bool | None, punct: bool | None):
        self.space = space
        self.punct = punct

    def copy(self) -> _State:
        return _State(self.space, self.punct)


class _Compiler:
    def __init__(self, cls: type):
        self.cls = cls
        self.consts: dict[str, Any] = {}
        self.lines: list[str] = []
        self.pending: list[str] = []
        self.depth = 1
        self.counter = 0
        self.memo: dict[str, str] = {}  # field name -> the temporary holding its value here
        self.defaults = fmt.prop_defaults(cls)
        self.source = ""

    # -- emission
    def const(self, value: Any, stem: str = "K") -> str:
        for k, v in self.consts.items():
            if v is value:
                return k
        name = f"{stem}{len(self.consts)}"
        self.consts[name] = value
        return name

    def tmp(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def text(self, s: str) -> None:
        """Literal output text."""
        if s:
            if self.pending and isinstance(self.pending[-1], _Text):
                self.pending[-1] = _Text(self.pending[-1] + s)
            else:
                self.pending.append(_Text(s))

    def expr(self, e: str) -> None:
        """Output text computed by a pure expression (it writes nothing itself, so it may be
        evaluated together with the text around it)."""
        self.pending.append(e)

    def flush(self) -> None:
        if self.pending:
            merged = [repr(str(p)) if isinstance(p, _Text) else p for p in self.pending]
            self.pending = []
            self.lines.append("    " * self.depth + f"w({' + '.join(merged)})")

    def stmt(self, line: str) -> None:
        """A statement that writes nothing (pending output may stay pending across it)."""
        self.lines.append("    " * self.depth + line)

    def code(self, line: str) -> None:
        """A statement that may write output: pending output goes first."""
        self.flush()
        self.lines.append("    " * self.depth + line)

    def build(self, elems: list[Any], with_name: bool = False) -> PrintFn:
        if with_name:
            self.expr(f"pr.op_name({self.const(self.cls.name, 'NAME')})")  # type: ignore[attr-defined]
        st = _State(True, False)
        self.elems(elems, st)
        self.flush()
        body = self.lines or ["    pass"]
        # the locals the body reads (opnds/res are plain tuples: SSAValues' __getitem__ is Python)
        text = "\n".join(body)
        locals_ = [
            ("w", "pr.out.append"),
            ("names", "pr.namer.names"),
            ("props", "op.properties"),
            ("sp", "True"),
            ("pu", "False"),
            ("opnds", "tuple(OPERANDS(op))"),
            ("res", "tuple(op.results)"),
        ]
        head = ["def _print(op, pr):"]
        head += [f"    {n} = {e}" for n, e in locals_ if re.search(rf"\b{n}\b", text)]
        self.source = "\n".join(head + body) + "\n"
        from stablehlo_py.ir.text.printer import function_type_to_str, type_to_str

        ns: dict[str, Any] = {
            "T2S": type_to_str,
            "RESULT1": _single_result_text(type_to_str),
            "FT2S": function_type_to_str,
            "AIF": fmt.attr_in_format,
            "NAMES": _names_text,
            "OPERANDS": operands_of,
            "TYPES": _types_text,
            "REGION_PRESENT": _region_present,
            "SEQ_PRESENT": _seq_present,
            "ATTR_DICT": _attr_dict_text,
            "UnitAttr": UnitAttr,
            "UNKNOWN": "%<<UNKNOWN SSA VALUE>>",
            **self.consts,
        }
        code = compile(self.source, f"<format printer {self.cls.__name__}>", "exec")
        exec(code, ns)  # noqa: S102 -- source generated above from the op's format elements
        return ns["_print"]

    # -- value access
    def fixed(self, v: fmt.Var) -> str | None:
        """An expression for a single operand/result/region at a fixed position, else None."""
        acc = inspect.getattr_static(self.cls, v.name, None)
        if type(acc) is not BeforeVariadicSingleAccessor or v.variadic or v.optional:
            return None
        if v.kind == "operand":
            return f"opnds[{acc.idx}]"
        if v.kind == "result":
            return f"res[{acc.idx}]"
        if v.kind == "region":
            return f"op.regions[{acc.idx}]"
        return None

    def get(self, v: fmt.Var) -> str:
        """A temporary holding format.py's `_get(op, v)`."""
        known = self.memo.get(v.name)
        if known is not None:
            return known
        t = self.tmp()
        self.memo[v.name] = t
        if v.kind == "attr":
            n = repr(v.name)
            self.stmt(f"{t} = props.get({n})")
            self.stmt(f"if {t} is None: {t} = op.attributes.get({n})")
            return t
        fixed = self.fixed(v)
        if fixed is not None:
            self.stmt(f"{t} = {fixed}")
        else:
            self.stmt(f"{t} = op.{v.name}")
            if v.kind in ("operand", "result") and v.variadic:
                self.stmt(f"{t} = list({t})")
        return t

    def types_expr(self, target: fmt.Var | str) -> str:
        """An expression for `_types_of(op, target)` as a list."""
        if target == "operands":
            return "[x.type for x in opnds]"
        if target == "results":
            return "[x.type for x in op.results]"
        if not isinstance(target, fmt.Var):
            raise _Unsupported(target)
        v = self.get(target)
        t = self.tmp()
        self.stmt(f"if {v} is None: {t} = []")
        self.stmt(f"elif isinstance({v}, (list, tuple)): {t} = [x.type for x in {v}]")
        self.stmt(f"else: {t} = [{v}.type]")
        return t

    def present(self, e: Any) -> str:
        """An expression for format.py's `_present(e, op)`."""
        if isinstance(e, fmt.Var):
            v = self.get(e)
            if e.kind == "attr":
                if e.name in self.defaults:
                    d = self.const(self.defaults[e.name], "D")
                    return f"({v} is not None and not ({d} == {v}))"
                return f"({v} is not None)"
            if e.kind == "region":
                return f"REGION_PRESENT({v})"
            return f"SEQ_PRESENT({v})"
        if isinstance(e, fmt.TypeOf):
            return self.present(e.target) if isinstance(e.target, fmt.Var) else "True"
        if isinstance(e, fmt.Custom):
            parts = [
                self.present(a.inner if isinstance(a, fmt.Ref) else a)
                for a in e.args
                if not isinstance(a, str)
            ]
            return "(" + " or ".join(parts) + ")" if parts else "False"
        return "True"

    # -- elements
    def elems(self, elems: list[Any], st: _State) -> None:
        for e in elems:
            self.elem(e, st)

    def elem(self, e: Any, st: _State) -> None:
        if isinstance(e, fmt.Lit):
            v = e.value
            if st.space is not False:
                if st.punct is None:
                    with_p = fmt._should_space_before(v, True)
                    without = fmt._should_space_before(v, False)
                    cond = {(True, True): "True", (True, False): "pu", (False, True): "not pu"}.get(
                        (with_p, without)
                    )
                else:
                    cond = "True" if fmt._should_space_before(v, st.punct) else None
                if cond is not None:
                    if st.space is True and cond == "True":
                        self.text(" ")
                    else:
                        full = (
                            cond
                            if st.space is True
                            else ("sp" if cond == "True" else f"sp and {cond}")
                        )
                        self.code(f"if {full}: w(' ')")
            self.text(v)
            st.space = len(v) != 1 or v[0] not in "<({["
            st.punct = v[0] != "_" and not v[0].isalpha()
            return
        if isinstance(e, fmt.Space):
            if e.value == "\\n":
                self.code("pr.newline()")
            elif e.value:
                self.text(" ")
                st.punct = False
            else:
                st.punct = True
            st.space = False
            return
        if isinstance(e, fmt.Optional_):
            cond = self.present(e.anchor)
            anchor = e.anchor

            def then(s: _State) -> None:
                for x in e.then:
                    if x is anchor and isinstance(x, fmt.Var) and x.kind == "attr":
                        # A unit attribute anchor prints nothing (its presence is the group).
                        g = self.get(x)
                        self.branch(
                            f"not isinstance({g}, UnitAttr)",
                            lambda s2, x=x: self.elem(x, s2),
                            None,
                            s,
                        )
                    else:
                        self.elem(x, s)

            else_ = e.else_
            self.branch(
                cond, then, (lambda s: self.elems(else_, s)) if else_ is not None else None, st
            )
            return
        if isinstance(e, fmt.AttrDict):
            used = self.const(frozenset(getattr(self.cls, "_FORMAT_ATTRS", ())), "USED")
            defaults = self.const(self.defaults, "DEFAULTS")
            self.expr(
                f"(ATTR_DICT(op, {used}, {defaults}, {e.keyword})"
                f" if op.attributes or not {used}.issuperset(props) else '')"
            )
            st.punct = False
            return
        # a value element: MLIR's space before it unless right after an opening punctuation
        if st.space is True or st.punct is False:
            self.text(" ")
        elif st.space is False and st.punct is True:
            pass
        else:
            sp = "sp" if st.space is None else repr(st.space)
            pu = "pu" if st.punct is None else repr(st.punct)
            self.code(f"if {sp} or not {pu}: w(' ')")
        st.punct = False
        st.space = True
        self.value(e)

    def branch(
        self,
        cond: str,
        then: Callable[[_State], None],
        else_: Callable[[_State], None] | None,
        st: _State,
    ) -> None:
        """`if cond: then else: else_`, merging the spacing state the two branches leave."""
        self.code(f"if {cond}:")
        outer_memo = self.memo
        self.memo = dict(outer_memo)
        self.depth += 1
        s_then = st.copy()
        mark_then = len(self.lines)
        then(s_then)
        self.flush()
        then_end = len(self.lines)
        self.depth -= 1
        s_else = st.copy()
        else_lines: list[str] = []
        if else_ is not None:
            saved = self.lines
            self.lines = []
            self.memo = dict(outer_memo)
            self.depth += 1
            else_(s_else)
            self.flush()
            self.depth -= 1
            else_lines = self.lines
            self.lines = saved
        self.memo = outer_memo
        indent = "    " * (self.depth + 1)
        then_assign: list[str] = []
        else_assign: list[str] = []
        for field, var in (("space", "sp"), ("punct", "pu")):
            a, b = getattr(s_then, field), getattr(s_else, field)
            if a == b:
                setattr(st, field, a)
                continue
            if a is not None:
                then_assign.append(f"{indent}{var} = {a}")
            if b is not None:
                else_assign.append(f"{indent}{var} = {b}")
            setattr(st, field, None)
        self.lines[then_end:then_end] = then_assign
        if len(self.lines) == mark_then:
            self.lines.append(indent + "pass")
        if else_lines or else_assign:
            self.lines.append("    " * self.depth + "else:")
            self.lines.extend(else_lines + else_assign)

    def value(self, e: Any) -> None:
        if isinstance(e, fmt.Var):
            if e.kind in ("operand", "result"):
                fixed = self.fixed(e)
                if fixed is not None:
                    self.expr(f"names.get(id({fixed}), UNKNOWN)")
                    return
                v = self.get(e)
                if e.variadic:
                    self.expr(f"NAMES(names, {v})")
                else:
                    self.code(f"if isinstance({v}, (list, tuple)): w(NAMES(names, {v}))")
                    self.code(f"elif {v} is not None: w(names.get(id({v}), UNKNOWN))")
            elif e.kind == "attr":
                v = self.get(e)
                self.expr(f"AIF({v})")
            elif e.kind == "region":
                v = self.get(e)
                dd = repr(getattr(self.cls, "DEFAULT_DIALECT", None) or "")
                self.code(f"if isinstance({v}, (list, tuple)):")
                self.code(f"    for i, r in enumerate({v}):")
                self.code("        if i: w(', ')")
                self.code(f"        pr.region(r, default_dialect={dd})")
                self.code(f"else: pr.region({v}, default_dialect={dd})")
            else:
                raise _Unsupported(e)
            return
        if isinstance(e, fmt.TypeOf):
            tgt = e.target
            fixed = self.fixed(tgt) if isinstance(tgt, fmt.Var) else None
            if fixed is not None:
                self.expr(f"T2S({fixed}.type)")
                return
            ts = self.types_expr(tgt)
            self.expr(f"', '.join([T2S(t) for t in {ts}])")
            return
        if isinstance(e, fmt.FuncType):
            if e.inputs == "operands" and e.outputs == "results":
                fast = self.fixed_functional_type()
                if fast is not None:
                    self.expr(fast)
                    return
            ins = self.types_expr(e.inputs)
            outs = self.types_expr(e.outputs)
            self.expr(f"FT2S({ins}, {outs})")
            return
        if isinstance(e, fmt.Custom):
            d = fmt.CUSTOM_DIRECTIVES.get(e.name)
            if d is None:
                raise _Unsupported(e.name)
            fn = self.const(d.print, "CUSTOM")
            args = [self.custom_arg(a) for a in e.args]
            self.code(f"{fn}(pr, op{''.join(', ' + a for a in args)})")
            return
        if isinstance(e, fmt.Regions):
            dd = repr(getattr(self.cls, "DEFAULT_DIALECT", None) or "")
            self.code("for i, r in enumerate(op.regions):")
            self.code("    if i: w(', ')")
            self.code(f"    pr.region(r, default_dialect={dd})")
            return
        if isinstance(e, fmt.Operands):
            self.expr("NAMES(names, opnds)")
            return
        raise _Unsupported(e)

    def fixed_functional_type(self) -> str | None:
        """`functional-type(operands, results)` of an op whose operands and results are all single
        (no variadic or optional definition): function_type_to_str's text spelled out per position,
        used when the op has exactly the declared counts (else the general function)."""
        d = self.cls.get_irdl_definition()  # type: ignore[attr-defined]
        if any(isinstance(x, VariadicDef) for _, x in (*d.operands, *d.results)):
            return None
        n, m = len(d.operands), len(d.results)
        if n > 8 or m > 8:
            return None
        ins = " + ', ' + ".join(f"T2S(opnds[{i}].type)" for i in range(n)) or "''"
        if m == 1:
            outs = "RESULT1(res[0].type)"
        else:
            outs = (
                "'(' + "
                + (" + ', ' + ".join(f"T2S(res[{i}].type)" for i in range(m)) or "''")
                + " + ')'"
            )
        general = "FT2S([x.type for x in opnds], [x.type for x in res])"
        return (
            f"(('(' + {ins} + ') -> ' + {outs}) if len(opnds) == {n} and len(res) == {m}"
            f" else {general})"
        )

    def custom_arg(self, a: Any) -> str:
        """An expression for format.py's `_custom_arg_value(op, a)`."""
        if isinstance(a, fmt.Ref):
            a = a.inner
        if isinstance(a, fmt.TypeOf):
            tgt = a.target
            if isinstance(tgt, fmt.Var) and not tgt.variadic and tgt.kind in ("operand", "result"):
                fixed = self.fixed(tgt)
                if fixed is not None:
                    return f"{fixed}.type"
                ts = self.types_expr(tgt)
                return f"({ts}[0] if {ts} else None)"
            return self.types_expr(tgt)
        if isinstance(a, fmt.Var):
            return self.get(a)
        if a == "operands":
            return "list(opnds)"
        if a == "results":
            return "list(op.results)"
        return self.const(a, "ARG")
