"""The state of one game and the application of moves to it.

Pure: no I/O, no clock; the only randomness (random places after the pass limit) comes
from the ``random.Random`` the state is given.

>>> import random
>>> from daihinmin.protocol.cards import CardSet
>>> from daihinmin.protocol.moves import Move
>>> from daihinmin.rules.ruleset import UECDA
>>> hands = [CardSet.parse(h) for h in ["D3 S4", "S5 H5", "S6", "S7", "S9 H9"]]
>>> g = GameState.start(UECDA, hands, seats=(0, 1, 2, 3, 4), rng=random.Random(1))
>>> g.turn
0
>>> r = g.step(Move.parse("D3"))
>>> r.judgement.answer, g.turn, [str(e) for e in r.events]
(9, 1, ['play p0'])
"""

from __future__ import annotations

import copy
import dataclasses
import random
from dataclasses import dataclass

from daihinmin.protocol.cards import JOKER, JOKER2, JOKER_BITS, RANK_3, SPADE, CardSet, card
from daihinmin.protocol.moves import PASS, Move, MoveKind

from .events import Event, EventKind
from .judge import Judgement, Reject, is_reversed, is_top_play, judge
from .movegen import candidate_plays
from .ruleset import ForbiddenFinish, RuleSet

RANK_5, RANK_6, RANK_8, RANK_9, RANK_J = 3, 4, 6, 7, 9


@dataclass(frozen=True, slots=True)
class StepResult:
    player: int
    move: Move  # what the player sent (a rejected move is played as a pass)
    judgement: Judgement
    events: tuple[Event, ...]

    @property
    def answer(self) -> int:
        return self.judgement.answer

    @property
    def trick_cleared(self) -> bool:
        return any(e.kind is EventKind.TRICK_CLEAR for e in self.events)


def remove_from_hand(hand: CardSet, move: Move) -> CardSet:
    """The hand after ``move``; jokers are kept canonical (bit 60 first, then 61)."""
    left_jokers = hand.jokers - move.jokers
    mask = hand.mask & ~move.cards.mask & ~JOKER_BITS
    if left_jokers >= 1:
        mask |= 1 << JOKER
    if left_jokers >= 2:
        mask |= 1 << JOKER2
    return CardSet(mask)


