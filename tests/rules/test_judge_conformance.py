"""Conformance points found by replaying reference-server judgements (issue 22), each on the
exact table a client sends.

* A lone joker written in row 4 is no move: the reference server reads its suit mask as 16,
  which only a five-card group may use, and answers 8.
* An exchange table's 2 is the joker wherever it is written, as in the reference server (its
  ``check_include_card`` asks only that the giver holds the joker, its ``trans_work_card``
  moves the joker).  Written over a held card's cell, tndhms also wipes that card out of the
  game; here the card stays in the hand.  Without the joker the table is invalid and the server
  gives the player's strongest cards instead.
"""

from __future__ import annotations

import random

import pytest
from daihinmin.protocol.codec import decode_exchange_table, decode_move_table
from daihinmin.protocol.errors import InvalidShapeError, JokerNotHeldError
from daihinmin.protocol.table import Table
from daihinmin.rules.match import GameSetup
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import LONE_JOKER


def table(cells: dict[tuple[int, int], int]) -> Table:
    return Table.zeros().with_cells(cells)


@pytest.mark.parametrize("col", range(15))
def test_a_lone_joker_in_row_4_is_rejected(col: int) -> None:
    with pytest.raises(InvalidShapeError, match="row 4"):
        decode_move_table(table({(4, col): 2}))
    assert decode_move_table(table({(3, col): 2})) is LONE_JOKER  # rows 0-3: the joker


HAND = CardSet.parse("S3 H3 D9 SK JK")


def test_an_exchange_2_over_a_held_card_gives_the_joker_and_the_card_stays() -> None:
    given = decode_exchange_table(table({(0, 1): 2, (1, 1): 1}), HAND, 2)
    assert given == CardSet.parse("JK H3")
    hands = [HAND, *(CardSet.parse(h) for h in ("C3", "C4", "C5", "C6"))]
    setup = GameSetup(UECDA, 2, (0, 1, 2, 3, 4), 0, (0, 1, 2, 3, 4), list(hands), list(hands),
                      random.Random(0), owed={0: (2, 4)})  # the daifugo owes player 4 two
    t = setup.give_back(0, given)
    assert not t.substituted and t.cards == CardSet.parse("JK H3")
    assert setup.hands[0] == CardSet.parse("S3 D9 SK")  # tndhms would wipe the ♠3 out too
    assert setup.hands[4] == CardSet.parse("C6 H3 JK")


def test_an_exchange_2_without_the_joker_is_invalid() -> None:
    with pytest.raises(JokerNotHeldError):
        decode_exchange_table(table({(0, 1): 2, (1, 1): 1}), CardSet.parse("S3 H3 D9"), 2)
