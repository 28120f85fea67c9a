"""`interpreter-instrument-with-probe{useDebugInfo=...}`: upstream's
stablehlo/reference/InterpreterInstrumentWithProbe.cpp.

Every tensor result of every op (except `stablehlo.constant` and ops without results) is passed
through an `interpreter.probe` inserted right after the op, and the value's other uses read the
probe's result:

    %0 = stablehlo.add %a, %b : tensor<2xi32> loc("add")
    ->
    %0 = stablehlo.add %a, %b : tensor<2xi32> loc("add")
    %1 = interpreter.probe %0, probe_id = "add.1" : tensor<2xi32>

Interpreting the instrumented program with a probe output directory (`stablehlo-translate
--interpret --probe-output-dir=DIR`, or `Evaluator.probe_dir`) writes each probed value as a NumPy
file and lists it in DIR/index.csv (`probe_id,type,path`).

As upstream: ops are visited in MLIR's walk order (post-order: an op's regions before the op), one
counter over the whole module numbers the probes from 1; a probe's id is `probe<N>`, or with
`useDebugInfo` and an op location that is a name location `loc("name")`/`loc("name"(...))`,
`<name up to its first '@'>.<N>`.  Each probe is inserted right after its op, so an op's later
results' probes come first.  The probe has its op's location.

Which values are probed: upstream probes every `TensorType` result; its `interpreter.probe` op only
accepts tensors of StableHLO element types, and its own test (`test_string_type`) leaves a tensor of
another dialect's element type (`tensor<!tf_type.string>`) unprobed.  Here a tensor result is probed
when its element type is one of StableHLO's (integer, float, complex, boolean, quantized).
"""

from __future__ import annotations

from stablehlo_py.passes.drivers._common import carry_location
from xdsl.dialects.builtin import (
    ComplexType,
    IntegerType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, OpResult
from xdsl.rewriter import InsertPoint, Rewriter

from stablehlo_py.ir.verify.constraints import is_float
from stablehlo_py.ir.text.name_stack import location_name
from stablehlo_py.ir.types import UniformQuantizedType
from stablehlo_py.passes.drivers.options import PassOption

__all__ = ["instrument_with_probe", "location_name", "probe_id", "run", "should_probe_value"]

PASS_NAME = "interpreter-instrument-with-probe"
SUMMARY = "Instrument operations with probes"
OPTIONS = (
    PassOption(
        "useDebugInfo",
        "bool",
        False,
        "Whether or not to attempt to use debug info from the MLIR program to generate probe IDs",
    ),
)

CONSTANT_OPS = frozenset({"stablehlo.constant"})
"""upstream: `isa<ConstantOp>` (StableHLO's constant)."""


def run(op: Operation, options: dict[str, object]) -> Operation:
    return instrument_with_probe(op, bool(options["useDebugInfo"]))


def probe_id(op: Operation, number: int, use_debug_info: bool) -> str:
    """upstream's getLocationNameOrUniqueId."""
    name = location_name(op) if use_debug_info else None
    if name is None:
        return f"probe{number}"
    return name.split("@", 1)[0] + "." + str(number)


def _stablehlo_element(e: Attribute) -> bool:
    return isinstance(e, (IntegerType, ComplexType, UniformQuantizedType)) or is_float(e)


def should_probe_value(value: OpResult) -> bool:
    """A tensor of a StableHLO element type (see the module docstring)."""
    t = value.type
    return isinstance(t, (TensorType, UnrankedTensorType)) and _stablehlo_element(t.element_type)


def should_probe_op(op: Operation) -> bool:
    """upstream's shouldProbeOp: not a constant, at least one result."""
    return op.name not in CONSTANT_OPS and len(op.results) > 0


def instrument_with_probe(module: Operation, use_debug_info: bool = False) -> Operation:
    """Instrument `module` in place (see the module docstring); returns `module`."""
    from stablehlo_py.ir.ops.interpreter_ops import ProbeOp

    # MLIR's post-order walk visits an op's next sibling as it was before the op was visited, so
    # the probes inserted on the way are never visited: walking a snapshot is the same
    ops = [o for o in module.walk(region_first=True) if o is not module]
    number = 0
    for op in ops:
        if not should_probe_op(op):
            continue
        for result in op.results:
            if not should_probe_value(result):
                continue
            number += 1
            probe = ProbeOp.create(
                operands=[result],
                result_types=[result.type],
                properties={"probe_id": StringAttr(probe_id(op, number, use_debug_info))},
            )
            carry_location(probe, op)
            Rewriter.insert_op(probe, InsertPoint.after(op))
            result.replace_uses_with_if(
                probe.results[0], lambda use, p=probe: use.operation is not p
            )
    return module