@dataclass
class GameState:
    rules: RuleSet
    hands: list[CardSet]
    seats: tuple[int, ...]  # player number sitting in seat 0..n-1
    turn: int
    rng: random.Random
    prev_classes: tuple[int, ...] | None = None  # classes from the previous game, if any
    field: Move | None = None
    owner: int = -1  # last player who played (keeps the lead when a trick clears)
    passed: int = 0  # bitmask of players marked passed in this trick
    revolution: bool = False
    eleven_back: bool = False
    lock: bool = False
    direction: int = 1
    finished: list[int] = dataclasses.field(default_factory=list)  # 1st, 2nd, ... in order
    # players who dropped out (forbidden finish, miyako-ochi): last, second last, ...
    bottom: list[int] = dataclasses.field(default_factory=list)
    failures: int = 0  # consecutive passes and rejected moves
    over: bool = False
    turns: int = 0

    @classmethod
    def start(cls, rules: RuleSet, hands: list[CardSet], seats: tuple[int, ...],
              rng: random.Random, first: int | None = None,
              prev_classes: tuple[int, ...] | None = None) -> GameState:
        """A game about to begin; ``first`` defaults to the holder of ♦3."""
        if first is None:
            d3 = card("D3")
            first = next((p for p, h in enumerate(hands) if d3 in h), seats[0])
        return cls(rules=rules, hands=list(hands), seats=tuple(seats), turn=first, rng=rng,
                   prev_classes=prev_classes, owner=first)

    # --- queries ------------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return len(self.hands)

    def copy(self) -> GameState:
        new = copy.copy(self)
        new.hands = list(self.hands)
        new.finished = list(self.finished)
        new.bottom = list(self.bottom)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        return new

    def active_players(self) -> list[int]:
        return [p for p in range(self.n_players) if self.is_active(p)]

    def is_active(self, player: int) -> bool:
        return player not in self.finished and player not in self.bottom

    def counts(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    @property
    def reversed(self) -> bool:
        return is_reversed(self)

    def places(self) -> list[int]:
        """Place (0 = first) of every player; only meaningful once the game is over."""
        n = self.n_players
        out = [-1] * n
        for i, p in enumerate(self.finished):
            out[p] = i
        for i, p in enumerate(self.bottom):
            out[p] = n - 1 - i
        return out

    def judge(self, move: Move, player: int | None = None) -> Judgement:
        return judge(self, self.turn if player is None else player, move)

    def legal_plays(self) -> list[Move]:
        """Every play (not pass) the player to move may make now."""
        if self.over:
            return []
        hand = self.hands[self.turn]
        return [m for m in candidate_plays(hand, self.rules, self.field)
                if self.judge(m).accepted]

    def legal_moves(self) -> list[Move]:
        """Every legal play, plus the pass when passing is allowed."""
        plays = self.legal_plays()
        if self.over:
            return plays
        if self.field is not None or self.rules.leader_may_pass:
            plays.append(PASS)
        return plays

    # --- seat arithmetic -----------------------------------------------------------------
    def _seat_of(self, player: int) -> int:
        return self.seats.index(player)

    def next_player(self, player: int, skip_passed: bool = True, skips: int = 0) -> int | None:
        """The next active (and, if asked, unpassed) player after ``player`` in play order."""
        n = len(self.seats)
        seat = self._seat_of(player)
        found = None
        for step in range(1, n * (skips + 1) + 1):
            p = self.seats[(seat + step * self.direction) % n]
            if p == player or not self.is_active(p):
                continue
            if skip_passed and self.passed >> p & 1:
                continue
            if skips:
                skips -= 1
                continue
            found = p
            break
        return found

    def _lead_from(self, player: int) -> int:
        """Who leads after a clear won by ``player``: that player, or the next with cards."""
        if self.is_active(player):
            return player
        nxt = self.next_player(player, skip_passed=False)
        return player if nxt is None else nxt

    # --- applying moves --------------------------------------------------------------------
    def step(self, move: Move) -> StepResult:
        """Apply the mover's ``move``; an illegal move counts as a pass (answer 8)."""
        if self.over:
            raise GameOverError("the game is over")
        player = self.turn
        verdict = self.judge(move, player)
        events: list[Event] = []
        self.turns += 1
        if verdict.accepted and move.kind is not MoveKind.PASS:
            self._play(player, move, events)
        else:
            kind = EventKind.PASS if verdict.accepted else EventKind.REJECTED
            events.append(Event(kind, player))
            self._pass(player, events)
        return StepResult(player, move, verdict, tuple(events))

    def _clear(self, events: list[Event], leader: int) -> None:
        self.field = None
        self.passed = 0
        if self.lock:
            events.append(Event(EventKind.LOCK_OFF))
        self.lock = False
        self.eleven_back = False
        self.turn = self._lead_from(leader)
        events.append(Event(EventKind.TRICK_CLEAR, self.turn))

    def _pass(self, player: int, events: list[Event]) -> None:
        self.passed |= 1 << player
        self.failures += 1
        limit = self.rules.pass_limit
        if limit and self.failures >= limit:
            events.append(Event(EventKind.PASS_LIMIT, player, self.failures))
            rest = self.active_players()
            self.rng.shuffle(rest)
            self.finished.extend(rest)
            self._game_over(events)
            return
        waiting = [p for p in self.active_players()
                   if not self.passed >> p & 1 and p != self.owner]
        if not waiting:
            self._clear(events, self.owner)
            return
        nxt = self.next_player(player)
        self.turn = self.owner if nxt is None else nxt

    def _play(self, player: int, move: Move, events: list[Event]) -> None:
        rules = self.rules
        before = self.field
        events.append(Event(EventKind.PLAY, player))
        self.hands[player] = remove_from_hand(self.hands[player], move)
        self.failures = 0
        lone_joker = move.kind is MoveKind.JOKER
        clear = False
        if lone_joker:
            if self.lock:
                events.append(Event(EventKind.LOCK_OFF))
            self.lock = False
        elif (rules.lock and before is not None and not self.lock
              and before.kind is not MoveKind.JOKER and move.suits == before.suits
              and (rules.lock_joker_starts or (move.jokers == 0 and before.jokers == 0))):
            self.lock = True
            events.append(Event(EventKind.LOCK_ON, player))
        if (before is not None and before.kind is MoveKind.JOKER and move.kind is MoveKind.SINGLE
                and move.low == RANK_3 and move.suits == 1 << SPADE):
            events.append(Event(EventKind.SPADE3_RETURN, player))
            clear = True
        self.field = move
        self.owner = player
        skips = 0
        if not lone_joker:
            if rules.revolution and self._revolts(move):
                self.revolution = not self.revolution
                events.append(Event(EventKind.REVOLUTION, player, int(self.revolution)))
            if rules.eleven_back and move.holds_rank(RANK_J):
                self.eleven_back = not self.eleven_back
                events.append(Event(EventKind.ELEVEN_BACK, player, int(self.eleven_back)))
            if rules.eight_cut and (move.holds_real_rank(RANK_8) or
                                    (rules.eight_cut_by_joker and move.holds_rank(RANK_8))):
                events.append(Event(EventKind.EIGHT_CUT, player))
                clear = True
            if (rules.six_reverse and move.holds_rank(RANK_6)) or (
                    rules.nine_reverse and move.holds_rank(RANK_9)):
                self.direction = -self.direction
                events.append(Event(EventKind.REVERSE, player, self.direction))
            if rules.five_skip and move.holds_rank(RANK_5):
                skips = move.cards.suits_of_rank(RANK_5).bit_count() + sum(
                    1 for _, c in move.joker_cells if c == RANK_5)
                events.append(Event(EventKind.SKIP, player, skips))
        if not self.hands[player]:
            self._player_out(player, move, events, cut=clear)
            if self.over:
                return
        if clear:
            self._clear(events, player)
            return
        waiting = [p for p in self.active_players() if p != player and not self.passed >> p & 1]
        if not waiting:
            self._clear(events, player)
            return
        nxt = self.next_player(player, skips=skips)
        if nxt is None:
            nxt = self.next_player(player)
        self.turn = player if nxt is None else nxt

    def _revolts(self, move: Move) -> bool:
        rules = self.rules
        if move.kind is MoveKind.GROUP:
            size = move.size if rules.revolution_joker_counts else len(move.cards)
            return size >= rules.revolution_group_min
        if move.kind is MoveKind.SEQUENCE:
            return 0 < rules.revolution_sequence_min <= move.size
        return False

    def _player_out(self, player: int, move: Move, events: list[Event], cut: bool) -> None:
        rules = self.rules
        forbidden = False
        if rules.forbidden_finish is ForbiddenFinish.LAST:
            forbidden = (move.jokers > 0 or cut or is_top_play(self, move) or
                         any(e.kind in (EventKind.REVOLUTION, EventKind.SPADE3_RETURN)
                             for e in events))
        if forbidden:
            self.bottom.append(player)
            events.append(Event(EventKind.FORBIDDEN_FINISH, player))
        else:
            self.finished.append(player)
        events.append(Event(EventKind.PLAYER_OUT, player, self.places()[player]))
        if (rules.miyako_ochi and not forbidden and len(self.finished) == 1
                and self.prev_classes is not None):
            top = self.prev_classes.index(0) if 0 in self.prev_classes else -1
            if top >= 0 and top != player and self.is_active(top):
                self.bottom.append(top)
                self.hands[top] = CardSet(0)
                events.append(Event(EventKind.MIYAKO_OCHI, top, self.places()[top]))
        if len(self.active_players()) <= 1:
            self.finished.extend(self.active_players())
            self._game_over(events)

    def _game_over(self, events: list[Event]) -> None:
        self.over = True
        events.append(Event(EventKind.GAME_OVER))


class GameOverError(RuntimeError):
    """A move was applied to a game that has ended."""


__all__ = ["GameOverError", "GameState", "Reject", "StepResult", "remove_from_hand"]
