"""A match log as frames to step through: every game re-simulated by the engine, turn by turn.

Each frame is the table after one turn (all hands face up: a log holds them all), with the
move, who played it (a stand-in is named), what it caused and the state flags.  The engine's
re-simulation checks the log on the way (the same checks as ``daihinmin replay --verify``),
so a replay never shows a game the rules would not have produced.

Cards are card numbers (jokers 60, 61); the page names them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from daihinmin.driver.record import GameRecord
from daihinmin.players.human_render import event_notes, move_text
from daihinmin.records.errors import MatchLogError
from daihinmin.records.matchlog import MatchLog, parse_lines, read_match_log
from daihinmin.records.replay import (
    LogMismatchError,
    ReplayedTurn,
    new_match,
    recorded_deals,
    replay_game,
)
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameResult, MatchState

MAX_LOG_BYTES = 64 * 1024 * 1024


class LogFramesError(ValueError):
    """The log cannot be read or disagrees with the engine."""


def _table(game: GameState) -> dict[str, Any]:
    return {"hands": [list(h) for h in game.hands], "turn_player": game.turn,
            "field": None if game.field is None else {"text": move_text(game.field).plain,
                                                      "cards": list(game.field.hand_cards())},
            "passed": [bool(game.passed >> p & 1) for p in range(game.n_players)],
            "places": [p + 1 if p >= 0 else None for p in game.places()],
            "flags": {"revolution": game.revolution, "eleven_back": game.eleven_back,
                      "lock": game.lock and game.field is not None, "geki": game.geki,
                      "reversed": game.reversed, "backwards": game.direction == -1},
            "over": game.over}


def _game_frames(match: MatchState, record: GameRecord, names: list[str], recorded: bool
                 ) -> tuple[list[dict[str, Any]], GameResult]:
    """One logged game's frames (re-simulated and checked) and its result."""
    exchange = [f"{names[t.giver]} → {names[t.receiver]}: {t.cards}"
                + (" (automatic)" if t.automatic else "")
                + (f" [{t.by}]" if t.by else "") for t in record.transfers]
    shown: list[dict[str, Any]] = []

    def show(game: GameState, replayed: ReplayedTurn | None) -> None:
        if replayed is None:
            shown.append({"turn": 0, "text": "after the deal and exchange",
                          "exchange": exchange, **_table(game)})
            return
        turn, step = replayed.record, replayed.step
        text = f"{names[turn.player]}: {move_text(step.move).plain}" + (
            f" [{turn.by}]" if turn.by else "")
        shown.append({"turn": len(shown), "player": turn.player, "text": text,
                      "notes": event_notes(step.events, names), **_table(game)})

    result = replay_game(match, record, show, recorded_deal=recorded).result
    assert result is not None
    return shown, result


@dataclass(frozen=True)
class FramesBudget:
    """How much one replay may cost (the web app's uploads): frames and a deadline."""

    max_frames: int
    deadline: float  # time.monotonic() by which the frames must be built


def frames(log: MatchLog, budget: FramesBudget | None = None) -> dict[str, Any]:
    """Every game of ``log`` as frames (raises :class:`LogFramesError` on a mismatch, or
    when ``budget`` runs out)."""
    head, games = frames_by_game(log, budget)
    return {**head, "games": list(games)}


def frames_by_game(log: MatchLog, budget: FramesBudget | None = None
                   ) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """What :func:`frames` returns but its ``games``, and the games one by one, each built
    as it is asked for (a page of a long log is written in the memory of one game)."""
    header = log.header
    match = new_match(log)
    known = {i.number: i.name for i in log.players}
    names = [f"p{p} {known.get(p, '?')}" for p in range(match.rules.players)]

    def games() -> Iterator[dict[str, Any]]:
        count = 0
        try:
            for record in log.games:
                shown, result = _game_frames(match, record, names, recorded_deals(log))
                count += len(shown)
                if budget is not None and (count > budget.max_frames
                                           or time.monotonic() > budget.deadline):
                    raise LogFramesError(f"the log is too long to replay here (game "
                                         f"{record.game}); `daihinmin replay --html` makes a "
                                         "page of any log")
                yield {"game": record.game, "frames": shown, "points": list(result.points),
                       "places": [p + 1 for p in result.places],
                       "totals": list(match.points), "stand_in": record.stand_in}
        except LogMismatchError as exc:
            raise LogFramesError(f"the log disagrees with the engine: {exc}") from exc

    head = {"rules": header.rules.get("name", "?"), "seed": header.seed,
            "games_planned": header.games, "names": names,
            "complete": log.end is not None and log.end.status == "complete"}
    return head, games()


def frames_from_text(text: str, budget: FramesBudget | None = None) -> dict[str, Any]:
    if len(text) > MAX_LOG_BYTES:
        raise LogFramesError("the log is too large")
    try:
        log = parse_lines(text.splitlines(keepends=True), "uploaded log")
    except MatchLogError as exc:
        raise LogFramesError(str(exc)) from exc
    return frames(log, budget)


def frames_from_file(path: Path) -> dict[str, Any]:
    try:
        return frames(read_match_log(path))
    except MatchLogError as exc:
        raise LogFramesError(str(exc)) from exc


def frames_script_pieces(head: dict[str, Any], games: Iterable[dict[str, Any]]
                         ) -> Iterator[str]:
    """:func:`frames_script` of ``{**head, "games": games}``, a game at a time."""
    yield frames_script(head)[:-1] + ',"games":['
    for i, game in enumerate(games):
        yield ("," if i else "") + frames_script(game)
    yield "]}"


def frames_script(data: dict[str, Any]) -> str:
    """The frames as a JSON text safe inside a ``<script>`` element: every ``<`` (it only
    occurs inside strings) is written ``\\u003c``, so no name can close the element or open
    a comment (``<!--``) or a ``<script`` that would swallow the rest of the page."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


__all__ = ["FramesBudget", "LogFramesError", "frames", "frames_by_game", "frames_from_file",
           "frames_from_text", "frames_script", "frames_script_pieces"]
