"""mc at card-scoring tables (thirteenth_floor): the playout's value mixes the card score
with the place and with going out first, as the policy parameters say; the role-card term of
the playout policy; the table's own settings under the bot's options.

The finished games come from the reference engine: the value is checked against its
finishing order and its card scores, not against the simulator's own.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from daihinmin.players.mc import state as S
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.convert import encode_move, state_from_game
from daihinmin.players.mc.endgame import SolverScratch
from daihinmin.players.mc.models import MODEL_POLICY
from daihinmin.players.mc.playout import card_value, playout
from daihinmin.players.mc.rollout import (
    BUFFER,
    DEFAULT_PARAMS,
    PARAM_NAMES,
    best_play,
    policy_params,
    policy_plays,
)
from daihinmin.players.mc.rulebits import rules_word
from daihinmin.players.mc.table_policy import CARD_RACE_POLICY, table_policy
from daihinmin.research.mc_strength import main as mc_strength_main
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA, WEB
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

MIXES = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.5, 0.0), (0.25, 0.5)]


def engine_game_end(seed: int) -> tuple[GameState, Move, GameState]:
    """A thirteenth_floor game played at random: the position before its last move, that
    move, and the engine's finished game."""
    rng = random.Random(seed)
    game = MatchState(THIRTEENTH_FLOOR, seed=seed, games=1).setup_game().start()
    while True:
        move = rng.choice(game.legal_moves())
        after = game.copy()
        after.step(move)
        if after.over:
            return game, move, after
        game = after


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_card_value_follows_the_engines_places_and_scores(seed: int) -> None:
    """For every player of a finished game and every mix: (1 - place - first) x the score's
    value + place x (players - place) + first x (players if out first, else 1), within
    1..players; and a playout of the finished game returns exactly that."""
    before, move, ref = engine_game_end(seed)
    sim = state_from_game(before)
    S.apply_move(sim, *encode_move(move))
    assert sim[S.OVER] == 1
    n = ref.n_players
    order = ref.finished + ref.bottom[::-1]  # a forbidden finish drops its player to the end
    assert sorted(range(n), key=lambda p: S.place_of(sim, p)) == order
    assert sorted(S.place_of(sim, p) for p in range(n)) == list(range(n))
    models = np.full(S.MAX_PLAYERS, MODEL_POLICY, dtype=np.int64)
    bufc = np.zeros(BUFFER, dtype=np.int64)
    bufi = np.zeros(BUFFER, dtype=np.int64)
    solver = SolverScratch().arrays()
    for place, first in MIXES:
        prm = policy_params(place=place, first=first)
        for p in range(n):
            k = order.index(p)
            want = ((1 - place - first) * S.score_value(sim, p) + place * (n - k)
                    + first * (n if k == 0 else 1))
            got = card_value(sim, p, prm)
            assert got == pytest.approx(want), (place, first, p)
            assert 1.0 - 1e-9 <= got <= n + 1e-9
            assert playout(sim.copy(), p, models, prm, bufc, bufi, solver) == pytest.approx(want)


def lead_choice(hand: str, rules_bits: int, **policy: float) -> str:
    """The noise-free policy's lead from ``hand`` (seat 0 of four, the others one card)."""
    hands = np.array([CardSet.parse(h).mask for h in (hand, "C4", "C6", "C7")], dtype=np.int64)
    sim = S.new_state(hands, np.arange(4, dtype=np.int64), 0, False, rules_bits)
    bufc = np.zeros(BUFFER, dtype=np.int64)
    bufi = np.zeros(BUFFER, dtype=np.int64)
    n = policy_plays(sim, 0, bufc, bufi)
    i = best_play(sim, 0, policy_params(**policy), bufc, bufi, n, 0.0)
    return str(CardSet(int(bufc[i])))


def test_role_term_sheds_role_cards_only_where_they_cannot_finish() -> None:
    """With ``role`` the policy leads a 5 before a weaker 4 at thirteenth_floor (a role card
    may never be the last play); at uecda, and with ``role=0``, it leads the 4."""
    floor, uecda = rules_word(THIRTEENTH_FLOOR), rules_word(UECDA)
    assert lead_choice("H4 S5 DT CJ", floor) == "H4"
    assert lead_choice("H4 S5 DT CJ", floor, role=4.0) == "S5"
    assert lead_choice("H4 S5 DT CJ", uecda, role=4.0) == "H4"
    assert lead_choice("H4 S9 S8 DT CJ", floor, role=6.0) == "S8"  # the weakest role card


def test_table_settings_sit_under_the_bots_own_options() -> None:
    """The table's settings (table_policy) apply at card-race tables only, and a ``policy``
    option given to the bot wins over them."""
    assert table_policy(UECDA) == {} and table_policy(WEB) == {}
    assert table_policy(THIRTEENTH_FLOOR) == CARD_RACE_POLICY
    bot = MCBot(time_ms=0, playouts=16, seed=1, warm=False)
    bot._use_rules(UECDA)
    assert np.array_equal(bot.prm, DEFAULT_PARAMS)
    bot._use_rules(THIRTEENTH_FLOOR)
    assert np.array_equal(bot.prm, policy_params(**CARD_RACE_POLICY))
    assert CARD_RACE_POLICY  # (else the next lines test nothing)
    mine = {name: value + 1.0 for name, value in CARD_RACE_POLICY.items()}
    bot = MCBot(time_ms=0, playouts=16, seed=1, warm=False, policy=mine)
    bot._use_rules(THIRTEENTH_FLOOR)
    for name, value in mine.items():
        assert bot.prm[PARAM_NAMES.index(name)] == value


def test_mc_strength_refuses_an_unknown_policy_parameter(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    with pytest.raises(SystemExit) as exc:
        mc_strength_main(["--games", "1", "--policy", "plaec=1"])
    assert exc.value.code == 2
    assert "unknown parameter 'plaec'" in capsys.readouterr().err
