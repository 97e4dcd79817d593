"""Geki-shibari's "one step stronger" (``is_next_step``): the simulator's against the engine's,
for every pair of runs and stairs at each sequence order, in both orders of play.

Whole matches found a miss once (a run of two under ``sequence_order=next_low`` judged by its
ends, as under above_high); this checks the function alone, every case, in well under a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from daihinmin.players.mc.convert import encode_move
from daihinmin.players.mc.plays import is_next_step as sim_is_next_step
from daihinmin.players.mc.rulebits import rules_word
from daihinmin.rules.judge import is_next_step
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA, RuleSet, SequenceOrder
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import SEQUENCE_KIND, STAIRS_KIND, Move
from test_mc_sim import table_rules

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


@dataclass(frozen=True)
class Order:
    """What ``is_next_step`` reads of a game: the rules and the order flags."""

    rules: RuleSet
    field: Move | None
    revolution: bool
    eleven_back: bool = False


#: Two suits of 3..T: runs of 2..8 cards of either suit and double stairs of both.
HAND = CardSet.parse(" ".join(s + r for s in "SH" for r in "3456789T"))


@pytest.mark.parametrize("order", list(SequenceOrder))
@pytest.mark.parametrize("rev", [False, True])
def test_next_step_matches_the_engine(order: SequenceOrder, rev: bool) -> None:
    rules = table_rules(5, 2, True, {"sequence_order": order, "sequence_min": 2,
                                     "geki_shibari": True, "double_stairs": True})
    assert rules.sequence_order is order and rules is not UECDA
    rw = rules_word(rules)
    plays = [m for m in all_plays(HAND, rules) if m.kind in (SEQUENCE_KIND, STAIRS_KIND)]
    assert {m.kind for m in plays} == {SEQUENCE_KIND, STAIRS_KIND}
    seen = set()
    for field in plays:
        for move in plays:
            if move.kind is not field.kind:
                continue
            want = is_next_step(Order(rules, field, rev), move, field)
            got = sim_is_next_step(encode_move(move)[1], encode_move(field)[1], int(rev), rw)
            assert got == want, f"{order} rev={rev}: {move} on {field}: {got} != {want}"
            seen.add(want)
    assert seen == {True, False}
