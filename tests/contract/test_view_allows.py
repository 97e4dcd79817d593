"""``GameView.allows(move)`` (the judge asked about one move) says what
``move in view.legal_moves()`` says, for every play of the hand, plays of other cards and the
pass, under every preset, on random fields and flags."""

from __future__ import annotations

from daihinmin.contract.view import GameView
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import PRESETS
from daihinmin.values.cards import VALID_BITS, CardSet
from daihinmin.values.moves import PASS
from hypothesis import given, settings
from hypothesis import strategies as st

BITS = [b for b in range(62) if VALID_BITS >> b & 1]
# Hands of up to 11 cards (the deal's size): a full deck has too many plays to list.
masks = st.lists(st.sampled_from(BITS), max_size=11).map(lambda bits: sum({1 << b for b in bits}))


@settings(max_examples=100, deadline=None)
@given(masks, masks, masks, st.sampled_from(sorted(PRESETS)), st.booleans(), st.booleans(),
       st.booleans(), st.booleans(), st.data())
def test_allows_is_membership_of_the_legal_moves(
        hand_mask: int, field_mask: int, other_mask: int, preset: str, lead: bool,
        revolution: bool, eleven_back: bool, lock: bool, data: st.DataObject) -> None:
    rules = PRESETS[preset]
    hand = CardSet(hand_mask)
    field_plays = all_plays(CardSet(field_mask), rules)
    field = None if lead or not field_plays else data.draw(st.sampled_from(field_plays))
    view = GameView(player=0, hand=hand, field=field, turn_player=0, revolution=revolution,
                    eleven_back=eleven_back, lock=lock and field is not None,
                    counts=(len(hand), 5, 5, 5, 5), classes=(0, 1, 2, 3, 4),
                    seats=(0, 1, 2, 3, 4), my_turn=True, rules=rules)
    legal = view.legal_moves()
    others = all_plays(CardSet(other_mask), rules)
    for move in [PASS, *all_plays(hand, rules), *others[:40]]:
        assert view.allows(move) == (move in legal), (move, field)
