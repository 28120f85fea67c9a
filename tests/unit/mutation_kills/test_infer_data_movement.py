"""stablehlo_py/ir/infer/data_movement.py (the data movement ops' inference rules and verifiers):
what the mutation run of the `infer-data-movement` group found unchecked.

Two kinds of test:

* upstream's own pass programs that lean on these rules (``--stablehlo-refine-shapes`` re-infers
  every op's type; ``--stablehlo-canonicalize-dynamism`` builds static ops from dynamic ones), run
  in-process chunk by chunk with their RUN line's flags, CHECK lines and expected diagnostics --
  the subprocess runs of tests/conformance import the unmutated package and cannot tell a mutant
  from the original;
* direct tests of each rule and verifier: every diagnostic word for word (upstream's
  TypeInference.cpp / StablehloOps.cpp in /work/shared/reference/upstream/), at the boundaries of
  each range check, with dynamic dimensions ``?``, ``#stablehlo.bounds``, quantized element types
  and batching dimensions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op, infer_result_types
from stablehlo_py.ir.infer import data_movement as DM
from stablehlo_py.ir.text.printer import type_to_str
from tests.conformance.chunks import run_chunks
from tests.conformance.runlines import run_lines
from tests.conftest import CONFORMANCE
from tests.unit.ir.infer.helpers import first_op as _op, ty
from tests.unit.ir.infer.helpers import infer_error, inferred

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def verify_error(text: str) -> str:
    """The verifier's diagnostic for a program (parsed, then verified)."""
    m = parse(text)
    with pytest.raises(VerifyException) as e:
        m.verify()
    return str(e.value)


def verifies(text: str) -> None:
    parse(text).verify()


def err(fn, *args) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        fn(*args)
    return e.value.message


def _l(xs: Sequence[int]) -> str:
    return ", ".join(str(x) for x in xs)


# ---------------------------------------------------------------------------------------------
# gather / dynamic_gather (upstream's verifyGather, inferGatherShape)
# ---------------------------------------------------------------------------------------------


def _gather_dims(off, col, ob, ib, smap, ivd) -> str:  # type: ignore[no-untyped-def]
    parts = [f"offset_dims = [{_l(off)}]", f"collapsed_slice_dims = [{_l(col)}]"]
    if ob:
        parts.append(f"operand_batching_dims = [{_l(ob)}]")
    if ib:
        parts.append(f"start_indices_batching_dims = [{_l(ib)}]")
    parts += [f"start_index_map = [{_l(smap)}]", f"index_vector_dim = {ivd}"]
    return "#stablehlo.gather<" + ", ".join(parts) + ">"


def gather_text(o, i, ss, off=(), col=(), ob=(), ib=(), smap=(), ivd=0):  # type: ignore[no-untyped-def]
    dn = _gather_dims(off, col, ob, ib, smap, ivd)
    return (
        f"func.func @f(%a: {o}, %i: {i}) {{\n"
        f'  %0 = "stablehlo.gather"(%a, %i) {{dimension_numbers = {dn}, '
        f"slice_sizes = array<i64: {_l(ss)}>}} : ({o}, {i}) -> tensor<*xf32>\n"
        "  return\n}"
    )


def gather(o, i, ss, **kw) -> str:  # type: ignore[no-untyped-def]
    (t,) = inferred(gather_text(o, i, ss, **kw), "stablehlo.gather")
    return t


def gather_err(o, i, ss, **kw) -> str:  # type: ignore[no-untyped-def]
    return infer_error(gather_text(o, i, ss, **kw), "stablehlo.gather")


def dyn_gather_text(o, i, ss, off=(), col=(), ob=(), ib=(), smap=(), ivd=0, const=True):  # type: ignore[no-untyped-def]
    """A dynamic_gather whose slice sizes are a constant (or, const=False, an argument)."""
    dn = _gather_dims(off, col, ob, ib, smap, ivd)
    st = f"tensor<{len(ss)}xi64>" if isinstance(ss, (list, tuple)) else ss
    const_line = f"  %s = stablehlo.constant dense<[{_l(ss)}]> : {st}\n" if const else ""
    s = "%s" if const else "%z"
    return (
        f"func.func @f(%a: {o}, %i: {i}, %z: {st}) {{\n{const_line}"
        f'  %0 = "stablehlo.dynamic_gather"(%a, %i, {s}) {{dimension_numbers = {dn}}} '
        f": ({o}, {i}, {st}) -> tensor<*xf32>\n"
        "  return\n}"
    )


def test_gather_result_shapes() -> None:
    # the classic: rows of a matrix
    assert gather("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1) == "tensor<4x3xf32>"
    # offset dims first, batch dims after (ivd in the middle of start_indices)
    assert gather(
        "tensor<5x6x7xf32>", "tensor<2x2x9xi32>", (1, 2, 7), off=(0, 1), col=(0,), smap=(0, 1), ivd=1
    ) == "tensor<2x7x2x9xf32>"
    # implied trailing index vector dim
    assert gather("tensor<5x3xf32>", "tensor<4xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1) == "tensor<4x3xf32>"
    # a collapsed dimension after an offset one: the slice prefix skips it
    assert gather(
        "tensor<5x6x7xf32>", "tensor<4x1xi32>", (2, 1, 3), off=(1, 2), col=(1,), smap=(1,), ivd=1
    ) == "tensor<4x2x3xf32>"
    # no collapsed dimensions
    assert gather("tensor<5x3xf32>", "tensor<4x2xi32>", (2, 3), off=(1, 2), smap=(0, 1), ivd=1) == "tensor<4x2x3xf32>"
    # batching dims: operand dim 0 with start_indices dim 0
    assert gather(
        "tensor<3x5x7xf32>",
        "tensor<3x4x1xi32>",
        (1, 1, 7),
        off=(2,),
        col=(1,),
        ob=(0,),
        ib=(0,),
        smap=(1,),
        ivd=2,
    ) == "tensor<3x4x7xf32>"
    # batching dim after the collapsed one, offset dims around the batch dims
    assert gather(
        "tensor<5x3x7x2xf32>",
        "tensor<4x3x1xi32>",
        (1, 1, 6, 2),
        off=(0, 3),
        col=(0,),
        ob=(1,),
        ib=(1,),
        smap=(0,),
        ivd=2,
    ) == "tensor<6x4x3x2xf32>"
    # dynamic start_indices dims and bounds are propagated to the batch dims (skipping ivd)
    assert gather(
        "tensor<5x3xf32>", "tensor<?x1xi32, #stablehlo.bounds<8, ?>>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1
    ) == "tensor<?x3xf32, #stablehlo.bounds<8, ?>>"
    assert gather(
        "tensor<5x3xf32>", "tensor<1x?xi32, #stablehlo.bounds<?, 8>>", (1, 3), off=(0,), col=(0,), smap=(0,), ivd=0
    ) == "tensor<3x?xf32, #stablehlo.bounds<?, 8>>"
    assert gather(
        "tensor<5x3xf32>", "tensor<?x?x1xi32, #stablehlo.bounds<6, 7, ?>>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=2
    ) == "tensor<?x3x?xf32, #stablehlo.bounds<6, ?, 7>>"
    # no bounds on start_indices: no encoding on the result
    assert gather("tensor<?x3xf32>", "tensor<?x1xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1) == "tensor<?x3xf32>"
    # quantized element types are kept
    assert gather(
        "tensor<5x3x!quant.uniform<i8:f32, 2.0:1>>", "tensor<4x1xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1
    ) == "tensor<4x3x!quant.uniform<i8:f32, 2.000000e+00:1>>"


def test_gather_result_of_unranked_indices() -> None:
    text = gather_text("tensor<5x3xf32>", "tensor<*xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1)
    assert inferred(text, "stablehlo.gather") == ["tensor<*xf32>"]


GOOD = dict(o="tensor<5x3xf32>", i="tensor<4x1xi32>", ss=(1, 3), off=(1,), col=(0,), smap=(0,), ivd=1)


# two batching dim pairs, matched in order (operand dims 1, 2 with indices dims 1, 0)
TWO_BATCHING = dict(
    o="tensor<5x3x2x4xf32>",
    i="tensor<2x3x1xi32>",
    ss=(1, 1, 1, 4),
    col=(0,),
    ob=(1, 2),
    ib=(1, 0),
    off=(2,),
    ivd=2,
)


def _g(**kw):  # type: ignore[no-untyped-def]
    args = dict(GOOD)
    args.update(kw)
    return args


def test_gather_good_case() -> None:
    assert gather(**_g()) == "tensor<4x3xf32>"


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        # gather_c1
        (
            dict(o="tensor<5x3x2xf32>"),
            "offset_dims size (1) plus collapse_slice_dims size (1) plus operand_batching_dims size "
            "(0) is not equal to operand rank (3)",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 3), ob=(1,), ib=(0,), col=(0,), off=(1, 2), i="tensor<5x1xi32>"),
            "offset_dims size (2) plus collapse_slice_dims size (1) plus operand_batching_dims size "
            "(1) is not equal to operand rank (3)",
        ),
        # gather_c2: index_vector_dim in [0, rank] (inclusive)
        (dict(ivd=3), "Expects index_vector_dim to be in range [0, rank-of('start_indices')] i.e. [0, 2]. got: 3."),
        (dict(ivd=-1), "Expects index_vector_dim to be in range [0, rank-of('start_indices')] i.e. [0, 2]. got: -1."),
        # gather_c3
        (
            dict(i="tensor<4x2xi32>"),
            "start_index_map size (1) is not equal to size of index dimension (1) of start_indices (2)",
        ),
        (
            dict(i="tensor<4xi32>", smap=(0, 1)),
            "start_index_map size (2) is not equal to size of index dimension (1) of start_indices (1)",
        ),
        (
            dict(i="tensor<4x1xi32>", ivd=2, smap=(0, 1)),
            "start_index_map size (2) is not equal to size of index dimension (2) of start_indices (1)",
        ),
        # gather_c4
        (dict(o="tensor<5x3x2xf32>", ss=(1, 3, 2), off=(2, 1)), "expects offset_dims to be sorted, got: [2, 1]"),
        (dict(o="tensor<5x3x2xf32>", ss=(1, 3, 2), off=(1, 1)), "expects offset_dims to not repeat, got: [1, 1]"),
        # gather_c6
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(0,), ib=(0,), off=(1,), i="tensor<4x1xi32>"),
            "has duplicated dimension from collapsed_slice_dims and operand_batching_dims: 0",
        ),
        # gather_c7
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(1, 0), off=(1,)),
            "expects collapsed_slice_dims to be sorted, got: [1, 0]",
        ),
        # gather_c8
        (
            dict(col=(2,)),
            "Expects each element of collapsed_slice_dims to be in range [0, rank-of('operand')) i.e. "
            "[0, 2). got: 2.",
        ),
        (
            dict(col=(-1,)),
            "Expects each element of collapsed_slice_dims to be in range [0, rank-of('operand')) i.e. "
            "[0, 2). got: -1.",
        ),
        # gather_c10
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(), ob=(1, 0), ib=(0, 2), off=(1,), i="tensor<4x1x3xi32>"),
            "expects operand_batching_dims to be sorted, got: [1, 0]",
        ),
        # gather_c11
        (
            dict(col=(), ob=(2,), ib=(0,)),
            "Expects each element of operand_batching_dims to be in range [0, rank-of('operand')) i.e. "
            "[0, 2). got: 2.",
        ),
        (
            dict(col=(), ob=(-1,), ib=(0,)),
            "Expects each element of operand_batching_dims to be in range [0, rank-of('operand')) i.e. "
            "[0, 2). got: -1.",
        ),
        # gather_c13
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(), ob=(0, 1), ib=(0, 0), off=(1,)),
            "expects start_indices_batching_dims to not repeat, got: [0, 0]",
        ),
        # gather_c14
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(2,), off=(1,)),
            "Expects each element of start_indices_batching_dims to be in range [0, "
            "rank-of('start_indices')) i.e. [0, 2). got: 2.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(-1,), off=(1,)),
            "Expects each element of start_indices_batching_dims to be in range [0, "
            "rank-of('start_indices')) i.e. [0, 2). got: -1.",
        ),
        # gather_c15
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(1,), off=(1,)),
            "expects start_indices_batching_dims not to include index_vector_dim 1",
        ),
        # gather_c16
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(), off=(1,)),
            "operand_batching_dims and start_indices_batching_dims should have the same size",
        ),
        (
            dict(ib=(0,)),
            "operand_batching_dims and start_indices_batching_dims should have the same size",
        ),
        # gather_c17
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(0,), off=(1,)),
            "operand_batching_dims[0] and start_indices_batching_dims[0] must have compatible sizes, "
            "but got 3 and 4",
        ),
        (
            dict(TWO_BATCHING, o="tensor<5x3x4x4xf32>"),
            "operand_batching_dims[1] and start_indices_batching_dims[1] must have compatible sizes, "
            "but got 4 and 2",
        ),
        # gather_c18
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(0,), off=(1,), i="tensor<3x1xi32>", smap=(1,)),
            "has duplicated dimension from start_index_map and operand_batching_dims: 1",
        ),
        # gather_c19
        (
            dict(smap=(2,)),
            "Expects each element of start_index_map to be in range [0, rank-of('operand')) i.e. [0, 2). got: 2.",
        ),
        (
            dict(smap=(-1,)),
            "Expects each element of start_index_map to be in range [0, rank-of('operand')) i.e. [0, 2). got: -1.",
        ),
        # gather_c20
        (dict(ss=(1,)), "slice_sizes size (1) not equal to operand rank (2)"),
        (dict(ss=(1, 3, 1)), "slice_sizes size (3) not equal to operand rank (2)"),
        # gather_c9, gather_c12, gather_c21
        (
            dict(ss=(2, 3)),
            "Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should be <= 1, but got 2",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ss=(1, 2, 2), col=(0,), ob=(1,), ib=(0,), off=(1,), i="tensor<3x1xi32>"),
            "Expects that for each dim in operand_batching_dims, slice_sizes[dim] should be <= 1, but got 2",
        ),
        (dict(ss=(1, 4)), "slice size (4) is out of bounds for operand dimension (3) at index 1"),
        (dict(ss=(1, -1)), "slice size (-1) is out of bounds for operand dimension (3) at index 1"),
        (dict(ss=(-1, 3), col=(), off=(1, 2)), "slice size (-1) is out of bounds for operand dimension (5) at index 0"),
        # gather_c5
        (
            dict(off=(2,)),
            "Expects each element of offset_dims to be in range [0, implied-result-rank) i.e. [0, 2). got: 2.",
        ),
        (
            dict(off=(-1,)),
            "Expects each element of offset_dims to be in range [0, implied-result-rank) i.e. [0, 2). got: -1.",
        ),
    ],
)
def test_gather_errors(kw, msg) -> None:  # type: ignore[no-untyped-def]
    assert gather_err(**_g(**kw)) == msg


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        # the range checks' upper ends, just inside
        (dict(ivd=2, i="tensor<4x1xi32>", off=(2,)), "tensor<4x1x3xf32>"),
        (dict(ivd=0, i="tensor<1x4xi32>", off=(1,)), "tensor<4x3xf32>"),
        (dict(col=(1,), ss=(5, 1), off=(1,), smap=(1,)), "tensor<4x5xf32>"),
        (dict(ss=(1, 0)), "tensor<4x0xf32>"),
        (dict(ss=(0, 3), col=(), off=(1, 2)), "tensor<4x0x3xf32>"),
        (dict(ss=(1, 3), col=(0,), smap=(1,)), "tensor<4x3xf32>"),
        (dict(off=(0,)), "tensor<3x4xf32>"),
        # a dynamic index vector dimension skips gather_c3
        (dict(i="tensor<4x?xi32>", smap=(0, 1), col=(0,), ss=(1, 3)), "tensor<4x3xf32>"),
        # slice sizes of a dynamic operand dimension are not bounded
        (dict(o="tensor<5x?xf32>", ss=(1, 30)), "tensor<4x30xf32>"),
        (dict(o="tensor<?x?xf32>", ss=(1, 30)), "tensor<4x30xf32>"),
        # batching dims: compatible when one side is dynamic; slice size 0 or 1 in a batching dim
        (
            dict(o="tensor<5x?x2xf32>", i="tensor<7x1xi32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(0,), off=(1,)),
            "tensor<7x2xf32>",
        ),
        (
            dict(o="tensor<5x7x2xf32>", i="tensor<?x1xi32>", ss=(1, 0, 2), col=(0,), ob=(1,), ib=(0,), off=(1,)),
            "tensor<?x2xf32>",
        ),
        (
            dict(o="tensor<5x7x2xf32>", i="tensor<7x1xi32>", ss=(0, 1, 2), col=(0,), ob=(1,), ib=(0,), off=(1,)),
            "tensor<7x2xf32>",
        ),
        # two batching dim pairs matched in order
        (TWO_BATCHING, "tensor<2x3x4xf32>"),
    ],
)
def test_gather_accepts(kw, want) -> None:  # type: ignore[no-untyped-def]
    assert gather(**_g(**kw)) == want


