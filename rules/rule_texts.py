"""Every rule in words: a label, the name people use for it, one line of explanation.

One source for the browser's "New game" menu, the terminal game's ``?`` help and the rule
table in ``docs/RULES.md`` (``python -m daihinmin.rules.rule_texts`` prints that table; a test
keeps the document in step).  The Japanese names are the ones of the rule documents the
presets come from (8切り, 都落ち, イレブンバック, ...).

>>> TEXTS["eight_cut"].name
'8切り (8-cut)'
>>> TEXTS["forbidden_finish"].choice_words("last")
'going out that way ranks you last'
>>> [g for g, _ in GROUPS][:3]
['common', 'special', 'finishing']
>>> preset_sets(PRESETS["web"])[:3]
['Revolution', 'Joker revolution', '8-cut']
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum

from .ruleset import PRESETS, RuleSet

#: (group key, heading), in the order the menu and the documents show them.
GROUPS: tuple[tuple[str, str], ...] = (
    ("common", "Common rules"),
    ("special", "Special cards"),
    ("finishing", "Finishing"),
    ("exchange", "Exchange and classes"),
    ("pile", "Draw pile"),
    ("match", "Table, scoring and match"),
)


@dataclass(frozen=True, slots=True)
class RuleText:
    key: str  # the RuleSet field (``--rule KEY=VALUE``)
    group: str
    label: str  # what the menu shows
    ja: str  # the name people use in Japanese ("" where there is none)
    explain: str  # one line
    choices: dict[str, str] = field(default_factory=dict)  # a choice's value -> its words

    @property
    def name(self) -> str:
        """The Japanese name with the English, e.g. ``8切り (8-cut)``; the label alone where
        there is no Japanese name."""
        return f"{self.ja} ({self.label})" if self.ja else self.label

    def choice_words(self, value: object) -> str:
        text = value.value if isinstance(value, Enum) else str(value)
        return self.choices.get(text, text)


def _t(key: str, group: str, label: str, ja: str, explain: str,
       **choices: str) -> RuleText:
    return RuleText(key, group, label, ja, explain, dict(choices))


_ALL = (
    # --- common: what can be played, the order, leading and passing -----------------------
    _t("players", "match", "Players", "人数", "How many sit at the table."),
    _t("min_players", "match", "Fewest players", "", "The smallest table the preset plays."),
    _t("max_players", "match", "Most players", "", "The largest table the preset plays."),
    _t("jokers", "common", "Jokers", "ジョーカー", "How many jokers are in the deck (0 to 2)."),
    _t("sequences", "common", "Sequences", "階段",
       "Runs of one suit (♦3 ♦4 ♦5) may be played."),
    _t("sequence_min", "common", "Shortest sequence", "",
       "The fewest cards in a sequence (and steps in double stairs)."),
    _t("group_max", "common", "Largest group", "", "The most cards of one rank played together."),
    _t("sequence_order", "common", "Beating a sequence", "",
       "Which sequence beats the one on the field.",
       above_high="its lowest card above the field's highest",
       above_low="its lowest card above the field's lowest (overlap allowed)",
       next_low="its lowest card exactly one rank above the field's lowest"),
    _t("sequence_edge_jokers", "common", "Joker at a sequence's edge", "",
       "A joker may stand below the 3 or above the 2 in a sequence."),
    _t("double_stairs", "common", "Double stairs", "2枚階段",
       "Two to four suits side by side over 3+ ranks (♠3♥3 ♠4♥4 ♠5♥5) are one play."),
    _t("revolution", "common", "Revolution", "革命",
       "Four or more of a rank reverse the order (3 strongest, 2 weakest) until the next one."),
    _t("revolution_group_min", "common", "Revolution group size", "",
       "How many cards of one rank make a revolution."),
    _t("revolution_sequence_min", "common", "Sequence revolution", "階段革命",
       "How long a sequence makes a revolution (0: sequences never do)."),
    _t("revolution_joker_counts", "special", "Joker revolution", "ジョーカー革命",
       "A joker counts towards the four cards of a revolution."),
    _t("revolution_delayed", "common", "Delayed revolution", "",
       "A revolution takes effect when the trick clears, not at once."),
    _t("lock", "common", "Lock", "縛り",
       "The same suits twice in a row: only those suits until the trick clears."),
    _t("lock_joker_starts", "common", "A joker play may start a lock", "",
       "A play holding a joker counts towards a lock."),
    _t("geki_shibari", "common", "Strict lock", "激縛り",
       "Under a lock, a play one rank up locks the ranks too: each next play one rank up."),
    _t("first_lead", "common", "Who leads the first game", "",
       "The player who plays first in game 1.",
       diamond3="the holder of ♦3", club3="the holder of ♣3, who must play it",
       draw="everyone draws a card; the highest number leads"),
    _t("later_lead", "common", "Who leads later games", "",
       "The player who plays first from game 2 on.",
       diamond3="the holder of ♦3", last_place="the last place of the game before",
       worst_scorer="the worst scorer so far"),
    _t("leader_may_pass", "common", "A leader may pass", "",
       "The player on an empty field may pass instead of playing."),
    _t("owner_answers", "common", "Last player answers its own cards", "",
       "The trick clears only after the player who played last passes too (UECda devkit)."),
    _t("lead_limit", "common", "Leads in a row", "",
       "Nobody leads more tricks in a row than this (0: no limit)."),
    _t("pass_limit", "common", "Pass limit", "",
       "This many passes or refused plays in a row end the game (0: never)."),
    # --- special cards ----------------------------------------------------------------------
    _t("eight_cut", "special", "8-cut", "8切り",
       "A play holding an 8 clears the trick; its player leads."),
    _t("eight_cut_by_joker", "special", "A joker as 8 cuts", "",
       "A joker standing for an 8 also clears the trick."),
    _t("joker_effects", "special", "Jokers take a rank's effects", "",
       "A joker standing for a 5, 9, J ... has that card's effect too."),
    _t("effects_per_card", "special", "Effects per card", "",
       "Each 9 of a play reverses the direction once (not once per play)."),
    _t("spade3_return", "special", "♠3 return", "スペ3返し",
       "A single ♠3 beats a lone joker and clears the trick."),
    _t("joker_beats_joker", "special", "Joker on joker", "",
       "The second joker may be played on a lone joker."),
    _t("joker_pair_clears", "special", "Joker pair", "ジョーカー2枚",
       "Two jokers are the strongest pair and clear the trick (needs 2 jokers)."),
    _t("eleven_back", "special", "11-back (J-back)", "イレブンバック",
       "A play holding a J reverses the order until the trick clears."),
    _t("five_skip", "special", "5-skip", "5飛ばし",
       "Each 5 played skips the next player."),
    _t("five_skip_chained", "special", "5-skip from the new turn", "",
       "Each further 5 skips from the player the turn came to."),
    _t("six_reverse", "special", "6-reverse", "6リバース",
       "A play holding 6s reverses the direction of play."),
    _t("nine_reverse", "special", "9-reverse", "9リバース",
       "A play holding 9s reverses the direction of play."),
    _t("seven_pass", "special", "7-pass", "7渡し",
       "After playing 7s, give up to that many cards to the next player."),
    _t("ten_discard", "special", "10-discard", "10捨て",
       "After playing 10s, discard up to that many cards."),
    _t("sandstorm", "special", "Sandstorm", "砂嵐",
       "Three 3s may be played on anything and clear the trick."),
    _t("ambulance", "special", "Ambulance", "救急車",
       "Two 9s may be played on anything and clear the trick."),
    _t("ambulance_clears", "special", "Two 9s clear", "救急車",
       "Two 9s played as a legal pair clear the trick."),
    # --- finishing ----------------------------------------------------------------------------
    _t("forbidden_finish", "finishing", "Forbidden finish", "禁止上がり",
       "Going out with a strong or special play is not allowed.",
       off="any play may go out", reject="the finishing play is refused",
       last="going out that way ranks you last"),
    _t("forbidden_plays", "finishing", "Forbidden finishing plays", "",
       "Which plays may not be the last one.",
       standard="a 2 (3 reversed), a joker, an 8-cut, a revolution, a ♠3 return",
       top_play="the strongest play of its kind", web="a 2 (3 reversed), a joker, an 8-cut, "
       "a revolution", app="a 2 (3 reversed), a joker, an 8-cut, a ♠3 return",
       role_cards="any play holding a role card (♠3, 5, 8, 9, joker)"),
    _t("miyako_ochi", "finishing", "Fall from the capital", "都落ち",
       "If someone else goes out first, the last game's top player drops to last place."),
    _t("end_on_first_out", "finishing", "First out ends the game", "",
       "The game ends as soon as one player has no cards left."),
    # --- exchange and classes -----------------------------------------------------------------
    _t("exchange", "exchange", "Card exchange", "カード交換",
       "From game 2 the lower classes give their strongest cards, the upper return any."),
    _t("exchange_counts", "exchange", "Cards exchanged", "",
       "Cards owed by 1st and last, 2nd and second last ... (e.g. 2,1)."),
    _t("exchange_counts_3p", "exchange", "Cards exchanged with 3 players", "",
       "The same for a table of three."),
    _t("joker_exchange_exempt", "exchange", "Jokers kept in the exchange", "",
       "A joker is never taken as one of the strongest cards."),
    _t("restart", "exchange", "How later games start", "",
       "Whether games 2 on use the classes.",
       classes="with classes and the exchange",
       heimin="like the first game (平民スタート, no exchange)"),
    _t("titles_3p", "exchange", "Classes with 3 players", "",
       "The class names of a table of three.",
       daifugo="大富豪, 平民, 大貧民", fugo="富豪, 平民, 貧民", places="1位, 2位, 3位"),
    _t("seat_change_period", "exchange", "Seat change", "席替え",
       "Seats are drawn again every this many games (0: never)."),
    _t("class_reset_period", "exchange", "Class reset", "",
       "Classes start afresh every this many games (0: never)."),
    # --- draw pile ----------------------------------------------------------------------------
    _t("hand_size", "pile", "Cards dealt", "",
       "Cards each player is dealt; the rest is the draw pile (0: deal all)."),
    _t("draw_on_pass", "pile", "Draw when passing", "",
       "Who passes draws as many cards as the play on the field holds."),
    # --- scoring ------------------------------------------------------------------------------
    _t("points", "match", "Points by place", "",
       "Points for 1st, 2nd ... (empty: players−1 down to 0)."),
    _t("scoring", "match", "Scoring", "",
       "How a game is scored.", place="points by finishing place",
       cards="penalty for the cards left (fewest wins)",
       uno="the winner gets minus the others' penalties"),
)

TEXTS: dict[str, RuleText] = {t.key: t for t in _ALL}

#: Names the preset documents use for a setting stored under another field.
ALIASES = {"joker_revolution": "revolution_joker_counts", "uno_scoring": "scoring"}

#: Presets in words: a label, where they come from, one line.
PRESET_TEXTS: dict[str, tuple[str, str]] = {
    "uecda": ("UECda", "The computer tournament's rules: 5 players, one joker."),
    "original": ("Original 大貧民 (1972)", "The first written rules: no 8-cut, no lock; "
                 "the strongest play may not be the last."),
    "web": ("Web game (3–4 players)", "Popular house rules with 8切り, 縛り, 都落ち and "
            "イレブンバック; 3, 5 or 7 rounds."),
    "app": ("App with local rules", "The app's rules; local rules such as 7渡し and 10捨て "
            "to switch on."),
    "thirteenth_floor": ("13th floor points variant", "7 cards each and a draw pile; the "
                         "game ends when the first player goes out; fewest points win."),
}

def setting_kind(value: object) -> str:
    """``bool``, ``choice``, ``number`` or ``numbers`` (as the menu and the table show it)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Enum):
        return "choice"
    return "numbers" if isinstance(value, tuple) else "number"


