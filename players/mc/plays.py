"""What a play is and does in the simulator, from its cards and shape alone: revolutions,
8-cuts, 11-backs, forbidden finishes, geki-shibari's next step, the plays that clear at once.

Pure functions of ``(cards, info, rw)`` (no game state), shared by the game state
(:mod:`.state`) and move generation (:mod:`.movegen`), which both judge plays.
"""

from __future__ import annotations

from numba import njit

from .bits import JOKER_BITS, REAL_CARDS, S3_BIT, nibble, popcount
from .moves import (
    K_GROUP,
    K_JOKER,
    K_SEQUENCE,
    K_SINGLE,
    K_STAIRS,
    high_of,
    joker2_col_of,
    joker2_row_of,
    joker_col_of,
    kind_of,
    low_of,
    size_of,
)
from .rulebits import (
    AMBULANCE,
    AMBULANCE_CLEARS,
    ELEVEN_BACK,
    FORBID_APP,
    FORBID_LIST,
    FORBID_ROLE_CARDS,
    FORBID_TOP_PLAY,
    FORBID_WEB,
    NO_EIGHT_CUT,
    NO_EIGHT_CUT_BY_JOKER,
    NO_JOKER_EFFECTS,
    NO_REVOLUTION,
    NO_SPADE3_RETURN,
    REVOLUTION_DELAYED,
    REVOLUTION_GROUP_SHIFT,
    REVOLUTION_REAL_CARDS,
    SANDSTORM,
    SEQUENCE_ABOVE_LOW,
    SEQUENCE_NEXT_LOW,
    SEQUENCES_NEVER_REVOLT,
    SEQUENCES_REVOLT_AT_4,
)

EIGHT = 6  # rank column of the 8
JACK = 9  # rank column of the J
FIVE = 3  # rank column of the 5
SIX = 4  # rank column of the 6
SEVEN = 5  # rank column of the 7
NINE = 7  # rank column of the 9
TEN = 8  # rank column of the 10
#: Values of the LOCK slot: the suits are locked; with geki-shibari the ranks too (GEKI is
#: set only with LOCKED, and move generation reads both from the one ``lock`` argument).
LOCKED = 1
GEKI = 2


#: The groups' revolution minimum by the field rulebits.REVOLUTION_GROUP_FIELD (uecda 4;
#: 99: none).
_GROUP_REVOLUTION_MIN = (4, 5, 3, 99)


@njit(cache=True)
def group_revolution_min(rw: int) -> int:
    """The fewest cards of a group that revolts (rulebits.revolution_group_bits)."""
    return _GROUP_REVOLUTION_MIN[(rw >> REVOLUTION_GROUP_SHIFT) & 3]


@njit(cache=True)
def revolts(cards: int, info: int, rw: int) -> bool:
    """Does the play (not the lone joker) turn the revolution under the rules word ``rw``?
    (Jokers count towards a group's size unless REVOLUTION_REAL_CARDS.)"""
    kind = kind_of(info)
    if rw & NO_REVOLUTION:
        return False
    if kind == K_GROUP:
        if rw & REVOLUTION_REAL_CARDS:
            return popcount(cards & REAL_CARDS) >= group_revolution_min(rw)
        return size_of(info) >= group_revolution_min(rw)
    if kind in (K_SEQUENCE, K_STAIRS):  # a stairs counts its steps (size_of)
        if rw & SEQUENCES_NEVER_REVOLT:
            return False
        return size_of(info) >= (4 if rw & SEQUENCES_REVOLT_AT_4 else 5)
    return False


@njit(cache=True)
def rank_count(cards: int, info: int, rank: int, rw: int) -> int:
    """Cards of rank column ``rank`` in the play: real ones, and jokers standing there
    unless the rules turn joker effects off (rules.plays.rank_count)."""
    kind = kind_of(info)
    if kind == K_JOKER or kind == 0 or not low_of(info) <= rank <= high_of(info):
        return 0
    count = popcount(nibble(cards, rank))
    if cards & JOKER_BITS and not rw & NO_JOKER_EFFECTS:
        if joker_col_of(info) == rank:
            count += 1
        if joker2_row_of(info) >= 0 and joker2_col_of(info) == rank:
            count += 1
    return count


@njit(cache=True)
def cuts(cards: int, info: int, rw: int) -> bool:
    """An 8-cut: the play holds the 8 rank (a joker standing as 8 counts unless the rules
    say only a real 8 cuts)."""
    kind = kind_of(info)
    if (kind == K_JOKER or kind == 0 or rw & NO_EIGHT_CUT
            or not low_of(info) <= EIGHT <= high_of(info)):
        return False
    return not rw & NO_EIGHT_CUT_BY_JOKER or nibble(cards, EIGHT) != 0


