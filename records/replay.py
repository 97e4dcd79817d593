"""Re-simulating a match log with the engine, checking every logged fact on the way.

Replay is one more adapter over the game driver (:mod:`daihinmin.driver.game`): the seed
and rules in the header re-create every deal (in a log read from a kifu, header ``deals:
"recorded"``, each game's logged deal is its deal, checked to be one the rules could make);
the logged exchange choices, moves and 7-pass/10-discard answers are the driver's answers;
the deals, transfers, movers, answers, places and points it produces must equal the logged
ones.  The first difference raises
:class:`LogMismatchError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from daihinmin.driver.game import (
    ChoiceRequest,
    ExchangeDone,
    ExchangeRequest,
    GameDriver,
    GameOver,
    MoveRequest,
    TurnDone,
)
from daihinmin.driver.record import GameRecord, TransferRecord, TurnRecord
from daihinmin.protocol.errors import ProtocolError
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.match import DealError, GameResult, GameSetup, GivenDeal, MatchState
from daihinmin.values.cards import CardParseError, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Move

from .errors import RecordsError
from .kifu import KIFU_PASS
from .matchlog import MatchLog


@dataclass(frozen=True)
class Mismatch:
    game: int
    turn: int | None  # 1-based turn number; None for the deal, exchange and result
    what: str
    expected: object  # what the log says
    got: object  # what the re-simulation gives

    def __str__(self) -> str:
        where = f"game {self.game}" + (f", turn {self.turn}" if self.turn is not None else "")
        return f"{where}: {self.what}: log has {self.expected!r}, re-simulation gives {self.got!r}"


class LogMismatchError(RecordsError):
    """The log disagrees with the engine's re-simulation."""

    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(str(mismatch))
        self.mismatch = mismatch


@dataclass
class ReplayedTurn:
    record: TurnRecord
    step: StepResult


@dataclass
class ReplayedGame:
    record: GameRecord
    setup: GameSetup
    state: GameState  # at the end of the game
    turns: list[ReplayedTurn] = field(default_factory=list)
    result: GameResult | None = None


def _check(game: int, turn: int | None, what: str, expected: object, got: object) -> None:
    if expected != got:
        raise LogMismatchError(Mismatch(game, turn, what, expected, got))


def _cards(game: int, what: str, text: str) -> CardSet:
    try:
        return CardSet.parse(text)
    except CardParseError as exc:
        raise LogMismatchError(Mismatch(game, None, what, text, f"unreadable ({exc})")) from exc


def _check_hands(g: int, what: str, logged: list[str], hands: list[CardSet]) -> None:
    _check(g, None, f"number of {what}", len(logged), len(hands))
    for p, (text, hand) in enumerate(zip(logged, hands, strict=True)):
        _check(g, None, f"{what} of player {p}", str(_cards(g, what, text)), str(hand))


def check_deal(setup: GameSetup, record: GameRecord) -> None:
    """The deal and the automatic transfers the engine makes must be the logged ones."""
    g = record.game
    _check(g, None, "game number", record.game, setup.game)
    _check(g, None, "seats", record.seats, list(setup.seats))
    _check(g, None, "dealer", record.dealer, setup.dealer)
    _check(g, None, "classes", record.classes,
           None if setup.classes is None else list(setup.classes))
    _check_hands(g, "dealt hand", record.dealt, setup.dealt)
    automatic = [t for t in record.transfers if t.automatic]
    sim_auto = [t for t in setup.transfers if t.automatic]
    _check(g, None, "number of automatic transfers", len(automatic), len(sim_auto))
    for logged, sim in zip(automatic, sim_auto, strict=True):
        _check(g, None, "automatic transfer", (logged.giver, logged.receiver,
                                               str(_cards(g, "transfer", logged.cards))),
               (sim.giver, sim.receiver, str(sim.cards)))
    _check(g, None, "players who return cards",
           [t.giver for t in record.transfers if not t.automatic], setup.exchange_order())


def replay_exchange(driver: GameDriver, record: GameRecord, logged: TransferRecord) -> None:
    """Feed one logged return to the driver; the engine must move the logged cards."""
    g = record.game
    choice = None if logged.substituted else _cards(g, "returned cards", logged.cards)
    sim = driver.exchange(choice)
    _check(g, None, f"cards returned by player {logged.giver}",
           (logged.receiver, str(_cards(g, "transfer", logged.cards)), logged.substituted),
           (sim.receiver, str(sim.cards), sim.substituted))


