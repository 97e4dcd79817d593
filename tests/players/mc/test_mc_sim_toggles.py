"""Differential tests of the engine's other toggles in the mc simulator.

geki-shibari (a locked trick that goes up one rank at a time), the joker that answers a
joker, the 6-reverse, the ambulance (two 9s beat anything and clear), revolutions off and
runs off: each alone and mixed with a preset, held against the reference engine (the same
legal plays and pass rule, the same next state after every tried move, every position of
two- and three-game matches), the control checks and the two-player solver included.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np
import pytest
from daihinmin.players.mc import plays
from daihinmin.players.mc import state as S
from daihinmin.players.mc.bot import MAX_CHOICE_CANDIDATES, choice_candidates
from daihinmin.players.mc.convert import encode_move, state_from_game
from daihinmin.players.mc.observe import simulator_gaps
from daihinmin.players.mc.rollout import choice_cards
from daihinmin.rules.choices import ChoiceKind
from daihinmin.rules.deal import weakest
from daihinmin.rules.events import Event, EventKind
from daihinmin.rules.game import GameState
from daihinmin.rules.plays import revolts
from daihinmin.rules.ruleset import (
    APP,
    UECDA,
    WEB,
    ForbiddenFinish,
    Scoring,
    SequenceOrder,
    ruleset_from,
)
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import LONE_JOKER, Move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mc_sim import PLAYER_COUNTS, play_whole_game, table_rules
from test_mc_sim import check_position as plays_match_engine
from test_mc_sim_floor import (
    EFFECT_CARDS,
    FLOOR_TOGGLES,
    check_solver,
    check_unbeatable,
    floor_positions,
    play_checked_match,
)
from test_mc_sim_original import check_pass, preset_toggles

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

NEW = {"geki_shibari": True, "joker_beats_joker": True, "six_reverse": True,
       "ambulance": True}
#: Each toggle alone, and mixed with the presets' rules where it changes something there.
TOGGLES: dict[str, dict[str, object]] = {
    "geki_shibari": {"geki_shibari": True},
    "geki_shibari_above_low": {"geki_shibari": True,
                               "sequence_order": SequenceOrder.ABOVE_LOW},
    "joker_beats_joker": {"joker_beats_joker": True},
    "joker_beats_joker_no_spade3": {"joker_beats_joker": True, "spade3_return": False},
    "six_reverse": {"six_reverse": True},
    "six_and_nine_reverse": {"six_reverse": True, "nine_reverse": True,
                             "effects_per_card": True},
    "ambulance": {"ambulance": True},
    "ambulance_no_joker_effects": {"ambulance": True, "joker_effects": False},
    "ambulance_sandstorm": {"ambulance": True, "sandstorm": True, "ambulance_clears": True},
    "no_revolution": {"revolution": False},
    "no_sequences": {"sequences": False},
    "web_with_all": {**preset_toggles(WEB), **NEW},
    "app_with_all": {**preset_toggles(APP), **NEW, "revolution": False},
    "floor_with_all": {**FLOOR_TOGGLES["floor_effects"], **NEW},
    "seven_pass": {"seven_pass": True},
    "ten_discard": {"ten_discard": True},
    "seven_and_ten": {"seven_pass": True, "ten_discard": True},
    "seven_and_ten_no_joker_effects": {"seven_pass": True, "ten_discard": True,
                                       "joker_effects": False},
    "app_with_choices": {**preset_toggles(APP), "seven_pass": True, "ten_discard": True},
    "floor_with_choices": {**FLOOR_TOGGLES["floor_effects"], "seven_pass": True,
                           "ten_discard": True, "six_reverse": True},
    # the limits of the rules word's numeric fields, each value mixed with what it touches
    "next_low_runs_of_2": {"sequence_order": SequenceOrder.NEXT_LOW, "sequence_min": 2,
                           "geki_shibari": True},
    "runs_of_4_all_revolt": {"sequence_min": 4, "double_stairs": True,
                             "revolution_sequence_min": 3,
                             "sequence_order": SequenceOrder.ABOVE_LOW},
    "runs_of_5_never_revolt": {"sequence_min": 5, "revolution_sequence_min": 16,
                               "forbidden_finish": ForbiddenFinish.REJECT,
                               "double_stairs": True,
                               "sequence_order": SequenceOrder.NEXT_LOW},
    "groups_of_3": {"group_max": 3, "revolution_group_min": 3, "sandstorm": True,
                    "ambulance": True},
    "revolution_at_5": {"revolution_group_min": 5, "forbidden_finish": ForbiddenFinish.LAST},
    "groups_never_revolt": {"revolution_group_min": 6, "revolution_joker_counts": False,
                            "forbidden_finish": ForbiddenFinish.REJECT},
    "uno": {**FLOOR_TOGGLES["floor_effects"], "scoring": Scoring.UNO},
    "no_jokers": {"jokers": 0, "revolution_group_min": 3},
}
#: The joker answering a joker needs the second one.
TWO_JOKERS_ONLY = {"joker_beats_joker", "joker_beats_joker_no_spade3", "web_with_all",
                   "app_with_all", "app_with_choices"}
#: The rule sets without jokers.
NO_JOKERS = {"no_jokers"}
#: 6s, 7s, 9s and the jokers first when a position deals the rich cards first.
TOGGLE_CARDS = [4 * r + s for r in (4, 7) for s in range(4)] + [60, 61]


def check_position(game: GameState, moves_to_try: int, rng: random.Random) -> None:
    """Same legal plays (canonical lists too), and the same next state after the tried
    moves, a choice the move asks included (:func:`check_choice`); when the game ends, the
    same place for everyone (forbidden finishes included)."""
    if game.pending is not None:
        check_choice(game, moves_to_try, rng)
        return
    plays_match_engine(game, 0, rng)
    moves = game.legal_moves()
    for move in rng.sample(moves, min(moves_to_try, len(moves))):
        check_move(game, move, 3, rng)


def check_move(game: GameState, move: Move, choice_tries: int, rng: random.Random) -> None:
    """The same next state after ``move`` (and after ``choice_tries`` answers to a choice
    it asks)."""
    sim = state_from_game(game)
    S.apply_move(sim, *encode_move(move))
    ref = game.copy()
    result = ref.step(move)
    check_same(game, sim, ref, result.events, str(move))
    if ref.pending is not None:
        check_choice(ref, choice_tries, rng)


def check_same(game: GameState, sim: np.ndarray, ref: GameState, events: tuple[Event, ...],
               what: str) -> None:
    """The simulator's state ``sim`` after an action from ``game`` is the engine's ``ref``
    (a game over: the same places; after the pass limit only those not drawn at random)."""
    if not ref.over:
        expected = state_from_game(ref)
        assert list(sim) == list(expected), f"after {what}: {list(sim)} != {list(expected)}"
        return
    assert sim[S.OVER] == 1
    if ref.scores is not None:  # card (or uno) scoring
        assert [S.card_score(sim, p) for p in range(game.n_players)] == list(ref.scores)
    places = [int(S.place_of(sim, p)) for p in range(game.n_players)]
    if any(e.kind is EventKind.PASS_LIMIT for e in events):
        for p in range(game.n_players):  # the others' places are drawn at random
            if p in game.finished or p in game.bottom:
                assert places[p] == ref.places()[p]
    else:
        assert places == ref.places(), f"after {what}"


def check_choice(game: GameState, tries: int, rng: random.Random) -> None:
    """A pending 7-pass or 10-discard choice: the simulator asks the same (how many cards,
    to whom), its playout policy answers as the default bot does (the weakest cards, a valid
    answer), and every tried answer leads to the same next state."""
    choice = game.pending
    assert choice is not None
    sim = state_from_game(game)
    assert S.choice_pending(sim) and S.choice_count(sim) == choice.count
    if choice.kind is ChoiceKind.GIVE:
        assert sim[S.GIVE_TO] == choice.receiver and sim[S.TURN] == choice.player
    hand = game.hands[choice.player]
    options = game.legal_choices()
    default = weakest(hand, min(choice.count, len(hand)), game.revolution != game.eleven_back)
    assert choice_cards(sim, choice.player) == default.mask and default in options
    for cards in [*rng.sample(options, min(tries, len(options))), default]:
        sim = state_from_game(game)
        S.apply_choice(sim, cards.mask)
        ref = game.copy()
        result = ref.step_choice(cards)
        check_same(game, sim, ref, result.events, f"the choice {cards}")


@st.composite
def toggle_positions(draw: st.DrawFn, players: int, jokers: int,
                     toggles: dict[str, object]) -> GameState:
    """floor_positions' arbitrary positions, with a geki-shibari on a locked field and a
    turned direction of play where the toggles can make them."""
    game = draw(floor_positions(players, jokers, toggles))
    if game.rules.geki_shibari and game.lock:
        game.geki = draw(st.booleans(), label="geki")
        if draw(st.booleans(), label="next step held"):
            _hand_the_next_step(game)
    if game.rules.six_reverse:
        game.direction = draw(st.sampled_from([1, -1]), label="direction")
    if (game.rules.joker_beats_joker and game.hands[game.turn].jokers == 1
            and draw(st.booleans(), label="on the other joker")):
        _lone_joker_on_the_field(game)
    if game.field is None and draw(st.booleans(), label="four of a rank held"):
        _hand_four_of_a_rank(game, draw(st.integers(1, 13), label="rank"))
    return game


#: Rules under which every play that could revolt does.
ANY_REVOLUTION = UECDA.with_rules(revolution_group_min=3, revolution_sequence_min=4)


def _hand_four_of_a_rank(game: GameState, rank: int) -> None:
    """Give the leader the four cards of ``rank`` (from whoever holds them), so that groups
    of every size up to a revolution's are there to lead."""
    four = CardSet.of([4 * rank + s for s in range(4)])
    if any(game.hands[p] and not game.hands[p] - four for p in range(game.n_players)):
        return  # nobody still in the game is left without cards
    for p in range(game.n_players):
        if game.hands[p]:
            game.hands[p] = game.hands[p] - four
    game.hands[game.turn] = game.hands[game.turn] | four


