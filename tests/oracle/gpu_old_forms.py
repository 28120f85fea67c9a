"""Self-written artifacts of JAX's pre-FFI GPU forms (plan 4.4, way 3): today's jax exports a
function for CUDA or ROCm with the typed-FFI targets; `rewrite` turns each of those calls into the
form an older jax wrote for it -- its name, `api_version = 2`, the routine's parameters packed as
jaxlib's C descriptor struct in `backend_config` (`struct.pack`, little-endian, as jaxlib's
`PackDescriptor` copies the struct), and the results the old call had besides the FFI kernel's
(workspaces, the `info` geqrf / orgqr dropped), optionally as one tuple-typed result (JAX's 2023
artifacts).  Old jax cannot write these on a CPU-only machine (its GPU lowerings needed the GPU
plugin), so the tests compare our run of the rewritten program with our run of the FFI program
and with XLA CPU running the CPU export.

The layouts, structs and enum values are jax 0.4.30's (`jaxlib/gpu_solver.py`,
`jaxlib/gpu/solver_kernels.h`, `jaxlib/gpu/blas_kernels.h`, `jaxlib/gpu_sparse.py`), jax 0.5.3's
for the `gtsv2_*_ffi` names, jax 0.4.26's / 0.4.30's / 0.4.31's for `lu_pivots_to_permutation`.
The workspace size (`LWORK`) is arbitrary: JAX's came from the vendor's `*_bufferSize`, and the
workspace is discarded."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAlias, OutputOperandAliasAttr
from stablehlo_py.ir.ops.data_movement import GetTupleElementOp
from stablehlo_py.ir.ops.misc import CustomCallOp
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    TupleType,
    i32,
    i64,
)
from xdsl.rewriter import Rewriter

from stablehlo_py.ir import parse

LWORK = 24
SOLVER_TYPES = {np.dtype(t): i for i, t in enumerate((np.float32, np.float64, np.complex64,
                                                      np.complex128))}
FILL_MODES = {"cu": {True: 0, False: 1}, "hip": {True: 122, False: 121}}  # lower -> the value
I8 = IntegerType(8)
# attributes today's jax adds that the old calls did not have
DROPPED = ("mhlo.backend_config", "mhlo.frontend_attributes", "sdy.sharding_rule")


@dataclass
class Old:
    """The old form of one call: its name, its config (descriptor bytes: api_version 2; a dict: the
    typed-FFI `mhlo.backend_config`), and the results it adds after the FFI kernel's."""

    name: str
    config: bytes | dict[str, Any]
    extra: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Options:
    batched: bool = False  # getrf / geqrf of a batch: the cuBLAS / hipBLAS batched kernels
    tuple_results: bool = False  # JAX's 2023 artifacts: one tuple-typed result
    # lu_pivots_to_permutation: "opaque" (<= 0.4.26), "dict" (0.4.27-0.4.30), "size" (0.4.31-0.4.33)
    pivots: str = "opaque"
    gtsv2: str = "opaque"  # "opaque" (<= 0.5.0) or "ffi" (the `_ffi` names, {opaque}, 0.5.1-0.6.1)


def _attrs(op: Any) -> dict[str, Any]:
    config = op.attributes.get("mhlo.backend_config")
    return {k: bool(v.value.data) for k, v in (config.data.items() if config else ())}


def _matrix(op: Any, index: int = 0) -> tuple[np.dtype, int, int, int, tuple[int, ...]]:
    t = op.operands[index].type
    shape = tuple(t.get_shape())
    return np.dtype(dtype_of_type(t)), math.prod(shape[:-2]), shape[-2], shape[-1], shape[:-2]


def _work(op: Any) -> TensorType:
    return TensorType(op.operands[0].type.get_element_type(), [LWORK])


def _info(batch_dims: tuple[int, ...]) -> TensorType:
    return TensorType(i32, list(batch_dims))


