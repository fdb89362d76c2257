"""A plain-text progress line on stderr for long simulations, redrawn at most twice a second."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class TextProgress:
    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 0.5):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.start = time.perf_counter()
        self._last = -interval
        self._drawn = False
        self._state: tuple[float, float, int] | None = None

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
        self.stream.write(f"\r{self.label}: t {t:,.1f}/{end:,g} ({pct:5.1f}%)  "
                          f"{events:,} events  {rate:,.0f} events/s ")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Draw the final state (it may have been throttled) and end the line."""
        if self._drawn and self._state is not None:
            self._draw(time.perf_counter() - self.start, *self._state)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
