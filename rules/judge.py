"""Judging a move against a game state: accept, or reject with a specific reason.

The play checks read a small context (the rules, the field and the trick flags), so a
client's :class:`~daihinmin.contract.view.GameView` lists legal plays with exactly the
checks the server judges with: :func:`legal_plays` takes either.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from daihinmin.values.cards import CardSet
from daihinmin.values.moves import (
    GROUP_KIND,
    JOKER_KIND,
    PASS_KIND,
    SEQUENCE_KIND,
    SINGLE_KIND,
    STAIRS_KIND,
    Move,
)

from .forbidden import OrderContext, is_forbidden_finish, is_reversed, is_top_play
from .movegen import candidate_plays
from .plays import beats_anything, is_spade3
from .ruleset import ForbiddenFinish, SequenceOrder

if TYPE_CHECKING:
    from .game import GameState


class Reject(StrEnum):
    """Why a move is not accepted."""

    NOT_YOUR_TURN = "it is not this player's turn"
    GAME_OVER = "the game is over"
    ALREADY_PASSED = "the player has passed in this trick"
    CHOICE_PENDING = "the player must first answer a pending choice"
    CARD_NOT_HELD = "a card of the move is not in the hand"
    JOKER_NOT_HELD = "a joker was played but none is held"
    TOO_MANY_JOKERS = "more jokers than the rules have"
    SEQUENCES_OFF = "sequences are not allowed"
    SEQUENCE_TOO_SHORT = "the sequence is too short"
    STAIRS_OFF = "double stairs are not allowed"
    EDGE_JOKER = "a joker must stand for a real card (no cell below the 3 or above the 2)"
    GROUP_TOO_LARGE = "the group is larger than allowed"
    JOKER_PAIR_OFF = "two jokers alone are not a play under these rules"
    LEADER_MUST_PLAY = "the leader may not pass"
    MUST_CONTAIN = "the opening lead must contain the opening card"
    JOKER_ON_FIELD = "only the spade 3 beats a lone joker"
    COUNT_MISMATCH = "the number of cards differs from the field"
    KIND_MISMATCH = "the kind of play differs from the field"
    NOT_STRONGER = "the play is not stronger than the field"
    LOCKED = "the suits differ from the locked suits"
    GEKI_SHIBARI = "under geki-shibari the play must be exactly one rank stronger"
    FORBIDDEN_FINISH = "that play may not be the last one"


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one move.

    ``accepted`` says whether the rules allow it (a pass is allowed whenever passing is);
    ``answer`` is the wire reply: 9, or 8 for a rejected move *and* for a pass over cards,
    exactly as the reference server answers.
    """

    accepted: bool
    reason: Reject | None = None
    answer: int = 9


ACCEPT = Judgement(True)
# Read for every play judged (and every candidate of ``legal_plays``): on Python 3.11 an enum
# member's attribute lookup goes through the metaclass's ``__getattr__`` hook.
_REJECT_FORBIDDEN = ForbiddenFinish.REJECT
PASS_OVER_CARDS = Judgement(True, None, 8)


def rejected(reason: Reject) -> Judgement:
    return Judgement(False, reason, 8)


class PlayContext(OrderContext, Protocol):
    """The trick facts a play is judged on: what a GameState and a GameView both declare,
    so a view is judged with the same checks as the server's state (no field is optional)."""

    @property
    def lock(self) -> bool: ...
    @property
    def geki(self) -> bool: ...  # geki-shibari: plays must be exactly one rank stronger
    @property
    def lead_must_contain(self) -> CardSet: ...  # the opening lead must hold these cards


def _stronger(ctx: OrderContext, move: Move, field: Move, rev: bool) -> bool:
    order = ctx.rules.sequence_order
    if move.kind in (SEQUENCE_KIND, STAIRS_KIND):
        if order is SequenceOrder.ABOVE_HIGH:
            return move.high < field.low if rev else move.low > field.high
        if order is SequenceOrder.NEXT_LOW:
            return move.low == field.low + (-1 if rev else 1)
    return move.low < field.low if rev else move.low > field.low


def is_next_step(ctx: OrderContext, move: Move, field: Move) -> bool:
    """Is ``move`` exactly one rank stronger than ``field`` (geki-shibari)?"""
    rev = is_reversed(ctx)
    if (move.kind in (SEQUENCE_KIND, STAIRS_KIND)
            and ctx.rules.sequence_order is SequenceOrder.ABOVE_HIGH):
        return move.high == field.low - 1 if rev else move.low == field.high + 1
    return move.low == field.low + (-1 if rev else 1)


