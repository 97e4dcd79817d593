"""mc keeps each decision to its time budget: every phase (sampling, refining, the root
solver, the search) looks at the one deadline, on the clock injected into the bot.

No test sleeps: a clock that is past the deadline from the decision's first look on shows
which phase still works without looking (each should do one chunk at most); one that never
moves shows the chunked phases do the same as in one piece when time is no object.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
import pytest
from daihinmin.bench.mc import sample_positions
from daihinmin.contract.view import GameView
from daihinmin.players.mc.bot import (
    SAMPLE_CHUNK,
    MCBot,
)
from daihinmin.players.mc.deadline import Deadline
from daihinmin.players.mc.models import MODEL_WEAKEST
from daihinmin.players.mc.observe import knowledge_from_view
from daihinmin.players.mc.search import FIRST_TIMED_BATCH
from daihinmin.players.mc.state import MAX_PLAYERS, seed_numba
from daihinmin.players.mc.worlds import sample_worlds
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import WEB
from hypothesis import HealthCheck, assume, given, settings
from test_mc_endgame import brute_force, race_moves, race_view, two_player_endings

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


class PastAfterStart:
    """Reads 0.0 once (the decision starts), then 1,000 s: every later look is too late."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return 0.0 if self.reads == 1 else 1000.0


def frozen() -> float:
    return 0.0


@lru_cache(maxsize=1)
def late_views() -> list[GameView]:
    """Positions from later in games (a history to weigh worlds by, many cards left)."""
    return [v for v in sample_positions(24, seed=4) if len(v.history) >= 8][:4]


def test_sampling_and_search_stop_at_a_past_deadline() -> None:
    """Off the clock sampling would deal 1,536 proposals and the search run its batches of
    64: with the deadline gone at once each does one chunk."""
    for view in late_views():
        bot = MCBot(time_ms=250, seed=1, clock=PastAfterStart())
        assert bot.play(view) in view.legal_moves()
        d = bot.last
        assert d is not None and d.kind == "play"
        assert 0 < d.proposals <= SAMPLE_CHUNK
        assert 0 < d.playouts <= FIRST_TIMED_BATCH and d.stop == "time budget"


def test_refinement_stops_at_a_past_deadline() -> None:
    """With learned opponent models the worlds are refined (256 of them, 64 swaps each):
    none once the deadline has passed; all of them on a clock that never moves."""
    view = late_views()[0]
    late = MCBot(time_ms=250, seed=1, clock=PastAfterStart())
    timeless = MCBot(time_ms=250, playouts=64, seed=1, clock=frozen)
    for bot in (late, timeless):
        bot.models[:] = MODEL_WEAKEST
        bot.play(view)
    assert late.last is not None and late.last.refined == 0
    assert timeless.last is not None and timeless.last.refined == timeless.worlds


def test_chunked_sampling_deals_the_same_worlds_as_one_call() -> None:
    """Chunks of proposals with no deadline in sight: the same deals, weights and draw."""
    view = late_views()[1]
    bot = MCBot(time_ms=0, playouts=10, seed=1, worlds=96, proposals=300)
    kn = knowledge_from_view(view)
    seed_numba(11)
    whole = np.zeros((96, MAX_PLAYERS), dtype=np.int64)
    ess = sample_worlds(kn.me, kn.my_hand, kn.unknown, kn.counts, kn.fixed, kn.played,
                        kn.pairs, kn.seats, kn.first, kn.owner_answers, kn.hist_player,
                        kn.hist_cards, kn.hist_info, bot.models, bot.prm, bot.world_eps,
                        bot.beta, bot.window, 300, whole, bot.ws.bufc, bot.ws.bufi,
                        kn.rules_word, kn.prev_top)
    seed_numba(11)
    chunked = np.zeros_like(whole)
    got = bot._propose_and_draw(kn, kn.fixed, kn.pairs, 300, chunked,
                                Deadline.start(250.0, frozen), np.inf)
    assert got == pytest.approx(ess) and (chunked == whole).all()


@lru_cache(maxsize=1)
def hard_two_player_view() -> GameView:
    """A two-player ending at web from the bench positions (seed 5): the root solver runs."""
    views = sample_positions(60, seed=5, rules=WEB)
    for v in views:
        if sum(1 for c in v.counts if c) == 2 and len(v.hand) >= 5:
            return v
    raise AssertionError("no two-player ending among the bench positions")


def test_root_solver_skips_at_a_past_deadline() -> None:
    view = hard_two_player_view()
    bot = MCBot(time_ms=500, seed=1, clock=PastAfterStart())
    assert bot.play(view) in view.legal_moves()
    assert bot.last is not None and bot.last.solver_nodes == 0
    assert bot.last.playouts <= FIRST_TIMED_BATCH


def test_decision_cpu_time_keeps_to_the_budget_on_a_cpu_clock() -> None:
    """On this process's CPU clock (what the work costs, whatever the load) a decision
    with every phase (sampling, the root solver, the search) keeps to its budget."""
    view = hard_two_player_view()
    bot = MCBot(time_ms=100, seed=1, clock=time.process_time)
    start = time.process_time()
    bot.play(view)
    assert (time.process_time() - start) * 1000 < 100 * 1.5


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=two_player_endings(me_to_move=True))
def test_solver_rounds_keep_two_player_wins(case: tuple[GameState, int]) -> None:
    """On a clock that never moves the root solver runs its rounds of growing node limits
    to the end: wherever brute force finds a win the bot's move keeps it."""
    game, me = case
    assume(len(race_moves(game)) >= 2 and brute_force(game, me))
    bot = MCBot(time_ms=250, playouts=300, seed=5, clock=frozen)
    move = bot.play(race_view(game, me))
    child = game.copy()
    child.step(move)
    assert brute_force(child, me), move
