"""The builder's error: bad input to an op function (operand, attribute, result type, region)."""

from __future__ import annotations

from stablehlo_py.errors import StableHLOError


class BuildError(StableHLOError):
    """An op could not be built: the message names the op and the operand or attribute at fault,
    and says what was expected; ``location`` is the Python call site (``file:line:col``) that
    built it -- always set when the error reaches the producer (``stablehlo_py.builder.sites``).
    When an op failed its check: ``op`` is its name and ``operands`` its operands as
    ``(spec name, type)`` pairs (``("inputs[1]", tensor<2xf32>)``); else None."""

    op: str | None = None
    operands: list[tuple[str, object]] | None = None

    def at(self, location: str | None) -> BuildError:
        """Point the error at ``location`` (``file:line:col``); returns the error."""
        self.location = location
        self.args = (self.render(),)
        return self

    def also(self, note: str) -> BuildError:
        """One more ``note:`` line (after the ones it has); returns the error."""
        self.note = note if not self.note else f"{self.note}\n{note}"
        self.args = (self.render(),)
        return self

    def render(self) -> str:
        """As ``StableHLOError.render``, each note line with its own ``note:`` prefix."""
        where = f"{self.location}: " if self.location else ""
        text = f"{where}error: {self.message}"
        for line in (self.note or "").splitlines():
            text += f"\n{where}note: {line}"
        return text
