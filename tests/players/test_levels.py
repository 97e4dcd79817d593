"""CPU levels: the mapping to bundled bots, bounded thinking, and ``daihinmin play --level``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.levels import (
    ALIASES,
    LEVELS,
    STRONG_MOVE_MS,
    UnknownLevelError,
    level_for,
    make_level_bot,
)
from daihinmin.players.mc.observe import simulator_supports
from daihinmin.rules.ruleset import PRESETS, UECDA, ruleset_from


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_level_is_a_bundled_bot_with_a_bounded_move_time(preset: str) -> None:
    rules = PRESETS[preset]
    bots = [level_for(name, rules) for name in LEVELS]
    assert [b.name for b in bots] == ["easy", "medium", "strong"]
    assert len({b.bot for b in bots}) == 3  # three different players a person can tell apart
    strong = bots[2]
    if simulator_supports(rules):
        assert strong.bot == "mc" and strong.options["time_ms"] == STRONG_MOVE_MS
        assert strong.move_ms == STRONG_MOVE_MS and not strong.note
    else:  # never mc where its simulator would play other rules than the table's
        assert strong.bot != "mc" and preset in strong.note
    assert all(0 <= b.move_ms <= STRONG_MOVE_MS for b in bots)


@pytest.mark.usefixtures("mc_compiled")  # the mc bot compiles (or loads) on creation
def test_the_strong_bot_at_uecda_is_mc_with_that_budget() -> None:
    bot = make_level_bot("strong", UECDA, seed=1)
    assert bot.name == "mc"
    assert bot.budget.time_ms == STRONG_MOVE_MS  # type: ignore[attr-defined]


def test_the_stand_in_note_names_what_mc_lacks() -> None:
    unsimulated = ruleset_from("uecda", ["group_max=2"])
    strong = level_for("strong", unsimulated)
    assert strong.bot == "weakest"
    assert (strong.note.startswith("mc does not simulate the uecda")
            and "(group_max=2)" in strong.note)


def test_the_strong_level_is_mc_at_other_table_sizes_and_two_jokers() -> None:
    for extra in (["players=3"], ["players=4", "jokers=2"], ["players=6", "points="],
                  ["eleven_back=true", "miyako_ochi=true"]):
        assert level_for("strong", ruleset_from("uecda", extra)).bot == "mc"


def test_the_strong_level_is_mc_at_every_preset_and_weakest_where_mc_lacks_a_rule() -> None:
    assert [level_for("strong", rules).bot for rules in PRESETS.values()] == ["mc"] * len(PRESETS)
    stand_in = level_for("strong", ruleset_from("uecda", ["sequence_min=6"]))
    assert stand_in.bot == "weakest" and "sequence_min=6" in stand_in.note


def test_the_browser_names_are_the_same_levels() -> None:
    for alias, name in ALIASES.items():
        assert level_for(alias, PRESETS["web"]) == level_for(name, PRESETS["web"])
    assert level_for("advanced", UECDA).name == "strong"


def test_an_unknown_level_is_named_in_the_error() -> None:
    with pytest.raises(UnknownLevelError, match=r"'hard'.*easy, medium, strong"):
        level_for("hard", UECDA)


@pytest.mark.usefixtures("mc_compiled")  # the strong level is mc at every preset
@pytest.mark.parametrize("preset", ["web", "app", "original", "thirteenth_floor"])
def test_level_bots_play_whole_games_at_other_presets(preset: str) -> None:
    rules = PRESETS[preset]
    names = [LEVELS[p % 3] for p in range(rules.players)]
    bots = [make_level_bot(n, rules, seed=p) for p, n in enumerate(names)]
    match = play_local_match(rules, seed=3, games=2, bots=bots)
    assert match.finished


def _play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daihinmin.tools", "play", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_play_refuses_level_and_bots_together() -> None:
    done = _play("--level", "easy", "--bots", "greedy")
    assert done.returncode == 2
    assert "--level or --bots" in done.stderr


def test_play_refuses_an_unknown_level() -> None:
    done = _play("--level", "hard")
    assert done.returncode == 2
    assert "invalid choice: 'hard'" in done.stderr
