"""Who leads a game's first trick: the ♦3 or ♣3 holder, or the highest card drawn.

>>> import random
>>> from daihinmin.values.cards import CardSet
>>> from daihinmin.rules.ruleset import ORIGINAL
>>> hands = [CardSet.parse(h) for h in ("S3 D3", "C3 H9", "S4")]
>>> lead = opening_lead(ORIGINAL, hands, (0, 1, 2), random.Random(0), [])
>>> lead.first, str(lead.must_contain)
(1, 'C3')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from daihinmin.values.cards import EMPTY, CardSet, card

from .deal import deck
from .plays import face_value
from .ruleset import FirstLead, Restart, RuleSet


@dataclass(frozen=True, slots=True)
class OpeningLead:
    first: int
    must_contain: CardSet = EMPTY  # the first play of the game must hold these cards
    draws: tuple[tuple[int, int], ...] = ()  # (player, card) drawn to pick the leader
    pile: tuple[int, ...] | None = None  # the draw pile afterwards (None: unchanged)


def holder(hands: Sequence[CardSet], name: str) -> int | None:
    c = card(name)
    return next((p for p, h in enumerate(hands) if c in h), None)


def opening_lead(rules: RuleSet, hands: Sequence[CardSet], seats: Sequence[int],
                 rng: random.Random, pile: Sequence[int], dealer: int | None = None
                 ) -> OpeningLead:
    """The leader of a game that starts afresh (game 1, or any game under restart=heimin).

    When nobody holds the named card (it is in the draw pile) the dealer leads freely.
    """
    fallback = seats[0] if dealer is None else dealer
    if rules.first_lead is FirstLead.DRAW:
        return draw_for_lead(seats, seats.index(fallback), pile, rng)
    if rules.first_lead is FirstLead.CLUB3:
        p = holder(hands, "C3")
        return OpeningLead(fallback) if p is None else OpeningLead(p, CardSet.parse("C3"))
    p = holder(hands, "D3")
    return OpeningLead(fallback if p is None else p)


def draw_for_lead(seats: Sequence[int], start_seat: int, pile: Sequence[int],
                  rng: random.Random) -> OpeningLead:
    """Each player draws a card from the pile's top in seat order from ``start_seat``; the
    highest number (K 13 ... A 1; a joker has none) leads; the tied redraw.  The drawn cards
    go back under the pile.  Without a pile big enough a spare shuffled deck is used.

    >>> lead = draw_for_lead((0, 1, 2, 3), 0, [4 * 1, 4 * 11, 4 * 2, 4 * 5], random.Random(0))
    >>> lead.first, lead.draws, lead.pile
    (2, ((0, 20), (1, 8), (2, 44), (3, 4)), (4, 44, 8, 20))
    """
    n = len(seats)
    contenders = [seats[(start_seat + i) % n] for i in range(n)]
    from_pile = len(pile) >= n
    source = list(pile)
    if not from_pile:
        source = deck(2)
        rng.shuffle(source)
    draws: list[tuple[int, int]] = []
    while len(contenders) > 1:
        if len(source) < len(contenders):
            contenders = [rng.choice(contenders)]
            break
        drawn = {p: source.pop() for p in contenders}
        draws += drawn.items()
        best = max(face_value(c) for c in drawn.values())
        contenders = [p for p in contenders if face_value(drawn[p]) == best]
    returned = [c for _, c in draws]
    new_pile = tuple(returned[::-1] + source) if from_pile else None
    return OpeningLead(contenders[0], EMPTY, tuple(draws), new_pile)


def opening_card(rules: RuleSet, classes: Sequence[int], played_yet: bool) -> CardSet:
    """What the next lead must hold, as a player can tell from public facts: the ♣3 while
    nobody has played in a game that opens like the first (classes all 0 at the start of a
    class block, or ``restart=heimin``).  (Unknowable when cards stay in a draw pile; then the
    ♣3 is assumed dealt.)

    >>> from daihinmin.rules.ruleset import ORIGINAL, UECDA
    >>> str(opening_card(ORIGINAL, (0, 0, 0), False)), str(opening_card(ORIGINAL, (0, 0, 0), True))
    ('C3', '')
    >>> str(opening_card(ORIGINAL, (2, 0, 1), False)), str(opening_card(UECDA, (0,) * 5, False))
    ('', '')
    """
    if rules.first_lead is not FirstLead.CLUB3 or played_yet:
        return EMPTY
    fresh = rules.restart is Restart.HEIMIN or not any(classes)
    return CardSet.parse("C3") if fresh else EMPTY


__all__ = ["OpeningLead", "draw_for_lead", "holder", "opening_card", "opening_lead"]
