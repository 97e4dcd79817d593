"""What one player knows, turned into the arrays the Numba sampler and search work on."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, fields

import numpy as np
from daihinmin.contract.view import GameView
from daihinmin.rules.choices import ChoiceKind
from daihinmin.rules.plays import (
    RANK_5,
    RANK_7,
    RANK_10,
    clears_as_ambulance,
    eight_cuts,
    is_sandstorm,
    rank_count,
)
from daihinmin.rules.ruleset import (
    UECDA,
    FirstLead,
    ForbiddenFinish,
    LaterLead,
    Restart,
    RuleSet,
)
from daihinmin.values.cards import CardSet

from .bits import C3_BIT, D3_BIT, REAL_CARDS
from .convert import encode_move, hand_mask, joker_mask, lock_value, place_values
from .rulebits import (
    AFTER_DRAW,
    LEAD_HOLDS_CLUB3,
    WORD_VALUES,
    opening_word,
    revolution_group_bits,
    revolution_sequence_bits,
)
from .state import (
    ELEVEN,
    FIELD_CARDS,
    FIELD_INFO,
    GIVE_TO,
    HAND,
    LOCK,
    MAX_PLAYERS,
    N_OUT,
    OUT,
    OWNER,
    PASSED,
    PENDING_DISCARD,
    PENDING_GIVE,
    PLACE_VALUES,
    RESUME,
    RESUME_CARDS,
    RESUME_CLEARS,
    RESUME_SKIPS,
    REV,
    REVERSED,
    RULES,
    TURN,
    add_cards,
    choice_pending,
    new_state,
    replay_kept,
)
from .worlds import (
    MODE_LOWER,
    MODE_NEITHER,
    MODE_NEITHER_LOWEST,
    MODE_UPPER,
    set_world_piles,
)

# Rule fields that only shape the match around the games (or the exchange, which the player
# reads from the classes: any counts, jokers exempt or not, see _pair_rows); every other
# field must keep its uecda value for the simulator.
_MATCH_ONLY = frozenset({"name", "min_players", "max_players", "seat_change_period",
                         "class_reset_period", "exchange", "pass_limit", "exchange_counts_3p",
                         "exchange_counts", "joker_exchange_exempt", "titles_3p"})
# Play-rule toggles the simulator plays either way (the state array carries them), and
# fields it plays at every value.  hand_size: the state holds the pile a deal leaves (any
# size RuleSet.validate allows); points: a playout is worth its place's points
# (state.PLACE_VALUES); restart: a heimin game opens like the first (_table_facts); jokers:
# the deck (0..2, deck_size).
_SIMULATED = frozenset({"owner_answers", "hand_size", "points", "restart", "jokers"})


def _plays_value(rules: RuleSet, name: str) -> bool:
    """Does the simulator play ``rules``' value of the field ``name`` exactly?"""
    value = getattr(rules, name)
    if name == "players":
        return 3 <= value <= MAX_PLAYERS
    if name == "revolution_sequence_min":  # the length that counts (rulebits)
        return revolution_sequence_bits(rules) is not None
    if name == "revolution_group_min":
        return revolution_group_bits(rules) is not None
    if name == "forbidden_plays":  # the list is read only when finishes are forbidden
        return (rules.forbidden_finish is ForbiddenFinish.OFF
                or value == UECDA.forbidden_plays or value in WORD_VALUES[name])
    if name == "later_lead":  # the worst scorer is the last place of the previous game
        return value in (LaterLead.DIAMOND3, LaterLead.LAST_PLACE, LaterLead.WORST_SCORER)
    return (name in _SIMULATED or value == getattr(UECDA, name)
            or value in WORD_VALUES.get(name, ()))


def simulator_gaps(rules: RuleSet) -> list[str]:
    """The rule fields whose values in ``rules`` the Numba simulator does not play (it plays
    the uecda play rules, with either trick clear, for 3 to 6 players, with 0 to 2 jokers,
    any points, and the toggles of the rules word, :mod:`~daihinmin.players.mc.rulebits`),
    as ``field=value``; [] when it plays them all.

    >>> from daihinmin.rules.ruleset import APP, ORIGINAL, THIRTEENTH_FLOOR, WEB
    >>> simulator_gaps(UECDA), simulator_gaps(WEB), simulator_gaps(APP), simulator_gaps(ORIGINAL)
    ([], [], [], [])
    >>> simulator_gaps(THIRTEENTH_FLOOR)
    []
    >>> simulator_gaps(UECDA.with_rules(players=4, jokers=2, points=()))
    []
    >>> simulator_gaps(UECDA.with_rules(revolution_group_min=2, sequence_min=6, lead_limit=16))
    ['sequence_min=6', 'revolution_group_min=2', 'lead_limit=16']
    """
    return [f"{f.name}={_shown(getattr(rules, f.name))}" for f in fields(rules)
            if f.name not in _MATCH_ONLY and not _plays_value(rules, f.name)]