@njit(cache=True)
def _revolution_and_eleven(cards: int, info: int, rw: int) -> tuple[int, int]:
    """(revolution flip, 11-back flip) of a play: 1 where it turns the order."""
    if kind_of(info) == K_JOKER:
        return 0, 0
    rv = 1 if revolts(cards, info, rw) else 0
    eb = 1 if rw & ELEVEN_BACK and rank_count(cards, info, JACK, rw) > 0 else 0
    return rv, eb


# --- forbidden finishes (FORBIDDEN_REJECT / FORBIDDEN_LAST, the FORBID_LIST field) -----------
@njit(cache=True)
def is_joker_pair(cards: int, info: int) -> bool:
    """Two jokers played as a pair (no real card)."""
    return kind_of(info) == K_GROUP and (cards & REAL_CARDS) == 0


@njit(cache=True)
def holds_role_card(cards: int, info: int) -> bool:
    """13th floor role cards (rules.plays.holds_role_card): a joker, the ♠3, a real 5, 8 or
    9, or three 3s played as a group (a sandstorm whatever the toggles say)."""
    if cards & (JOKER_BITS | S3_BIT):
        return True
    if nibble(cards, FIVE) | nibble(cards, EIGHT) | nibble(cards, NINE):
        return True
    return kind_of(info) == K_GROUP and low_of(info) == 1 and size_of(info) == 3


@njit(cache=True)
def is_forbidden_finish(cards: int, info: int, field_info: int, rev: int, rw: int) -> bool:
    """Would the play ``(cards, info)``, as a player's last, be a forbidden finish under the
    list of ``rw``?  Judged before the play: on ``field_info`` in the order ``rev``
    (rules.forbidden.is_forbidden_finish)."""
    if rw & FORBID_ROLE_CARDS:
        return holds_role_card(cards, info)
    kind = kind_of(info)
    top = 1 if rev else 13
    top_play = kind == K_JOKER or (not is_joker_pair(cards, info)
                                   and low_of(info) <= top <= high_of(info))
    kinds = rw & FORBID_LIST
    if kinds == FORBID_TOP_PLAY:
        return top_play
    if top_play or cards & JOKER_BITS or cuts(cards, info, rw):
        return True
    if kinds != FORBID_APP and revolts(cards, info, rw):
        return True
    return (kinds != FORBID_WEB and not rw & NO_SPADE3_RETURN
            and kind_of(field_info) == K_JOKER and kind == K_SINGLE and cards == S3_BIT)


@njit(cache=True)
def order_flips(cards: int, info: int, rw: int) -> tuple[int, int]:
    """(next-lead flip, answer flip) of a play: 1 where it turns the order the next lead
    follows (the revolution), and the order the answers in the same trick follow (the
    revolution unless it is delayed to the clear, and the 11-back)."""
    rv, eb = _revolution_and_eleven(cards, info, rw)
    if rw & REVOLUTION_DELAYED:
        return rv, eb
    return rv, rv ^ eb


@njit(cache=True)
def is_next_step(info: int, field_info: int, rev: int, rw: int) -> bool:
    """Is the play exactly one rank stronger than the field in the order ``rev``
    (geki-shibari; rules.judge.is_next_step)?  A run or a stairs answers by its ends under
    above_high, by its lowest rank under above_low and next_low."""
    kind = kind_of(info)
    if (kind in (K_SEQUENCE, K_STAIRS)
            and not rw & (SEQUENCE_ABOVE_LOW | SEQUENCE_NEXT_LOW)):
        if rev:
            return high_of(info) == low_of(field_info) - 1
        return low_of(info) == high_of(field_info) + 1
    return low_of(info) == low_of(field_info) + (-1 if rev else 1)


@njit(cache=True)
def _is_group_of(cards: int, info: int, rank: int, size: int, rw: int) -> bool:
    return (kind_of(info) == K_GROUP and low_of(info) == rank and size_of(info) == size
            and ((cards & JOKER_BITS) == 0 or not rw & NO_JOKER_EFFECTS))


@njit(cache=True)
def clears_at_once(cards: int, info: int, rw: int) -> bool:
    """A sandstorm (three 3s) or, with ``ambulance_clears`` or ``ambulance``, two 9s: the
    trick clears."""
    return ((rw & SANDSTORM != 0 and _is_group_of(cards, info, 1, 3, rw))
            or (rw & (AMBULANCE_CLEARS | AMBULANCE) != 0
                and _is_group_of(cards, info, NINE, 2, rw)))


@njit(cache=True)
def is_sandstorm(cards: int, info: int, rw: int) -> bool:
    return rw & SANDSTORM != 0 and _is_group_of(cards, info, 1, 3, rw)


