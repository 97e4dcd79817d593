"""Rule sets: immutable data with one field per toggle, and the named presets.

Every toggle of ``shared/rules/PRESETS.md`` is a field here, even where only some presets
use it.  The engine refuses (with :class:`RuleNotSupportedError`) a combination it does not
implement yet, rather than silently playing other rules.

>>> UECDA.players, UECDA.jokers, UECDA.eight_cut, UECDA.eleven_back
(5, 1, True, False)
>>> r = ruleset_from("uecda", ["eleven_back=yes", "seat_change_period=0"])
>>> r.eleven_back, r.seat_change_period, r.name
(True, 0, 'uecda+eleven_back=yes+seat_change_period=0')
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields, replace
from enum import Enum, StrEnum


class RuleConfigError(ValueError):
    """A preset name, a rule key or a rule value is not valid."""


class RuleNotSupportedError(RuleConfigError):
    """The rule set asks for something the engine does not implement (yet)."""


class ForbiddenFinish(StrEnum):
    OFF = "off"
    REJECT = "reject"  # the finishing play is illegal (original)
    LAST = "last"  # going out that way ranks you from the bottom (web, app)


class SequenceOrder(StrEnum):
    ABOVE_HIGH = "above_high"  # new lowest card above the field's highest (UECda)
    ABOVE_LOW = "above_low"  # compare by lowest rank; overlap allowed (original, 13th floor)


class FirstLead(StrEnum):
    DIAMOND3 = "diamond3"  # holder of ♦3 leads, anything
    CLUB3 = "club3"  # holder of ♣3 leads, and the lead must contain it
    DRAW = "draw"  # each draws a card, highest rank leads (13th floor)


class LaterLead(StrEnum):
    DIAMOND3 = "diamond3"
    LAST_PLACE = "last_place"  # the daihinmin of the previous game (original, web)
    WORST_SCORER = "worst_scorer"


class Scoring(StrEnum):
    PLACE = "place"  # points by finishing place
    CARDS = "cards"  # 13th floor: penalty by cards left, winner by its last play
    UNO = "uno"  # 13th floor variant: the winner gets minus the others' sum


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str = "uecda"
    # table
    players: int = 5
    jokers: int = 1
    hand_size: int = 0  # 0 = deal all cards; otherwise each gets this many, rest is a draw pile
    # play kinds
    sequences: bool = True
    sequence_min: int = 3
    group_max: int = 5
    sequence_order: SequenceOrder = SequenceOrder.ABOVE_HIGH
    double_stairs: bool = False
    # effects
    revolution: bool = True
    revolution_group_min: int = 4
    revolution_sequence_min: int = 5  # 0 = sequences never revolt
    revolution_joker_counts: bool = True  # a joker counts towards the group size
    revolution_delayed: bool = False  # 13th floor: takes effect after the trick clears
    eight_cut: bool = True
    eight_cut_by_joker: bool = True  # a joker standing as 8 cuts
    lock: bool = True
    lock_joker_starts: bool = True  # a play containing a joker may start a lock
    geki_shibari: bool = False
    spade3_return: bool = True
    joker_beats_joker: bool = False
    joker_pair_clears: bool = False
    eleven_back: bool = False
    five_skip: bool = False
    six_reverse: bool = False
    nine_reverse: bool = False
    seven_pass: bool = False
    ten_discard: bool = False
    sandstorm: bool = False
    ambulance: bool = False
    # finishing
    forbidden_finish: ForbiddenFinish = ForbiddenFinish.OFF
    miyako_ochi: bool = False
    end_on_first_out: bool = False
    # leading and passing
    first_lead: FirstLead = FirstLead.DIAMOND3
    later_lead: LaterLead = LaterLead.DIAMOND3
    leader_may_pass: bool = True
    pass_limit: int = 20  # consecutive passes/failures that end a game; 0 = off
    draw_on_pass: bool = False
    # exchange and match structure
    exchange: bool = True
    exchange_counts: tuple[int, ...] = (2, 1)  # cards owed by the top ranks, strongest first
    joker_exchange_exempt: bool = False
    seat_change_period: int = 5  # 0 = seats never change
    class_reset_period: int = 100  # 0 = never
    points: tuple[int, ...] = (5, 4, 3, 2, 1)
    scoring: Scoring = Scoring.PLACE

    # ---------------------------------------------------------------------------------
    def with_rules(self, **changes: object) -> RuleSet:
        return replace(self, **changes)  # type: ignore[arg-type]

    def points_for_place(self, place: int) -> int:
        return self.points[place] if place < len(self.points) else 0

    def exchange_pairs(self) -> list[tuple[int, int, int]]:
        """(upper place, lower place, cards) pairs: lower gives its strongest, upper returns."""
        n = self.players
        pairs = []
        for i, count in enumerate(self.exchange_counts):
            upper, lower = i, n - 1 - i
            if upper < lower and count > 0:
                pairs.append((upper, lower, count))
        return pairs

    def validate(self) -> RuleSet:
        if not 3 <= self.players <= 6:
            raise RuleConfigError(f"players must be 3..6, got {self.players}")
        if not 0 <= self.jokers <= 2:
            raise RuleConfigError(f"jokers must be 0..2, got {self.jokers}")
        if len(self.points) < self.players:
            raise RuleConfigError("points must give a value for every place")
        unsupported = [f.name for f in fields(self) if f.name in _NOT_YET and
                       getattr(self, f.name) != getattr(_BASE, f.name)]
        if unsupported:
            raise RuleNotSupportedError("not implemented in the engine yet: " +
                                        ", ".join(sorted(unsupported)))
        return self


# Toggles present in the data model whose engine support is still to come.
_NOT_YET = {
    "hand_size", "double_stairs", "revolution_delayed", "geki_shibari", "seven_pass",
    "ten_discard", "sandstorm", "ambulance", "end_on_first_out", "draw_on_pass", "scoring",
    "joker_pair_clears", "first_lead",
}
_BASE = RuleSet()

UECDA = RuleSet()

PRESETS: dict[str, RuleSet] = {"uecda": UECDA}


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleConfigError(f"unknown rules preset {name!r}; known: "
                              f"{', '.join(sorted(PRESETS))}") from None


_TRUE = {"1", "yes", "true", "on"}
_FALSE = {"0", "no", "false", "off"}


def _convert(field_type: object, key: str, text: str) -> object:
    if field_type is bool:
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise RuleConfigError(f"rule {key} takes yes/no, got {text!r}")
    if field_type is int:
        try:
            return int(text)
        except ValueError:
            raise RuleConfigError(f"rule {key} takes a whole number, got {text!r}") from None
    if isinstance(field_type, type) and issubclass(field_type, Enum):
        try:
            return field_type(text.strip().lower())
        except ValueError:
            choices = ", ".join(m.value for m in field_type)
            raise RuleConfigError(f"rule {key} takes one of {choices}; got {text!r}") from None
    if typing.get_origin(field_type) is tuple:
        try:
            return tuple(int(x) for x in text.replace(",", " ").split())
        except ValueError:
            raise RuleConfigError(f"rule {key} takes numbers like 2,1; got {text!r}") from None
    if field_type is str:
        return text
    raise RuleConfigError(f"rule {key} cannot be set from the command line")


_HINTS = typing.get_type_hints(RuleSet)


def rule_keys() -> list[str]:
    return [f.name for f in fields(RuleSet) if f.name != "name"]


def ruleset_from(preset_name: str = "uecda", overrides: list[str] | None = None) -> RuleSet:
    """A preset with ``KEY=VALUE`` overrides applied, validated."""
    rules = preset(preset_name)
    changes: dict[str, object] = {}
    for item in overrides or []:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise RuleConfigError(f"a rule is KEY=VALUE, got {item!r}")
        if key not in _HINTS or key == "name":
            raise RuleConfigError(f"unknown rule {key!r}; known: {', '.join(rule_keys())}")
        changes[key] = _convert(_HINTS[key], key, value)
    if changes:
        name = preset_name + "".join(f"+{item.strip()}" for item in overrides or [])
        rules = replace(rules, name=name, **changes)  # type: ignore[arg-type]
    return rules.validate()


def ruleset_to_dict(rules: RuleSet) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in fields(rules):
        v = getattr(rules, f.name)
        out[f.name] = v.value if isinstance(v, Enum) else list(v) if isinstance(v, tuple) else v
    return out


def ruleset_from_dict(data: dict[str, object]) -> RuleSet:
    """Inverse of :func:`ruleset_to_dict` (used to read logs)."""
    changes: dict[str, object] = {}
    for key, value in data.items():
        if key not in _HINTS:
            raise RuleConfigError(f"unknown rule {key!r} in saved rules")
        t = _HINTS[key]
        if isinstance(t, type) and issubclass(t, Enum):
            value = t(value)
        elif typing.get_origin(t) is tuple:
            value = tuple(value)  # type: ignore[arg-type]
        changes[key] = value
    return replace(RuleSet(), **changes)  # type: ignore[arg-type]

