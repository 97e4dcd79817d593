"""Every way of playing gives a bot the same game: the terminal game (``daihinmin play``),
the in-process runner and the TCP server (real sockets, protocol 20260) are adapters over
one game driver, so for the same seeded match each bot gets the same calls (exchange, play,
choose, every ``on_*`` hook) in the same order, with views that show the same facts.

The person's seat is a scripted :class:`HumanBot` (the terminal game needs one); the other
seats are default bots.  The rules have the 7-pass and the 10-discard, so the choices'
place in the order is checked too (``on_turn`` comes after them everywhere).
"""

from __future__ import annotations

import io
from typing import Any

from daihinmin.contract.view import Bot, GameView, Observed
from daihinmin.local.runner import play_local_match
from daihinmin.local.terminal import PlaySession, Seat
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.human import HumanBot
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.ruleset import RuleSet, ruleset_from
from daihinmin.server.config import ServerConfig
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from rich.console import Console
from scripted_person import ScriptedPerson, play_on_server

RULES = ruleset_from("app", ["seven_pass=yes", "ten_discard=yes", "players=3"])
SEED, GAMES = 11, 3
Call = tuple[Any, ...]


def observed(o: Observed) -> tuple[int, str, bool]:
    return (o.player, str(o.move), o.trick_cleared_before)


def facts(view: GameView) -> dict[str, Any]:
    """What a view shows (every field a bot can read; the rules by name)."""
    return {
        "player": view.player, "hand": str(view.hand), "field": str(view.field),
        "turn_player": view.turn_player, "revolution": view.revolution,
        "eleven_back": view.eleven_back, "lock": view.lock, "counts": view.counts,
        "classes": view.classes, "seats": view.seats, "my_turn": view.my_turn,
        "rules": view.rules.name, "game": view.game,
        "history": [observed(o) for o in view.history],
        "given": str(view.exchange_given), "received": str(view.exchange_received),
        "passed": view.passed, "field_owner": view.field_owner, "geki": view.geki,
        "opening": str(view.lead_must_contain), "pending": view.pending,
        "pile": view.pile_count, "direction": view.direction,
        "legal": [str(m) for m in view.legal_moves()],
    }


class Recording(Bot):
    """Records every call with the view's facts, then lets the real bot answer."""

    calls: list[Call]

    def record(self, *call: Any) -> None:
        if not hasattr(self, "calls"):
            self.calls = []
        self.calls.append(call)

    def on_match_start(self, player: int) -> None:
        self.record("on_match_start", player)
        super().on_match_start(player)

    def on_game_start(self, view: GameView) -> None:
        self.record("on_game_start", facts(view))
        super().on_game_start(view)

    def exchange(self, view: GameView, count: int) -> CardSet:
        cards = super().exchange(view, count)
        self.record("exchange", facts(view), count, str(cards))
        return cards

    def play(self, view: GameView) -> Move:
        move = super().play(view)
        self.record("play", facts(view), str(move))
        return move

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        cards = super().choose(view, choice)
        self.record("choose", facts(view), choice, str(cards))
        return cards

    def on_turn(self, view: GameView, obs: Observed, accepted: bool) -> None:
        self.record("on_turn", facts(view), observed(obs), accepted)
        super().on_turn(view, obs, accepted)

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        self.record("on_game_end", facts(view), places)
        super().on_game_end(view, places)


class RecordingDefault(Recording, DefaultBot):
    pass


class RecordingHuman(Recording, HumanBot):
    pass


def seats(rules: RuleSet) -> list[Bot]:
    person = RecordingHuman(console=Console(file=io.StringIO(), width=110,
                                            color_system=None),
                            input_func=ScriptedPerson(seed=5), infer_notes=False)
    bots: list[Bot] = [person] + [RecordingDefault() for _ in range(rules.players - 1)]
    person.names = [f"p{p}" for p in range(rules.players)]
    return bots


def calls(bots: list[Bot]) -> list[list[Call]]:
    return [getattr(b, "calls", []) for b in bots]


def in_terminal(rules: RuleSet = RULES) -> list[list[Call]]:
    bots = seats(rules)
    PlaySession(rules, seed=SEED, games=GAMES, human=0,
                seats=[Seat(b, f"p{p}") for p, b in enumerate(bots)]).run()
    return calls(bots)


def in_process(rules: RuleSet = RULES) -> list[list[Call]]:
    bots = seats(rules)
    play_local_match(rules, seed=SEED, games=GAMES, bots=bots)
    return calls(bots)


