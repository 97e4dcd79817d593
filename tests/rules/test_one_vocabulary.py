"""One event vocabulary and one class-title table, used by every text renderer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from daihinmin.players.human_render import event_notes
from daihinmin.research.mc_strength import firsts_by_start_class
from daihinmin.rules.event_words import _WORDS, SILENT, describe, describe_all
from daihinmin.rules.events import Event, EventKind
from daihinmin.rules.ruleset import UECDA, preset
from daihinmin.rules.scoring import class_title, class_titles
from daihinmin.tools.cmd_replay import describe_events
from games import new_game, step

DAIHINMIN = [sys.executable, "-m", "daihinmin.tools"]


def test_every_event_kind_has_words_or_is_shown_by_the_renderer_itself() -> None:
    assert set(_WORDS) | SILENT == set(EventKind) and not set(_WORDS) & SILENT
    for kind in EventKind:
        text = describe(Event(kind, 1, 2))
        assert (text is None) == (kind in SILENT)
        assert text is None or text.strip()


def test_the_terminal_game_and_replay_say_the_same_about_a_turn() -> None:
    g = new_game(UECDA, ["S8 S3 H4", "S5 D6", "S6 D7", "S7 D9", "C9 DT"], first=0)
    result, = step(g, "S8")  # an 8-cut: the trick clears and p0 leads again
    kinds = [e.kind for e in result.events]
    assert EventKind.EIGHT_CUT in kinds and EventKind.TRICK_CLEAR in kinds
    notes = describe_all(result.events)
    assert "8-cut: the trick is cleared" in notes and "trick cleared: p0 to lead" in notes
    assert describe_events(result) == "; ".join(notes)
    named = event_notes(result.events, ["ann", "bo", "cy", "di", "ed"])
    assert named == [n.replace("p0 to lead", "p0 ann to lead") for n in notes]


def test_class_titles_come_from_one_table() -> None:
    web = preset("web")
    assert [class_title(UECDA, p) for p in range(5)] == list(class_titles(UECDA))
    assert [class_title(web, p) for p in range(4)] == ["daifugo", "fugo", "hinmin", "daihinmin"]
    assert class_title(preset("thirteenth_floor"), 0) == "#1"  # card scoring: no classes
    assert firsts_by_start_class([-1, 4], [1, 0]) == {"new block": (1, 0),
                                                       "daihinmin": (1, 1)}


def test_replay_names_the_classes_of_a_four_player_match(tmp_path: Path) -> None:
    """``replay`` knew titles for five players only ("place 2" elsewhere)."""
    log = tmp_path / "m.jsonl"
    subprocess.run([*DAIHINMIN, "match", "--rules", "web", "--games", "2", "--seed", "3",
                    "--log", str(log), "random", "random", "weakest", "weakest"],
                   check=True, capture_output=True, timeout=120)
    shown = subprocess.run([*DAIHINMIN, "replay", str(log), "--game", "2"], check=True,
                           capture_output=True, text=True, timeout=60).stdout
    dealt = shown.split("dealt:")[1].split("exchange:")[0]
    assert sorted(re.findall(r"\[(\w+)\]", dealt)) == ["daifugo", "daihinmin", "fugo",
                                                        "hinmin"]
