"""The state of one game and the application of moves to it.

Pure: no I/O, no clock; the only randomness (random places after the pass limit, the draw
for the first leader) comes from the ``random.Random`` the state is given.

A turn is :meth:`GameState.step` with a move.  Two flows stretch a turn (both keep
:attr:`GameState.turn` on the same player):

* a play holding 7s (``seven_pass``) or 10s (``ten_discard``) asks its player a follow-up
  choice: :attr:`GameState.pending` is set, :meth:`GameState.legal_choices` lists the answers
  and :meth:`GameState.step_choice` applies one (``None`` or an invalid answer: the weakest);
* with ``draw_on_pass`` a pass over cards draws that many cards; if the player can then play,
  :attr:`GameState.after_draw` is set and the next :meth:`GameState.step` is that player's
  play or a second pass (which declines).

>>> import random
>>> from daihinmin.values.cards import CardSet
>>> from daihinmin.values.moves import Move
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
from collections.abc import Sequence
from dataclasses import dataclass

from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import JOKER_KIND, PASS, PASS_KIND, Move

from .choices import ChoiceKind, ChoiceResult, PendingChoice, choice_options, resolve_choice
from .deal import add_cards
from .events import Event, EventKind, event
from .forbidden import is_forbidden_finish
from .judge import Judgement, Reject, is_next_step, is_reversed, judge, legal_plays
from .leads import opening_lead
from .plays import (
    RANK_5,
    RANK_6,
    RANK_7,
    RANK_8,
    RANK_9,
    RANK_10,
    RANK_J,
    clears_as_ambulance,
    eight_cuts,
    is_sandstorm,
    is_spade3,
    rank_count,
    revolts,
)
from .ruleset import ForbiddenFinish, RuleSet, Scoring
from .scoring import card_scores

__all__ = [
    "RANK_5",
    "RANK_6",
    "RANK_8",
    "RANK_9",
    "RANK_J",
    "ChoicePendingError",
    "GameOverError",
    "GameState",
    "NoChoicePendingError",
    "Reject",
    "StepResult",
    "remove_from_hand",
]


# Enum members read on every move, bound once: on Python 3.11 ``Kind.MEMBER`` goes through
# the enum metaclass's ``__getattr__`` hook, about ten times the cost of a global name.
_PASS, _REJECTED, _PLAY = EventKind.PASS, EventKind.REJECTED, EventKind.PLAY
_TRICK_CLEAR, _LOCK_ON, _LOCK_OFF = EventKind.TRICK_CLEAR, EventKind.LOCK_ON, EventKind.LOCK_OFF
_LAST_FORBIDDEN = ForbiddenFinish.LAST


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
    return hand - move.hand_cards()


@dataclass(frozen=True, slots=True)
class AfterPlay:
    """How play goes on once a play's follow-up choices are answered."""

    move: Move
    clear: bool  # the play clears the trick (8-cut, ♠3 return, sandstorm, ...)
    skips: int  # 5-skip count
    forbidden: bool  # going out with this play is a forbidden finish (the ``last`` form)


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
    # --- the other presets ----------------------------------------------------------------
    geki: bool = False  # geki-shibari: plays must be exactly one rank stronger
    lead_must_contain: CardSet = EMPTY  # the opening lead must hold these cards (♣3)
    pile: list[int] = dataclasses.field(default_factory=list)  # draw pile, top card last
    played: CardSet = EMPTY  # every card played this game (jokers counted)
    discarded: CardSet = EMPTY  # cards out of play otherwise (10-discard, miyako-ochi)
    pending_revolutions: int = 0  # delayed revolutions waiting for the trick to clear
    after_draw: bool = False  # the player drew on a pass and may now play
    lead_streak: tuple[int, int] = (-1, 0)  # (player, tricks led in a row)
    choices: list[PendingChoice] = dataclasses.field(default_factory=list)
    resume: AfterPlay | None = None  # the rest of a play waiting on its choices
    scores: tuple[int, ...] | None = None  # card scoring: each player's game score
    winning_play: Move | None = None  # end_on_first_out: the play the winner went out with

    @classmethod
    def start(cls, rules: RuleSet, hands: list[CardSet], seats: tuple[int, ...],
              rng: random.Random, first: int | None = None,
              prev_classes: tuple[int, ...] | None = None, pile: Sequence[int] = (),
              lead_must_contain: CardSet = EMPTY) -> GameState:
        """A game about to begin; ``first`` defaults to the opening leader of ``rules``
        (the ♦3 holder under uecda)."""
        pile = list(pile)
        if first is None:
            lead = opening_lead(rules, hands, seats, rng, pile)
            first, lead_must_contain = lead.first, lead.must_contain
            if lead.pile is not None:
                pile = list(lead.pile)
        return cls(rules=rules, hands=list(hands), seats=tuple(seats), turn=first, rng=rng,
                   prev_classes=prev_classes, owner=first, pile=pile,
                   lead_must_contain=lead_must_contain)

    # --- queries ------------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return len(self.hands)

    @property
    def pending(self) -> PendingChoice | None:
        """The follow-up choice the game waits for, if any."""
        return self.choices[0] if self.choices else None

    def copy(self) -> GameState:
        new = copy.copy(self)
        new.hands = list(self.hands)
        new.finished = list(self.finished)
        new.bottom = list(self.bottom)
        new.pile = list(self.pile)
        new.choices = list(self.choices)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        return new

    def active_players(self) -> list[int]:
        out = self.finished + self.bottom  # out of the game (kept apart: a hot path)
        if not out:
            return list(range(len(self.hands)))
        return [p for p in range(len(self.hands)) if p not in out]

    def is_active(self, player: int) -> bool:
        return player not in self.finished and player not in self.bottom

    def counts(self) -> tuple[int, ...]:
        return tuple(map(len, self.hands))

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
        if self.over or self.choices:
            return []
        return legal_plays(self.hands[self.turn], self)

    def legal_moves(self) -> list[Move]:
        """Every legal play, plus the pass when passing is allowed."""
        plays = self.legal_plays()
        if self.over or self.choices:
            return plays
        if self._may_pass(plays):
            plays.append(PASS)
        return plays

    def _may_pass(self, plays: list[Move]) -> bool:
        if self.field is not None or not plays:
            return True
        return self.rules.leader_may_pass and not self.lead_must_contain

    def legal_choices(self) -> list[CardSet]:
        """The valid answers to the pending choice (empty when nothing is pending)."""
        choice = self.pending
        if choice is None:
            return []
        return choice_options(self.hands[choice.player], choice)

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

    def _skip_target(self, player: int, fives: int) -> int:
        """Where the turn lands after a play with ``fives`` 5s: each 5 skips the next player
        in the trick; with ``five_skip_chained`` each further 5 skips from the player the
        turn came to.  Landing back on ``player`` gives them the lead (the trick clears), or
        with ``owner_answers`` one more turn over their own cards."""
        n = len(self.seats)
        seat = self._seat_of(player)
        cycle = []
        for step in range(1, n + 1):
            p = self.seats[(seat + step * self.direction) % n]
            if p == player:
                if self.is_active(p):
                    cycle.append(p)
            elif self.is_active(p) and not self.passed >> p & 1:
                cycle.append(p)
        if not cycle:
            return player
        index = 2 * fives - 1 if self.rules.five_skip_chained else fives
        return cycle[index % len(cycle)]

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
        if self.choices:
            raise ChoicePendingError(f"player {self.choices[0].player} must first answer a "
                                     f"{self.choices[0].kind.value} choice (step_choice)")
        player = self.turn
        verdict = self.judge(move, player)
        events: list[Event] = []
        self.turns += 1
        if verdict.accepted and move.kind is not PASS_KIND:
            self._play(player, move, events)
        else:
            events.append(event(_PASS if verdict.accepted else _REJECTED, player))
            self._pass(player, events)
        return StepResult(player, move, verdict, tuple(events))

    def step_choice(self, cards: CardSet | None) -> ChoiceResult:
        """Answer the pending choice; ``None`` or an invalid answer moves the weakest cards."""
        choice = self.pending
        if choice is None:
            raise NoChoicePendingError("no choice is pending")
        player = choice.player
        moved, substituted = resolve_choice(self.hands[player], choice, cards)
        self.choices.pop(0)
        events: list[Event] = []
        self.hands[player] = self.hands[player] - moved
        if choice.kind is ChoiceKind.GIVE:
            self.hands[choice.receiver] = add_cards(self.hands[choice.receiver], moved)
            events.append(Event(EventKind.GIVE, player, len(moved)))
        else:
            self.discarded = add_cards(self.discarded, moved)
            events.append(Event(EventKind.DISCARD, player, len(moved)))
        if not self.hands[player]:
            self.choices.clear()  # nothing left to give or discard
        if not self.choices:
            self._after_play(player, events)
        return ChoiceResult(choice, moved, substituted, tuple(events))

    def _clear(self, events: list[Event], leader: int) -> None:
        self.field = None
        self.passed = 0
        if self.lock:
            events.append(event(_LOCK_OFF))
        self.lock = False
        self.geki = False
        self.eleven_back = False
        self.after_draw = False
        if self.pending_revolutions:
            if self.pending_revolutions % 2:  # the parity of the trick's revolutions
                self.revolution = not self.revolution
                events.append(Event(EventKind.REVOLUTION, leader, int(self.revolution)))
            self.pending_revolutions = 0
        turn = self._lead_from(leader)
        limit = self.rules.lead_limit
        if limit and self.lead_streak[0] == turn and self.lead_streak[1] >= limit:
            nxt = self.next_player(turn, skip_passed=False)
            if nxt is not None:
                events.append(Event(EventKind.LEAD_LIMIT, turn, self.lead_streak[1]))
                turn = nxt
        self.turn = turn
        events.append(event(_TRICK_CLEAR, self.turn))

    def _draw(self, player: int, count: int, events: list[Event]) -> int:
        drawn = [self.pile.pop() for _ in range(min(count, len(self.pile)))]
        self.hands[player] = add_cards(self.hands[player], CardSet.of(drawn))
        events.append(Event(EventKind.DRAW, player, len(drawn)))
        return len(drawn)

    def _pass(self, player: int, events: list[Event]) -> None:
        self.failures += 1
        limit = self.rules.pass_limit
        if limit and self.failures >= limit:
            events.append(Event(EventKind.PASS_LIMIT, player, self.failures))
            self._end_by_pass_limit(events)
            return
        if self.rules.draw_on_pass and not self.after_draw:
            # Draw as many cards as the play on the field holds (one for a stuck leader);
            # over cards the player may then play at once, or pass again to decline.
            count = self.field.size if self.field is not None else 1
            if (self._draw(player, count, events) and self.field is not None
                    and self.legal_plays()):
                self.after_draw = True
                return
        self.after_draw = False
        self.passed |= 1 << player
        if not self._waiting():
            self._clear(events, self.owner)
            return
        nxt = self.next_player(player)
        self.turn = self.owner if nxt is None else nxt

    def _waiting(self) -> bool:
        """Is a player still to answer the field?  Every active player who has not passed;
        the last one who played answers too only with ``owner_answers`` (the devkit's
        rule), else the trick clears as soon as all the others have passed."""
        answers, passed, owner = self.rules.owner_answers, self.passed, self.owner
        out = self.finished + self.bottom  # out of the game (kept apart: a hot path)
        for p in range(len(self.hands)):
            if not passed >> p & 1 and (answers or p != owner) and p not in out:
                return True
        return False

    def _play(self, player: int, move: Move, events: list[Event]) -> None:
        rules = self.rules
        before = self.field
        was_locked = self.lock
        # Judged on the order and field the play answers, before its own effects.
        forbidden = (rules.forbidden_finish is _LAST_FORBIDDEN
                     and is_forbidden_finish(self, move))
        events.append(event(_PLAY, player))
        leaving = move.hand_cards()  # (remove_from_hand, with the cards made once)
        self.hands[player] = self.hands[player] - leaving
        self.played = add_cards(self.played, leaving)
        self.failures = 0
        self.after_draw = False
        if before is None:
            streak = self.lead_streak
            self.lead_streak = (player, streak[1] + 1 if streak[0] == player else 1)
            self.lead_must_contain = EMPTY
        lone_joker = move.kind is JOKER_KIND
        clear = False
        if lone_joker:
            if self.lock:
                events.append(event(_LOCK_OFF))
            self.lock = False
            self.geki = False
        elif (rules.lock and before is not None and not self.lock
              and before.kind is not JOKER_KIND and move.suits == before.suits
              and (rules.lock_joker_starts or (move.jokers == 0 and before.jokers == 0))):
            self.lock = True
            events.append(event(_LOCK_ON, player))
        elif (rules.geki_shibari and was_locked and not self.geki and before is not None
              and is_next_step(self, move, before)):
            self.geki = True
            events.append(Event(EventKind.GEKI_ON, player))
        if before is not None and before.kind is JOKER_KIND and is_spade3(move):
            events.append(Event(EventKind.SPADE3_RETURN, player))
            clear = True
        self.field = move
        self.owner = player
        skips = gives = discards = 0
        if not lone_joker:
            clear = self._special_plays(player, move, events) or clear
            if rules.revolution and revolts(move, rules):
                if rules.revolution_delayed:
                    self.pending_revolutions += 1
                    events.append(Event(EventKind.REVOLUTION_PENDING, player,
                                        self.pending_revolutions))
                else:
                    self.revolution = not self.revolution
                    events.append(Event(EventKind.REVOLUTION, player, int(self.revolution)))
            if rules.eleven_back and rank_count(move, RANK_J, rules):
                self.eleven_back = not self.eleven_back
                events.append(Event(EventKind.ELEVEN_BACK, player, int(self.eleven_back)))
            if eight_cuts(move, rules):
                events.append(Event(EventKind.EIGHT_CUT, player))
                clear = True
            self._reverse(player, move, events)
            if rules.five_skip:
                skips = rank_count(move, RANK_5, rules)
                if skips:
                    events.append(Event(EventKind.SKIP, player, skips))
            gives = rank_count(move, RANK_7, rules) if rules.seven_pass else 0
            discards = rank_count(move, RANK_10, rules) if rules.ten_discard else 0
        self.resume = AfterPlay(move, clear, skips, forbidden)
        if self.hands[player] and (gives or discards):
            self._ask_choices(player, gives, discards, events)
            if self.choices:
                self.turn = player
                return
        self._after_play(player, events)

    def _special_plays(self, player: int, move: Move, events: list[Event]) -> bool:
        """Sandstorm, ambulance and the joker pair: each clears the trick."""
        rules = self.rules
        if is_sandstorm(move, rules):
            events.append(Event(EventKind.SANDSTORM, player))
            if self.pending_revolutions:  # it cancels what would fire after it
                events.append(Event(EventKind.REVOLUTION_CANCELLED, player,
                                    self.pending_revolutions))
                self.pending_revolutions = 0
            return True
        if clears_as_ambulance(move, rules):
            events.append(Event(EventKind.AMBULANCE, player))
            return True
        if move.is_joker_pair:
            events.append(Event(EventKind.JOKER_PAIR, player))
            return True
        return False

    def _reverse(self, player: int, move: Move, events: list[Event]) -> None:
        rules = self.rules
        flips = 1 if rules.six_reverse and rank_count(move, RANK_6, rules) else 0
        if rules.nine_reverse:
            nines = rank_count(move, RANK_9, rules)
            flips += nines if rules.effects_per_card else min(nines, 1)
        if flips % 2:
            self.direction = -self.direction
            events.append(Event(EventKind.REVERSE, player, self.direction))

    def _ask_choices(self, player: int, gives: int, discards: int,
                     events: list[Event]) -> None:
        if gives:
            receiver = self.next_player(player, skip_passed=False)
            if receiver is not None:
                self.choices.append(PendingChoice(ChoiceKind.GIVE, player, gives, receiver))
        if discards:
            self.choices.append(PendingChoice(ChoiceKind.DISCARD, player, discards))
        for choice in self.choices:
            events.append(Event(EventKind.CHOICE, player, choice.count))

    def _after_play(self, player: int, events: list[Event]) -> None:
        plan = self.resume
        assert plan is not None
        self.resume = None
        if not self.hands[player]:
            self._player_out(player, plan.move, plan.forbidden, events)
            if self.over:
                return
        if plan.clear:
            self._clear(events, player)
            return
        if not self._waiting():  # the player keeps the turn when it answers its own play
            self._clear(events, player)
            return
        if plan.skips:
            target = self._skip_target(player, plan.skips)
            if target == player and not self.rules.owner_answers:
                self._clear(events, player)  # the skips came round: the others lost the trick
            else:
                self.turn = target
            return
        nxt = self.next_player(player)
        self.turn = player if nxt is None else nxt

    def _player_out(self, player: int, move: Move, forbidden: bool,
                    events: list[Event]) -> None:
        rules = self.rules
        if forbidden:
            self.bottom.append(player)
            events.append(Event(EventKind.FORBIDDEN_FINISH, player))
        else:
            self.finished.append(player)
        events.append(Event(EventKind.PLAYER_OUT, player, self.places()[player]))
        if rules.end_on_first_out and not forbidden:
            self.winning_play = move
            self._end_by_scores(events, player)
            return
        if (rules.miyako_ochi and not forbidden and len(self.finished) == 1
                and self.prev_classes is not None):
            top = self.prev_classes.index(0) if 0 in self.prev_classes else -1
            if top >= 0 and top != player and self.is_active(top):
                self.bottom.append(top)
                self.discarded = add_cards(self.discarded, self.hands[top])
                self.hands[top] = CardSet(0)
                events.append(Event(EventKind.MIYAKO_OCHI, top, self.places()[top]))
        if len(self.active_players()) <= 1:
            self.finished.extend(self.active_players())
            self._game_over(events)

    def _in_turn_order(self, first: int) -> list[int]:
        n = len(self.seats)
        seat = self._seat_of(first)
        return [self.seats[(seat + i * self.direction) % n] for i in range(1, n)]

    def _end_by_scores(self, events: list[Event], winner: int | None) -> None:
        """Card scoring: the others are placed by score, ties in turn order from the winner
        (from the player to move when the pass limit ended the game)."""
        self.scores = card_scores(self.rules, self.hands, winner, self.winning_play)
        scores = self.scores
        start = self.turn if winner is None else winner
        rest = [p for p in [start, *self._in_turn_order(start)] if self.is_active(p)]
        rest.sort(key=lambda p: scores[p])
        self.finished.extend(rest)
        self._game_over(events)

    def _end_by_pass_limit(self, events: list[Event]) -> None:
        if self.rules.scoring is not Scoring.PLACE:
            self._end_by_scores(events, None)
            return
        rest = self.active_players()
        self.rng.shuffle(rest)
        self.finished.extend(rest)
        self._game_over(events)

    def _game_over(self, events: list[Event]) -> None:
        self.over = True
        events.append(Event(EventKind.GAME_OVER))


class GameOverError(RuntimeError):
    """A move was applied to a game that has ended."""


class ChoicePendingError(RuntimeError):
    """A move was stepped while the game waits for a follow-up choice (step_choice)."""


class NoChoicePendingError(RuntimeError):
    """step_choice was called with no choice pending."""
