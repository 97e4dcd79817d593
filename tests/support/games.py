"""Building and stepping engine games in the rules tests (importable as ``games``)."""

from __future__ import annotations

import random

from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.judge import Reject
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet, card
from daihinmin.values.moves import Move


def new_game(rules: RuleSet, hands: list[str], first: int | None = 0,
             prev_classes: tuple[int, ...] | None = None, pile: str = "",
             seats: tuple[int, ...] | None = None, seed: int = 0) -> GameState:
    """A game with these hands (player order), seats 0..n-1 unless given, a pile written top
    card first, and the game RNG seeded with ``seed``."""
    return GameState.start(rules, [CardSet.parse(h) for h in hands],
                           seats or tuple(range(len(hands))), random.Random(seed), first=first,
                           prev_classes=prev_classes, pile=pile_cards(pile))


def pile_cards(text: str) -> list[int]:
    """A pile written top card first."""
    return [card(t) for t in text.split()][::-1]


def step(g: GameState, *moves: str) -> list[StepResult]:
    return [g.step(Move.parse(m)) for m in moves]


def kinds(result: StepResult) -> list[EventKind]:
    return [e.kind for e in result.events]


def verdict(g: GameState, move: str) -> Reject | None:
    j = g.judge(Move.parse(move))
    assert j.accepted == (j.reason is None)
    return j.reason
