"""The toolkit's one exception family.

Every message says what went wrong, where (``file:line:col`` or an op location) and, when it can,
what would fix it.  The CLI prints ``str(error)`` and exits non-zero; nothing else escapes.
"""

from __future__ import annotations


class StableHLOError(Exception):
    """Base class of every error the toolkit raises on bad input."""

    def __init__(self, message: str, *, location: str | None = None, note: str | None = None):
        self.message = message
        self.location = location
        self.note = note
        super().__init__(self.render())

    def render(self) -> str:
        text = (
            f"{self.location}: error: {self.message}" if self.location else f"error: {self.message}"
        )
        if self.note:
            text += f"\n{self.location + ': ' if self.location else ''}note: {self.note}"
        return text


class ParseError(StableHLOError):
    """The text is not valid StableHLO/MLIR syntax."""


class VerifyError(StableHLOError):
    """The IR parsed but breaks a constraint of the spec.  `following` holds the further errors
    upstream emits right after this one (e.g. "'op' op failed to infer returned types")."""

    following: list[StableHLOError]

    def __init__(self, message: str, *, location: str | None = None, note: str | None = None):
        super().__init__(message, location=location, note=note)
        self.following = []


class VersionError(StableHLOError):
    """A version is out of range, or a program cannot be written for a requested version."""


class SerializationError(StableHLOError):
    """A portable artifact cannot be written or read."""


class InterpreterError(StableHLOError):
    """A program cannot be interpreted (unsupported op, bad arguments, failed check)."""


class NotSupportedError(StableHLOError):
    """A feature that stablehlo-py does not implement yet."""