def preset_sets(rules: RuleSet) -> list[str]:
    """The yes/no rules a preset switches on and its choices other than "off", in words:
    what the menu says a preset sets."""
    out = []
    for f in fields(rules):
        text = TEXTS.get(f.name)
        value = getattr(rules, f.name)
        if text is None or text.group in ("match",):
            continue
        if value is True and f.name in _HEADLINE:
            out.append(text.label)
        elif isinstance(value, Enum) and f.name in _HEADLINE and value.value != "off":
            out.append(f"{text.label}: {text.choice_words(value)}")
    return out


#: The rules worth naming in a preset's summary (the others are details of these).
_HEADLINE = ("revolution", "eight_cut", "lock", "geki_shibari", "spade3_return", "eleven_back",
             "joker_pair_clears", "five_skip", "six_reverse", "nine_reverse", "seven_pass",
             "ten_discard", "sandstorm", "ambulance", "ambulance_clears", "forbidden_finish",
             "miyako_ochi", "end_on_first_out", "double_stairs", "exchange", "draw_on_pass",
             "revolution_joker_counts")


def value_words(text: RuleText, value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(none)"
    return text.choice_words(value)


def rules_in_words(rules: RuleSet) -> list[str]:
    """The rules that are on at a table, one line each, grouped: the terminal's ``?`` help."""
    lines = []
    for group, heading in GROUPS:
        if group == "match":
            continue
        items = []
        for key in _HEADLINE:
            text = TEXTS[key]
            value = getattr(rules, key)
            if text.group != group or value is False or getattr(value, "value", "") == "off":
                continue
            detail = "" if value is True else f" [{text.choice_words(value)}]"
            items.append(f"  {text.name}{detail}: {text.explain}")
        if items:
            lines += [f"{heading}:", *items]
    return lines


def _cell(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(n−1…0)"
    return f"`{value.value}`" if isinstance(value, Enum) else str(value)


def markdown_table() -> str:
    """The rule table of ``docs/RULES.md``: one row per setting, grouped, with each preset's
    value."""
    names = list(PRESETS)
    head = ["| key | name | what it does | " + " | ".join(f"`{n}`" for n in names) + " |",
            "| --- | --- | --- | " + " | ".join("---" for _ in names) + " |"]
    rows = []
    for group, heading in GROUPS:
        rows.append(f"| **{heading}** | | | " + " | ".join("" for _ in names) + " |")
        for text in _ALL:
            if text.group != group or text.key in ("min_players", "max_players"):
                continue
            choices = "; ".join(f"`{v}`: {w}" for v, w in text.choices.items())
            what = text.explain + (f" ({choices})" if choices else "")
            values = [_cell(getattr(PRESETS[n], text.key)) for n in names]
            rows.append(f"| `{text.key}` | {text.name} | {what} | " + " | ".join(values) + " |")
    return "\n".join(head + rows)


__all__ = ["ALIASES", "GROUPS", "PRESET_TEXTS", "TEXTS", "RuleText", "markdown_table",
           "preset_sets", "rules_in_words", "setting_kind", "value_words"]

if __name__ == "__main__":
    print(markdown_table())
