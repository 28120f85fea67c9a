"""Caches belong to the context (stablehlo_py/ir/context.py), not to modules, and are never keyed
by `id()` outside stablehlo_py/ir/xdsl_compat/identity.py (issue 24).

The scan reads every module of the package (pyproject's package-dir folders) and finds
- module-level mutable containers (dict, list, set literals or comprehensions, `dict()`,
  `defaultdict()`, ...) that a function writes (`X[k] = v`, `del X[k]`, `X.setdefault(...)`,
  `X.append(...)`, ...), and module globals a function rebinds (`global X`);
- functions under `@cache` / `@lru_cache` (the context's `@CONTEXT.memo(...)` is not one);
- files that call `id()` (outside the compat package).
A module's name bound to a context cache (`_T = CONTEXT.table(...)`) is none of these.

ALLOWED lists what may stay, with the reason: registries filled at import, pure lazy constants of
the static spec tables, and tables local to one call.  KNOWN lists the caches still to migrate:
it only shrinks (a new cache is a failure to fix, not a line to add; a migrated one must leave).
How to migrate one: stablehlo_py/ir/context.py's docstring.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from tests.unit.import_graph import PACKAGE_DIRS, REPO

COMPAT = REPO / "stablehlo_py" / "ir" / "xdsl_compat"

_CONTAINER_CALLS = re.compile(
    r"(^|\.)(dict|list|set|defaultdict|OrderedDict|Counter|deque|WeakKeyDictionary|"
    r"WeakValueDictionary|WeakSet)$"
)
_MUTATORS = frozenset({
    "setdefault", "update", "clear", "pop", "popitem", "append", "add", "extend", "discard",
    "remove", "insert", "appendleft", "__setitem__",
})
_CACHE_DECORATOR = re.compile(r"^(functools\.)?(cache|lru_cache)\b")

# --------------------------------------------------------------------------------- what may stay
ALLOWED: dict[str, str] = {
    # registries, filled at import (or by a user's registration call), never a cache
    "stablehlo_py/ir/format.py::CUSTOM_DIRECTIVES": "registry: custom<...> directives by name",
    "stablehlo_py/ir/infer/registry.py::_RULES": "registry: inference rules, filled at import",
    "stablehlo_py/ir/infer/reify.py::REIFY": "registry: shape reification rules, filled at import",
    "stablehlo_py/ir/xdsl_compat/class_attrs.py::ADDED": "record of the names added to xDSL classes",
    "stablehlo_py/ir/xdsl_compat/printing.py::_INSTALLED": "once-only guard of the patches",
    "interpreter/registry.py::IMPLS": "registry: op implementations, filled at import",
    "interpreter/registry.py::COMPILERS": "registry: op compilers, filled at import",
    "interpreter/registry.py::_LOADER": "registry: the loader of the implementation modules",
    "interpreter/registry.py::_LOADED": "once-only guard: the implementation modules imported",
    "stablehlo_py/ir/infer/__init__.py::_LOADED": "once-only guard: the rule modules imported",
    "stablehlo_py/registry_hook.py::_BUILDER": "registry: set by stablehlo_py/dialects.py at import",
    "stablehlo_py/ir/dialects.py::_DEFAULT": "lazy constant: the default registry, built once",
    "stablehlo_py/ir/format.py::_property_parser": "registry: the property-parser hook, set once",
    "passes/patterns/shape_folder.py::FOLDS": "registry: shape folds, filled at import",
    "serialization/entries.py::_CODECS": "registry: entry codecs, filled at import",
    # pure lazy constants of the static spec tables (and of the installed packages)
    "specs/__init__.py::_releases": "lazy constant: specs/releases.toml",
    "specs/__init__.py::_tables": "lazy constant: specs/*.toml",
    "serialization/codes.py::_op_index": "lazy constant of the spec tables",
    "serialization/codes.py::_type_codes": "lazy constant of the spec tables",
    "serialization/codes.py::_attr_codes": "lazy constant of the spec tables",
    "serialization/format.py::toolkit_string": "lazy constant: the installed version",
    "serialization/mlirbc/ops.py::_sorted_names": "pure function of the spec tables (op code)",
    "serialization/reader.py::_op_shape": "pure function of the spec tables (op code)",
    "serialization/reader.py::_legal_at": "pure function of the spec tables (kind, name, version)",
    "serialization/writer.py::_op_info": "pure function of the spec tables (op name, target)",
    "serialization/writer.py::_codec_legal": "pure function of the spec tables",
    "vhlo/structs.py::flattening": "pure function of the spec tables (op name)",
    "vhlo/structs.py::flattening_of_fork": "pure function of the spec tables (fork)",
    "vhlo/legality.py::_spec_min": "pure function of the spec tables (kind, name)",
    "passes/stablehlo_legalize_to_vhlo.py::_flattened": "pure function of the spec tables",
    "passes/stablehlo_legalize_to_vhlo.py::_fork_of": "pure function of the spec tables",
    "passes/stablehlo_legalize_to_vhlo.py::_stablehlo_names": "lazy constant of the spec tables",
    "stablehlo_py/semantics/folds.py::_has_own_loop": "pure function of (kind, dtype): a few dozen",
    "stablehlo_py/ir/verify/driver.py::xdsl_problem": "lazy constant: the installed xDSL",
    "vhlo/legalization.py::rules": "pure function of the spec tables and op classes (fork)",
    "vhlo/legalization.py::_stablehlo_classes": "lazy constant: the registry's StableHLO classes",
    "passes/patterns/simplify/dynamism.py::_SAME_SHAPE": "lazy constant: op names of a trait",
    # the compat package imports xDSL only: stablehlo_py/ir/context.py adopts its memos
    "stablehlo_py/ir/xdsl_compat/construct.py::CLASS_DEFAULTS": "class-keyed memo adopted by the context",
    "stablehlo_py/ir/xdsl_compat/swap.py::SWAPPABLE": "class-keyed memo adopted by the context",
}

ALLOWED_ID: dict[str, str] = {
    # id() keys of tables that live for one call (their objects outlive the table)
    "stablehlo_py/ir/text/printer.py": "the printer's value and block names, for one print",
    "stablehlo_py/ir/format_print.py": "the printer's value names, for one print",
    "stablehlo_py/ir/infer/reify.py": "values kept, for one rewrite",
    "serialization/mlirbc/uselists.py": "use-list orders, for one write",
    "serialization/mlirbc/reader.py": "value statistics and uses, for one read",
    "serialization/mlirbc/writer.py": "isolated ops, for one write",
    "vhlo/records.py": "values, for one materialization",
    "passes/stablehlo_legalize_to_vhlo.py": "op numbering for use orders, for one pass",
    "serialization/mlirbc/ops.py": "the encoder's type and attribute numbers, for one write",
    "serialization/reader.py": "the reader's element rows and checked codecs, for one read",
    "serialization/writer.py": "the writer's value positions and entry numbers, for one write",
    "stablehlo_py/ir/text/op_graph.py": "value nodes and ports, for one graph",
    "stablehlo_py/trace/compare.py": "the reference's entries matched, for one comparison",
    "interpreter/shared_steps.py": "the objects a step holds, looked through once",
    "interpreter/compiled_plan.py": "a block's value slots, for one plan",
    "serialization/direct_read.py": "VHLO types -> builtin types, for one read (the reader holds them)",
    "serialization/direct_write.py": "types, source buffers and values of the module, for one write",
    "serialization/mlirbc/direct.py": "types and source buffers of the module, for one write",
    "interpreter/fusion.py": "a block's chains told apart, for one fusion plan",
}

# ---------------------------------------------------------------------- what is still to migrate
# 2026-11-29 (WP10): the caches of files other helpers owned while the context landed; each
# migrates as stablehlo_py/ir/context.py says (a table, an identity map, CONTEXT.memo or adopt).
KNOWN: set[str] = set()

KNOWN_ID: set[str] = set()


# ------------------------------------------------------------------------------------- the scan
def _files() -> list[Path]:
    folders = sorted(set(PACKAGE_DIRS.values()))
    return [p for folder in folders for p in sorted((REPO / folder).rglob("*.py"))]


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _is_container(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and bool(_CONTAINER_CALLS.search(ast.unparse(value.func)))


def _module_containers(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_container(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (isinstance(node, ast.AnnAssign) and node.value is not None
              and isinstance(node.target, ast.Name) and _is_container(node.value)):
            names.add(node.target.id)
    return names


def _written_in_functions(tree: ast.Module, containers: set[str]) -> set[str]:
    """Containers a function writes, and globals a function rebinds."""
    out = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        declared = {n for g in ast.walk(fn) if isinstance(g, ast.Global) for n in g.names}
        for node in ast.walk(fn):
            target = None
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                target = node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in _MUTATORS):
                target = node.func.value
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in declared:
                out.add(node.id)
                continue
            if isinstance(target, ast.Name) and target.id in containers:
                out.add(target.id)
    return out


def _cached_functions(tree: ast.Module) -> set[str]:
    return {
        fn.name
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(_CACHE_DECORATOR.match(ast.unparse(d)) for d in fn.decorator_list)
    }


def _calls_id(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
            return True
        if isinstance(node, ast.Name) and node.id == "id" and isinstance(node.ctx, ast.Load):
            return True  # map(id, ...)
    return False


@functools.cache
def scan() -> tuple[frozenset[str], frozenset[str]]:
    """(module caches as `path::name`, files calling id())."""
    caches, ids = set(), set()
    for path in _files():
        tree = ast.parse(path.read_text(), str(path))
        rel = _rel(path)
        containers = _module_containers(tree)
        caches.update(f"{rel}::{n}" for n in _written_in_functions(tree, containers))
        caches.update(f"{rel}::{n}" for n in _cached_functions(tree))
        if not path.is_relative_to(COMPAT) and _calls_id(tree):
            ids.add(rel)
    return frozenset(caches), frozenset(ids)


def test_no_new_module_cache() -> None:
    caches, _ = scan()
    new = sorted(caches - ALLOWED.keys() - KNOWN)
    assert not new, (
        "module-level caches: make them the context's (stablehlo_py/ir/context.py), or, for a "
        "registry filled at import or a lazy constant of the spec tables, list them in ALLOWED "
        "with the reason: " + ", ".join(new)
    )


def test_no_new_id_keys() -> None:
    _, ids = scan()
    new = sorted(ids - ALLOWED_ID.keys() - KNOWN_ID)
    assert not new, (
        "id() outside stablehlo_py/ir/xdsl_compat: key caches by value or through the context's "
        "identity_map; a table local to one call goes to ALLOWED_ID with the reason: " + ", ".join(new)
    )


def test_the_lists_are_current() -> None:
    """KNOWN only shrinks: an entry that is gone must leave (and so must a stale ALLOWED one)."""
    caches, ids = scan()
    stale = sorted((KNOWN | ALLOWED.keys()) - caches) + sorted((KNOWN_ID | ALLOWED_ID.keys()) - ids)
    assert not stale, "no longer found (delete the line): " + ", ".join(stale)
    assert not KNOWN & ALLOWED.keys() and not KNOWN_ID & ALLOWED_ID.keys()


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("_C = {}\ndef f(k):\n    _C[k] = 1\n", {"_C"}),
        ("_C: dict = dict()\ndef f(k):\n    _C.setdefault(k, 1)\n", {"_C"}),
        ("_L = []\nclass A:\n    def m(self):\n        _L.append(self)\n", {"_L"}),
        ("_X = None\ndef f():\n    global _X\n    _X = 1\n", {"_X"}),
        ("import functools\n@functools.lru_cache(maxsize=8)\ndef f(x):\n    return x\n", {"f"}),
        ("from functools import cache\n@cache\ndef f():\n    return 1\n", {"f"}),
        ("_T = {1: 2}\ndef f(k):\n    return _T[k]\n", set()),  # read only: a table
        ("_T = {}\n_T[1] = 2\n", set()),  # filled at import
        ('_T = CONTEXT.table("t", 8)\ndef f(k):\n    _T.put(k, 1)\n', set()),
        ('@CONTEXT.memo("m", 8)\ndef f(x):\n    return x\n', set()),
    ],
)
def test_the_scan_finds_module_caches(source: str, found: set[str]) -> None:
    tree = ast.parse(source)
    assert _written_in_functions(tree, _module_containers(tree)) | _cached_functions(tree) == found


def test_the_scan_finds_id_keys() -> None:
    assert _calls_id(ast.parse("def f(x, t):\n    return t.get(id(x))\n"))
    assert _calls_id(ast.parse("def f(xs):\n    return tuple(map(id, xs))\n"))
    assert not _calls_id(ast.parse("def f(x, t):\n    return t.get(x)\n"))


# ---------------------------------------------------------------------------------- the context
def test_fresh_context_empties_every_cache_in_place() -> None:
    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.context import CONTEXT, fresh_context
    from stablehlo_py.ir.text import spelling

    text = "func.func @f(%a: tensor<3xi8>) -> tensor<3xi8> {\n  return %a : tensor<3xi8>\n}\n"
    print_ir(parse(text))
    table = CONTEXT["ir.types.tensor"]
    assert table is CONTEXT.table("ir.types.tensor", 1)  # one cache per name
    assert len(table) > 0 and spelling._TYPE_TEXT is CONTEXT["text.type_text"]
    with fresh_context() as ctx:
        assert ctx is CONTEXT and not any(ctx.sizes()[n] for n in ctx.names() if n != "text.seen_aliased")
        assert print_ir(parse(text)).count("tensor<3xi8>") == 3
        assert len(table) > 0  # the module's table is the context's: the same object
    assert len(table) == 0 and CONTEXT["text.seen_aliased"] == [False]


def test_the_allowed_adopted_memos_are_the_contexts() -> None:
    """An ALLOWED cache said to be adopted by the context is one of its caches (cleared with them)."""
    import importlib

    from stablehlo_py.ir.context import CONTEXT

    adopted = [k for k, why in ALLOWED.items() if "adopted by the context" in why]
    assert adopted
    caches = [CONTEXT[n] for n in CONTEXT.names()]
    for key in adopted:
        path, name = key.split("::")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert any(c is getattr(module, name) for c in caches), key


def test_context_caches_are_bounded() -> None:
    from stablehlo_py.ir.context import Context

    ctx = Context()
    t = ctx.table("t", 3)
    for i in range(10):
        assert t.put(i, str(i)) == str(i)
        assert len(t) <= 3

    calls = []

    @ctx.memo("m", maxsize=2)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert [square(2), square(2), square(3)] == [4, 4, 9] and calls == [2, 3]
    assert ctx.sizes() == {"m": 2, "t": 1}
    flag = ctx.flag("f")
    flag[0] = True
    ctx.clear()
    assert ctx.sizes()["m"] == 0 and len(t) == 0 and flag == [False]
    with pytest.raises(ValueError, match="not a Table"):
        ctx.table("m", 1)
