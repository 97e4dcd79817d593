"""Judging a move against a game state: accept, or reject with a specific reason."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from daihinmin.protocol.cards import RANK_3, SPADE
from daihinmin.protocol.moves import Move, MoveKind

from .ruleset import ForbiddenFinish, SequenceOrder

if TYPE_CHECKING:
    from .game import GameState


class Reject(StrEnum):
    """Why a move is not accepted."""

    NOT_YOUR_TURN = "it is not this player's turn"
    GAME_OVER = "the game is over"
    ALREADY_PASSED = "the player has passed in this trick"
    CARD_NOT_HELD = "a card of the move is not in the hand"
    JOKER_NOT_HELD = "a joker was played but none is held"
    TOO_MANY_JOKERS = "more jokers than the rules have"
    SEQUENCES_OFF = "sequences are not allowed"
    SEQUENCE_TOO_SHORT = "the sequence is too short"
    GROUP_TOO_LARGE = "the group is larger than allowed"
    LEADER_MUST_PLAY = "the leader may not pass"
    JOKER_ON_FIELD = "only the spade 3 beats a lone joker"
    COUNT_MISMATCH = "the number of cards differs from the field"
    KIND_MISMATCH = "the kind of play differs from the field"
    NOT_STRONGER = "the play is not stronger than the field"
    LOCKED = "the suits differ from the locked suits"
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
PASS_OVER_CARDS = Judgement(True, None, 8)


def rejected(reason: Reject) -> Judgement:
    return Judgement(False, reason, 8)


def is_reversed(state: GameState) -> bool:
    return state.revolution != state.eleven_back


def beats(state: GameState, move: Move, field: Move) -> Reject | None:
    """Can ``move`` be played on ``field`` (ignoring ownership)?"""
    rules = state.rules
    if field.kind is MoveKind.JOKER:
        if (rules.spade3_return and move.kind is MoveKind.SINGLE and move.low == RANK_3
                and move.suits == 1 << SPADE):
            return None
        if rules.joker_beats_joker and move.kind is MoveKind.JOKER:
            return None
        return Reject.JOKER_ON_FIELD
    if move.size != field.size:
        return Reject.COUNT_MISMATCH
    if move.kind is MoveKind.JOKER:
        return None if field.kind is MoveKind.SINGLE else Reject.KIND_MISMATCH
    if move.kind is not field.kind:
        return Reject.KIND_MISMATCH
    rev = is_reversed(state)
    if move.kind is MoveKind.SEQUENCE and rules.sequence_order is SequenceOrder.ABOVE_HIGH:
        stronger = move.high < field.low if rev else move.low > field.high
    else:
        stronger = move.low < field.low if rev else move.low > field.low
    if not stronger:
        return Reject.NOT_STRONGER
    if state.lock and move.suits != field.suits:
        return Reject.LOCKED
    return None


def check_shape(state: GameState, move: Move) -> Reject | None:
    rules = state.rules
    if move.jokers > rules.jokers:
        return Reject.TOO_MANY_JOKERS
    if move.kind is MoveKind.SEQUENCE:
        if not rules.sequences:
            return Reject.SEQUENCES_OFF
        if move.size < rules.sequence_min:
            return Reject.SEQUENCE_TOO_SHORT
    if move.kind is MoveKind.GROUP and move.size > rules.group_max:
        return Reject.GROUP_TOO_LARGE
    return None


def judge(state: GameState, player: int, move: Move) -> Judgement:
    """What the server answers to ``move`` from ``player`` now."""
    if state.over:
        return rejected(Reject.GAME_OVER)
    if player != state.turn:
        return rejected(Reject.NOT_YOUR_TURN)
    field = state.field
    if move.kind is MoveKind.PASS:
        if field is None:
            if state.rules.leader_may_pass:
                return ACCEPT
            return rejected(Reject.LEADER_MUST_PLAY)
        # The protocol answers 8 to a pass over cards: its count check fails.
        return PASS_OVER_CARDS
    hand = state.hands[player]
    if not move.cards <= hand:
        return rejected(Reject.CARD_NOT_HELD)
    if move.jokers > hand.jokers:
        return rejected(Reject.JOKER_NOT_HELD)
    reason = check_shape(state, move)
    if reason is None and field is not None:
        reason = beats(state, move, field)
    if (reason is None and state.rules.forbidden_finish is ForbiddenFinish.REJECT
            and len(hand) == move.jokers + len(move.cards) and is_top_play(state, move)):
        reason = Reject.FORBIDDEN_FINISH
    return ACCEPT if reason is None else rejected(reason)


def is_top_play(state: GameState, move: Move) -> bool:
    """A play of the strongest rank under the current order (or the joker alone)."""
    if move.kind is MoveKind.JOKER:
        return True
    top = 1 if is_reversed(state) else 13
    return move.low <= top <= move.high