def test_gather_unranked_operand_skips_rank_checks() -> None:
    # an unranked operand: rank checks are skipped, slice sizes are unbounded
    assert gather(**_g(o="tensor<*xf32>", ss=(1, 30))) == "tensor<4x30xf32>"
    assert gather(**_g(o="tensor<*xf32>", ss=(1, 30, 2), off=(1, 2))) == "tensor<4x30x2xf32>"
    # the unranked start_indices skip their own checks too
    text = gather_text("tensor<5x3xf32>", "tensor<*xi32>", (1, 3), off=(1,), col=(0,), smap=(0, 1), ivd=7)
    assert inferred(text, "stablehlo.gather") == ["tensor<*xf32>"]


def test_gather_requires_dimension_numbers() -> None:
    t = ty("tensor<5x3xf32>")
    with pytest.raises(InferError) as e:
        infer_result_types("stablehlo.gather", [t, ty("tensor<4x1xi32>")], {})
    assert e.value.message == "requires attribute 'dimension_numbers'"


def dyn_gather(o, i, ss, **kw) -> str:  # type: ignore[no-untyped-def]
    (t,) = inferred(dyn_gather_text(o, i, ss, **kw), "stablehlo.dynamic_gather")
    return t


def dyn_gather_err(o, i, ss, **kw) -> str:  # type: ignore[no-untyped-def]
    return infer_error(dyn_gather_text(o, i, ss, **kw), "stablehlo.dynamic_gather")


def test_dynamic_gather() -> None:
    g = dict(off=(1,), col=(0,), smap=(0,), ivd=1)
    assert dyn_gather("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 3), **g) == "tensor<4x3xf32>"
    assert dyn_gather("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 2), **g) == "tensor<4x2xf32>"
    # slice sizes not a constant: the offset dims are dynamic
    assert dyn_gather("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 3), const=False, **g) == "tensor<4x?xf32>"
    assert dyn_gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 4), **g) == (
        "slice size (4) is out of bounds for operand dimension (3) at index 1"
    )
    assert dyn_gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", (2, 3), **g) == (
        "Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should be <= 1, but got 2"
    )
    # gather_i9: slice_sizes must be 1-d
    assert dyn_gather_err(
        "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<1x2xi64>", const=False, **g
    ) == "slice_sizes.rank != 1 (got 2)"
    assert dyn_gather_err(
        "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<i64>", const=False, **g
    ) == "slice_sizes.rank != 1 (got 0)"
    # gather_c20: the number of slice sizes (a static shape) against the operand rank
    assert dyn_gather_err(
        "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<3xi64>", const=False, **g
    ) == "slice_sizes size (3) not equal to operand rank (2)"
    # a dynamic number of slice sizes is not checked
    assert dyn_gather("tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<?xi64>", const=False, **g) == "tensor<4x?xf32>"
    # an unranked slice_sizes operand counts as rank 1 with an unknown count
    assert dyn_gather("tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<*xi64>", const=False, **g) == "tensor<4x?xf32>"
    # a constant of floats is no shape (upstream's matchInts): unknown sizes
    text = dyn_gather_text("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 3), **g).replace(
        "dense<[1, 3]> : tensor<2xi64>", "dense<[1.0, 3.0]> : tensor<2xf32>"
    ).replace("tensor<2xi64>", "tensor<2xf32>")
    assert inferred(text, "stablehlo.dynamic_gather") == ["tensor<4x?xf32>"]


# ---------------------------------------------------------------------------------------------
# in-process runs of upstream's pass programs
# ---------------------------------------------------------------------------------------------
PASS_FILES = [
    CONFORMANCE / "transforms" / "stablehlo_refine_shapes.mlir",
]


@pytest.mark.skipif(
    not all(p.is_file() for p in PASS_FILES), reason="../shared/conformance/transforms is absent"
)
@pytest.mark.parametrize("path", PASS_FILES, ids=lambda p: p.name)
def test_upstream_pass_file_in_process(path: Path, tmp_path: Path) -> None:
    (line,) = run_lines(path)
    report = run_chunks(path, line, tmp_path)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()


# ---------------------------------------------------------------------------------------------
# broadcast_in_dim, dynamic_broadcast_in_dim (upstream's verifyBroadcastInDimOp,
# verifyDynamicBroadcastInDimOp, verifyBroadcastInDimOpQuantConstraints)
# ---------------------------------------------------------------------------------------------
QT2 = "!quant.uniform<i8:f32, 2.0:1>"
QT2_TEXT = "!quant.uniform<i8:f32, 2.000000e+00:1>"


def qaxis(dim: int, *pairs: tuple[float, int]) -> str:
    return f"!quant.uniform<i8:f32:{dim}, {{" + ", ".join(f"{s}:{z}" for s, z in pairs) + "}>"


def test_broadcast_in_dim_errors() -> None:
    bid = DM.verify_broadcast_in_dim
    # broadcast_in_dim_c1 (per-tensor quantization)
    assert err(bid, ty(f"tensor<2x{QT2}>"), (0,), ty("tensor<2x!quant.uniform<i8:f32, 2.0:2>>")) == (
        f"expect same quantization scale and zero_point but got 'tensor<2x{QT2_TEXT}>' vs "
        "'tensor<2x!quant.uniform<i8:f32, 2.000000e+00:2>>'"
    )
    assert err(bid, ty(f"tensor<2x{QT2}>"), (0,), ty("tensor<2x!quant.uniform<i8:f32, 3.0:1>>")) == (
        f"expect same quantization scale and zero_point but got 'tensor<2x{QT2_TEXT}>' vs "
        "'tensor<2x!quant.uniform<i8:f32, 3.000000e+00:1>>'"
    )
    bid(ty(f"tensor<2x{QT2}>"), (0,), ty(f"tensor<2x{QT2}>"))
    # broadcast_in_dim_c2
    assert err(bid, ty("tensor<2x3xf32>"), (0,), ty("tensor<2x3xf32>")) == (
        "broadcast_dimensions size (1) does not match operand rank (2)"
    )
    assert err(bid, ty("tensor<2xf32>"), (0, 1), ty("tensor<2x3xf32>")) == (
        "broadcast_dimensions size (2) does not match operand rank (1)"
    )
    # broadcast_in_dim_c4
    assert err(bid, ty("tensor<1x1xf32>"), (1, 1), ty("tensor<2x3xf32>")) == (
        "broadcast_dimensions should not have duplicates"
    )
    # broadcast_in_dim_c3, at both ends
    assert err(bid, ty("tensor<1xf32>"), (2,), ty("tensor<2x3xf32>")) == (
        "broadcast_dimensions contains invalid value 2 for result with rank 2"
    )
    assert err(bid, ty("tensor<1xf32>"), (-1,), ty("tensor<2x3xf32>")) == (
        "broadcast_dimensions contains invalid value -1 for result with rank 2"
    )
    bid(ty("tensor<1xf32>"), (1,), ty("tensor<2x3xf32>"))
    bid(ty("tensor<1xf32>"), (0,), ty("tensor<2x3xf32>"))
    # broadcast_in_dim_c5: 1 or the result's size; a dynamic operand dim is not checked; a
    # static operand dim against a dynamic result dim is an error (upstream compares sizes)
    assert err(bid, ty("tensor<3x2xf32>"), (1, 0), ty("tensor<2x4xf32>")) == (
        "size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)"
    )
    assert err(bid, ty("tensor<3x2xf32>"), (0, 1), ty("tensor<3x4xf32>")) == (
        "size of operand dimension 1 (2) is not equal to 1 or size of result dimension 1 (4)"
    )
    assert err(bid, ty("tensor<3xf32>"), (0,), ty("tensor<?xf32>")) == (
        "size of operand dimension 0 (3) is not equal to 1 or size of result dimension 0 "
        "(-9223372036854775808)"
    )
    bid(ty("tensor<?x1xf32>"), (0, 1), ty("tensor<5x4xf32>"))
    bid(ty("tensor<1x3xf32>"), (0, 1), ty("tensor<?x3xf32>"))
    bid(ty("tensor<3x2xf32>"), (1, 0), ty("tensor<2x3xf32>"))


