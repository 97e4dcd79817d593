"""Game state of the ``uecda`` play rules as one ``int64`` array, and applying moves to it.

The transitions follow :class:`daihinmin.rules.game.GameState` exactly (trick clear and lead
rules included); only the random places after the pass limit use Numba's own generator.  The
array has room for :data:`MAX_PLAYERS` players; slot :data:`N_SEATS` holds how many sit at the
table (3..6), and the hands of the seats beyond are empty.  Hands hold up to two jokers, kept
canonical as in :class:`~daihinmin.values.cards.CardSet` (bit 60 first, then 61).  The rule
toggle the array carries is ``owner_answers`` (the devkit's trick clear, on in ``uecda``;
off, the 2013 build's), in slot :data:`OWNER_ANSWERS`; the others are bits of the rules word
(:mod:`~daihinmin.players.mc.rulebits`, slot :data:`RULES`).  Slots 64 and up hold the
state of the thirteenth_floor play effects: the direction of play, the revolutions waiting
for the clear, the lead streak and the winner's card score; slots 46..53 the draw pile
(:data:`PILE_COUNT`), which a pass draws from under ``draw_on_pass``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, JOKER_BITS, S3_BIT, int64, lowest_bit, nibble, popcount
from .movegen import generate
from .moves import (
    K_JOKER,
    K_SINGLE,
    kind_of,
    size_of,
    suits_of,
)
from .plays import (
    EIGHT,
    FIVE,
    GEKI,
    LOCKED,
    NINE,
    SEVEN,
    SIX,
    TEN,
    _revolution_and_eleven,
    clears_at_once,
    cuts,
    is_forbidden_finish,
    is_joker_pair,
    is_next_step,
    is_sandstorm,
    rank_count,
)
from .rulebits import (
    AFTER_DRAW,
    AMBULANCE,
    AMBULANCE_CLEARS,
    CARD_SCORING,
    CHOICE_BITS,
    DRAW_ON_PASS,
    EFFECTS_PER_CARD,
    END_ON_FIRST_OUT,
    FIVE_SKIP,
    FIVE_SKIP_CHAINED,
    FORBIDDEN_LAST,
    GEKI_SHIBARI,
    JOKER_PAIR,
    LEAD_HOLDS_CLUB3,
    LEAD_LIMIT_SHIFT,
    MIYAKO_OCHI,
    NINE_REVERSE,
    NO_LOCK,
    NO_LOCK_BY_JOKER,
    REVOLUTION_DELAYED,
    SANDSTORM,
    SEVEN_PASS,
    SIX_REVERSE,
    TEN_DISCARD,
    UNO_SCORING,
)

MAX_PLAYERS = 6
PASS_LIMIT = 20

# Slots of the state array.
HAND = 0  # 0..5: the hands of players 0..5 (empty beyond the table's player count)
FIELD_CARDS = 6
FIELD_INFO = 7  # 0 = empty field
TURN = 8
OWNER = 9  # last player who played
PASSED = 10  # bitmask of players marked passed in this trick
REV = 11  # the order answers follow: revolution, flipped while an 11-back lasts
LOCK = 12  # 0, LOCKED, or LOCKED | GEKI (geki-shibari: the ranks are bound too)
FAILS = 13  # consecutive passes and rejected moves
OVER = 14
N_OUT = 15
OUT = 16  # 16..21: players in finishing order
SEAT = 22  # 22..27: player sitting in seat 0..5
POS = 28  # 28..33: seat of player 0..5
OWNER_ANSWERS = 34  # 1: the last player who played answers its own cards (rules.owner_answers)
N_SEATS = 35  # players at the table
RULES = 36  # the rules word (rulebits): the toggles played beside the uecda rules
ELEVEN = 37  # 1 while an 11-back lasts (until the trick clears)
PREV_TOP = 38  # the previous game's daifugo (miyako-ochi), -1 when none
N_BOTTOM = 39
BOTTOM = 40  # 40..45: players sent to the last places, the last place first
# Slots of the draw pile (hand_size > 0; drawn from with draw_on_pass).
PILE_COUNT = 46  # cards in the draw pile
PILE_MASK = 47  # the pile's cards as a mask (jokers by count, as a hand holds them)
PILE = 48  # 48..53: the pile in order, PILE_PER_SLOT 6-bit card numbers a slot, top last
PILE_PER_SLOT = 10
PILE_SLOTS = 6  # room for 60 cards: every pile a deal of 3+ players leaves
# Slots of the thirteenth_floor play effects (64 and up).
REVERSED = 64  # 1 while play goes against the seat order (nine_reverse)
PENDING_REV = 65  # delayed revolutions waiting for the trick to clear (revolution_delayed)
LEAD_PLAYER = 66  # who led the last trick(s), -1 before the first lead (lead_limit)
LEAD_COUNT = 67  # how many tricks in a row that player has led
WIN_SCORE = 68  # end_on_first_out: the winner's card score (-10 x the numbers it went out with)
# Slots of a follow-up choice (seven_pass, ten_discard; 69 and up): what the player to move
# must answer before play goes on (rules.game.GameState.choices), and the rest of its play.
PENDING_GIVE = 69  # 7-pass: up to this many cards to give to GIVE_TO (0: none asked)
GIVE_TO = 70
PENDING_DISCARD = 71  # 10-discard: up to this many cards to discard (asked after the give)
RESUME = 72  # the play waiting on the choices: RESUME_CLEARS | RESUME_FORBIDDEN
RESUME_SKIPS = 73  # its 5-skips
RESUME_CARDS = 74  # its cards (the winner's score under end_on_first_out)
#: What each finishing place is worth in a playout when the points per place are not evenly
#: spaced (slots 56..61, place 0 first): the points mapped linearly onto 1..players, in
#: units of 1 / PLACE_VALUE_UNIT (:func:`place_value`); all 0 where the points are evenly
#: spaced (then a place is worth players - place).
PLACE_VALUES = 56
PLACE_VALUE_UNIT = 1 << 20
STATE_SIZE = 80
RESUME_CLEARS = 1  # the play clears the trick
RESUME_FORBIDDEN = 2  # going out with it is a forbidden finish of the last form
#: The rules-word bits whose effects a play may have beyond the uecda ones.
EFFECT_BITS = (FIVE_SKIP | NINE_REVERSE | SANDSTORM | AMBULANCE_CLEARS | REVOLUTION_DELAYED
               | SIX_REVERSE | AMBULANCE)


@njit(cache=True)
def canonical_jokers(hand: int) -> int:
    """``hand`` with its jokers on bit 60 first, then 61 (as CardSet keeps them)."""
    return (hand & ~JOKER_BITS) | _joker_bits(popcount(hand & JOKER_BITS))


@njit(cache=True)
def take_cards(hand: int, cards: int) -> int:
    """``hand`` without ``cards``, jokers by count (a play's joker is bit 60, or 60 and 61)."""
    left = popcount(hand & JOKER_BITS) - popcount(cards & JOKER_BITS)
    return (hand & ~cards & ~JOKER_BITS) | _joker_bits(left)


@njit(cache=True)
def _joker_bits(jokers: int) -> int:
    if jokers >= 2:
        return JOKER_BITS
    if jokers == 1:
        return JOKER_BIT
    return int64(0)


@njit(cache=True)
def add_cards(hand: int, cards: int) -> int:
    """``hand`` with ``cards`` added, jokers by count (at most two)."""
    jokers = popcount(hand & JOKER_BITS) + popcount(cards & JOKER_BITS)
    return ((hand | cards) & ~JOKER_BITS) | _joker_bits(jokers)


@njit(cache=True)
def new_state(hands: np.ndarray, seats: np.ndarray, first: int, owner_answers: bool,
              rules_word: int = 0, prev_top: int = -1) -> np.ndarray:
    """The state at the start of a game: ``seats`` lists the players in seat order (its
    length is the player count), ``hands`` has one hand per player (more entries: empty);
    ``rules_word``: the toggles (:mod:`~daihinmin.players.mc.rulebits`), ``prev_top``: the
    previous game's daifugo (-1: none)."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    st[OWNER_ANSWERS] = 1 if owner_answers else 0
    st[RULES] = rules_word
    st[PREV_TOP] = prev_top
    n = seats.shape[0]
    st[N_SEATS] = n
    for p in range(min(hands.shape[0], MAX_PLAYERS)):
        st[HAND + p] = canonical_jokers(hands[p])
    for i in range(n):
        st[SEAT + i] = seats[i]
        st[POS + seats[i]] = i
    st[TURN] = first
    st[OWNER] = first
    st[LEAD_PLAYER] = -1
    return st


@njit(cache=True)
def is_active(st: np.ndarray, p: int) -> bool:
    return st[HAND + p] != 0 and st[OVER] == 0


@njit(cache=True)
def n_active(st: np.ndarray) -> int:
    k = 0
    for p in range(MAX_PLAYERS):
        if st[HAND + p] != 0:
            k += 1
    return k


@njit(cache=True)
def seat_after(st: np.ndarray, seat: int, step: int) -> int:
    """The seat ``step`` seats after ``seat`` in the direction of play (1..n steps)."""
    n = st[N_SEATS]
    s = seat + n - step if st[REVERSED] != 0 else seat + step
    if 0 <= s < n:  # (no division for the seats one round on: this runs every turn)
        return s
    if n <= s < 2 * n:
        return s - n
    return s % n


@njit(cache=True)
def next_player(st: np.ndarray, p: int, skip_passed: bool) -> int:
    """The next active (and, if asked, unpassed) player after ``p`` in the direction of play,
    or -1."""
    seat = st[POS + p]
    n = st[N_SEATS]
    for step in range(1, n + 1):
        q = st[SEAT + seat_after(st, seat, step)]
        if q == p or st[HAND + q] == 0:
            continue
        if skip_passed and (st[PASSED] >> q) & 1:
            continue
        return q
    return -1


@njit(cache=True)
def place_of(st: np.ndarray, p: int) -> int:
    """Finishing place (0 = first) of ``p``, or -1 while still playing."""
    for i in range(st[N_OUT]):
        if st[OUT + i] == p:
            return i
    for i in range(st[N_BOTTOM]):
        if st[BOTTOM + i] == p:
            return st[N_SEATS] - 1 - i
    return -1


@njit(cache=True)
def _clear(st: np.ndarray, leader: int) -> None:
    st[FIELD_CARDS] = 0
    st[FIELD_INFO] = 0
    st[PASSED] = 0
    st[LOCK] = 0
    if st[ELEVEN] != 0:  # the 11-back ends with the trick
        st[ELEVEN] = 0
        st[REV] ^= 1
    if st[PENDING_REV] != 0:  # delayed revolutions fire: their parity turns the order
        st[REV] ^= st[PENDING_REV] & 1
        st[PENDING_REV] = 0
    turn = leader
    if st[HAND + leader] == 0:
        nxt = next_player(st, leader, False)
        turn = leader if nxt < 0 else nxt
    limit = (st[RULES] >> LEAD_LIMIT_SHIFT) & 15
    if limit != 0 and st[LEAD_PLAYER] == turn and st[LEAD_COUNT] >= limit:
        nxt = next_player(st, turn, False)  # led too often in a row: the lead moves on
        if nxt >= 0:
            turn = nxt
    st[TURN] = turn


@njit(cache=True)
def _finish_rest(st: np.ndarray, shuffle: bool) -> None:
    """End the game: the players still holding cards take the remaining places."""
    rest = np.empty(MAX_PLAYERS, dtype=np.int64)
    k = 0
    for p in range(MAX_PLAYERS):
        if st[HAND + p] != 0:
            rest[k] = p
            k += 1
    if shuffle:
        for i in range(k - 1, 0, -1):
            j = np.random.randint(0, i + 1)
            rest[i], rest[j] = rest[j], rest[i]
    for i in range(k):
        st[OUT + st[N_OUT]] = rest[i]
        st[N_OUT] += 1
    st[OVER] = 1


@njit(cache=True)
def _waiting(st: np.ndarray, owner: int) -> bool:
    """Is anyone still to answer the field?  The owner answers too with OWNER_ANSWERS."""
    for q in range(MAX_PLAYERS):
        if (st[HAND + q] != 0 and not (st[PASSED] >> q) & 1
                and (q != owner or st[OWNER_ANSWERS] != 0)):
            return True
    return False


@njit(cache=True)
def apply_pass(st: np.ndarray) -> None:
    """The player to move passes (or had a move rejected).  Under DRAW_ON_PASS it draws
    first (rules.game._pass): as many cards as the field holds, one on an empty field; if it
    drew and can now answer the field, the turn stays with it (the fact AFTER_DRAW), and its
    next pass declines without drawing."""
    p = st[TURN]
    st[FAILS] += 1
    if st[FAILS] >= PASS_LIMIT:
        st[PASSED] |= int64(1) << int64(p)
        if st[RULES] & CARD_SCORING:
            _end_by_penalties(st, p)  # by score, ties in turn order from the passer
        else:
            _finish_rest(st, True)
        return
    rw = st[RULES]
    if rw & DRAW_ON_PASS:
        if rw & AFTER_DRAW:
            st[RULES] = rw & ~AFTER_DRAW
        elif _draws_and_may_play(st, p):
            st[RULES] = rw | AFTER_DRAW
            return
    mark_passed(st, p)


@njit(cache=True)
def mark_passed(st: np.ndarray, p: int) -> None:
    """``p`` (to move) is out of the trick: it clears, or the turn moves on."""
    st[PASSED] |= int64(1) << int64(p)
    owner = st[OWNER]
    if not _waiting(st, owner):
        _clear(st, owner)
        return
    nxt = next_player(st, p, True)
    st[TURN] = owner if nxt < 0 else nxt


@njit(cache=True)
def pass_seen(st: np.ndarray, kept_turn: bool) -> None:
    """A pass from the history, where what the passer drew is not known: ``kept_turn`` says
    whether the passer drew and could answer (the history shows it acting again).  A replay
    starts from the hands as they are now plus the cards played since, with no pile: nothing
    is drawn, and each hand holds what it will play."""
    rw = st[RULES]
    if (kept_turn and rw & DRAW_ON_PASS and not rw & AFTER_DRAW
            and st[FAILS] + 1 < PASS_LIMIT):
        st[FAILS] += 1
        st[RULES] = rw | AFTER_DRAW
        return
    apply_pass(st)


# --- the draw pile ----------------------------------------------------------------------------
@njit(cache=True)
def pile_card(st: np.ndarray, i: int) -> int:
    """The card number (0..61) ``i`` places from the pile's bottom."""
    return (st[PILE + i // PILE_PER_SLOT] >> int64(6 * (i % PILE_PER_SLOT))) & int64(63)


@njit(cache=True)
def _set_pile_card(st: np.ndarray, i: int, card: int) -> None:
    slot = PILE + i // PILE_PER_SLOT
    shift = int64(6 * (i % PILE_PER_SLOT))
    st[slot] = (st[slot] & ~(int64(63) << shift)) | (int64(card) << shift)


@njit(cache=True)
def set_pile(st: np.ndarray, cards: np.ndarray) -> None:
    """Make ``cards`` (card numbers, bottom first, top last) the draw pile."""
    for k in range(PILE_SLOTS):
        st[PILE + k] = 0
    st[PILE_COUNT] = 0
    st[PILE_MASK] = 0
    for c in cards:
        _set_pile_card(st, st[PILE_COUNT], c)
        st[PILE_COUNT] += 1
        st[PILE_MASK] = add_cards(st[PILE_MASK], int64(1) << int64(c))


@njit(cache=True)
def deal_pile(st: np.ndarray, cards: int, count: int) -> None:
    """Make ``count`` of the cards of the mask ``cards`` the pile, in a random order (the
    order is hidden from every player: a determinised world draws one)."""
    pool = np.empty(64, dtype=np.int64)
    k = 0
    m = cards & ~JOKER_BITS
    while m:
        pool[k] = lowest_bit(m)
        m &= m - int64(1)
        k += 1
    for _ in range(popcount(cards & JOKER_BITS)):
        pool[k] = 60
        k += 1
    for i in range(k - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    set_pile(st, pool[:min(count, k)])


@njit(cache=True)
def draw_cards(st: np.ndarray, p: int, count: int) -> int:
    """``p`` draws up to ``count`` cards from the pile's top; return how many it drew."""
    k = min(count, st[PILE_COUNT])
    for _ in range(k):
        st[PILE_COUNT] -= 1
        i = st[PILE_COUNT]
        card = int64(1) << pile_card(st, i)
        _set_pile_card(st, i, 0)
        st[PILE_MASK] = take_cards(st[PILE_MASK], card)
        st[HAND + p] = add_cards(st[HAND + p], card)
    return k


@njit(cache=True)
def draws_ahead(st: np.ndarray) -> bool:
    """Will a pass still draw (draw_on_pass, cards in the pile)?"""
    return st[RULES] & DRAW_ON_PASS != 0 and st[PILE_COUNT] > 0


@njit(cache=True)
def _draws_and_may_play(st: np.ndarray, p: int) -> bool:
    """The draw of ``p``'s pass: did it draw, over a field it can now answer?"""
    field = st[FIELD_INFO]
    if draw_cards(st, p, size_of(field) if field != 0 else 1) == 0 or field == 0:
        return False
    # The legal plays as move generation lists them; a full buffer has some that are not a
    # forbidden last play (at most a few plays take the whole hand).
    bufc = np.empty(64, dtype=np.int64)
    bufi = np.empty(64, dtype=np.int64)
    return generate(st[HAND + p], field, st[REV], st[LOCK], True, bufc, bufi,
                             st[RULES]) > 0


@njit(cache=True)
def _play_effects(st: np.ndarray, cards: int, info: int, rw: int) -> tuple[bool, int]:
    """The thirteenth_floor effects of a play (not the lone joker), in the engine's order:
    sandstorm (cancels delayed revolutions) and ambulance clear, 6- and 9-reverse, 5-skip.
    Returns (the trick clears, the number of 5s that skip)."""
    clear = False
    if is_sandstorm(cards, info, rw):
        st[PENDING_REV] = 0
        clear = True
    elif clears_at_once(cards, info, rw):
        clear = True
    if rw & (NINE_REVERSE | SIX_REVERSE):
        flips = 1 if rw & SIX_REVERSE and rank_count(cards, info, SIX, rw) > 0 else 0
        if rw & NINE_REVERSE:
            nines = rank_count(cards, info, NINE, rw)
            flips += nines if rw & EFFECTS_PER_CARD else min(nines, 1)
        st[REVERSED] ^= flips & 1
    skips = rank_count(cards, info, FIVE, rw) if rw & FIVE_SKIP else 0
    return clear, skips


@njit(cache=True)
def _skip_target(st: np.ndarray, p: int, fives: int) -> int:
    """Where the turn lands after ``p`` played ``fives`` 5s (rules.game._skip_target): the
    players still in the trick in the direction of play, ``p`` last; each 5 skips one
    (chained: each further 5 skips from the player the turn came to)."""
    seat = st[POS + p]
    n = st[N_SEATS]
    count = 0
    for step in range(1, n + 1):
        q = st[SEAT + seat_after(st, seat, step)]
        if st[HAND + q] != 0 and (q == p or not (st[PASSED] >> q) & 1):
            count += 1
    if count == 0:
        return p
    index = (2 * fives - 1 if st[RULES] & FIVE_SKIP_CHAINED else fives) % count
    for step in range(1, n + 1):
        q = st[SEAT + seat_after(st, seat, step)]
        if st[HAND + q] != 0 and (q == p or not (st[PASSED] >> q) & 1):
            if index == 0:
                return q
            index -= 1
    return p


@njit(cache=True)
def hand_penalty(hand: int) -> int:
    """The 13th floor penalty of a hand (rules.plays.hand_penalty): a joker 50, the other
    role cards (the spade 3, every 5, 8 and 9) 20, any other card its number (A 1, 2 2)."""
    total = 50 * popcount(hand & JOKER_BITS)
    for r in range(1, 14):
        k = popcount(nibble(hand, r))
        if k == 0:
            continue
        if r in (FIVE, EIGHT, NINE):
            total += 20 * k
        elif r == 1:
            spade = nibble(hand, r) & 1
            total += 20 * spade + 3 * (k - spade)
        elif r == 12:
            total += k
        elif r == 13:
            total += 2 * k
        else:
            total += (r + 2) * k
    return total


@njit(cache=True)
def face_sum(cards: int) -> int:
    """The numbers printed on the real cards (A 1, 2 2, J/Q/K 11..13; a joker none)."""
    total = 0
    for r in range(1, 14):
        k = popcount(nibble(cards, r))
        total += k * (1 if r == 12 else 2 if r == 13 else r + 2)
    return total


@njit(cache=True)
def card_score(st: np.ndarray, p: int) -> int:
    """``p``'s 13th floor score once the game is over (rules.scoring.card_scores, lower is
    better): the winner's -10 x the numbers of its last play (under UNO_SCORING minus the
    others' penalties), else the cards left."""
    if st[HAND + p] != 0:
        return hand_penalty(st[HAND + p])
    if not st[RULES] & UNO_SCORING:
        return st[WIN_SCORE]
    total = 0
    for q in range(st[N_SEATS]):
        if q != p:
            total += hand_penalty(st[HAND + q])
    return -total


@njit(cache=True)
def _end_by_penalties(st: np.ndarray, first: int) -> None:
    """The players still holding cards take the places by penalty, lowest first, ties in
    the direction of play from ``first`` (rules.game._end_by_scores: ``first`` is the winner,
    or the player to move when the pass limit ends the game)."""
    rest = np.empty(MAX_PLAYERS, dtype=np.int64)
    score = np.empty(MAX_PLAYERS, dtype=np.int64)
    k = 0
    seat = st[POS + first]
    for step in range(st[N_SEATS]):
        q = st[SEAT + seat_after(st, seat, step)]
        if st[HAND + q] == 0:
            continue
        s = hand_penalty(st[HAND + q])
        i = k  # insertion sort, stable: equal scores keep the turn order
        while i > 0 and score[i - 1] > s:
            rest[i] = rest[i - 1]
            score[i] = score[i - 1]
            i -= 1
        rest[i] = q
        score[i] = s
        k += 1
    for i in range(k):
        st[OUT + st[N_OUT]] = rest[i]
        st[N_OUT] += 1
    st[OVER] = 1


@njit(cache=True)
def apply_play(st: np.ndarray, cards: int, info: int) -> None:
    """The player to move plays ``(cards, info)``, which must be legal."""
    p = st[TURN]
    before = st[FIELD_INFO]
    before_kind = kind_of(before)
    hand = take_cards(st[HAND + p], cards)
    rw = st[RULES]
    # (with choices the player may go out by them: the play decides the form then too)
    forbidden = ((hand == 0 or rw & CHOICE_BITS != 0) and rw & FORBIDDEN_LAST != 0
                 and is_forbidden_finish(cards, info, before, st[REV], rw))
    if rw & (LEAD_HOLDS_CLUB3 | AFTER_DRAW):  # the game's first play; the draw is over
        st[RULES] = rw & ~(LEAD_HOLDS_CLUB3 | AFTER_DRAW)
    st[HAND + p] = hand
    st[FAILS] = 0
    kind = kind_of(info)
    clear = False
    if before == 0:  # a lead: who leads how many tricks in a row (lead_limit)
        if st[LEAD_PLAYER] == p:
            st[LEAD_COUNT] += 1
        else:
            st[LEAD_PLAYER] = p
            st[LEAD_COUNT] = 1
    if kind == K_JOKER:
        st[LOCK] = 0
    elif rw & NO_LOCK:
        pass
    elif (before != 0 and st[LOCK] == 0 and before_kind != K_JOKER
          and suits_of(info) == suits_of(before)
          and (not rw & NO_LOCK_BY_JOKER
               or ((cards & JOKER_BITS) == 0 and (st[FIELD_CARDS] & JOKER_BITS) == 0))):
        st[LOCK] = LOCKED
    elif (rw & GEKI_SHIBARI and st[LOCK] == LOCKED and before != 0
          and is_next_step(info, before, st[REV], rw)):
        st[LOCK] = LOCKED | GEKI
    if before_kind == K_JOKER and kind == K_SINGLE and cards == S3_BIT:
        clear = True
    if rw & JOKER_PAIR and is_joker_pair(cards, info):  # the joker pair clears the trick
        clear = True
    st[FIELD_CARDS] = cards
    st[FIELD_INFO] = info
    st[OWNER] = p
    skips = 0
    if kind != K_JOKER:
        if rw & EFFECT_BITS:
            clears, skips = _play_effects(st, cards, info, rw)
            clear = clear or clears
        rv, eb = _revolution_and_eleven(cards, info, rw)
        if rw & REVOLUTION_DELAYED:
            st[PENDING_REV] += rv
            rv = 0
        st[REV] ^= rv ^ eb
        st[ELEVEN] ^= eb
        if cuts(cards, info, rw):
            clear = True
    if rw & CHOICE_BITS and hand != 0 and _ask_choices(st, p, cards, info, rw):
        st[RESUME] = (RESUME_CLEARS if clear else 0) | (RESUME_FORBIDDEN if forbidden else 0)
        st[RESUME_SKIPS] = skips
        st[RESUME_CARDS] = cards
        return  # the player answers the choices first (apply_choice)
    _after_play(st, p, cards, clear, skips, forbidden)


@njit(cache=True)
def _ask_choices(st: np.ndarray, p: int, cards: int, info: int, rw: int) -> bool:
    """Set the follow-up choices of ``p``'s play (rules.game._ask_choices): give a card per
    7 to the next player still in the game, discard one per 10.  True when one is asked."""
    gives = rank_count(cards, info, SEVEN, rw) if rw & SEVEN_PASS else 0
    if gives:
        receiver = next_player(st, p, False)
        if receiver >= 0:
            st[PENDING_GIVE] = gives
            st[GIVE_TO] = receiver
    if rw & TEN_DISCARD:
        st[PENDING_DISCARD] = rank_count(cards, info, TEN, rw)
    return st[PENDING_GIVE] != 0 or st[PENDING_DISCARD] != 0


@njit(cache=True)
def choice_pending(st: np.ndarray) -> bool:
    """Does the player to move owe a follow-up choice (apply_choice) before any move?"""
    return st[PENDING_GIVE] != 0 or st[PENDING_DISCARD] != 0


@njit(cache=True)
def choice_count(st: np.ndarray) -> int:
    """How many cards (at most) the pending choice moves: the give first, then the discard."""
    return st[PENDING_GIVE] if st[PENDING_GIVE] != 0 else st[PENDING_DISCARD]


@njit(cache=True)
def apply_choice(st: np.ndarray, cards: int) -> None:
    """The player to move answers the pending choice with ``cards`` (held, at most
    choice_count of them; rules.game.GameState.step_choice): they go to the receiver (give)
    or out of play (discard); with none pending any more the play goes on."""
    p = st[TURN]
    st[HAND + p] = take_cards(st[HAND + p], cards)
    if st[PENDING_GIVE] != 0:
        q = st[GIVE_TO]
        st[HAND + q] = add_cards(st[HAND + q], cards)
        st[PENDING_GIVE] = 0
        st[GIVE_TO] = 0
    else:
        st[PENDING_DISCARD] = 0
    if st[HAND + p] == 0:
        st[PENDING_DISCARD] = 0  # nothing left to discard
    if choice_pending(st):
        return
    flags = st[RESUME]
    played = st[RESUME_CARDS]
    skips = st[RESUME_SKIPS]
    st[RESUME] = 0
    st[RESUME_SKIPS] = 0
    st[RESUME_CARDS] = 0
    _after_play(st, p, played, flags & RESUME_CLEARS != 0, skips,
                flags & RESUME_FORBIDDEN != 0)


@njit(cache=True)
def _after_play(st: np.ndarray, p: int, cards: int, clear: bool, skips: int,
                forbidden: bool) -> None:
    """How play goes on after ``p``'s play of ``cards`` (and its choices): out, the clear,
    the skips, the next player (rules.game._after_play)."""
    hand = st[HAND + p]
    rw = st[RULES]
    if hand == 0 and forbidden:  # forbidden_finish=last: out to the lowest free place
        st[BOTTOM + st[N_BOTTOM]] = p
        st[N_BOTTOM] += 1
        if n_active(st) <= 1:
            _finish_rest(st, False)
            return
    elif hand == 0:
        st[OUT + st[N_OUT]] = p
        st[N_OUT] += 1
        if rw & END_ON_FIRST_OUT:
            st[WIN_SCORE] = -10 * face_sum(cards)
            _end_by_penalties(st, p)
            return
        top = st[PREV_TOP]
        if (rw & MIYAKO_OCHI and st[N_OUT] == 1 and top >= 0 and top != p
                and st[HAND + top] != 0):  # miyako-ochi: the old daifugo drops to last
            st[HAND + top] = 0
            st[BOTTOM + st[N_BOTTOM]] = top
            st[N_BOTTOM] += 1
        if n_active(st) <= 1:
            _finish_rest(st, False)
            return
    if clear or not _waiting(st, p):  # with OWNER_ANSWERS, p (if in) waits on its own play
        _clear(st, p)
        return
    if skips:
        target = _skip_target(st, p, skips)
        if target == p and st[OWNER_ANSWERS] == 0:
            _clear(st, p)  # the skips came round: the others lost the trick
        else:
            st[TURN] = target
        return
    nxt = next_player(st, p, True)
    st[TURN] = p if nxt < 0 else nxt


@njit(cache=True)
def apply_move(st: np.ndarray, cards: int, info: int) -> None:
    if info == 0:
        apply_pass(st)
    else:
        apply_play(st, cards, info)


@njit(cache=True)
def has_joker(hand: int) -> bool:
    return (hand & JOKER_BIT) != 0


@njit(cache=True)
def holds(hand: int, cards: int) -> bool:
    """Does ``hand`` hold ``cards`` (jokers by count)?"""
    return ((hand & cards & ~JOKER_BITS) == (cards & ~JOKER_BITS)
            and popcount(hand & JOKER_BITS) >= popcount(cards & JOKER_BITS))


@njit(cache=True)
def place_value(st: np.ndarray, place: int) -> float:
    """What finishing ``place`` (0 = first) is worth in a playout: players - place (5..1 at
    five players: the uecda points).  Place scoring of every preset is this plus a constant
    (``points=()``: players-1 ... 0), which no comparison of moves depends on.  Other points
    come from the slots PLACE_VALUES (a linear map of them onto the same 1..players)."""
    scaled = st[PLACE_VALUES + place]
    if scaled > 0:
        return scaled / PLACE_VALUE_UNIT
    return float(st[N_SEATS] - place)


#: Card scores mapped onto playout values: LOW_SCORE (or less) is worth the player count,
#: HIGH_SCORE (or more) 1, linearly between, so a higher mean value is a lower mean score.
LOW_SCORE, HIGH_SCORE = -400.0, 400.0


@njit(cache=True)
def score_value(st: np.ndarray, p: int) -> float:
    """The playout value of ``p``'s card score (the game is over)."""
    s = min(max(float(card_score(st, p)), LOW_SCORE), HIGH_SCORE)
    return 1.0 + (st[N_SEATS] - 1.0) * (HIGH_SCORE - s) / (HIGH_SCORE - LOW_SCORE)


@njit(cache=True)
def replay(st: np.ndarray, players: np.ndarray, cards: np.ndarray, infos: np.ndarray) -> bool:
    """Apply a recorded sequence of actions; False if it does not fit the state."""
    return replay_kept(st, players, cards, infos, np.zeros(players.shape[0], dtype=np.int64))


@njit(cache=True)
def replay_kept(st: np.ndarray, players: np.ndarray, cards: np.ndarray, infos: np.ndarray,
                kept: np.ndarray) -> bool:
    """:func:`replay` where ``kept[t]`` is 1 for a pass after which the passer drew and kept
    the turn (:func:`pass_seen`)."""
    for t in range(players.shape[0]):
        p = players[t]
        if st[OVER] != 0 or st[TURN] != p or choice_pending(st):
            return False  # (the history does not hold the choices)
        if infos[t] == 0:
            pass_seen(st, kept[t] != 0)
        else:
            if not holds(st[HAND + p], cards[t]):
                return False
            apply_play(st, cards[t], infos[t])
    return True


@njit(cache=True)
def seed_numba(seed: int) -> None:
    """Seed the random generator Numba code uses (separate from NumPy's)."""
    np.random.seed(seed)

