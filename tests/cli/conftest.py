"""Every test in this folder runs the command-line tools (most as a subprocess): marked ``cli``
(``pytest -m cli`` runs only them, ``-m "not cli"`` leaves them out)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # the hook sees the whole session's items: mark only this folder's
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.cli)
