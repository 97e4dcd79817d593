"""Whole matches of bundled bots on the Numba simulator: the engine's games, at its speed.

:func:`play_numba_match` plays the match the engine would play (``daihinmin match``,
``tournament --in-process``) with the same seed and the same bots, every game end to end in
Numba: the game's generator is CPython's (:mod:`daihinmin.local.pyrandom`, seeded as
:func:`daihinmin.rules.match.game_rng` seeds it), so the seat draw, the dealer, the deal and
the random places after the pass limit are the engine's; the exchange (the lower classes'
strongest cards, the upper classes' weakest returned) and the first leader follow
:mod:`daihinmin.rules.match`; the play is the simulator's (equal to the engine's:
``tests/test_mc_sim*.py``), each seat moved by its bot's Numba model.  The tests check the
results against the engine game for game (tests/local/test_numba_match.py).

Bots with a model that plays exactly as the bot: :data:`MODELS` (``default``: the UECda sample
client, including its reading of the field in the order before a revolution).  Rules: what
the simulator plays (:func:`~daihinmin.players.mc.observe.simulator_gaps`) and the match
structures :func:`numba_gaps` lists; anything else is refused with
:class:`NumbaMatchError`.

For example (Numba compiles on the first call, so this is no doctest)::

    result = play_numba_match(UECDA, seed=1, games=100_000, bots=["default"] * 5)
    result.places.shape, result.totals  # (100000, 5) and the five players' points
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from daihinmin.players.mc.bits import C3_BIT, D3_BIT, JOKER_BITS, popcount
from daihinmin.players.mc.models import (
    MODEL_POLICY,
    MODEL_SAMPLE,
    MODEL_UNIFORM,
    MODEL_WEAKEST,
    sample_choice_read,
    uniform_choice,
    weakest_choice,
)
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.players.mc.observe import simulator_gaps
from daihinmin.players.mc.plays import revolts
from daihinmin.players.mc.rollout import choose, weakest_cards
from daihinmin.players.mc.rulebits import LEAD_HOLDS_CLUB3, NO_REVOLUTION, rules_word
from daihinmin.players.mc.state import (
    ELEVEN,
    FAILS,
    FIELD_CARDS,
    FIELD_INFO,
    HAND,
    MAX_PLAYERS,
    N_OUT,
    OUT,
    OVER,
    PASS_LIMIT,
    REV,
    RULES,
    TURN,
    add_cards,
    apply_pass,
    apply_play,
    choice_pending,
    new_state,
    place_of,
    take_cards,
)
from daihinmin.rules.ruleset import (
    FirstLead,
    LaterLead,
    Restart,
    RuleSet,
    Scoring,
)
from numba import njit

from . import pyrandom

#: Bundled bots whose Numba model plays exactly their moves and exchanges.
MODELS: dict[str, int] = {"default": MODEL_SAMPLE}
#: How many games' seeds are worked out at a time (their digests are made in Python).
CHUNK = 65536
# The parameters of a match, in one int64 array (slots).
_N, _JOKERS, _WORD, _OWNER_ANSWERS, _SEAT_PERIOD, _RESET_PERIOD = 0, 1, 2, 3, 4, 5
_EXCHANGE, _SKIP_JOKERS, _CLUB3_FIRST, _LAST_PLACE_LEADS, _HEIMIN, _PAIRS = 6, 7, 8, 9, 10, 11
_PARAMS = 21  # _PAIRS: up to three (upper place, lower place, count) triples
# What a match carries from game to game (slots): the seats, the classes (-1: none yet).
_SEATS, _CLASSES = 0, MAX_PLAYERS
_CARRY = 2 * MAX_PLAYERS
UNSUPPORTED_CHOICE = -1  # a game asked a 7-pass/10-discard choice: not modelled


class NumbaMatchError(ValueError):
    """The rules or a bot cannot be played on the Numba simulator exactly."""


def numba_gaps(rules: RuleSet) -> list[str]:
    """What in ``rules`` the Numba match cannot play as the engine does ([] if nothing)."""
    gaps = simulator_gaps(rules)
    if rules.hand_size:
        gaps.append(f"hand_size={rules.hand_size} (a draw pile)")
    if rules.first_lead is FirstLead.DRAW:
        gaps.append("first_lead=draw")
    if rules.later_lead is LaterLead.WORST_SCORER:
        gaps.append("later_lead=worst_scorer")
    if rules.scoring is not Scoring.PLACE:
        gaps.append(f"scoring={rules.scoring.value}")
    if rules.seven_pass or rules.ten_discard:
        gaps.append("seven_pass/ten_discard (choices)")
    if len(rules.exchange_pairs()) > 3:
        gaps.append("more than three exchange pairs")
    return gaps


def _params(rules: RuleSet) -> np.ndarray:
    prm = np.zeros(_PARAMS, dtype=np.int64)
    prm[_N], prm[_JOKERS], prm[_WORD] = rules.players, rules.jokers, rules_word(rules)
    prm[_OWNER_ANSWERS] = int(rules.owner_answers)
    prm[_SEAT_PERIOD], prm[_RESET_PERIOD] = rules.seat_change_period, rules.class_reset_period
    prm[_EXCHANGE], prm[_SKIP_JOKERS] = int(rules.exchange), int(rules.joker_exchange_exempt)
    prm[_CLUB3_FIRST] = int(rules.first_lead is FirstLead.CLUB3)
    prm[_LAST_PLACE_LEADS] = int(rules.later_lead is LaterLead.LAST_PLACE)
    prm[_HEIMIN] = int(rules.restart is Restart.HEIMIN)
    for i, (upper, lower, count) in enumerate(rules.exchange_pairs()):
        prm[_PAIRS + 3 * i:_PAIRS + 3 * i + 3] = (upper, lower, count)
    prm[_PAIRS + 3 * len(rules.exchange_pairs())] = -1
    return prm


def game_seeds(seed: int, first: int, count: int) -> np.ndarray:
    """The seeds of :func:`~daihinmin.rules.match.game_rng` for games ``first`` .. on."""
    out = np.empty(count, dtype=np.uint64)
    for i in range(count):
        digest = hashlib.sha256(f"daihinmin:{seed}:{first + i}".encode()).digest()
        out[i] = int.from_bytes(digest[:8], "big")
    return out


@njit(cache=True)
def _strongest(hand: int, count: int, skip_jokers: bool) -> int:
    """rules.deal.strongest: the jokers first, then rank 2 down to 3, ties ♠ ♥ ♦ ♣."""
    out = np.int64(0)
    k = 0
    if not skip_jokers:
        jokers = popcount(hand & JOKER_BITS)
        for j in range(jokers):
            if k < count:
                out |= np.int64(1) << np.int64(60 + j)
                k += 1
    for r in range(13, 0, -1):
        for s in range(4):
            bit = np.int64(1) << np.int64(4 * r + s)
            if k < count and hand & bit:
                out |= bit
                k += 1
    return int(out)


@njit(cache=True)
def _move(hands: np.ndarray, giver: int, receiver: int, cards: int) -> None:
    hands[giver] = take_cards(hands[giver], cards)
    hands[receiver] = add_cards(hands[receiver], cards)


@njit(cache=True)
def _holder(hands: np.ndarray, n: int, bit: int) -> int:
    for p in range(n):
        if hands[p] & bit:
            return p
    return -1


@njit(cache=True)
def _with_class(carry: np.ndarray, n: int, place: int) -> int:
    for p in range(n):
        if carry[_CLASSES + p] == place:
            return p
    return -1


@njit(cache=True)
def default_choice(st: np.ndarray, p: int, read_rev: int, bufc: np.ndarray,
                   bufi: np.ndarray) -> int:
    """The bundled ``default`` bot's move, with the order the client read the field in."""
    return sample_choice_read(st, p, read_rev, bufc, bufi)


