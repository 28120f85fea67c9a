"""Running a built module on StableHLO's consumers in tests: the runners themselves are
``stablehlo_py.backends`` (XLA through jaxlib, IREE; see its modules for how each reads our
artifacts); this module turns a missing backend into a skip naming the extra, and adds the
comparison and the VHLO-fork checks the oracle tests use.

Tolerances per dtype: :func:`assert_close` (``stablehlo_py.backends.tolerance``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from stablehlo_py import backends
from stablehlo_py.backends import (  # noqa: F401  (re-exported for the oracle tests)
    IREE_FLAGS,
    IREE_STABLEHLO,
    artifact,
    artifact_target,
    jaxlib_stablehlo,
    static_for,
    tolerance,
)
from stablehlo_py.backends.artifact import _version_key
from stablehlo_py.backends.static import entry_arg_types as main_arg_types  # noqa: F401


def _vhlo_forks() -> list[dict[str, Any]]:
    import tomllib
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "specs" / "ops.toml"
    return tomllib.loads(spec.read_text())["op"]


def newest_fork_version() -> str:
    """The version at which the newest VHLO fork of ``specs/ops.toml`` starts (1.20.0)."""
    return max((o["min"] for o in _vhlo_forks()), key=_version_key)


def iree_vhlo_forks_missing() -> list[str]:
    """The VHLO forks of ``specs/ops.toml`` IREE's context does not register (none for 3.13)."""
    from iree.compiler import ir

    ctx = ir.Context()
    return [o["mnemonic"] for o in _vhlo_forks() if not ctx.is_registered_operation(o["mnemonic"])]


# ------------------------------------------------------------------------ availability
def require_xla() -> Any:
    """jax, or a skip saying which extra brings it."""
    return pytest.importorskip("jax", reason="XLA is reached through jax/jaxlib (the oracle extra)")


def require_iree(runtime: bool = True) -> tuple[Any, Any]:
    """IREE's compiler and (with ``runtime``) runtime modules, or a skip saying which extra brings
    them (the ``oracle`` extra has the compiler alone)."""
    ic = pytest.importorskip(
        "iree.compiler", reason="IREE's compiler is the optional `iree` extra (iree-base-compiler)"
    )
    if not runtime:
        return ic, None
    rt = pytest.importorskip(
        "iree.runtime", reason="IREE's runtime is the optional `iree` extra (iree-base-runtime)"
    )
    return ic, rt


REQUIRE = {"xla": require_xla, "iree": require_iree}
"""Per consumer: skip unless it is installed (call it before any costly preparation)."""


def run_xla(module: ModuleOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``module``'s ``main`` on XLA (CPU), or a skip without jax."""
    require_xla()
    return backends.run_xla(module, args)


def iree_compile(module: ModuleOp, flags: Sequence[str] = IREE_FLAGS) -> bytes:
    require_iree(runtime=False)
    return backends.iree_compile(module, flags)


def iree_function(
    module: ModuleOp, entry: str = "main", flags: Sequence[str] = IREE_FLAGS
) -> Callable[..., list[np.ndarray]]:
    require_iree()
    return backends.iree_function(module, entry, flags)


def run_iree(
    module: ModuleOp,
    args: Sequence[np.ndarray],
    entry: str = "main",
    flags: Sequence[str] = IREE_FLAGS,
) -> list[np.ndarray]:
    """``module``'s ``entry`` on IREE, or a skip without IREE."""
    require_iree()
    return backends.run_iree(module, args, entry, flags)


def assert_close(got: Sequence[Any], want: Sequence[Any], what: str) -> None:
    """``got`` equals ``want`` result by result: same count, shape and dtype; equal (integers,
    booleans) or close within the dtype's tolerance (floats, complex)."""
    assert len(got) == len(want), f"{what}: {len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), (
            f"{what}: result #{i} is {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        )
        rtol, atol = tolerance(w.dtype)
        if rtol == 0.0:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: result #{i}")
        else:
            wide = np.complex128 if np.iscomplexobj(w) else np.float64
            np.testing.assert_allclose(
                g.astype(wide),
                w.astype(wide),
                rtol=rtol,
                atol=atol,
                err_msg=f"{what}: result #{i}",
            )
