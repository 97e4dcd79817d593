"""Shuffling, dealing, and the card exchange.

>>> strongest(CardSet.parse("S3 H2 D2 SA JK"), 2)
CardSet.parse('H2 JK')
>>> strongest(CardSet.parse("C2 S3 H2 D2"), 2)
CardSet.parse('H2 D2')
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from daihinmin.values.cards import DECK52, JOKER, JOKER2, JOKER_BITS, CardSet


def deck(jokers: int) -> list[int]:
    cards = list(CardSet(DECK52))
    cards += [JOKER, JOKER2][:jokers]
    return cards


def deal(rng: random.Random, seats: Sequence[int], start_seat: int, jokers: int,
         hand_size: int = 0) -> tuple[list[CardSet], CardSet]:
    """Shuffle and deal one card at a time in seat order from ``start_seat``.

    Returns the hands (by player number) and the undealt draw pile.
    """
    hands, pile = deal_ordered(rng, seats, start_seat, jokers, hand_size)
    return hands, CardSet.of(pile)


def deal_ordered(rng: random.Random, seats: Sequence[int], start_seat: int, jokers: int,
                 hand_size: int = 0) -> tuple[list[CardSet], list[int]]:
    """As :func:`deal`, with the draw pile as a list in order (its top card last).

    >>> hands, pile = deal_ordered(random.Random(1), (0, 1, 2, 3), 0, 2, hand_size=7)
    >>> [len(h) for h in hands], len(pile)
    ([7, 7, 7, 7], 26)
    """
    cards = deck(jokers)
    rng.shuffle(cards)
    n = len(seats)
    masks = [0] * n
    total = len(cards) if hand_size <= 0 else min(len(cards), hand_size * n)
    for i in range(total):
        player = seats[(start_seat + i) % n]
        masks[player] |= 1 << cards[i]
    pile = cards[total:][::-1]  # the first undealt card is on top
    return [CardSet(m) for m in masks], pile


def add_cards(hand: CardSet, cards: CardSet) -> CardSet:
    """``hand`` plus ``cards``, jokers counted (both may hold bit 60) and kept canonical.

    >>> str(add_cards(CardSet.parse("S3 JK"), CardSet.parse("H4 JK")))
    'S3 H4 JK JK'
    """
    total = hand.jokers + cards.jokers
    if total > 2:
        raise ValueError("more than two jokers in one card set")
    mask = (hand.mask | cards.mask) & ~JOKER_BITS
    if total >= 1:
        mask |= 1 << JOKER
    if total >= 2:
        mask |= 1 << JOKER2
    return CardSet(mask)


def weakest(hand: CardSet, count: int, reversed_order: bool = False) -> CardSet:
    """The ``count`` weakest cards of ``hand``: rank 3 up to 2 (2 down to 3 when
    ``reversed_order``), ties ♠ ♥ ♦ ♣, the jokers last.

    The one default for every "give back the weakest": a Bot's exchange and choices, and the
    server's answer to an invalid 7-pass/10-discard (normal order there).  The ties follow the
    UECda sample client (the bundled ``default``), whose exchange gives its lowest cards
    taking each rank column of the table from the spade row: ♠3 before ♥3 before ♣3.

    >>> str(weakest(CardSet.parse("S3 H3 C3 JK"), 1))
    'S3'
    >>> str(weakest(CardSet.parse("S2 H3 C3 JK"), 2))
    'H3 C3'
    >>> str(weakest(CardSet.parse("S2 H3 JK"), 1, reversed_order=True))
    'S2'
    """
    def key(c: int) -> tuple[int, int, int]:
        if c >= JOKER:
            return (1, 0, c)
        rank = c >> 2
        return (0, -rank if reversed_order else rank, c & 3)

    return CardSet.of(sorted(hand, key=key)[:count])


def strength_order(c: int) -> tuple[int, int]:
    """Sort key, strongest first: jokers, then rank high to low, ties ♠ ♥ ♦ ♣."""
    if c >= JOKER:
        return (0, c)
    return (1, -(c >> 2) * 4 + (c & 3))


def strongest(hand: CardSet, count: int, skip_jokers: bool = False) -> CardSet:
    """The ``count`` strongest cards of ``hand`` (revolution is ignored, as the reference)."""
    cards = sorted(hand, key=strength_order)
    if skip_jokers:
        cards = [c for c in cards if c < JOKER]
    return CardSet.of(cards[:count])


def move_cards(hands: list[CardSet], giver: int, receiver: int, cards: CardSet) -> None:
    if not cards <= hands[giver]:
        raise ValueError(f"player {giver} does not hold {cards}")
    hands[giver] = hands[giver] - cards
    hands[receiver] = add_cards(hands[receiver], cards)  # a given joker may be its second
