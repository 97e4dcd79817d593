"""Differential tests: the mc simulator against the rules engine at the ``original`` preset.

Each rule of the preset the rules word plays (players.mc.rulebits) alone, then the whole
preset: the same legal plays and next states in arbitrary positions and whole matches.
The rules ``app`` shares (``group_max=4``, ``sequence_order=above_low``) are here too.
"""

from __future__ import annotations

import random
from dataclasses import fields

import numpy as np
import pytest
from daihinmin.contract.view import GameView, Observed
from daihinmin.players.default_bot import DefaultBot, order_when_field_was_read
from daihinmin.players.mc import state as S
from daihinmin.players.mc.control import (
    finishes_in_one,
    is_one_play,
)
from daihinmin.players.mc.convert import decode_move, hand_mask, state_from_game
from daihinmin.players.mc.models import pass_option, sample_choice_read
from daihinmin.players.mc.movegen import generate
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.players.mc.observe import knowledge_from_view, simulator_gaps
from daihinmin.players.mc.rollout import BUFFER
from daihinmin.rules.forbidden import is_forbidden_finish
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import (
    APP,
    ORIGINAL,
    UECDA,
    FirstLead,
    ForbiddenFinish,
    ForbiddenPlays,
    RuleSet,
    SequenceOrder,
)
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_mc_sim import DECK2, PLAYER_COUNTS, check_position, play_whole_game, positions

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

#: Fields of the rules, with their values, that are not about the table's size.
_TABLE = frozenset({"name", "players", "min_players", "max_players", "jokers",
                    "owner_answers", "points"})


def preset_toggles(preset: RuleSet) -> dict[str, object]:
    """Every play-rule field where ``preset`` differs from uecda."""
    return {f.name: getattr(preset, f.name) for f in fields(preset)
            if f.name not in _TABLE and getattr(preset, f.name) != getattr(UECDA, f.name)}


#: Each rule original (and app) sets that the rules word plays: alone, and the preset.
TOGGLES: dict[str, dict[str, object]] = {
    "group_max_4": {"group_max": 4},
    "sequence_above_low": {"sequence_order": SequenceOrder.ABOVE_LOW},
    "sequence_above_low_revolt_at_4": {"sequence_order": SequenceOrder.ABOVE_LOW,
                                       "revolution_sequence_min": 4},
    "no_eight_cut": {"eight_cut": False},
    "no_lock": {"lock": False},
    "no_spade3_return": {"spade3_return": False},
    "reject_top_play": {"forbidden_finish": ForbiddenFinish.REJECT,
                        "forbidden_plays": ForbiddenPlays.TOP_PLAY},
    "reject_standard": {"forbidden_finish": ForbiddenFinish.REJECT},
    "reject_web": {"forbidden_finish": ForbiddenFinish.REJECT,
                   "forbidden_plays": ForbiddenPlays.WEB},
    "reject_app": {"forbidden_finish": ForbiddenFinish.REJECT,
                   "forbidden_plays": ForbiddenPlays.APP},
    "original": preset_toggles(ORIGINAL),
}


def check_pass(game: GameState) -> None:
    """The simulator lets the player to move pass exactly when the engine does."""
    sim = state_from_game(game)
    oc = np.zeros(MAX_MOVES, dtype=np.int64)
    oi = np.zeros(MAX_MOVES, dtype=np.int64)
    n = generate(sim[game.turn], sim[S.FIELD_INFO], sim[S.REV], sim[S.LOCK], False, oc, oi,
                 sim[S.RULES])
    assert bool(pass_option(sim, n)) == (PASS in game.legal_moves())


def check_rule_in_a_position(toggles: dict[str, object], data: st.DataObject, seed: int,
                             jokers: int = 0) -> None:
    """An arbitrary position at 3-6 players (``jokers``, else one or two) under the uecda
    rules with ``toggles``: the same legal plays, next states and pass rule."""
    players = data.draw(st.sampled_from(PLAYER_COUNTS), label="players")
    jokers = jokers or data.draw(st.sampled_from([1, 2]), label="jokers")
    game = data.draw(positions(players, jokers, toggles), label="position")
    check_position(game, 6, random.Random(seed))
    check_pass(game)


def play_rule_match(toggles: dict[str, object], seed: int, data: st.DataObject) -> None:
    """A three-game match at four players, both jokers, under uecda with ``toggles``."""
    rules = UECDA.with_rules(players=4, jokers=2, owner_answers=False, points=(), **toggles)
    play_whole_game(rules, seed, data, games=3)


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_each_original_rule_matches_engine_in_arbitrary_positions(
        toggle: str, data: st.DataObject, seed: int) -> None:
    """The same legal plays and next states at 3-6 players, one or two jokers."""
    check_rule_in_a_position(TOGGLES[toggle], data, seed)


@pytest.mark.parametrize("toggle", sorted(TOGGLES))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_each_original_rule_matches_engine_in_whole_matches(
        toggle: str, seed: int, data: st.DataObject) -> None:
    """Three-game matches at four players, both jokers: every position agrees."""
    play_rule_match(TOGGLES[toggle], seed, data)


