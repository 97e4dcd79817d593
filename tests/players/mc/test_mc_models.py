"""Opponent models of the mc player: the bundled strategies replicated, models learned."""

from __future__ import annotations

import numpy as np
import pytest
from daihinmin.bench.mc import sample_positions
from daihinmin.contract.view import Bot, GameView
from daihinmin.local.runner import play_local_match
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.mc.bot import MODEL_MARGIN, MCBot
from daihinmin.players.mc.convert import decode_move, encode_move, hand_mask
from daihinmin.players.mc.models import (
    MODEL_POLICY,
    MODEL_SAMPLE,
    MODEL_UNIFORM,
    MODEL_WEAKEST,
    ORDER_Z,
    choose_as,
    order_z,
    play_rank,
    uniform_choice,
    weakest_choice,
)
from daihinmin.players.mc.models import weakness as weakness_of
from daihinmin.players.mc.moves import MAX_MOVES
from daihinmin.players.mc.rollout import DEFAULT_PARAMS
from daihinmin.players.mc.rulebits import rules_word
from daihinmin.players.mc.sample_model import sample_move
from daihinmin.players.mc.state import (
    ELEVEN,
    FIELD_CARDS,
    FIELD_INFO,
    LOCK,
    MAX_PLAYERS,
    REV,
    TURN,
    new_state,
)
from daihinmin.players.registry import make_bot
from daihinmin.players.util import weakness
from daihinmin.players.weakest_bot import WeakestBot
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA, WEB, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


def view_state(view) -> np.ndarray:
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    hands[view.player] = hand_mask(view.hand)
    st = new_state(hands, np.array(view.seats, dtype=np.int64), view.player,
                   view.rules.owner_answers, rules_word(view.rules))
    if view.field is not None:
        st[FIELD_CARDS], st[FIELD_INFO] = encode_move(view.field)
    st[REV], st[LOCK], st[TURN] = int(view.reversed), int(view.lock), view.player
    st[ELEVEN] = int(view.eleven_back)
    return st


def test_weakest_model_plays_like_the_weakest_bot() -> None:
    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    views = sample_positions(120, seed=4)
    for view in views:
        expected = WeakestBot().play(view)
        i = weakest_choice(view_state(view), view.player, buf_c, buf_i)
        got = decode_move(buf_c[i], buf_i[i]) if i >= 0 else None
        if got is None:
            assert expected.is_pass
        else:  # the joker's cell may differ; the cards must not
            assert got.hand_cards() == expected.hand_cards(), (str(view.hand), view.field)


@pytest.mark.parametrize("rules", [UECDA, WEB], ids=["uecda", "web"])
def test_sample_model_plays_like_the_default_bot_in_played_positions(rules: RuleSet) -> None:
    """At web too: the client's move where the rules allow it, else what the bot does
    instead (a pass, or the sample strategy's lead where a leader must play)."""
    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    for view in sample_positions(120, seed=5, rules=rules):
        expected = DefaultBot().play(view)
        i = choose_as(MODEL_SAMPLE, view_state(view), view.player, DEFAULT_PARAMS, buf_c, buf_i)
        got = decode_move(buf_c[i], buf_i[i]) if i >= 0 else None
        assert (got if got is not None else "pass") == (expected if not expected.is_pass
                                                        else "pass")


def _field_for(other: CardSet, pick: int) -> Move | None:
    plays = all_plays(other, UECDA)
    return plays[pick % len(plays)] if plays and pick >= 0 else None


@settings(max_examples=600, deadline=None)
@given(deck=st.permutations(range(4, 56)), size=st.integers(1, 14), joker=st.booleans(),
       other_joker=st.booleans(), pick=st.integers(-200, 1000), rev=st.booleans(),
       lock=st.booleans())
def test_sample_model_equals_the_table_by_table_client(deck: list[int], size: int,
                                                       joker: bool, other_joker: bool,
                                                       pick: int, rev: bool,
                                                       lock: bool) -> None:
    """Differential: the bitboard model and the table-by-table client choose the same
    (cards, joker cell) on any hand, field, order and lock (about a quarter leads)."""
    hand = CardSet.of(deck[:size]) | (CardSet.parse("JK") if joker else CardSet())
    other = CardSet.of(deck[size:size + 16])
    if other_joker and not joker:
        other = other | CardSet.parse("JK")
    field = _field_for(other, pick)
    view = GameView(player=0, hand=hand, field=field, turn_player=0, revolution=rev,
                    eleven_back=False, lock=lock and field is not None,
                    counts=(len(hand), 5, 5, 5, 5), classes=(0,) * 5, seats=(0, 1, 2, 3, 4),
                    my_turn=True)
    expected = DefaultBot().play(view)
    field_info = encode_move(field)[1] if field is not None else 0
    cards, info = sample_move(hand_mask(hand), field_info, int(rev), int(rev), int(view.lock))
    want = encode_move(expected) if not expected.is_pass else (0, 0)
    assert (int(cards), int(info)) == (int(want[0]), int(want[1]))


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
    bots = [mc, make_bot("default"), make_bot("random", seed=2), make_bot("weakest"),
            make_bot("random", seed=3)]
    play_local_match(UECDA, seed=9, games=2, bots=bots)
    assert list(mc.models[:5]) == [MODEL_POLICY, MODEL_SAMPLE, MODEL_UNIFORM, MODEL_WEAKEST,
                               MODEL_UNIFORM]
    mc.on_match_start(0)
    assert not mc.models.any()


