"""``--publish URL``: a running ``serve``/``match``/``tournament`` shows its tables live in
``daihinmin web``.

:class:`TableWatcher` is a match observer: after the exchange and after every turn it makes
the public snapshot of the table (counts, classes, passes, places, field, last play, flags,
the turns so far and the per-game scores; the hands only with ``--publish-hands``).
:class:`TablePublisher` adds a background task that sends the newest snapshot over a
websocket to the web app's ``/ws/publish`` (``serve``/``match``; a tournament relays its
watchers' snapshots through its dispatcher, see ``daihinmin.tournament.publish``).
Publishing never slows or stops the match: only the latest snapshot is kept (a spectator
needs no stale one), and a web app that cannot be reached is warned about once and retried.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import trio
from daihinmin.contract.view import Observed
from daihinmin.driver.game import ExchangeDone, GameDriver, GameOver, Output, TurnDone
from daihinmin.driver.record import GameRecord, TurnRecord
from daihinmin.local.runner import DriverObserver
from daihinmin.players.human_render import move_text
from daihinmin.protocol.errors import ProtocolError
from daihinmin.records.matchlog import PlayerInfo
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import standings
from daihinmin.server.match_server import MatchObserver
from daihinmin.values.cards import CardParseError
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import Move
from daihinmin.watch.snapshot import RECENT_TURNS, cards_json, game_json

SCORE_ROWS = 50  # games listed in a watched table's scores (its totals count them all)

log = logging.getLogger("daihinmin.web")
T = TypeVar("T")

RETRY_SECONDS = 2.0
REFUSED_FOREVER = 4403  # the web app's close code for a missing or wrong token: no retry
FINISH_SECONDS = 3.0  # how long the end of the match waits to be sent


def publish_url(base: str) -> str:
    """The publish endpoint of a web app given as ``http://host:port`` (or ``ws://``), with
    the token ``daihinmin web`` printed (``?token=T``) kept.

    >>> publish_url("http://127.0.0.1:8080/?token=abc"), publish_url("ws://localhost:9000")
    ('ws://127.0.0.1:8080/ws/publish?token=abc', 'ws://localhost:9000/ws/publish')
    """
    from urllib.parse import urlsplit, urlunsplit

    url = base.strip()
    for http, ws in (("http://", "ws://"), ("https://", "wss://")):
        if url.startswith(http):
            url = ws + url[len(http):]
    if not url.startswith(("ws://", "wss://")):
        raise ValueError(f"--publish takes the web app's address, like http://127.0.0.1:8080; "
                         f"got {base!r}")
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/ws/publish"):
        path += "/ws/publish"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


class TableWatcher(MatchObserver):
    """Observes one match and keeps its newest public snapshot in ``latest``.

    ``latest`` is replaced, never changed in place, and ``version`` counts the changes, so
    a relay can hand on only what is new (a tournament worker's does).
    """

    def __init__(self, rules: RuleSet, games: int, source: str, show_hands: bool = False,
                 inner: MatchObserver | None = None, names: list[str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        self.inner = inner or MatchObserver()  # the command's own observer, told first
        self.rules = rules
        self.games = games
        self.source = source  # "match", "serve" or "tournament"
        self.show_hands = show_hands
        self.fixed_names = names is not None  # the names are the host's, not the clients'
        self.names = list(names) if names is not None else [
            f"p{p}" for p in range(rules.players)]
        self.extra = extra or {}  # more public fields of every snapshot (a tournament's match)
        self.latest: dict[str, Any] = self._empty()
        self.version = 0
        self.scores: list[dict[str, Any]] = []  # the last SCORE_ROWS games' rows only
        self.recent: list[str] = []
        self.turns = 0
        self.last: Observed | None = None
        self.status = "playing"

    # --- observer hooks ---------------------------------------------------------------------
    def listening(self, host: str, port: int) -> None:
        self.inner.listening(host, port)

    def player_joined(self, info: PlayerInfo) -> None:
        self.inner.player_joined(info)
        if not self.fixed_names and 0 <= info.number < len(self.names):
            self.names[info.number] = f"p{info.number} {info.name}"

    def turn_played(self, setup: GameSetup, state: GameState, turn: TurnRecord | None) -> None:
        self.inner.turn_played(setup, state, turn)
        if turn is None:
            self.recent, self.turns, self.last = [], 0, None
        else:
            self.turns += 1
            shown = turn.move
            try:
                move = Move.parse(turn.move)
                shown = move_text(move).plain
                if not move.is_pass and turn.answer == 9:
                    self.last = Observed(turn.player, move)
            except (CardParseError, MoveShapeError, ProtocolError):
                pass
            self.recent.append(f"{self.names[turn.player]}: {shown}"
                               + (f" [{turn.by} stand-in]" if turn.by else ""))
            self.recent = self.recent[-RECENT_TURNS:]
        state_json = game_json(self.rules, self.names, setup, state, self.last)
        if self.show_hands:
            for seat, hand in zip(state_json["seats"], state.hands, strict=True):
                seat["hand"] = cards_json(hand)
        self._update(game=setup.game, recent=list(self.recent),
                     recent_from=max(1, self.turns - RECENT_TURNS + 1), **state_json)

    def game_finished(self, record: GameRecord) -> None:
        self.inner.game_finished(record)
        # Bounded: a published 100,000-game match must not grow the server or every snapshot.
        self.scores.append({"game": record.game, "points": record.points,
                            "places": [p + 1 for p in record.places]})
        del self.scores[:-SCORE_ROWS]
        self._update(scores=list(self.scores),
                     totals=list(record.totals),
                     standings=standings(self.rules, record.totals, record.places))

    # --- snapshots ----------------------------------------------------------------------------
    def _empty(self) -> dict[str, Any]:
        n = self.rules.players
        return {"type": "state", "mode": "watch", "source": self.source, "status": "playing",
                "rules": self.rules.name, "players": n, "games": self.games, "game": 0,
                "you": None, "curtain": False, "hands_shown": self.show_hands, "scores": [],
                "totals": [0] * n, "seats": [
                    {"player": p, "name": self.names[p], "count": None, "class": "-",
                     "passed": False, "place": None, "title": None, "turn": False}
                    for p in range(n)], **self.extra}

    def _update(self, **changes: Any) -> None:
        self.latest = {**self.latest, **changes, "status": self.status}
        self.version += 1

    def hello(self) -> dict[str, Any]:
        return {"type": "hello", "source": self.source, "rules": self.rules.name,
                "players": self.rules.players, "games": self.games,
                "hands_shown": self.show_hands}


class TablePublisher(TableWatcher):
    """A :class:`TableWatcher` whose :meth:`run` sends each new snapshot to the web app."""

    def __init__(self, url: str, rules: RuleSet, games: int, source: str,
                 show_hands: bool = False, inner: MatchObserver | None = None) -> None:
        super().__init__(rules, games, source, show_hands, inner)
        self.url = publish_url(url)
        self.sent = -1
        self._changed = trio.Event()

    def _update(self, **changes: Any) -> None:
        super()._update(**changes)
        self._changed.set()
        self._changed = trio.Event()

    async def run(self) -> None:
        """Send snapshots until cancelled; reconnect when the web app goes away."""
        from trio_websocket import ConnectionClosed, HandshakeError, open_websocket_url

        warned = False
        while True:
            try:
                async with open_websocket_url(self.url) as ws:
                    await ws.send_message(json.dumps(self.hello()))
                    if warned:
                        log.warning("publishing to %s again", self.url)
                    warned = False
                    while True:
                        while self.sent == self.version:
                            await self._changed.wait()
                        version = self.version
                        await ws.send_message(json.dumps(self.latest))
                        self.sent = version
                        self._changed.set()  # wake finish()
                        self._changed = trio.Event()
            except (OSError, HandshakeError, ConnectionClosed) as exc:
                reason: Any = getattr(exc, "reason", None)
                if getattr(reason, "code", None) == REFUSED_FOREVER:
                    log.warning("the web app at %s refused to show the table (%s); the match "
                                "goes on unpublished", self.url, reason.reason)
                    return
                if not warned:
                    log.warning("cannot publish the table to %s (%s); the match goes on, "
                                "retrying every %g s", self.url, exc, RETRY_SECONDS)
                    warned = True
            await trio.sleep(RETRY_SECONDS)

    async def publishing(self, match: Awaitable[T]) -> T:
        """Run ``match`` while the snapshots are sent; the end is sent before returning."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.run)
            try:
                result = await match
                await self.finish()
            finally:
                nursery.cancel_scope.cancel()
        return result

    async def finish(self, status: str = "over") -> None:
        """Mark the match ended and give the sender a moment to deliver it."""
        self.status = status
        self._update()
        with trio.move_on_after(FINISH_SECONDS):
            while self.sent < self.version:
                await self._changed.wait()




def driver_observer(watcher: TableWatcher) -> DriverObserver:
    """A game driver's observer (``local.runner``'s ``observer``) that tells ``watcher`` what
    the driver says happened, as the TCP server tells it through its match observer."""

    def observe(driver: GameDriver, out: Output) -> None:
        state = driver.state
        if isinstance(out, ExchangeDone) and state is not None:
            watcher.turn_played(driver.setup, state, None)
        elif isinstance(out, TurnDone) and state is not None:
            watcher.turn_played(driver.setup, state, driver.record.turns[-1])
        elif isinstance(out, GameOver):
            watcher.game_finished(driver.record)

    return observe


__all__ = ["TablePublisher", "TableWatcher", "driver_observer", "publish_url"]
