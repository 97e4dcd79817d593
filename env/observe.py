"""Observations: what one seat may see, as a fixed-length vector, built from its bot view.

The vector is made from a :class:`~daihinmin.contract.view.GameView` alone (the facts a
networked client learns from the server's tables: its own hand, the field, the flags, the
counts, this game's plays, its own side of the exchange) plus the decision being asked
(which the view's seat is asked, and the cards picked so far in a multi-card answer), so it
never holds a hidden card.  Seats are relative: position 0 is the observer, then the next
seats in seat order.

The parts, in order (:data:`ObservationLayout.parts` names each slice; all values in 0..1):

========================= ===== =====================================================
part                      size  meaning
========================= ===== =====================================================
``hand``                  54    own cards (52 cards by rank then suit, jokers last)
``picked``                54    cards picked so far in this exchange or choice
``played``                54    cards played this game by anyone (public)
``given``, ``received``   54+54 own side of this game's exchange
``lead_must``             54    cards the next lead must hold (``original``'s ♣3)
``field``                 54    the play on the field (its real cards and jokers)
``field_jokers``          75    the table cells (5 rows x 15 columns) its jokers stand in
``field_kind``            6     empty, single, group, sequence, lone joker, stairs
``decision``              5     none, move, exchange, 7-pass give, 10-discard
``to_pick``               1     cards still to pick / 10 (capped at 1)
``flags``                 6     revolution, 11-back, lock, geki, reversed direction,
                                classes known (not the first game of a class block)
``pile``                  1     cards left in the draw pile / 54
``count``                 n     cards each seat holds / 54
``out``                   n     the seat has no cards left
``passed``                n     the seat passed in this trick
``owner``                 n     the seat played the cards on the field
``turn``                  n     the seat is to move
``class``                 n     its class (previous place) / (n - 1)
``receiver``              n     the seat a pending 7-pass gives to
========================= ===== =====================================================

>>> from daihinmin.rules.ruleset import UECDA
>>> layout = ObservationLayout.of(UECDA)
>>> layout.size, layout.parts["count"]
(507, slice(472, 477, None))
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
from daihinmin.contract.view import GameView
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

from .actions import CARD_BITS, CARD_SLOTS

_SHIFTS = np.array(CARD_BITS, dtype=np.int64)
Vector = npt.NDArray[np.float32]
CARD_NORM = 54.0
PICK_NORM = 10.0


class Decision(enum.IntEnum):
    """What the observing seat is asked now."""

    NONE = 0
    MOVE = 1
    EXCHANGE = 2
    GIVE = 3
    DISCARD = 4


_FIXED_PARTS: tuple[tuple[str, int], ...] = (
    ("hand", CARD_SLOTS), ("picked", CARD_SLOTS), ("played", CARD_SLOTS),
    ("given", CARD_SLOTS), ("received", CARD_SLOTS), ("lead_must", CARD_SLOTS),
    ("field", CARD_SLOTS), ("field_jokers", 75), ("field_kind", 6), ("decision", 5),
    ("to_pick", 1), ("flags", 6), ("pile", 1))
_SEAT_PARTS = ("count", "out", "passed", "owner", "turn", "class", "receiver")


@dataclass(frozen=True)
class ObservationLayout:
    """Where each part sits in the vector of a table of ``players`` seats."""

    players: int
    parts: dict[str, slice]
    size: int

    @staticmethod
    @cache
    def of(rules: RuleSet) -> ObservationLayout:
        parts: dict[str, slice] = {}
        at = 0
        for name, size in (*_FIXED_PARTS, *((name, rules.players) for name in _SEAT_PARTS)):
            parts[name] = slice(at, at + size)
            at += size
        return ObservationLayout(rules.players, parts, at)


def card_bits(mask: int) -> npt.NDArray[np.int64]:
    """The 54 pick slots of a card mask as 0/1."""
    return (np.int64(mask) >> _SHIFTS) & 1


def _cards(out: Vector, part: slice, cards: CardSet) -> None:
    if cards.mask:
        out[part] = card_bits(cards.mask)


def played_cards(view: GameView, start: int = 0, mask: int = 0) -> int:
    """The mask of every card played this game (the view's history: public); ``start`` and
    ``mask``: the turns already counted and their cards (see :class:`PlayedCards`)."""
    history = view.history
    for i in range(start, len(history)):
        move = history[i].move
        if not move.is_pass:
            mask |= move.hand_cards().mask
    return mask


class PlayedCards:
    """:func:`played_cards`, counting each turn of a game once as the game goes on."""

    def __init__(self) -> None:
        self.game = -1
        self.turns = 0
        self.mask = 0

    def of(self, view: GameView) -> int:
        if view.game != self.game or len(view.history) < self.turns:
            self.game, self.turns, self.mask = view.game, 0, 0
        self.mask = played_cards(view, self.turns, self.mask)
        self.turns = len(view.history)
        return self.mask


def _field(out: Vector, parts: dict[str, slice], field: Move | None) -> None:
    kind = parts["field_kind"].start
    if field is None:
        out[kind] = 1.0
        return
    out[kind + int(field.kind)] = 1.0
    _cards(out, parts["field"], field.hand_cards())
    base = parts["field_jokers"].start
    for row, col in field.joker_cells:
        out[base + 15 * row + col] = 1.0


def encode(view: GameView, layout: ObservationLayout, decision: Decision = Decision.NONE,
           picked: CardSet | None = None, to_pick: int = 0, played: int | None = None
           ) -> Vector:
    """The observation vector of ``view``'s seat (see the module docstring); ``played``:
    :func:`played_cards` of the view, when the caller keeps it."""
    parts = layout.parts
    out = np.zeros(layout.size, dtype=np.float32)
    _cards(out, parts["hand"], view.hand)
    if picked is not None:
        _cards(out, parts["picked"], picked)
    _cards(out, parts["played"], CardSet(played_cards(view) if played is None else played))
    _cards(out, parts["given"], view.exchange_given)
    _cards(out, parts["received"], view.exchange_received)
    _cards(out, parts["lead_must"], view.lead_must_contain)
    _field(out, parts, view.field)
    out[parts["decision"].start + int(decision)] = 1.0
    out[parts["to_pick"].start] = min(to_pick / PICK_NORM, 1.0)
    n = layout.players
    classes_known = any(view.classes)
    flags = parts["flags"].start
    for i, flag in enumerate((view.revolution, view.eleven_back, view.lock, view.geki,
                              view.direction == -1, classes_known)):
        if flag:
            out[flags + i] = 1.0
    out[parts["pile"].start] = min(view.pile_count / CARD_NORM, 1.0)
    seats = view.seats
    me = seats.index(view.player)
    receiver = view.pending.receiver if view.pending is not None else -1
    count, gone = parts["count"].start, parts["out"].start
    passed, owner = parts["passed"].start, parts["owner"].start
    turn, klass, recv = parts["turn"].start, parts["class"].start, parts["receiver"].start
    for k in range(n):
        p = seats[(me + k) % n]
        cards = view.counts[p]
        out[count + k] = min(cards / CARD_NORM, 1.0)
        if cards == 0:
            out[gone + k] = 1.0
        if view.passed >> p & 1:
            out[passed + k] = 1.0
        if view.field_owner == p and view.field is not None:
            out[owner + k] = 1.0
        if view.turn_player == p:
            out[turn + k] = 1.0
        if classes_known:
            out[klass + k] = view.classes[p] / (n - 1)
        if p == receiver:
            out[recv + k] = 1.0
    return out


__all__ = ["Decision", "ObservationLayout", "PlayedCards", "card_bits", "encode",
           "played_cards"]