@njit(cache=True)
def model_move(model: int, st: np.ndarray, p: int, read_rev: int, policy: np.ndarray,
               bufc: np.ndarray, bufi: np.ndarray) -> int:
    """The move of ``p`` (to move) by a model: an index into the buffers, or -1 to pass.
    ``read_rev``: the order the sample client read the field in (``default``)."""
    if model == MODEL_SAMPLE:
        return default_choice(st, p, read_rev, bufc, bufi)
    if model == MODEL_WEAKEST:
        return weakest_choice(st, p, bufc, bufi)
    if model == MODEL_UNIFORM:
        return uniform_choice(st, p, bufc, bufi)
    return choose(st, p, policy, bufc, bufi)  # MODEL_POLICY: the playout policy


@njit(cache=True)
def read_order(st: np.ndarray, last_revolted: bool) -> int:
    """The order the sample client reads the field in: before a revolution's turn table it
    still has the old one (players.default_bot.order_when_field_was_read)."""
    revolution = st[REV] ^ st[ELEVEN]
    return 1 - revolution if last_revolted else revolution


@njit(cache=True)
def revolted_field(st: np.ndarray, cards: int, info: int) -> bool:
    """After the play ``(cards, info)``: is it on the field, and a revolution's shape?"""
    return (revolts(cards, info, st[RULES] & ~NO_REVOLUTION) and st[FIELD_INFO] == info
            and st[FIELD_CARDS] == cards)


