"""The limits that keep ``daihinmin web`` safe to leave running (``docs/WEB.md`` lists them).

Every resource a request can make the app hold is bounded: request bodies (read up to the
limit, never whole first), replay uploads (size, time, one at a time per client), tables
(in all and per client address, and a table nobody has open for a while is closed), open
websockets per client address, and published tables (a publisher needs the app's token).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class WebLimits:
    max_body: int = 64 * 1024  # bytes of a JSON request (every request of a page is small)
    max_upload: int = 2 * 1024 * 1024  # bytes of a match log sent to /api/replay
    upload_seconds: float = 10.0  # re-simulating one upload; longer: use `replay --html`
    uploads_at_once: int = 2  # uploads re-simulated at once (each client: one at a time)
    max_frames: int = 100_000  # frames of one uploaded replay (each about a kilobyte)
    max_tables: int = 500  # tables (rooms, CPU and hot-seat games) at once
    tables_per_client: int = 20  # tables one client address may have open at once
    table_idle_seconds: float = 600.0  # a table no page has open for this long is closed
    sockets_per_client: int = 256  # websockets one client address may hold open
    hello_seconds: float = 10.0  # a publisher's hello must arrive within this


class PerClient:
    """How many of something each client address holds, refused past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: Counter[str] = Counter()

    def take(self, client: str) -> bool:
        if self.held[client] >= self.limit:
            return False
        self.held[client] += 1
        return True

    def give_back(self, client: str) -> None:
        self.held[client] -= 1
        if self.held[client] <= 0:
            del self.held[client]


__all__ = ["PerClient", "WebLimits"]
