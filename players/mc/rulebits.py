"""The rule toggles the Numba simulator plays, as bits of one ``int64`` (the *rules word*).

The word is 0 for the ``uecda`` play rules; each bit is one departure from them.  The state
array carries the word (slot :data:`~daihinmin.players.mc.state.RULES`), so every function
that reads a state plays the table's rules; move generation takes it as an argument.

>>> from daihinmin.rules.ruleset import UECDA, WEB
>>> rules_word(UECDA), rules_word(WEB) == (NO_EDGE_JOKERS | SEQUENCES_NEVER_REVOLT
...     | NO_EIGHT_CUT_BY_JOKER | NO_JOKER_EFFECTS | NO_LOCK_BY_JOKER | ELEVEN_BACK
...     | LEADER_MUST_PLAY | MIYAKO_OCHI)
(0, True)
"""

from __future__ import annotations

from daihinmin.rules.ruleset import (
    FirstLead,
    ForbiddenFinish,
    ForbiddenPlays,
    RuleSet,
    Scoring,
    SequenceOrder,
)

NO_EDGE_JOKERS = 1  # sequence_edge_jokers=False: a joker stands only for a real card (3..2)
SEQUENCES_NEVER_REVOLT = 2  # revolution_sequence_min=0
SEQUENCES_REVOLT_AT_4 = 4  # revolution_sequence_min=4
NO_EIGHT_CUT_BY_JOKER = 8  # eight_cut_by_joker=False: only a real 8 cuts
NO_JOKER_EFFECTS = 16  # joker_effects=False: a joker standing as a J does not turn 11-back
NO_LOCK_BY_JOKER = 32  # lock_joker_starts=False: plays holding a joker never start a lock
ELEVEN_BACK = 64  # eleven_back=True: a J reverses the order until the trick clears
LEADER_MUST_PLAY = 128  # leader_may_pass=False
MIYAKO_OCHI = 256  # miyako_ochi=True: the old daifugo drops to last when beaten out

# --- the app and original presets (bits 1 << 9 .. 1 << 19) ---------------------------------
GROUP_MAX_4 = 1 << 9  # group_max=4: a group holds at most four cards, jokers included
SEQUENCE_ABOVE_LOW = 1 << 10  # sequence_order=above_low: a run answers by its lowest rank
NO_LOCK = 1 << 11  # lock=False: no play ever locks the suits
FORBIDDEN_REJECT = 1 << 12  # forbidden_finish=reject: a forbidden last play is illegal
FORBIDDEN_LAST = 1 << 13  # forbidden_finish=last: it goes out to the lowest free place
#: forbidden_plays, a two-bit field (read only with FORBIDDEN_REJECT or FORBIDDEN_LAST):
#: 0 = standard (top rank, any joker, an 8-cut, a revolution, a ♠3 return), top_play (the
#: top rank or the lone joker), web (standard without the ♠3 return), app (standard
#: without the revolution).  role_cards is FORBID_ROLE_CARDS (1 << 29), which then leaves
#: this field 0.
FORBID_LIST = 3 << 14
FORBID_TOP_PLAY = 1 << 14
FORBID_WEB = 2 << 14
FORBID_APP = 3 << 14
NO_EIGHT_CUT = 1 << 16  # eight_cut=False: an 8 never clears the trick
NO_SPADE3_RETURN = 1 << 17  # spade3_return=False: nothing answers a lone joker
JOKER_PAIR = 1 << 18  # joker_pair_clears=True: two jokers are a pair that beats any pair
REVOLUTION_REAL_CARDS = 1 << 19  # revolution_joker_counts=False: jokers do not count

#: Not a rule but a fact of the position, carried in the state's word so that move
#: generation sees it: the lead must hold the ♣3 (first_lead=club3, a game's first lead).
#: The first play of the game clears it.  (Bits from 1 << 40 up are such facts.)
LEAD_HOLDS_CLUB3 = 1 << 40
#: A fact of DRAW_ON_PASS: the player to move passed over the field, drew, and can answer
#: it: a play clears the fact, a pass now declines (no second draw) and marks the pass.
AFTER_DRAW = 1 << 41

