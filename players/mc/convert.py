"""Conversions between the typed protocol/engine objects and the Numba encodings."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from daihinmin.rules.choices import ChoiceKind
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import JOKER_BITS, CardSet
from daihinmin.values.moves import JOKER_PAIR, LONE_JOKER, PASS, Move, MoveKind

from . import moves as mv
from .bits import JOKER_BIT
from .plays import GEKI, LOCKED
from .rulebits import AFTER_DRAW, LEAD_HOLDS_CLUB3, rules_word
from .state import (
    BOTTOM,
    ELEVEN,
    FAILS,
    FIELD_CARDS,
    FIELD_INFO,
    GIVE_TO,
    HAND,
    LEAD_COUNT,
    LEAD_PLAYER,
    LOCK,
    MAX_PLAYERS,
    N_BOTTOM,
    N_OUT,
    N_SEATS,
    OUT,
    OVER,
    OWNER,
    OWNER_ANSWERS,
    PASSED,
    PENDING_DISCARD,
    PENDING_GIVE,
    PENDING_REV,
    PLACE_VALUE_UNIT,
    PLACE_VALUES,
    POS,
    PREV_TOP,
    RESUME,
    RESUME_CARDS,
    RESUME_CLEARS,
    RESUME_FORBIDDEN,
    RESUME_SKIPS,
    REV,
    REVERSED,
    RULES,
    SEAT,
    STATE_SIZE,
    TURN,
    set_pile,
)


class UnsupportedPositionError(ValueError):
    """The position uses something the Numba simulator does not model (e.g. seven players)."""


def hand_mask(cards: CardSet) -> int:
    """A hand as a Numba mask: the card set's own mask (jokers on bit 60, then 61)."""
    return cards.mask


def joker_mask(jokers: int) -> int:
    """The joker bits of ``jokers`` jokers (0..2), as a hand holds them."""
    return JOKER_BITS if jokers >= 2 else int(JOKER_BIT) if jokers else 0


def mask_cards(mask: int) -> CardSet:
    return CardSet(int(mask))


def encode_move(move: Move) -> tuple[int, int]:
    """``(cards, info)`` of a typed move."""
    kind = move.kind
    if kind is MoveKind.PASS:
        return 0, 0
    if kind is MoveKind.JOKER:
        return int(JOKER_BIT), mv.LONE_JOKER_INFO
    cells = move.joker_cells
    if len(cells) > 2:
        raise UnsupportedPositionError(f"the simulator does not model the play {move}")
    cards = move.cards.mask | joker_mask(len(cells))
    jrow, jcol = cells[0] if cells else (mv.NO_JOKER_ROW, 0)
    size = move.steps if kind is MoveKind.STAIRS else move.size  # stairs: width is the suits
    info = mv.pack(int(kind), size, move.low, move.high, move.suits, jrow, jcol)
    if len(cells) == 2:
        info = mv.with_second_joker(info, *cells[1])
    return int(cards), int(info)


def decode_move(cards: int, info: int) -> Move:
    """The typed move of ``(cards, info)``."""
    cards, info = int(cards), int(info)
    kind = info & 7
    if kind == mv.K_PASS:
        return PASS
    if kind == mv.K_JOKER:
        return LONE_JOKER
    real = CardSet(cards & ~JOKER_BITS)
    cells = []
    if cards & JOKER_BITS:
        cells.append(((info >> 21) & 7, (info >> 24) & 15))
        if (info >> 28) & 7:  # the second joker's row, plus one
            cells.append((((info >> 28) & 7) - 1, (info >> 31) & 15))
    if kind == mv.K_SINGLE:
        (c,) = tuple(real)
        return Move.single(c)
    if kind == mv.K_GROUP and not real:
        return JOKER_PAIR
    low = (info >> 8) & 15
    if kind == mv.K_GROUP:
        return Move.group(low, real.suits_of_rank(low), tuple(row for row, _ in cells))
    size = (info >> 3) & 15
    if kind == mv.K_STAIRS:
        return Move.stairs((info >> 16) & 15, low, size, tuple(cells))
    suit = cells[0][0] if cells else next(iter(real)) & 3
    return Move.sequence(suit, low, size, tuple(col for _, col in cells))


