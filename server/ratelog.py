"""Warnings at a bounded rate: a flood of bad connections must not flood stderr too.

Each kind of warning is written at most once per ``interval`` seconds; the ones held back
are counted, and the next line of that kind says how many there were.  ``counts`` has the
total per kind (for a summary line at the end).

>>> import logging, io
>>> out = io.StringIO(); logger = logging.getLogger("ratelog-doc")
>>> logger.addHandler(logging.StreamHandler(out)); logger.propagate = False
>>> now = [0.0]
>>> warn = RateLimitedLog(logger, interval=1.0, clock=lambda: now[0])
>>> for _ in range(3):
...     warn("timeout", "connection closed: no profile")
>>> now[0] = 2.0
>>> warn("timeout", "connection closed: no profile")
>>> print(out.getvalue().strip()); dict(warn.counts)
connection closed: no profile
connection closed: no profile (and 2 more like it since the last such line)
{'timeout': 4}
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable


class RateLimitedLog:
    def __init__(self, logger: logging.Logger, interval: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self.counts: Counter[str] = Counter()
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()

    def __call__(self, kind: str, message: str) -> None:
        self.counts[kind] += 1
        now = self.clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            self._held[kind] += 1
            return
        held = self._held.pop(kind, 0)
        self._last[kind] = now
        self.logger.warning("%s", message + (f" (and {held} more like it since the last "
                                             "such line)" if held else ""))

    def summary(self) -> str:
        """E.g. ``3 no profile in time, 1 bad profile`` (empty when nothing was logged)."""
        return ", ".join(f"{n} {kind}" for kind, n in self.counts.most_common())


__all__ = ["RateLimitedLog"]