# --- play effects of the thirteenth_floor preset, usable in any rule set (bits 20 and up) ---
FIVE_SKIP = 1 << 20  # five_skip=True: each 5 skips the next player still in the trick
FIVE_SKIP_CHAINED = 1 << 21  # five_skip_chained=True: each further 5 skips from the new turn
NINE_REVERSE = 1 << 22  # nine_reverse=True: a 9 turns the direction of play
EFFECTS_PER_CARD = 1 << 23  # effects_per_card=True: every 9 of a play turns it once
SANDSTORM = 1 << 24  # sandstorm=True: three 3s beat anything and clear the trick
AMBULANCE_CLEARS = 1 << 25  # ambulance_clears=True: two 9s clear the trick
REVOLUTION_DELAYED = 1 << 26  # revolution_delayed=True: a revolution fires when the trick clears
END_ON_FIRST_OUT = 1 << 27  # end_on_first_out=True: the game ends when the first player is out
CARD_SCORING = 1 << 28  # scoring=cards: the 13th floor card penalties, lower is better
#: forbidden_plays=role_cards (read only with FORBIDDEN_REJECT or FORBIDDEN_LAST, and then
#: instead of FORBID_LIST): a last play holding a joker, the ♠3, a real 5, 8 or 9, or three
#: 3s as a group is forbidden (rules.plays.holds_role_card; no toggle changes the list).
FORBID_ROLE_CARDS = 1 << 29
#: draw_on_pass=True: a pass draws cards from the draw pile (state slots PILE_COUNT..), as
#: many as the field holds (one on an empty field); a player who can then answer the field
#: may play at once or pass again to decline (the fact AFTER_DRAW).  hand_size needs no bit:
#: the pile the deal leaves is in the state, and without this bit nothing draws from it.
DRAW_ON_PASS = 1 << 30
#: double_stairs=True: 2-4 suits side by side over 3+ ranks are a play (move kind K_STAIRS).
DOUBLE_STAIRS = 1 << 31
#: lead_limit (0 = off, 1..15) is held in bits 32..35 of the word.
LEAD_LIMIT_SHIFT = 32
MAX_LEAD_LIMIT = 15

# --- the other toggles of the engine (bits 36..39, and 44 up past the facts of 40..43) --------
#: geki_shibari=True: a play exactly one rank above a locked field binds the ranks too (the
#: state's LOCK slot then holds LOCKED | GEKI, plays.GEKI), and the trick goes up by one rank.
GEKI_SHIBARI = 1 << 36
JOKER_BEATS_JOKER = 1 << 37  # joker_beats_joker=True: a lone joker answers a lone joker
SIX_REVERSE = 1 << 38  # six_reverse=True: a play holding a 6 turns the direction, once
AMBULANCE = 1 << 39  # ambulance=True: two 9s beat anything and clear the trick
NO_REVOLUTION = 1 << 44  # revolution=False: no play turns the order
NO_SEQUENCES = 1 << 45  # sequences=False: runs are not plays
SEVEN_PASS = 1 << 46  # seven_pass=True: a play's 7s ask its player to give as many cards on
TEN_DISCARD = 1 << 47  # ten_discard=True: a play's 10s ask its player to discard as many
#: scoring=uno (with end_on_first_out): the winner scores minus the others' card penalties.
UNO_SCORING = 1 << 42
#: sequence_order=next_low: a run (or stairs) answers only with its lowest rank exactly one
#: step stronger than the field's lowest.
SEQUENCE_NEXT_LOW = 1 << 43
#: sequence_min, a two-bit field in bits 48..49: (sequence_min - 3) mod 4, so 0 is the
#: uecda 3, 1 and 2 are 4 and 5, 3 is 2 (movegen.sequence_min_of).  Longer minimums: a gap.
SEQUENCE_MIN_SHIFT = 48
SEQUENCE_MIN_FIELD = 3 << SEQUENCE_MIN_SHIFT
MAX_SEQUENCE_MIN = 5
#: revolution_group_min, a two-bit field in bits 50..51: 0 is the uecda 4, 1 is 5, 2 is 3,
#: 3 is "no group revolts" (a minimum beyond group_max; plays.group_revolution_min).
REVOLUTION_GROUP_SHIFT = 50
REVOLUTION_GROUP_FIELD = 3 << REVOLUTION_GROUP_SHIFT
GROUPS_NEVER_REVOLT = 3 << REVOLUTION_GROUP_SHIFT
_REVOLUTION_GROUP_CODES = {4: 0, 5: 1, 3: 2}
#: group_max=3 (1 << 52; group_max=4 is GROUP_MAX_4, movegen.group_max_of).
GROUP_MAX_3 = 1 << 52
#: The toggles whose plays ask a follow-up choice (state.PENDING_GIVE, PENDING_DISCARD).
CHOICE_BITS = SEVEN_PASS | TEN_DISCARD