def beats(state: PlayContext, move: Move, field: Move) -> Reject | None:
    """Can ``move`` be played on ``field`` (ignoring ownership)?"""
    rules = state.rules
    if (rules.sandstorm or rules.ambulance) and beats_anything(move, rules):
        return None  # sandstorm, ambulance
    field_kind = field.kind
    if field_kind is JOKER_KIND:
        if rules.spade3_return and is_spade3(move):
            return None
        if rules.joker_beats_joker and move.kind is JOKER_KIND:
            return None
        return Reject.JOKER_ON_FIELD
    if move.size != field.size:
        return Reject.COUNT_MISMATCH
    kind = move.kind
    if kind is JOKER_KIND:
        return None if field_kind is SINGLE_KIND else Reject.KIND_MISMATCH
    if kind is not field_kind:
        return Reject.KIND_MISMATCH
    rev = state.revolution != state.eleven_back
    if kind is SINGLE_KIND or kind is GROUP_KIND:
        if kind is GROUP_KIND and not move.cards:
            return None  # the joker pair: the strongest pair under any order, any suits
        stronger = move.low < field.low if rev else move.low > field.low
    else:
        if kind is STAIRS_KIND and move.suits.bit_count() != field.suits.bit_count():
            return Reject.COUNT_MISMATCH
        stronger = _stronger(state, move, field, rev)
    if not stronger:
        return Reject.NOT_STRONGER
    if state.lock and move.suits != field.suits:
        return Reject.LOCKED
    if state.geki and not is_next_step(state, move, field):
        return Reject.GEKI_SHIBARI
    return None


def check_shape(state: OrderContext, move: Move) -> Reject | None:
    rules = state.rules
    kind = move.kind
    if kind is SINGLE_KIND:
        return None
    if kind is JOKER_KIND:
        return None if rules.jokers >= 1 else Reject.TOO_MANY_JOKERS
    if len(move.joker_cells) > rules.jokers:
        return Reject.TOO_MANY_JOKERS
    if kind is GROUP_KIND:
        if not move.cards:
            return None if rules.joker_pair_clears else Reject.JOKER_PAIR_OFF
        return Reject.GROUP_TOO_LARGE if move.size > rules.group_max else None
    if kind is SEQUENCE_KIND:
        if not rules.sequences:
            return Reject.SEQUENCES_OFF
        if move.size < rules.sequence_min:
            return Reject.SEQUENCE_TOO_SHORT
    elif kind is STAIRS_KIND:
        if not (rules.double_stairs and rules.sequences):
            return Reject.STAIRS_OFF
        if move.steps < rules.sequence_min:
            return Reject.SEQUENCE_TOO_SHORT
    if (not rules.sequence_edge_jokers and kind in (SEQUENCE_KIND, STAIRS_KIND)
            and any(col in (0, 14) for _, col in move.joker_cells)):
        return Reject.EDGE_JOKER
    return None


def _rules_verdict(ctx: PlayContext, hand_size: int, move: Move) -> Reject | None:
    """The checks after ownership: shape, the opening card, the field, the finish."""
    reason = check_shape(ctx, move)
    if reason is not None:
        return reason
    field = ctx.field
    if field is None:
        must = ctx.lead_must_contain
        if must and not must <= move.cards:
            return Reject.MUST_CONTAIN
    else:
        reason = beats(ctx, move, field)
        if reason is not None:
            return reason
    if (ctx.rules.forbidden_finish is _REJECT_FORBIDDEN
            and hand_size == move.jokers + len(move.cards) and is_forbidden_finish(ctx, move)):
        return Reject.FORBIDDEN_FINISH
    return None


def play_verdict(ctx: PlayContext, hand: CardSet, move: Move) -> Reject | None:
    """Why the holder of ``hand`` may not make the play ``move`` now (None: it may)."""
    if move.cards.mask & ~hand.mask:
        return Reject.CARD_NOT_HELD
    if move.jokers > hand.jokers:
        return Reject.JOKER_NOT_HELD
    return _rules_verdict(ctx, len(hand), move)


def legal_plays(hand: CardSet, ctx: PlayContext) -> list[Move]:
    """Every play (not pass) the holder of ``hand`` may make in ``ctx``."""
    size = len(hand)
    # The candidates are made from the hand, so ownership holds.
    return [m for m in candidate_plays(hand, ctx.rules, ctx.field)
            if _rules_verdict(ctx, size, m) is None]


def may_pass(ctx: PlayContext, hand: CardSet) -> bool:
    """May the player to move pass?  Over cards always; on an empty field when the rules
    let a leader pass, or when no play is legal (e.g. the last card may not be played)."""
    if ctx.field is not None:
        return True
    if ctx.lead_must_contain and legal_plays(hand, ctx):
        return False
    return ctx.rules.leader_may_pass or not legal_plays(hand, ctx)


def judge(state: GameState, player: int, move: Move) -> Judgement:
    """What the server answers to ``move`` from ``player`` now."""
    if state.over:
        return rejected(Reject.GAME_OVER)
    if player != state.turn:
        return rejected(Reject.NOT_YOUR_TURN)
    if state.pending is not None:
        return rejected(Reject.CHOICE_PENDING)
    field = state.field
    hand = state.hands[player]
    if move.kind is PASS_KIND:
        if field is None:
            if may_pass(state, hand):
                return ACCEPT
            return rejected(Reject.LEADER_MUST_PLAY)
        # The protocol answers 8 to a pass over cards: its count check fails.
        return PASS_OVER_CARDS
    reason = play_verdict(state, hand, move)
    return ACCEPT if reason is None else rejected(reason)


__all__ = ["ACCEPT", "Judgement", "PlayContext", "Reject", "beats", "check_shape",
           "is_next_step", "is_reversed", "is_top_play", "judge", "legal_plays", "may_pass",
           "play_verdict", "rejected"]