def test_broadcast_in_dim_per_axis_quantization() -> None:
    bid = DM.verify_broadcast_in_dim
    # broadcast_in_dim_c6: the result's quantized dimension is where the operand's goes
    op = ty(f"tensor<2x{qaxis(0, (2.0, 1), (3.0, 2))}>")
    assert err(bid, op, (1,), ty(f"tensor<4x2x{qaxis(0, (2.0, 1), (3.0, 2))}>")) == (
        "result quantization_dimension 0 not same as broadcast_dimensions[0] = 1"
    )
    bid(op, (1,), ty(f"tensor<4x2x{qaxis(1, (2.0, 1), (3.0, 2))}>"))
    op2 = ty(f"tensor<5x2x{qaxis(1, (2.0, 1), (3.0, 2))}>")
    assert err(bid, op2, (0, 2), ty(f"tensor<5x4x2x{qaxis(1, (2.0, 1), (3.0, 2))}>")) == (
        "result quantization_dimension 1 not same as broadcast_dimensions[1] = 2"
    )
    bid(op2, (0, 2), ty(f"tensor<5x4x2x{qaxis(2, (2.0, 1), (3.0, 2))}>"))
    # an operand quantized dimension of size 1 is broadcast: every result scale and zero point
    # must be the operand's
    one = ty(f"tensor<1x{qaxis(0, (2.0, 1))}>")
    bid(one, (0,), ty(f"tensor<3x{qaxis(0, (2.0, 1), (2.0, 1), (2.0, 1))}>"))
    assert err(bid, one, (0,), ty(f"tensor<3x{qaxis(0, (2.0, 1), (2.0, 1), (3.0, 1))}>")) == (
        "mismatch result scale 2 (3.000000e+00) and operand scale 0 (2.000000e+00)"
    )
    assert err(bid, one, (0,), ty(f"tensor<3x{qaxis(0, (5.0, 1), (2.0, 1), (2.0, 1))}>")) == (
        "mismatch result scale 0 (5.000000e+00) and operand scale 0 (2.000000e+00)"
    )
    assert err(bid, one, (0,), ty(f"tensor<3x{qaxis(0, (2.0, 1), (2.0, 7), (2.0, 1))}>")) == (
        "mismatch result zero_point 1 (7) and operand zero_point 0 (1)"
    )
    # the quantized dimension of size 1 in the middle of the operand
    mid = ty(f"tensor<4x1x{qaxis(1, (2.0, 1))}>")
    bid(mid, (0, 1), ty(f"tensor<4x2x{qaxis(1, (2.0, 1), (2.0, 1))}>"))
    assert err(bid, mid, (0, 1), ty(f"tensor<4x2x{qaxis(1, (2.0, 1), (2.5, 1))}>")) == (
        "mismatch result scale 1 (2.500000e+00) and operand scale 0 (2.000000e+00)"
    )
    # an operand quantized dimension larger than 1 is not compared scale by scale
    bid(op, (0,), ty(f"tensor<2x{qaxis(0, (7.0, 1), (8.0, 2))}>"))
    # a per-tensor result is not checked against a per-axis operand here
    bid(op, (0,), ty(f"tensor<2x{QT2}>"))


def dbid(operand, shape, dims, result, expanding=None, nonexpanding=None):  # type: ignore[no-untyped-def]
    return DM.verify_dynamic_broadcast_in_dim(
        ty(operand), shape, dims, expanding, nonexpanding, ty(result)
    )


