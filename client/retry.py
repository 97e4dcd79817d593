"""How long the client waits: the default deadlines, and the backoff between connection tries.

A runner keeps trying to get seated until ``connect_timeout`` seconds after its first try:
a refused connection (the server is not listening yet, or its backlog is full) and one the
server closes before sending the player number (its handshake room was needed, see
``docs/SERVER_FAULTS.md``) are tried again after a pause that doubles from
:data:`FIRST_PAUSE` up to :data:`MAX_PAUSE`.  The player number must also come before that
deadline, so a server that accepts and then says nothing, or trickles the four bytes, ends
in a :class:`~daihinmin.client.errors.ServerTimeoutError` rather than a hang.  With
``connect_timeout=None`` there is one try and no deadline.

During the match every message must arrive whole within ``read_timeout`` seconds of the
client starting to wait for it (:data:`DEFAULT_READ_TIMEOUT`, ten minutes: a server waits at
most a few seconds per move for each other player, and much less than that for seating the
others; ``None`` waits for ever, as the reference client does).

>>> clock = [0.0]
>>> tries = Retry(1.0, clock=lambda: clock[0])
>>> pauses = []
>>> while (pause := tries.pause()) is not None:
...     pauses.append(pause); clock[0] += pause
>>> pauses
[0.05, 0.1, 0.2, 0.4, 0.25]
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import ClientError, ServerClosedError, ServerUnreachableError

DEFAULT_CONNECT_TIMEOUT = 10.0  # connecting (retries included) up to the player number
DEFAULT_READ_TIMEOUT = 600.0  # each server message once the client is seated
FIRST_PAUSE = 0.05
MAX_PAUSE = 1.0


class Retry:
    """The tries of one runner: the deadline, and the pause before the next try."""

    def __init__(self, timeout: float | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.timeout = timeout
        self.deadline = None if not timeout else clock() + timeout
        self._pause = FIRST_PAUSE
        self.closed: ServerClosedError | None = None  # the first "closed before seated"

    def left(self) -> float | None:
        """Seconds left before the deadline (None: no deadline); never below zero."""
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    def pause(self) -> float | None:
        """Seconds to wait before trying again, or None when no time is left for a try."""
        left = self.left()
        if left is None or left <= 0.0:  # no deadline: one try only, never a retry loop
            return None
        pause = min(self._pause, left)
        self._pause = min(self._pause * 2, MAX_PAUSE)
        return pause


    def after(self, exc: ServerUnreachableError | ServerClosedError, seated: bool
              ) -> float | None:
        """The pause before trying again after ``exc``; None: give up (:meth:`error`).
        A client once seated never tries again (the match went on without it)."""
        if isinstance(exc, ServerClosedError) and self.closed is None:
            self.closed = exc
        return None if seated else self.pause()

    def error(self, exc: ClientError) -> ClientError:
        """The error to raise on giving up: the server closing the handshake says more than
        the refusals after it (its listener closed when the seats were taken)."""
        if isinstance(exc, ServerUnreachableError) and self.closed is not None:
            return self.closed
        return exc


def wait_for(read_timeout: float | None, retry: Retry | None) -> float | None:
    """The deadline of one read: ``read_timeout``, but no later than the handshake's."""
    left = retry.left() if retry is not None else None
    if left is None:
        return read_timeout
    return left if read_timeout is None else min(left, read_timeout)


__all__ = ["DEFAULT_CONNECT_TIMEOUT", "DEFAULT_READ_TIMEOUT", "Retry", "wait_for"]