def over_tcp(rules: RuleSet = RULES) -> list[list[Call]]:
    bots = seats(rules)
    config = ServerConfig(rules=rules, games=GAMES, seed=SEED, port=0, move_timeout=None,
                          exchange_timeout=None)
    play_on_server(config, bots)
    return calls(bots)


def first_difference(a: list[Call], b: list[Call]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"call {i}:\n  {x}\n  {y}"
    return f"lengths {len(a)} and {len(b)}"


def test_the_rules_ask_choices_and_exchanges() -> None:
    recorded = in_process()
    kinds = {c[0] for seat in recorded for c in seat}
    assert {"exchange", "choose", "on_turn", "on_game_end"} <= kinds


def test_terminal_game_and_in_process_runner_give_the_same_calls() -> None:
    local, terminal = in_process(), in_terminal()
    for p in range(RULES.players):
        assert local[p] == terminal[p], f"player {p}: {first_difference(local[p], terminal[p])}"


#: What an ``on_turn`` view over the wire shows as of the field table, not as of the end of
#: the turn: the mover as the player to move, the play on the field even when an 8-cut or
#: the last pass clears it, the lock, 11-back and passes before the clear (the next turn
#: table brings the rest).  And ``accepted`` is "cards reached the field" on the wire, where a
#: client cannot tell another player's pass from a rejected move; the driver says whether
#: the rules accepted the move (a pass is accepted).
AS_OF_THE_FIELD_TABLE = ("turn_player", "my_turn", "field", "field_owner", "lock",
                         "eleven_back", "passed", "legal")


def comparable_over_the_wire(seat: list[Call]) -> list[Call]:
    out = []
    for call in seat:
        if call[0] == "on_turn":
            view = {k: v for k, v in call[1].items() if k not in AS_OF_THE_FIELD_TABLE}
            call = ("on_turn", view, call[2])
        out.append(call)
    return out


UECDA5 = ruleset_from("uecda")


def test_server_gives_the_same_calls_as_the_in_process_runner() -> None:
    """Every decision (exchange, play) sees the same view in full; every hook comes in the
    same order with the same arguments and the facts the wire carries at that point."""
    local, tcp = in_process(UECDA5), over_tcp(UECDA5)
    assert sum(c[0] == "exchange" for seat in local for c in seat) > 0
    for p in range(UECDA5.players):
        a, b = comparable_over_the_wire(local[p]), comparable_over_the_wire(tcp[p])
        assert a == b, f"player {p}: {first_difference(a, b)}"


def cards_of(facts_hand: str) -> set[str]:
    return set(facts_hand.split())


def given_cards_arrive_later(local: list[Call], tcp: list[Call]) -> tuple[list[Call], int]:
    """The receiver of a 7-pass give sees the cards in its hand with the next turn table
    (its field table shows the new count, not the cards): where a wire ``on_turn`` hand is
    the driver's hand short of cards that the count already holds, compare it with the
    driver's hand without them.  Returns the aligned wire calls and how many were."""
    out, aligned = [], 0
    for x, y in zip(local, tcp, strict=False):
        if x[0] == y[0] == "on_turn" and x[1]["hand"] != y[1]["hand"]:
            mine, wire = cards_of(x[1]["hand"]), cards_of(y[1]["hand"])
            count = y[1]["counts"][y[1]["player"]]
            if wire < mine and len(mine) == count:
                y = ("on_turn", {**y[1], "hand": x[1]["hand"]}, *y[2:])
                aligned += 1
        out.append(y)
    return out + tcp[len(out):], aligned


def test_server_gives_the_same_choice_views_as_the_in_process_runner() -> None:
    """The chooser of a 7-pass/10-discard sees its play applied (field, counts, history,
    11-back and lock after it) over the wire too, and the field table does not apply it
    again; so the default bots choose alike and the games stay the same."""
    local, tcp = in_process(), over_tcp()
    chooses = [c for seat in local for c in seat if c[0] == "choose"]
    assert any(c[2].kind.value == "give" for c in chooses)
    assert any(c[2].kind.value == "discard" for c in chooses)
    gives = 0
    for p in range(RULES.players):
        a = comparable_over_the_wire(local[p])
        b, aligned = given_cards_arrive_later(a, comparable_over_the_wire(tcp[p]))
        gives += aligned
        assert a == b, f"player {p}: {first_difference(a, b)}"
    assert gives > 0  # the alignment was needed, so it is checked
