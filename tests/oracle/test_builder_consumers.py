"""Programs built with ``stablehlo_py.builder`` run on StableHLO's consumers with the interpreter's
numbers (issue 26, Deliver 4).

Each program is an example, ``examples/<name>.py`` with ``build() -> Module`` and ``inputs()``
(the three older examples have no ``inputs()``: :data:`OLDER_EXAMPLES` gives theirs).  The
interpreter runs the module as built; XLA (jaxlib) and IREE get our MLIR bytecode
(``tests/oracle/consumers.py``) of ``m.lower()`` (CHLO has no portable form).  Results must
match within the dtype's tolerance (bit equality for integers).
XLA comes with the ``oracle`` extra, IREE with the ``iree`` extra; a missing one is skipped with
the reason.

:data:`KNOWN_DEVIATIONS` names where a consumer's results differ from the spec's (all of them
IREE's today: an unstable sort, a gather that reads out of bounds, bf16 sums in f32, IEEE 754
special cases of atan2, pow and cbrt, sin/cos/tan of huge arguments).  Each row's check asserts
that the deviation *still happens* and is only what the row says, so the table notices when it
goes away; the program's other results are compared as usual.  :data:`IREE_LIMITS` does the same
for what IREE refuses or needs a flag for.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tests.oracle import consumers

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

PROGRAMS = (
    "attention",
    "chlo_ops",
    "classifier",
    "composite",
    "conv_net",
    "dynamic_batch",
    "embedding",
    "f64_fft",
    "float_edges",
    "int_ops",
    "lstm",
    "mixed_precision",
    "topk_sort",
    # written before inputs() (OLDER_EXAMPLES)
    "mlp_train",
    "sort",
    "while_loop",
)
"""The examples run here, new and old (the issue asks for at least 10)."""

CONSUMERS = ("xla", "iree")
RUN = {"xla": consumers.run_xla, "iree": consumers.run_iree}


@functools.cache
def _load(name: str) -> ModuleType:
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_builder_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _program(name: str) -> tuple[Any, tuple[np.ndarray, ...], list[np.ndarray]]:
    """(the module for the consumers, the inputs, the interpreter's results)."""
    example = _load(name)
    m = example.build()
    m.verify()
    args = OLDER_EXAMPLES[name]() if name in OLDER_EXAMPLES else tuple(example.inputs())
    ours = [np.asarray(r) for r in m.run(*args)]
    return m.lower().op, args, ours


def _mlp_train_inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    shapes = [(4, 8), (8,), (8, 2), (2,), (16, 4), (16, 2)]
    return tuple(rng.standard_normal(s).astype(np.float32) for s in shapes)


def _sort_inputs() -> tuple[np.ndarray, ...]:
    keys = np.array([0.5, 2.0, -1.0, 2.0, 0.0, 3.5, 0.5, -2.0], np.float32)  # two pairs of ties
    scores = np.array([[0.1, 0.9, 0.3, 0.7, 0.5], [5, 4, 3, 2, 1]], np.float32)
    return keys, np.arange(8, dtype=np.int32), scores


def _while_loop_inputs() -> tuple[np.ndarray, ...]:
    return (np.array([2.0, 9.0, 0.25, 100.0, 1e-2], np.float32),)


OLDER_EXAMPLES: dict[str, Callable[[], tuple[np.ndarray, ...]]] = {
    "mlp_train": _mlp_train_inputs,
    "sort": _sort_inputs,
    "while_loop": _while_loop_inputs,
}
"""Inputs of the examples written before ``inputs()`` was the convention."""


@dataclass(frozen=True)
class Deviation:
    """A consumer's known difference on one program: ``results`` (indices) are checked by
    ``still_happens(args, ours, theirs)`` instead of the tolerance, which must assert that the
    deviation still shows and that it is nothing worse than ``reason`` says."""

    reason: str
    results: tuple[int, ...]
    still_happens: Callable[[Sequence[np.ndarray], list[np.ndarray], list[np.ndarray]], None]


def _ties_reordered(
    keys: int, payload: int, sorted_keys: int, sorted_payload: int, axis: int
) -> Callable[[Sequence[np.ndarray], list[np.ndarray], list[np.ndarray]], None]:
    """An unstable sort: the consumer's payload (result ``sorted_payload``) differs from the
    stable order, yet it is a correct sort -- along ``axis`` it is a permutation of the argument
    ``payload`` in which every element sits where its own key (argument ``keys``) is in the sorted
    keys (result ``sorted_keys``, compared as usual).  Assumes the payload's values are distinct
    within each line."""

    def still_happens(
        args: Sequence[np.ndarray], ours: list[np.ndarray], theirs: list[np.ndarray]
    ) -> None:
        got = np.moveaxis(theirs[sorted_payload], axis, -1)
        assert not np.array_equal(theirs[sorted_payload], ours[sorted_payload]), (
            "the consumer now keeps equal keys in order: delete its KNOWN_DEVIATIONS row"
        )
        key_lines = np.moveaxis(args[keys], axis, -1).reshape(-1, got.shape[-1])
        payload_lines = np.moveaxis(args[payload], axis, -1).reshape(-1, got.shape[-1])
        sorted_lines = np.moveaxis(ours[sorted_keys], axis, -1).reshape(-1, got.shape[-1])
        for k, p, want_keys, line in zip(
            key_lines, payload_lines, sorted_lines, got.reshape(key_lines.shape)
        ):
            np.testing.assert_array_equal(np.sort(line), np.sort(p), err_msg="not a permutation")
            key_of = dict(zip(p.tolist(), k.tolist()))
            np.testing.assert_array_equal([key_of[v] for v in line.tolist()], want_keys)

    return still_happens


def _differs_at(
    result: int, positions: Sequence[int]
) -> Callable[[Sequence[np.ndarray], list[np.ndarray], list[np.ndarray]], None]:
    """The consumer's result ``result`` is outside the dtype's tolerance of ours (NaN equal to
    NaN) at exactly the flat ``positions``, and within it everywhere else."""

    def still_happens(
        args: Sequence[np.ndarray], ours: list[np.ndarray], theirs: list[np.ndarray]
    ) -> None:
        got, want = np.asarray(theirs[result]), np.asarray(ours[result])
        rtol, atol = consumers.tolerance(want.dtype)
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        differs = np.flatnonzero(~close).tolist()
        assert differs == sorted(positions), (
            f"result #{result} now differs at {differs} ({got.ravel()[differs]} instead of "
            f"{want.ravel()[differs]}); its KNOWN_DEVIATIONS row says {sorted(positions)}: "
            "update the row"
        )

    return still_happens


def _sums_in_f32(
    result: int, operand: int, axis: int
) -> Callable[[Sequence[np.ndarray], list[np.ndarray], list[np.ndarray]], None]:
    """The consumer's sums (result ``result``) of argument ``operand`` along ``axis`` are the
    exact f32 sums rounded once to the result's type, not our sums rounded after every addition
    (as XLA's); the spec leaves a reduction's order to the implementation."""

    def still_happens(
        args: Sequence[np.ndarray], ours: list[np.ndarray], theirs: list[np.ndarray]
    ) -> None:
        dtype = ours[result].dtype
        once = args[operand].astype(np.float32).sum(axis).astype(dtype)
        np.testing.assert_array_equal(theirs[result], once, err_msg="not the f32 sums")
        assert not np.array_equal(theirs[result], ours[result]), (
            "the consumer now rounds as we do: delete its KNOWN_DEVIATIONS row"
        )

    return still_happens


def _edge(name: str) -> int:
    """The index of ``examples/float_edges.py``'s result ``name``."""
    return _load("float_edges").RESULTS.index(name)


KNOWN_DEVIATIONS: dict[tuple[str, str], tuple[Deviation, ...]] = {
    ("topk_sort", "iree"): (
        Deviation(
            "IREE's sort does not keep equal keys in their order even with is_stable = true "
            "(the ids sorted by score come out in another order among equal scores)",
            (1,),
            _ties_reordered(keys=0, payload=1, sorted_keys=0, sorted_payload=1, axis=1),
        ),
    ),
    # examples/embedding.py's ids[1, 4] is out of the vocabulary: rows[1, 4, :] are the flat 36..39
    ("embedding", "iree"): (
        Deviation(
            "IREE's gather does not clamp an out-of-bounds start index (the spec does: the "
            "padding id's lookup is the table's last row); it reads past the table instead",
            (0,),
            _differs_at(0, [36, 37, 38, 39]),
        ),
    ),
    ("mixed_precision", "iree"): (
        Deviation(
            "IREE sums bf16 in f32 and rounds once (within the bf16 tolerance; XLA and the "
            "interpreter round after every addition)",
            (6,),
            _sums_in_f32(result=6, operand=0, axis=1),
        ),
    ),
    # examples/float_edges.py's X and Y: positions 1, 2 are (-0, +0), (+0, -0); 3, 4 hold +-inf in
    # X; 9 and 11 a negative base with an integral exponent; 10 is 3e38
    ("float_edges", "iree"): (
        Deviation(
            "IREE's atan2 of two zeros is NaN (IEEE 754: atan2(-0, +0) = -0, atan2(+0, -0) = pi)",
            (_edge("atan2"),),
            _differs_at(_edge("atan2"), [1, 2]),
        ),
        Deviation(
            "IREE's power is NaN for pow(+-0, +-0) (IEEE 754: 1) and for a negative base with an "
            "integral exponent (pow(-inf, 5) = -inf, pow(-3, 2) = 9, pow(-7, 7) = -823543)",
            (_edge("power"),),
            _differs_at(_edge("power"), [1, 2, 4, 9, 11]),
        ),
        Deviation(
            "IREE's cbrt of +-inf is NaN (IEEE 754: +-inf)",
            (_edge("cbrt"),),
            _differs_at(_edge("cbrt"), [3, 4]),
        ),
        *(
            Deviation(
                f"IREE's {op} of 3e38 is not in [-1, 1] (NaN or -inf): no argument reduction "
                "for huge arguments",
                (_edge(op),),
                _differs_at(_edge(op), [10]),
            )
            for op in ("sine", "cosine", "tan")
        ),
    ),
}


def _f64_without_flag() -> tuple[Any, tuple[np.ndarray, ...], tuple[str, ...]]:
    module, args, _ = _program("f64_fft")
    flags = tuple(f for f in consumers.IREE_FLAGS if "demote-f64" not in f)
    return module, args, flags


def _dynamic_reshape() -> tuple[Any, tuple[np.ndarray, ...], tuple[str, ...]]:
    from stablehlo_py.builder import Module, constant, tensor
    from stablehlo_py.builder import stablehlo as hlo

    batch_shape = _load("dynamic_batch").batch_shape
    m = Module("flatten")

    @m.func(tensor((None, 3), "f32"))
    def main(x):  # type: ignore[no-untyped-def]
        size = hlo.multiply(batch_shape(x), constant(np.array([3], np.int32)))
        return hlo.dynamic_reshape(x, size, result_type=tensor((None,), "f32"))

    return m.op, (np.ones((2, 3), np.float32),), consumers.IREE_FLAGS


def _overlapping_select_and_scatter() -> tuple[Any, tuple[np.ndarray, ...], tuple[str, ...]]:
    from stablehlo_py.builder import Module, tensor
    from stablehlo_py.builder import stablehlo as hlo

    m = Module("max_pool_gradient")

    @m.func(tensor((6,), "f32"), tensor((4,), "f32"))
    def main(x, grad):  # type: ignore[no-untyped-def]
        return hlo.select_and_scatter(
            x,
            grad,
            0.0,
            window_dimensions=[3],
            window_strides=[1],
            select=lambda a, b: hlo.compare(a, b, "GE"),
            scatter=hlo.add,
        )

    args = (np.arange(6, dtype=np.float32), np.ones(4, np.float32))
    return m.op, args, consumers.IREE_FLAGS


IREE_LIMITS: dict[
    str, tuple[Callable[[], tuple[Any, tuple[np.ndarray, ...], tuple[str, ...]]], str]
] = {
    # IREE's own default, not StableHLO's: consumers.IREE_FLAGS turns it off for the programs
    "f64 is demoted to f32 unless --iree-input-demote-f64-to-f32=false": (
        _f64_without_flag,
        "input0 element type mismatch; expected f32",
    ),
    # a rank-changing reshape to a dynamic shape; the programs keep to dynamic ops IREE compiles
    "stablehlo.dynamic_reshape is refused": (
        _dynamic_reshape,
        "failed to legalize operation 'stablehlo.dynamic_reshape'",
    ),
    # the gradient of a max pool whose windows overlap (3x3 windows at stride 2 in many CNNs);
    # IREE compiles select_and_scatter when the windows do not overlap (window <= stride)
    "stablehlo.select_and_scatter with overlapping windows is refused": (
        _overlapping_select_and_scatter,
        "failed to legalize operation 'stablehlo.select_and_scatter'",
    ),
}
"""IREE's limits beyond single results (what it refuses, what it needs a flag for), each asserted
to still hold: (a function giving the module, its inputs and IREE's flags; a fragment of IREE's
error)."""


def test_at_least_ten_programs() -> None:
    assert len(PROGRAMS) >= 10
    for name in PROGRAMS:
        assert (EXAMPLES / f"{name}.py").is_file(), name


def test_known_deviations_name_programs() -> None:
    for program, consumer in KNOWN_DEVIATIONS:
        assert program in PROGRAMS and consumer in CONSUMERS, (program, consumer)


def test_iree_reads_the_target() -> None:
    """consumers.IREE_STABLEHLO (1.20.0) is still a floor of IREE's StableHLO: IREE registers
    every VHLO fork we know, the newest of which starts at that version."""
    consumers.require_iree(runtime=False)
    assert consumers.iree_vhlo_forks_missing() == []
    assert consumers.newest_fork_version() == consumers.IREE_STABLEHLO
    assert consumers.artifact(_program("int_ops")[0]).startswith(b"ML\xefR")  # MLIR bytecode


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_on_consumer(name: str, consumer: str) -> None:
    consumers.REQUIRE[consumer]()
    module, args, ours = _program(name)
    theirs = RUN[consumer](module, args)
    assert len(theirs) == len(ours), (
        f"{consumer} gave {len(theirs)} results, the interpreter {len(ours)}"
    )
    deviations = KNOWN_DEVIATIONS.get((name, consumer), ())
    skip = {i for d in deviations for i in d.results}
    keep = [i for i in range(len(ours)) if i not in skip]
    consumers.assert_close(
        [theirs[i] for i in keep], [ours[i] for i in keep], f"{name} on {consumer}"
    )
    for deviation in deviations:
        deviation.still_happens(args, ours, theirs)


def test_iree_runs_one_dynamic_module_on_every_batch_size() -> None:
    """examples/dynamic_batch.py compiled once by IREE (no refinement: IREE takes `?` as it is)
    runs batches of 1, 3 and 5 rows with the interpreter's numbers."""
    consumers.require_iree()
    example = _load("dynamic_batch")
    m = example.build()
    run = consumers.iree_function(m.op)
    x, w, b = example.inputs()
    for rows in (1, 3, 5):
        args = (x[:rows], w, b)
        consumers.assert_close(run(*args), m.run(*args), f"dynamic_batch, {rows} rows, on iree")


@pytest.mark.parametrize("what", sorted(IREE_LIMITS))
def test_iree_limit_still_holds(what: str) -> None:
    consumers.require_iree()
    make, fragment = IREE_LIMITS[what]
    module, args, flags = make()
    try:
        consumers.run_iree(module, args, flags=flags)
    except Exception as e:  # noqa: BLE001 - IREE's exception types vary by stage
        assert fragment in str(e), str(e)[:2000]
    else:
        pytest.fail(f"IREE no longer has the limit '{what}': delete its IREE_LIMITS row")