def _shown(value: object) -> str:
    return str(getattr(value, "value", value))


def simulator_supports(rules: RuleSet) -> bool:
    """Does the Numba simulator play these rules exactly (the uecda play rules)?"""
    return not simulator_gaps(rules)


@dataclass
class Knowledge:
    """Everything the sampler needs, as NumPy arrays (masks in the simulator's layout)."""

    me: int
    my_hand: int
    unknown: int
    counts: np.ndarray
    fixed: np.ndarray  # cards known to be in each player's hand
    played: np.ndarray  # cards each player played this game
    pairs: np.ndarray  # exchange facts, rows (upper, lower, n, mode, my deal hand, my return)
    seats: np.ndarray
    first: int  # first mover of the game, -1 when unknown
    owner_answers: bool  # the rules' trick clear (the devkit's when True)
    hist_player: np.ndarray
    hist_cards: np.ndarray
    hist_info: np.ndarray
    complete: bool  # the history accounts for every card that left a hand
    rules_word: int = 0  # the toggles the simulator plays (rulebits)
    prev_top: int = -1  # the previous game's daifugo, -1 in a first game
    leader: int = -1  # who leads the game by the rules (-1: the holder of the ♦3)
    # (rules_word holds LEAD_HOLDS_CLUB3 when the game opened with the ♣3 holder's lead)
    pile: int = 0  # cards in the draw pile now (hand_size > 0): the rest of ``unknown``
    draws: bool = False  # cards reach hands from the pile (draw_on_pass with a pile)
    #: per history entry, 1 for a pass after which the passer drew and kept the turn
    kept: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pile_start: int = 0  # cards the deal left in the pile (0: no pile)

    @property
    def replays_hands(self) -> bool:
        """Does the history replay every player's hand from the deal?  Not once cards are
        drawn: who drew what is hidden (each pass only shows how many), so a world's hands
        plus the cards played since are not the hands each action was chosen from.  The
        opponent models' evidence and the exchange weights need those hands; without them
        worlds are uniform over the deals that fit the hard facts (counts, known cards,
        the pile's size)."""
        return self.complete and not self.draws


def _classes_known(view: GameView) -> bool:
    """Does the view show the previous game's places as classes?"""
    classes = tuple(view.classes)
    return any(classes) and sorted(classes) == list(range(len(view.counts)))


def _later_game(view: GameView) -> bool:
    """Does this game follow another (classes from it), so that later_lead and the
    exchange apply?  Not under restart=heimin: every game opens like the first."""
    return view.rules.restart is not Restart.HEIMIN and _classes_known(view)


def _table_facts(view: GameView) -> tuple[int, int, int, int]:
    """(the word of the game's start state, previous daifugo, rule leader, the card the
    first mover is known to hold: the ♦3, the ♣3 or 0) of the game."""
    rules = view.rules
    later = _later_game(view)
    classes = tuple(view.classes)
    # (miyako-ochi knows the previous daifugo under restart=heimin too)
    prev_top = classes.index(0) if _classes_known(view) else -1
    leader = -1
    if later and rules.later_lead in (LaterLead.LAST_PLACE, LaterLead.WORST_SCORER):
        leader = classes.index(len(classes) - 1)
    if later:
        lead_card = int(D3_BIT) if rules.later_lead is LaterLead.DIAMOND3 else 0
    else:
        lead_card = {FirstLead.DIAMOND3: int(D3_BIT),
                     FirstLead.CLUB3: int(C3_BIT)}.get(rules.first_lead, 0)
    return opening_word(rules, not later), prev_top, leader, lead_card


def deck_size(rules: RuleSet) -> int:
    """Cards in the deck: the 52 and the rules' jokers."""
    return 52 + rules.jokers


def unknown_cards(rules: RuleSet, gone: int) -> int:
    """The deck's cards not in ``gone`` (a mask, jokers by count), jokers on bit 60 first."""
    jokers = max(rules.jokers - (gone >> 60 & 1) - (gone >> 61 & 1), 0)
    return (int(REAL_CARDS) & ~gone) | joker_mask(jokers)


