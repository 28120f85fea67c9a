"""The tools on artifacts, as upstream's behave (issue 31), run as a user runs them (subprocesses).

* `stablehlo-opt ARTIFACT` prints the VHLO module the artifact holds (upstream's `stablehlo-opt` just
  parses the bytecode); `--deserialize`, or the passes `--vhlo-to-version=target=current
  --vhlo-legalize-to-stablehlo`, convert it to StableHLO; MLIR bytecode of the stablehlo dialect
  prints as it is.
* `stablehlo-translate --interpret` runs a portable artifact (either format, any producer) or a JAX
  `Exported` directly, deserialized to StableHLO first.
* `--serialize` writes $STABLEHLO_PY_ARTIFACT_FORMAT when `--format` is not given.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py import serialization as S
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.serialization.mlirbc import write_dialect

BIN = Path(sys.executable).parent
OPT = str(BIN / "stablehlo-opt")
TRANSLATE = str(BIN / "stablehlo-translate")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.tan %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""
ARGS = "--args=[dense<[1.0, 2.0]> : tensor<2xf32>, dense<[0.5, -1.0]> : tensor<2xf32>]"


def run(
    tool: str, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    full_env = None if env is None else {**os.environ, **env}
    return subprocess.run(
        [tool, *args], input=stdin, capture_output=True, timeout=300, env=full_env, check=False
    )


def ok(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    return proc.stdout.decode()


def with_producer(data: bytes, producer: bytes) -> bytes:
    end = data.index(b"\0", 5)
    return data[:5] + producer + data[end:]


def artifacts() -> dict[str, bytes]:
    """The program as every kind of binary input, at 1.4.0 (tan_v1) where versioned."""
    mlir = S.serialize_portable_artifact_str(PROGRAM, "1.4.0", format="mlir")
    return {
        "mlir": mlir,
        "msgpack": S.serialize_portable_artifact_str(PROGRAM, "1.4.0"),
        "mlir-any-producer": with_producer(mlir, b"MLIR24.0.0git"),
        "dialect-bytecode": write_dialect(parse(PROGRAM)),
    }


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("artifacts")
    out = {}
    for kind, data in artifacts().items():
        out[kind] = d / f"{kind}.bin"
        out[kind].write_bytes(data)
    return out


VHLO_KINDS = ["mlir", "msgpack", "mlir-any-producer"]


@pytest.mark.parametrize("kind", VHLO_KINDS)
def test_opt_prints_the_vhlo_an_artifact_holds(kind: str, files: dict[str, Path]) -> None:
    data = files[kind].read_bytes()
    expected = print_ir(S.read_vhlo_artifact(data)[1])
    assert "vhlo.tan_v1" in expected and "vhlo.func_v1 @main" in expected
    assert ok(run(OPT, str(files[kind]))) == expected
    generic = ok(run(OPT, "--mlir-print-op-generic", str(files[kind])))
    assert generic == print_ir(S.read_vhlo_artifact(data)[1], generic=True)
    assert generic.startswith('"builtin.module"() ({\n  "vhlo.func_v1"() <{')
    assert ok(run(OPT, "-", stdin=data)) == expected  # stdin alike


@pytest.mark.parametrize("kind", VHLO_KINDS)
def test_opt_converts_an_artifact_when_asked(kind: str, files: dict[str, Path]) -> None:
    stablehlo = print_ir(parse(PROGRAM))
    assert ok(run(OPT, str(files[kind]), "--deserialize")) == stablehlo
    passes = ("--vhlo-to-version=target=current", "--vhlo-legalize-to-stablehlo")
    assert ok(run(OPT, str(files[kind]), *passes)) == stablehlo


def test_opt_prints_dialect_bytecode_as_it_is(files: dict[str, Path]) -> None:
    assert ok(run(OPT, str(files["dialect-bytecode"]))) == print_ir(parse(PROGRAM))


def test_opt_prints_a_jax_export_s_vhlo() -> None:
    pytest.importorskip("flatbuffers")
    from stablehlo_py.serialization.jax_export import read_jax_exported

    path = EXAMPLES / "mlp.jax_exported"
    module_bytes = read_jax_exported(path.read_bytes()).mlir_module_serialized
    assert ok(run(OPT, str(path))) == print_ir(S.read_vhlo_artifact(module_bytes)[1])


@pytest.mark.parametrize("kind", [*VHLO_KINDS, "dialect-bytecode"])
def test_interpret_runs_an_artifact(kind: str, files: dict[str, Path], tmp_path: Path) -> None:
    text = tmp_path / "program.mlir"
    text.write_text(PROGRAM)
    expected = ok(run(TRANSLATE, "--interpret", ARGS, str(text)))
    assert "tensor<2xf32>" in expected
    assert ok(run(TRANSLATE, "--interpret", ARGS, str(files[kind]))) == expected
    assert ok(run(TRANSLATE, "--interpret", ARGS, "-", stdin=files[kind].read_bytes())) == expected


def test_interpret_runs_a_jax_export(tmp_path: Path) -> None:
    """A JAX export takes the exported function's flattened arguments (6 here), mapped to @main's
    (5: the unused `steps` dropped by module_kept_var_idx), as Exported.call and run_exported do."""
    pytest.importorskip("flatbuffers")
    import stablehlo_py
    from stablehlo_py.serialization.jax_export import read_jax_exported

    path = EXAMPLES / "mlp.jax_exported"
    exp = read_jax_exported(path.read_bytes())
    assert len(exp.in_avals) == 6 and exp.module_arity == 5
    values = [np.full(a.shape, 0.5, a.dtype) for a in exp.in_avals]
    def dense(v: np.ndarray) -> str:
        t = "i32" if v.dtype == np.int32 else "f32"
        return f"dense<{1 if t == 'i32' else 0.5}> : tensor<{''.join(f'{d}x' for d in v.shape)}{t}>"
    args = "[" + ", ".join(dense(v) for v in values) + "]"
    got = ok(run(TRANSLATE, "--interpret", f"--args={args}", str(path)))
    values[2] = np.full((), 1, np.int32)
    (want,) = stablehlo_py.run_exported(path.read_bytes(), *values)
    assert "tensor<2x2xf32>" in got
    printed = [float(x) for x in re.findall(r"-?\d\.\d+e[+-]\d+", got)]
    np.testing.assert_allclose(printed, np.asarray(want).ravel(), rtol=1e-6)
    # the same as the bare module run with @main's 5 arguments
    five = "[" + ", ".join(dense(v) for k, v in enumerate(values) if k != 2) + "]"
    text = tmp_path / "mlp.mlir"
    text.write_text(ok(run(TRANSLATE, "--deserialize", str(path))))
    assert ok(run(TRANSLATE, "--interpret", f"--args={five}", str(text))) == got
    # the module's own @main arguments (5) given to the export are refused, naming both conventions
    proc = run(TRANSLATE, "--interpret", f"--args={five}", str(path))
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "provided 5 inputs but the exported function expected 6" in err
    assert "module_kept_var_idx" in err and "Traceback" not in err


def test_interpret_refuses_a_bad_artifact_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(artifacts()["mlir"][:60])  # truncated
    proc = run(TRANSLATE, "--interpret", str(bad))
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "error:" in err and "Traceback" not in err and str(bad) in err


def test_serialize_format_from_the_environment(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    default = run(TRANSLATE, "--serialize", "--target=1.4.0", str(src)).stdout
    assert S.artifact_format(default) == "msgpack"
    env = {"STABLEHLO_PY_ARTIFACT_FORMAT": "mlir"}
    got = run(TRANSLATE, "--serialize", "--target=1.4.0", str(src), env=env).stdout
    assert got == S.serialize_portable_artifact_str(PROGRAM, "1.4.0", format="mlir", name=str(src))
    explicit = run(TRANSLATE, "--serialize", "--format=msgpack", "--target=1.4.0", str(src), env=env)
    assert S.artifact_format(explicit.stdout) == "msgpack"  # --format wins
    opt = run(OPT, str(src), "--serialize", "--target=1.4.0", env=env).stdout
    assert opt == got
    bad = run(
        TRANSLATE, "--serialize", "--target=1.4.0", str(src), env={"STABLEHLO_PY_ARTIFACT_FORMAT": "xml"}
    )
    assert bad.returncode == 1 and b"unknown artifact format 'xml'" in bad.stderr
