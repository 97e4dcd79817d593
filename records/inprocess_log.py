"""The server's match log, written for a match played in process.

An in-process match (``tournament --in-process``, ``mc_strength``, ``duplicate``) writes the
same JSON Lines as ``daihinmin serve``: the header (rules, seed, games, players), one ``game``
line per :class:`~daihinmin.driver.record.GameRecord` as it ends, and the ``end`` line, so
``daihinmin replay --verify`` re-simulates it.  The file is created exclusively and locked
while written (:mod:`daihinmin.records.outfile`); an existing file is refused unless
``overwrite``.  A match that stops early (a bot or the process fails) ends ``aborted``.

>>> import tempfile
>>> from pathlib import Path
>>> from daihinmin.rules.ruleset import UECDA
>>> from daihinmin.players.registry import make_bot
>>> from daihinmin.local.runner import play_local_match
>>> from daihinmin.records.matchlog import read_match_log
>>> from daihinmin.records.replay import verify_log
>>> path = Path(tempfile.mkdtemp(), "m.jsonl")
>>> with LocalMatchLog.open(path, UECDA, seed=4, games=2, names=["a", "b", "c", "d", "e"]
...                         ) as log:
...     log.finish(play_local_match(UECDA, 4, 2, [make_bot("default") for _ in range(5)],
...                                 on_game=log.game))
>>> summary = verify_log(read_match_log(path))
>>> summary.games, summary.complete
(2, True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from daihinmin.driver.record import GameRecord
from daihinmin.records.matchlog import MatchEnd, MatchHeader, MatchLogWriter, PlayerInfo
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet

#: The header's protocol number of a seat played by a bot in the same process (no wire).
IN_PROCESS_PROTOCOL = 0


class LocalMatchLog:
    """One in-process match's log: :meth:`game` after every game, :meth:`finish` at the end
    (leaving the ``with`` block without it writes an ``aborted`` end)."""

    def __init__(self, writer: MatchLogWriter) -> None:
        self.writer = writer
        self.games_played = 0
        self.totals: list[int] = []
        self._start = time.monotonic()
        self._ended = False

    @classmethod
    def open(cls, path: Path, rules: RuleSet, seed: int, games: int, names: Sequence[str],
             overwrite: bool = False, durable: bool = False,
             start: MatchState | None = None,
             protocol: int = IN_PROCESS_PROTOCOL) -> LocalMatchLog:
        """``start``: a match that does not begin at game 1 (its next game, classes and
        seats go into the header, so replay begins there too); ``protocol``: what the
        players' entries say they spoke (the browser's tables say theirs)."""
        writer = MatchLogWriter.open(path, durable=durable, overwrite=overwrite)
        later = None if start is None or start.game == 1 else {
            "game": start.game, "seats": list(start.seats or range(rules.players)),
            "classes": None if start.classes is None else list(start.classes)}
        writer.write_header(MatchHeader.starting_now(
            rules, seed, games, [PlayerInfo(p, name, protocol) for p, name in enumerate(names)],
            start=later))
        return cls(writer)

    def game(self, record: GameRecord) -> None:
        self.writer.write_game(record)
        self.games_played += 1
        self.totals = list(record.totals)

    def finish(self, match: MatchState, error: str | None = None) -> None:
        """The end line: ``complete`` when the match played every game."""
        self._end("complete" if match.finished and error is None else "aborted", error)

    def _end(self, status: str, error: str | None) -> None:
        if self._ended:
            return
        self._ended = True
        self.writer.write_end(MatchEnd(self.games_played, self.totals, status, error,
                                       round(time.monotonic() - self._start, 3)))

    def __enter__(self) -> LocalMatchLog:
        return self

    def close(self, match: MatchState, error: str | None = None) -> None:
        """The end line (as :meth:`finish`) and the file closed: for a writer that cannot
        hold the log in a ``with`` block."""
        try:
            self.finish(match, error)
        finally:
            self.writer.close()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            self._end("aborted", None if exc is None else f"{type(exc).__name__}: {exc}")
        finally:
            self.writer.close()


__all__ = ["IN_PROCESS_PROTOCOL", "LocalMatchLog"]
