"""Rule sets: immutable data with one field per toggle, and the named presets.

Every toggle of the rule presets is a field here.  ``docs/RULES.md`` describes
each preset, each toggle and each choice made where the seeds are silent.

>>> UECDA.players, UECDA.jokers, UECDA.eight_cut, UECDA.eleven_back
(5, 1, True, False)
>>> r = ruleset_from("uecda", ["eleven_back=yes", "seat_change_period=0"])
>>> r.eleven_back, r.seat_change_period, r.name
(True, 0, 'uecda+eleven_back=yes+seat_change_period=0')
>>> sorted(PRESETS)
['app', 'original', 'thirteenth_floor', 'uecda', 'web']
>>> ruleset_from("app", ["joker_revolution=yes"]).revolution_joker_counts
True
>>> ruleset_from("thirteenth_floor", ["uno_scoring=yes"]).scoring.value
'uno'
>>> ruleset_from("web", ["players=3"]).exchange_pairs()
[(0, 2, 1)]
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields, replace
from enum import Enum, StrEnum
from typing import Any


class RuleConfigError(ValueError):
    """A preset name, a rule key or a rule value is not valid."""


class RuleNotSupportedError(RuleConfigError):
    """The rule set asks for a combination the engine cannot play."""


class ForbiddenFinish(StrEnum):
    OFF = "off"
    REJECT = "reject"  # the finishing play is illegal (original, 13th floor)
    LAST = "last"  # going out that way ranks you from the bottom (web, app)


class ForbiddenPlays(StrEnum):
    """Which finishing plays ``forbidden_finish`` forbids (each preset has its own list)."""

    STANDARD = "standard"  # top rank, any joker, an 8-cut, a revolution, a ♠3 return
    TOP_PLAY = "top_play"  # original: the strongest play of its kind (top rank, lone joker)
    WEB = "web"  # top rank, any joker, an 8-cut, a revolution
    APP = "app"  # top rank, any joker, an 8-cut, a ♠3 return
    ROLE_CARDS = "role_cards"  # 13th floor: any play holding a role card


class SequenceOrder(StrEnum):
    ABOVE_HIGH = "above_high"  # new lowest card above the field's highest (UECda, web)
    ABOVE_LOW = "above_low"  # compare by lowest rank; overlap allowed (original, app, 13th)
    NEXT_LOW = "next_low"  # the lowest card exactly one rank above the field's lowest


class FirstLead(StrEnum):
    DIAMOND3 = "diamond3"  # holder of ♦3 leads, anything
    CLUB3 = "club3"  # holder of ♣3 leads, and the lead must contain it
    DRAW = "draw"  # each draws a card, highest number leads (13th floor)


class LaterLead(StrEnum):
    DIAMOND3 = "diamond3"
    LAST_PLACE = "last_place"  # the last place of the previous game (original, web)
    WORST_SCORER = "worst_scorer"  # 13th floor (places there follow the scores)


class Restart(StrEnum):
    CLASSES = "classes"  # games 2+ use the classes (exchange, later_lead)
    HEIMIN = "heimin"  # original's 平民スタート: every game like the first (no exchange)


class Scoring(StrEnum):
    PLACE = "place"  # points by finishing place
    CARDS = "cards"  # 13th floor: penalty by cards left, winner by its last play
    UNO = "uno"  # 13th floor variant: the winner gets minus the others' sum


class ThreeTitles(StrEnum):
    """Class titles with three players (more players have fixed titles)."""

    DAIFUGO = "daifugo"  # 大富豪, 平民, 大貧民 (original)
    FUGO = "fugo"  # 富豪, 平民, 貧民 (web)
    PLACES = "places"  # 1位, 2位, 3位 (app)


@dataclass(frozen=True, slots=True)
class RuleSet:
    name: str = "uecda"
    # table
    players: int = 5
    min_players: int = 3
    max_players: int = 6
    jokers: int = 1
    hand_size: int = 0  # 0 = deal all cards; otherwise each gets this many, rest is a draw pile
    # play kinds
    sequences: bool = True
    sequence_min: int = 3
    group_max: int = 5
    sequence_order: SequenceOrder = SequenceOrder.ABOVE_HIGH
    sequence_edge_jokers: bool = True  # a joker may stand below the 3 or above the 2 (UECda)
    double_stairs: bool = False
    joker_pair_clears: bool = False  # two jokers are a pair: the strongest, and it clears
    # effects
    revolution: bool = True
    revolution_group_min: int = 4
    revolution_sequence_min: int = 5  # 0 = sequences never revolt (stairs: counted in steps)
    revolution_joker_counts: bool = True  # a joker counts towards the group size
    revolution_delayed: bool = False  # 13th floor: takes effect after the trick clears
    eight_cut: bool = True
    eight_cut_by_joker: bool = True  # a joker standing as 8 cuts
    joker_effects: bool = True  # a joker standing for a rank has that rank's other effects
    effects_per_card: bool = False  # 9-reverse fires once per 9 (13th floor), not per play
    lock: bool = True
    lock_joker_starts: bool = True  # a play containing a joker may start a lock
    geki_shibari: bool = False
    spade3_return: bool = True
    joker_beats_joker: bool = False
    eleven_back: bool = False
    five_skip: bool = False
    five_skip_chained: bool = False  # 13th floor: each further 5 skips from the new turn
    six_reverse: bool = False
    nine_reverse: bool = False
    seven_pass: bool = False
    ten_discard: bool = False
    sandstorm: bool = False
    ambulance: bool = False  # two 9s beat anything and clear (app)
    ambulance_clears: bool = False  # two 9s clear when played (13th floor)
    # finishing
    forbidden_finish: ForbiddenFinish = ForbiddenFinish.OFF
    forbidden_plays: ForbiddenPlays = ForbiddenPlays.STANDARD
    miyako_ochi: bool = False
    end_on_first_out: bool = False
    # leading and passing
    first_lead: FirstLead = FirstLead.DIAMOND3
    later_lead: LaterLead = LaterLead.DIAMOND3
    restart: Restart = Restart.CLASSES
    leader_may_pass: bool = True
    # The devkit's trick clear: the trick clears only when every player still in the game
    # has passed, the last player who played included, so after all the others pass that
    # player answers its own cards once more.  Off: the 2013 build's clear, as soon as all
    # the others have passed (the seed documents' rule too).
    owner_answers: bool = True
    lead_limit: int = 0  # >0: nobody leads more than this many tricks in a row
    pass_limit: int = 20  # consecutive passes/failures that end a game; 0 = off
    draw_on_pass: bool = False
    # exchange and match structure
    exchange: bool = True
    exchange_counts: tuple[int, ...] = (2, 1)  # cards owed by the top ranks, strongest first
    exchange_counts_3p: tuple[int, ...] = (2,)  # the same with three players
    joker_exchange_exempt: bool = False
    seat_change_period: int = 5  # 0 = seats never change
    class_reset_period: int = 100  # 0 = never
    points: tuple[int, ...] = (5, 4, 3, 2, 1)  # by place; () = players-1, ..., 1, 0
    scoring: Scoring = Scoring.PLACE
    titles_3p: ThreeTitles = ThreeTitles.DAIFUGO

    # ---------------------------------------------------------------------------------
    def with_rules(self, **changes: Any) -> RuleSet:
        return replace(self, **changes)

    def points_for_place(self, place: int) -> int:
        if not self.points:
            return self.players - 1 - place
        return self.points[place] if place < len(self.points) else 0

    def exchange_pairs(self) -> list[tuple[int, int, int]]:
        """(upper place, lower place, cards) pairs: lower gives its strongest, upper returns."""
        n = self.players
        counts = self.exchange_counts_3p if n == 3 else self.exchange_counts
        pairs = []
        for i, count in enumerate(counts):
            upper, lower = i, n - 1 - i
            if upper < lower and count > 0:
                pairs.append((upper, lower, count))
        return pairs

    @property
    def deck_size(self) -> int:
        return 52 + self.jokers

    def validate(self) -> RuleSet:
        if not 3 <= self.min_players <= self.players <= self.max_players <= 6:
            raise RuleConfigError(f"players must be {self.min_players}..{self.max_players} "
                                  f"for these rules, got {self.players}")
        if not 0 <= self.jokers <= 2:
            raise RuleConfigError(f"jokers must be 0..2, got {self.jokers}")
        if self.points and len(self.points) < self.players:
            given = ",".join(map(str, self.points))
            wanted = ",".join(map(str, range(self.players, 0, -1)))
            raise RuleConfigError(
                f"points {given} give {len(self.points)} places, but {self.players} players "
                f"finish: set points={wanted} (or points= for {self.players - 1}..0)")
        if self.hand_size < 0 or self.hand_size * self.players > self.deck_size:
            raise RuleConfigError(f"hand_size {self.hand_size} x {self.players} players "
                                  f"needs more than {self.deck_size} cards")
        if self.sequence_min < 2 or not 1 <= self.group_max <= 5:
            raise RuleConfigError("sequence_min must be 2+ and group_max 1..5 (table cells)")
        if self.scoring is not Scoring.PLACE and not self.end_on_first_out:
            raise RuleNotSupportedError("card scoring needs end_on_first_out=yes")
        if self.joker_pair_clears and self.jokers < 2:
            raise RuleNotSupportedError("the joker pair needs jokers=2")
        if self.lead_limit < 0 or self.pass_limit < 0:
            raise RuleConfigError("lead_limit and pass_limit must be 0 or more")
        return self


UECDA = RuleSet()

ORIGINAL = RuleSet(
    name="original", players=6, jokers=2, group_max=4, sequence_order=SequenceOrder.ABOVE_LOW,
    sequence_edge_jokers=False, revolution_sequence_min=4, eight_cut=False, lock=False,
    spade3_return=False, forbidden_finish=ForbiddenFinish.REJECT,
    forbidden_plays=ForbiddenPlays.TOP_PLAY, first_lead=FirstLead.CLUB3,
    later_lead=LaterLead.LAST_PLACE, exchange_counts=(2, 1), exchange_counts_3p=(2,),
    seat_change_period=0, class_reset_period=0, points=(), titles_3p=ThreeTitles.DAIFUGO,
    owner_answers=False)

WEB = RuleSet(
    name="web", players=4, max_players=4, jokers=2, sequence_edge_jokers=False,
    revolution_sequence_min=0, eight_cut_by_joker=False, joker_effects=False,
    lock_joker_starts=False, eleven_back=True, miyako_ochi=True,
    forbidden_plays=ForbiddenPlays.WEB, later_lead=LaterLead.LAST_PLACE, leader_may_pass=False,
    exchange_counts=(2, 1), exchange_counts_3p=(1,), seat_change_period=0,
    class_reset_period=0, points=(), titles_3p=ThreeTitles.FUGO,
    owner_answers=False)

APP = RuleSet(
    name="app", players=4, max_players=5, jokers=2, group_max=4,
    sequence_order=SequenceOrder.ABOVE_LOW, sequence_edge_jokers=False, joker_pair_clears=True,
    revolution_sequence_min=0, revolution_joker_counts=False, eight_cut_by_joker=False,
    joker_effects=False, eleven_back=True, forbidden_finish=ForbiddenFinish.LAST,
    forbidden_plays=ForbiddenPlays.APP, exchange_counts=(2, 1), exchange_counts_3p=(1,),
    seat_change_period=0, class_reset_period=0, points=(), titles_3p=ThreeTitles.PLACES,
    owner_answers=False)

THIRTEENTH_FLOOR = RuleSet(
    name="thirteenth_floor", players=4, jokers=2, hand_size=7,
    sequence_order=SequenceOrder.ABOVE_LOW, sequence_edge_jokers=False, double_stairs=True,
    revolution_sequence_min=4, revolution_delayed=True, effects_per_card=True, lock=False,
    five_skip=True, five_skip_chained=True, nine_reverse=True, sandstorm=True,
    ambulance_clears=True, forbidden_finish=ForbiddenFinish.REJECT,
    forbidden_plays=ForbiddenPlays.ROLE_CARDS, end_on_first_out=True,
    first_lead=FirstLead.DRAW, later_lead=LaterLead.WORST_SCORER, leader_may_pass=False,
    lead_limit=2, draw_on_pass=True, exchange=False, seat_change_period=0,
    class_reset_period=0, points=(), scoring=Scoring.CARDS,
    owner_answers=False)

PRESETS: dict[str, RuleSet] = {
    "uecda": UECDA, "original": ORIGINAL, "web": WEB, "app": APP,
    "thirteenth_floor": THIRTEENTH_FLOOR,
}


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

# The names the preset documents use for toggles stored under another field: key -> (field, values
# for yes and no; None = the same yes/no).
_ALIASES: dict[str, tuple[str, tuple[object, object] | None]] = {
    "joker_revolution": ("revolution_joker_counts", None),
    "uno_scoring": ("scoring", (Scoring.UNO, Scoring.CARDS)),
}


def rule_keys() -> list[str]:
    return [f.name for f in fields(RuleSet) if f.name != "name"] + sorted(_ALIASES)


def _parse_override(key: str, value: str) -> tuple[str, object]:
    if key in _ALIASES:
        target, values = _ALIASES[key]
        flag = _convert(bool, key, value)
        return target, flag if values is None else values[0 if flag else 1]
    if key not in _HINTS or key == "name":
        raise RuleConfigError(f"unknown rule {key!r}; known: {', '.join(rule_keys())}")
    return key, _convert(_HINTS[key], key, value)


def ruleset_from(preset_name: str = "uecda", overrides: list[str] | None = None) -> RuleSet:
    """A preset with ``KEY=VALUE`` overrides applied, validated."""
    rules = preset(preset_name)
    changes: dict[str, Any] = {}  # each value converted to its field's type by _parse_override
    for item in overrides or []:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise RuleConfigError(f"a rule is KEY=VALUE, got {item!r}")
        target, converted = _parse_override(key, value)
        changes[target] = converted
    if changes:
        name = preset_name + "".join(f"+{item.strip()}" for item in overrides or [])
        rules = replace(rules, name=name, **changes)
    return rules.validate()


def ruleset_to_dict(rules: RuleSet) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in fields(rules):
        v = getattr(rules, f.name)
        out[f.name] = v.value if isinstance(v, Enum) else list(v) if isinstance(v, tuple) else v
    return out


# Toggles added after logs were first written, with the value that plays like the engine
# did before the toggle existed (``owner_answers``: the 2013 build's trick clear).
BEHAVIOUR_BEFORE_KEY: dict[str, object] = {"owner_answers": False}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ruleset_from_dict(data: dict[str, object]) -> RuleSet:
    """Inverse of :func:`ruleset_to_dict` (used to read logs).

    Keys missing from ``data`` (logs written before a toggle existed) keep the defaults,
    except those of :data:`BEHAVIOUR_BEFORE_KEY`: a log without them was played the old way.
    """
    changes: dict[str, Any] = dict(BEHAVIOUR_BEFORE_KEY)  # checked by RuleSet.validate
    for key, value in data.items():
        if key not in _HINTS:
            raise RuleConfigError(f"unknown rule {key!r} in saved rules")
        t = _HINTS[key]
        if isinstance(t, type) and issubclass(t, Enum):
            try:
                value = t(value)
            except (ValueError, TypeError):
                raise RuleConfigError(f"saved rule {key!r}: {value!r:.60} is not one of "
                                      f"{', '.join(str(m.value) for m in t)}") from None
        elif typing.get_origin(t) is tuple:
            if not isinstance(value, list | tuple) or not all(_is_int(x) for x in value):
                raise RuleConfigError(f"saved rule {key!r} is not a list of whole numbers: "
                                      f"{value!r:.60}")
            value = tuple(value)
        elif not (isinstance(value, bool) if t is bool else _is_int(value) if t is int
                  else isinstance(value, t)):
            raise RuleConfigError(f"saved rule {key!r} is not a {t.__name__}: {value!r:.60}")
        changes[key] = value
    return replace(RuleSet(), **changes)