def lock_value(lock: bool, geki: bool) -> int:
    """The LOCK slot of a state: the suits locked, and under geki-shibari the ranks too."""
    return (LOCKED if lock else 0) | (GEKI if geki else 0)


def state_from_game(game: GameState) -> np.ndarray:
    """The Numba state array of an engine state (``uecda`` play rules, 3..6 players)."""
    n = game.n_players
    if not 1 <= n <= MAX_PLAYERS:
        raise UnsupportedPositionError("the simulator does not model this position")
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    st[N_SEATS] = n
    st[RULES] = (rules_word(game.rules) | (LEAD_HOLDS_CLUB3 if game.lead_must_contain else 0)
                 | (AFTER_DRAW if game.after_draw else 0))
    prev = game.prev_classes
    st[PREV_TOP] = prev.index(0) if prev is not None and 0 in prev else -1
    st[N_BOTTOM] = len(game.bottom)
    for i, p in enumerate(game.bottom):
        st[BOTTOM + i] = p
    for p in range(n):
        st[HAND + p] = hand_mask(game.hands[p])
    for i, p in enumerate(game.seats):
        st[SEAT + i] = p
        st[POS + p] = i
    if game.field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(game.field)
    st[TURN] = game.turn
    st[OWNER] = game.owner
    st[OWNER_ANSWERS] = int(game.rules.owner_answers)
    st[PASSED] = game.passed
    st[REV] = int(game.revolution != game.eleven_back)  # the order answers follow
    st[ELEVEN] = int(game.eleven_back)
    st[LOCK] = lock_value(game.lock, game.geki)
    st[FAILS] = game.failures
    st[OVER] = int(game.over)
    st[N_OUT] = len(game.finished)
    for i, p in enumerate(game.finished):
        st[OUT + i] = p
    st[REVERSED] = int(game.direction == -1)
    st[PENDING_REV] = game.pending_revolutions
    st[LEAD_PLAYER], st[LEAD_COUNT] = game.lead_streak
    set_pile(st, np.array(game.pile, dtype=np.int64))  # in order, the top card last
    for choice in game.choices:
        if choice.kind is ChoiceKind.GIVE:
            st[PENDING_GIVE], st[GIVE_TO] = choice.count, choice.receiver
        else:
            st[PENDING_DISCARD] = choice.count
    plan = game.resume
    if game.choices and plan is not None:
        st[RESUME] = (RESUME_CLEARS if plan.clear else 0) | (
            RESUME_FORBIDDEN if plan.forbidden else 0)
        st[RESUME_SKIPS] = plan.skips
        st[RESUME_CARDS] = encode_move(plan.move)[0]
    st[PLACE_VALUES:PLACE_VALUES + MAX_PLAYERS] = place_values(game.rules)
    return st


def place_values(rules: RuleSet) -> np.ndarray:
    """The slots :data:`~daihinmin.players.mc.state.PLACE_VALUES` of ``rules``: each
    place's points mapped linearly onto 1..players (the best points worth the player count,
    the worst 1), or all 0 where the points fall evenly from place to place (then every
    preset's points are players - place plus a constant: no slot needed).

    >>> from daihinmin.rules.ruleset import UECDA
    >>> place_values(UECDA).tolist()
    [0, 0, 0, 0, 0, 0]
    >>> [round(v / PLACE_VALUE_UNIT, 3)
    ...  for v in place_values(UECDA.with_rules(points=(10, 5, 3, 2, 1))).tolist()]
    [5.0, 2.778, 1.889, 1.444, 1.0, 0.0]
    """
    n = rules.players
    points = [rules.points_for_place(place) for place in range(n)]
    out = np.zeros(MAX_PLAYERS, dtype=np.int64)
    steps = {a - b for a, b in pairwise(points)}
    if len(steps) == 1 and min(steps) > 0:
        return out
    low, high = min(points), max(points)
    for place, pts in enumerate(points):
        value = 1.0 + (n - 1) * ((pts - low) / (high - low) if high > low else 1.0)
        out[place] = round(value * PLACE_VALUE_UNIT)
    return out
