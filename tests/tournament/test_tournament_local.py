"""The in-process path: duplicate deals as actually played, and seeded bots replaying."""

from __future__ import annotations

from collections import defaultdict

from daihinmin.contract.view import GameView
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.registry import register
from daihinmin.runs.local_table import play_local
from daihinmin.tournament.config import config_from_dict
from daihinmin.tournament.run import match_spec
from daihinmin.tournament.schedule import build_schedule

DEALT: dict[tuple[int, int], str] = {}  # (game, player) -> hand dealt, of the current match


class DealRecorder(DefaultBot):
    """The default strategy, noting the hand it is dealt in every game."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.player = -1

    def on_match_start(self, player: int) -> None:
        self.player = player

    def on_game_start(self, view: GameView) -> None:
        if view.classes == (0,) * len(view.classes):  # a block start: before any exchange
            DEALT[(view.game, self.player)] = str(view.hand)


register("test-deal-recorder", DealRecorder, replace=True)


def play_all(rule: list[str], games: int) -> dict[tuple[int, int, int], str]:
    """Play every match of a 5-participant schedule; (rotation, game, participant) -> hand."""
    cfg = config_from_dict({
        "games": 5 * games, "games_per_match": games, "transport": "in-process",
        "rule": rule, "participant": [{"name": f"p{i}", "bot": "test-deal-recorder"}
                                      for i in range(5)]})
    rules = cfg.ruleset()
    specs = build_schedule(5, 5, cfg.games, games, cfg.seed)
    assert len(specs) == 5
    seen = {}
    for spec in specs:
        DEALT.clear()
        play_local(cfg.table_settings(), rules, match_spec(cfg, spec), lambda *row: None)
        for (game, player), hand in DEALT.items():
            seen[(spec.rotation, game, spec.lineup[player])] = hand
    return seen


def test_every_deal_is_played_once_from_each_seat_rotation() -> None:
    seen = play_all(["class_reset_period=1"], games=4)  # every game a block start
    for game in range(1, 5):
        hands_of = defaultdict(list)
        for rotation in range(5):
            for who in range(5):
                hands_of[who].append(seen[(rotation, game, who)])
        deal = sorted(seen[(0, game, who)] for who in range(5))
        assert len(set(deal)) == 5
        for hands in hands_of.values():
            assert sorted(hands) == deal  # each participant held each hand exactly once


def test_standard_rules_duplicate_the_first_deal_of_a_block() -> None:
    seen = play_all([], games=2)
    deal = sorted(seen[(0, 1, who)] for who in range(5))
    for who in range(5):
        assert sorted(seen[(r, 1, who)] for r in range(5)) == deal
    assert not any(g == 2 for (_r, g, _w) in seen)  # game 2 starts with the exchange


def test_seeded_bots_replay_a_match_exactly() -> None:
    cfg = config_from_dict({"games": 5, "games_per_match": 5, "transport": "in-process",
                            "participant": [{"bot": "random"}, {"bot": "default"}]})
    spec = build_schedule(2, 5, 5, 5, cfg.seed)[3]
    runs = []
    for _ in range(2):
        rows: list[tuple] = []
        play_local(cfg.table_settings(), cfg.ruleset(), match_spec(cfg, spec),
                   lambda *row, out=rows: out.append(row))
        runs.append(rows)
    assert runs[0] == runs[1] and len(runs[0]) == 5