@njit(cache=True)
def _start(prm: np.ndarray, carry: np.ndarray, mt: np.ndarray, game: int,
           hands: np.ndarray, deck: np.ndarray, facts: np.ndarray) -> np.ndarray:
    """The game's deal, exchange and first leader (rules.match.MatchState.setup_game,
    GameSetup.start); its start state.  ``facts`` gets each player's side of the exchange
    (``contract.engine_views.exchange_facts``): ``[2p]`` the cards it gave, ``[2p + 1]``
    those it saw come back (a lower class sees its return; an upper never sees its gift)."""
    n = prm[_N]
    period = prm[_SEAT_PERIOD]
    if period > 0 and (game - 1) % period == 0:
        for i in range(n):
            carry[_SEATS + i] = i
        pyrandom.shuffle(mt, carry[_SEATS:_SEATS + n], n)
    reset = prm[_RESET_PERIOD]
    block_start = game == 1 or (reset > 0 and (game - 1) % reset == 0)  # no classes
    fresh = block_start or prm[_HEIMIN] != 0  # restart=heimin: no exchange, the first lead
    dealer = carry[_SEATS + pyrandom.below(mt, n)] if block_start else _with_class(carry, n, 0)
    size = 52 + prm[_JOKERS]
    for i in range(52):
        deck[i] = 4 + i
    for j in range(prm[_JOKERS]):
        deck[52 + j] = 60 + j
    pyrandom.shuffle(mt, deck, size)
    start = 0
    for i in range(n):
        if carry[_SEATS + i] == dealer:
            start = i
    hands[:] = 0
    seat = start  # (start + i) % n, counted round
    for i in range(size):
        hands[carry[_SEATS + seat]] |= np.int64(1) << np.int64(deck[i])
        seat = seat + 1 if seat + 1 < n else 0
    for p in range(n):
        hands[p] = add_cards(0, hands[p])  # (jokers canonical: bit 60 first)
    facts[:] = 0
    if not fresh and prm[_EXCHANGE]:
        k = _PAIRS
        while prm[k] >= 0 and k < _PARAMS - 2:  # the lower classes give their strongest
            upper, lower = _with_class(carry, n, prm[k]), _with_class(carry, n, prm[k + 1])
            given = _strongest(hands[lower], prm[k + 2], prm[_SKIP_JOKERS] != 0)
            _move(hands, lower, upper, given)
            facts[2 * lower] |= given
            k += 3
        k = _PAIRS
        while prm[k] >= 0 and k < _PARAMS - 2:  # the upper classes return their weakest
            upper, lower = _with_class(carry, n, prm[k]), _with_class(carry, n, prm[k + 1])
            returned = weakest_cards(hands[upper], prm[k + 2], 0)
            _move(hands, upper, lower, returned)
            facts[2 * upper] |= returned
            facts[2 * lower + 1] |= returned
            k += 3
    word = prm[_WORD]
    if fresh:
        first = _holder(hands, n, C3_BIT if prm[_CLUB3_FIRST] else D3_BIT)
        if first >= 0 and prm[_CLUB3_FIRST]:
            word |= LEAD_HOLDS_CLUB3
        if first < 0:
            first = dealer
        prev_top = -1 if block_start else _with_class(carry, n, 0)  # (miyako-ochi)
    else:
        if prm[_LAST_PLACE_LEADS]:
            first = _with_class(carry, n, n - 1)
        else:
            first = _holder(hands, n, D3_BIT)
            if first < 0:
                first = dealer
        prev_top = _with_class(carry, n, 0)
    return new_state(hands, carry[_SEATS:_SEATS + n].copy(), first, prm[_OWNER_ANSWERS] != 0,
                     word, prev_top)


@njit(cache=True)
def _finish(st: np.ndarray, mt: np.ndarray, n: int) -> None:
    """The pass limit's random places with the game's generator (rules.game: the players
    still in, by number, shuffled), in place of the simulator's own draw."""
    if st[FAILS] < PASS_LIMIT:
        return
    rest = np.empty(MAX_PLAYERS, dtype=np.int64)
    k = 0
    for p in range(n):
        if st[HAND + p] != 0:
            rest[k] = p
            k += 1
    pyrandom.shuffle(mt, rest, k)
    for i in range(k):
        st[OUT + st[N_OUT] - k + i] = rest[i]


