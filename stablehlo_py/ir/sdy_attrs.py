"""Shardy's (`sdy`) attributes read from their text (shardy/dialect/sdy/ir/attrs.td), for the verifier
and the interpreter.  The IR keeps every sdy attribute as its exact text (`OpaqueAttr`, so it prints
back as jaxlib printed it); this module gives it structure on demand:

    #sdy.mesh<["x"=2, "y"=2]>                     MeshAttr (axes, optional device_ids=[...])
    #sdy.sharding<@mesh, [{"x"}, {"y", ?}p1, {}], replicated={"z"}, unreduced={"w"}>
                                                  TensorShardingAttr (a mesh name or an inline mesh)
    [<@mesh, [...]>, <@mesh, [...]>]              TensorShardingPerValueAttr (`#sdy.sharding_per_value<[...]>`)
    {"x", "y"}                                    ManualAxesAttr (`#sdy<manual_axes{...}>`)
    #sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=8} reduction={j}, custom>
                                                  OpShardingRuleAttr (factors i..z, then z_1, z_2 ...)

An axis reference is `"x"` or a sub-axis `"x":(pre)size` (the `size` devices of axis `x` that are
`pre` apart)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.context import CONTEXT


_T = TypeVar("_T")


class SdyAttrError(StableHLOError, ValueError):
    """An sdy attribute whose text does not follow Shardy's syntax."""


@dataclass(frozen=True)
class AxisRef:
    name: str
    pre_size: int = 1  # sub-axis `"x":(pre)size`: the axis' devices `pre` apart
    size: int | None = None  # None: the whole axis

    def text(self) -> str:
        sub = f":({self.pre_size}){self.size}" if self.size is not None else ""
        return f'"{self.name}"{sub}'


@dataclass(frozen=True)
class Mesh:
    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None = None

    @property
    def sizes(self) -> dict[str, int]:
        return dict(self.axes)

    @property
    def num_devices(self) -> int:
        n = 1
        for _, s in self.axes:
            n *= s
        return n

    def devices(self) -> tuple[int, ...]:
        """The device at each position of the mesh (row-major over the axes)."""
        return self.device_ids if self.device_ids is not None else tuple(range(self.num_devices))


@dataclass(frozen=True)
class DimSharding:
    axes: tuple[AxisRef, ...]
    closed: bool = True
    priority: int | None = None


@dataclass(frozen=True)
class Sharding:
    mesh: str | Mesh  # a mesh symbol's name, or an inline mesh
    dims: tuple[DimSharding, ...]
    replicated: tuple[AxisRef, ...] = ()
    unreduced: tuple[AxisRef, ...] = ()


@dataclass(frozen=True)
class OpShardingRule:
    """Shardy's `OpShardingRuleAttr`: each operand's and result's dimensions as the factor
    indices they map to, the factor sizes, the factor lists by kind, and whether it is custom."""

    factor_sizes: tuple[int, ...]
    operands: tuple[tuple[tuple[int, ...], ...], ...]
    results: tuple[tuple[tuple[int, ...], ...], ...]
    reduction: tuple[int, ...] = ()
    need_replication: tuple[int, ...] = ()
    permutation: tuple[int, ...] = ()
    blocked_propagation: tuple[int, ...] = ()
    custom: bool = False


RULE_LISTS = ("reduction", "need_replication", "permutation", "blocked_propagation")
"""The factor lists of an op sharding rule, in the order Shardy prints and encodes them."""

_LAST_LETTER = ord("z") - ord("i")  # factor 17 is `z`, then `z_1`, `z_2`, ...


def factor_name(i: int) -> str:
    """Shardy's factorSymbolString: `i`, `j`, ... `z`, then `z_1`, `z_2`, ..."""
    return chr(ord("i") + i) if i <= _LAST_LETTER else f"z_{i - _LAST_LETTER}"


_FACTOR = re.compile(r"z_([1-9]\d*)|([i-z])")


def _factors(text: str, lx: _Lexer) -> tuple[int, ...]:
    """`ijz_1` -> (0, 1, 18)."""
    out: list[int] = []
    pos = 0
    while pos < len(text):
        m = _FACTOR.match(text, pos)
        if m is None:
            raise lx.fail(f"invalid factor name in '{text}'")
        out.append(_LAST_LETTER + int(m[1]) if m[1] else ord(m[2]) - ord("i"))
        pos = m.end()
    return tuple(out)


