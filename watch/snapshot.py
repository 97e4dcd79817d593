"""The public snapshot of a table: what every client of the server learns too.

Per seat its card count, class, pass and place; the field, the last play, the state flags;
the per-game scores and standings.  No hand is in it: a page's own hand is added by the
browser app (``daihinmin.web.page_snapshot``), and a publisher adds the hands only when the
user asks (``--publish-hands``).
"""

from __future__ import annotations

from typing import Any

from daihinmin.contract.engine_views import ExchangeFacts, deal_view, engine_view
from daihinmin.contract.view import Observed
from daihinmin.players.human_render import card_label, class_label, move_text
from daihinmin.players.human_render import sort_key as card_order
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import TITLES_JA, class_title, lower_is_better
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

RECENT_TURNS = 14


def cards_json(cards: CardSet) -> list[dict[str, Any]]:
    return [{"id": c, "label": card_label(c), "red": c < 60 and c % 4 in (1, 2),
             "joker": c >= 60} for c in sorted(cards, key=card_order)]


def move_json(move: Move | None) -> dict[str, Any] | None:
    if move is None:
        return None
    return {"text": move_text(move).plain, "cards": cards_json(move.hand_cards())}


def place_title(rules: RuleSet, place: int) -> str:
    """The place's class in Japanese and romanised, e.g. ``大富豪 (daifugo)``; ``#N`` where
    the rules have no classes."""
    title = class_title(rules, place)
    return f"{TITLES_JA[title]} ({title})" if title in TITLES_JA else title


def game_json(rules: RuleSet, names: list[str], setup: GameSetup, state: GameState | None,
              last: Observed | None = None, exchanging: int | None = None) -> dict[str, Any]:
    """The public part of a game (no hand): per seat its count, class, pass and place, the
    field, the last play and the state flags.  ``state`` None: the exchange."""
    view = (deal_view(setup, 0, ExchangeFacts()) if state is None
            else engine_view(state, 0, setup, (), ExchangeFacts()))
    places = state.places() if state is not None else [-1] * rules.players
    counts = [len(h) for h in setup.hands] if state is None else list(state.counts())
    seats = []
    for p in range(rules.players):
        asked = state is not None and state.pending is not None and state.pending.player == p
        seats.append({
            "player": p, "name": names[p], "count": counts[p], "class": class_label(view, p),
            "passed": bool(state is not None and state.passed >> p & 1),
            "place": places[p] + 1 if places[p] >= 0 else None,
            "title": place_title(rules, places[p]) if places[p] >= 0 else None,
            "turn": asked or exchanging == p or bool(
                state is not None and not state.over and state.turn == p
                and state.pending is None)})
    return {
        "seats": seats,
        "phase": "exchange" if state is None else "over" if state.over else "play",
        "field": move_json(state.field) if state is not None else None,
        "last": None if last is None else {"player": last.player, "name": names[last.player],
                                           **(move_json(last.move) or {})},
        "flags": {"revolution": view.revolution, "eleven_back": view.eleven_back,
                  "lock": view.lock and view.field is not None, "geki": view.geki,
                  "reversed": view.reversed, "backwards": view.direction == -1,
                  "pile": view.pile_count if rules.hand_size else None}}


def match_json(rules: RuleSet, games: int, match: MatchState | None) -> dict[str, Any]:
    """Game number, the per-round score table, totals and standings."""
    results = match.results if match else []
    out: dict[str, Any] = {
        "rules": rules.name, "players": rules.players, "games": games,
        "lower_is_better": lower_is_better(rules),
        "game": min(match.game, games) if match else 0,
        "scores": [{"game": r.game, "points": list(r.points),
                    "places": [p + 1 for p in r.places]} for r in results],
        "totals": list(match.points) if match else [0] * rules.players}
    if match and match.results:
        out["standings"] = match.standings()
    return out


__all__ = ["RECENT_TURNS", "cards_json", "game_json", "match_json", "move_json", "place_title"]
