"""Programs and helpers shared by the plugin's tests."""

from __future__ import annotations

import importlib.metadata

PLUGIN = "stablehlo_py.testing.plugin"


def _entry_point_installed() -> bool:
    eps = importlib.metadata.entry_points(group="pytest11")
    return any(ep.value.strip() == PLUGIN for ep in eps)


PLUGIN_ARGS: list[str] = [] if _entry_point_installed() else ["-p", PLUGIN]
"""What a pytester run passes to load the plugin (nothing once pyproject.toml registers it)."""

# JAX-style name locations (name stack "jit(f)/<scope>/<primitive>", the Python source as child);
# BUGGY is the same program with the subtract's operands swapped (same op keys).
MODEL = """func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %a = stablehlo.sine %x : tensor<4xf32> loc("jit(f)/block0/sin"("model.py":10:4))
  %h = stablehlo.constant dense<0.5> : tensor<4xf32> loc("jit(f)/block0/half"("model.py":11:4))
  %d = stablehlo.subtract %a, %h : tensor<4xf32> loc("jit(f)/block1/sub"("model.py":20:8))
  %e = stablehlo.exponential %d : tensor<4xf32> loc("jit(f)/block1/exp"("model.py":21:8))
  %z = stablehlo.constant dense<0.0> : tensor<f32> loc("jit(f)/zero"("model.py":30:4))
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0]
    : (tensor<4xf32>, tensor<f32>) -> tensor<f32> loc("jit(f)/sum"("model.py":31:4))
  return %s : tensor<f32>
}
"""
BUGGY = MODEL.replace("stablehlo.subtract %a, %h", "stablehlo.subtract %h, %a")
PLANTED_KEY = "jit(f)/block1/stablehlo.subtract#0"
"""The op key of the planted bug (`ir/text/name_stack.op_keys`)."""
