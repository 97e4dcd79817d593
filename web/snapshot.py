"""What one page of a table is sent: the public table, and the hand of its own seat only.

A snapshot is built for one viewer: a seated person (``player``), or nobody (a spectator, a
hot-seat device behind its curtain).  Only ``player``'s hand and question are in it; the
other hands are counts.  The public part is what every client of the server learns too.
"""

from __future__ import annotations

from typing import Any

from daihinmin.contract.engine_views import ExchangeFacts, deal_view, engine_view
from daihinmin.contract.view import Observed
from daihinmin.players.human_render import card_label, class_label, event_notes, move_text
from daihinmin.players.human_render import sort_key as card_order
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import TITLES_JA, class_title, lower_is_better
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

from .seats import Prompt
from .tables import Table

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


def prompt_json(prompt: Prompt) -> dict[str, Any]:
    out: dict[str, Any] = {"id": prompt.id, "kind": prompt.kind, "count": prompt.count}
    if prompt.kind == "play":
        out["moves"] = [{"index": i, "pass": m.is_pass, "text": move_text(m).plain,
                         "cards": [c for c in m.hand_cards()]}
                        for i, m in enumerate(prompt.moves)]
    if prompt.choice is not None:
        out["choice"] = prompt.choice.kind.value
        out["receiver"] = prompt.choice.receiver
    return out


def recent_lines(table: Table, names: list[str]) -> list[str]:
    live = table.live
    if live is None:
        return []
    by_turn: dict[int, list[Any]] = {}
    for turn, event in live.events:
        by_turn.setdefault(turn, []).append(event)
    lines = []
    start = max(0, len(live.history) - RECENT_TURNS)
    for i, seen in enumerate(live.history[start:], start + 1):
        line = f"{names[seen.player]}: {move_text(seen.move).plain}"
        notes = event_notes(by_turn.get(i, []), names, numbered=False)
        lines.append(line + (" — " + "; ".join(notes) if notes else ""))
    return lines


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


def snapshot(table: Table, player: int | None, curtain: bool = False) -> dict[str, Any]:
    """The table as ``player`` may see it (None: no hand at all)."""
    names = [p.name or "(open)" for p in table.places]
    out: dict[str, Any] = {
        "type": "state", "table": table.id, "mode": table.mode, "status": table.status,
        "error": table.error, "notice": table.notice, "level": table.level,
        "cpu": table.cpu_kind, "you": player,
        "curtain": curtain, "log": str(table.log_path) if table.log_path else None,
        **match_json(table.rules, table.games, table.match)}
    live = table.live
    state = live.state if live is not None else None
    if live is not None:
        out["game"] = live.setup.game  # the game shown (the match counts on when it ends)
        out.update(game_json(table.rules, names, live.setup, state, live.last_play,
                             live.exchanging))
        out["recent"] = recent_lines(table, names)
        out["recent_from"] = max(1, len(live.history) - RECENT_TURNS + 1)
    else:
        out["seats"] = [{"player": p.number, "name": names[p.number], "count": None,
                         "class": "-", "passed": False, "place": None, "title": None,
                         "turn": False} for p in table.places]
    for place, seat in zip(table.places, out["seats"], strict=True):
        person = place.person
        seat.update({"cpu": place.cpu is not None, "open": place.open,
                     "connected": place.connections > 0,
                     "stand_in": person is not None and not person.connected})
    if player is not None and live is not None and not curtain:
        hand = live.setup.hands[player] if state is None else state.hands[player]
        out["hand"] = cards_json(hand)
        person = table.places[player].person
        if person is not None and person.prompt is not None:
            out["prompt"] = prompt_json(person.prompt)
    return out


__all__ = ["cards_json", "game_json", "match_json", "move_json", "snapshot"]