_REVOLUTION_SEQUENCE_BITS = {0: SEQUENCES_NEVER_REVOLT, 4: SEQUENCES_REVOLT_AT_4, 5: 0}
_FORBID_LIST_BITS = {ForbiddenPlays.STANDARD: 0, ForbiddenPlays.TOP_PLAY: FORBID_TOP_PLAY,
                     ForbiddenPlays.WEB: FORBID_WEB, ForbiddenPlays.APP: FORBID_APP,
                     ForbiddenPlays.ROLE_CARDS: FORBID_ROLE_CARDS}
_FORBIDDEN_FORM_BITS = {ForbiddenFinish.OFF: 0, ForbiddenFinish.REJECT: FORBIDDEN_REJECT,
                        ForbiddenFinish.LAST: FORBIDDEN_LAST}


#: Each one-bit toggle as (field, the value that sets the bit, bit): the word's bit for a
#: departure from uecda that the simulator plays at exactly that one value.
_TOGGLE_BITS: tuple[tuple[str, object, int], ...] = (
    ("sequence_edge_jokers", False, NO_EDGE_JOKERS),
    ("eight_cut_by_joker", False, NO_EIGHT_CUT_BY_JOKER),
    ("joker_effects", False, NO_JOKER_EFFECTS),
    ("lock_joker_starts", False, NO_LOCK_BY_JOKER),
    ("eleven_back", True, ELEVEN_BACK),
    ("leader_may_pass", False, LEADER_MUST_PLAY),
    ("miyako_ochi", True, MIYAKO_OCHI),
    # the toggles the app and original presets set
    ("sequence_order", SequenceOrder.ABOVE_LOW, SEQUENCE_ABOVE_LOW),
    ("sequence_order", SequenceOrder.NEXT_LOW, SEQUENCE_NEXT_LOW),
    ("lock", False, NO_LOCK),
    ("eight_cut", False, NO_EIGHT_CUT),
    ("spade3_return", False, NO_SPADE3_RETURN),
    ("joker_pair_clears", True, JOKER_PAIR),
    ("revolution_joker_counts", False, REVOLUTION_REAL_CARDS),
    # the thirteenth_floor play effects
    ("five_skip", True, FIVE_SKIP),
    ("five_skip_chained", True, FIVE_SKIP_CHAINED),
    ("nine_reverse", True, NINE_REVERSE),
    ("effects_per_card", True, EFFECTS_PER_CARD),
    ("sandstorm", True, SANDSTORM),
    ("ambulance_clears", True, AMBULANCE_CLEARS),
    ("revolution_delayed", True, REVOLUTION_DELAYED),
    ("end_on_first_out", True, END_ON_FIRST_OUT),
    ("scoring", Scoring.CARDS, CARD_SCORING),
    ("scoring", Scoring.UNO, CARD_SCORING | UNO_SCORING),
    ("draw_on_pass", True, DRAW_ON_PASS),
    # the engine's other toggles
    ("geki_shibari", True, GEKI_SHIBARI),
    ("joker_beats_joker", True, JOKER_BEATS_JOKER),
    ("six_reverse", True, SIX_REVERSE),
    ("ambulance", True, AMBULANCE),
    ("revolution", False, NO_REVOLUTION),
    ("sequences", False, NO_SEQUENCES),
    ("seven_pass", True, SEVEN_PASS),
    ("ten_discard", True, TEN_DISCARD),
    ("double_stairs", True, DOUBLE_STAIRS),
)


def longest_run(rules: RuleSet) -> int:
    """The most ranks a run (or a stairs) can span: 3..2, and the joker columns beyond."""
    return 15 if rules.sequence_edge_jokers else 13


