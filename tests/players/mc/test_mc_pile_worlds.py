"""The worlds of a draw-pile game weighed by the opponents' record (players/mc/pile_worlds).

Held against the engine: the draws the record implies (who drew how many, the pile left),
the hands each opponent's actions are scored from (their true sizes, each holding the play),
and, with four ``default`` bots at ``thirteenth_floor``, worlds that put the opponents' true
cards in their hands more often than uniform worlds do.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from daihinmin.contract.engine_views import ExchangeFacts, engine_view
from daihinmin.contract.view import GameView, Observed
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.mc import pile_worlds as PW
from daihinmin.players.mc import state as S
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.convert import hand_mask
from daihinmin.players.mc.deadline import Deadline
from daihinmin.players.mc.models import MODEL_UNIFORM
from daihinmin.players.mc.observe import Knowledge, dealt_pile, knowledge_from_view
from daihinmin.players.mc.rollout import policy_params
from daihinmin.players.mc.state import MAX_PLAYERS, STATE_SIZE, seed_numba
from daihinmin.players.mc.worlds import deal_world
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS
from test_mc_sim_pile import FLOOR, pile_views

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


def table_of(kn: Knowledge) -> tuple[np.ndarray, int]:
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    assert deal_world(kn.me, kn.my_hand, kn.unknown, kn.counts, kn.fixed, hands,
                      np.empty(64, dtype=np.int64))
    return PW.pile_action_table(hands, kn.played, kn.seats, kn.first, kn.owner_answers,
                                kn.hist_player, kn.hist_cards, kn.hist_info, kn.kept, kn.me,
                                kn.rules_word, kn.prev_top, kn.pile_start)


def engine_draws(view: GameView, rules: RuleSet) -> list[int]:
    """Cards each player has drawn so far: what it holds and played, less its deal."""
    played = [0] * len(view.counts)
    for obs in view.history:
        played[obs.player] += len(obs.move.hand_cards())
    return [view.counts[q] + played[q] - rules.hand_size for q in range(len(view.counts))]


@pytest.mark.parametrize("seed", range(8))
def test_the_record_draws_as_the_engine_did(seed: int) -> None:
    """Along games at 3-6 players: the pile the record leaves is the view's, and each
    opponent's drawing passes add up to the cards it really drew."""
    rules = FLOOR.with_rules(players=3 + seed % 4)
    views = pile_views(rules, seed, 50)
    assert any(v.pile_count < dealt_pile(rules, rules.players) for v, _ in views)
    for view, _ in views:
        kn = knowledge_from_view(view)
        assert kn.pile_start == dealt_pile(rules, len(view.counts))
        table, pile = table_of(kn)
        assert pile == view.pile_count
        drawn = engine_draws(view, rules)
        for q in range(len(view.counts)):
            if q != view.player:
                rows = table[table[:, PW.T_PLAYER] == q]
                assert int(rows[:, PW.T_DRAWN].sum()) == drawn[q], (q, rows)


@pytest.mark.parametrize("seed", range(6))
def test_each_action_is_scored_from_a_hand_of_its_true_size(seed: int) -> None:
    """With the true current hands: the hand each opponent's action is scored from has the
    size the engine's hand had then, holds the cards played, and is made of cards that
    player held at some time."""
    rules = FLOOR.with_rules(players=3 + seed % 4)
    views = pile_views(rules, seed + 100, 50)
    view, game = views[-1]
    kn = knowledge_from_view(view)
    table, _ = table_of(kn)
    sizes_then = [list(g.counts()) for _, g in views]  # before each history entry
    opponent_steps = [t for t, o in enumerate(view.history) if o.player != view.player]
    assert len(opponent_steps) == len(table)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    bufc = np.zeros(512, dtype=np.int64)
    bufi = np.zeros(512, dtype=np.int64)
    prm = policy_params()
    seed_numba(seed)
    for q in range(len(view.counts)):
        if q == view.player:
            continue
        held = np.zeros(len(table), dtype=np.int64)
        now = hand_mask(game.hands[q])
        ever = now | int(kn.played[q])
        chance = PW.pile_player_log_chance(q, now, MODEL_UNIFORM, 0.0, table, prm, st, bufc,
                                           bufi, held)
        assert np.isfinite(chance)
        for j, t in enumerate(opponent_steps):
            if view.history[t].player != q:
                continue
            hand = int(held[j])
            assert hand.bit_count() == sizes_then[t][q], (q, t)
            assert hand & ~ever == 0
            cards = int(table[j, PW.T_CARDS])
            assert hand & cards == cards


def default_table_positions(seed: int) -> list[tuple[GameView, list[int]]]:
    """Player 0's decisions (after a few actions) in a game of four ``default`` bots, each
    with the true hands."""
    match = MatchState(THIRTEENTH_FLOOR, seed=seed, games=1)
    setup = match.setup_game()
    game = setup.start()
    bots = [DefaultBot() for _ in range(4)]
    history: list[Observed] = []
    out = []
    while not game.over:
        p = game.turn
        view = engine_view(game, p, setup, history, ExchangeFacts())
        if p == 0 and len(history) >= 4:
            out.append((view, [hand_mask(game.hands[q]) for q in range(4)]))
        move = bots[p].play(view)
        was_empty = game.field is None
        r = game.step(move)
        history.append(Observed(r.player, move if r.judgement.accepted else PASS, was_empty))
    return out