def _padded(values: Collection[int] | np.ndarray) -> np.ndarray:
    """Per-player counts or hands in an array of :data:`MAX_PLAYERS` (the seats beyond the
    table's hold nothing)."""
    out = np.zeros(MAX_PLAYERS, dtype=np.int64)
    out[:len(values)] = [int(v) for v in values]
    return out


def exchange_pairs(view: GameView) -> list[tuple[int, int, int]]:
    """(upper, lower, cards) of this game's exchange, or [] when there was none."""
    classes = tuple(view.classes)
    if not view.rules.exchange or not _later_game(view):
        return []
    by_class = {c: p for p, c in enumerate(classes)}
    return [(by_class[u], by_class[lo], n) for u, lo, n in view.rules.exchange_pairs()]


def weighs_exchange(rules: RuleSet, n: int) -> bool:
    """Do the exchange weights (worlds.exchange_weight: the lower gave its ``n`` strongest
    cards, jokers first) fit this exchange?  They count one or two cards, jokers included;
    other exchanges keep only their hard facts (the cards I gave or got back are where I
    put them), and worlds are uniform over the rest."""
    return n <= 2 and not rules.joker_exchange_exempt


def _pair_rows(view: GameView, me: int, my_hand: int, played: np.ndarray, unknown: int,
               fixed: np.ndarray, given: CardSet,
               lowest_returners: Collection[int]) -> np.ndarray:
    rows = []
    given_mask = hand_mask(given) if given else 0
    for upper, lower, n in exchange_pairs(view):
        if me == upper and given_mask:
            deal_hand = my_hand | int(played[me]) | given_mask
            fixed[lower] |= given_mask & unknown
            if weighs_exchange(view.rules, n):
                rows.append((upper, lower, n, MODE_UPPER, deal_hand, given_mask))
        elif me == lower and given_mask:
            fixed[upper] |= given_mask & unknown
            rows.append((upper, lower, n, MODE_LOWER, 0, 0))
        elif not weighs_exchange(view.rules, n):
            continue
        else:
            mode = MODE_NEITHER_LOWEST if upper in lowest_returners else MODE_NEITHER
            rows.append((upper, lower, n, mode, 0, 0))
    return np.array(rows, dtype=np.int64).reshape(len(rows), 6)


def has_pile(rules: RuleSet) -> bool:
    """Does a deal at ``rules`` leave a draw pile?"""
    return 0 < rules.hand_size * rules.players < deck_size(rules)


def dealt_pile(rules: RuleSet, players: int) -> int:
    """Cards a deal of ``players`` hands at ``rules`` leaves in the draw pile (0: none).

    >>> from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA
    >>> dealt_pile(THIRTEENTH_FLOOR, 4), dealt_pile(UECDA, 5)
    (26, 0)
    """
    left = deck_size(rules) - rules.hand_size * players
    return left if rules.hand_size and left > 0 else 0


def kept_turns(view: GameView) -> np.ndarray:
    """Per history entry: 1 for a pass after which the passer drew and kept the turn
    (draw_on_pass: it could answer the field).  The history shows it: the passer acts
    next, in the same trick (a passer marked passed could act next only as the leader after
    a clear)."""
    history = view.history
    kept = np.zeros(len(history), dtype=np.int64)
    if not view.rules.draw_on_pass:
        return kept
    for t, obs in enumerate(history):
        if not obs.move.is_pass:
            continue
        if t + 1 < len(history):
            nxt = history[t + 1]
            kept[t] = nxt.player == obs.player and not nxt.trick_cleared_before
        else:
            kept[t] = view.turn_player == obs.player and view.field is not None
    return kept


def choices_seen(view: GameView) -> bool:
    """Has a play of this game asked a 7-pass or 10-discard choice (as far as the history
    shows: a play holding 7s or 10s under those rules)?  The view does not say which
    cards moved."""
    rules = view.rules
    if not (rules.seven_pass or rules.ten_discard):
        return False
    return any((rules.seven_pass and rank_count(o.move, RANK_7, rules) > 0)
               or (rules.ten_discard and rank_count(o.move, RANK_10, rules) > 0)
               for o in view.history)