def check_revolutions(game: GameState, rng: random.Random) -> None:
    """Every legal play that would revolt if the revolution rules allowed any (groups of 3+
    cards, runs of 4+): the same next state (or end) as the engine's."""
    for move in game.legal_plays():
        if move.kind.name != "JOKER" and (revolts(move, ANY_REVOLUTION)
                                          or revolts(move, game.rules)):
            check_move(game, move, 1, rng)


def _lone_joker_on_the_field(game: GameState) -> None:
    """Make the field the other joker (taken from whoever else holds it), which the mover's
    joker may answer."""
    joker = CardSet.of([60])
    others = [p for p in range(game.n_players) if p != game.turn and game.hands[p].jokers]
    if any(not game.hands[p] - joker for p in others):
        return  # nobody still in the game is left without cards
    for p in others:
        game.hands[p] = game.hands[p] - joker
    game.field, game.lock, game.geki = LONE_JOKER, False, False


def _hand_the_next_step(game: GameState) -> None:
    """Give the player to move the cards one rank above the locked single or group in its
    suits (from whoever holds them), so the plays that start or keep a geki-shibari are there."""
    field = game.field
    if field is None or field.kind.name not in ("SINGLE", "GROUP") or not field.cards:
        return
    rank = field.low + (-1 if game.revolution else 1)
    if not 1 <= rank <= 13:
        return
    step = CardSet.of([4 * rank + s for s in range(4) if field.suits >> s & 1])
    if any(game.hands[p] and not game.hands[p] - step for p in range(game.n_players)):
        return  # nobody still in the game is left without cards
    for p in range(game.n_players):
        game.hands[p] = game.hands[p] - step
    game.hands[game.turn] = game.hands[game.turn] | step


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_each_toggle_matches_engine_in_arbitrary_positions(toggle: str, data: st.DataObject,
                                                           seed: int) -> None:
    """3-6 players, one or two jokers: the same legal plays, pass rule and next states."""
    players = data.draw(st.sampled_from(PLAYER_COUNTS), label="players")
    jokers = 2 if toggle in TWO_JOKERS_ONLY else data.draw(st.sampled_from([1, 2]))
    jokers = 0 if toggle in NO_JOKERS else jokers
    game = data.draw(toggle_positions(players, jokers, TOGGLES[toggle]), label="position")
    check_position(game, 8, random.Random(seed))
    check_revolutions(game, random.Random(seed))
    check_pass(game)


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data(),
       players=st.sampled_from(PLAYER_COUNTS), games=st.sampled_from([2, 3]))
