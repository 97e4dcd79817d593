"""Opponent models of the mc player: the sample strategy replicated, models learned."""

from __future__ import annotations

import numpy as np
import pytest
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.mc.bench import sample_positions
from daihinmin.players.mc.bot import MCBot, warm_up
from daihinmin.players.mc.convert import decode_move, encode_move, hand_mask
from daihinmin.players.mc.models import (
    MODEL_POLICY,
    MODEL_UNIFORM,
    MODEL_WEAKEST,
    uniform_choice,
    weakest_choice,
)
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.players.mc.state import FIELD_CARDS, FIELD_INFO, LOCK, REV, TURN, new_state
from daihinmin.players.registry import make_bot
from daihinmin.rules.ruleset import UECDA
from daihinmin.tools.local_match import play_local_match


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    warm_up()


def view_state(view) -> np.ndarray:  # type: ignore[no-untyped-def]
    hands = np.zeros(5, dtype=np.int64)
    hands[view.player] = hand_mask(view.hand)
    st = new_state(hands, np.array(view.seats, dtype=np.int64), view.player)
    if view.field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(view.field)
    st[REV], st[LOCK], st[TURN] = int(view.revolution), int(view.lock), view.player
    return st


def test_weakest_model_plays_like_the_default_bot() -> None:
    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    views = sample_positions(120, seed=4)
    for view in views:
        expected = DefaultBot().play(view)
        i = weakest_choice(view_state(view), view.player, buf_c, buf_i)
        got = decode_move(buf_c[i], buf_i[i]) if i >= 0 else None
        if got is None:
            assert expected.is_pass
        else:  # the joker's cell may differ; the cards must not
            assert got.hand_cards() == expected.hand_cards(), (str(view.hand), view.field)


def test_uniform_model_covers_every_legal_move() -> None:
    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    view = sample_positions(1, seed=2)[0]
    st = view_state(view)
    seen = set()
    for _ in range(400):
        i = uniform_choice(st, view.player, buf_c, buf_i)
        seen.add("pass" if i < 0 else str(decode_move(buf_c[i], buf_i[i])))
    assert seen == {str(m) for m in view.legal_moves()}


def test_opponent_models_are_learned_from_finished_games() -> None:
    mc = MCBot(time_ms=0, playouts=32, seed=1)
    bots = [mc, make_bot("default"), make_bot("random", seed=2), make_bot("default"),
            make_bot("random", seed=3)]
    play_local_match(UECDA, seed=9, games=2, bots=bots)
    assert list(mc.models) == [MODEL_POLICY, MODEL_WEAKEST, MODEL_UNIFORM, MODEL_WEAKEST,
                               MODEL_UNIFORM]
    mc.on_match_start(0)
    assert not mc.models.any()
