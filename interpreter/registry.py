"""Op name -> how the interpreter runs it.

Two registrations, one per op name:

- `impl(*names)`: `fn(evaluator, op, operand_values, env) -> list of result values`; it unpacks the
  op's attributes on each call and calls a pure function of `stablehlo_py/semantics/`.  `env` is
  opaque: an impl only hands it back to `evaluator.run_region` / `evaluator.region_body` (it
  carries the compiled region closures, see `compiled.py`).
- `compiler(*names)`: `make(op) -> Step`, called once per op when its function is compiled; the
  step has the attributes, shapes and dtypes decoded already and runs with no lookups.  A compiler
  also serves as the op's impl (`IMPLS[name]` calls the step, made once per op), so the
  `IMPL_WRAPPERS` hooks and every caller of an impl see one source of truth.

Impl modules live in `impls/` and register themselves when `load_impls()` imports them.  This module
imports none of them (they import it): the loader is `impls.load`, installed with `install_loader`
by the package `stablehlo_py.interpreter`, which Python always imports before this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stablehlo_py.ir.xdsl_compat.side_data import INTERP_STEP, data_of

Impl = Callable[[Any, Any, list[Any], Any], list[Any]]

_NO_VALUE = object()


@dataclass(frozen=True, slots=True)
class Step:
    """An op prepared to run: `fn(*operand_values)` returns its one result.

    - `ev`: `fn` takes the evaluator first (calls, checks, anything reading the process context);
    - `regions`: `fn` takes the op's compiled regions next, a tuple of callables
      `region(*block_args) -> list of the values its terminator returns` that see the values of the
      enclosing blocks (closures);
    - `multi`: `fn` returns the sequence of all the op's results (else the one result);
    - `value`: a constant result, computed when the op was compiled (`fn` is then unused).
    """

    fn: Callable[..., Any]
    ev: bool = False
    regions: bool = False
    multi: bool = False
    value: Any = _NO_VALUE

    @property
    def is_constant(self) -> bool:
        return self.value is not _NO_VALUE


def constant_step(value: Any) -> Step:
    return Step(fn=_return_none, value=value)


def _return_none(*args: Any) -> None:
    return None


Compiler = Callable[[Any], Step]

IMPLS: dict[str, Impl] = {}
COMPILERS: dict[str, Compiler] = {}
_LOADED = False
# what imports the impl modules (set once by the interpreter package: `install_loader`)
_LOADER: list[Callable[[], None]] = []  # [] until installed


def impl(*names: str) -> Callable[[Impl], Impl]:
    """Register an impl for one or more op names."""

    def deco(fn: Impl) -> Impl:
        for n in names:
            _add_impl(n, fn)
        return fn

    return deco


def _add_impl(name: str, fn: Impl) -> None:
    if name in IMPLS:
        raise ValueError(f"two interpreter impls for {name}")
    IMPLS[name] = fn


def compiler(*names: str) -> Callable[[Compiler], Compiler]:
    """Register `make(op) -> Step` for one or more op names (also their impl, see the module doc)."""

    def deco(make: Compiler) -> Compiler:
        for n in names:
            _add_impl(n, impl_of_compiler(make))
            COMPILERS[n] = make
        return make

    return deco


def step_of(op: Any, make: Compiler) -> Step:
    """The op's step, made once and kept on the op (as its constant value is)."""
    d = data_of(op)
    step = d.get(INTERP_STEP)
    if step is None:
        step = d[INTERP_STEP] = make(op)
    return step


def impl_of_compiler(make: Compiler) -> Impl:
    """An impl running the step `make` prepares: what wrappers and uncompiled callers see."""

    def run(ev: Any, op: Any, args: list[Any], env: Any) -> list[Any]:
        step = step_of(op, make)
        if step.is_constant:
            return [step.value]
        prefix: list[Any] = [ev] if step.ev else []
        if step.regions:
            prefix.append(tuple(_region_caller(ev, region, env) for region in op.regions))
        out = step.fn(*prefix, *args)
        return list(out) if step.multi else [out]

    run.compiler = make  # type: ignore[attr-defined]
    return run


def _region_caller(ev: Any, region: Any, env: Any) -> Callable[..., list[Any]]:
    def call(*args: Any) -> list[Any]:
        return ev.run_region(region, args, env)

    return call


def install_loader(load: Callable[[], None]) -> None:
    """Make `load_impls` call `load` (which imports every impl module)."""
    _LOADER[:] = [load]


def load_impls() -> None:
    """Import every module of `stablehlo_py.interpreter.impls` once (they register themselves)."""
    global _LOADED
    if _LOADED or not _LOADER:
        return
    _LOADED = True
    _LOADER[0]()
