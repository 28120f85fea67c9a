"""A missing optional dependency inside a pytest test is a skip with the reason; outside one, the
error itself."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from stablehlo_py.errors import StableHLOError

__all__ = ["in_pytest_test", "reason", "skip_or_raise"]


def in_pytest_test() -> bool:
    """Whether a pytest test (its setup, call or teardown) is running in this process."""
    return "pytest" in sys.modules and bool(os.environ.get("PYTEST_CURRENT_TEST"))


def reason(e: StableHLOError) -> str:
    """The error's message and note as one line (``jax is not installed (pip install jax)``)."""
    return e.message + (f" ({e.note})" if e.note else "")


def skip_or_raise(e: StableHLOError) -> NoReturn:
    """``pytest.skip(reason(e))`` inside a pytest test, else raise ``e``."""
    if in_pytest_test():
        import pytest

        pytest.skip(reason(e))
    raise e
