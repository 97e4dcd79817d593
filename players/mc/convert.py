"""Conversions between the typed protocol/engine objects and the Numba encodings."""

from __future__ import annotations

import numpy as np
from daihinmin.rules.game import GameState
from daihinmin.values.cards import JOKER_BITS, CardSet
from daihinmin.values.moves import LONE_JOKER, PASS, Move, MoveKind

from . import moves as mv
from .bits import JOKER_BIT
from .state import (
    FAILS,
    FIELD_CARDS,
    FIELD_INFO,
    HAND,
    LOCK,
    N_OUT,
    N_PLAYERS,
    OUT,
    OVER,
    OWNER,
    OWNER_ANSWERS,
    PASSED,
    POS,
    REV,
    SEAT,
    STATE_SIZE,
    TURN,
)


class UnsupportedPositionError(ValueError):
    """The position uses something the Numba simulator does not model (e.g. two jokers)."""


def hand_mask(cards: CardSet) -> int:
    """A hand as a Numba mask: real cards as they are, any joker as bit 60."""
    if cards.jokers > 1:
        raise UnsupportedPositionError("the simulator models one joker")
    return (cards.mask & ~JOKER_BITS) | (int(JOKER_BIT) if cards.jokers else 0)


def mask_cards(mask: int) -> CardSet:
    return CardSet(int(mask))


def encode_move(move: Move) -> tuple[int, int]:
    """``(cards, info)`` of a typed move."""
    kind = move.kind
    if kind is MoveKind.PASS:
        return 0, 0
    if kind is MoveKind.JOKER:
        return int(JOKER_BIT), mv.LONE_JOKER_INFO
    if len(move.joker_cells) > 1:
        raise UnsupportedPositionError("the simulator models one joker")
    cards = move.cards.mask
    jrow, jcol = mv.NO_JOKER_ROW, 0
    if move.joker_cells:
        jrow, jcol = move.joker_cells[0]
        cards |= int(JOKER_BIT)
    info = mv.pack(int(kind), move.size, move.low, move.high, move.suits, jrow, jcol)
    return int(cards), int(info)


def decode_move(cards: int, info: int) -> Move:
    """The typed move of ``(cards, info)``."""
    cards, info = int(cards), int(info)
    kind = info & 7
    if kind == mv.K_PASS:
        return PASS
    if kind == mv.K_JOKER:
        return LONE_JOKER
    real = CardSet(cards & ~int(JOKER_BIT))
    jrow = (info >> 21) & 7
    jcol = (info >> 24) & 15
    has_joker = bool(cards & int(JOKER_BIT))
    if kind == mv.K_SINGLE:
        (c,) = tuple(real)
        return Move.single(c)
    low = (info >> 8) & 15
    if kind == mv.K_GROUP:
        return Move.group(low, real.suits_of_rank(low), (jrow,) if has_joker else ())
    size = (info >> 3) & 15
    suit = jrow if has_joker else next(iter(real)) & 3
    return Move.sequence(suit, low, size, (jcol,) if has_joker else ())


def state_from_game(game: GameState) -> np.ndarray:
    """The Numba state array of an engine state (``uecda`` rules, one joker)."""
    if game.n_players != N_PLAYERS or game.bottom or game.direction != 1 or game.eleven_back:
        raise UnsupportedPositionError("the simulator models the uecda rules only")
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for p in range(N_PLAYERS):
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
    st[REV] = int(game.revolution)
    st[LOCK] = int(game.lock)
    st[FAILS] = game.failures
    st[OVER] = int(game.over)
    st[N_OUT] = len(game.finished)
    for i, p in enumerate(game.finished):
        st[OUT + i] = p
    return st