def knowledge_from_view(view: GameView, lowest_returners: Collection[int] = ()) -> Knowledge:
    """What ``view``'s player knows; ``lowest_returners``: players known to return their
    weakest cards when they hand cards back in an exchange I am not part of."""
    me = view.player
    rules = view.rules
    my_hand = hand_mask(view.hand)
    played = np.zeros(MAX_PLAYERS, dtype=np.int64)
    players, cards, infos = [], [], []
    for obs in view.history:
        c, i = encode_move(obs.move)
        played[obs.player] = add_cards(int(played[obs.player]), c)  # jokers by count
        players.append(obs.player)
        cards.append(c)
        infos.append(i)
    gone = my_hand
    for q in range(MAX_PLAYERS):
        gone = int(add_cards(gone, int(played[q])))
    unknown = unknown_cards(rules, gone)
    counts = _padded(view.counts)
    played_total = sum(int(p).bit_count() for p in played)
    pile = view.pile_count
    # after a 7-pass or 10-discard cards moved off the record: the deal's facts (the lead
    # card, the exchange) no longer say who holds what, and the history no longer replays
    moved = choices_seen(view)
    complete = (int(counts.sum()) + played_total + pile == deck_size(rules)
                and int(counts[me]) == my_hand.bit_count() and not moved)
    draws = rules.draw_on_pass and has_pile(rules)
    fixed = np.zeros(MAX_PLAYERS, dtype=np.int64)
    if view.history:
        first = view.history[0].player if complete else -1
    else:
        first = view.turn_player if view.turn_player >= 0 else -1
    word, prev_top, leader, lead_card = _table_facts(view)
    if has_pile(rules) and not any(o.is_play for o in view.history):
        # the ♦3 or ♣3 may lie in the pile (then the dealer leads freely): the first mover
        # is known to hold the ♣3 only while the view says the lead must hold it
        club3 = bool(view.lead_must_contain & CardSet(int(C3_BIT)))
        lead_card = int(C3_BIT) if club3 and lead_card == int(C3_BIT) else 0
        word = word if club3 else word & ~LEAD_HOLDS_CLUB3
    elif has_pile(rules):
        lead_card = 0
    if lead_card and first >= 0 and first != me and unknown & lead_card:
        fixed[first] |= lead_card  # the ♦3 (or ♣3) holder leads
    pairs = _pair_rows(view, me, my_hand, played, unknown, fixed, view.exchange_given,
                       lowest_returners)
    if draws:
        pairs = pairs[:0]  # the weights need the dealt hands (see Knowledge.replays_hands)
    if moved:
        fixed[:] = 0
        pairs = pairs[:0]
    return Knowledge(me, my_hand, unknown, counts, fixed, played, pairs,
                     np.array(view.seats, dtype=np.int64), first, rules.owner_answers,
                     np.array(players, dtype=np.int64), np.array(cards, dtype=np.int64),
                     np.array(infos, dtype=np.int64), complete, word, prev_top, leader, pile,
                     draws, kept_turns(view), dealt_pile(rules, len(view.counts)))


def exchange_knowledge(view: GameView, lower: int, count: int) -> Knowledge:
    """Knowledge at the exchange: my hand holds the received cards, ``lower`` waits for
    ``count`` cards from me (its world hand leaves room for them)."""
    me = view.player
    my_hand = hand_mask(view.hand)
    counts = _padded(view.counts)
    counts[me] = my_hand.bit_count()
    counts[lower] -= count
    unknown = unknown_cards(view.rules, my_hand)
    played = np.zeros(MAX_PLAYERS, dtype=np.int64)
    fixed = np.zeros(MAX_PLAYERS, dtype=np.int64)
    rows = []
    for upper, low, n in exchange_pairs(view):
        if not weighs_exchange(view.rules, n):
            continue
        if upper == me:
            rows.append((upper, low, n, MODE_UPPER, my_hand, 0))
        else:
            rows.append((upper, low, n, MODE_NEITHER, 0, 0))
    pairs = np.array(rows, dtype=np.int64).reshape(len(rows), 6)
    empty = np.zeros(0, dtype=np.int64)
    word, prev_top, leader, _ = _table_facts(view)
    return Knowledge(me, my_hand, unknown, counts, fixed, played, pairs,
                     np.array(view.seats, dtype=np.int64), -1, view.rules.owner_answers,
                     empty, empty, empty, True, word, prev_top, leader, view.pile_count,
                     view.rules.draw_on_pass and has_pile(view.rules))