def replay_move(driver: GameDriver, g: int, number: int, turn: TurnRecord) -> StepResult:
    """Feed one logged move to the driver; the engine must give the logged answer."""
    if turn.malformed:
        _check(g, number, "move of a malformed table", turn.move, str(PASS))
        step = driver.move(None)
    else:
        try:
            move = Move.parse(turn.move)
        except (CardParseError, MoveShapeError, ProtocolError) as exc:
            raise LogMismatchError(Mismatch(g, number, "move", turn.move,
                                            f"unreadable ({exc})")) from exc
        step = driver.move(move)
    _check(g, number, f"answer to {turn.move!r}", turn.answer, driver.record.turns[-1].answer)
    return step


def replay_choice(driver: GameDriver, g: int, number: int, turn: TurnRecord,
                  choice: PendingChoice, i: int) -> None:
    """Feed the turn's ``i``-th logged 7-pass/10-discard answer (1-based) to the driver."""
    if i > len(turn.choices):
        _check(g, number, "choice left unanswered", None, choice.kind.value)
    logged = turn.choices[i - 1]
    _check(g, number, f"choice {i} asked", (logged.kind, logged.count),
           (choice.kind.value, choice.count))
    answer = None if logged.substituted else _cards(g, "chosen cards", logged.cards)
    result = driver.choose(answer)
    _check(g, number, f"cards of choice {i}", (str(_cards(g, "chosen cards", logged.cards)),
                                               logged.substituted),
           (str(result.cards), result.substituted))


#: Told the state after the exchange (turn None) and after every turn (its choices answered),
#: e.g. to show the game step by step; it must not change the state.
ReplayWatch = Callable[[GameState, "ReplayedTurn | None"], None]


def replay_game(match: MatchState, record: GameRecord, watch: ReplayWatch | None = None,
                *, recorded_deal: bool = False) -> ReplayedGame:
    """Re-simulate one logged game on the game driver, checking every logged fact
    (``recorded_deal``: the record's deal is the game's, not the seed's)."""
    return _GameReplay(match, record, watch, recorded_deal).run()


def logged_deal(record: GameRecord) -> GivenDeal:
    """The deal a record holds (seats, dealer, dealt hands), for a game the seed cannot
    re-create."""
    g = record.game
    hands = tuple(_cards(g, "dealt hand", text) for text in record.dealt)
    return GivenDeal(tuple(record.seats), record.dealer, hands)


def _driver(match: MatchState, record: GameRecord, recorded_deal: bool) -> GameDriver:
    if not recorded_deal:
        return GameDriver(match)
    try:
        return GameDriver(match, logged_deal(record))
    except DealError as exc:
        raise LogMismatchError(Mismatch(record.game, None, "deal", record.dealt,
                                        f"no deal of the rules ({exc})")) from exc


class _GameReplay:
    """One logged game fed to the driver: each of its outputs checked against the log."""

    def __init__(self, match: MatchState, record: GameRecord, watch: ReplayWatch | None,
                 recorded_deal: bool = False) -> None:
        self.match, self.record, self.watch = match, record, watch
        self.driver = _driver(match, record, recorded_deal)
        check_deal(self.driver.setup, record)
        self.chosen = iter([t for t in record.transfers if not t.automatic])
        self.turns = iter(enumerate(record.turns, 1))
        self.replayed: ReplayedGame | None = None
        self.number, self.turn, self.asked = 0, TurnRecord(-1, "", 0, 0.0), 0

    def run(self) -> ReplayedGame:
        driver, g = self.driver, self.record.game
        while (out := driver.next()) is not None:
            if isinstance(out, ExchangeRequest):
                replay_exchange(driver, self.record, next(self.chosen))
            elif isinstance(out, ExchangeDone):
                self.started()
            elif isinstance(out, MoveRequest):
                self.moved(out.player)
            elif isinstance(out, ChoiceRequest):
                self.asked += 1
                replay_choice(driver, g, self.number, self.turn, out.choice, self.asked)
            elif isinstance(out, TurnDone):
                self.turn_done()
            elif isinstance(out, GameOver):
                self.finished(out.result)
        assert self.replayed is not None
        return self.replayed

    def started(self) -> None:
        state, g = self.driver.state, self.record.game
        assert state is not None
        _check_hands(g, "hand after the exchange", self.record.hands, state.hands)
        _check(g, None, "first player", self.record.first, state.turn)
        self.replayed = ReplayedGame(self.record, self.driver.setup, state)
        if self.watch is not None:
            self.watch(state, None)

    def moved(self, player: int) -> None:
        g = self.record.game
        number, turn = next(self.turns, (len(self.record.turns), None))
        if turn is None:
            raise LogMismatchError(Mismatch(g, number, "end of the game", "game over",
                                            f"player {player} still to move"))
        _check(g, number, "player to move", turn.player, player)
        self.number, self.turn, self.asked = number, turn, 0
        assert self.replayed is not None
        self.replayed.turns.append(ReplayedTurn(turn, replay_move(self.driver, g, number,
                                                                   turn)))

    def turn_done(self) -> None:
        turn = self.turn
        if self.asked < len(turn.choices):  # the log has a choice the engine did not ask
            logged = turn.choices[self.asked]
            _check(self.record.game, self.number, f"choice {self.asked + 1} asked",
                   (logged.kind, logged.count), None)
        if self.watch is not None:
            assert self.replayed is not None and self.driver.state is not None
            self.watch(self.driver.state, self.replayed.turns[-1])

    def finished(self, result: GameResult) -> None:
        g, record = self.record.game, self.record
        extra = next(self.turns, None)
        if extra is not None:
            number, turn = extra
            raise LogMismatchError(Mismatch(g, number, "turn after the game ended",
                                            f"{turn.player}: {turn.move}", "game over"))
        assert self.replayed is not None
        self.replayed.result = result
        _check(g, None, "places", record.places, list(result.places))
        _check(g, None, "points", record.points, list(result.points))
        _check(g, None, "cumulative points", record.totals, list(self.match.points))