@njit(cache=True)
def play_games(prm: np.ndarray, models: np.ndarray, seeds: np.ndarray, first_game: int,
               carry: np.ndarray, places: np.ndarray, turns: np.ndarray,
               seats: np.ndarray) -> int:
    """Play the games of ``seeds`` (game ``first_game`` on), writing each game's places, turn
    count and seats (the player in each seat); ``carry`` holds the seats and classes between
    calls.  Returns how many games were played (fewer when one asked a choice:
    :data:`UNSUPPORTED_CHOICE` in its turns)."""
    n = prm[_N]
    mt = pyrandom.new_generator()
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    deck = np.zeros(54, dtype=np.int64)
    facts = np.zeros(2 * MAX_PLAYERS, dtype=np.int64)
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    policy = np.zeros(1)  # (no model here reads the playout policy's parameters)
    for g in range(seeds.shape[0]):
        pyrandom.seed(mt, seeds[g])
        st = _start(prm, carry, mt, first_game + g, hands, deck, facts)
        for i in range(n):
            seats[g, i] = carry[_SEATS + i]
        last_revolted = False
        count = 0
        while st[OVER] == 0:
            if choice_pending(st):
                turns[g] = UNSUPPORTED_CHOICE
                return g
            p = st[TURN]
            i = model_move(models[p], st, p, read_order(st, last_revolted), policy, bufc,
                           bufi)
            count += 1
            if i < 0:
                apply_pass(st)
                last_revolted = False
            else:
                cards, info = bufc[i], bufi[i]
                apply_play(st, cards, info)
                last_revolted = revolted_field(st, cards, info)
        _finish(st, mt, n)
        for p in range(n):
            place = place_of(st, p)
            places[g, p] = place
            carry[_CLASSES + p] = place
        turns[g] = count
    return seeds.shape[0]


@dataclass
class NumbaMatchResult:
    """Every game's places (0 = first) and turn count, and the points."""

    places: np.ndarray  # games x players
    turns: np.ndarray  # games
    seats: np.ndarray  # games x players: the player in each seat
    points: np.ndarray  # games x players: each game's points
    totals: np.ndarray  # players: the match's points


def check_numba_match(rules: RuleSet, bots: Sequence[str]) -> np.ndarray:
    """The models of ``bots`` (:class:`NumbaMatchError` if the match cannot be played)."""
    gaps = numba_gaps(rules)
    if gaps:
        raise NumbaMatchError(f"the Numba engine does not play these rules as the engine "
                              f"does: {', '.join(gaps)}")
    if len(bots) != rules.players:
        raise NumbaMatchError(f"{rules.players} bots needed, got {len(bots)}")
    missing = sorted({b for b in bots if b not in MODELS})
    if missing:
        raise NumbaMatchError(f"no Numba model plays exactly as {', '.join(missing)} "
                              f"(those with one: {', '.join(sorted(MODELS))})")
    return np.array([MODELS[b] for b in bots], dtype=np.int64)


def play_numba_match(rules: RuleSet, seed: int, games: int, bots: Sequence[str],
                     chunk: int = CHUNK) -> NumbaMatchResult:
    """The match ``MatchState(rules, seed, games)`` between ``bots`` (names, one per player
    number), played on the Numba simulator."""
    models = check_numba_match(rules, bots)
    n = rules.players
    prm = _params(rules)
    carry = np.full(_CARRY, -1, dtype=np.int64)
    carry[_SEATS:_SEATS + n] = np.arange(n)
    places = np.zeros((games, n), dtype=np.int8)
    turns = np.zeros(games, dtype=np.int32)
    seats = np.zeros((games, n), dtype=np.int8)
    done = 0
    while done < games:
        count = min(chunk, games - done)
        seeds = game_seeds(seed, done + 1, count)
        played = play_games(prm, models, seeds, done + 1, carry, places[done:done + count],
                            turns[done:done + count], seats[done:done + count])
        if played < count:
            raise NumbaMatchError(f"game {done + played + 1} asked a choice the Numba "
                                  f"engine does not model")
        done += count
    table = np.array([rules.points_for_place(place) for place in range(n)], dtype=np.int64)
    points = table[places]
    return NumbaMatchResult(places, turns, seats, points, points.sum(axis=0))


__all__ = ["MODELS", "MODEL_POLICY", "MODEL_SAMPLE", "MODEL_UNIFORM", "MODEL_WEAKEST",
           "NumbaMatchError", "NumbaMatchResult", "check_numba_match", "default_choice",
           "game_seeds", "model_move", "numba_gaps", "play_games", "play_numba_match",
           "read_order", "revolted_field"]
