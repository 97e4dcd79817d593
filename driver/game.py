"""One game as a sans-IO state machine: every way of playing drives the game through it.

:class:`GameDriver` owns the game: the deal, the exchange, the turns, the 7-pass/10-discard
choices, the result and the one :class:`~daihinmin.driver.record.GameRecord`.  It does no
I/O and reads no clock.  An adapter (the TCP server, the in-process runner, the terminal
game, replay, the browser game) loops on :meth:`GameDriver.next`, which returns, in the one
order every observer sees, either

* an **event** (:class:`GameStarted`, :class:`ExchangeDone`, :class:`TurnDone`,
  :class:`GameOver`): something happened; tell whoever watches.  Nothing changes until the
  next call, so :meth:`GameDriver.view` shows each seat exactly what it should see then; or
* a **request** (:class:`ExchangeRequest`, :class:`MoveRequest`, :class:`ChoiceRequest`):
  the driver waits for the answer (:meth:`GameDriver.exchange`, :meth:`GameDriver.move`,
  :meth:`GameDriver.choose`) before it goes on.

``None`` means the game is over and recorded.  The order, for every way of playing: the
deal (``GameStarted``), each upper class's return in class order (``ExchangeRequest``), the
exchange's outcome (``ExchangeDone``), then per turn the mover's move (``MoveRequest``),
each choice its play opened (``ChoiceRequest``), and the turn as everyone saw it
(``TurnDone``, after its choices); last ``GameOver``.  The engine judges every answer; an
answer that could not be read is ``None`` (a pass answered 8, or the server's pick).

>>> from daihinmin.rules.match import MatchState
>>> from daihinmin.rules.ruleset import UECDA
>>> driver = GameDriver(MatchState(UECDA, seed=1, games=1))
>>> driver.next()
GameStarted(game=1)
>>> driver.next()  # the first game of a class block has no exchange
ExchangeDone(game=1, transfers=())
>>> request = driver.next()
>>> request
MoveRequest(player=3)
>>> step = driver.move(driver.view(request.player).legal_plays()[0])
>>> step.judgement.accepted
True
>>> driver.next()  # doctest: +NORMALIZE_WHITESPACE
TurnDone(observed=Observed(player=3, move=Move.parse('S3'), trick_cleared_before=True,
                           answer=None), accepted=True)
>>> while (out := driver.next()) is not None:
...     if isinstance(out, MoveRequest):
...         _ = driver.move(PASS if driver.view(out.player).field else
...                         driver.view(out.player).legal_plays()[0])
>>> driver.result is not None, len(driver.record.turns) > 1
(True, True)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from daihinmin.contract.engine_views import (
    ExchangeFacts,
    deal_view,
    engine_view,
    exchange_facts,
)
from daihinmin.contract.view import GameView, Observed, quick_observed
from daihinmin.rules.choices import ChoiceResult, PendingChoice
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.match import GameResult, GameSetup, GivenDeal, MatchState, Transfer
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

from .faults import SeatStatus
from .record import ChoiceRecord, GameRecord, RawCells, TransferRecord, TurnRecord

#: The answer to a move that could not be read (or came too late): a pass, answered 8.
REJECTED = 8

# Each move's name for the record, worked out once (the same few moves come again and again;
# a name depends only on what makes moves equal).
_MOVE_NAMES: dict[Move, str] = {}
MOVE_NAMES_KEPT = 4096


_PASS_NAME = str(PASS)


def move_name(move: Move) -> str:
    """``str(move)``, remembered."""
    name = _MOVE_NAMES.get(move)
    if name is None:
        if len(_MOVE_NAMES) >= MOVE_NAMES_KEPT:
            _MOVE_NAMES.clear()
        name = _MOVE_NAMES[move] = str(move)
    return name


def _rejected(cards: CardSet | None) -> str | None:
    """The fault of a player's own answer the rules replaced: ILLEGAL, as for a move the rules
    reject (None: no answer at all, whose caller says why)."""
    return str(SeatStatus.ILLEGAL) if cards is not None else None


class DriverError(Exception):
    """The driver was used out of order (an answer nobody asked for, a request unanswered)."""


# --- requests: the driver waits for their answers ---------------------------------------------
@dataclass(frozen=True, slots=True)
class ExchangeRequest:
    """``player`` (an upper class) returns ``count`` cards: answer with
    :meth:`GameDriver.exchange`."""

    player: int
    count: int


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """``player`` moves: answer with :meth:`GameDriver.move`."""

    player: int


@dataclass(frozen=True, slots=True)
class ChoiceRequest:
    """A 7-pass or 10-discard choice the last play opened: answer with
    :meth:`GameDriver.choose`."""

    choice: PendingChoice

    @property
    def player(self) -> int:
        return self.choice.player


Request = ExchangeRequest | MoveRequest | ChoiceRequest
_REQUEST_TYPES = frozenset((ExchangeRequest, MoveRequest, ChoiceRequest))
R = TypeVar("R", ExchangeRequest, MoveRequest, ChoiceRequest)


# --- events: what every observer is told, in this order ---------------------------------------
@dataclass(frozen=True, slots=True)
class GameStarted:
    """The cards are dealt (the views are the deal tables' views, before any return)."""

    game: int


@dataclass(frozen=True, slots=True)
class ExchangeDone:
    """The exchange is over and play begins (``transfers``: every card passed, in order)."""

    game: int
    transfers: tuple[Transfer, ...]


@dataclass(frozen=True, slots=True)
class TurnDone:
    """A turn as every player saw it, after the choices its play opened were answered."""

    observed: Observed  # who acted and what reached the field (PASS for a rejected move)
    accepted: bool
    step: StepResult = field(repr=False, compare=False)
    choices: tuple[ChoiceResult, ...] = field(default=(), repr=False, compare=False)

    @property
    def player(self) -> int:
        return self.observed.player


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game is over; the match's points include it (``record`` is complete)."""

    result: GameResult


Event = GameStarted | ExchangeDone | TurnDone | GameOver
Output = Request | Event


class Phase(enum.Enum):
    DEALT = enum.auto()  # GameStarted not yet given out
    EXCHANGE = enum.auto()
    PLAY = enum.auto()
    OVER = enum.auto()  # GameOver given out
    DONE = enum.auto()


# The phases as plain names (read twice a turn): on Python 3.11 ``Phase.X`` goes through the
# enum metaclass's ``__getattr__`` hook.
_DEALT, _EXCHANGE, _PLAY, _OVER, _DONE = (Phase.DEALT, Phase.EXCHANGE, Phase.PLAY, Phase.OVER,
                                          Phase.DONE)


@dataclass(frozen=True, slots=True)
class _Reply:
    """How an exchange answer came about, for its transfer record."""

    error: str | None
    raw: RawCells | None
    fault: str | None
    by: str | None


class GameDriver:
    """The match's next game, from the deal to the result (see the module docstring)."""

    def __init__(self, match: MatchState, given: GivenDeal | None = None) -> None:
        self.match = match
        self.setup: GameSetup = match.setup_game(given)  # given: a recorded deal (a kifu)
        setup = self.setup
        self.state: GameState | None = None  # None until play begins
        self.history: list[Observed] = []  # this game's turns as every player saw them
        self.facts: list[ExchangeFacts] = exchange_facts(setup)
        self.result: GameResult | None = None
        self.record = GameRecord(game=setup.game, seats=list(setup.seats),
                                 dealer=setup.dealer,
                                 classes=None if setup.classes is None else list(setup.classes),
                                 dealt=[str(h) for h in setup.dealt])
        self.phase = Phase.DEALT
        self.request: Request | None = None  # asked and not answered yet
        self._exchange_order = setup.exchange_order()
        self._replies: dict[int, _Reply] = {}
        self._turn: StepResult | None = None  # the move of the turn in progress
        self._choices: list[ChoiceResult] = []
        # The requests of every turn, one per player (frozen: the same one each time)
        self._move_requests = tuple(MoveRequest(p) for p in range(setup.rules.players))
        self._passes: dict[tuple[int, bool], Observed] = {}  # (player, field was empty)

    # --- the loop ---------------------------------------------------------------------------
    def next(self) -> Output | None:
        """What happens next: an event to tell, a request to answer, or None (game over)."""
        if self.request is not None:
            raise DriverError(f"{self.request} is not answered yet")
        out = self._next()
        if type(out) in _REQUEST_TYPES:  # (final classes: no subclass to look for)
            self.request = out  # type: ignore[assignment]  # (a request: checked above)
        return out

    def _next(self) -> Output | None:
        phase = self.phase
        if phase is _PLAY:  # every turn's phase first
            state = self.state
            assert state is not None
            if state.choices:  # state.pending
                return ChoiceRequest(state.choices[0])
            if self._turn is not None:
                return self._turn_done()
            if not state.over:
                return self._move_requests[state.turn]
            return self._finish()
        if phase is _DEALT:
            self.phase = _EXCHANGE
            return GameStarted(self.setup.game)
        if phase is _EXCHANGE:
            if self._exchange_order:
                player = self._exchange_order[0]
                return ExchangeRequest(player, self.setup.give_count(player))
            return self._start()
        if phase is _OVER:
            self.phase = _DONE
        return None

    def _answering(self, kind: type[R]) -> R:
        request = self.request
        if not isinstance(request, kind):
            raise DriverError(f"no {kind.__name__} is open (open: {request})")
        self.request = None
        return request

    # --- answers ----------------------------------------------------------------------------
    def exchange(self, cards: CardSet | None, *, error: str | None = None,
                 raw: RawCells | None = None, fault: str | None = None,
                 by: str | None = None) -> Transfer:
        """The asked player's returned cards; ``None`` or an invalid choice: the strongest
        are taken instead.  ``error``/``raw``/``fault``/``by`` say, for the record, why there
        was no usable answer and who answered (a stand-in)."""
        request = self._answering(ExchangeRequest)
        player = self._exchange_order.pop(0)
        assert player == request.player
        transfer = self.setup.give_back(player, cards)
        if transfer.substituted and error is None and by is None:
            error = "the chosen cards are not a valid exchange"
            fault = fault or _rejected(cards)
        self._replies[player] = _Reply(error, raw if error is not None else None, fault, by)
        return transfer

    def move(self, move: Move | None, *, think_ms: float = 0.0, error: str | None = None,
             raw: RawCells | None = None, fault: str | None = None,
             by: str | None = None) -> StepResult:
        """The mover's move, judged by the engine.  ``None`` (no readable move: a timeout, a
        table that is no move, a bot that raised) is played as a pass answered 8."""
        request = self._answering(MoveRequest)
        state = self.state
        assert state is not None and state.turn == request.player
        field_was_empty = state.field is None
        if move is None:
            step = state.step(PASS)
            answer = REJECTED
        else:
            step = state.step(move)
            answer = step.answer
            if by is None and fault is None and not step.judgement.accepted:
                fault = str(SeatStatus.ILLEGAL)
        self._turn = step
        self._choices = []
        seen = step.move if step.judgement.accepted else PASS
        if seen is PASS:  # most turns: the same frozen Observed for each player and field
            key = (request.player, field_was_empty)
            observed = self._passes.get(key)
            if observed is None:
                observed = self._passes[key] = Observed(request.player, PASS,
                                                        trick_cleared_before=field_was_empty)
        else:
            observed = quick_observed(request.player, seen, field_was_empty)
        self.history.append(observed)
        self.record.turns.append(TurnRecord(
            request.player, _PASS_NAME if move is None or move is PASS else move_name(move),
            answer, round(think_ms, 3), error, raw if error and raw else None, fault, by))
        return step

    def choose(self, cards: CardSet | None, *, error: str | None = None,
               raw: RawCells | None = None, fault: str | None = None,
               by: str | None = None) -> ChoiceResult:
        """The chooser's cards (``None`` or an invalid answer: the weakest move instead)."""
        request = self._answering(ChoiceRequest)
        state = self.state
        assert state is not None
        choice = request.choice
        result = state.step_choice(cards)
        if error is None and result.substituted and by is None:
            error = f"{cards} is not up to {choice.count} cards of the hand"
            fault = fault or _rejected(cards)
        self._choices.append(result)
        self.record.turns[-1].choices.append(ChoiceRecord(
            choice.kind.value, choice.count, str(result.cards), result.substituted, error,
            raw if error is not None and raw else None, fault, by))
        return result

    # --- transitions --------------------------------------------------------------------------
    def _start(self) -> ExchangeDone:
        setup = self.setup
        self.record.transfers = [self._transfer_record(t) for t in setup.transfers]
        self.facts = exchange_facts(setup)
        state = self.state = setup.start()
        self.record.hands = [str(h) for h in state.hands]
        self.record.first = state.turn
        self.phase = Phase.PLAY
        return ExchangeDone(setup.game, tuple(setup.transfers))

    def _transfer_record(self, t: Transfer) -> TransferRecord:
        r = None if t.automatic else self._replies.get(t.giver)
        if r is None:
            return TransferRecord(t.giver, t.receiver, str(t.cards), t.automatic, t.substituted)
        return TransferRecord(t.giver, t.receiver, str(t.cards), t.automatic, t.substituted,
                              r.error, r.raw, r.fault, r.by)

    def _turn_done(self) -> TurnDone:
        step = self._turn
        assert step is not None
        self._turn = None
        return TurnDone(self.history[-1], step.judgement.accepted, step,
                        tuple(self._choices) if self._choices else ())

    def _finish(self) -> GameOver:
        assert self.state is not None
        result = self.result = self.match.finish_game(self.state)
        self.record.places = list(result.places)
        self.record.points = list(result.points)
        self.record.totals = list(self.match.points)
        self.phase = Phase.OVER
        return GameOver(result)

    # --- what each seat sees ------------------------------------------------------------------
    def view(self, player: int) -> GameView:
        """``player``'s view now: the deal table's before play (no exchange facts yet: the
        deal table shows a lower class its hand before the automatic give), else the engine's
        state as that player's tables show it (a pending choice only in the chooser's view)."""
        if self.state is None:
            return deal_view(self.setup, player, ExchangeFacts())
        return engine_view(self.state, player, self.setup, self.history, self.facts[player])

    def views(self) -> Sequence[GameView]:
        """Every player's view now (index = player number)."""
        return [self.view(p) for p in range(self.setup.rules.players)]


__all__ = ["REJECTED", "ChoiceRequest", "DriverError", "Event", "ExchangeDone",
           "ExchangeRequest", "GameDriver", "GameOver", "GameStarted", "MoveRequest", "Output",
           "Request", "TurnDone"]