def replay_games(log: MatchLog, match: MatchState) -> Iterator[ReplayedGame]:
    """Re-simulate the logged games on ``match`` (a fresh match of the log's header)."""
    recorded = recorded_deals(log)
    for record in log.games:
        if match.finished:
            raise LogMismatchError(Mismatch(record.game, None, "game beyond the match",
                                            record.game,
                                            f"the match has {log.header.games} games"))
        yield replay_game(match, record, recorded_deal=recorded)


def recorded_deals(log: MatchLog) -> bool:
    """The log's deals are its records' (a log read from a kifu), not the seed's."""
    return log.header.deals == "recorded"


def new_match(log: MatchLog) -> MatchState:
    """The match of the log's header, before its first logged game (a header ``start``
    gives a later first game with its classes and seats)."""
    header, start = log.header, log.header.start
    if start is None:
        return MatchState(header.ruleset(), seed=header.seed, games=header.games)
    classes = start["classes"]
    return MatchState(header.ruleset(), seed=header.seed, games=header.games,
                      game=start["game"], classes=None if classes is None else tuple(classes),
                      seats=tuple(start["seats"]))


def rebuild_match(log: MatchLog) -> MatchState:
    """The match as it stood after the log's last game: every game re-simulated and checked,
    so a resumed match goes on exactly as an uninterrupted one would."""
    match = new_match(log)
    for _ in replay_games(log, match):
        pass
    return match


def replay_log(log: MatchLog) -> Iterator[ReplayedGame]:
    """Re-simulate the logged games in order (a mismatch raises :class:`LogMismatchError`).

    Turns a stand-in played are moves like any other; a turn with no readable move (a
    timeout, a table that is no move) is a pass answered 8."""
    match = new_match(log)
    yield from replay_games(log, match)
    if log.end is not None:
        _check(match.game - 1, None, "games played (end record)", log.end.games_played,
               len(log.games))
        if log.end.totals or log.games:
            _check(match.game - 1, None, "final points (end record)", log.end.totals,
                   list(match.points))


@dataclass(frozen=True)
class VerifySummary:
    games: int
    turns: int
    complete: bool  # the log has its end record and every game of the match
    faults: int = 0  # turns and exchanges with a fault (timeout, malformed, illegal)
    stand_in_turns: int = 0  # turns a stand-in played
    resumes: int = 0  # times the match was continued with --resume
    kifu_passes: int = 0  # passes a kifu import answered where its server skipped the player


def verify_log(log: MatchLog) -> VerifySummary:
    games = turns = faults = stand_in = kifu_passes = 0
    for replayed in replay_log(log):
        games += 1
        turns += len(replayed.turns)
        rec = replayed.record
        faults += sum(1 for t in rec.turns if t.fault) + sum(1 for t in rec.transfers if t.fault)
        stand_in += sum(1 for t in rec.turns if t.by and t.by != KIFU_PASS)
        kifu_passes += sum(1 for t in rec.turns if t.by == KIFU_PASS)
    complete = (log.end is not None and log.end.status == "complete"
                and games == log.header.games - log.header.first_game + 1)
    return VerifySummary(games, turns, complete, faults, stand_in, len(log.resumes),
                         kifu_passes)
