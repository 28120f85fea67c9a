"""A program being reduced: a module with the inputs of its entry function, its text and its size.

A :class:`Program` is never changed once made: a move edits a clone (:mod:`.edit`) and makes a new
Program of it.  Its text is what an interestingness test reads and what the memo hashes (locations
printed when any op has a source location of its own, so a JAX program keeps its name stacks).

Size (:class:`Size`) orders candidates: a candidate is kept only when it is interesting and
smaller, by functions (so inlining a function's calls counts, though it adds ops), then ops (every
op inside a function but the terminators), then the element count of every statically shaped value
(shrunk shapes), then the length of the text (dropped attributes, splat constants).  Each is a
natural number, so the reduction ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.traits import IsTerminator

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.location import TextLoc

__all__ = ["Program", "ReduceError", "Size", "entry_function", "functions", "walk_ops"]


class ReduceError(StableHLOError):
    """The reduction cannot start or go on (no entry function, inputs that do not fit, an input
    program that is not interesting)."""


@dataclass(frozen=True, order=True)
class Size:
    functions: int
    ops: int
    elements: int
    chars: int

    def __str__(self) -> str:
        return f"{self.ops} ops, {self.functions} function{'s' if self.functions != 1 else ''}"


def functions(module: ModuleOp) -> list[FuncOp]:
    """The module's functions, in order."""
    return [op for op in module.body.block.ops if isinstance(op, FuncOp)]


def entry_function(module: ModuleOp, entry: str) -> FuncOp:
    for f in functions(module):
        if f.sym_name.data == entry:
            return f
    names = ", ".join(f"@{f.sym_name.data}" for f in functions(module)) or "none"
    raise ReduceError(
        f"the program has no function @{entry} to reduce (its functions: {names}); name the "
        "entry function with entry="
    )


def walk_ops(module: ModuleOp) -> list[Operation]:
    """Every op of the module in walk order (pre-order), the module itself excluded: the order
    moves name ops by (a clone walks in the same order)."""
    it = module.walk()
    next(it)
    return list(it)


def _elements(t: Attribute) -> int:
    if isinstance(t, TensorType):
        shape = t.get_shape()
        if all(d >= 0 for d in shape):
            return int(np.prod(shape, dtype=np.int64))
    return 0


def _has_locations(module: ModuleOp) -> bool:
    return any(isinstance(op.location, TextLoc) for op in module.walk())


class Program:
    """A module (never to be mutated: clone it) with its entry function's inputs."""

    def __init__(self, module: ModuleOp, inputs: Sequence[np.ndarray], entry: str = "main") -> None:
        self.module = module
        self.inputs = tuple(inputs)
        self.entry = entry

    @classmethod
    def from_text(cls, text: str, inputs: Sequence[np.ndarray], entry: str = "main") -> Program:
        """Parse ``text``; the module kept is a clone (its ops carry no parse positions, as every
        candidate made from it)."""
        module = parse(text)
        if not isinstance(module, ModuleOp):
            raise ReduceError("the program to reduce must be a module")
        return cls(module.clone(), inputs, entry)

    @cached_property
    def text(self) -> str:
        return print_ir(self.module, debuginfo=_has_locations(self.module))

    def fresh_module(self) -> ModuleOp:
        """The module parsed from the text: a test may change it (serializing does not, but
        passes do), and it is what a tool reading the written file sees."""
        module = parse(self.text)
        assert isinstance(module, ModuleOp)
        return module

    @cached_property
    def ops(self) -> list[Operation]:
        return walk_ops(self.module)

    @cached_property
    def size(self) -> Size:
        ops = funcs = elements = 0
        for op in self.ops:
            if isinstance(op, FuncOp):
                funcs += 1
                elements += sum(_elements(a.type) for a in op.args)
                continue
            if not op.has_trait(IsTerminator, value_if_unregistered=False):
                ops += 1
            elements += sum(_elements(r.type) for r in op.results)
        return Size(funcs, ops, elements, len(self.text))

    def entry_function(self) -> FuncOp:
        return entry_function(self.module, self.entry)

    def digest(self, with_inputs: bool) -> str:
        """The memo's key: a hash of the text (and of the inputs, when the verdict depends on
        them)."""
        h = hashlib.blake2b(self.text.encode(), digest_size=20)
        if with_inputs:
            for a in self.inputs:
                arr = np.asarray(a)
                h.update(f"|{arr.dtype.str}{arr.shape}".encode())
                h.update(arr.tobytes())
        return h.hexdigest()

    def top_level_ops(self) -> Iterator[Operation]:
        """The entry function's ops, its terminator excluded."""
        for op in self.entry_function().body.block.ops:
            if not op.has_trait(IsTerminator, value_if_unregistered=False):
                yield op

    def __repr__(self) -> str:
        return f"<Program @{self.entry}: {self.size}, {len(self.inputs)} inputs>"


def describe_inputs(inputs: Sequence[Any]) -> str:
    return ", ".join(f"{np.asarray(a).dtype}{list(np.shape(a))}" for a in inputs) or "none"
