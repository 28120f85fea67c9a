"""bench/scale.py runs end to end at small sizes (a smoke test: its figures are timings, so nothing
here asserts on them beyond their being there and sane; the bench is for reading, not for CI)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("scale", REPO / "bench" / "scale.py")
scale = importlib.util.module_from_spec(_spec)
_path = list(sys.path)
_spec.loader.exec_module(scale)
sys.path[:] = _path  # the bench puts bench/ first on the path for its imports; the tests do not
STEPS = list(scale.STEPS)  # the bench's step names, in the order its tables and JSON list them


def test_scale_quick(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    cmd = [sys.executable, str(REPO / "bench" / "scale.py"), "--quick", "--fractions", "1/2,1"]
    cmd += ["--dense-mb", "2", "--ops", "600", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(out.read_text())
    assert figures["dense"]["sizes"] == [1 << 20, 2 << 20]
    assert figures["ops"]["sizes"] == [300, 600]
    for kind in ("dense", "ops"):
        steps = figures[kind]["steps"]
        assert list(steps) == STEPS
        for name, fig in steps.items():
            per = fig["per_unit"]
            assert len(per) == 2 and all(math.isfinite(v) and v > 0 for v in per), name
            assert math.isfinite(fig["large_small"]) and fig["large_small"] > 0, name
            assert fig["peak"] >= 0, name
            if kind == "dense":
                assert fig["x_const"] == fig["peak"] / (2 << 20)
        # each table is printed with its rows and the large/small column
        table = proc.stdout.split(f"{kind} step", 1)[1]
        assert "large/small" in table.splitlines()[0]
        for name in STEPS:
            assert f"\n{name} " in table
    assert isinstance(figures["peak_per_step"], bool)
