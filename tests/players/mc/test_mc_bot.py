"""The mc player end to end: legal decisions in whole matches, options, registry, bench."""

from __future__ import annotations

import logging

import pytest
from daihinmin.bench.mc import run_bench, sample_positions
from daihinmin.contract.view import GameView
from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_match
from daihinmin.players.mc.bot import MCBot, RevealError
from daihinmin.players.mc.convert import hand_mask
from daihinmin.players.mc.state import HAND
from daihinmin.players.registry import make_bot
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import UECDA, ruleset_from
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


class Checked(MCBot):
    """The mc player, asserting every answer is legal."""

    def exchange(self, view: GameView, count: int) -> CardSet:
        cards = super().exchange(view, count)
        assert len(cards) == count and cards <= view.hand
        self.exchanges = getattr(self, "exchanges", 0) + 1
        return cards

    def play(self, view: GameView) -> Move:
        move = super().play(view)
        assert move in view.legal_moves(), (move, view.hand, view.field)
        return move


def test_plays_legal_moves_through_a_match_with_exchanges() -> None:
    mcs = [Checked(time_ms=0, playouts=48, seed=s) for s in (1, 2)]
    bots = [mcs[0], make_bot("default"), mcs[1], make_bot("random", seed=1), make_bot("greedy")]
    match = play_local_match(UECDA, seed=12, games=3, bots=bots)
    assert match.game == 4 and sum(match.points) == 45
    for bot, player in zip(mcs, (0, 2), strict=True):  # daifugo/fugo return cards next game
        owed = sum(r.places[player] in (0, 1) for r in match.results[:2])
        assert getattr(bot, "exchanges", 0) == owed
    assert all(d.playouts <= 48 for b in mcs for d in b.decisions)


def test_same_seed_and_playout_cap_give_the_same_moves() -> None:
    views = sample_positions(6, seed=8)
    a = MCBot(time_ms=0, playouts=200, seed=7)
    b = MCBot(time_ms=0, playouts=200, seed=7)
    assert [a.play(v) for v in views] == [b.play(v) for v in views]


def test_registry_builds_it_with_options() -> None:
    bot = make_bot("mc", time_ms=30, playouts=100, seed=3)
    assert isinstance(bot, MCBot) and bot.name == "mc"
    assert bot.budget.time_ms == 30 and bot.budget.playouts == 100
    with pytest.raises(ValueError):
        MCBot(time_ms=0, playouts=0)


def test_other_rules_fall_back_to_a_legal_move() -> None:
    view = sample_positions(1, seed=3)[0]
    rules = ruleset_from("uecda", ["eleven_back=yes"])
    other = GameView(**{**{f: getattr(view, f) for f in view.__dataclass_fields__},
                        "rules": rules})
    assert MCBot(time_ms=0, playouts=10).play(other) in other.legal_moves()
    assert rules != UECDA


def test_other_rules_are_refused_by_name_once(caplog: pytest.LogCaptureFixture) -> None:
    """mc says which rules it does not simulate, once, and never searches them."""
    view = sample_positions(1, seed=3)[0]
    rules = ruleset_from("uecda", ["group_max=2", "jokers=2"])
    other = GameView(**{**{f: getattr(view, f) for f in view.__dataclass_fields__},
                        "rules": rules})
    bot = MCBot(time_ms=0, playouts=10)
    with caplog.at_level(logging.WARNING, logger="daihinmin.players.mc.bot"):
        for _ in range(3):
            assert bot.play(other) in other.legal_moves()
    told = [r.getMessage() for r in caplog.records]
    assert len(told) == 1
    assert "(group_max=2)" in told[0]  # only the gap: two jokers are simulated
    assert not bot.decisions  # the weakest legal move, not a search


def test_bench_reports_speed_and_decision_times() -> None:
    result = run_bench(decisions=3, time_ms=20, seed=2).as_dict()
    assert set(result) >= {"playouts_per_second_per_core", "decision_ms_median",
                           "decision_ms_p99"}
    assert result["playouts_per_second_per_core"] > 0 and result["decisions"] == 3
    assert 0 < result["decision_ms_median"] <= result["decision_ms_p99"]


def test_revealed_hands_are_the_worlds_searched() -> None:
    """The oracle hook: the live state reaches ``before_play`` before every play, and mc
    searches exactly the hands revealed to it instead of sampled ones."""
    mc = MCBot(time_ms=0, playouts=40, seed=4)
    seen: dict[str, list[int]] = {"true": []}
    searched: list[tuple[list[int], list[int]]] = []
    calls, steps = [0], [0]

    def before_play(state: GameState) -> None:
        calls[0] += 1
        if state.turn == 0:
            seen["true"] = [hand_mask(h) for h in state.hands]
            mc.reveal(state.hands)

    def on_game(record: GameRecord) -> None:
        steps[0] += len(record.turns)

    mc.on_search = lambda base, me, cc, ci, stats: searched.append(
        ([int(x) for x in base[HAND:HAND + UECDA.players]], seen["true"]))
    bots = [mc] + [make_bot("default") for _ in range(4)]
    play_local_match(UECDA, seed=21, games=2, bots=bots, on_game=on_game,
                     before_play=before_play)
    assert calls[0] == steps[0] > 0
    assert searched and all(world == true for world, true in searched)


def test_a_revelation_that_misses_my_hand_is_refused_and_not_kept() -> None:
    views = [v for v in sample_positions(12, seed=5)
             if len(v.legal_moves()) > 2 and len(v.hand) > 4]
    mc = MCBot(time_ms=0, playouts=30, seed=1)
    wrong = [CardSet.parse("S3")] * 5
    mc.reveal(wrong)
    with pytest.raises(RevealError):
        mc.play(views[0])
    assert mc.play(views[1]) in views[1].legal_moves()  # it was for one play only