def test_each_toggle_matches_engine_in_whole_matches(toggle: str, seed: int,
                                                     data: st.DataObject, players: int,
                                                     games: int) -> None:
    """Two- and three-game matches at 3-6 players with both jokers: every position agrees,
    and every pending choice (answered by hypothesis)."""
    play_whole_game(table_rules(players, 2, False, TOGGLES[toggle]), seed, data, games,
                    check_position)


def _game(rules_toggles: Mapping[str, object], hands: list[str], field: str | None, *,
          lock: bool = False, geki: bool = False, revolution: bool = False) -> GameState:
    rules = table_rules(4, 2, False, dict(rules_toggles))
    return GameState(rules=rules, hands=[CardSet.parse(h) for h in hands], seats=(0, 1, 2, 3),
                     turn=0, rng=random.Random(0), field=Move.parse(field) if field else None,
                     owner=1 if field else 0, lock=lock, geki=geki, revolution=revolution)


NEXT_LOW: dict[str, object] = {"sequence_order": SequenceOrder.NEXT_LOW}


def test_hand_picked_toggle_positions_match_engine() -> None:
    """Hand-picked: a locked single answered one rank up (geki on) and then only one rank
    up; a locked run under both orders; the second joker on the first; two 9s over a lone
    joker and over a locked run; a 6 turning the direction; 7s and 10s asking to give and
    discard (going out by them, the joker standing as a 7, an 8-cut waiting on them); runs
    answered only from the next low rank; runs of two led (two jokers are no run); groups
    of at most three; revolutions of five and of three."""
    geki = {"geki_shibari": True}
    choices = {"seven_pass": True, "ten_discard": True, "five_skip": True}
    cases: list[tuple[Mapping[str, object], list[str], str | None, bool, bool]] = [
        (geki, ["S6 S7 H6 JK", "S9", "D4", "C5"], "S5", True, False),
        (geki, ["S6 S7 H6 JK", "S9", "D4", "C5"], "S5", True, True),
        (geki, ["S8 S9 ST SJ H9 JK", "S2", "D4", "C5"], "S5 S6 S7", True, False),
        (geki, ["S8 S9 ST SJ H9 JK", "S2", "D4", "C5"], "SJ SQ SK", True, True),
        ({"joker_beats_joker": True}, ["JK S3 H4", "S9", "D4", "C5"], "JK", False, False),
        ({"ambulance": True}, ["S9 H9 JK D3", "S2", "D4", "C5"], "JK", False, False),
        ({"ambulance": True}, ["S9 H9 JK D3", "S2", "D4", "C5"], "D5 D6 D7", True, False),
        ({"six_reverse": True}, ["S6 H6 D7 C7", "S2", "D4", "C5"], "S5 H5", False, False),
        ({"revolution": False}, ["S4 H4 D4 C4 S5 S6 S7 S8", "S2", "D3", "C5"], None, False,
         False),
        ({"revolution": False}, ["S6 H6 D6 JK S7 S8", "S2", "D3", "C5"], "S5 H5 D5", False,
         False),
        ({"sequences": False}, ["S4 S5 S6 S7 H4", "S2", "D3", "C5"], None, False, False),
        (choices, ["S7 H7 ST HT S3 JK", "S2", "D4", "C5"], "S5 H5", False, False),
        (choices, ["S7 S8 S9 ST D3", "S2", "D4", "C5"], None, False, False),
        (choices, ["S7 H7 JK", "S2", "D4", "C5"], "S5 H5", False, False),
        (choices, ["C7 CT", "S2", "D4", "C5"], None, False, False),
        (NEXT_LOW, ["H5 H6 H7 D6 D7 D8 C5 C7 JK", "S2", "D4", "C3"], "S4 S5 S6", False,
         False),
        (NEXT_LOW, ["H5 H6 H7 D6 D7 D8 C5 C7 JK", "S2", "D4", "C3"], "S4 S5 S6", True,
         False),
        ({"sequence_min": 2}, ["S5 S6 H5 H9 HT JK JK", "S2", "D4", "C3"], None, False, False),
        ({"group_max": 3, "sandstorm": True}, ["S3 H3 D3 C3 S7 H7 D7 JK", "S2", "D4", "C5"],
         None, False, False),
        ({"revolution_group_min": 5}, ["S6 H6 D6 C6 JK S8", "S2", "D3", "C5"], None, False,
         False),
        ({"revolution_group_min": 3}, ["S6 H6 D6 S8", "S2", "D3", "C5"], None, False, False),
    ]
    for toggles, hands, field, lock, geki_on in cases:
        for rev in (False, True):
            game = _game(toggles, hands, field, lock=lock, geki=geki_on, revolution=rev)
            check_position(game, 99, random.Random(0))
            check_pass(game)