def _getrf(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, _ = _matrix(op)
    if o.batched and b > 1 and m == n:
        return Old(f"{vendor}blas_getrf_batched", struct.pack("<3i", SOLVER_TYPES[dtype], b, n),
                   [TensorType(I8, [LWORK])])
    return Old(f"{vendor}solver_getrf", struct.pack("<5i", SOLVER_TYPES[dtype], b, m, n, LWORK),
               [_work(op)])


def _geqrf(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, batch = _matrix(op)
    if o.batched and b > 1:
        return Old(f"{vendor}blas_geqrf_batched", struct.pack("<4i", SOLVER_TYPES[dtype], b, m, n),
                   [TensorType(I8, [LWORK])] * 2)
    return Old(f"{vendor}solver_geqrf", struct.pack("<5i", SOLVER_TYPES[dtype], b, m, n, LWORK),
               [_info(batch), _work(op)])


def _orgqr(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, batch = _matrix(op)
    k = op.operands[1].type.get_shape()[-1]
    return Old(f"{vendor}solver_orgqr", struct.pack("<6i", SOLVER_TYPES[dtype], b, m, n, k, LWORK),
               [_info(batch), _work(op)])


def _syevd(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, _, n, _ = _matrix(op)
    routine = "syevj" if n <= 32 else "syevd"  # (jax 0.4.30's choice)
    uplo = FILL_MODES[vendor][_attrs(op)["lower"]]
    desc = struct.pack("<5i", SOLVER_TYPES[dtype], uplo, b, n, LWORK)
    return Old(f"{vendor}solver_{routine}", desc, [_work(op)])


def _gesvd(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, _ = _matrix(op)
    attrs = _attrs(op)
    if attrs.get("transposed"):
        m, n = n, m
    job = ord("A" if attrs["full_matrices"] else "S") if attrs["compute_uv"] else ord("N")
    desc = struct.pack("<5i2b2x", SOLVER_TYPES[dtype], b, m, n, LWORK, job, job)
    return Old(f"{vendor}solver_gesvd", desc, [_work(op)])


def _gesvdj(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, _ = _matrix(op)
    attrs = _attrs(op)
    desc = struct.pack("<7i", SOLVER_TYPES[dtype], b, m, n, LWORK, int(attrs["compute_uv"]),
                       int(not attrs["full_matrices"]))
    return Old(f"{vendor}solver_gesvdj", desc, [_work(op)])


def _sytrd(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, _, n, _ = _matrix(op)
    uplo = FILL_MODES[vendor][_attrs(op)["lower"]]
    desc = struct.pack("<6i", SOLVER_TYPES[dtype], uplo, b, n, n, LWORK)
    return Old(f"{vendor}solver_sytrd", desc, [_work(op)])


def _gtsv2(op: Any, vendor: str, o: Options) -> Old:
    dtype, b, m, n, _ = _matrix(op, 3)
    desc = struct.pack("<4i", b, m, n, m)
    name = f"{vendor}sparse_gtsv2_{'f32' if dtype == np.float32 else 'f64'}"
    workspace = [TensorType(I8, [LWORK])]
    if o.gtsv2 == "ffi":
        return Old(name + "_ffi", {"opaque": desc}, workspace)
    return Old(name, desc, workspace)


def _pivots(op: Any, vendor: str, o: Options) -> Old:
    shape = tuple(op.operands[0].type.get_shape())
    sizes = (math.prod(shape[:-1]), shape[-1], op.results[0].type.get_shape()[-1])
    name = f"{vendor}_lu_pivots_to_permutation"
    if o.pivots == "opaque":
        return Old(name, struct.pack("<qii", *sizes))
    if o.pivots == "dict":
        return Old(name, dict(zip(("batch_size", "pivot_size", "permutation_size"), sizes)))
    return Old(name, {"permutation_size": sizes[2]})


# the FFI target after its vendor prefix -> its old form
REWRITES: dict[str, Callable[[Any, str, Options], Old]] = {
    "solver_getrf_ffi": _getrf,
    "solver_geqrf_ffi": _geqrf,
    "solver_orgqr_ffi": _orgqr,
    "solver_syevd_ffi": _syevd,
    "solver_gesvd_ffi": _gesvd,
    "solver_gesvdj_ffi": _gesvdj,
    "solver_sytrd_ffi": _sytrd,
    "sparse_gtsv2_ffi": _gtsv2,
    "_lu_pivots_to_permutation": _pivots,
}


def _split(name: str) -> tuple[str, str] | None:
    for vendor in ("cu", "hip"):
        rest = name.removeprefix(vendor)
        if rest != name and rest in REWRITES:
            return vendor, rest
    return None


def _layout(t: Any) -> DenseIntOrFPElementsAttr:
    rank = len(t.get_shape())
    order = list(range(rank - 1, -1, -1))
    return DenseIntOrFPElementsAttr.from_list(TensorType(IndexType(), [rank]), order)


def _dict(values: dict[str, Any]) -> DictionaryAttr:
    def attr(k: str, v: Any) -> Any:
        if isinstance(v, bytes):
            return StringAttr(v.decode("utf-8", "surrogateescape"))
        return IntegerAttr(v, i64 if k == "batch_size" else i32)

    return DictionaryAttr({k: attr(k, v) for k, v in values.items()})


def _replace(op: Any, old: Old, tuple_results: bool) -> None:
    types = [r.type for r in op.results] + old.extra
    props = dict(op.properties)
    props["call_target_name"] = StringAttr(old.name)
    attributes = {k: v for k, v in op.attributes.items() if k not in DROPPED}
    props.pop("backend_config", None)
    props.pop("api_version", None)
    if isinstance(old.config, bytes):
        props["backend_config"] = StringAttr(old.config.decode("utf-8", "surrogateescape"))
        props["api_version"] = IntegerAttr(2, i32)
    else:
        attributes["mhlo.backend_config"] = _dict(old.config)
    if "result_layouts" in props:
        layouts = [*props["result_layouts"].data, *map(_layout, old.extra)]
        props["result_layouts"] = ArrayAttr(layouts)
    if "output_operand_aliases" in props and len(types) > 1:
        props["output_operand_aliases"] = ArrayAttr([
            OutputOperandAliasAttr(OutputOperandAlias(a.alias.output_tuple_indices or (0,),
                                                      a.alias.operand_index, ()))
            for a in props["output_operand_aliases"].data
        ])
    packed = tuple_results and len(types) > 1
    new = CustomCallOp.create(
        operands=list(op.operands),
        result_types=[TupleType(ArrayAttr(types))] if packed else types,
        properties=props,
        attributes=attributes,
    )
    if packed:
        gets = [
            GetTupleElementOp.create(operands=[new.results[0]], result_types=[r.type],
                                     properties={"index": IntegerAttr(i, i32)})
            for i, r in enumerate(op.results)
        ]
        Rewriter.replace_op(op, [new, *gets], [g.results[0] for g in gets])
    else:
        Rewriter.replace_op(op, new, list(new.results[: len(op.results)]))


def rewrite(text: str, **options: Any) -> tuple[str, list[str]]:
    """The program `text` (today's jax export) with each GPU FFI call in its old form (`Options`),
    as text; and the old targets it now calls."""
    o = Options(**options)
    module = parse(text)
    names = []
    for op in list(module.walk()):
        if not isinstance(op, CustomCallOp):
            continue
        found = _split(op.call_target_name.data)
        if found is None:
            continue
        vendor, routine = found
        old = REWRITES[routine](op, vendor, o)
        _replace(op, old, o.tuple_results)
        names.append(old.name)
    return str(module), names


__all__ = ["LWORK", "Options", "rewrite"]
