"""Progress of a long job on stderr (a traced run; the reducer).

`start_progress(total, desc)` gives a tqdm bar when tqdm is installed (the optional ``progress``
extra) and stderr is a terminal; otherwise a plain line (``trace @main: 1200/5000 op, 8000 runs,
10 s``) at most every ``interval`` seconds, so a job shorter than that prints nothing.  Callers say where
they are with ``update(done, note)`` as often as they like (both forms throttle) and ``close()``
at the end.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["PLAIN_INTERVAL", "Progress", "start_progress"]

PLAIN_INTERVAL = 5.0
"""Seconds between two plain progress lines."""
_TQDM_INTERVAL = 0.1


def _now() -> float:
    return time.monotonic()


class Progress:
    """The plain form: a line on ``stream`` at most every ``interval`` seconds."""

    def __init__(
        self,
        total: int | None,
        desc: str,
        *,
        unit: str = "it",
        stream: TextIO | None = None,
        interval: float = PLAIN_INTERVAL,
    ) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.start = self.last = _now()
        self.done, self.note = 0, ""
        self.printed = 0

    def update(self, done: int, note: str = "") -> None:
        self.done, self.note = done, note
        now = _now()
        if now - self.last >= self.interval:
            self.last = now
            self.show(now)

    def show(self, now: float) -> None:
        of = f"/{self.total}" if self.total is not None else ""
        note = f", {self.note}" if self.note else ""
        line = f"{self.desc}: {self.done}{of} {self.unit}{note}, {now - self.start:.0f} s"
        print(line, file=self.stream, flush=True)
        self.printed += 1

    def close(self) -> None:
        if self.printed:  # a line was printed: say where it ended
            self.show(_now())


class _TqdmProgress(Progress):
    """The tqdm form (a bar redrawn at most every 0.1 s)."""

    def __init__(self, tqdm: Any, total: int | None, desc: str, *, unit: str, stream: TextIO):
        super().__init__(total, desc, unit=unit, stream=stream, interval=_TQDM_INTERVAL)
        self.bar = tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False)

    def show(self, now: float) -> None:
        self.bar.update(self.done - self.bar.n)
        self.bar.set_postfix_str(self.note, refresh=True)

    def close(self) -> None:
        self.show(_now())
        self.bar.close()


def start_progress(
    total: int | None,
    desc: str,
    *,
    unit: str = "it",
    stream: TextIO | None = None,
    interval: float = PLAIN_INTERVAL,
) -> Progress:
    """A progress display for a job of ``total`` steps (None: unknown) on ``stream`` (stderr)."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return _TqdmProgress(tqdm, total, desc, unit=unit, stream=stream)
    return Progress(total, desc, unit=unit, stream=stream, interval=interval)
