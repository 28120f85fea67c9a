"""Watching a run op by op: the Observer protocol of `run(..., trace=OBSERVER)` (issue 27).

An observer is any object with an ``after_op(op, results)`` method; `stablehlo_py.trace.Trace`
is the one users make (the interpreter never imports it).  Two more methods are called when the
observer has them: ``begin(module, entry)`` before the entry function runs, and ``end(error)``
after it (``error`` is None, or the exception the run is failing with).  A caller running an
`Evaluator(module, observer=...)` itself (the CLI) wraps the run in :func:`observing` for those.
A third, ``compiled()``, is called after a function (or a region run on its own) was compiled,
right before it runs (:func:`notify_compiled`): a timing observer starts the next op's clock there.

``after_op(op, results)`` is called right after ``op`` (an xDSL ``Operation``) ran, with its
results as a tuple, one value per result: numpy arrays, the `Token` of ``!stablehlo.token``, Python
tuples for tuple types (``()`` for an op without results).  The values belong to the run: an
observer that keeps one must copy it if it wants it unchanged.

Which ops are reported, and how often:

- every op of every function the run calls, constants included, in the order the ops run;
  terminators (``func.return``, ``stablehlo.return``) are not reported;
- a function called several times (``func.call``, a composite's decomposition) reports its ops
  each time;
- ops inside the regions of control flow (:data:`CONTROL_FLOW`: ``while``'s condition and body,
  the taken branch of ``if``/``case``, a ``chlo.scan`` body, ...) are reported each time they run:
  a ``while`` body's ops once per iteration, and then the ``while`` op with the loop's results;
- ops inside the other ops' regions are not reported: those regions (of ``reduce``,
  ``reduce_window``, ``sort``, ``scatter``, ``select_and_scatter``, ``map``, ``all_reduce``, ...)
  are computations applied to elements, which the interpreter runs on whole arrays at once, or not
  at all when it recognizes them (an ``add`` body is numpy's sum), so their values are not the
  program's; the enclosing op's results are reported;
- a run of several processes (a partitioned program run once per partition, or
  ``interpreter.run_parallel``) runs the same code in threads; only process (replica 0,
  partition 0) reports.

An exception raised by ``after_op`` stops the run as an :class:`ObserverError` naming the op
(never as the op's own failure).

A traced run compiles its blocks into code with the call after each op (`compiled.py`); an
untraced run's code is unchanged (the observer is fixed when an `Evaluator` is made, and its
compiled blocks are cached per evaluator).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from xdsl.ir import Block, Operation

# Ops whose regions are the program's control flow: their ops are reported each time they run.
CONTROL_FLOW = frozenset(
    {
        "stablehlo.while",
        "stablehlo.if",
        "stablehlo.case",
        "stablehlo.async_start",
        "chlo.scan",
        "sdy.manual_computation",
        "sdy.named_computation",
    }
)


@runtime_checkable
class Observer(Protocol):
    """What `run(..., trace=)` takes (see the module doc; ``begin``/``end`` are optional)."""

    def after_op(self, op: Operation, results: Sequence[Any]) -> None: ...


class ObserverError(RuntimeError):
    """The observer's own failure (its cause is the observer's exception)."""


def check_observer(observer: Any) -> Any:
    """``observer`` when it can observe a run, else a TypeError saying what is needed."""
    if not callable(getattr(observer, "after_op", None)):
        raise TypeError(
            "trace= takes an observer: an object with an after_op(op, results) method, e.g. "
            f"stablehlo_py.trace.Trace(level=1); got {type(observer).__name__}"
        )
    return observer


@contextmanager
def observing(observer: Any, module: Operation, entry: str) -> Iterator[None]:
    """Around a run of ``entry``: the observer's ``begin(module, entry)`` before, ``end(error)``
    after (``error`` the exception leaving the block, else None), each when it has them."""
    begin, end = getattr(observer, "begin", None), getattr(observer, "end", None)
    if begin is not None:
        begin(module, entry)
    try:
        yield
    except BaseException as e:
        if end is not None:
            end(e)
        raise
    if end is not None:
        end(None)


def notify_compiled(observer: Any) -> None:
    """Call ``observer.compiled()`` when it has one (see the module doc)."""
    compiled = getattr(observer, "compiled", None)
    if compiled is not None:
        compiled()


def reported_block(block: Block) -> bool:
    """Whether the ops of ``block`` are reported: a function's body, or a region of control flow
    (inside control flow or a function's body only)."""
    op = block.parent_op()
    while op is not None and op.name != "func.func" and op.name != "builtin.module":
        if op.name not in CONTROL_FLOW:
            return False
        block = op.parent_block()  # type: ignore[assignment]
        op = block.parent_op() if block is not None else None
    return True


def reporter(observer: Any) -> Callable[[Any, Operation, tuple[Any, ...]], None]:
    """What compiled code calls after each reported op: ``report(evaluator, op, results)``."""
    after_op = observer.after_op

    def report(ev: Any, op: Operation, results: tuple[Any, ...]) -> None:
        process = ev.process
        if process.replica_id or process.partition_id:
            return  # one process of a parallel run reports
        try:
            after_op(op, results)
        except Exception as e:
            raise ObserverError(
                f"the trace observer ({type(observer).__name__}.after_op) failed after "
                f"'{op.name}': {type(e).__name__}: {e}"
            ) from e

    return report


__all__ = [
    "CONTROL_FLOW",
    "Observer",
    "ObserverError",
    "check_observer",
    "notify_compiled",
    "observing",
    "reported_block",
    "reporter",
]
