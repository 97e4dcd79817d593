"""One ranking of a match's outcome, the rules' own, wherever the outcome is shown.

The web document breaks a tie of points by the better place in the last game
(同じ点のときは、最後の回の順位が上の人の勝ち); no other document gives a tie-break, so every
preset takes that one (docs/RULES.md).  The engine's standings (the terminal game, the
browser, a watched tournament table) and the command line's (``match``, ``serve``,
``replay``, ``--json``) rank with the same key, :func:`daihinmin.rules.scoring.outcome_key`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.random_bot import RandomBot
from daihinmin.records.matchlog import PlayerInfo, read_match_log
from daihinmin.records.standings import Standings
from daihinmin.rules.ruleset import PRESETS, Scoring
from daihinmin.rules.scoring import standings as rules_standings
from daihinmin.tools.cli import main

SEEDS = range(1, 40)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_command_line_ranks_every_seed_as_the_rules_do(preset: str) -> None:
    """Three games of random players for each seed: the standings ``match`` and ``replay``
    print rank the players as the engine's standings do; some seeds tie on points, and
    there the last game decides."""
    rules = PRESETS[preset]
    ties = 0
    for seed in SEEDS:
        standings = Standings([PlayerInfo(p, f"p{p}", 0) for p in range(rules.players)],
                              rules=rules)
        match = play_local_match(rules, seed, 3, [RandomBot(seed * 10 + p)
                                                  for p in range(rules.players)],
                                 on_game=standings.add_game)
        ranked = [s.number for s in standings.ranked()]
        assert ranked == match.standings(), (preset, seed)
        last = match.results[-1].places
        assert ranked == rules_standings(rules, match.points, last)
        for total in set(match.points):
            tied = [p for p in ranked if match.points[p] == total]
            ties += len(tied) > 1
            assert tied == sorted(tied, key=lambda p: last[p]), (preset, seed)
    # The seeds do test the tie-break (card scores of the 13th floor rarely tie).
    assert ties > (0 if rules.scoring is Scoring.PLACE else -1)


def test_match_names_the_winner_the_web_rules_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 10: p0, p1 and p3 end on 5 points; p1 was first in the last game, so it wins,
    in ``match --json`` and in ``replay`` of its log alike."""
    log_path = tmp_path / "web.jsonl"
    assert main(["match", "random", "random", "random", "random", "--games", "3", "--seed",
                 "10", "--rules", "web", "--log", str(log_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    log = read_match_log(log_path)
    last = log.games[-1].places
    totals = report["totals"]
    assert sorted(totals)[-2:] == [max(totals)] * 2  # a tie at the top
    assert report["ranking"] == rules_standings(log.header.ruleset(), totals, last)
    assert last[report["ranking"][0]] < last[report["ranking"][1]]
    assert main(["replay", str(log_path)]) == 0
    shown = capsys.readouterr().out.split("standings:")[1].splitlines()[1:]
    assert [line.split()[0] for line in shown[:len(totals)]] == [
        f"p{p}" for p in report["ranking"]]