_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|(@[A-Za-z_][\w$.\-]*|@"(?:[^"\\]|\\.)*")|(-?\d+)|([A-Za-z_]\w*)|(.))'
)


class _Lexer:
    def __init__(self, text: str, what: str):
        self.text, self.what, self.pos = text, what, 0

    def fail(self, msg: str) -> SdyAttrError:
        return SdyAttrError(f"{self.what} '{self.text}': {msg} at character {self.pos}")

    def peek(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        return m.group(0).strip() if m else ""

    def next(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            raise self.fail("unexpected end")
        self.pos = m.end()
        return m.group(0).strip()

    def expect(self, tok: str) -> None:
        got = self.next()
        if got != tok:
            raise self.fail(f"expected '{tok}', found '{got}'")

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.next()
            return True
        return False

    def string(self) -> str:
        tok = self.next()
        if not (tok.startswith('"') and tok.endswith('"') and len(tok) >= 2):
            raise self.fail(f"expected an axis name string, found '{tok}'")
        return tok[1:-1]

    def integer(self) -> int:
        tok = self.next()
        try:
            return int(tok)
        except ValueError:
            raise self.fail(f"expected an integer, found '{tok}'") from None

    def end(self) -> None:
        if self.text[self.pos :].strip():
            raise self.fail("unexpected trailing text")

    def items(self, open_: str, one: Callable[[], _T], close: str) -> list[_T]:
        """`open_ one, one, ... close` (possibly empty): the items `one` reads."""
        self.expect(open_)
        out: list[_T] = []
        if not self.accept(close):
            while True:
                out.append(one())
                if self.accept(close):
                    break
                self.expect(",")
        return out


def _strip(text: str, mnemonic: str) -> str:
    """`#sdy.<mnemonic><...>` -> `<...>` (the stripped form an op's syntax prints)."""
    prefix = f"#sdy.{mnemonic}"
    return text.removeprefix(prefix)


def _mesh_body(lx: _Lexer) -> Mesh:
    lx.expect("<")
    axes = lx.items("[", lambda: _mesh_axis(lx), "]")
    device_ids = None
    if lx.accept(","):
        if lx.next() != "device_ids":
            raise lx.fail("expected 'device_ids'")
        lx.expect("=")
        device_ids = tuple(lx.items("[", lx.integer, "]"))
    lx.expect(">")
    return Mesh(tuple(axes), device_ids)


def _mesh_axis(lx: _Lexer) -> tuple[str, int]:
    """`"x"=4`."""
    name = lx.string()
    lx.expect("=")
    return name, lx.integer()


def _axis_ref(lx: _Lexer) -> AxisRef:
    name = lx.string()
    if lx.accept(":"):
        lx.expect("(")
        pre = lx.integer()
        lx.expect(")")
        return AxisRef(name, pre, lx.integer())
    return AxisRef(name)


def _axis_set(lx: _Lexer) -> tuple[AxisRef, ...]:
    return tuple(lx.items("{", lambda: _axis_ref(lx), "}"))


def _dim(lx: _Lexer) -> DimSharding:
    lx.expect("{")
    axes: list[AxisRef] = []
    closed = True
    while not lx.accept("}"):
        if lx.accept("?"):
            closed = False
            lx.expect("}")
            break
        axes.append(_axis_ref(lx))
        if not lx.accept(","):
            lx.expect("}")
            break
    priority = None
    tok = lx.peek()
    if re.fullmatch(r"p\d+", tok):
        lx.next()
        priority = int(tok[1:])
    return DimSharding(tuple(axes), closed, priority)


def _sharding_body(lx: _Lexer) -> Sharding:
    lx.expect("<")
    tok = lx.peek()
    if tok.startswith("@"):
        lx.next()
        mesh: str | Mesh = tok[1:].strip('"')
    elif tok == "mesh":
        lx.next()
        mesh = _mesh_body(lx)
    else:
        raise lx.fail(f"expected a mesh name (@mesh) or an inline mesh, found '{tok}'")
    lx.expect(",")
    dims = lx.items("[", lambda: _dim(lx), "]")
    replicated: tuple[AxisRef, ...] = ()
    unreduced: tuple[AxisRef, ...] = ()
    while lx.accept(","):
        key = lx.next()
        lx.expect("=")
        if key not in ("replicated", "unreduced"):
            raise lx.fail(f"unknown sharding field '{key}'")
        axes = _axis_set(lx)
        if not axes:
            raise lx.fail(f"'{key}' needs at least one axis (Shardy omits an empty list)")
        if key == "replicated":
            replicated = axes
        else:
            unreduced = axes
    lx.expect(">")
    return Sharding(mesh, tuple(dims), replicated, unreduced)


def _whole(text: str, what: str, body: Callable[[_Lexer], _T]) -> _T:
    """What `body` reads from `text`, which must hold nothing more."""
    lx = _Lexer(text, what)
    value = body(lx)
    lx.end()
    return value


@CONTEXT.memo("sdy.parse_mesh", maxsize=1024)
def parse_mesh(text: str) -> Mesh:
    """`#sdy.mesh<[...]>` or its stripped form `<[...]>`."""
    return _whole(_strip(text, "mesh"), "sdy mesh", _mesh_body)


@CONTEXT.memo("sdy.parse_sharding", maxsize=4096)
def parse_sharding(text: str) -> Sharding:
    """`#sdy.sharding<@mesh, [...]>` or its stripped form `<@mesh, [...]>`."""
    return _whole(_strip(text, "sharding"), "sdy sharding", _sharding_body)


@CONTEXT.memo("sdy.parse_sharding_per_value", maxsize=1024)
def parse_sharding_per_value(text: str) -> tuple[Sharding, ...]:
    """`#sdy.sharding_per_value<[<...>, ...]>` or the stripped list `[<...>, ...]`."""
    return _whole(_strip(text, "sharding_per_value"), "sdy sharding list", _sharding_list)


def _sharding_list(lx: _Lexer) -> tuple[Sharding, ...]:
    wrapped = lx.text.startswith("<")
    if wrapped:
        lx.expect("<")
    out = lx.items("[", lambda: _sharding_body(lx), "]")
    if wrapped:
        lx.expect(">")
    return tuple(out)


@CONTEXT.memo("sdy.parse_manual_axes", maxsize=1024)
def parse_manual_axes(text: str) -> tuple[str, ...]:
    """`{"x", "y"}` (or `#sdy<manual_axes{...}>`)."""
    body = text
    if body.startswith("#sdy<manual_axes"):
        body = body[len("#sdy<manual_axes") : -1]
    lx = _Lexer(body, "sdy manual axes")
    axes = _axis_set(lx)
    lx.end()
    for a in axes:
        if a.size is not None:
            raise lx.fail(f"manual axis {a.text()} must be a whole axis")
    return tuple(a.name for a in axes)


def _tensor_mappings(lx: _Lexer) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """`([i, j], [])` -> ((0, 1), ()): one tuple of dimensions (factor index tuples) per tensor."""
    return tuple(lx.items("(", lambda: tuple(lx.items("[", lambda: _dim_factors(lx), "]")), ")"))


def _dim_factors(lx: _Lexer) -> tuple[int, ...]:
    """One dimension of a tensor mapping: `ij` -> (0, 1)."""
    word = lx.next()
    if not re.fullmatch(r"\w+", word):
        raise lx.fail(f"expected factor names, found '{word}'")
    return _factors(word, lx)


def _factor_set(lx: _Lexer) -> tuple[int, ...]:
    return tuple(f for fs in lx.items("{", lambda: _factors(lx.next(), lx), "}") for f in fs)


@CONTEXT.memo("sdy.parse_op_sharding_rule", maxsize=1024)
def parse_op_sharding_rule(text: str) -> OpShardingRule:
    """`#sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=8} reduction={j}, custom>` (or the stripped
    `<...>`)."""
    lx = _Lexer(_strip(text, "op_sharding_rule"), "sdy op sharding rule")
    lx.expect("<")
    operands = _tensor_mappings(lx)
    lx.expect("-")
    lx.expect(">")
    results = _tensor_mappings(lx)
    sizes: list[int] = []
    if lx.accept("{"):
        while True:
            name = lx.next()
            got = _factors(name, lx)
            if got != (len(sizes),):
                raise lx.fail(f"factor sizes must name {factor_name(len(sizes))} next, found '{name}'")
            lx.expect("=")
            sizes.append(lx.integer())
            if lx.accept("}"):
                break
            lx.expect(",")
    lists: dict[str, tuple[int, ...]] = {}
    while lx.peek() in RULE_LISTS:
        key = lx.next()
        if key in lists:
            raise lx.fail(f"'{key}' is given twice")
        lx.expect("=")
        lists[key] = _factor_set(lx)
    custom = False
    if lx.accept(","):
        if lx.next() != "custom":
            raise lx.fail("expected 'custom'")
        custom = True
    lx.expect(">")
    lx.end()
    n = len(sizes)
    used = [f for t in (*operands, *results) for d in t for f in d]
    used += [f for v in lists.values() for f in v]
    if any(f >= n for f in used):
        raise lx.fail(f"a factor is used without a size (there are {n} factors)")
    return OpShardingRule(tuple(sizes), operands, results, custom=custom, **lists)


# ------------------------------------------------------------------------------------- text
def _axes_text(refs: tuple[AxisRef, ...]) -> str:
    return ", ".join(r.text() for r in refs)


def mesh_body_text(mesh: Mesh) -> str:
    """`<["x"=2, "y"=2]>` (`, device_ids=[...]` when given), as Shardy prints a mesh."""
    axes = ", ".join(f'"{n}"={s}' for n, s in mesh.axes)
    ids = (
        "" if mesh.device_ids is None else f", device_ids=[{', '.join(map(str, mesh.device_ids))}]"
    )
    return f"<[{axes}]{ids}>"


def dim_text(dim: DimSharding) -> str:
    axes = _axes_text(dim.axes)
    if not dim.closed:
        axes = f"{axes}, ?" if axes else "?"
    return "{" + axes + "}" + (f"p{dim.priority}" if dim.priority is not None else "")


def sharding_body_text(s: Sharding) -> str:
    """`<@mesh, [{"x"}, {}]>` (`, replicated={...}`, `, unreduced={...}` when not empty)."""
    mesh = f"mesh{mesh_body_text(s.mesh)}" if isinstance(s.mesh, Mesh) else f"@{s.mesh}"
    out = f"<{mesh}, [{', '.join(dim_text(d) for d in s.dims)}]"
    if s.replicated:
        out += ", replicated={" + _axes_text(s.replicated) + "}"
    if s.unreduced:
        out += ", unreduced={" + _axes_text(s.unreduced) + "}"
    return out + ">"


def mesh_text(mesh: Mesh) -> str:
    return "#sdy.mesh" + mesh_body_text(mesh)


def sharding_text(s: Sharding) -> str:
    return "#sdy.sharding" + sharding_body_text(s)


def sharding_per_value_text(shardings: tuple[Sharding, ...]) -> str:
    return "#sdy.sharding_per_value<[" + ", ".join(sharding_body_text(s) for s in shardings) + "]>"


def manual_axes_text(axes: tuple[str, ...]) -> str:
    return "#sdy<manual_axes{" + ", ".join(f'"{a}"' for a in axes) + "}>"


def op_sharding_rule_text(rule: OpShardingRule) -> str:
    """`#sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=8} reduction={j}, custom>`, as Shardy prints
    it (factor sizes and each factor list only when not empty)."""

    def tensors(mappings: tuple[tuple[tuple[int, ...], ...], ...]) -> str:
        return ", ".join(
            "[" + ", ".join("".join(factor_name(f) for f in dim) for dim in m) + "]"
            for m in mappings
        )

    out = f"#sdy.op_sharding_rule<({tensors(rule.operands)})->({tensors(rule.results)})"
    if rule.factor_sizes:
        out += " {" + ", ".join(f"{factor_name(i)}={n}" for i, n in enumerate(rule.factor_sizes)) + "}"
    for name in RULE_LISTS:
        factors = getattr(rule, name)
        if factors:
            out += f" {name}={{" + ", ".join(factor_name(f) for f in factors) + "}"
    return out + (", custom>" if rule.custom else ">")


__all__ = [
    "AxisRef",
    "RULE_LISTS",
    "DimSharding",
    "Mesh",
    "OpShardingRule",
    "SdyAttrError",
    "Sharding",
    "dim_text",
    "factor_name",
    "manual_axes_text",
    "mesh_body_text",
    "mesh_text",
    "parse_manual_axes",
    "op_sharding_rule_text",
    "parse_mesh",
    "parse_op_sharding_rule",
    "parse_sharding",
    "parse_sharding_per_value",
    "sharding_body_text",
    "sharding_per_value_text",
    "sharding_text",
]
