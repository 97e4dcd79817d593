"""Every rule in words from one source: every field of a rule set has a label, a name and one
line; the rule table of docs/RULES.md is the one the module prints; the menu and the
terminal's ``?`` help use the same words."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from daihinmin.rules.rule_texts import (
    GROUPS,
    PRESET_TEXTS,
    TEXTS,
    markdown_table,
    preset_sets,
    rules_in_words,
)
from daihinmin.rules.ruleset import PRESETS, WEB, RuleSet
from daihinmin.web.settings import presets_json

DOC = Path(__file__).parents[2] / "docs" / "RULES.md"


def test_every_rule_has_words() -> None:
    keys = {f.name for f in fields(RuleSet)} - {"name"}
    assert set(TEXTS) == keys
    groups = {g for g, _ in GROUPS}
    for text in TEXTS.values():
        assert text.group in groups
        assert text.label and "_" not in text.label and text.label != text.key
        assert text.explain.endswith(".") and "\n" not in text.explain
        assert len(text.explain) <= 100, text.key
    assert set(PRESET_TEXTS) == set(PRESETS)
    for key, japanese in (("eight_cut", "8切り"), ("miyako_ochi", "都落ち"),
                          ("eleven_back", "イレブンバック"), ("lock", "縛り"),
                          ("seven_pass", "7渡し"), ("sandstorm", "砂嵐")):
        assert japanese in TEXTS[key].name and TEXTS[key].label in TEXTS[key].name


def test_every_choice_has_words() -> None:
    for f in fields(RuleSet):
        value = getattr(RuleSet(), f.name)
        if hasattr(value, "value") and f.name != "name":
            for member in type(value):
                assert member.value in TEXTS[f.name].choices, (f.name, member.value)


def test_the_rule_table_of_the_document_is_generated() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- rule table:[^\n]*-->\n(.*?)\n<!-- end of the rule table -->",
                      text, re.DOTALL)
    assert found is not None
    assert found.group(1) == markdown_table(), \
        "docs/RULES.md is behind: paste `python -m daihinmin.rules.rule_texts` between the marks"


def test_the_menu_and_the_help_say_the_same() -> None:
    menu = presets_json()["web"]
    eight = next(t for t in menu["toggles"] if t["key"] == "eight_cut")
    assert (eight["label"], eight["ja"], eight["explain"]) == (
        TEXTS["eight_cut"].label, TEXTS["eight_cut"].ja, TEXTS["eight_cut"].explain)
    assert menu["sets"] == preset_sets(WEB)
    help_lines = rules_in_words(WEB)
    assert any(TEXTS["eight_cut"].name in line and TEXTS["eight_cut"].explain in line
               for line in help_lines)
    assert not any("Seven" in line or "7渡し" in line for line in help_lines)  # off in web
