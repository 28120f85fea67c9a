"""Verification entry point: xDSL's structural checks plus each op's spec constraints (`verify_`),
reported as one `VerifyError` naming the op and its location."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import VerifyError


def verify(op: Operation) -> None:
    try:
        op.verify()
    except VerifyException as e:
        raise VerifyError(_message(e)) from None


def _message(e: VerifyException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else "verification failed"
