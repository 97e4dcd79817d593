"""Tables published by a running ``serve``/``match`` (``--publish``), as spectators see them.

A publisher sends a hello, then snapshots; each is checked and relayed to the feed's
spectators.  Whatever the publisher sends, a spectator gets no seat, no question and no
hand unless the publisher said in its hello that the hands are shown (``--publish-hands``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .watched import Watched, json_object

MAX_PUBLISHED = 256 * 1024  # bytes of one snapshot (six hands shown fit many times over)
MAX_FEEDS = 256  # published tables at once (a tournament publishes one per table slot)
MAX_GAMES = 10_000_000  # games of a published match (the match log's bound)
KEEP_ENDED = 32  # finished published tables still listed (the oldest are forgotten)


class FeedError(ValueError):
    """A publisher's message that is not a snapshot."""


@dataclass
class Feed(Watched):
    id: str
    source: str
    rules: str
    players: int
    games: int
    hands_shown: bool
    latest: dict[str, Any] = field(default_factory=dict)
    text: str = ""  # ``latest`` as sent: encoded once per change, whatever the spectators
    status: str = "playing"  # playing, over, ended (the publisher went away first)
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @classmethod
    def from_hello(cls, feed_id: str, text: str) -> Feed:
        hello = _object(text)
        if hello.get("type") != "hello":
            raise FeedError("a publisher starts with a hello")
        players, games = hello.get("players"), hello.get("games")
        if type(players) is not int or type(games) is not int:
            raise FeedError("the hello needs players and games (whole numbers)")
        if not 3 <= players <= 6:
            raise FeedError("players must be 3..6")
        if not 1 <= games <= MAX_GAMES:
            raise FeedError(f"games must be 1..{MAX_GAMES}")
        return cls(feed_id, str(hello.get("source", "match"))[:16],
                   str(hello.get("rules", "?"))[:200], players, games,
                   hello.get("hands_shown") is True)

    def update(self, text: str) -> None:
        state = _object(text)
        seats = state.get("seats")
        if state.get("type") != "state" or not isinstance(seats, list) \
                or len(seats) != self.players:
            raise FeedError("a snapshot is a state with one entry per seat")
        for key in ("hand", "prompt"):
            state.pop(key, None)
        for seat in seats:
            if not isinstance(seat, dict):
                raise FeedError("each seat is an object")
            if not self.hands_shown:
                seat.pop("hand", None)
        status = state.get("status")
        self.status = status if status in ("playing", "over") else "playing"
        state.update({"table": self.id, "mode": "watch", "you": None, "curtain": False,
                      "source": self.source, "status": self.status,
                      "hands_shown": self.hands_shown})
        self.latest = state
        self.text = json.dumps(state)
        self.changed()

    def ended(self) -> None:
        if self.status != "over":
            self.status = "ended"
            self.latest = {**self.latest, "status": "ended"}
            self.text = json.dumps(self.latest) if self.text else ""
        self.changed()

    def listing(self) -> dict[str, Any]:
        names = [s.get("name", "?") for s in self.latest.get("seats", [])
                 if isinstance(s, dict)]
        return {"id": self.id, "mode": f"live {self.source}", "rules": self.rules,
                "status": self.status, "game": self.latest.get("game", 0),
                "games": self.games, "players": names, "started": self.started}


def forget_ended(feeds: dict[str, Feed], keep: int = KEEP_ENDED) -> None:
    """Forget the oldest finished feeds beyond ``keep`` (the web app's memory stays flat
    however many matches publish over its life; a page still open keeps its own copy)."""
    ended = [key for key, feed in feeds.items() if feed.status != "playing"]
    for key in ended[:max(0, len(ended) - keep)]:
        del feeds[key]


def _object(text: str) -> dict[str, Any]:
    return json_object(text, MAX_PUBLISHED, FeedError)


__all__ = ["MAX_FEEDS", "Feed", "FeedError", "forget_ended"]