def revolution_sequence_bits(rules: RuleSet) -> int | None:
    """The word's bits for ``rules.revolution_sequence_min``, or None where it has none.
    Only what the minimum does to the runs the rules allow counts: one beyond the longest
    run is "never" (as 0 is), one at most sequence_min makes every run revolt (as 4 or 5
    do when sequence_min is at least that).

    >>> from daihinmin.rules.ruleset import UECDA
    >>> [revolution_sequence_bits(UECDA.with_rules(revolution_sequence_min=r))
    ...  for r in (0, 3, 4, 5, 6, 16)]
    [2, None, 4, 0, None, 2]
    >>> [revolution_sequence_bits(UECDA.with_rules(revolution_sequence_min=r, sequence_min=6))
    ...  for r in (3, 5, 6, 7)]
    [0, 0, 0, None]
    """
    least = rules.revolution_sequence_min
    if least == 0 or least > longest_run(rules):
        return SEQUENCES_NEVER_REVOLT
    if least <= rules.sequence_min:  # every run revolts
        least = 5 if rules.sequence_min >= 5 else rules.sequence_min
    return _REVOLUTION_SEQUENCE_BITS.get(least)


def sequence_min_bits(sequence_min: int) -> int:
    """The word's field of ``sequence_min`` (2..MAX_SEQUENCE_MIN)."""
    return ((sequence_min - 3) & 3) << SEQUENCE_MIN_SHIFT


def revolution_group_bits(rules: RuleSet) -> int | None:
    """The word's field of ``rules.revolution_group_min``, or None where it has none.  A
    minimum beyond the largest group means no group revolts.

    >>> from daihinmin.rules.ruleset import UECDA
    >>> [revolution_group_bits(UECDA.with_rules(revolution_group_min=r)) == code
    ...  for r, code in ((4, 0), (5, 1 << 50), (3, 2 << 50), (6, GROUPS_NEVER_REVOLT))]
    [True, True, True, True]
    >>> revolution_group_bits(UECDA.with_rules(revolution_group_min=2))
    """
    least = rules.revolution_group_min
    if least > rules.group_max:
        return GROUPS_NEVER_REVOLT
    code = _REVOLUTION_GROUP_CODES.get(least)
    return None if code is None else code << REVOLUTION_GROUP_SHIFT


def group_max_bits(group_max: int) -> int:
    """The word's bits of ``group_max`` (3..5)."""
    return {4: GROUP_MAX_4, 3: GROUP_MAX_3}.get(group_max, 0)


def rules_word(rules: RuleSet) -> int:
    """The word of the toggles ``rules`` sets (fields the simulator does not play at all are
    :func:`~daihinmin.players.mc.observe.simulator_gaps`' business, not this word's)."""
    word = revolution_sequence_bits(rules) or 0
    for name, value, bit in _TOGGLE_BITS:
        if getattr(rules, name) == value:
            word |= bit
    form = _FORBIDDEN_FORM_BITS.get(rules.forbidden_finish, 0)
    if form:
        word |= form | _FORBID_LIST_BITS.get(rules.forbidden_plays, 0)
    if 2 <= rules.sequence_min <= MAX_SEQUENCE_MIN:
        word |= sequence_min_bits(rules.sequence_min)
    word |= group_max_bits(rules.group_max) | (revolution_group_bits(rules) or 0)
    return word | min(max(rules.lead_limit, 0), MAX_LEAD_LIMIT) << LEAD_LIMIT_SHIFT


def opening_word(rules: RuleSet, fresh: bool) -> int:
    """The word of a game's start state: the rules, and the ♣3 fact when the game opens
    afresh (``fresh``: no classes yet) under ``first_lead=club3``."""
    word = rules_word(rules)
    if fresh and rules.first_lead is FirstLead.CLUB3:
        word |= LEAD_HOLDS_CLUB3
    return word


#: The values of each rule field the word plays besides the uecda one.
WORD_VALUES: dict[str, tuple[object, ...]] = {
    **{name: tuple(v for n, v, _ in _TOGGLE_BITS if n == name) for name, _, _ in _TOGGLE_BITS},
    "sequence_min": (2, *range(4, MAX_SEQUENCE_MIN + 1)),
    "group_max": (3, 4),
    "lead_limit": tuple(range(1, MAX_LEAD_LIMIT + 1)),
    "forbidden_finish": (ForbiddenFinish.REJECT, ForbiddenFinish.LAST),
    "forbidden_plays": (ForbiddenPlays.TOP_PLAY, ForbiddenPlays.WEB, ForbiddenPlays.APP,
                        ForbiddenPlays.ROLE_CARDS),
    # the ♣3 fact: LEAD_HOLDS_CLUB3 (observe, convert); the winner of the draw is the first
    # mover, seen in the history
    "first_lead": (FirstLead.CLUB3, FirstLead.DRAW),
}
