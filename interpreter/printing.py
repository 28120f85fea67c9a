"""Printing interpreter values the way upstream's `stablehlo-translate --interpret` does."""

from __future__ import annotations

from typing import Any


def format_value(value: Any, np: Any) -> str:
    from stablehlo_py.interpreter.evaluator import Token

    if isinstance(value, Token):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        return "tuple(" + ", ".join(format_value(v, np) for v in value) + ")"
    arr = np.asarray(value)
    return f"{arr.dtype}{list(arr.shape)} {arr.tolist()}"
