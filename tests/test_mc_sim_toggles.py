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
from daihinmin.contract.view import GameView
from daihinmin.local.runner import play_local_match
from daihinmin.players.mc import state as S
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.control import THREATS_SIZE, threats, unbeatable
from daihinmin.players.mc.convert import encode_move, state_from_game
from daihinmin.players.mc.endgame import UNKNOWN, SolverScratch, solve_two
from daihinmin.players.mc.observe import simulator_gaps
from daihinmin.players.registry import make_bot
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.plays import (
    RANK_J,
    clears_as_ambulance,
    eight_cuts,
    is_sandstorm,
    rank_count,
)
from daihinmin.rules.ruleset import APP, UECDA, WEB, SequenceOrder, ruleset_from
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mc_endgame import brute_force, deal_by_sizes
from test_mc_sim import DECK2, PLAYER_COUNTS, play_whole_game, table_rules
from test_mc_sim import check_position as plays_match_engine
from test_mc_sim_floor import EFFECT_CARDS, FLOOR_TOGGLES, floor_positions, two_player_endings
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
}
#: The joker answering a joker needs the second one.
TWO_JOKERS_ONLY = {"joker_beats_joker", "joker_beats_joker_no_spade3", "web_with_all",
                   "app_with_all"}
#: 6s, 7s, 9s and the jokers first when a position deals the rich cards first.
TOGGLE_CARDS = [4 * r + s for r in (4, 7) for s in range(4)] + [60, 61]


def check_position(game: GameState, moves_to_try: int, rng: random.Random) -> None:
    """Same legal plays (canonical lists too), and the same next state after the tried
    moves; when the game ends, the same place for everyone (forbidden finishes included)."""
    plays_match_engine(game, 0, rng)
    moves = game.legal_moves()
    for move in rng.sample(moves, min(moves_to_try, len(moves))):
        sim = state_from_game(game)
        S.apply_move(sim, *encode_move(move))
        ref = game.copy()
        result = ref.step(move)
        if not ref.over:
            expected = state_from_game(ref)
            assert list(sim) == list(expected), f"after {move}: {list(sim)} != {list(expected)}"
            continue
        assert sim[S.OVER] == 1
        places = [int(S.place_of(sim, p)) for p in range(game.n_players)]
        if any(e.kind is EventKind.PASS_LIMIT for e in result.events):
            for p in range(game.n_players):  # the others' places are drawn at random
                if p in game.finished or p in game.bottom:
                    assert places[p] == ref.places()[p]
        else:
            assert places == ref.places(), f"after {move}"


@st.composite
def toggle_positions(draw: st.DrawFn, players: int, jokers: int,
                     toggles: dict[str, object]) -> GameState:
    """floor_positions' arbitrary positions, with a geki-shibari on a locked field and a
    turned direction of play where the toggles can make them."""
    game = draw(floor_positions(players, jokers, toggles))
    if game.rules.geki_shibari and game.lock:
        game.geki = draw(st.booleans(), label="geki")
    if game.rules.six_reverse:
        game.direction = draw(st.sampled_from([1, -1]), label="direction")
    return game


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_each_toggle_matches_engine_in_arbitrary_positions(toggle: str, data: st.DataObject,
                                                           seed: int) -> None:
    """3-6 players, one or two jokers: the same legal plays, pass rule and next states."""
    players = data.draw(st.sampled_from(PLAYER_COUNTS), label="players")
    jokers = 2 if toggle in TWO_JOKERS_ONLY else data.draw(st.sampled_from([1, 2]))
    game = data.draw(toggle_positions(players, jokers, TOGGLES[toggle]), label="position")
    check_position(game, 8, random.Random(seed))
    check_pass(game)


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data(),
       players=st.sampled_from(PLAYER_COUNTS), games=st.sampled_from([2, 3]))
def test_each_toggle_matches_engine_in_whole_matches(toggle: str, seed: int,
                                                     data: st.DataObject, players: int,
                                                     games: int) -> None:
    """Two- and three-game matches at 3-6 players with both jokers: every position agrees."""
    play_whole_game(table_rules(players, 2, False, TOGGLES[toggle]), seed, data, games,
                    check_position)


def _game(rules_toggles: Mapping[str, object], hands: list[str], field: str | None, *,
          lock: bool = False, geki: bool = False, revolution: bool = False) -> GameState:
    rules = table_rules(4, 2, False, dict(rules_toggles))
    return GameState(rules=rules, hands=[CardSet.parse(h) for h in hands], seats=(0, 1, 2, 3),
                     turn=0, rng=random.Random(0), field=Move.parse(field) if field else None,
                     owner=1 if field else 0, lock=lock, geki=geki, revolution=revolution)