def true_card_share(worlds: np.ndarray, truth: list[int], me: int) -> float:
    """The mean share of an opponent's true cards its world hand holds."""
    shares = [np.mean([(int(w[q]) & t).bit_count() / t.bit_count() for w in worlds])
              for q, t in enumerate(truth) if q != me and t]
    return float(np.mean(shares))


def test_weighed_worlds_find_the_default_bots_cards() -> None:
    """Against the sample strategy (``default``), which the pile sampler weighs by, the
    worlds hold more of each opponent's true cards than the uniform worlds of the same
    positions (a probe over 128 positions: 0.293 against 0.238, +0.055 +- 0.015)."""
    weighed = MCBot(time_ms=0, playouts=8, worlds=64, proposals=1024, seed=1, warm=False,
                    pile_history=True, pile_refine_steps=0)
    uniform = MCBot(time_ms=0, playouts=8, worlds=64, proposals=1024, seed=1, warm=False)
    gains = []
    rng = random.Random(7)
    for seed in range(4):
        for view, truth in default_table_positions(seed):
            kn = knowledge_from_view(view)
            assert weighed._weighs_pile(kn) and not uniform._weighs_pile(kn)
            seed_numba(rng.randrange(2**31))
            w1, _ = weighed._sample(kn, Deadline.start(0))
            w0, _ = uniform._sample(kn, Deadline.start(0))
            gains.append(true_card_share(w1, truth, 0) - true_card_share(w0, truth, 0))
    gain = np.array(gains)
    assert len(gain) >= 30
    assert gain.mean() > 2.5 * gain.std() / np.sqrt(len(gain)), (gain.mean(), gain.std())


def test_an_opponent_model_can_be_fixed() -> None:
    """``opponent_model`` (research): every opponent simulated by that model, never
    relearned; a name outside the models is refused."""
    bot = MCBot(time_ms=0, playouts=8, warm=False, opponent_model="sample")
    bot.on_match_start(0)
    assert list(bot.models) == [3] * MAX_PLAYERS
    with pytest.raises(ValueError, match="opponent_model"):
        MCBot(time_ms=0, playouts=8, warm=False, opponent_model="greedy")


def final_views(opponent: type, games: int) -> list[GameView]:
    """Seat 0's view at the end of each game of a match: seat 0 a ``default`` bot, the
    others ``opponent``."""
    match = MatchState(THIRTEENTH_FLOOR, seed=3, games=games)
    bots = [DefaultBot()] + [opponent() for _ in range(3)]
    out = []
    while not match.finished:
        setup = match.setup_game()
        game = setup.start()
        history: list[Observed] = []
        while not game.over:
            p = game.turn
            move = bots[p].play(engine_view(game, p, setup, history, ExchangeFacts()))
            was_empty = game.field is None
            r = game.step(move)
            history.append(Observed(r.player, move if r.judgement.accepted else PASS,
                                    was_empty))
        out.append(engine_view(game, 0, setup, history, ExchangeFacts()))
        match.finish_game(game)
    return out


def test_default_bots_are_recognised_at_a_pile_table() -> None:
    """The hands of a pile game stay hidden at its end, yet a few games' records, each
    averaged over the hidden cards, name the sample strategy for every ``default`` bot; a
    ``greedy`` table is never simulated as the sample strategy."""
    from daihinmin.players.greedy_bot import GreedyBot
    from daihinmin.players.mc.models import MODEL_POLICY, MODEL_SAMPLE

    for opponent, want in ((DefaultBot, MODEL_SAMPLE), (GreedyBot, None)):
        mc = MCBot(time_ms=0, playouts=8, seed=2, warm=False, pile_history=True)
        mc.on_match_start(0)
        seed_numba(5)
        for view in final_views(opponent, 4):
            mc.on_game_end(view, None)
        models = [int(m) for m in mc.models[1:4]]
        if want is None:
            assert MODEL_SAMPLE not in models, mc.pile_evidence[1:4]
        else:
            assert models == [want] * 3, mc.pile_evidence[1:4]
        assert mc.models[0] == MODEL_POLICY


def test_a_partial_reveal_keeps_those_cards_with_their_holders() -> None:
    """``reveal(..., partial=True)`` (the deal oracle of ``mc-strength --oracle-deal``): the
    next play's worlds are sampled, each with the revealed real cards in the revealed
    hands and the rest dealt as usual."""
    worlds: list[np.ndarray] = []
    bot = MCBot(time_ms=0, playouts=16, seed=3, warm=False)
    bot.on_search = lambda base, *_: worlds.append(base.copy())
    for view, truth in default_table_positions(1):
        known = [CardSet(t & ((1 << 36) - 1)) for t in truth]  # the real cards up to the jack
        bot.reveal(known, partial=True)
        bot.play(view)
        if worlds:
            break
    assert worlds
    hands = worlds[0][S.HAND:S.HAND + 4]
    assert any(int(h) != t for h, t in zip(hands[1:], truth[1:], strict=True))  # sampled
    for q in range(1, 4):
        assert int(hands[q]) & known[q].mask == known[q].mask
