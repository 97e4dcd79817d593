"""One "weakest": a bot's default exchange and choice answers and the server's default for an
invalid 7-pass/10-discard answer pick the same cards (ties ♠ ♥ ♦ ♣, as the sample client)."""

from __future__ import annotations

from daihinmin.contract.view import Bot, GameView, weakest_cards
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.util import weakest_cards as players_weakest
from daihinmin.rules.deal import deck, weakest
from daihinmin.rules.ruleset import ruleset_from
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from games import new_game
from hypothesis import given
from hypothesis import strategies as st


def test_every_weakest_is_the_engines() -> None:
    assert weakest_cards is weakest and players_weakest is weakest


def test_ties_go_spade_first_and_jokers_last() -> None:
    assert weakest(CardSet.parse("S3 H3 C3"), 1) == CardSet.parse("S3")
    assert weakest(CardSet.parse("C3 D3 H3"), 2) == CardSet.parse("H3 D3")
    assert weakest(CardSet.parse("JK C2"), 1) == CardSet.parse("C2")
    assert weakest(CardSet.parse("S2 C2 H3"), 1, reversed_order=True) == CardSet.parse("S2")


def _view(hand: str) -> GameView:
    cards = CardSet.parse(hand)
    return GameView(player=0, hand=cards, field=None, turn_player=-1, revolution=False,
                    eleven_back=False, lock=False, counts=(len(cards),) * 5,
                    classes=(0,) * 5, seats=(0, 1, 2, 3, 4))


def test_the_default_bots_exchange_gives_spade_three_of_three_threes() -> None:
    assert DefaultBot().exchange(_view("S3 H3 C3 D9 JK"), 1) == CardSet.parse("S3")
    assert Bot().exchange(_view("C3 H3 D9"), 2) == CardSet.parse("H3 C3")


def test_the_server_default_for_a_bad_seven_pass_answer_is_the_same_card() -> None:
    g = new_game(ruleset_from("app", ["seven_pass=yes"]), ["S7 C3 H3 SK", "H5 HK", "D5 DQ",
                                                           "C5 CQ"])
    g.step(Move.parse("S7"))
    assert g.pending is not None
    bot_answer = Bot().choose(_view("C3 H3 SK"), g.pending)
    done = g.step_choice(None)
    assert done.substituted and done.cards == CardSet.parse("H3") == bot_answer


@given(st.sets(st.sampled_from(deck(1)), min_size=1, max_size=14),
       st.integers(0, 3))
def test_the_weakest_are_never_stronger_than_what_stays(cards: set[int], count: int) -> None:
    hand = CardSet.of(cards)
    chosen = weakest(hand, count)
    assert len(chosen) == min(count, len(hand)) and chosen <= hand
    rank = lambda c: 99 if c >= 60 else c >> 2  # noqa: E731
    if chosen and hand - chosen:
        assert max(map(rank, chosen)) <= min(map(rank, hand - chosen))
