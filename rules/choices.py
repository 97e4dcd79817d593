"""Follow-up choices a play can ask of its player (7-pass, 10-discard).

After such a play the game waits: :attr:`GameState.pending` says what is asked, the player
answers with :meth:`GameState.step_choice` (a set of up to ``count`` cards of the hand), and
play goes on.  A missing or invalid answer is replaced by the default: the weakest cards.

>>> from daihinmin.values.cards import CardSet
>>> ask = PendingChoice(ChoiceKind.GIVE, player=0, count=2, receiver=1)
>>> hand = CardSet.parse("S3 H9 D2")
>>> [str(c) for c in choice_options(hand, ask)]
['', 'S3', 'H9', 'D2', 'S3 H9', 'S3 D2', 'H9 D2']
>>> resolve_choice(hand, ask, CardSet.parse("D2")), resolve_choice(hand, ask, None)
((CardSet.parse('D2'), False), (CardSet.parse('S3 H9'), True))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from daihinmin.values.cards import CardSet

from .deal import weakest
from .events import Event


class ChoiceKind(StrEnum):
    GIVE = "give"  # 7-pass: give up to ``count`` cards to ``receiver``
    DISCARD = "discard"  # 10-discard: discard up to ``count`` cards


@dataclass(frozen=True, slots=True)
class PendingChoice:
    """A question to ``player``: which (at most ``count``) cards to give or discard."""

    kind: ChoiceKind
    player: int
    count: int
    receiver: int = -1  # GIVE: who gets the cards


def choice_options(hand: CardSet, choice: PendingChoice) -> list[CardSet]:
    """Every valid answer, the empty set first (the two jokers are interchangeable)."""
    cards = list(hand)
    seen: set[CardSet] = set()
    out: list[CardSet] = []
    for n in range(min(choice.count, len(cards)) + 1):
        for chosen in combinations(cards, n):
            option = CardSet.of(chosen)
            if option not in seen:
                seen.add(option)
                out.append(option)
    return out


def is_valid_choice(hand: CardSet, choice: PendingChoice, cards: CardSet) -> bool:
    return (len(cards) <= choice.count and cards.without_jokers <= hand
            and cards.jokers <= hand.jokers)


def resolve_choice(hand: CardSet, choice: PendingChoice,
                   cards: CardSet | None) -> tuple[CardSet, bool]:
    """(the cards that move, whether the default replaced the answer)."""
    if cards is not None and is_valid_choice(hand, choice, cards):
        return cards, False
    return weakest(hand, choice.count), True


@dataclass(frozen=True, slots=True)
class ChoiceResult:
    """What :meth:`GameState.step_choice` did."""

    choice: PendingChoice
    cards: CardSet  # the cards given or discarded
    substituted: bool  # the answer was missing or invalid: the weakest cards moved
    events: tuple[Event, ...]


__all__ = ["ChoiceKind", "ChoiceResult", "PendingChoice", "choice_options", "is_valid_choice",
           "resolve_choice"]
