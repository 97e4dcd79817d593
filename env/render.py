"""What ``render()`` shows: a spectator's view of the table (every hand face up).

Unlike an observation, a rendering is for a person watching (or debugging) and shows all the
cards: ``render_mode="ansi"`` gives a few lines of text, ``render_mode="html"`` the replay
viewer's page (the same frames ``daihinmin replay --html`` writes) of the episode so far.
"""

from __future__ import annotations

from typing import Any

from daihinmin.driver.game import ExchangeDone, GameDriver, GameOver, TurnDone
from daihinmin.players.human_render import event_notes, move_text
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet

SPECTATOR_NOTE = "spectator's view: every hand face up"


def _names(players: int) -> list[str]:
    return [f"p{p} player_{p}" for p in range(players)]


def text_frame(driver: GameDriver, match: MatchState | None) -> str:
    """The table now as text: the game, the flags, the field, then one line per player."""
    setup, state = driver.setup, driver.state
    games = f"/{match.games}" if match is not None else ""
    head = f"{setup.rules.name}  game {setup.game}{games}"
    if state is None:
        rows = [f"p{p}  [{len(h):2}] {h}" for p, h in enumerate(setup.hands)]
        return "\n".join([f"{head}  (deal and exchange)", *rows])
    flags = [name for name, on in (("revolution", state.revolution),
                                   ("11-back", state.eleven_back),
                                   ("lock", state.lock and state.field is not None),
                                   ("geki", state.geki), ("reversed", state.direction == -1))
             if on]
    places = state.places()
    field = ("empty" if state.field is None
             else f"{move_text(state.field).plain} (p{state.owner})")
    lines = [f"{head}  turn {state.turns}" + (f"  [{', '.join(flags)}]" if flags else ""),
             f"field: {field}" + (f"  pile: {len(state.pile)}" if state.pile else "")]
    for p, hand in enumerate(state.hands):
        marks = []
        if not state.over and state.turn == p:
            marks.append("to move")
        if state.passed >> p & 1:
            marks.append("passed")
        if places[p] >= 0:
            marks.append(f"place {places[p] + 1}")
        lines.append(f"p{p}  [{len(hand):2}] {CardSet(hand.mask)}"
                     + (f"  ({', '.join(marks)})" if marks else ""))
    return "\n".join(lines)


class FrameLog:
    """The episode's games as the replay page's frames (kept with ``render_mode="html"``)."""

    def __init__(self) -> None:
        self.games: list[dict[str, Any]] = []

    def add(self, driver: GameDriver, out: ExchangeDone | TurnDone | GameOver) -> None:
        from daihinmin.web.replay_frames import table_frame

        state = driver.state
        assert state is not None
        names = _names(state.n_players)
        if isinstance(out, ExchangeDone):
            lines = [f"{names[t.giver]} → {names[t.receiver]}: {t.cards}"
                     + (" (automatic)" if t.automatic else "") for t in out.transfers]
            self.games.append({"game": out.game, "points": [], "places": [], "totals": [],
                               "stand_in": False,
                               "frames": [{"turn": 0, "text": "after the deal and exchange",
                                           "exchange": lines, **table_frame(state)}]})
            return
        game = self.games[-1]
        if isinstance(out, TurnDone):
            events = list(out.step.events)
            for choice in out.choices:
                events += choice.events
            frames = game["frames"]
            frames.append({"turn": len(frames), "player": out.player,
                           "text": f"{names[out.player]}: {move_text(out.observed.move).plain}",
                           "notes": event_notes(events, names), **table_frame(state)})
            return
        game["points"] = list(out.result.points)
        game["places"] = [p + 1 for p in out.result.places]
        assert driver.match is not None
        game["totals"] = list(driver.match.points)

    def data(self, rules: RuleSet, seed: int, games: int) -> dict[str, Any]:
        """The frames as the replay page reads them."""
        done = len(self.games) == games and bool(self.games[-1]["places"])
        return {"rules": rules.name, "seed": seed, "games_planned": games,
                "names": _names(rules.players), "games": self.games, "complete": done}

    def page(self, rules: RuleSet, seed: int, games: int) -> str:
        """The replay page of the episode so far (one self-contained HTML document)."""
        from daihinmin.web.replay_html import replay_page_pieces

        data = self.data(rules, seed, games)
        head = {k: v for k, v in data.items() if k != "games"}
        return "".join(replay_page_pieces(head, data["games"]))


__all__ = ["SPECTATOR_NOTE", "FrameLog", "text_frame"]
