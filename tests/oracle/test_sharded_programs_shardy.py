"""Differential tests (`oracle` extra): the sharded JAX programs of test_sharded_programs.py with JAX's
default partitioner, Shardy (`sdy.mesh`, `sdy.sharding` argument attributes,
`sdy.sharding_constraint`, `sdy.manual_computation` for each `shard_map`).  Each program is exported
(`jax.export`: MLIR bytecode holding VHLO and sdy ops), read back by our reader, run by
`interpreter.run` with no flags (once per partition when it has manual regions) and compared with
what XLA computed on 4 CPU devices; jaxlib's text of each program round-trips through our parser
and printer byte for byte, and our reading of each artifact prints as JAX's own reading of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import needs_spmd, num_partitions
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir import parse, print_ir
from tests.oracle.test_sharded_programs import CASES, SCRIPT, _compare, _load, export_programs

GSPMD = 'jax.config.update("jax_use_shardy_partitioner", False)'
assert GSPMD in SCRIPT
# the same programs, with Shardy on (JAX 0.10's default), plus each program's text as jaxlib prints
# it and JAX's own reading of the exported artifact
SHARDY_SCRIPT = (
    SCRIPT.replace(GSPMD, 'jax.config.update("jax_use_shardy_partitioner", True)')
    + r"""
for name, (fn, shapes, dtype, shardings) in CASES.items():
    jf = jax.jit(fn, in_shardings=shardings)
    with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
        f.write(jf.lower(*[np.zeros(s, dtype) for s in shapes]).as_text())
    with open(os.path.join(out_dir, name + ".exported"), "rb") as f:
        back = export.deserialize(bytearray(f.read()))
    with open(os.path.join(out_dir, name + ".jax_read.mlir"), "w") as f:
        f.write(back.mlir_module())
"""
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export_programs(tmp_path_factory.mktemp("sharded_shardy"), SHARDY_SCRIPT)


REGIONS = [name for name in CASES if name != "matmul_constraint"]


@pytest.mark.parametrize("name", CASES)
def test_shardy_program_runs_as_xla_computed(exported: Path, name: str) -> None:
    module, args, outs, meta = _load(exported, name)
    text = print_ir(module)
    assert "sdy.mesh @" in text and "SPMDFullToShardShape" not in text
    assert meta["nr_devices"] == 4 and num_partitions(module) == 4
    assert needs_spmd(module) == (name in REGIONS)
    assert ("sdy.manual_computation" in text) == (name in REGIONS)
    _compare(run(module, *args), outs)


@pytest.mark.parametrize("name", CASES)
def test_jaxlib_text_round_trips(exported: Path, name: str) -> None:
    text = (exported / f"{name}.mlir").read_text()
    assert "sdy." in text
    module = parse(text)
    assert print_ir(module) == text
    assert print_ir(parse(print_ir(module, generic=True))) == text


@pytest.mark.parametrize("name", CASES)
def test_artifact_reads_as_jax_reads_it(exported: Path, name: str) -> None:
    module, *_ = _load(exported, name)
    want = (exported / f"{name}.jax_read.mlir").read_text()  # with its locations, as aliases
    assert print_ir(module, debuginfo=True, location_aliases=True) == want


@pytest.mark.parametrize("name", ["psum_region", "partial_manual", "collectives_region"])
def test_text_runs_as_the_artifact(exported: Path, name: str) -> None:
    _, args, outs, _ = _load(exported, name)
    _compare(run(parse((exported / f"{name}.mlir").read_text()), *args), outs)


def test_a_manual_region_run_as_one_process_says_how_to_run_it(exported: Path) -> None:
    module, args, _, _ = _load(exported, "psum_region")
    with pytest.raises(NotSupportedError, match="once per partition"):
        Evaluator(module).call("main", list(args))


def _jaxlib_module(text: str):  # type: ignore[no-untyped-def]
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    ctx = jax_mlir.make_ir_context()
    with ctx:
        return ctx, ir.Module.parse(text)


@pytest.mark.parametrize("name", CASES)
def test_generic_form_is_jaxlib_s(exported: Path, name: str) -> None:
    text = (exported / f"{name}.mlir").read_text()
    ctx, module = _jaxlib_module(text)
    with ctx:
        want = module.operation.get_asm(print_generic_op_form=True)
    assert print_ir(parse(text), generic=True) == want


def test_every_sdy_op_as_jaxlib_prints_and_writes_it() -> None:
    """The unit tests' module of every op: jaxlib prints it as we do (pretty and generic), and the
    MLIR bytecode jaxlib writes for it (sdy attributes in Shardy's encoding: inline meshes,
    sub-axes, device ids, priorities, replicated and unreduced axes) reads back to the same IR."""
    import io

    from stablehlo_py.serialization.mlirbc import read_dialect

    from tests.unit.ir.test_sdy_ops import ALL_OPS

    ctx, module = _jaxlib_module(ALL_OPS)
    with ctx:
        pretty = module.operation.get_asm()
        generic = module.operation.get_asm(print_generic_op_form=True)
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    assert pretty == ALL_OPS
    assert print_ir(parse(ALL_OPS), generic=True) == generic
    _, _, back = read_dialect(buf.getvalue())
    assert print_ir(back) == ALL_OPS


LINALG = {
    "inv": (lambda a: jax.numpy.linalg.inv(a), (2, 3, 3)),
    "eigh": (lambda a: jax.numpy.linalg.eigh(a @ a.T)[0], (4, 4)),
    "svd": (lambda a: jax.numpy.linalg.svd(a, compute_uv=False), (5, 3)),
    "qr": (lambda a: jax.numpy.linalg.qr(a)[1], (5, 3)),
}


@pytest.mark.parametrize("name", LINALG)
def test_lapack_artifacts_with_sharding_rules(name: str) -> None:
    """JAX writes `sdy.sharding_rule` (Shardy's op sharding rule) on its LAPACK custom calls, so
    every exported linalg program holds sdy attributes: they read as JAX reads them, and the
    program runs."""
    from jax import export
    from stablehlo_py.serialization import deserialize_portable_artifact

    fn, shape = LINALG[name]
    a = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    exp = export.export(jax.jit(fn))(a)
    module = deserialize_portable_artifact(exp.mlir_module_serialized)
    text = print_ir(module, debuginfo=True, location_aliases=True)
    assert "#sdy.op_sharding_rule<" in text
    assert text == exp.mlir_module()
    (got,) = run(module, a)
    np.testing.assert_allclose(got, np.asarray(exp.call(a)), rtol=1e-4, atol=1e-4)


def test_cli_interprets_a_shardy_program(exported: Path, capsys) -> None:
    from stablehlo_py.cli.translate import main as translate_main

    _, (a,), outs, _ = _load(exported, "int_region")
    dense = "[" + ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in a) + "]"
    path = exported / "int_region.mlir"
    rc = translate_main(
        [
            "--interpret",
            "--interpreter-print-dense",
            f"--args=[dense<{dense}> : tensor<3x8xi32>]",
            str(path),
        ]
    )
    got = [line for line in capsys.readouterr().out.splitlines() if line.startswith("dense<")]
    assert rc == 0 and len(got) == 2
    for line, want in zip(got, outs):
        rows = ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in want)
        assert line.startswith(f"dense<[{rows}]>")