def test_geki_binds_the_ranks_as_the_engine_does() -> None:
    """A locked ♠5 answered by ♠6 starts the geki-shibari: then only the ♠7 answers."""
    game = _game({"geki_shibari": True}, ["S6 S8", "S7 S9 H7", "D4", "C5"], "S5", lock=True)
    game.step(Move.parse("S6"))
    assert game.geki and game.turn == 1
    sim = state_from_game(game)
    assert sim[S.LOCK] == plays.LOCKED | plays.GEKI
    assert [str(m) for m in game.legal_plays()] == ["S7"]
    check_position(game, 99, random.Random(0))


RICH_RULES = table_rules(4, 2, False, {"ambulance": True, "joker_beats_joker": True,
                                       "six_reverse": True, "sandstorm": True})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rev=st.booleans())
def test_unbeatable_matches_the_engine_with_the_toggles(data: st.DataObject,
                                                        rev: bool) -> None:
    """A play is unbeatable exactly when no other player has a legal answer (two 9s and
    the other joker answer a lone joker too) or it clears at once (two 9s clear)."""
    check_unbeatable(RICH_RULES, EFFECT_CARDS + [c for c in TOGGLE_CARDS
                                                 if c not in EFFECT_CARDS], data, rev)


LIMIT_RULES = table_rules(4, 2, False, {"sequence_order": SequenceOrder.NEXT_LOW,
                                        "sequence_min": 2, "group_max": 3,
                                        "double_stairs": True})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rev=st.booleans())