class _RandomReturnBot(DefaultBot):
    """The sample client's play, but any cards handed back in the exchange."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = np.random.default_rng(seed)

    def exchange(self, view: GameView, count: int) -> CardSet:
        cards = sorted(view.hand)
        picked = self.rng.choice(len(cards), size=count, replace=False)
        return CardSet.of(cards[int(i)] for i in picked)


@pytest.mark.slow
def test_weakest_returns_are_learned_from_finished_games() -> None:
    """Uppers that hand back their weakest cards gain evidence; random returns lose it."""
    mc = MCBot(time_ms=0, playouts=32, seed=1)
    bots = [mc, make_bot("default"), _RandomReturnBot(2), make_bot("weakest"),
            _RandomReturnBot(3)]
    play_local_match(UECDA, seed=9, games=8, bots=bots)
    evidence = mc.return_evidence
    assert max(evidence[1], evidence[3]) > MODEL_MARGIN
    assert evidence[1] >= 0 and evidence[3] >= 0
    assert evidence[2] <= 0 and evidence[4] <= 0 and min(evidence[2], evidence[4]) < 0
    mc.on_match_start(0)
    assert not mc.return_evidence.any()


class _StrongestFirstBot(Bot):
    """A bot unlike every model: always its strongest play (biggest on ties)."""

    name = "strongest-first"

    def play(self, view: GameView) -> Move:
        plays = view.legal_plays()
        if not plays:
            return PASS
        return max(plays, key=lambda m: (weakness(m, view.reversed), m.size))


def test_unknown_bots_are_simulated_by_the_playout_policy() -> None:
    """Graceful degradation: a bot mc does not know (``greedy``, one written here) keeps the
    playout policy, the model mc uses with no model learned at all; a random bot is still
    recognised.  Without the order test the strongest-first bot, which every model but the
    uniform one misses, would be simulated as a random player."""
    mc = MCBot(time_ms=0, playouts=32, seed=1)
    bots = [mc, make_bot("greedy"), _StrongestFirstBot(), make_bot("random", seed=2),
            _StrongestFirstBot()]
    seen: list[list[int]] = []
    play_local_match(UECDA, seed=9, games=6, bots=bots,
                     on_game=lambda _: seen.append([int(m) for m in mc.models]))
    assert all(models[2] != MODEL_UNIFORM and models[4] != MODEL_UNIFORM for models in seen)
    assert list(mc.models[:5]) == [MODEL_POLICY, MODEL_POLICY, MODEL_POLICY, MODEL_UNIFORM,
                               MODEL_POLICY]
    uniform_lead = mc.evidence[:, MODEL_UNIFORM] - mc.evidence[:, MODEL_POLICY]
    assert uniform_lead[2] > MODEL_MARGIN and uniform_lead[4] > MODEL_MARGIN  # the trap
    z = [order_z(row) for row in mc.order]
    assert z[2] > ORDER_Z and z[4] > ORDER_Z  # strongest first: an order of its own
    assert z[1] < 0  # greedy leans to weak plays (its model stays the policy anyway)
    assert abs(z[3]) < ORDER_Z  # the random bot keeps to no order
    mc.on_match_start(0)
    assert not mc.order.any()


@settings(max_examples=200, deadline=None)
@given(deck=st.permutations(range(4, 56)), size=st.integers(2, 14), joker=st.booleans(),
       pick=st.integers(0, 1000), rev=st.booleans())
def test_play_rank_orders_the_legal_plays_weakest_first(deck: list[int], size: int,
                                                        joker: bool, pick: int,
                                                        rev: bool) -> None:
    """The rank of a lead among the legal leads counts exactly the weaker ones (ties in
    generation order), so a uniform choice has mean rank (n - 1) / 2."""
    hand = CardSet.of(deck[:size]) | (CardSet.parse("JK") if joker else CardSet())
    hands = np.zeros(5, dtype=np.int64)
    hands[0] = hand_mask(hand)
    state = new_state(hands, np.arange(5, dtype=np.int64), 0, True)
    state[REV] = int(rev)
    buf_c = np.zeros(MAX_MOVES, dtype=np.int64)
    buf_i = np.zeros(MAX_MOVES, dtype=np.int64)
    from daihinmin.players.mc.movegen import generate

    n = generate(hands[0], 0, int(rev), 0, False, buf_c, buf_i, 0)
    plays = [(int(buf_c[i]), int(buf_i[i])) for i in range(n)]
    cards, info = plays[pick % n]
    rank, count = play_rank(state, 0, cards, info, buf_c, buf_i)
    assert count == n
    keys = [weakness_of(i, int(rev)) for _, i in plays]
    j = pick % n
    assert rank == sum(1 for k, key in enumerate(keys)
                       if key < keys[j] or (key == keys[j] and k < j))