def dbid_err(*a, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        dbid(*a, **kw)
    return e.value.message


def test_dynamic_broadcast_in_dim() -> None:
    # dynamic_broadcast_in_dim_c1
    assert dbid_err("tensor<2xf32>", None, (0,), "tensor<2xi32>") == (
        "expects operand and result to have compatible element type. Got: 'tensor<2xf32>' and "
        "'tensor<2xi32>'"
    )
    dbid(f"tensor<2x{QT2}>", None, (0,), "tensor<2xi8>")  # quantized: checked later
    dbid("tensor<2xi8>", None, (0,), f"tensor<2x{QT2}>")
    # dynamic_broadcast_in_dim_c2
    assert dbid_err("tensor<2x3xf32>", None, (0,), "tensor<2x3xf32>") == (
        "broadcast_dimensions size (1) does not match operand rank (2)"
    )
    # dynamic_broadcast_in_dim_c3
    assert dbid_err("tensor<2x3xf32>", None, (0, 1), "tensor<3xf32>") == (
        "result rank (1) is less than operand rank (2)"
    )
    dbid("tensor<2x3xf32>", None, (0, 1), "tensor<2x3xf32>")
    # dynamic_broadcast_in_dim_c4
    assert dbid_err("tensor<1x1xf32>", None, (0, 0), "tensor<2x3xf32>") == (
        "broadcast_dimensions should not have duplicates"
    )
    # dynamic_broadcast_in_dim_c5
    assert dbid_err("tensor<1xf32>", None, (2,), "tensor<2x3xf32>") == (
        "broadcast_dimensions contains invalid value 2 for result with rank 2"
    )
    assert dbid_err("tensor<1xf32>", None, (-1,), "tensor<2x3xf32>") == (
        "broadcast_dimensions contains invalid value -1 for result with rank 2"
    )
    dbid("tensor<1xf32>", None, (1,), "tensor<2x3xf32>")
    assert dbid_err("tensor<3x2xf32>", None, (0, 1), "tensor<3x4xf32>") == (
        "size of operand dimension 1 (2) is not compatible with size of result dimension 1 (4)"
    )
    assert dbid_err("tensor<?x2xf32>", None, (0, 1), "tensor<3x4xf32>") == (
        "size of operand dimension 1 (2) is not compatible with size of result dimension 1 (4)"
    )
    # dynamic sizes are compatible with anything
    dbid("tensor<?x2xf32>", None, (0, 1), "tensor<3x?xf32>")
    dbid("tensor<1x2xf32>", None, (0, 1), "tensor<3x2xf32>")
    # dynamic_broadcast_in_dim_c7: the shape operand's value against the result type
    assert dbid_err("tensor<1xf32>", (2, 4), (1,), "tensor<2x3xf32>") == (
        "output shape [2, 4] is incompatible with return type of operation 'tensor<2x3xf32>'"
    )
    assert dbid_err("tensor<1xf32>", (2,), (0,), "tensor<2x3xf32>") == (
        "output shape [2] is incompatible with return type of operation 'tensor<2x3xf32>'"
    )
    dbid("tensor<1xf32>", (2, 3), (1,), "tensor<2x?xf32>")
    # dynamic_broadcast_in_dim_c8
    assert dbid_err("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", (0,), (0,)) == (
        "duplicate expansion hint for at least one operand dimension"
    )
    assert dbid_err("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", (1, 1), None) == (
        "duplicate expansion hint for at least one operand dimension"
    )
    assert dbid_err("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", None, (0, 0)) == (
        "duplicate expansion hint for at least one operand dimension"
    )
    # dynamic_broadcast_in_dim_c9, dynamic_broadcast_in_dim_c10
    assert dbid_err("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", (2,), None) == (
        "hint for expanding dimension 2 does not refer to a valid operand dimension"
    )
    assert dbid_err("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", None, (-1,)) == (
        "hint for expanding dimension -1 does not refer to a valid operand dimension"
    )
    dbid("tensor<1x1xf32>", None, (0, 1), "tensor<2x3xf32>", (0,), (1,))
    # a static operand against the shape operand's value
    assert dbid_err("tensor<4x2xf32>", (3, 5, 2), (0, 2), "tensor<?x?x?xf32>") == (
        "size of operand dimension 0 (4) is not equal to 1 or value of shape at index 0 (3)"
    )
    assert dbid_err("tensor<3x4xf32>", (3, 5, 2), (0, 2), "tensor<?x?x?xf32>") == (
        "size of operand dimension 1 (4) is not equal to 1 or value of shape at index 2 (2)"
    )
    dbid("tensor<3x1xf32>", (3, 5, 2), (0, 2), "tensor<?x?x?xf32>")
    dbid("tensor<3x2xf32>", (3, 5, 2), (0, 2), "tensor<?x?x?xf32>")
    # a dynamic operand skips that check
    dbid("tensor<?x4xf32>", (3, 5, 2), (0, 2), "tensor<?x?x?xf32>")
    # unranked operand or result: nothing more to check
    dbid("tensor<*xf32>", (3,), (0, 2), "tensor<2xf32>")
    dbid("tensor<2xf32>", (3,), (0, 2), "tensor<*xf32>")


def test_dynamic_broadcast_in_dim_per_axis_quantization() -> None:
    op = f"tensor<1x{qaxis(0, (2.0, 1))}>"
    dbid(op, None, (1,), f"tensor<4x3x{qaxis(1, (2.0, 1), (2.0, 1), (2.0, 1))}>")
    assert dbid_err(op, None, (1,), f"tensor<4x3x{qaxis(0, (2.0, 1), (2.0, 1), (2.0, 1), (2.0, 1))}>") == (
        "result quantization_dimension 0 not same as broadcast_dimensions[0] = 1"
    )
    assert dbid_err(op, None, (1,), f"tensor<4x3x{qaxis(1, (2.0, 1), (2.0, 3), (2.0, 1))}>") == (
        "mismatch result zero_point 1 (3) and operand zero_point 0 (1)"
    )


# ---------------------------------------------------------------------------------------------
# reshape, dynamic_reshape and their quantization constraints
# ---------------------------------------------------------------------------------------------


def test_reshape() -> None:
    rs = DM.verify_reshape
    assert err(rs, ty("tensor<2x3xf32>"), ty("tensor<5xf32>")) == (
        "number of output elements (5) doesn't match expected number of elements (6)"
    )
    assert err(rs, ty("tensor<2x3x2xf32>"), ty("tensor<4x2xf32>")) == (
        "number of output elements (8) doesn't match expected number of elements (12)"
    )
    rs(ty("tensor<2x3xf32>"), ty("tensor<6xf32>"))
    rs(ty("tensor<2x3xf32>"), ty("tensor<3x1x2xf32>"))
    rs(ty("tensor<f32>"), ty("tensor<1x1xf32>"))
    # a dynamic side is not checked
    rs(ty("tensor<?x3xf32>"), ty("tensor<5xf32>"))
    rs(ty("tensor<2x3xf32>"), ty("tensor<?xf32>"))
    rs(ty("tensor<*xf32>"), ty("tensor<5xf32>"))
    rs(ty("tensor<5xf32>"), ty("tensor<*xf32>"))
    # reshape_c1: per-tensor quantization (only when the element counts agree)
    assert err(rs, ty(f"tensor<2x3x{QT2}>"), ty("tensor<6x!quant.uniform<i8:f32, 2.0:5>>")) == (
        f"expect same quantization scale and zero_point but got 'tensor<2x3x{QT2_TEXT}>' vs "
        "'tensor<6x!quant.uniform<i8:f32, 2.000000e+00:5>>'"
    )
    rs(ty("tensor<6xi8>"), ty(f"tensor<6x{QT2}>"))
    rs(ty(f"tensor<2x3x{QT2}>"), ty(f"tensor<6x{QT2}>"))


def test_reshape_quantization() -> None:
    rq = DM.verify_reshape_quantization
    # reshape_c1: per-axis scales and zero points
    a = f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"
    b = f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (4.0, 0))}>"
    c = f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 1))}>"
    assert err(rq, ty(a), ty(b)) == (
        "expect same quantization scales and zero_points but got "
        f"'{type_to_str(ty(a))}' vs '{type_to_str(ty(b))}'"
    )
    assert type_to_str(ty(a)) == (
        "tensor<2x3x!quant.uniform<i8:f32:1, {1.000000e+00,2.000000e+00,3.000000e+00}>>"
    )
    assert err(rq, ty(a), ty(c)).startswith("expect same quantization scales and zero_points but got ")
    # reshape_c3: the quantized dimension keeps its size ...
    d = f"tensor<3x2x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>"
    assert err(rq, ty(a), ty(f"tensor<6x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>")) == (
        "expect same quantization dimension size for operand and result "
        f"'{type_to_str(ty(a))}' and "
        "'tensor<6x!quant.uniform<i8:f32:0, {1.000000e+00,2.000000e+00,3.000000e+00}>>'"
    )
    # ... and the product of the dimensions before it
    assert err(rq, ty(a), ty(d)) == (
        "product of dimensions before quantization dimension must match between operand and "
        "result for 2 and 1"
    )
    rq(ty(a), ty(f"tensor<2x3x1x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(a), ty(f"tensor<1x2x3x{qaxis(2, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(a), ty(f"tensor<2x1x3x{qaxis(2, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    assert err(rq, ty(a), ty(f"tensor<1x2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>")).startswith(
        "expect same quantization dimension size for operand and result "
    )
    rq(
        ty(f"tensor<2x2x3x{qaxis(2, (1.0, 0), (2.0, 0), (3.0, 0))}>"),
        ty(f"tensor<1x4x3x{qaxis(2, (1.0, 0), (2.0, 0), (3.0, 0))}>"),
    )
    assert err(
        rq,
        ty(f"tensor<4x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"),
        ty(f"tensor<2x3x2x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"),
    ) == (
        "product of dimensions before quantization dimension must match between operand and "
        "result for 4 and 2"
    )
    # dynamic sizes: the dimension size check skips them, the product check needs static shapes
    rq(ty(f"tensor<?x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), ty(f"tensor<7x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(f"tensor<2x?x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), ty(f"tensor<6x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(a), ty(f"tensor<2x?x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(a), ty(f"tensor<?x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    # per-axis on one side only: nothing to compare
    rq(ty(a), ty(f"tensor<6x{QT2}>"))
    rq(ty(f"tensor<6x{QT2}>"), ty(a))
    rq(ty(a), ty("tensor<6xi8>"))


def dreshape(operand, shape_type, shape, result):  # type: ignore[no-untyped-def]
    return DM.verify_dynamic_reshape(ty(operand), ty(shape_type), shape, ty(result))


def dreshape_err(*a) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        dreshape(*a)
    return e.value.message


def test_dynamic_reshape() -> None:
    # dynamic_reshape_c1
    assert dreshape_err("tensor<6xf32>", "tensor<1xi64>", None, "tensor<6xi32>") == (
        "expects operand and result to have compatible element type. Got: 'tensor<6xf32>' and "
        "'tensor<6xi32>'"
    )
    # dynamic_reshape_c2
    assert dreshape_err("tensor<2x3xf32>", "tensor<1xi64>", None, "tensor<5xf32>") == (
        "number of output elements (5) doesn't match expected number of elements (6)"
    )
    dreshape("tensor<2x3xf32>", "tensor<1xi64>", None, "tensor<6xf32>")
    dreshape("tensor<?x3xf32>", "tensor<1xi64>", None, "tensor<5xf32>")
    dreshape("tensor<2x3xf32>", "tensor<1xi64>", None, "tensor<?xf32>")
    # dynamic_reshape_c4
    assert dreshape_err("tensor<2x3xf32>", "tensor<2xi64>", (3, 2), "tensor<2x3xf32>") == (
        "output shape [3, 2] is incompatible with return type of operation 'tensor<2x3xf32>'"
    )
    assert dreshape_err("tensor<?xf32>", "tensor<2xi64>", (-1, 2), "tensor<?x2xf32>") == (
        "output shape [-1, 2] is incompatible with return type of operation 'tensor<?x2xf32>'"
    )
    dreshape("tensor<?xf32>", "tensor<2xi64>", (3, 2), "tensor<?x2xf32>")
    # the shape operand's size is the result's rank
    assert dreshape_err("tensor<6xf32>", "tensor<2xi64>", None, "tensor<6xf32>") == (
        "result should have a rank equal to the number of elements in output_shape"
    )
    assert dreshape_err("tensor<6xf32>", "tensor<?xi64>", None, "tensor<6xf32>") == (
        "result should have a rank equal to the number of elements in output_shape"
    )
    dreshape("tensor<6xf32>", "tensor<1xi64>", None, "tensor<6xf32>")
    # the shape operand's value against a static operand
    assert dreshape_err("tensor<2x3xf32>", "tensor<2xi64>", (2, 2), "tensor<?x?xf32>") == (
        "output_shape is incompatible with input type of operation: input has 6 elements, but "
        "output_shape has 4"
    )
    assert dreshape_err("tensor<2x3xf32>", "tensor<3xi64>", (2, 2, 2), "tensor<?x?x?xf32>") == (
        "output_shape is incompatible with input type of operation: input has 6 elements, but "
        "output_shape has 8"
    )
    dreshape("tensor<2x3xf32>", "tensor<2xi64>", (3, 2), "tensor<?x?xf32>")
    dreshape("tensor<2x?xf32>", "tensor<2xi64>", (3, 5), "tensor<?x?xf32>")
    # quantized: element types are compared by the quantization checks
    a = f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"
    dreshape(a, "tensor<3xi64>", None, f"tensor<2x3x1x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>")
    assert dreshape_err(a, "tensor<1xi64>", None, f"tensor<6x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>").startswith(
        "expect same quantization dimension size for operand and result "
    )
    assert dreshape_err(f"tensor<6x{QT2}>", "tensor<2xi64>", None, "tensor<2x3x!quant.uniform<i8:f32, 2.0:3>>") == (
        f"expect same quantization scale and zero_point but got 'tensor<6x{QT2_TEXT}>' vs "
        "'tensor<2x3x!quant.uniform<i8:f32, 2.000000e+00:3>>'"
    )
    dreshape(f"tensor<6x{QT2}>", "tensor<2xi64>", None, "tensor<2x3xi8>")


# ---------------------------------------------------------------------------------------------
# reverse, transpose, iota, dynamic_iota, real_dynamic_slice, dynamic_pad
# ---------------------------------------------------------------------------------------------


def test_reverse() -> None:
    rv = DM.verify_reverse
    assert err(rv, ty("tensor<2x3xf32>"), (1, 0, 1)) == "dimensions should be unique. Got: 1, 0, 1"
    assert err(rv, ty("tensor<2x3xf32>"), (-1,)) == (
        "all dimensions should be non-negative. Got dimension: -1."
    )
    assert err(rv, ty("tensor<2x3xf32>"), (0, 2)) == (
        "all dimensions should be between [0, 2). Got dimension: 2."
    )
    rv(ty("tensor<2x3xf32>"), (1, 0))
    rv(ty("tensor<2x3xf32>"), ())
    rv(ty("tensor<*xf32>"), (5,))


def test_transpose_quantization() -> None:
    tr = DM.verify_transpose
    a = ty(f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>")
    tr(a, (1, 0), ty(f"tensor<3x2x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    assert err(tr, a, (1, 0), ty(f"tensor<3x2x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>")) == (
        "operand quantization_dimension 1 is not same as permutation[1] = 0"
    )
    b = ty(f"tensor<2x3x4x{qaxis(0, (1.0, 0), (2.0, 0))}>")
    assert err(tr, b, (1, 2, 0), ty(f"tensor<3x4x2x{qaxis(0, (1.0, 0), (2.0, 0))}>")) == (
        "operand quantization_dimension 0 is not same as permutation[0] = 1"
    )
    tr(b, (1, 2, 0), ty(f"tensor<3x4x2x{qaxis(2, (1.0, 0), (2.0, 0))}>"))
    # transpose_c1
    assert err(tr, a, (1, 0), ty(f"tensor<3x2x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 5))}>")).startswith(
        "expect same quantization scales and zero_points but got "
    )
    assert err(tr, ty(f"tensor<2x3x{QT2}>"), (1, 0), ty("tensor<3x2x!quant.uniform<i8:f32, 2.0:4>>")) == (
        f"expect same quantization scale and zero_point but got 'tensor<2x3x{QT2_TEXT}>' vs "
        "'tensor<3x2x!quant.uniform<i8:f32, 2.000000e+00:4>>'"
    )
    tr(ty(f"tensor<2x3x{QT2}>"), (1, 0), ty(f"tensor<3x2x{QT2}>"))
    tr(ty("tensor<2x3xf32>"), (1, 0), ty("tensor<3x2xf32>"))


def test_iota() -> None:
    assert err(DM.verify_iota, 0, ty("tensor<f32>")) == "does not support scalars."
    assert err(DM.verify_iota, 2, ty("tensor<2x3xf32>")) == (
        "iota dimension cannot go beyond the output rank."
    )
    DM.verify_iota(1, ty("tensor<2x3xf32>"))
    DM.verify_iota(0, ty("tensor<2xf32>"))
    DM.verify_iota(7, ty("tensor<*xf32>"))
    # dynamic_iota_c1, dynamic_iota_c2
    assert err(DM.verify_dynamic_iota, None, 1, ty("tensor<2xf32>")) == (
        "iota dimension cannot go beyond the output rank."
    )
    DM.verify_dynamic_iota(None, 0, ty("tensor<2xf32>"))
    DM.verify_dynamic_iota((2, 3), 1, ty("tensor<2x?xf32>"))
    assert err(DM.verify_dynamic_iota, (2, 4), 1, ty("tensor<2x3xf32>")) == (
        "output shape [2, 4] is incompatible with return type of operation 'tensor<2x3xf32>'"
    )
    DM.verify_dynamic_iota((2, 4), 5, ty("tensor<*xf32>"))


def test_shape_operand_compatible() -> None:
    ok = DM.verify_shape_operand_compatible
    ok((2, 3), ty("tensor<2x3xf32>"))
    ok((2, 3), ty("tensor<?x3xf32>"))
    ok((0,), ty("tensor<0xf32>"))
    ok((2, 3), ty("tensor<*xf32>"))
    ok(None, ty("tensor<2x3xf32>"))
    ok((2, 3), ty("tensor<2x?xf32, #stablehlo.bounds<?, 3>>"))
    assert err(ok, (2, 4), ty("tensor<2x?xf32, #stablehlo.bounds<?, 3>>")) == (
        "output shape [2, 4] is incompatible with return type of operation "
        "'tensor<2x?xf32, #stablehlo.bounds<?, 3>>'"
    )
    assert err(ok, (2,), ty("tensor<2x3xf32>")) == (
        "output shape [2] is incompatible with return type of operation 'tensor<2x3xf32>'"
    )
    assert err(ok, (-1, 3), ty("tensor<?x3xf32>")) == (
        "output shape [-1, 3] is incompatible with return type of operation 'tensor<?x3xf32>'"
    )
    assert err(ok, (2, -5), ty("tensor<2x?xf32>")) == (
        "output shape [2, -5] is incompatible with return type of operation 'tensor<2x?xf32>'"
    )


def test_real_dynamic_slice() -> None:
    rds = DM.verify_real_dynamic_slice
    t1, t2 = ty("tensor<1xi64>"), ty("tensor<2xi64>")
    rds(ty("tensor<2x3xf32>"), t2, t2, t2)
    assert err(rds, ty("tensor<2x3xf32>"), t1, t2, t2) == (
        "has mismatched number of operand rank (2) and start_indices size (1)"
    )
    assert err(rds, ty("tensor<2x3xf32>"), t2, ty("tensor<3xi64>"), t2) == (
        "has mismatched number of operand rank (2) and limit_indices size (3)"
    )
    assert err(rds, ty("tensor<2x3xf32>"), t2, t2, t1) == (
        "has mismatched number of operand rank (2) and strides size (1)"
    )
    # a 2-d index operand counts its elements; a dynamic one has upstream's kDynamic count
    rds(ty("tensor<2x3x1x1xf32>"), ty("tensor<2x2xi64>"), ty("tensor<4xi64>"), ty("tensor<4xi64>"))
    assert err(rds, ty("tensor<2x3xf32>"), ty("tensor<?xi64>"), t2, t2) == (
        "has mismatched number of operand rank (2) and start_indices size (-9223372036854775808)"
    )
    assert err(rds, ty("tensor<2x3xf32>"), t2, t2, ty("tensor<2x?xi64>")) == (
        "has mismatched number of operand rank (2) and strides size (-9223372036854775808)"
    )
    # a rank-0 operand with rank-0 (one element) index operands
    assert err(rds, ty("tensor<f32>"), ty("tensor<i64>"), ty("tensor<0xi64>"), ty("tensor<0xi64>")) == (
        "has mismatched number of operand rank (0) and start_indices size (1)"
    )
    rds(ty("tensor<*xf32>"), t1, t2, t2)
    rds(ty("tensor<2x3xf32>"), ty("tensor<*xi64>"), t2, t2)


def dpad(operand, low_type, low, high, interior, result):  # type: ignore[no-untyped-def]
    return DM.verify_dynamic_pad(ty(operand), ty(low_type), low, high, interior, ty(result))


def dpad_err(*a) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InferError) as e:
        dpad(*a)
    return e.value.message


def test_dynamic_pad() -> None:
    # dynamic_pad_c2
    assert dpad_err("tensor<2x3xf32>", "tensor<1xi64>", None, None, None, "tensor<?x?xf32>") == (
        "padding operands size (1) must match operand rank (2)"
    )
    assert dpad_err("tensor<2x3xf32>", "tensor<?xi64>", None, None, None, "tensor<?x?xf32>") == (
        "padding operands size (-9223372036854775808) must match operand rank (2)"
    )
    dpad("tensor<2x3xf32>", "tensor<2xi64>", None, None, None, "tensor<?x?xf32>")
    # dynamic_pad_c3
    assert dpad_err("tensor<2x3xf32>", "tensor<2xi64>", None, None, (0, -1), "tensor<?x?xf32>") == (
        "interior_padding must be non-negative, but got 0, -1"
    )
    dpad("tensor<2x3xf32>", "tensor<2xi64>", None, None, (0, 0), "tensor<?x?xf32>")
    # dynamic_pad_c4: in + low + max(in - 1, 0) * interior + high
    dpad("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), (0, 2), (0, 1), "tensor<3x7xf32>")
    assert dpad_err("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), (0, 2), (0, 1), "tensor<3x8xf32>") == (
        "expected output dimension at index 1 to equal 7, but got 8"
    )
    assert dpad_err("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), (0, 2), (2, 1), "tensor<3x7xf32>") == (
        "expected output dimension at index 0 to equal 5, but got 3"
    )
    assert dpad_err("tensor<4xf32>", "tensor<1xi64>", (-1,), (-2,), (3,), "tensor<4xf32>") == (
        "expected output dimension at index 0 to equal 10, but got 4"
    )
    dpad("tensor<0x1xf32>", "tensor<2xi64>", (1, 1), (1, 1), (5, 5), "tensor<2x3xf32>")
    # any dynamic size, or padding that is not a constant, is not checked
    dpad("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), (0, 2), (0, 1), "tensor<3x?xf32>")
    dpad("tensor<2x?xf32>", "tensor<2xi64>", (1, 0), (0, 2), (0, 1), "tensor<9x9xf32>")
    dpad("tensor<2x3xf32>", "tensor<2xi64>", None, (0, 2), (0, 1), "tensor<9x9xf32>")
    dpad("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), None, (0, 1), "tensor<9x9xf32>")
    dpad("tensor<2x3xf32>", "tensor<2xi64>", (1, 0), (0, 2), None, "tensor<9x9xf32>")
    dpad("tensor<*xf32>", "tensor<5xi64>", (1,), (1,), (-1,), "tensor<9x9xf32>")


# ---------------------------------------------------------------------------------------------
# scatter (upstream's verifyScatterOp, validateScatterDimensionNumbers, inferScatterOp)
# ---------------------------------------------------------------------------------------------


def scatter_text(o, i, u, uwd=(), iwd=(), ibd=(), sibd=(), sdod=(), ivd=0, n=1, results=None, body=None):  # type: ignore[no-untyped-def]
    """A scatter of `n` inputs of type `o` (or the list `o`) with updates `u` (or the list)."""
    os_ = list(o) if isinstance(o, (list, tuple)) else [o] * n
    us = list(u) if isinstance(u, (list, tuple)) else [u] * n
    n = len(os_)
    parts = [f"update_window_dims = [{_l(uwd)}]", f"inserted_window_dims = [{_l(iwd)}]"]
    if ibd:
        parts.append(f"input_batching_dims = [{_l(ibd)}]")
    if sibd:
        parts.append(f"scatter_indices_batching_dims = [{_l(sibd)}]")
    parts += [f"scatter_dims_to_operand_dims = [{_l(sdod)}]", f"index_vector_dim = {ivd}"]
    dn = "#stablehlo.scatter<" + ", ".join(parts) + ">"
    args = [f"%o{k}: {t}" for k, t in enumerate(os_)] + [f"%i: {i}"]
    args += [f"%u{k}: {t}" for k, t in enumerate(us)]
    operands = [f"%o{k}" for k in range(n)] + ["%i"] + [f"%u{k}" for k in range(n)]
    elems = []
    for t in os_:
        inner = t[len("tensor<") : -1].split("x")[-1] if "quant" not in t else t.split("x", t.count("x"))[-1][:-1]
        elems.append(inner)
    if body is None:
        bargs = ", ".join(f"%x{k}: tensor<{e}>" for k, e in enumerate(elems))
        bargs += ", " + ", ".join(f"%y{k}: tensor<{e}>" for k, e in enumerate(elems))
        rets = ", ".join(f"%y{k}" for k in range(n))
        rtys = ", ".join(f"tensor<{e}>" for e in elems)
        body = f"    ^bb0({bargs}):\n      stablehlo.return {rets} : {rtys}\n"
    res = results if results is not None else os_
    return (
        f"func.func @f({', '.join(args)}) {{\n"
        f'  %r:{n} = "stablehlo.scatter"({", ".join(operands)}) <{{scatter_dimension_numbers = {dn}}}> ({{\n'
        f"{body}  }}) : ({', '.join(os_ + [i] + us)}) -> ({', '.join(res)})\n"
        "  return\n}"
    )


SGOOD = dict(o="tensor<5x3xf32>", i="tensor<4x1xi32>", u="tensor<4x3xf32>", uwd=(1,), iwd=(0,), sdod=(0,), ivd=1)


def _s(**kw):  # type: ignore[no-untyped-def]
    args = dict(SGOOD)
    args.update(kw)
    return args


def test_scatter_good_cases() -> None:
    verifies(scatter_text(**_s()))
    # two inputs
    verifies(scatter_text(**_s(n=2)))
    # an implied index vector dimension
    verifies(scatter_text(**_s(i="tensor<4xi32>")))
    # update window dims equal to the operand's (and smaller), dynamic sizes anywhere
    verifies(scatter_text(**_s(u="tensor<4x2xf32>")))
    verifies(scatter_text(**_s(o="tensor<?x?xf32>", i="tensor<?x?xi32>", u="tensor<?x?xf32>")))
    verifies(scatter_text(**_s(o="tensor<5x?xf32>", u="tensor<4x9xf32>")))
    verifies(scatter_text(**_s(u="tensor<?x3xf32>")))
    # batching dims
    verifies(
        scatter_text(
            o="tensor<3x5x7xf32>",
            i="tensor<3x4x1xi32>",
            u="tensor<3x4x7xf32>",
            uwd=(2,),
            iwd=(1,),
            ibd=(0,),
            sibd=(0,),
            sdod=(1,),
            ivd=2,
        )
    )
    verifies(
        scatter_text(
            o="tensor<5x3x7xf32>",
            i="tensor<4x3x1xi32>",
            u="tensor<4x3x7xf32>",
            uwd=(2,),
            iwd=(0,),
            ibd=(1,),
            sibd=(1,),
            sdod=(0,),
            ivd=2,
        )
    )
    # the index vector dim first
    verifies(scatter_text(**_s(i="tensor<1x4xi32>", ivd=0)))
    # no inserted window dims
    verifies(scatter_text(**_s(iwd=(), uwd=(1, 2), u="tensor<4x5x3xf32>")))
    verifies(scatter_text(**_s(iwd=(), uwd=(1, 2), u="tensor<4x2x1xf32>")))


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        # scatter_c1, scatter_c3
        (dict(o=["tensor<5x3xf32>", "tensor<5x4xf32>"], u=["tensor<4x3xf32>", "tensor<4x3xf32>"]), "Not all inputs have compatible shapes."),
        (dict(o=["tensor<5x3xf32>", "tensor<5x3x1xf32>"], u=["tensor<4x3xf32>", "tensor<4x3xf32>"]), "Not all inputs have compatible shapes."),
        (dict(o=["tensor<5x3xf32>", "tensor<5x3xf32>"], u=["tensor<4x3xf32>", "tensor<4x2xf32>"]), "Not all updates have compatible shapes."),
        (dict(o=["tensor<5x3xf32>", "tensor<5x3xf32>"], u=["tensor<4x3xf32>", "tensor<4x3x1xf32>"]), "Not all updates have compatible shapes."),
        # scatter_c22
        (dict(ivd=3), "Expects index_vector_dim to be in range [0, rank-of('scatter_indices')] i.e. [0, 2]. got: 3."),
        (dict(ivd=-1), "Expects index_vector_dim to be in range [0, rank-of('scatter_indices')] i.e. [0, 2]. got: -1."),
        # scatter_c4 (ranks)
        (
            dict(u="tensor<4x3x1xf32>"),
            "expects updates tensor must be of rank 2 ( == rank-of('scatter_indices') - 1 + "
            "size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 "
            "dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got 3.",
        ),
        (
            dict(i="tensor<4x1xi32>", ivd=2, sdod=(0,), u="tensor<4x3xf32>"),
            "expects updates tensor must be of rank 3 ( == rank-of('scatter_indices') - 1 + "
            "size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 "
            "dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got 2.",
        ),
        (
            dict(o=["tensor<5x3xf32>", "tensor<5x3xf32>"], u=["tensor<4x3xf32>", "tensor<4x?xf32>"], i="tensor<4x1x1xi32>", ivd=2),
            "expects updates tensor must be of rank 3 ( == rank-of('scatter_indices') - 1 + "
            "size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 "
            "dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got 2.",
        ),
        # scatter_c2
        (
            dict(o="tensor<5x3x2xf32>"),
            "Expects rank-of operand to match size-of('update_window_dims') + "
            "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. 2 but got 3.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(0,), u="tensor<4x3xf32>", i="tensor<4x1xi32>", iwd=(0,), uwd=(1,)),
            "input_batching_dims[0] and scatter_indices_batching_dims[0] must have compatible sizes, "
            "but got 2 and 4.",
        ),
        (
            dict(o="tensor<5x3x2x7xf32>", ibd=(2,), sibd=(0,)),
            "Expects rank-of operand to match size-of('update_window_dims') + "
            "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. 3 but got 4.",
        ),
        # scatter_c7
        (dict(o="tensor<5x3x2xf32>", u="tensor<4x3x2xf32>", uwd=(2, 1)), "Expects update_window_dims to be sorted; got: [2, 1]."),
        (dict(o="tensor<5x3x2xf32>", u="tensor<4x3x2xf32>", uwd=(1, 1)), "Expects update_window_dims to not repeat; got: [1, 1]."),
        # scatter_c8
        (
            dict(o="tensor<5x3x2xf32>", u="tensor<4x3x2xf32>", uwd=(1, 3)),
            "Expects each element of update_window_dims to be in range [0, rank-of('updates')) i.e. [0, 3). got: 3.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", u="tensor<4x3x2xf32>", uwd=(-1, 1)),
            "Expects each element of update_window_dims to be in range [0, rank-of('updates')) i.e. [0, 3). got: -1.",
        ),
        # scatter_c9
        (
            dict(o="tensor<5x3x2xf32>", iwd=(0,), ibd=(0,), sibd=(0,)),
            "has duplicated dimension from inserted_window_dims and input_batching_dims: 0",
        ),
        # scatter_c10
        (dict(o="tensor<5x3x2xf32>", iwd=(1, 0)), "Expects inserted_window_dims to be sorted; got: [1, 0]."),
        # scatter_c11
        (
            dict(iwd=(2,)),
            "Expects each element of inserted_window_dims to be in range [0, rank-of('operand')) i.e. [0, 2). got: 2.",
        ),
        (
            dict(iwd=(-1,)),
            "Expects each element of inserted_window_dims to be in range [0, rank-of('operand')) i.e. [0, 2). got: -1.",
        ),
        # scatter_c12
        (
            dict(o="tensor<5x3x2x2xf32>", ibd=(2, 1), sibd=(0, 0), i="tensor<4x1xi32>"),
            "Expects input_batching_dims to be sorted; got: [2, 1].",
        ),
        # scatter_c13
        (
            dict(o="tensor<5x3x2xf32>", ibd=(3,), sibd=(0,)),
            "Expects each element of input_batching_dims to be in range [0, rank-of('operand')) i.e. [0, 3). got: 3.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ibd=(-1,), sibd=(0,)),
            "Expects each element of input_batching_dims to be in range [0, rank-of('operand')) i.e. [0, 3). got: -1.",
        ),
        # scatter_c14
        (
            dict(o="tensor<5x3x2x2xf32>", ibd=(2, 3), sibd=(0, 0)),
            "Expects scatter_indices_batching_dims to not repeat; got: [0, 0].",
        ),
        # scatter_c15 (against the expanded scatter_indices)
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(2,)),
            "Expects each element of scatter_indices_batching_dims to be in range [0, "
            "rank-of('scatter_indices')) i.e. [0, 2). got: 2.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(-1,)),
            "Expects each element of scatter_indices_batching_dims to be in range [0, "
            "rank-of('scatter_indices')) i.e. [0, 2). got: -1.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(1,), i="tensor<4xi32>"),
            "expects scatter_indices_batching_dims not to include index_vector_dim 1.",
        ),
        # scatter_c16
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(1,)),
            "expects scatter_indices_batching_dims not to include index_vector_dim 1.",
        ),
        # scatter_c17
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,)),
            "input_batching_dims and scatter_indices_batching_dims should have the same size.",
        ),
        (dict(sibd=(0,)), "input_batching_dims and scatter_indices_batching_dims should have the same size."),
        # scatter_c18
        (
            dict(
                o="tensor<5x3x4x7xf32>",
                i="tensor<4x6x1xi32>",
                u="tensor<4x6x3xf32>",
                uwd=(2,),
                ibd=(2, 3),
                sibd=(0, 1),
                ivd=2,
            ),
            "input_batching_dims[1] and scatter_indices_batching_dims[1] must have compatible sizes, "
            "but got 7 and 6.",
        ),
        # scatter_c19
        (
            dict(i="tensor<4x2xi32>"),
            "Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound of dimension "
            "index_vector_dim=1 of scatter_indices is 2. These two numbers must be equal.",
        ),
        (
            dict(i="tensor<4xi32>", sdod=(0, 1)),
            "Scatter op has 2 elements in scatter_dims_to_operand_dims and the bound of dimension "
            "index_vector_dim=1 of scatter_indices is 1. These two numbers must be equal.",
        ),
        # scatter_c20
        (
            dict(o="tensor<5x3x2xf32>", ibd=(2,), sibd=(0,), sdod=(2,), i="tensor<2x1xi32>", u="tensor<2x3xf32>"),
            "has duplicated dimension from scatter_dims_to_operand_dims and input_batching_dims: 2",
        ),
        # scatter_c21
        (
            dict(sdod=(2,)),
            "Expects each element of scatter_dims_to_operand_dims to be in range [0, rank-of('operand')) i.e. [0, 2). got: 2.",
        ),
        (
            dict(sdod=(-1,)),
            "Expects each element of scatter_dims_to_operand_dims to be in range [0, rank-of('operand')) i.e. [0, 2). got: -1.",
        ),
        # scatter_c4 (bounds)
        (
            dict(u="tensor<4x4xf32>"),
            "expects bounds of the window dimensions of updates to not exceed the bounds of the "
            "corresponding dimensions of operand. For dimension 1, updates bound is 4, operand bound is 3.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", u="tensor<4x3x3xf32>", uwd=(1, 2)),
            "expects bounds of the window dimensions of updates to not exceed the bounds of the "
            "corresponding dimensions of operand. For dimension 2, updates bound is 3, operand bound is 2.",
        ),
        (
            dict(o="tensor<5x3x2xf32>", u="tensor<6x2x4xf32>", uwd=(0, 1), iwd=(1,), i="tensor<1x4xi32>", ivd=0, sdod=(1,)),
            "expects bounds of the window dimensions of updates to not exceed the bounds of the "
            "corresponding dimensions of operand. For dimension 0, updates bound is 6, operand bound is 5.",
        ),
        (
            dict(u="tensor<5x3xf32>"),
            "expects bounds of the scatter dimensions of updates to be same as the bounds of the "
            "corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 5 "
            ", scatter_indices bound is 4.",
        ),
        (
            dict(i="tensor<1x4xi32>", ivd=0, u="tensor<5x3xf32>"),
            "expects bounds of the scatter dimensions of updates to be same as the bounds of the "
            "corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 5 "
            ", scatter_indices bound is 4.",
        ),
        (
            dict(i="tensor<4x1x6xi32>", ivd=1, u="tensor<4x7x3xf32>", uwd=(2,)),
            "expects bounds of the scatter dimensions of updates to be same as the bounds of the "
            "corresponding dimensions of scatter indices. For scatter dimension 1, updates bound is 7 "
            ", scatter_indices bound is 6.",
        ),
        (
            dict(u="tensor<3x5xf32>", uwd=(0,)),
            "expects bounds of the scatter dimensions of updates to be same as the bounds of the "
            "corresponding dimensions of scatter indices. For scatter dimension 1, updates bound is 5 "
            ", scatter_indices bound is 4.",
        ),
    ],
)
def test_scatter_errors(kw, msg) -> None:  # type: ignore[no-untyped-def]
    assert verify_error(scatter_text(**_s(**kw))) == msg


# ---------------------------------------------------------------------------------------------
# the inferred ops through their helpers: bounds, encodings, constants, element types
# ---------------------------------------------------------------------------------------------


def prog(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}"


def inf(args: str, body: str, name: str) -> str:
    (t,) = inferred(prog(args, body), name)
    return t


def inf_err(args: str, body: str, name: str) -> str:
    return infer_error(prog(args, body), name)


def concat(*types: str, dim: int = 0) -> str:
    args = ", ".join(f"%a{k}: {t}" for k, t in enumerate(types))
    ops = ", ".join(f"%a{k}" for k in range(len(types)))
    body = (
        f'  %0 = "stablehlo.concatenate"({ops}) <{{dimension = {dim} : i64}}> : '
        f"({', '.join(types)}) -> tensor<*xf32>"
    )
    return inf(args, body, "stablehlo.concatenate")


@pytest.mark.parametrize(
    ("types", "dim", "want"),
    [
        (("tensor<2xf32>", "tensor<3xf32>"), 0, "tensor<5xf32>"),
        (("tensor<0xf32>", "tensor<3xf32>"), 0, "tensor<3xf32>"),
        (("tensor<2x4xf32>", "tensor<2x3xf32>"), 1, "tensor<2x7xf32>"),
        # upstream's inferConcatenatedDimAndBound: a dynamic size with a bound adds the bound
        (("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<3xf32>"), 0, "tensor<?xf32, #stablehlo.bounds<7>>"),
        (("tensor<3xf32>", "tensor<?xf32, #stablehlo.bounds<4>>"), 0, "tensor<?xf32, #stablehlo.bounds<7>>"),
        (
            ("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32, #stablehlo.bounds<5>>"),
            0,
            "tensor<?xf32, #stablehlo.bounds<9>>",
        ),
        (
            ("tensor<2xf32>", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<3xf32>"),
            0,
            "tensor<?xf32, #stablehlo.bounds<9>>",
        ),
        # ... and a dynamic size without one makes the result unbounded
        (("tensor<?xf32>", "tensor<?xf32, #stablehlo.bounds<5>>"), 0, "tensor<?xf32>"),
        (("tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32>"), 0, "tensor<?xf32>"),
        (("tensor<?xf32>", "tensor<3xf32>"), 0, "tensor<?xf32>"),
        (("tensor<3xf32>", "tensor<?xf32>"), 0, "tensor<?xf32>"),
        # the other dimensions take the most specific size and bound
        (("tensor<?x2xf32>", "tensor<3x2xf32>"), 1, "tensor<3x4xf32>"),
        (("tensor<2x?xf32>", "tensor<2x?xf32>"), 0, "tensor<4x?xf32>"),
        (
            ("tensor<?x2xf32, #stablehlo.bounds<6, ?>>", "tensor<?x3xf32>"),
            1,
            "tensor<?x5xf32, #stablehlo.bounds<6, ?>>",
        ),
        (
            ("tensor<2x?xf32, #stablehlo.bounds<?, 3>>", "tensor<2x1xf32>"),
            1,
            "tensor<2x?xf32, #stablehlo.bounds<?, 4>>",
        ),
    ],
)
def test_concatenate_sizes_and_bounds(types, dim, want) -> None:  # type: ignore[no-untyped-def]
    assert concat(*types, dim=dim) == want


def test_concatenate_errors() -> None:
    def c_err(*types: str, dim: int = 0) -> str:
        args = ", ".join(f"%a{k}: {t}" for k, t in enumerate(types))
        ops = ", ".join(f"%a{k}" for k in range(len(types)))
        body = (
            f'  %0 = "stablehlo.concatenate"({ops}) <{{dimension = {dim} : i64}}> : '
            f"({', '.join(types)}) -> tensor<*xf32>"
        )
        return inf_err(args, body, "stablehlo.concatenate")

    assert c_err("tensor<2x3xf32>", "tensor<2x4xf32>", dim=0) == (
        "shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)"
    )
    assert c_err("tensor<2x3xf32>", "tensor<1x3xf32>", "tensor<2x4xf32>", dim=0) == (
        "shapes of operand (0) and (2) are not compatible at non-concat index 1: (2, 3) != (2, 4)"
    )
    assert c_err("tensor<2x3xf32>", "tensor<2xf32>", dim=0) == "operands (0) and (1) do not match rank"
    assert c_err("tensor<2xf32>", "tensor<2xf32>", dim=1) == "dimension 1 is out-of-bounds for input rank 1"
    assert c_err("tensor<f32>", "tensor<f32>", dim=0) == "rank-0 values cannot be concatenated"


def sds(t: str, size: str, dim: int, const: bool = True) -> str:
    """set_dimension_size of an operand of type `t` to a constant `size` (or an argument)."""
    args = f"%a: {t}, %z: tensor<i32>"
    line = f"  %s = stablehlo.constant dense<{size}> : tensor<i32>\n" if const else ""
    s = "%s" if const else "%z"
    body = line + (
        f'  %0 = "stablehlo.set_dimension_size"(%a, {s}) <{{dimension = {dim} : i64}}> : '
        f"({t}, tensor<i32>) -> tensor<*xf32>"
    )
    return inf(args, body, "stablehlo.set_dimension_size")


def test_set_dimension_size() -> None:
    # a static size becomes the bound, unless the new size is a constant equal to it
    assert sds("tensor<4x3xf32>", "2", 0) == "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"
    assert sds("tensor<4x3xf32>", "4", 0) == "tensor<4x3xf32>"
    assert sds("tensor<4x3xf32>", "3", 1) == "tensor<4x3xf32>"
    assert sds("tensor<4x3xf32>", "4", 0, const=False) == "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"
    assert sds("tensor<4x3xf32>", "2", 1) == "tensor<4x?xf32, #stablehlo.bounds<?, 3>>"
    # a dynamic size keeps its bound (or none)
    assert sds("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "5", 0) == "tensor<5x3xf32>"
    assert sds("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "2", 0) == "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
    assert sds("tensor<?x3xf32>", "2", 0) == "tensor<?x3xf32>"
    assert sds("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "3", 1) == (
        "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
    )
    assert sds("tensor<?x3xf32, #stablehlo.bounds<5, ?>>", "2", 1) == (
        "tensor<?x?xf32, #stablehlo.bounds<5, 3>>"
    )


def test_set_and_get_dimension_size_errors() -> None:
    args = "%a: tensor<4x3xf32>, %z: tensor<1xi32>, %y: tensor<i32>"

    def sds_err(dim: int, size: str = "%y", st: str = "tensor<i32>") -> str:
        body = (
            f'  %0 = "stablehlo.set_dimension_size"(%a, {size}) <{{dimension = {dim} : i64}}> : '
            f"(tensor<4x3xf32>, {st}) -> tensor<*xf32>"
        )
        return inf_err(args, body, "stablehlo.set_dimension_size")

    assert sds_err(0, "%z", "tensor<1xi32>") == "size operand should be of rank-0"
    assert sds_err(2) == "requires dimension attribute in range [0, 2); found (2)"
    assert sds_err(-1) == "requires non-negative dimension attribute; found (-1)"

    def gds(dim: int, t: str = "tensor<4x3xf32>") -> str:
        body = f'  %0 = "stablehlo.get_dimension_size"(%a) <{{dimension = {dim} : i64}}> : ({t}) -> tensor<i32>'
        return prog(f"%a: {t}", body)

    assert inferred(gds(1), "stablehlo.get_dimension_size") == ["tensor<i32>"]
    assert inferred(gds(0), "stablehlo.get_dimension_size") == ["tensor<i32>"]
    assert infer_error(gds(2), "stablehlo.get_dimension_size") == (
        "requires dimension attribute in range [0, 2); found (2)"
    )
    assert infer_error(gds(-1), "stablehlo.get_dimension_size") == (
        "requires non-negative dimension attribute; found (-1)"
    )
    assert inferred(gds(5, "tensor<*xf32>"), "stablehlo.get_dimension_size") == ["tensor<i32>"]


def pad(t: str, low, high, interior) -> str:  # type: ignore[no-untyped-def]
    body = (
        f"  %p = stablehlo.constant dense<0.0> : tensor<f32>\n"
        f'  %0 = "stablehlo.pad"(%a, %p) <{{edge_padding_low = array<i64: {_l(low)}>, '
        f"edge_padding_high = array<i64: {_l(high)}>, interior_padding = array<i64: {_l(interior)}>}}> : "
        f"({t}, tensor<f32>) -> tensor<*xf32>"
    )
    return prog(f"%a: {t}", body)


def test_pad_sizes_bounds_and_encodings() -> None:
    def p(*a) -> str:  # type: ignore[no-untyped-def]
        (t,) = inferred(pad(*a), "stablehlo.pad")
        return t

    assert p("tensor<2x3xf32>", (1, 0), (0, 2), (0, 1)) == "tensor<3x7xf32>"
    assert p("tensor<0xf32>", (1,), (1,), (4,)) == "tensor<2xf32>"
    assert p("tensor<4xf32>", (-1,), (-2,), (0,)) == "tensor<1xf32>"
    # a bounded dynamic size pads its bound; an unbounded one stays unbounded
    assert p("tensor<?x3xf32, #stablehlo.bounds<4, ?>>", (1, 0), (1, 0), (1, 0)) == (
        "tensor<?x3xf32, #stablehlo.bounds<9, ?>>"
    )
    assert p("tensor<?x3xf32>", (1, 0), (1, 0), (1, 0)) == "tensor<?x3xf32>"
    assert infer_error(pad("tensor<2xf32>", (-3,), (0,), (0,)), "stablehlo.pad") == (
        "Padding result in negative size for dimension 0"
    )
    assert infer_error(pad("tensor<?xf32, #stablehlo.bounds<2>>", (-3,), (0,), (0,)), "stablehlo.pad") == (
        "Padding result in negative bound for dimension 0"
    )
    assert infer_error(pad("tensor<2xf32>", (0,), (0,), (-1,)), "stablehlo.pad") == (
        "Interior padding cannot be negative: -1"
    )
    assert infer_error(pad("tensor<2x2xf32>", (0,), (0,), (0,)), "stablehlo.pad") == (
        "edge_padding_low length (1) must match operand rank (2)"
    )


def test_slice_transpose_reverse_results() -> None:
    def sl(t: str, start, limit, strides) -> str:  # type: ignore[no-untyped-def]
        return prog(
            f"%a: {t}",
            f'  %0 = "stablehlo.slice"(%a) <{{start_indices = array<i64: {_l(start)}>, '
            f"limit_indices = array<i64: {_l(limit)}>, strides = array<i64: {_l(strides)}>}}> : "
            f"({t}) -> tensor<*xf32>",
        )

    assert inferred(sl("tensor<7x4xf32>", (1, 0), (7, 4), (2, 3)), "stablehlo.slice") == ["tensor<3x2xf32>"]
    # a bounded operand: the limit is checked against the bound, and the result has no bounds
    assert inferred(
        sl("tensor<?x4xf32, #stablehlo.bounds<8, ?>>", (1, 0), (7, 4), (2, 3)), "stablehlo.slice"
    ) == ["tensor<3x2xf32>"]
    assert infer_error(
        sl("tensor<?x4xf32, #stablehlo.bounds<6, ?>>", (1, 0), (7, 4), (2, 3)), "stablehlo.slice"
    ) == "limit index 7 is larger than dimension bound 6 in dimension 0"
    assert infer_error(sl("tensor<7x4xf32>", (1, 0), (7, 5), (2, 3)), "stablehlo.slice") == (
        "limit index 5 is larger than dimension size 4 in dimension 1"
    )

    def tr(t: str, perm) -> str:  # type: ignore[no-untyped-def]
        return prog(
            f"%a: {t}",
            f'  %0 = "stablehlo.transpose"(%a) <{{permutation = array<i64: {_l(perm)}>}}> : ({t}) -> tensor<*xf32>',
        )

    assert inferred(tr("tensor<2x?x4xf32, #stablehlo.bounds<?, 3, ?>>", (1, 2, 0)), "stablehlo.transpose") == [
        "tensor<?x4x2xf32, #stablehlo.bounds<3, ?, ?>>"
    ]
    assert inferred(tr("tensor<2x?x4xf32>", (2, 0, 1)), "stablehlo.transpose") == ["tensor<4x2x?xf32>"]


def test_dynamic_slice_and_update_slice() -> None:
    args = "%a: tensor<?x4xf32, #stablehlo.bounds<6, ?>>, %u: tensor<2x3xf32>, %i: tensor<i32>, %j: tensor<i64>"
    ot = "tensor<?x4xf32, #stablehlo.bounds<6, ?>>"
    body = (
        f'  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : ({ot}, tensor<2x3xf32>, '
        "tensor<i32>, tensor<i32>) -> tensor<*xf32>"
    )
    # the result is the operand's type, encoding included
    assert inf(args, body, "stablehlo.dynamic_update_slice") == ot
    body2 = body.replace("%i, %i)", "%i, %j)").replace("tensor<i32>, tensor<i32>)", "tensor<i32>, tensor<i64>)")
    assert inf_err(args, body2, "stablehlo.dynamic_update_slice") == "start indices must have same element type"
    ds = (
        f'  %0 = "stablehlo.dynamic_slice"(%a, %i, %j) <{{slice_sizes = array<i64: 2, 4>}}> : '
        f"({ot}, tensor<i32>, tensor<i64>) -> tensor<*xf32>"
    )
    assert inf_err(args, ds, "stablehlo.dynamic_slice") == "start indices must have same element type"
    ds_ok = ds.replace("%i, %j)", "%i, %i)").replace("tensor<i32>, tensor<i64>)", "tensor<i32>, tensor<i32>)")
    assert inf(args, ds_ok, "stablehlo.dynamic_slice") == "tensor<2x4xf32>"


def test_select_clamp_complex() -> None:
    def sel(p: str, a: str, b: str) -> str:
        return prog(
            f"%p: {p}, %a: {a}, %b: {b}",
            f'  %0 = "stablehlo.select"(%p, %a, %b) : ({p}, {a}, {b}) -> tensor<*xf32>',
        )

    assert inferred(sel("tensor<i1>", "tensor<2x?xf32>", "tensor<?x3xf32>"), "stablehlo.select") == ["tensor<2x3xf32>"]
    assert inferred(sel("tensor<2x3xi1>", "tensor<2x?xf32>", "tensor<?x3xf32>"), "stablehlo.select") == ["tensor<2x3xf32>"]
    assert infer_error(sel("tensor<i1>", "tensor<2x3xf32>", "tensor<2x3xf16>"), "stablehlo.select") == (
        "requires compatible types for non-predicate operands"
    )
    assert infer_error(sel("tensor<i1>", "tensor<2x3xf32>", "tensor<2x4xf32>"), "stablehlo.select") == (
        "requires compatible types for non-predicate operands"
    )
    assert infer_error(sel("tensor<i1>", "tensor<2x3xf32>", "tensor<2x3x1xf32>"), "stablehlo.select") == (
        "requires compatible types for non-predicate operands"
    )
    assert infer_error(sel("tensor<3xi1>", "tensor<2x3xf32>", "tensor<2x3xf32>"), "stablehlo.select") == (
        "requires the same shape for all operands"
    )
    assert infer_error(sel("tensor<2x2xi1>", "tensor<2x3xf32>", "tensor<2x3xf32>"), "stablehlo.select") == (
        "requires the same shape for all operands"
    )

    def clamp(a: str, b: str, c: str) -> str:
        return prog(
            f"%a: {a}, %b: {b}, %c: {c}",
            f'  %0 = "stablehlo.clamp"(%a, %b, %c) : ({a}, {b}, {c}) -> tensor<*xf32>',
        )

    assert inferred(clamp("tensor<f32>", "tensor<?x3xf32, #stablehlo.bounds<4, ?>>", "tensor<2x3xf32>"), "stablehlo.clamp") == [
        "tensor<?x3xf32>"
    ]
    assert infer_error(clamp("tensor<2xf32>", "tensor<?x3xf32>", "tensor<f32>"), "stablehlo.clamp") == (
        "min shape [2] is not scalar and is not compatible to operand shape [-9223372036854775808, 3]"
    )
    assert infer_error(clamp("tensor<f32>", "tensor<2x3xf32>", "tensor<2x4xf32>"), "stablehlo.clamp") == (
        "max shape [2, 4] is not scalar and is not compatible to operand shape [2, 3]"
    )

    def cplx(t: str) -> str:
        return prog(
            f"%a: {t}, %b: {t}",
            f'  %0 = "stablehlo.complex"(%a, %b) : ({t}, {t}) -> tensor<*xcomplex<f32>>',
        )

    assert inferred(cplx("tensor<?x3xf64, #stablehlo.bounds<5, ?>>"), "stablehlo.complex") == [
        "tensor<?x3xcomplex<f64>, #stablehlo.bounds<5, ?>>"
    ]
    assert inferred(cplx("tensor<*xf32>"), "stablehlo.complex") == ["tensor<*xcomplex<f32>>"]


def test_scatter_result_types() -> None:
    # the inputs' shapes with the update computation's element types
    body = (
        "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
        "      %c = stablehlo.convert %y : (tensor<f32>) -> tensor<f64>\n"
        "      stablehlo.return %c : tensor<f64>\n"
    )
    text = scatter_text(
        o="tensor<?x3xf32, #stablehlo.bounds<5, ?>>", i="tensor<4x1xi32>", u="tensor<4x3xf32>",
        uwd=(1,), iwd=(0,), sdod=(0,), ivd=1, body=body,
    )
    assert inferred(text, "stablehlo.scatter") == ["tensor<?x3xf64, #stablehlo.bounds<5, ?>>"]
    text2 = scatter_text(**_s(o=["tensor<5x3xf32>", "tensor<*xi32>"], u=["tensor<4x3xf32>", "tensor<4x3xi32>"]))
    assert inferred(text2, "stablehlo.scatter") == ["tensor<5x3xf32>", "tensor<*xi32>"]


def test_per_axis_quantized_type_needs_one_scale_per_element_of_its_dimension() -> None:
    """upstream's IsValidQuantizedDimension (every ODS constraint that admits per-axis quantized
    tensors): a per-axis type with fewer scales than its dimension's size is refused before any
    op verifier (broadcast_in_dim's scale-by-scale check used to run past the scales)."""
    one = f"tensor<1x{qaxis(0, (2.0, 1))}>"
    bad = f"tensor<3x{qaxis(0, (2.0, 1))}>"
    text = prog(
        f"%a: {one}",
        f"  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : ({one}) -> {bad}",
    )
    msg = verify_error(text)
    assert msg.startswith("result #0 must be statically shaped or single bounded dimension tensor of ")
    assert msg.endswith(
        "per-tensor integer quantized or per-axis integer quantized values, but got "
        "'tensor<3x!quant.uniform<i8:f32:0, {2.000000e+00:1}>>'"
    )
    # the quantized dimension must be in the rank
    text2 = prog(
        f"%a: tensor<2x{qaxis(1, (2.0, 1))}>",
        f"  %0 = stablehlo.transpose %a, dims = [0] : (tensor<2x{qaxis(1, (2.0, 1))}>) -> tensor<2x{qaxis(1, (2.0, 1))}>",
    )
    assert "must be ranked tensor of " in verify_error(text2)
    # a dynamic quantized dimension, or one with as many scales as elements, is fine
    ok = f"tensor<3x{qaxis(0, (2.0, 1), (2.0, 1), (2.0, 1))}>"
    verifies(prog(f"%a: {one}", f"  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : ({one}) -> {ok}"))


# ---------------------------------------------------------------------------------------------
# ints, constant_ints (upstream's matchInts)
# ---------------------------------------------------------------------------------------------


def _constants(body: str) -> list:  # type: ignore[type-arg]
    m = parse(prog("", body))
    return [op for op in m.walk() if op.name == "stablehlo.constant"]


def test_ints_and_constant_ints() -> None:
    from xdsl.dialects.builtin import NoneAttr

    ops = _constants(
        "  %0 = stablehlo.constant dense<[1, -2]> : tensor<2xi64>\n"
        "  %1 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>\n"
        "  %2 = stablehlo.constant dense<> : tensor<0xi64>\n"
        "  %3 = stablehlo.constant dense<5> : tensor<3xi64>\n"
        "  %4 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        "  %5 = stablehlo.constant dense<true> : tensor<i1>\n"
        "  %6 = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>"
    )
    got = [DM.constant_ints(op.results[0]) for op in ops]
    assert got == [(1, -2), (1, 2, 3, 4), (), (5, 5, 5), None, (1,), None]
    assert DM.ints(ops[1].properties["value"]) == (1, 2, 3, 4)
    assert DM.ints(None) == () and DM.ints(NoneAttr()) == ()
    assert DM.constant_ints(None) is None
    # a block argument, or another op's result, is no constant
    m = parse(prog("%a: tensor<2xi64>", "  %0 = stablehlo.abs %a : tensor<2xi64>"))
    f = next(op for op in m.walk() if op.name == "func.func")
    assert DM.constant_ints(f.regions[0].blocks.first.args[0]) is None
    absop = next(op for op in m.walk() if op.name == "stablehlo.abs")
    assert DM.constant_ints(absop.results[0]) is None
    # a constant built with its value in the attribute dictionary (as a builder may make it)
    value = ops[0].properties["value"]
    made = type(ops[0]).create(attributes={"value": value}, result_types=[ops[0].results[0].type])
    assert DM.constant_ints(made.results[0]) == (1, -2)
    # a constant without a dense value is no shape
    empty = type(ops[0]).create(attributes={}, result_types=[ops[0].results[0].type])
    assert DM.constant_ints(empty.results[0]) is None


def test_rules_without_operand_values() -> None:
    """Without the operands (types only), a shape operand's value is unknown."""
    from stablehlo_py.ir.infer import infer_result_types as irt

    text = dyn_gather_text("tensor<5x3xf32>", "tensor<4x1xi32>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1)
    op = _op(text, "stablehlo.dynamic_gather")
    attrs = dict(op.attributes)
    attrs.update(op.properties)
    types = [v.type for v in op.operands]
    assert [type_to_str(t) for t in irt(op.name, types, attrs)] == ["tensor<4x?xf32>"]
    assert [type_to_str(t) for t in irt(op.name, types, attrs, (), tuple(op.operands))] == ["tensor<4x3xf32>"]
    assert [type_to_str(t) for t in irt(op.name, types, attrs, (), tuple(op.operands[:2]))] == ["tensor<4x?xf32>"]


def test_element_type_and_shape_comparisons() -> None:
    irt = infer_result_types
    f32s, f16s, i32s, i64s = ty("tensor<f32>"), ty("tensor<f16>"), ty("tensor<i32>"), ty("tensor<i64>")
    # dynamic_slice of a rank-0 operand: no start indices, nothing to compare
    assert [type_to_str(t) for t in irt("stablehlo.dynamic_slice", [f32s], {})] == ["tensor<f32>"]
    # upstream's tensorsHaveSameElType(..., ignoreFpPrecision=true): floats of any precision agree,
    # integers must be equal; the third index is compared with the first too
    op3 = ty("tensor<2x3x4xf32>")
    from xdsl.dialects.builtin import DenseArrayBase, i64

    sizes = {"slice_sizes": DenseArrayBase.from_list(i64, [1, 1, 1])}
    assert [type_to_str(t) for t in irt("stablehlo.dynamic_slice", [op3, f32s, f16s, f32s], sizes)] == [
        "tensor<1x1x1xf32>"
    ]
    for starts in ([i32s, i32s, i64s], [i32s, i64s, i32s], [i32s, f32s, f32s], [f32s, i32s, i32s]):
        with pytest.raises(InferError) as e:
            irt("stablehlo.dynamic_slice", [op3, *starts], sizes)
        assert e.value.message == "start indices must have same element type"
    # select compares element types exactly (f32 vs f16, int vs float) and shapes, ranked or not
    for a, b in (("tensor<2xf32>", "tensor<2xf16>"), ("tensor<2xi32>", "tensor<2xf32>"), ("tensor<2xf32>", "tensor<2xi32>")):
        with pytest.raises(InferError) as e:
            irt("stablehlo.select", [ty("tensor<i1>"), ty(a), ty(b)], {})
        assert e.value.message == "requires compatible types for non-predicate operands"
    for a, b in (("tensor<2xf32>", "tensor<*xf32>"), ("tensor<*xf32>", "tensor<2xf32>")):
        (t,) = irt("stablehlo.select", [ty("tensor<i1>"), ty(a), ty(b)], {})
        assert type_to_str(t) == "tensor<2xf32>"
    (t,) = irt("stablehlo.select", [ty("tensor<*xi1>"), ty("tensor<2xf32>"), ty("tensor<2xf32>")], {})
    assert type_to_str(t) == "tensor<2xf32>"


def test_reshape_quantization_skips_what_it_cannot_compare() -> None:
    """Unranked types, and quantized dimensions outside the rank (which the ODS type constraints
    refuse before any verifier runs), are left alone rather than indexed."""
    rq = DM.verify_reshape_quantization
    a = ty(f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>")
    rq(a, ty(f"tensor<*x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(ty(f"tensor<*x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), a)
    # the operand's quantized dimension just outside its rank (and far outside)
    rq(ty(f"tensor<3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), a)
    rq(ty(f"tensor<3x{qaxis(4, (1.0, 0), (2.0, 0), (3.0, 0))}>"), a)
    # the result's
    rq(a, ty(f"tensor<3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    rq(a, ty(f"tensor<3x{qaxis(4, (1.0, 0), (2.0, 0), (3.0, 0))}>"))


def test_quantization_checks_leave_alone_what_they_cannot_compare() -> None:
    """The per-axis checks of broadcast_in_dim and transpose on types they cannot compare (a
    quantized dimension outside the rank, which the ODS type constraints refuse first; one side
    not per-axis; a dynamic result dimension) return instead of indexing past the end."""
    bid, tr = DM.verify_broadcast_in_dim, DM.verify_transpose
    one = ty(f"tensor<1x{qaxis(0, (2.0, 1))}>")
    # a dynamic quantized result dimension has no scales to compare with the operand's
    DM.verify_dynamic_broadcast_in_dim(
        one, None, (0,), None, None, ty(f"tensor<?x{qaxis(0, (3.0, 1))}>")
    )
    DM.verify_dynamic_broadcast_in_dim(
        one, None, (0,), None, None, ty(f"tensor<?x{qaxis(0, (2.0, 4))}>")
    )
    # the operand's quantized dimension just outside its rank (== len(dims)) ...
    bid(ty(f"tensor<1x{qaxis(1, (2.0, 1))}>"), (0,), ty(f"tensor<1x{qaxis(0, (2.0, 1))}>"))
    # ... the result's is caught by broadcast_in_dim_c6 (it cannot be broadcast_dimensions[0])
    assert err(bid, one, (0,), ty(f"tensor<1x{qaxis(1, (2.0, 1))}>")) == (
        "result quantization_dimension 1 not same as broadcast_dimensions[0] = 0"
    )
    # transpose: a per-axis result of a float operand, and the result's quantized dimension
    # just outside the permutation
    tr(ty("tensor<2x3xf32>"), (1, 0), ty(f"tensor<3x2x{qaxis(0, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    tr(ty(f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), (1, 0), ty(f"tensor<3x2x{qaxis(2, (1.0, 0), (2.0, 0), (3.0, 0))}>"))
    tr(ty(f"tensor<2x3x{qaxis(1, (1.0, 0), (2.0, 0), (3.0, 0))}>"), (1, 0), ty("tensor<3x2xi8>"))


def test_scatter_window_and_scatter_dims_one_by_one() -> None:
    # a dynamic window dimension is skipped, the next one is still checked
    assert verify_error(
        scatter_text(**_s(o="tensor<5x3x2xf32>", u="tensor<4x?x3xf32>", uwd=(1, 2)))
    ) == (
        "expects bounds of the window dimensions of updates to not exceed the bounds of the "
        "corresponding dimensions of operand. For dimension 2, updates bound is 3, operand bound is 2."
    )
    # three scatter dimensions of different sizes, each matched with its own indices dimension
    verifies(scatter_text(**_s(i="tensor<4x5x6x1xi32>", ivd=3, u="tensor<4x5x6x3xf32>", uwd=(3,))))
    assert verify_error(
        scatter_text(**_s(i="tensor<4x5x6x1xi32>", ivd=3, u="tensor<4x5x5x3xf32>", uwd=(3,)))
    ) == (
        "expects bounds of the scatter dimensions of updates to be same as the bounds of the "
        "corresponding dimensions of scatter indices. For scatter dimension 2, updates bound is 5 "
        ", scatter_indices bound is 6."
    )


def test_scatter_with_unranked_types() -> None:
    """verify_scatter skips what needs a rank for an unranked input or update (which upstream's ODS
    no longer admits), pair by pair."""
    op = _op(scatter_text(**_s(n=2)), "stablehlo.scatter")
    g, region = op.scatter_dimension_numbers.dims, op.update_computation
    it = ty("tensor<4x1xi32>")
    DM.verify_scatter([ty("tensor<*xf32>")] * 2, it, [ty("tensor<4x3xf32>")] * 2, g, region)
    DM.verify_scatter([ty("tensor<5x3xf32>")] * 2, it, [ty("tensor<*xf32>")] * 2, g, region)
    DM.verify_scatter([ty("tensor<5x3xf32>")] * 2, ty("tensor<*xi32>"), [ty("tensor<4x3xf32>")] * 2, g, region)
    # the pair after an unranked one is still checked
    assert err(
        DM.verify_scatter,
        [ty("tensor<*xf32>"), ty("tensor<5x3xf32>")],
        it,
        [ty("tensor<*xf32>"), ty("tensor<4x4xf32>")],
        g,
        region,
    ) == (
        "expects bounds of the window dimensions of updates to not exceed the bounds of the "
        "corresponding dimensions of operand. For dimension 1, updates bound is 4, operand bound is 3."
    )


def test_real_dynamic_slice_checks_each_index_operand() -> None:
    # an unranked start_indices is skipped, the limit_indices after it still checked
    assert err(
        DM.verify_real_dynamic_slice,
        ty("tensor<2x3xf32>"),
        ty("tensor<*xi64>"),
        ty("tensor<1xi64>"),
        ty("tensor<2xi64>"),
    ) == "has mismatched number of operand rank (2) and limit_indices size (1)"


def test_encodings_other_than_bounds_are_kept() -> None:
    # upstream's concatenate keeps the first encoding of its inputs when none has bounds
    assert concat("tensor<2xf32>", 'tensor<3xf32, "foo">') == 'tensor<5xf32, "foo">'
    assert concat('tensor<2xf32, "foo">', "tensor<3xf32>") == 'tensor<5xf32, "foo">'


def test_gather_of_an_unranked_operand_with_a_collapsed_dim_past_the_slice_sizes() -> None:
    # the operand's rank is unknown: a collapsed dimension without a slice size is not checked
    assert gather(**_g(o="tensor<*xf32>", col=(2,), ss=(1, 3))) == "tensor<4x1xf32>"


def test_gather_result_bounds_skip_the_index_vector_dim() -> None:
    # start_indices bounds go to the batch dims in order, skipping index_vector_dim (here 1)
    assert gather(
        "tensor<5x3xf32>", "tensor<?x1x?xi32, #stablehlo.bounds<6, ?, 7>>", (1, 3), off=(1,), col=(0,), smap=(0,), ivd=1
    ) == "tensor<?x3x?xf32, #stablehlo.bounds<6, ?, 7>>"
    # a rank-0 result keeps start_indices' encoding (upstream's boundsToEncoding with no bounds)
    assert gather("tensor<5xf32>", 'tensor<1xi32, "foo">', (1,), col=(0,), smap=(0,), ivd=0) == 'tensor<f32, "foo">'


def test_missing_integer_attribute_defaults_to_zero() -> None:
    (t,) = infer_result_types("stablehlo.concatenate", [ty("tensor<2x3xf32>"), ty("tensor<4x3xf32>")], {})
    assert type_to_str(t) == "tensor<6x3xf32>"


def test_gather_batching_dims_with_an_unranked_side() -> None:
    kw = dict(o="tensor<5x3x2xf32>", i="tensor<3x1xi32>", ss=(1, 1, 2), col=(0,), ob=(1,), ib=(0,), off=(1,))
    assert gather(**_g(**kw)) == "tensor<3x2xf32>"
    assert gather(**_g(**{**kw, "o": "tensor<*xf32>"})) == "tensor<3x2xf32>"
    text = gather_text(**_g(**{**kw, "i": "tensor<*xi32>"}))
    assert inferred(text, "stablehlo.gather") == ["tensor<*xf32>"]


def test_start_indices_after_two_floats_are_still_compared() -> None:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    sizes = {"slice_sizes": DenseArrayBase.from_list(i64, [1, 1, 1])}
    with pytest.raises(InferError) as e:
        infer_result_types(
            "stablehlo.dynamic_slice",
            [ty("tensor<2x3x4xf32>"), ty("tensor<f32>"), ty("tensor<f16>"), ty("tensor<i32>")],
            sizes,
        )
    assert e.value.message == "start indices must have same element type"