@st.composite
def club3_leads(draw: st.DrawFn, toggles: dict[str, object]) -> GameState:
    """A game's first lead under first_lead=club3: the leader holds the ♣3 and must play
    it (hands of 1-9 cards, so that it may also be the last card)."""
    players = draw(st.sampled_from(PLAYER_COUNTS))
    game = draw(positions(players, draw(st.sampled_from([1, 2])),
                          {**toggles, "first_lead": FirstLead.CLUB3}))
    club3 = CardSet.parse("C3")
    for p in range(players):
        game.hands[p] = game.hands[p] - club3
    game.hands[game.turn] = game.hands[game.turn] | club3
    # a player whose only card was the ♣3 would hold nothing and yet still be in the game
    assume(all(hand or p in game.finished for p, hand in enumerate(game.hands)))
    game.field = None
    game.lock = game.eleven_back = False
    game.lead_must_contain = club3
    return game


@pytest.mark.parametrize("toggle", ["alone", "original"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_club3_first_lead_matches_engine(toggle: str, data: st.DataObject, seed: int) -> None:
    """first_lead=club3: the lead must hold the ♣3 and the leader may not pass; the first
    play lifts it (the word's LEAD_HOLDS_CLUB3, compared as part of the next state)."""
    game = data.draw(club3_leads(TOGGLES["original"] if toggle == "original" else {}))
    check_position(game, 6, random.Random(seed))
    check_pass(game)
    assert state_from_game(game)[S.RULES] & (1 << 40)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_original_matches_match_engine(seed: int, data: st.DataObject) -> None:
    """The original preset itself (six players): three games a match, the ♣3 opening, the
    exchange and the last place's lead included."""
    play_whole_game(ORIGINAL, seed, data, games=3)


def test_original_is_simulated() -> None:
    assert simulator_gaps(ORIGINAL) == []
    assert simulator_gaps(ORIGINAL.with_rules(forbidden_plays=ForbiddenPlays.ROLE_CARDS)) == []


# --- the win check and the unbeatable test ---------------------------------------------------
@pytest.mark.parametrize("rules", [ORIGINAL,
                                   ORIGINAL.with_rules(forbidden_plays=ForbiddenPlays.APP),
                                   ORIGINAL.with_rules(forbidden_finish=ForbiddenFinish.LAST),
                                   ORIGINAL.with_rules(group_max=3, sequence_min=2),
                                   ORIGINAL.with_rules(sequence_min=5)],
                         ids=["original", "reject_app", "last", "groups_of_3_runs_of_2",
                              "runs_of_5"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rev=st.booleans())
def test_finishing_in_one_play_matches_engine(rules: RuleSet, data: st.DataObject,
                                              rev: bool) -> None:
    """The win check's last play: the hand goes out in one lead that is not a forbidden
    finish, exactly when the engine has such a lead (group_max=4 included)."""
    deck = data.draw(st.permutations(DECK2))
    hand = CardSet.of(deck[:data.draw(st.integers(1, 6))])
    if data.draw(st.booleans()):  # often one rank, or one suit
        rank = data.draw(st.integers(1, 13))
        hand = CardSet.of([4 * rank + s for s in range(4)][:data.draw(st.integers(1, 4))]
                          + deck[:data.draw(st.integers(0, 2))])
    check_finishes_in_one(rules, hand, rev)


def check_finishes_in_one(rules: RuleSet, hand: CardSet, rev: bool) -> None:
    """The win check's last play (``finishes_in_one``) against the engine, at three players
    with ``hand`` to lead."""
    game = GameState(rules=rules, hands=[hand, CardSet.parse("CK"), CardSet.parse("HQ")],
                     seats=(0, 1, 2), turn=0, rng=random.Random(0), owner=0, revolution=rev)
    engine = any(len(m.hand_cards()) == len(hand) and not is_forbidden_finish(game, m)
                 for m in game.legal_plays())
    buf_c, buf_i = np.zeros(BUFFER, dtype=np.int64), np.zeros(BUFFER, dtype=np.int64)
    word = state_from_game(game)[S.RULES]
    assert finishes_in_one(hand_mask(hand), word, int(rev), buf_c, buf_i, 0) == engine, str(hand)


def test_one_play_hands_with_groups_of_four() -> None:
    word = state_from_game(GameState(rules=ORIGINAL, hands=[CardSet(0)] * 6,
                                     seats=tuple(range(6)), turn=0,
                                     rng=random.Random(0)))[S.RULES]
    for text, expected in [("S3 H3 D3 C3", True), ("S3 H3 D3 C3 JK", False),
                           ("S3 H3 JK JK", True), ("S3 H3 D3 JK JK", False), ("JK JK", False)]:
        assert is_one_play(hand_mask(CardSet.parse(text)), word) == expected, text
        assert is_one_play(hand_mask(CardSet.parse(text)), 0) == (text != "JK JK"), text


def test_the_club3_holder_is_known_to_lead() -> None:
    """Determinisation: before the first play of a fresh original game, the player to lead
    holds the ♣3 (as the ♦3 holder does at uecda)."""
    hand = CardSet.parse("S4 H5 D6 C7 S8 H9 DT CJ SQ")
    view = GameView(player=0, hand=hand, field=None, turn_player=2, revolution=False,
                    eleven_back=False, lock=False, counts=(9,) * 6, classes=(0,) * 6,
                    seats=tuple(range(6)), rules=ORIGINAL)
    kn = knowledge_from_view(view)
    assert kn.fixed[2] == int(CardSet.parse("C3").mask)
    assert kn.rules_word & (1 << 40)  # the game's start state: the lead must hold the ♣3


@pytest.mark.parametrize("preset", ["app", "original"])
def test_sample_model_plays_like_the_default_bot_at_app_and_original(preset: str) -> None:
    """The model of the ``default`` bot keeps to the table's rules here too: the client's
    move where the rules allow it, else a pass, or the sample lead where the leader may not
    pass (the ♣3 opening)."""
    from daihinmin.bench.mc import sample_positions
    from daihinmin.players.default_bot import DefaultBot
    from daihinmin.players.mc.convert import decode_move
    from daihinmin.players.mc.models import MODEL_SAMPLE, choose_as
    from daihinmin.players.mc.rollout import DEFAULT_PARAMS
    from daihinmin.rules.ruleset import PRESETS
    from test_mc_models import view_state

    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    for view in sample_positions(120, seed=5, rules=PRESETS[preset]):
        expected = DefaultBot().play(view)
        sim = view_state(view)
        if view.field is None and view.lead_must_contain:
            sim[S.RULES] |= 1 << 40  # LEAD_HOLDS_CLUB3
        i = choose_as(MODEL_SAMPLE, sim, view.player, DEFAULT_PARAMS, buf_c, buf_i)
        got = decode_move(buf_c[i], buf_i[i]) if i >= 0 else None
        assert (got if got is not None else "pass") == (expected if not expected.is_pass
                                                        else "pass")


@st.composite
def runs_over_runs(draw: st.DrawFn, toggles: dict[str, object]) -> GameState:
    """A run on the field and the player to move holding runs of one suit (and maybe a
    joker) over the same ranks: where the orders of answering runs differ."""
    game = draw(positions(4, 2, toggles))
    length = draw(st.integers(3, 5))
    field = Move.sequence(draw(st.integers(0, 3)), draw(st.integers(1, 14 - length)), length,
                          ())
    suit, low = draw(st.integers(0, 3)), draw(st.integers(1, 8))
    mine = [4 * r + suit for r in range(low, min(low + draw(st.integers(3, 8)), 14))]
    game.hands[game.turn] = CardSet.of(mine + ([60] if draw(st.booleans()) else []))
    game.field = field
    game.eleven_back = False
    if game.owner == game.turn:
        game.owner = next(p for p in range(4) if p != game.turn)
    return game


@pytest.mark.parametrize("toggle", ["sequence_above_low", "sequence_above_low_revolt_at_4",
                                    "original"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000))
def test_runs_answer_runs_as_the_engine_says(toggle: str, data: st.DataObject,
                                             seed: int) -> None:
    """sequence_order=above_low on purpose-made positions: a run over a run, overlapping
    ranks allowed, in either order."""
    check_position(data.draw(runs_over_runs(TOGGLES[toggle])), 6, random.Random(seed))


#: The sequence orders the simulator plays, alone and in the presets that use them.
SEQUENCE_ORDERS: dict[str, dict[str, object]] = {
    "above_high": {}, "above_low": TOGGLES["sequence_above_low_revolt_at_4"],
    "next_low": {"sequence_order": SequenceOrder.NEXT_LOW, "revolution_sequence_min": 4},
    "original": TOGGLES["original"], "app": preset_toggles(APP),
}


@pytest.mark.parametrize("order", sorted(SEQUENCE_ORDERS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), just_played=st.booleans())
def test_the_sample_model_answers_runs_as_the_default_bot(order: str, data: st.DataObject,
                                                         just_played: bool) -> None:
    """The ``default`` bot's model on a run over a run under each sequence order: the client's
    run where the rules allow it (under above_low a joker-filled run may overlap the field's
    top), else a pass; with the field just played (a revolution read in the old order) or
    not."""
    game = data.draw(runs_over_runs(SEQUENCE_ORDERS[order]))
    p, field = game.turn, game.field
    assert field is not None
    history = (Observed(game.owner, field),) if just_played else ()
    view = GameView(player=p, hand=game.hands[p], field=field, turn_player=p,
                    revolution=game.revolution, eleven_back=False, lock=game.lock,
                    counts=tuple(len(h) for h in game.hands), classes=(0,) * 4,
                    seats=game.seats, my_turn=True, rules=game.rules, history=history,
                    opening=CardSet())
    expected = DefaultBot().play(view)
    buf_c, buf_i = np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64)
    i = sample_choice_read(state_from_game(game), p, int(order_when_field_was_read(view)),
                           buf_c, buf_i)
    got = decode_move(buf_c[i], buf_i[i]) if i >= 0 else PASS
    assert got == expected, (str(view.hand), str(field), view.revolution)
