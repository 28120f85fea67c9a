"""A missing backend is a clear error naming the extra (stablehlo_py/backends/availability.py)."""

from __future__ import annotations

import sys

import pytest

from stablehlo_py.backends import BackendUnavailable, require_iree, require_xla, tolerance


def test_missing_backend_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError
    with pytest.raises(BackendUnavailable) as e:
        require_xla()
    assert "XLA (jax and jaxlib) is not installed" in str(e.value)
    assert "pip install 'stablehlo-py[oracle]'" in str(e.value)
    monkeypatch.setitem(sys.modules, "iree.runtime", None)
    monkeypatch.setitem(sys.modules, "iree.compiler", None)
    with pytest.raises(BackendUnavailable, match=r"stablehlo-py\[iree\]"):
        require_iree()


def test_tolerance_is_exact_for_integers_and_widest_for_half() -> None:
    import numpy as np

    assert tolerance(np.int32) == (0.0, 0.0)
    assert tolerance(np.bool_) == (0.0, 0.0)
    assert tolerance(np.float16) == (2e-2, 2e-2)
    assert tolerance(np.float32) == (2e-4, 2e-5)
    assert tolerance(np.float64) == (1e-10, 1e-12)
