"""Fixtures of the oracle tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def x64() -> Iterator[None]:
    """`jax_enable_x64` on for a whole module (`pytestmark = pytest.mark.usefixtures("x64")`), as
    it was before afterwards."""
    jax = pytest.importorskip("jax")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)
