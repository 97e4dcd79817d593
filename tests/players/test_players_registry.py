"""The player registry and the documented choices of the bundled strategies."""

from __future__ import annotations

import pytest
from daihinmin.contract.view import Bot, GameView
from daihinmin.players import registry
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.greedy_bot import GreedyBot
from daihinmin.players.random_bot import RandomBot
from daihinmin.players.registry import UnknownBotError, make_bot, names, register, resolve
from daihinmin.players.weakest_bot import WeakestBot
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move


def view(hand: str, field: str | None = None, revolution: bool = False) -> GameView:
    cards = CardSet.parse(hand)
    return GameView(player=0, hand=cards, field=Move.parse(field) if field else None,
                    turn_player=0, revolution=revolution, eleven_back=False, lock=False,
                    counts=(len(cards), 5, 5, 5, 5), classes=(0,) * 5, seats=(0, 1, 2, 3, 4),
                    my_turn=True)


# --- registry -------------------------------------------------------------------------------
def test_bundled_names_make_their_classes() -> None:
    assert {"random", "default", "weakest", "greedy"} <= set(names())
    assert isinstance(make_bot("random", seed=1), RandomBot)
    assert isinstance(make_bot("default"), DefaultBot)
    assert isinstance(make_bot("weakest"), WeakestBot)
    assert isinstance(make_bot("greedy", endgame=2), GreedyBot)


def test_module_factory_strings_and_errors() -> None:
    bot = make_bot("daihinmin.client.example:FirstMoveBot")
    assert bot.name == "first"
    with pytest.raises(UnknownBotError, match="no player named 'zzz'"):
        make_bot("zzz")
    with pytest.raises(UnknownBotError, match="cannot import"):
        resolve("no_such_module_xyz:Bot")
    with pytest.raises(UnknownBotError, match="has no 'Nope'"):
        resolve("daihinmin.players.default_bot:Nope")
    with pytest.raises(TypeError, match="not a Bot"):
        make_bot("builtins:dict")


def test_register_is_lazy_and_guards_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register("later", "daihinmin_not_imported_yet.module:Factory")  # nothing is imported
    assert "later" in names()
    with pytest.raises(UnknownBotError):
        make_bot("later")
    with pytest.raises(ValueError, match="already registered"):
        register("default", DefaultBot)
    with pytest.raises(ValueError, match="module:attribute"):
        register("bad", "no_colon_here")

    class Mine(Bot):
        def play(self, view: GameView) -> Move:
            return PASS

    register("mine", Mine)
    assert isinstance(make_bot("mine"), Mine)
    register("default", Mine, replace=True)
    assert isinstance(make_bot("default"), Mine)


def test_random_bot_is_reproducible_with_a_seed() -> None:
    v = view("S3 S4 S5 H7 H8 D9 DT CJ CQ CK JK")
    a = [make_bot("random", seed=42).play(v) for _ in range(3)]
    b = [make_bot("random", seed=42).play(v) for _ in range(3)]
    assert a == b


# --- weakest: always the weakest play --------------------------------------------------------
def test_weakest_leads_sequence_then_group_then_single() -> None:
    bot = WeakestBot()
    assert bot.play(view("S3 S4 S5 S6 H4 D4 C9")) == Move.parse("S3 S4 S5 S6")
    assert bot.play(view("S3 H5 D5 C5 S9")) == Move.parse("H5 D5 C5")
    assert bot.play(view("S3 H7 D9 JK")) == Move.parse("S3")


def test_weakest_follows_with_the_weakest_and_respects_revolution() -> None:
    bot = WeakestBot()
    assert bot.play(view("S3 H7 D9 C2", field="S6")) == Move.parse("H7")
    assert bot.play(view("S3 H7 D9 C2", field="S6", revolution=True)) == Move.parse("S3")
    assert bot.play(view("S3 H5 JK", field="C2")) == Move.parse("JK")  # only the joker beats
    assert bot.play(view("S3 H4", field="C2")) == PASS
    # Under a revolution the weakest lead is the highest rank.
    assert bot.play(view("S3 H7 DA", revolution=True)) == Move.parse("DA")


def test_weakest_and_default_give_the_weakest_cards() -> None:
    v = view("S3 H4 D9 C2 JK")
    assert WeakestBot().exchange(v, 2) == CardSet.parse("S3 H4")
    assert DefaultBot().exchange(v, 2) == CardSet.parse("S3 H4")


# --- greedy ---------------------------------------------------------------------------------
def test_greedy_sheds_most_cards_and_finishes_when_it_can() -> None:
    bot = GreedyBot()
    assert bot.play(view("S3 H9 D9 C9 S5 D2")) == Move.parse("H9 D9 C9")
    assert bot.play(view("H9 D9", field="S5 H5")) == Move.parse("H9 D9")  # goes out


def test_greedy_saves_the_joker_and_top_rank_until_the_endgame() -> None:
    bot = GreedyBot(endgame=3)
    assert bot.play(view("S3 S4 H6 D8 C2 JK", field="DA")) == PASS
    assert bot.play(view("S4 C2 JK", field="DA")) == Move.parse("C2")
    assert bot.play(view("S3 S4 H6 D8 CA JK", field="DT")) == Move.parse("CA")


def test_greedy_exchange_keeps_pairs() -> None:
    v = view("S3 H3 S4 D6 C9 C2")
    assert GreedyBot().exchange(v, 2) == CardSet.parse("S4 D6")
    assert GreedyBot().exchange(view("S3 H3 D4 C4"), 1) == CardSet.parse("S3")
