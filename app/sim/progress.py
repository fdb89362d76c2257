"""Progress of a long simulation on stderr: on a terminal one line redrawn at most twice a
second; into a file (a CI log, `2> run.log`) plain lines, one every ten seconds, because a
``\\r``-redrawn line there is one unreadable line of thousands of overwritten states."""

from __future__ import annotations

import sys
import time
from typing import TextIO

TERMINAL_INTERVAL = 0.5
FILE_INTERVAL = 10.0


class TextProgress:
    def __init__(self, label: str, stream: TextIO | None = None,
                 interval: float | None = None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty and isatty())
        if interval is None:
            interval = TERMINAL_INTERVAL if self.terminal else FILE_INTERVAL
        self.interval = interval
        self.start = time.perf_counter()
        self._last = -interval
        self._drawn = False
        self._state: tuple[float, float, int] | None = None
        self._shown: tuple[float, float, int] | None = None

    def __call__(self, t: float, end: float, events: int) -> None:
        self._state = (t, end, events)
        now = time.perf_counter() - self.start
        if now - self._last < self.interval and t < end:
            return
        self._last = now
        self._draw(now, t, end, events)

    def _draw(self, now: float, t: float, end: float, events: int) -> None:
        pct = 100.0 * t / end if end > 0 else 100.0
        rate = events / now if now > 0 else 0.0
        text = (f"{self.label}: t {t:,.1f}/{end:,g} ({pct:5.1f}%)  {events:,} events  "
                f"{rate:,.0f} events/s")
        self.stream.write(f"\r{text} " if self.terminal else text + "\n")
        self.stream.flush()
        self._drawn = True
        self._shown = (t, end, events)

    def close(self) -> None:
        """Draw the final state (it may have been throttled) and end the line."""
        if self._drawn and self._state is not None and \
                (self.terminal or self._state != self._shown):
            self._draw(time.perf_counter() - self.start, *self._state)
        if self._drawn and self.terminal:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False
