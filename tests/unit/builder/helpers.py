"""What every builder test program must do: verify, round-trip through text and through a portable
artifact at the lowest version it can be written for, and compute what numpy computes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablehlo_py import minimum_version
from stablehlo_py.api import deserialize_portable_artifact, serialize_portable_artifact
from stablehlo_py.builder import Module
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import get_minimum_version


def check_program(
    m: Module,
    args: Sequence[Any],
    expected: Sequence[Any],
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    entry: str = "main",
    artifact: bool = True,
    spelt_defaults: bool = False,
) -> str:
    """Verify ``m``; its text parses back and prints identically; a portable artifact written for
    its minimum version (``stablehlo_py.minimum_version``) reads back to the same text; running
    ``entry`` on ``args`` gives ``expected`` (exactly, or within rtol/atol for transcendental
    results).  ``spelt_defaults``: the program gives an attribute its default value explicitly.
    Returns the text."""
    m.verify()
    text = m.text()
    assert print_ir(parse(text)) == text
    runs = [m.run(*args, entry=entry)]
    if artifact:
        floor = minimum_version(m.op).version
        assert floor >= get_minimum_version()
        back = deserialize_portable_artifact(serialize_portable_artifact(m.op, floor))
        back_text = print_ir(back)
        # upstream's vhlo-legalize-to-stablehlo drops attributes that hold their default
        # (`indices_are_sorted = false`), so the text read back equals ours unless the program spelt
        # a default out; it is then a fixed point and computes the same.
        if not spelt_defaults:
            assert back_text == text
        assert (
            print_ir(deserialize_portable_artifact(serialize_portable_artifact(back, floor)))
            == back_text
        )
        from stablehlo_py.interpreter import run

        runs.append(run(back, *args, entry=entry))
    for got in runs:
        _compare(got, expected, rtol, atol)
    return text


def _compare(got: Sequence[Any], expected: Sequence[Any], rtol: float, atol: float) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        e = np.asarray(e)
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        if rtol or atol:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, e)


def min_version_used(m: Module) -> str:
    return str(minimum_version(m.op).version)
