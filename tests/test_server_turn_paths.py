"""The server's per-turn shortcuts give exactly what the slower ways give: a hand's card rows
straight from its bit mask, the results built past the frozen ``__init__``."""

from __future__ import annotations

from daihinmin.contract.view import Observed
from daihinmin.driver.game import TurnDone, turn_done
from daihinmin.protocol.codec import hand_cells
from daihinmin.rules.game import StepResult, step_result
from daihinmin.rules.judge import ACCEPT, PASS_OVER_CARDS
from daihinmin.server.tables import card_rows_bytes, hand_rows_bytes
from daihinmin.values.cards import DECK52, JOKER, JOKER2, CardSet
from daihinmin.values.moves import PASS, Move
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(st.integers(0, DECK52), st.integers(0, 2))
def test_hand_rows_from_the_mask_are_the_hand_cells_rows(cards: int, jokers: int) -> None:
    mask = cards & DECK52 | (0, 1 << JOKER, 1 << JOKER | 1 << JOKER2)[jokers]
    hand = CardSet(mask)
    assert hand_rows_bytes(hand) == card_rows_bytes(hand_cells(hand))


def test_results_built_past_the_frozen_init_equal_the_constructed_ones() -> None:
    play = Move.parse("S3")
    step = step_result(2, play, ACCEPT, ())
    assert step == StepResult(2, play, ACCEPT, ()) and step.answer == 9
    assert step != step_result(2, PASS, PASS_OVER_CARDS, ())
    seen = Observed(2, play, trick_cleared_before=True)
    done = turn_done(seen, True, step)
    assert done == TurnDone(seen, True, step) and done.choices == () and done.player == 2
    assert repr(done) == repr(TurnDone(seen, True, step))
    rejected = turn_done(seen, False, step, (None,))  # type: ignore[arg-type]
    assert rejected == TurnDone(seen, False, step) and not rejected.accepted
    assert rejected.step is step and rejected.choices == (None,)
