"""One deadline per decision, which every phase of it (sampling, refining, the root solver,
the search) checks on the same clock.

>>> t = [8.0]
>>> d = Deadline.start(250.0, lambda: t[0])
>>> d.left_ms(), d.past()
(250.0, False)
>>> t[0] = 8.125
>>> d.left_ms(), d.by_share(0.5), d.of_rest(0.5)  # half the budget; half of what is left
(125.0, 8.125, 8.1875)
>>> t[0] = 8.5
>>> d.past(), d.left_ms()
(True, 0.0)
>>> Deadline.start(0.0).past()  # no time budget: never past
False
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]  # seconds, monotonic (time.perf_counter)

#: share of a decision's budget the world sampling (proposals and refinement) may take
SAMPLE_SHARE = 0.4
#: share of what is left after sampling that the exact root solver may take
SOLVE_SHARE = 0.5


@dataclass(frozen=True)
class Deadline:
    """``end`` on ``clock`` (``math.inf``: no time budget, only playout caps)."""

    begin: float
    end: float
    clock: Clock

    @classmethod
    def start(cls, time_ms: float, clock: Clock = time.perf_counter) -> Deadline:
        now = clock()
        return cls(now, now + time_ms / 1000 if time_ms > 0 else math.inf, clock)

    @property
    def timed(self) -> bool:
        return self.end != math.inf

    def left_ms(self) -> float:
        return max(self.end - self.clock(), 0.0) * 1000 if self.timed else math.inf

    def past(self, until: float | None = None) -> bool:
        """Is the clock at or beyond ``until`` (default: the end)?"""
        return self.clock() >= (self.end if until is None else until)

    def by_share(self, share: float) -> float:
        """The clock time ``share`` of the budget after the start (``inf`` untimed)."""
        return self.begin + share * (self.end - self.begin) if self.timed else math.inf

    def of_rest(self, share: float) -> float:
        """The clock time ``share`` of the time left from now."""
        now = self.clock()
        return now + share * max(self.end - now, 0.0) if self.timed else math.inf


__all__ = ["SAMPLE_SHARE", "SOLVE_SHARE", "Clock", "Deadline"]
