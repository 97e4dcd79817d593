"""What the menu offers: the presets with their toggles, player counts and rounds, CPU levels.

The browser sends a table's settings as JSON; :func:`table_rules` turns them into a
validated :class:`RuleSet` through the same ``KEY=VALUE`` overrides as ``--rule`` on the
command line, so a browser game has exactly the rules a ``serve``/``match`` run would.

>>> rules = table_rules({"preset": "web", "players": 3, "rules": {"eleven_back": False}})
>>> rules.players, rules.eleven_back, rules.exchange_pairs()
(3, False, [(0, 2, 1)])
>>> level_bot("advanced", ruleset_from("uecda")), level_bot("advanced", rules)
('mc', 'mc')
"""

from __future__ import annotations

from dataclasses import fields
from enum import Enum
from typing import Any

from daihinmin.rules.rule_texts import GROUPS, PRESET_TEXTS, TEXTS, preset_sets
from daihinmin.rules.ruleset import PRESETS, RuleConfigError, RuleSet, ruleset_from

#: The rounds the web page's preset offers; other presets let the host type a number.
ROUNDS = {"web": (3, 5, 7)}
MAX_GAMES = 100

#: The local rules the web page lists first (the seed's seven), in its order.
MAIN_TOGGLES = ("revolution", "eight_cut", "spade3_return", "lock", "miyako_ochi",
                "eleven_back", "forbidden_finish")

#: Fields the host does not set per table (the table's size is ``players``).
_FIXED = {"name", "players", "min_players", "max_players"}

def level_bot(level: str, rules: RuleSet) -> str:
    """The bundled bot that plays a CPU seat of ``level`` (beginner, intermediate, advanced:
    the menu's names of :mod:`daihinmin.players.levels`' easy, medium, strong) under
    ``rules``: one mapping for the terminal and the browser."""
    from daihinmin.players.levels import UnknownLevelError, level_for

    try:
        return level_for(level, rules).bot
    except UnknownLevelError as exc:
        raise RuleConfigError(str(exc)) from None


def _value(v: object) -> object:
    return v.value if isinstance(v, Enum) else v


def toggle_fields(rules: RuleSet) -> list[dict[str, Any]]:
    """The settable fields of a preset: yes/no toggles and choices, the seed's seven first,
    each with its words (:mod:`daihinmin.rules.rule_texts`)."""
    out: list[dict[str, Any]] = []
    for f in fields(rules):
        if f.name in _FIXED:
            continue
        value = getattr(rules, f.name)
        text = TEXTS[f.name]
        words = {"label": text.label, "ja": text.ja, "explain": text.explain,
                 "group": text.group}
        if isinstance(value, bool):
            out.append({"key": f.name, "kind": "bool", "value": value, **words})
        elif isinstance(value, Enum):
            out.append({"key": f.name, "kind": "choice", "value": value.value, **words,
                        "choices": [{"value": m.value, "label": text.choice_words(m)}
                                    for m in type(value)]})
    out.sort(key=lambda t: (MAIN_TOGGLES.index(t["key"]) if t["key"] in MAIN_TOGGLES
                            else len(MAIN_TOGGLES), 0))
    for t in out:
        t["main"] = t["key"] in MAIN_TOGGLES
    return out


def player_counts(rules: RuleSet) -> list[int]:
    """The table sizes the preset plays as it stands (uecda's 5/4/3/2/1 points name no
    sixth place, so uecda offers 3-5 although the engine seats 6 with other points)."""
    counts = []
    for n in range(rules.min_players, rules.max_players + 1):
        try:
            rules.with_rules(players=n).validate()
        except RuleConfigError:
            continue
        counts.append(n)
    return counts


def presets_json() -> dict[str, Any]:
    """Everything the menu needs to offer every preset."""
    return {name: {"players": rules.players, "player_counts": player_counts(rules),
                   "rounds": list(ROUNDS.get(name, ())),
                   "label": PRESET_TEXTS[name][0], "explain": PRESET_TEXTS[name][1],
                   "sets": preset_sets(rules), "groups": [list(g) for g in GROUPS],
                   "scoring": rules.scoring.value, "toggles": toggle_fields(rules)}
            for name, rules in PRESETS.items()}


def _override(key: str, value: object) -> str:
    if isinstance(value, bool):
        return f"{key}={'yes' if value else 'no'}"
    if isinstance(value, str | int):
        return f"{key}={value}"
    raise RuleConfigError(f"rule {key} cannot take {value!r}")


def table_rules(settings: dict[str, Any]) -> RuleSet:
    """The rules of a table from the menu's settings (only changes from the preset are
    applied, so the rule set's name says what differs)."""
    preset = settings.get("preset", "web")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RuleConfigError(f"unknown rules preset {preset!r}; known: {', '.join(PRESETS)}")
    base = PRESETS[preset]
    changes = settings.get("rules") or {}
    if not isinstance(changes, dict):
        raise RuleConfigError("rules must be an object of KEY: value")
    settable = {t["key"] for t in toggle_fields(base)}
    overrides = []
    for key, value in changes.items():
        if key not in settable:
            raise RuleConfigError(f"rule {key!r} cannot be set here")
        if _value(getattr(base, key)) != value:
            overrides.append(_override(key, value))
    players = settings.get("players", base.players)
    if not isinstance(players, int) or isinstance(players, bool):
        raise RuleConfigError("players must be a number")
    if players != base.players:
        overrides.append(f"players={players}")
    return ruleset_from(preset, overrides)


def table_games(settings: dict[str, Any]) -> int:
    preset = settings.get("preset", "web")
    games = settings.get("games", ROUNDS.get(preset, (1,))[0])
    if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
        raise RuleConfigError(f"games must be 1..{MAX_GAMES}")
    allowed = ROUNDS.get(preset)
    if allowed and games not in allowed:
        raise RuleConfigError(f"the {preset} preset plays {', '.join(map(str, allowed))} "
                              "rounds")
    return games


__all__ = ["MAIN_TOGGLES", "ROUNDS", "level_bot", "player_counts", "presets_json",
           "table_games", "table_rules", "toggle_fields"]
