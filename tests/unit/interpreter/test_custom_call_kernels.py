"""User kernels (Pallas TPU/Mosaic, Mosaic GPU, Triton, cuDNN, MIOpen): each is refused with one
NotSupportedError naming the kind of kernel and why it cannot be interpreted; the listing shows each
name and prefix with its platforms; `__cudnn$fusion` runs its StableHLO body; an unknown name keeps
the generic message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.kernels import KERNEL_PREFIXES, KERNELS, kernel_kind
from stablehlo_py.interpreter.custom_calls.registry import PLATFORMS

from stablehlo_py.cli.translate import main as translate_main
from stablehlo_py.errors import InterpreterError, NotSupportedError

PROGRAM = """
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @"TARGET"(%arg0) {backend_config = "opaque"}
      : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
X = np.arange(4, dtype=np.float32)

# the kind each name must be refused as, written independently of the tables
EXPECTED_KIND = {
    "tpu_custom_call": "Pallas TPU (Mosaic)",
    "mosaic_gpu_v2": "Pallas Mosaic GPU",
    "mosaic_gpu": "Pallas Mosaic GPU",
    "__gpu$xla.gpu.triton": "Pallas Triton",
    "triton_kernel_call": "Triton (jax-triton / Pallas Triton)",
    "__cudnn$fmhaSoftmax": "cuDNN fused attention",
    "__cudnn$fmhaScaleBiasSoftmaxDropoutBackward": "cuDNN fused attention",
    "__cudnn$fhmaScaleMaskSoftmax": "cuDNN fused attention",  # the spelling before 2024-02
    "__cudnn$convForward": "cuDNN",
    "__op$block_scaled_dot": "cuDNN block-scaled matmul",
    "cudnn_rnn_ffi": "cuDNN RNN",
    "cudnn_rnn_bwd": "cuDNN RNN",
    "hipdnn_rnn_ffi": "MIOpen RNN",
    "hipdnn_rnn_bwd_ffi": "MIOpen RNN",
    "__gpu$xla.gpu.some_handler": "built-in XLA GPU",
}
# what the body is said to be, per kind (the "why" of the message)
EXPECTED_BODY = {
    "Pallas TPU (Mosaic)": "Mosaic TPU IR",
    "Pallas Mosaic GPU": "Mosaic GPU IR",
    "Pallas Triton": "Triton IR",
    "Triton (jax-triton / Pallas Triton)": "compiled GPU code",
    "cuDNN fused attention": "cuDNN attention graph",
    "cuDNN": "cuDNN graph",
    "cuDNN block-scaled matmul": "block-scaled (MX) matmul graph",
    "cuDNN RNN": "opaque RNN descriptor",
    "MIOpen RNN": "opaque RNN descriptor",
    "built-in XLA GPU": "handler compiled into XLA's GPU runtime",
}


def refusal(name: str) -> str:
    with pytest.raises(NotSupportedError) as info:
        run(PROGRAM.replace("TARGET", name), X)
    return str(info.value)


def _prefix_names() -> list[str]:
    return [prefix + "Example" for prefix in KERNEL_PREFIXES]


@pytest.mark.parametrize("name", sorted({*KERNELS, *_prefix_names(), *EXPECTED_KIND}))
def test_every_kernel_is_refused_naming_its_kind(name: str) -> None:
    kind = kernel_kind(name)
    assert kind is not None
    message = refusal(name)
    assert f"custom_call @{name} is a {kind.kind} kernel: " in message
    assert "not StableHLO; it cannot be interpreted." in message
    assert "Export the program" in message or "Export `jax.nn" in message
    assert message.count("\n") == 0
    assert EXPECTED_BODY[kind.kind] in message
    if name in EXPECTED_KIND:
        assert kind.kind == EXPECTED_KIND[name]


def test_pallas_refusals_point_at_interpret_mode() -> None:
    for name in ("tpu_custom_call", "mosaic_gpu_v2", "__gpu$xla.gpu.triton"):
        assert "`pallas_call(..., interpret=True)`" in refusal(name)
    assert "implementation='xla'" in refusal("__cudnn$fmhaSoftmax")
    assert "jax.experimental.rnn.lstm_ref" in refusal("cudnn_rnn_ffi")


def test_the_longest_prefix_and_exact_rows_win() -> None:
    assert kernel_kind("__cudnn$fmhaSoftmaxF8").kind == "cuDNN fused attention"  # not plain cuDNN
    assert kernel_kind("__cudnn$convForward").kind == "cuDNN"
    # its own row, not the prefix's
    assert kernel_kind("__gpu$xla.gpu.triton").kind == "Pallas Triton"
    assert kernel_kind("cudnn_rnn_ffi_v2") is None  # exact names are exact
    assert kernel_kind("__cudnn") is None
    assert kernel_kind("my_kernel") is None


def test_an_unknown_target_keeps_the_generic_message() -> None:
    for name in ("my_kernel", "tpu_custom_call_v9", "xla.gpu.triton"):
        with pytest.raises(InterpreterError, match=f"unsupported custom_call target '{name}'"):
            run(PROGRAM.replace("TARGET", name), X)


def test_the_listing_shows_each_kernel_with_its_platforms(capsys) -> None:
    assert translate_main(["--interpret", "--list-custom-calls"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[2:]}
    listed = {**KERNELS, **{p + "*": k for p, k in KERNEL_PREFIXES.items()}}
    for name, kind in listed.items():
        assert name in rows, name
        platforms = rows[name][1].split(",")
        assert platforms == [p for p in PLATFORMS if p in kind.platforms], name
        assert f"[refused: {kind.kind} kernel]" in " ".join(rows[name]), name
    assert rows["tpu_custom_call"][1] == "tpu"
    assert rows["mosaic_gpu_v2"][1] == "cuda"
    assert rows["__gpu$xla.gpu.triton"][1] == "cuda,rocm"
    assert rows["hipdnn_rnn_ffi"][1] == "rocm"
    assert rows["__cudnn$fmha*"][1] == "cuda"
    assert rows["__cudnn$fusion"][1] == "cuda"


CUDNN_FUSION = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>, %z: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.custom_call @__cudnn$fusion(%x, %y, %z) {called_computations = [@fn.impl]}
      : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
func.func private @fn.impl(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>, %z: tensor<2x2xf32>)
    -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0]
      : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.add %0, %z : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
"""


def test_a_cudnn_fusion_runs_its_stablehlo_body() -> None:
    rng = np.random.default_rng(0)
    x, y, z = (rng.normal(size=s).astype(np.float32) for s in ((2, 3), (3, 2), (2, 2)))
    (got,) = run(CUDNN_FUSION, x, y, z)
    np.testing.assert_allclose(got, x @ y + z, rtol=1e-6)


def test_a_cudnn_fusion_without_its_body_is_an_error() -> None:
    text = CUDNN_FUSION.replace(" {called_computations = [@fn.impl]}", "")
    with pytest.raises(InterpreterError, match="needs called_computations = \\[@body\\]"):
        run(text, *(np.zeros(s, np.float32) for s in ((2, 3), (3, 2), (2, 2))))


@pytest.mark.cli
def test_the_cli_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    program = tmp_path / "kernel.mlir"
    program.write_text(PROGRAM.replace("TARGET", "tpu_custom_call"))
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "stablehlo-translate"),
            "--interpret",
            "--args=[dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>]",
            str(program),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "custom_call @tpu_custom_call is a Pallas TPU (Mosaic) kernel" in lines[0]
    assert "cannot be interpreted" in lines[0]
