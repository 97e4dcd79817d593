"""What one page of a table is sent: the public table, and the hand of its own seat only.

A snapshot is built for one viewer: a seated person (``player``), or nobody (a spectator, a
hot-seat device behind its curtain).  Only ``player``'s hand and question are in it; the
other hands are counts.  The public part (:mod:`daihinmin.watch.snapshot`) is what every
client of the server learns too.
"""

from __future__ import annotations

from typing import Any

from daihinmin.players.human_render import event_notes, move_text
from daihinmin.watch.snapshot import RECENT_TURNS, cards_json, game_json, match_json

from .seats import Prompt
from .tables import Table


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


__all__ = ["prompt_json", "recent_lines", "snapshot"]
