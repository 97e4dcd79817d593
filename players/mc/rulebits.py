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

from daihinmin.rules.ruleset import RuleSet

NO_EDGE_JOKERS = 1  # sequence_edge_jokers=False: a joker stands only for a real card (3..2)
SEQUENCES_NEVER_REVOLT = 2  # revolution_sequence_min=0
SEQUENCES_REVOLT_AT_4 = 4  # revolution_sequence_min=4
NO_EIGHT_CUT_BY_JOKER = 8  # eight_cut_by_joker=False: only a real 8 cuts
NO_JOKER_EFFECTS = 16  # joker_effects=False: a joker standing as a J does not turn 11-back
NO_LOCK_BY_JOKER = 32  # lock_joker_starts=False: plays holding a joker never start a lock
ELEVEN_BACK = 64  # eleven_back=True: a J reverses the order until the trick clears
LEADER_MUST_PLAY = 128  # leader_may_pass=False
MIYAKO_OCHI = 256  # miyako_ochi=True: the old daifugo drops to last when beaten out

_REVOLUTION_SEQUENCE_BITS = {0: SEQUENCES_NEVER_REVOLT, 4: SEQUENCES_REVOLT_AT_4, 5: 0}


def rules_word(rules: RuleSet) -> int:
    """The word of the toggles ``rules`` sets (fields the simulator does not play at all are
    :func:`~daihinmin.players.mc.observe.simulator_gaps`' business, not this word's)."""
    word = 0
    if not rules.sequence_edge_jokers:
        word |= NO_EDGE_JOKERS
    word |= _REVOLUTION_SEQUENCE_BITS.get(rules.revolution_sequence_min, 0)
    if not rules.eight_cut_by_joker:
        word |= NO_EIGHT_CUT_BY_JOKER
    if not rules.joker_effects:
        word |= NO_JOKER_EFFECTS
    if not rules.lock_joker_starts:
        word |= NO_LOCK_BY_JOKER
    if rules.eleven_back:
        word |= ELEVEN_BACK
    if not rules.leader_may_pass:
        word |= LEADER_MUST_PLAY
    if rules.miyako_ochi:
        word |= MIYAKO_OCHI
    return word


#: The values of each rule field the word plays besides the uecda one.
WORD_VALUES: dict[str, tuple[object, ...]] = {
    "sequence_edge_jokers": (False,),
    "revolution_sequence_min": (0, 4),
    "eight_cut_by_joker": (False,),
    "joker_effects": (False,),
    "lock_joker_starts": (False,),
    "eleven_back": (True,),
    "leader_may_pass": (False,),
    "miyako_ochi": (True,),
}