def test_hand_picked_toggle_positions_match_engine() -> None:
    """Hand-picked: a locked single answered one rank up (geki on) and then only one rank
    up; a locked run under both orders; the second joker on the first; two 9s over a lone
    joker and over a locked run; a 6 turning the direction."""
    geki = {"geki_shibari": True}
    cases = [
        (geki, ["S6 S7 H6 JK", "S9", "D4", "C5"], "S5", True, False),
        (geki, ["S6 S7 H6 JK", "S9", "D4", "C5"], "S5", True, True),
        (geki, ["S8 S9 ST SJ H9 JK", "S2", "D4", "C5"], "S5 S6 S7", True, False),
        (geki, ["S8 S9 ST SJ H9 JK", "S2", "D4", "C5"], "SJ SQ SK", True, True),
        ({"joker_beats_joker": True}, ["JK S3 H4", "S9", "D4", "C5"], "JK", False, False),
        ({"ambulance": True}, ["S9 H9 JK D3", "S2", "D4", "C5"], "JK", False, False),
        ({"ambulance": True}, ["S9 H9 JK D3", "S2", "D4", "C5"], "D5 D6 D7", True, False),
        ({"six_reverse": True}, ["S6 H6 D7 C7", "S2", "D4", "C5"], "S5 H5", False, False),
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
    assert sim[S.LOCK] == S.LOCKED | S.GEKI
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
    rules = RICH_RULES
    n = rules.players
    rich = EFFECT_CARDS + [c for c in TOGGLE_CARDS if c not in EFFECT_CARDS]
    pool = data.draw(st.permutations(rich)) + data.draw(st.permutations(
        [c for c in DECK2 if c not in rich]))
    sizes = data.draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    sizes[0] = max(sizes[0], 1)
    hands = deal_by_sizes(pool, sizes)
    seats = tuple(range(n))
    game = GameState(rules=rules, hands=hands, seats=seats, turn=0, rng=random.Random(0),
                     owner=0, revolution=rev)
    t = np.zeros(THREATS_SIZE, dtype=np.int64)
    threats(state_from_game(game), 0, t)
    for move in all_plays(hands[0], rules):
        cards, info = encode_move(move)
        eleven = rules.eleven_back and rank_count(move, RANK_J, rules) > 0
        answers = any(
            GameState(rules=rules, hands=hands, seats=seats, turn=q, rng=random.Random(0),
                      field=move, owner=0, revolution=rev, eleven_back=eleven).legal_plays()
            for q in range(1, n) if hands[q])
        clears = (eight_cuts(move, rules) or is_sandstorm(move, rules)
                  or clears_as_ambulance(move, rules))
        assert unbeatable(t, cards, info, int(rev)) == (clears or not answers), str(move)


@pytest.mark.parametrize("toggle", ["geki_shibari", "joker_beats_joker", "six_reverse",
                                    "ambulance", "no_sequences", "floor_with_all"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_two_player_solver_agrees_with_brute_force_with_the_toggles(
        toggle: str, data: st.DataObject) -> None:
    toggles = dict(TOGGLES[toggle])
    toggles.pop("end_on_first_out", None)  # two left of four: a race to the third place
    toggles.pop("scoring", None)
    game, me = data.draw(two_player_endings(toggles))
    got = solve_two(state_from_game(game), me, 10**6, SolverScratch().arrays())
    assert got != UNKNOWN
    assert bool(got) == brute_force(game, me)


def test_the_toggles_leave_the_gaps() -> None:
    for name, value in (("geki_shibari", True), ("joker_beats_joker", True),
                        ("six_reverse", True), ("ambulance", True), ("revolution", False),
                        ("sequences", False)):
        assert simulator_gaps(UECDA.with_rules(**{name: value})) == [], name
    for toggles in TOGGLES.values():
        assert simulator_gaps(table_rules(4, 2, False, toggles)) == []


class Checked(MCBot):
    """The mc player, asserting every play is legal."""

    def play(self, view: GameView) -> Move:
        move = super().play(view)
        assert move in view.legal_moves(), (move, view.hand, view.field)
        return move


def test_mc_searches_and_plays_legally_under_the_toggles() -> None:
    """A match with every toggle on, with default bots: mc searches every decision with the
    simulator (no stand-in move) and every play is legal."""
    rules = ruleset_from("uecda", ["players=4", "jokers=2", "points=", "geki_shibari=yes",
                                   "joker_beats_joker=yes", "six_reverse=yes",
                                   "ambulance=yes", "nine_reverse=yes"])
    assert simulator_gaps(rules) == []
    bot = Checked(time_ms=0, playouts=40, seed=3)
    bots = [bot, make_bot("default"), make_bot("default"), make_bot("default")]
    match = play_local_match(rules, seed=21, games=3, bots=bots)
    assert match.game == 4
    assert bot.decisions and all(d.playouts <= 40 for d in bot.decisions)
