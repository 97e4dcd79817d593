"""The game driver: its order of events and requests, its refusals, and its records.

Every record the driver builds must re-simulate under ``replay`` (itself an adapter over the
driver) for random play under every preset; a bot that raises costs it that answer and the
record says so.
"""

from __future__ import annotations

import io
import random

import pytest
from daihinmin.contract.view import Bot, GameView
from daihinmin.driver.game import (
    ChoiceRequest,
    DriverError,
    ExchangeDone,
    ExchangeRequest,
    GameDriver,
    GameOver,
    GameStarted,
    MoveRequest,
    TurnDone,
)
from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_game, play_local_match
from daihinmin.players.random_bot import RandomBot
from daihinmin.records.inprocess_log import IN_PROCESS_PROTOCOL, LocalMatchLog
from daihinmin.records.matchlog import MatchHeader, MatchLogWriter, PlayerInfo, parse_lines
from daihinmin.records.replay import verify_log
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import UECDA, ruleset_from, ruleset_to_dict
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

PRESETS = [("uecda", []), ("app", ["seven_pass=yes", "ten_discard=yes"]), ("original", []),
           ("thirteenth_floor", []), ("web", [])]


def kind(out: object) -> str:
    return type(out).__name__


def test_the_order_of_one_game() -> None:
    """Deal, each return in class order, the exchange, turns (choices before TurnDone),
    the result; the game with an exchange is the second of a class block."""
    match = MatchState(UECDA, seed=2, games=2)
    play_local_game(match, [RandomBot(p) for p in range(5)])
    driver = GameDriver(match)
    seen: list[str] = []
    rng = random.Random(1)
    while (out := driver.next()) is not None:
        seen.append(kind(out))
        if isinstance(out, ExchangeRequest):
            assert driver.view(out.player).turn_player == -1  # the deal table's view
            driver.exchange(None)
        elif isinstance(out, MoveRequest):
            assert driver.state is not None and driver.state.turn == out.player
            driver.move(rng.choice(driver.view(out.player).legal_moves()))
    assert seen[:4] == ["GameStarted", "ExchangeRequest", "ExchangeRequest", "ExchangeDone"]
    assert seen[-1] == "GameOver" and seen.count("GameOver") == 1
    turns = seen[4:-1]
    assert turns[0::2] == ["MoveRequest"] * (len(turns) // 2)
    assert turns[1::2] == ["TurnDone"] * (len(turns) // 2)
    assert driver.result is not None and driver.record.totals == list(match.points)
    assert [t.substituted for t in driver.record.transfers if not t.automatic] == [True, True]


def test_answers_out_of_order_are_refused() -> None:
    driver = GameDriver(MatchState(UECDA, seed=1, games=1))
    with pytest.raises(DriverError):
        driver.move(None)  # nothing asked yet
    assert isinstance(driver.next(), GameStarted)
    assert isinstance(driver.next(), ExchangeDone)
    request = driver.next()
    assert isinstance(request, MoveRequest)
    with pytest.raises(DriverError):
        driver.next()  # the move is not answered
    with pytest.raises(DriverError):
        driver.choose(None)
    driver.move(None)  # no readable move: a pass answered 8
    turn = driver.next()
    assert isinstance(turn, TurnDone) and turn.observed.move.is_pass
    assert driver.record.turns[0].answer == 8 and driver.record.turns[0].move == "pass"


def test_views_show_the_pending_choice_to_the_chooser_only() -> None:
    rules = ruleset_from("app", ["seven_pass=yes", "ten_discard=yes"])
    match = MatchState(rules, seed=3, games=4)
    rng = random.Random(3)
    asked = 0
    while not match.finished:
        driver = GameDriver(match)
        while (out := driver.next()) is not None:
            if isinstance(out, ChoiceRequest):
                asked += 1
                views = driver.views()
                assert [v.pending is not None for v in views] == [
                    p == out.player for p in range(rules.players)]
                assert views[out.player].history[-1].player == out.player  # its play is in
                driver.choose(rng.choice(views[out.player].legal_choices()))
            elif isinstance(out, MoveRequest):
                driver.move(rng.choice(driver.view(out.player).legal_moves()))
            elif isinstance(out, ExchangeRequest):
                driver.exchange(None)
    assert asked > 0


@pytest.mark.parametrize(("preset", "overrides"), PRESETS)
def test_every_record_replays(preset: str, overrides: list[str]) -> None:
    """Random bots under each preset: the log of the driver's records verifies."""
    rules = ruleset_from(preset, overrides)
    text = io.StringIO()
    writer = MatchLogWriter(text)
    writer.write_header(MatchHeader(rules=ruleset_to_dict(rules), seed=7, games=4,
                                    players=[PlayerInfo(p, f"r{p}", IN_PROCESS_PROTOCOL)
                                             for p in range(rules.players)], started=""))
    log = LocalMatchLog(writer)  # the lines LocalMatchLog.open writes, into memory
    log.finish(play_local_match(rules, 7, 4, [RandomBot(p) for p in range(rules.players)],
                                on_game=log.game))
    summary = verify_log(parse_lines(text.getvalue().splitlines(keepends=True)))
    assert summary.games == 4 and summary.complete and summary.faults == 0


class Crashing(Bot):
    """Raises on its second play and on every exchange."""

    def __init__(self) -> None:
        self.plays = 0

    def exchange(self, view: GameView, count: int) -> object:  # type: ignore[override]
        raise RuntimeError("no exchange")

    def play(self, view: GameView) -> Move:
        self.plays += 1
        if self.plays == 2:
            raise RuntimeError("boom")
        return min(view.legal_moves(), key=lambda m: (m.is_pass, m.low))


def test_a_bot_that_raises_loses_the_answer_and_the_record_says_so() -> None:
    records: list[GameRecord] = []
    play_local_match(UECDA, 5, 3, [Crashing()] + [RandomBot(p) for p in range(1, 5)],
                     on_game=records.append)
    crashed = [t for r in records for t in r.turns if t.fault == "CRASHED"]
    assert len(crashed) == 1 and crashed[0].player == 0 and crashed[0].answer == 8
    assert crashed[0].error == "the bot raised RuntimeError: boom"
    gave = [t for r in records for t in r.transfers if t.giver == 0 and not t.automatic]
    assert gave and all(t.fault == "CRASHED" and t.substituted for t in gave)


class Wrong(Bot):
    """Answers its second play with no move at all, and every exchange with a card it does
    not hold; the rest it plays like the lowest-first bot."""

    def __init__(self) -> None:
        self.plays = 0

    def exchange(self, view: GameView, count: int) -> CardSet:
        return CardSet.of([c for c in range(4, 56) if c not in view.hand][:count])

    def play(self, view: GameView) -> Move:
        self.plays += 1
        if self.plays == 2:
            return None  # type: ignore[return-value]
        return min(view.legal_moves(), key=lambda m: (m.is_pass, m.low))


def test_in_process_answers_are_classified_as_the_server_classifies_tables() -> None:
    """No move at all is MALFORMED; cards the rules reject (an exchange of cards not held)
    are ILLEGAL; each says why, and the answer is the rules' default."""
    records: list[GameRecord] = []
    play_local_match(UECDA, 5, 3, [Wrong()] + [RandomBot(p) for p in range(1, 5)],
                     on_game=records.append)
    malformed = [t for r in records for t in r.turns if t.fault == "MALFORMED"]
    assert len(malformed) == 1 and malformed[0].player == 0 and malformed[0].answer == 8
    assert malformed[0].error == "the bot answered NoneType, not a Move"
    gave = [t for r in records for t in r.transfers if t.giver == 0 and not t.automatic]
    assert gave and all(t.fault == "ILLEGAL" and t.substituted for t in gave)
    assert all(t.error == "the chosen cards are not a valid exchange" for t in gave)


def test_game_over_is_the_last_event() -> None:
    driver = GameDriver(MatchState(UECDA, seed=4, games=1))
    outs = []
    while (out := driver.next()) is not None:
        outs.append(out)
        if isinstance(out, MoveRequest):
            driver.move(driver.view(out.player).legal_moves()[-1])
    assert isinstance(outs[-1], GameOver) and driver.next() is None