def public_state(view: GameView, kn: Knowledge, hands: np.ndarray) -> np.ndarray:
    """The simulator state of the current position with the given world ``hands`` (and a
    pile of the cards they leave, in a random order).

    Trick facts the view does not spell out (who passed, who owns the field, finishing order)
    come from replaying the history; if that does not fit the view they come from the view.
    A replay starts from the world's hands plus the cards played since, so it needs no
    draws: who kept the turn after a draw is read from the history (:func:`kept_turns`).
    """
    hands = _padded(hands)
    st = None
    if kn.first >= 0:
        start = np.array([add_cards(int(hands[q]), int(kn.played[q]))
                          for q in range(MAX_PLAYERS)], dtype=np.int64)
        st = new_state(start, kn.seats, kn.first, kn.owner_answers, kn.rules_word,
                       kn.prev_top)
        if not (replay_kept(st, kn.hist_player, kn.hist_cards, kn.hist_info, kn.kept)
                and _fits(st, view, kn)):
            st = None
    if st is None:
        st = _state_from_view(view, kn, hands)
    set_world_piles(st[None, :], kn.unknown, kn.me, kn.pile)
    st[PLACE_VALUES:PLACE_VALUES + MAX_PLAYERS] = place_values(view.rules)
    return st


def _fits(st: np.ndarray, view: GameView, kn: Knowledge) -> bool:
    field_c, field_i = encode_move(view.field) if view.field is not None else (0, 0)
    return (int(st[TURN]) == kn.me and int(st[FIELD_INFO]) == field_i
            and int(st[FIELD_CARDS]) == field_c
            and int(st[LOCK]) == lock_value(view.lock, view.geki)
            and bool(choice_pending(st)) == (view.pending is not None)
            and bool(st[REV]) == (view.revolution != view.eleven_back)
            and bool(st[REVERSED]) == (view.direction == -1)
            and all(int(st[HAND + q]).bit_count() == view.counts[q]
                    for q in range(len(view.counts))))


def _state_from_view(view: GameView, kn: Knowledge, hands: np.ndarray) -> np.ndarray:
    st = new_state(np.asarray(hands, dtype=np.int64), kn.seats, kn.me, kn.owner_answers,
                   kn.rules_word, kn.prev_top)
    if view.field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(view.field)
    st[LOCK] = lock_value(view.lock, view.geki)
    st[REV] = int(view.revolution != view.eleven_back)  # the order answers follow
    st[ELEVEN] = int(view.eleven_back)
    st[REVERSED] = int(view.direction == -1)
    st[RULES] = (kn.rules_word & ~LEAD_HOLDS_CLUB3) | (
        LEAD_HOLDS_CLUB3 if view.field is None and view.lead_must_contain else 0)
    kept = kn.kept
    if len(kept) and kept[-1] and kn.draws:
        st[RULES] |= AFTER_DRAW
    st[PASSED] = getattr(view, "passed", 0)  # newer views carry the trick's passes
    owner = getattr(view, "field_owner", None)
    if owner is None:
        plays = [o.player for o in view.history if not o.move.is_pass]
        owner = plays[-1] if plays else kn.me
    st[OWNER] = owner
    out = [q for q in range(len(view.counts)) if view.counts[q] == 0]
    st[N_OUT] = len(out)
    for i, q in enumerate(out):
        st[OUT + i] = q
    _pending_from_view(st, view)
    return st


def _pending_from_view(st: np.ndarray, view: GameView) -> None:
    """The choices my play on the field still asks (the view names the first), and the rest
    of that play as far as the field shows it (a ♠3 return's clear and a forbidden finish
    of the last form need the field before it: taken as neither)."""
    choice, move, rules = view.pending, view.field, view.rules
    if choice is None or choice.player != view.player or move is None:
        return
    if choice.kind is ChoiceKind.GIVE:
        st[PENDING_GIVE], st[GIVE_TO] = choice.count, choice.receiver
        st[PENDING_DISCARD] = rank_count(move, RANK_10, rules) if rules.ten_discard else 0
    else:
        st[PENDING_DISCARD] = choice.count
    clears = (eight_cuts(move, rules) or is_sandstorm(move, rules)
              or clears_as_ambulance(move, rules) or move.is_joker_pair)
    st[RESUME] = RESUME_CLEARS if clears else 0
    st[RESUME_SKIPS] = rank_count(move, RANK_5, rules) if rules.five_skip else 0
    st[RESUME_CARDS] = encode_move(move)[0]


__all__ = ["Knowledge", "exchange_knowledge", "knowledge_from_view", "public_state",
           "simulator_gaps", "simulator_supports", "weighs_exchange"]
