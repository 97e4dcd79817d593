"""Which rule sets need protocol 20260, and how a 20260 table names the rules in force.

A plain 20070 table carries five players, one joker, every card dealt and no follow-up
question; anything else needs the extension.  Row 7 names the preset (``[7][1]``) and a
digest of the full rule set (``[7][2]``), so a client can tell whether it lists legal moves
with the server's rules and, if not, adopt them when they are a preset.

>>> from daihinmin.rules.ruleset import PRESETS, UECDA
>>> extension_reasons(UECDA)
[]
>>> extension_reasons(PRESETS["web"])
['4 players (20070 tables seat exactly 5)', '2 jokers (a 20070 hand shows one)']
>>> rules_digest(UECDA) == rules_digest(UECDA.with_rules(name="renamed"))
True
>>> preset_id(PRESETS["app"]), preset_of(3).name
(3, 'app')
>>> adopt_rules(preset_id(PRESETS["web"]), rules_digest(PRESETS["web"].with_rules(players=3)),
...             3).players
3
>>> from daihinmin.rules.ruleset import ruleset_from
>>> app = ruleset_from("app", ["seven_pass=yes", "points=3,2,1,0"])
>>> rule_args(app)
['--rules', 'app', '--rule', 'seven_pass=yes', '--rule', 'points=3,2,1,0']
>>> rule_args(UECDA)
[]
"""

from __future__ import annotations

import json
import zlib

from .ruleset import PRESETS, RuleSet, preset, ruleset_to_dict

FieldValue = bool | int | str | list[int]

# Preset numbers of [7][1], in the order docs/RULES.md describes them.
PRESET_IDS = {"uecda": 0, "original": 1, "web": 2, "app": 3, "thirteenth_floor": 4}
UNKNOWN_PRESET = 255
WIRE_20070_PLAYERS = 5


def base_preset(rules: RuleSet) -> str:
    """The preset a rule set was made from (its name up to the first ``+``)."""
    base = rules.name.split("+", 1)[0]
    return base if base in PRESETS else "uecda"


def preset_id(rules: RuleSet) -> int:
    return PRESET_IDS.get(base_preset(rules), UNKNOWN_PRESET)


def preset_of(number: int) -> RuleSet:
    """The preset of a ``[7][1]`` number (KeyError if unknown)."""
    name = next((k for k, v in PRESET_IDS.items() if v == number), None)
    if name is None:
        raise KeyError(f"no preset number {number}")
    return preset(name)


def rules_digest(rules: RuleSet) -> int:
    """CRC-32 of every rule value (not the name), as canonical JSON: equal rules, equal digest."""
    values = ruleset_to_dict(rules)
    values.pop("name", None)
    text = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return zlib.crc32(text.encode("utf-8"))


def adopt_rules(number: int, digest: int, players: int) -> RuleSet | None:
    """The preset named by ``number`` (with ``players`` seats) if its digest is ``digest``."""
    try:
        base = preset_of(number)
    except KeyError:
        return None
    for candidate in (base, base.with_rules(players=players)):
        if rules_digest(candidate) == digest:
            return candidate
    return None


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def rule_args(rules: RuleSet) -> list[str]:
    """``--rules``/``--rule`` options that rebuild ``rules`` (for a bot process to list legal
    moves with the server's rules): the base preset and every value that differs from it."""
    base = base_preset(rules)
    mine, theirs = ruleset_to_dict(rules), ruleset_to_dict(PRESETS[base])
    args = [] if base == "uecda" else ["--rules", base]
    for key, value in mine.items():
        if key != "name" and value != theirs[key]:
            args += ["--rule", f"{key}={_option_text(value)}"]
    return args


def extension_reasons(rules: RuleSet) -> list[str]:
    """Why a 20070 table cannot carry ``rules`` (empty: a plain 20070 client may play)."""
    reasons = []
    if rules.players != WIRE_20070_PLAYERS:
        reasons.append(f"{rules.players} players (20070 tables seat exactly "
                       f"{WIRE_20070_PLAYERS})")
    if rules.jokers > 1:
        reasons.append(f"{rules.jokers} jokers (a 20070 hand shows one)")
    if rules.hand_size > 0:
        reasons.append("a draw pile (hand_size)")
    asks = [k for k in ("seven_pass", "ten_discard") if getattr(rules, k)]
    if asks:
        reasons.append(f"follow-up choices ({', '.join(asks)})")
    if rules.double_stairs:
        reasons.append("double stairs (not a 20070 move shape)")
    if rules.geki_shibari:
        reasons.append("geki-shibari (its state is not in 20070 tables)")
    return reasons


def needs_extension(rules: RuleSet) -> bool:
    return bool(extension_reasons(rules))


__all__ = ["PRESET_IDS", "UNKNOWN_PRESET", "adopt_rules", "base_preset", "extension_reasons",
           "needs_extension", "preset_id", "preset_of", "rule_args", "rules_digest"]