def test_unbeatable_matches_the_engine_at_the_limits(data: st.DataObject, rev: bool) -> None:
    """Runs of two answered only from the next low rank, groups of at most three."""
    check_unbeatable(LIMIT_RULES, TOGGLE_CARDS, data, rev)


@pytest.mark.parametrize("toggle", ["geki_shibari", "joker_beats_joker", "six_reverse",
                                    "ambulance", "no_sequences", "floor_with_all",
                                    "next_low_runs_of_2", "groups_of_3"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_two_player_solver_agrees_with_brute_force_with_the_toggles(
        toggle: str, data: st.DataObject) -> None:
    check_solver(TOGGLES[toggle], data)


def test_the_toggles_leave_the_gaps() -> None:
    for name, value in (("geki_shibari", True), ("joker_beats_joker", True),
                        ("six_reverse", True), ("ambulance", True), ("revolution", False),
                        ("sequences", False), ("seven_pass", True), ("ten_discard", True)):
        assert simulator_gaps(UECDA.with_rules(**{name: value})) == [], name
    for toggles in TOGGLES.values():
        assert simulator_gaps(table_rules(4, 2, False, toggles)) == []


def test_mc_searches_and_plays_legally_under_the_toggles() -> None:
    """A match with every toggle on, with default bots: mc searches every decision with the
    simulator (no stand-in move) and every play is legal."""
    rules = ruleset_from("uecda", ["players=4", "jokers=2", "points=", "geki_shibari=yes",
                                   "joker_beats_joker=yes", "six_reverse=yes",
                                   "ambulance=yes", "nine_reverse=yes", "seven_pass=yes",
                                   "ten_discard=yes"])
    bot = play_checked_match(rules)
    assert any(d.kind == "choice" and d.playouts > 0 for d in bot.decisions)


@pytest.mark.parametrize("points", [(10, 5, 3, 1, 0), (0, 1, 3, 6, 10), (5, 4, 3, 2, 1),
                                    (10, 8, 6, 4, 2)])
def test_playouts_are_worth_the_places_points(points: tuple[int, ...]) -> None:
    """A playout's value (state.place_value) is the place's points mapped linearly onto
    1..players (evenly spaced points: players - place, as before)."""
    rules = table_rules(5, 1, True, {"points": points})
    game = GameState(rules=rules, hands=[CardSet.parse("S3")] * 5, seats=tuple(range(5)),
                     turn=0, rng=random.Random(0))
    sim = state_from_game(game)
    values = [S.place_value(sim, place) for place in range(5)]
    if points in ((5, 4, 3, 2, 1), (10, 8, 6, 4, 2)):
        assert values == [5.0, 4.0, 3.0, 2.0, 1.0]
        return
    low, high = min(points), max(points)
    assert values == pytest.approx([1 + 4 * (p - low) / (high - low) for p in points], abs=1e-5)


def test_mc_searches_and_plays_legally_at_the_limits() -> None:
    """A match at runs of two answered from the next low rank, groups of at most three,
    revolutions of three, uneven points and three cards handed up in the exchange, the
    jokers exempt: mc searches every decision (the exchange too) and plays legally."""
    rules = ruleset_from("uecda", ["players=4", "jokers=2", "points=10,4,1,0",
                                   "sequence_min=2", "sequence_order=next_low", "group_max=3",
                                   "revolution_group_min=3", "exchange_counts=3,1",
                                   "joker_exchange_exempt=yes"])
    bot = play_checked_match(rules)
    assert any(d.kind == "exchange" and d.playouts > 0 for d in bot.decisions)


def test_choice_candidates_are_the_sets_of_as_many_cards_as_allowed() -> None:
    hand = CardSet.parse("S3 H4 D5 C6 S7 H8 D9 CT SJ HQ DK C2 JK")
    got = choice_candidates(hand, 2, False)
    assert len(got) == len(set(got)) <= MAX_CHOICE_CANDIDATES
    assert all(len(c) == 2 and c <= hand for c in got)
    assert got[0] == weakest(hand, 2)  # the weakest first
    assert choice_candidates(CardSet.parse("S3 JK"), 3, False) == [CardSet.parse("S3 JK")]
    assert choice_candidates(hand, 2, True)[0] == CardSet.parse("C2 DK")
