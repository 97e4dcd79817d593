"""``mc``: the Monte-Carlo player (determinised playouts, UCB1 over the legal moves).

Each decision samples worlds consistent with what the player has seen
(:mod:`~daihinmin.players.mc.worlds`), then spends its budget on playouts of every candidate
move (:mod:`~daihinmin.players.mc.search`).  Shortcuts: a play that empties the hand is made at
once; with two players left the position is solved exactly when the solver can.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np
from daihinmin.contract.view import Bot, GameView
from daihinmin.players.util import weakest_cards
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.forbidden import is_forbidden_finish
from daihinmin.rules.ruleset import ForbiddenFinish, RuleSet
from daihinmin.values.cards import JOKER, CardSet
from daihinmin.values.moves import PASS, Move

from .bits import JOKER_BITS
from .compile_cache import compile_needed, record_warm
from .convert import decode_move, encode_move, hand_mask, lock_value, mask_cards, place_values
from .deadline import SAMPLE_SHARE, SOLVE_SHARE, Clock, Deadline
from .endgame import UNKNOWN, solve_two
from .exchange import exchange_candidates
from .models import (
    MODEL_NAMES,
    MODEL_POLICY,
    MODEL_SAMPLE,
    MODEL_UNIFORM,
    MODEL_WEAKEST,
    N_MODELS,
    ORDER_Z,
    action_log_chances,
    order_z,
)
from .movegen import generate
from .moves import MAX_MOVES
from .observe import (
    Knowledge,
    exchange_knowledge,
    exchange_pairs,
    knowledge_from_view,
    public_state,
    simulator_gaps,
    simulator_supports,
)
from .pile_worlds import (
    pile_action_table,
    pile_model_evidence,
    propose_pile_worlds,
    refine_pile_worlds,
)
from .rollout import policy_params
from .rulebits import LEAD_HOLDS_CLUB3, rules_word
from .search import ArmStats, Budget, Workspace, search_choice, search_exchange, search_play
from .state import (
    HAND,
    MAX_PLAYERS,
    N_OUT,
    add_cards,
    apply_move,
    choice_pending,
    n_active,
    place_of,
    seed_numba,
)
from .table_policy import table_policy
from .warmup import run_warm_up
from .weights import load_weights
from .worlds import (
    ACTION_COLUMNS,
    MODE_NEITHER,
    deal_world,
    lowest_return_weight,
    models_are_local,
    pair_weight,
    propose_worlds,
    refine_worlds,
    resample_worlds,
    set_world_piles,
)

log = logging.getLogger(__name__)

JUDGE_EPS = 0.02  # how often a sample-strategy opponent may stray, when judging the model
MODEL_MARGIN = 3.0  # nats of evidence a model needs over the playout policy to be used
GUESS_PROPOSALS = 1536  # proposals per decision while some opponent's model is a guess
PILE_JUDGE_PROPOSALS = 1024  # histories averaged over when a pile game's record is judged
RETURN_MISS = -8.0  # nats against "returns its weakest" when a game's hands rule it out
ORACLE_WORLDS = 8  # copies of the revealed deal searched (the search cycles over worlds)
SAMPLE_CHUNK = 64  # proposals dealt between two looks at the clock
REFINE_CHUNK = 16  # worlds refined between two looks at the clock
SOLVE_FIRST_NODES = 4_000  # the root solver's first round on the clock (then x4 a round)
MAX_CHOICE_CANDIDATES = 64  # answers to a 7-pass/10-discard choice searched at most
# Said before a start that compiles (140 s measured at load 4 on 2 cores; longer when busier).
COMPILE_NOTICE = ("compiling its simulator, once for this version (a few minutes on a 2-core "
                  "machine; later starts load it in about a second)")


class NoWorldError(RuntimeError):
    """No deal of the unseen cards fits the view (the view contradicts itself)."""


class RevealError(ValueError):
    """The hands given to :meth:`MCBot.reveal` do not fit the view of the next play."""


@dataclass
class Decision:
    """What one search did (for benchmarks and logs)."""

    kind: str  # "play", "exchange" or "solve"
    candidates: int
    playouts: int
    elapsed_ms: float
    stop: str
    ess: float = 0.0
    means: list[float] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)  # the candidates, in ``means`` order
    #: this process's CPU time for the decision: what it cost whatever the machine's load
    #: (``elapsed_ms`` is wall clock, which a loaded machine stretches)
    cpu_ms: float = 0.0
    #: the work of the phases before the search: proposals dealt, worlds refined, positions
    #: the root solver searched (what a deadline cut short shows here)
    proposals: int = 0
    refined: int = 0
    solver_nodes: int = 0


class MCBot(Bot):
    """Monte-Carlo player.

    - ``time_ms``: thinking time per decision, sampling included (0: playouts only);
      ``playouts``: cap per decision (0: time only);
    - ``worlds``/``proposals``: worlds kept and drawn per decision (at most
      :data:`GUESS_PROPOSALS` drawn while an opponent's model is still the playout policy:
      each then replays the whole game); ``eps``/``beta``/``window``: how the opponents'
      recent actions weigh the worlds;
    - ``refine_steps``/``refine_eps``: Metropolis card swaps per world that pull the worlds
      towards the whole observed history once every opponent's model has been learned
      (``refine_eps``: the uniform share mixed into the sample-strategy model; 0 steps: off);
    - ``c_explore``/``min_visits``: the bandit; ``solve_nodes``: budget of the exact
      two-player solver at the root; ``all_placements``: every joker placement is a
      candidate (else one per set of cards); ``policy``: playout policy and value overrides
      by name (``rollout.PARAM_NAMES``), over the table's own settings
      (:mod:`~daihinmin.players.mc.table_policy`: at card-scoring tables such as
      ``thirteenth_floor`` the playouts value going out first and the place, not the card
      score; ``policy={"first": 0, "place": 0}`` values the score);
    - ``learned_self``: play my own later moves in playouts by the learned policy
      (:mod:`~daihinmin.players.mc.learned`) instead of the heuristic one; ``weights_file``:
      its weights from a JSON file written by ``python -m daihinmin.research.mc_fit --out``;
    - ``pile_history`` (off by default: measured, it does not place mc better; docs/
      LEVELS.md): at draw-pile tables weigh the worlds by the opponents' record
      (:mod:`~daihinmin.players.mc.pile_worlds`: the hands each action came from are
      rebuilt through the hidden draws; an opponent still simulated by the playout policy is
      weighed as the sample strategy with ``pile_eps`` of uniform choice), refine them by
      ``pile_refine_steps`` card swaps each, and learn each opponent's model from its records
      with the hidden cards averaged out;
    - ``opponent_model`` (research): simulate and weigh every opponent by this model
      (``models.MODEL_NAMES``), never learned;
    - ``adapt``: learn from finished games which model (:mod:`~daihinmin.players.mc.models`)
      fits each opponent and simulate it with that model (``weakest_eps``: how loosely the
      sample-strategy model weighs worlds), and whether an upper class returns its weakest
      cards in an exchange I am not part of (then the sampler counts on it);
    - ``seed``: with a playout cap (and ``time_ms=0``) decisions are reproducible;
    - ``clock``: the clock of the time budget (seconds; tests pass their own).

    Every phase of a decision keeps to one deadline, ``time_ms`` after it starts: sampling
    may take :data:`~daihinmin.players.mc.deadline.SAMPLE_SHARE` of it (proposals and
    refinement in chunks), the root solver
    :data:`~daihinmin.players.mc.deadline.SOLVE_SHARE` of the rest (rounds of growing node
    limits), the search what is left.
    """

    name = "mc"

    @staticmethod
    def prepare() -> None:
        """Compile (or load from Numba's cache) before the first game: ``daihinmin match``
        calls it before seating, so a slow first compile never costs the seat."""
        warm_up()

    @staticmethod
    def prepare_notice() -> str | None:
        """What to say before :meth:`prepare` when it compiles (None: it loads the cache)."""
        if _WARM or not compile_needed():
            return None
        return COMPILE_NOTICE

    def __init__(self, time_ms: float = 250.0, playouts: int = 0, seed: int | None = None,
                 worlds: int = 256, proposals: int = 4096, eps: float = 0.3, beta: float = 0.5,
                 window: int = 40, c_explore: float = 0.5, min_visits: int = 4,
                 solve_nodes: int = 200_000, policy: dict[str, float] | None = None,
                 adapt: bool = True, weakest_eps: float = 0.005, all_placements: bool = False,
                 refine_steps: int = 64, refine_eps: float = 0.005,
                 learned_self: bool = False, weights_file: str | None = None,
                 pile_history: bool = False, pile_eps: float = 0.3, pile_refine_steps: int = 64,
                 opponent_model: str = "",
                 warm: bool = True, clock: Clock = time.perf_counter) -> None:
        self.budget = Budget(time_ms=float(time_ms), playouts=int(playouts))
        self.clock = clock
        self.worlds = int(worlds)
        self.proposals = max(int(proposals), self.worlds)
        self.eps, self.beta, self.window = float(eps), float(beta), int(window)
        self.c_explore, self.min_visits = float(c_explore), int(min_visits)
        self.solve_nodes = int(solve_nodes)
        self.all_placements = bool(all_placements)
        overrides = dict(policy or {})
        if weights_file:
            overrides.update(load_weights(weights_file))
        if learned_self:
            overrides["self"] = 1.0
        self.prm = policy_params(**overrides)
        # the parameters at each rule set met: its table's settings, then these overrides
        self._overrides = overrides
        self._prm_by_rules: dict[RuleSet, np.ndarray] = {}
        self.adapt = bool(adapt)
        # uniform share mixed into each model when it weighs worlds / when it is judged
        # (policy, weakest, uniform, sample): the two deterministic models share the settings
        self.world_eps = np.array([self.eps, float(weakest_eps), 0.0, float(weakest_eps)])
        self.judge_eps = np.array([self.eps, JUDGE_EPS, 0.0, JUDGE_EPS])
        self.refine_steps = int(refine_steps)
        self.pile_history = bool(pile_history)
        if opponent_model and opponent_model not in MODEL_NAMES:
            raise ValueError(f"opponent_model must be one of {', '.join(MODEL_NAMES)}")
        #: research: every opponent simulated (and weighed) by this model, never learned
        self.opponent_model = MODEL_NAMES.index(opponent_model) if opponent_model else -1
        self.pile_eps = float(pile_eps)
        self.pile_refine_steps = int(pile_refine_steps)
        self.refine_eps = np.array([self.eps, float(refine_eps), 0.0, float(refine_eps)])
        self.evidence = np.zeros((MAX_PLAYERS, N_MODELS))
        # the same from draw-pile games, where only a record's chance averaged over the
        # hidden cards is known, and not under the playout policy (pile_model_evidence)
        self.pile_evidence = np.zeros((MAX_PLAYERS, N_MODELS))
        # per player: how far its plays keep to the weakest-first order (models.order_z)
        self.order = np.zeros((MAX_PLAYERS, 2))
        self.models = np.full(MAX_PLAYERS, self._unlearned_model(), dtype=np.int64)
        # log-evidence, per upper class, that it returns its weakest cards in the exchange
        # rather than any cards; above MODEL_MARGIN the sampler relies on it
        self.return_evidence = np.zeros(MAX_PLAYERS)
        self.rng = np.random.default_rng(seed)
        self.ws = Workspace()
        self.last: Decision | None = None
        self.decisions: list[Decision] = []
        #: called after each searched play with (one sampled world's state, me, candidate
        #: cards, candidate infos, the search's arm statistics): how decisions are recorded
        #: for fitting the learned playout policy (:mod:`~daihinmin.players.mc.fit`)
        self.on_search: Callable[[np.ndarray, int, np.ndarray, np.ndarray, ArmStats],
                                 None] | None = None
        self._revealed: np.ndarray | None = None
        self._revealed_partial = False
        self._cpu_start = 0.0  # process_time() at the current decision's start
        self._work = Decision("", 0, 0, 0.0, "")  # the current decision's phase counters
        self._unsupported_told: set[RuleSet] = set()
        if warm:
            warm_up()

    def _unlearned_model(self) -> int:
        """Every opponent's model before anything is learned: the playout policy, or the
        research option ``opponent_model``."""
        return MODEL_POLICY if self.opponent_model < 0 else self.opponent_model

    # --- research hook -----------------------------------------------------------------
    def reveal(self, hands: Sequence[CardSet] | None, partial: bool = False) -> None:
        """Search the next play with these true hands (index = player) instead of sampled
        ones: an oracle, to measure what the hidden cards cost. Never used in real play.
        ``partial``: the cards are only some of each opponent's (e.g. what it still holds of
        its deal); the worlds are sampled as usual, with those cards in those hands.

        The next :meth:`play` raises :class:`RevealError` if my own hand differs (when not
        ``partial``)."""
        if hands is None:
            self._revealed = None
            return
        self._revealed = np.zeros(MAX_PLAYERS, dtype=np.int64)
        self._revealed[:len(hands)] = [hand_mask(h) for h in hands]
        self._revealed_partial = partial

    # --- Bot interface ----------------------------------------------------------------
    def on_match_start(self, player: int) -> None:
        self.evidence[:] = 0.0
        self.order[:] = 0.0
        self.models[:] = self._unlearned_model()
        self.return_evidence[:] = 0.0
        self.pile_evidence[:] = 0.0

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        if self.adapt and self.opponent_model < 0 and simulator_supports(view.rules):
            self._use_rules(view.rules)
            self._learn_models(view)

    def exchange(self, view: GameView, count: int) -> CardSet:
        lower = _lower_partner(view, count)
        if not self._simulated(view) or lower < 0:
            return weakest_cards(view.hand, count)
        deadline = self._begin(view.rules)
        cand = exchange_candidates(view.hand, count)
        if len(cand) == 1:
            return mask_cards(int(cand[0]))
        kn = exchange_knowledge(view, lower, count)
        worlds, ess = self._sample(kn, deadline)
        stats = search_exchange(self.ws, worlds, kn.seats, kn.owner_answers, kn.me, lower,
                                cand, self.models, self.prm, self.budget, self.c_explore,
                                self.min_visits, kn.rules_word, kn.prev_top, kn.leader,
                                kn.unknown, kn.pile, deadline, place_values(view.rules))
        self._record("exchange", stats, deadline, ess,
                     [str(mask_cards(int(m))) for m in cand])
        return mask_cards(int(cand[stats.best()]))

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        """A 7-pass or 10-discard answer, searched: every set of as many cards as allowed
        (from the weakest cards when there are too many sets), each played out in the
        sampled worlds.  The default (the weakest cards) where the simulator cannot."""
        default = super().choose(view, choice)
        cand = choice_candidates(view.hand, choice.count, view.reversed)
        if len(cand) <= 1 or not self._simulated(view):
            return default
        deadline = self._begin(view.rules)
        kn = knowledge_from_view(view, self._lowest_returners())
        worlds, ess = self._sample(kn, deadline)
        bases = world_states(view, kn, worlds)
        if not choice_pending(bases[0]):
            return default  # the position does not show the choice (an unusual view)
        masks = np.array([hand_mask(c) for c in cand], dtype=np.int64)
        stats = search_choice(self.ws, bases, masks, kn.me, self.models, self.prm,
                              self.budget, self.c_explore, self.min_visits, deadline)
        self._record("choice", stats, deadline, ess, [str(c) for c in cand])
        return cand[stats.best()]

    def play(self, view: GameView) -> Move:
        revealed, self._revealed = self._revealed, None  # for this play only
        legal = view.legal_moves()
        if len(legal) == 1:
            return legal[0]
        if not self._simulated(view):
            return _fallback(view)
        deadline = self._begin(view.rules)
        kn = knowledge_from_view(view, self._lowest_returners())
        cand_c, cand_i = _candidates(kn.my_hand, view, not self.all_placements)
        for k in range(len(cand_c)):
            if cand_c[k] == kn.my_hand:  # going out now: nothing can be better
                move = decode_move(cand_c[k], cand_i[k])
                if not _goes_to_the_bottom(view, move):
                    return self._checked(move, legal, view)
        if revealed is not None and self._revealed_partial:
            known = revealed & kn.unknown & ~JOKER_BITS  # (jokers by count: left to the deal)
            known[kn.me] = 0
            kn = replace(kn, fixed=kn.fixed | known)
            revealed = None
        worlds, ess = (self._sample(kn, deadline) if revealed is None
                       else _revealed_worlds(kn, revealed))
        bases = world_states(view, kn, worlds)
        if n_active(bases[0]) == 2 and self.solve_nodes > 0 and kn.pile == 0:
            # two players left: every card is known, the race can be solved exactly (over
            # every joker placement, since one may set the lock that wins); not while a
            # draw pile hides cards (the other hand is a guess, and so are the draws)
            full_c, full_i = _candidates(kn.my_hand, view)
            won = self._winning_candidate(bases[0], kn.me, full_c, full_i,
                                          deadline, deadline.of_rest(SOLVE_SHARE))
            if won >= 0:
                self._record("solve", ArmStats.empty(len(full_c)), deadline, ess, [],
                             "solved")
                return self._checked(decode_move(full_c[won], full_i[won]), legal, view)
        stats = search_play(self.ws, bases, cand_c, cand_i, kn.me, self.models, self.prm,
                            self.budget, self.c_explore, self.min_visits, deadline)
        self._record("play", stats, deadline, ess,
                     [str(decode_move(c, i)) for c, i in zip(cand_c, cand_i, strict=True)])
        if self.on_search is not None:
            self.on_search(bases[0], kn.me, cand_c, cand_i, stats)
        best = stats.best()
        return self._checked(decode_move(cand_c[best], cand_i[best]), legal, view)

    # --- helpers ------------------------------------------------------------------------
    def _simulated(self, view: GameView) -> bool:
        """Does the simulator play the table's rules?  If not, say once per rule set which
        rules it lacks (mc then plays the weakest legal move, never a simulated one)."""
        rules = view.rules
        if rules in self._unsupported_told:
            return False
        gaps = simulator_gaps(rules)
        if gaps:
            self._unsupported_told.add(rules)
            log.warning("mc does not simulate the %s rules (%s): it plays the weakest legal "
                        "move there", rules.name, ", ".join(gaps))
        return not gaps

    def _use_rules(self, rules: RuleSet) -> None:
        """Set the policy parameters for ``rules``: the table's settings
        (:func:`~daihinmin.players.mc.table_policy.table_policy`) under the bot's own."""
        prm = self._prm_by_rules.get(rules)
        if prm is None:
            prm = policy_params(**{**table_policy(rules), **self._overrides})
            self._prm_by_rules[rules] = prm
        self.prm = prm

    def _begin(self, rules: RuleSet) -> Deadline:
        """Start a decision at ``rules``: its parameters, deadline, CPU clock, phase
        counters and random seed."""
        self._use_rules(rules)
        deadline = Deadline.start(self.budget.time_ms, self.clock)
        self._cpu_start = time.process_time()
        self._work = Decision("", 0, 0, 0.0, "")
        seed_numba(int(self.rng.integers(0, 2**31 - 1)))
        return deadline

    def _sample(self, kn: Knowledge, deadline: Deadline) -> tuple[np.ndarray, float]:
        out = np.zeros((self.worlds, MAX_PLAYERS), dtype=np.int64)
        fixed, pairs = kn.fixed, kn.pairs
        # a learned model is trusted fully and scored cheaply; a guessed one (the playout
        # policy) replays the whole game per proposal, and its tempered weights are all of it
        learned = bool(models_are_local(self.models, kn.me)) or self._weighs_pile(kn)
        proposals = max(self.proposals if learned else min(self.proposals, GUESS_PROPOSALS),
                        self.worlds)
        until = deadline.by_share(SAMPLE_SHARE)
        for attempt in range(2):
            ess = self._propose_and_draw(kn, fixed, pairs, proposals, out, deadline, until)
            if ess > 0:
                if self.refine_steps > 0 and kn.replays_hands and len(kn.hist_player):
                    self._refine(kn, fixed, pairs, out, deadline, until)
                elif self.pile_refine_steps > 0 and self._weighs_pile(kn):
                    self._refine_pile(kn, fixed, out, deadline, until)
                return out, float(ess)
            if attempt == 0:  # the inferred facts contradict the counts: keep the counts only
                log.warning("mc: no world fits the inferred card facts; ignoring them")
                fixed, pairs = np.zeros_like(fixed), pairs[:0]
        raise NoWorldError("no deal of the unseen cards matches the card counts")

    def _propose_and_draw(self, kn: Knowledge, fixed: np.ndarray, pairs: np.ndarray,
                          proposals: int, out: np.ndarray, deadline: Deadline,
                          until: float) -> float:
        """:func:`~daihinmin.players.mc.worlds.sample_worlds` in chunks of
        :data:`SAMPLE_CHUNK` proposals, drawing from those dealt by ``until``."""
        cand = np.empty((proposals, MAX_PLAYERS), dtype=np.int64)
        log_ex = np.full(proposals, -np.inf)
        log_play = np.zeros(proposals)
        if self._weighs_pile(kn):
            table = self._pile_table(kn, fixed)
            if table is not None:
                return self._propose_pile(kn, fixed, table, proposals, cand, log_ex, log_play,
                                          out, deadline, until)
        window = self.window if kn.replays_hands else 0
        k, attempts, listed, table = 0, 0, False, np.zeros((0, ACTION_COLUMNS), dtype=np.int64)
        while k < proposals and attempts < proposals * 4:
            k, attempts, listed, table = propose_worlds(
                kn.me, kn.my_hand, kn.unknown, kn.counts, fixed, kn.played, pairs, kn.seats,
                kn.first, kn.owner_answers, kn.hist_player, kn.hist_cards, kn.hist_info,
                self.models, self.prm, self.world_eps, window, cand, log_ex, log_play, k,
                min(k + SAMPLE_CHUNK, proposals), attempts, proposals * 4, listed, table,
                self.ws.bufc, self.ws.bufi, kn.rules_word, kn.prev_top)
            if k > 0 and deadline.past(until):
                break
        self._work.proposals += k
        return float(resample_worlds(cand, log_ex, log_play, k, self.beta,
                                     window > 0 and len(kn.hist_player) > 0, out))

    def _weighs_pile(self, kn: Knowledge) -> bool:
        """Are this pile game's worlds weighed by the opponents' record
        (:mod:`~daihinmin.players.mc.pile_worlds`)?"""
        return (self.pile_history and kn.draws and kn.complete and kn.first >= 0
                and kn.pile_start > 0 and len(kn.hist_player) > 0)

    def _pile_table(self, kn: Knowledge, fixed: np.ndarray) -> np.ndarray | None:
        """The opponents' record with its public facts, or None where it does not replay
        to the pile the view shows (then the worlds stay uniform)."""
        hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
        pool = np.empty(64, dtype=np.int64)
        if not deal_world(kn.me, kn.my_hand, kn.unknown, kn.counts, fixed, hands, pool):
            return None
        table, pile = pile_action_table(hands, kn.played, kn.seats, kn.first,
                                        kn.owner_answers, kn.hist_player, kn.hist_cards,
                                        kn.hist_info, kn.kept, kn.me, kn.rules_word,
                                        kn.prev_top, kn.pile_start)
        return table if pile == kn.pile else None

    def _propose_pile(self, kn: Knowledge, fixed: np.ndarray, table: np.ndarray,
                      proposals: int, cand: np.ndarray, log_ex: np.ndarray,
                      log_play: np.ndarray, out: np.ndarray, deadline: Deadline,
                      until: float) -> float:
        """:func:`~daihinmin.players.mc.pile_worlds.propose_pile_worlds` in chunks, then
        the resampling: an opponent still simulated by the playout policy (a guess) is
        weighed as the sample strategy with ``pile_eps`` of uniform choice."""
        models, eps = self._pile_models()
        k, attempts = 0, 0
        while k < proposals and attempts < proposals * 4:
            k, attempts = propose_pile_worlds(
                kn.me, kn.my_hand, kn.unknown, kn.counts, fixed, table, models, eps,
                self.prm, cand, log_ex, log_play, k, min(k + SAMPLE_CHUNK, proposals),
                attempts, proposals * 4, self.ws.bufc, self.ws.bufi)
            if k > 0 and deadline.past(until):
                break
        self._work.proposals += k
        return float(resample_worlds(cand, log_ex, log_play, k, self.beta, True, out))

    def _pile_models(self) -> tuple[np.ndarray, np.ndarray]:
        """Each player's model and uniform share when a pile game's record weighs worlds:
        an opponent still simulated by the playout policy (a guess, and one whose choices
        look at the other hands) is weighed as the sample strategy with ``pile_eps``."""
        models = self.models.copy()
        eps = self.world_eps[models]
        guessed = models == MODEL_POLICY
        models[guessed] = MODEL_SAMPLE
        eps[guessed] = self.pile_eps
        return models, eps

    def _refine_pile(self, kn: Knowledge, fixed: np.ndarray, out: np.ndarray,
                     deadline: Deadline, until: float) -> None:
        """:func:`~daihinmin.players.mc.pile_worlds.refine_pile_worlds`,
        :data:`REFINE_CHUNK` worlds at a time until ``until``."""
        table = self._pile_table(kn, fixed)
        if table is None:
            return
        models, eps = self._pile_models()
        for i in range(0, len(out), REFINE_CHUNK):
            if deadline.past(until):
                return
            refine_pile_worlds(out[i:i + REFINE_CHUNK], kn.me, fixed, kn.unknown, table,
                               models, eps, self.prm, self.pile_refine_steps, self.ws.bufc,
                               self.ws.bufi)
            self._work.refined += len(out[i:i + REFINE_CHUNK])

    def _refine(self, kn: Knowledge, fixed: np.ndarray, pairs: np.ndarray, out: np.ndarray,
                deadline: Deadline, until: float) -> None:
        """:func:`~daihinmin.players.mc.worlds.refine_worlds`, :data:`REFINE_CHUNK` worlds
        at a time until ``until`` (the worlds not reached keep their resampled hands)."""
        for i in range(0, len(out), REFINE_CHUNK):
            if deadline.past(until):
                return
            refine_worlds(out[i:i + REFINE_CHUNK], kn.me, fixed, kn.played, pairs, kn.seats,
                          kn.first, kn.owner_answers, kn.hist_player, kn.hist_cards,
                          kn.hist_info, self.models, self.prm, self.refine_eps,
                          self.refine_steps, self.ws.bufc, self.ws.bufi, kn.rules_word,
                          kn.prev_top)
            self._work.refined += len(out[i:i + REFINE_CHUNK])

    def _learn_models(self, view: GameView) -> None:
        """After a game every starting hand is known: score each opponent's actions under
        every model and switch an opponent to the model that clearly explains it best."""
        kn = knowledge_from_view(view)
        if kn.draws:
            if self.pile_history:
                self._learn_pile_models(kn)
            return
        if not kn.replays_hands or kn.pile or kn.first < 0 or not len(kn.hist_player):
            return  # (with a pile left, its cards and the last hand cannot be told apart)
        start = kn.played.copy()
        start[kn.me] = add_cards(int(start[kn.me]), kn.my_hand)
        leftover = kn.unknown
        n = len(view.counts)
        holders = [q for q in range(n) if q != kn.me and view.counts[q] > 0]
        if len(holders) > 1:
            return  # the game ended early (pass limit): some hands stay unknown
        if holders:
            start[holders[0]] = add_cards(int(start[holders[0]]), leftover)
        order = np.zeros((MAX_PLAYERS, 2))
        chances = action_log_chances(start, kn.seats, kn.first, kn.owner_answers,
                                     kn.hist_player, kn.hist_cards, kn.hist_info, self.prm,
                                     self.judge_eps, self.ws.bufc,
                                     self.ws.bufi, order, kn.rules_word, kn.prev_top)
        self._learn_returns(kn, start)
        if np.isnan(chances).any():
            return
        self.order += order
        for q in range(n):
            if q == kn.me:
                continue
            self.evidence[q] += chances[q]
            self.models[q] = self._fitting_model(q)

    def _learn_pile_models(self, kn: Knowledge) -> None:
        """After a draw-pile game the hands stay hidden (the game ends with cards in them
        and the draws unseen): each opponent's record is scored under every model with the
        hidden cards averaged out (:func:`~daihinmin.players.mc.pile_worlds.
        pile_model_evidence`), and an opponent is simulated by the sample strategy or the
        weakest play once that explains its record clearly better than uniform choice."""
        if not self._weighs_pile(kn):
            return
        table = self._pile_table(kn, kn.fixed)
        if table is None:
            return
        evidence = pile_model_evidence(kn.me, kn.my_hand, kn.unknown, kn.counts, kn.fixed,
                                       table, self.prm, self.judge_eps, PILE_JUDGE_PROPOSALS,
                                       self.ws.bufc, self.ws.bufi)
        for q in range(len(kn.counts)):
            if q == kn.me or np.isnan(evidence[q]).all():
                continue
            self.pile_evidence[q] += np.nan_to_num(evidence[q], nan=0.0)
            self.models[q] = self._fitting_pile_model(q)

    def _fitting_pile_model(self, q: int) -> int:
        """The sample strategy or the weakest play where it explains ``q``'s records of
        pile games by :data:`MODEL_MARGIN` more than uniform choice does, else the playout
        policy (a bot no model names is never simulated as one that it is not)."""
        ev = self.pile_evidence[q]
        best = MODEL_SAMPLE if ev[MODEL_SAMPLE] >= ev[MODEL_WEAKEST] else MODEL_WEAKEST
        return best if ev[best] - ev[MODEL_UNIFORM] > MODEL_MARGIN else MODEL_POLICY

    def _fitting_model(self, q: int) -> int:
        """The model that explains ``q``'s actions clearly better than the playout policy,
        else the policy.  Uniform choice wins against every player the other models miss:
        it is taken only while ``q``'s plays also look random (no order of their own), so an
        unknown bot is never simulated as a random one."""
        evidence = self.evidence[q].copy()
        z = order_z(self.order[q])
        # uniform choice must explain the order of the plays too: ruled out beyond ORDER_Z,
        # and short of it charged the log-density of that z (so one or two games of a bot
        # with an order of its own do not make it look random either)
        evidence[MODEL_UNIFORM] = -np.inf if abs(z) > ORDER_Z else (
            evidence[MODEL_UNIFORM] - z * z / 2)
        best = int(np.argmax(evidence))
        margin = evidence[best] - evidence[MODEL_POLICY]
        return best if margin > MODEL_MARGIN else MODEL_POLICY

    def _learn_returns(self, kn: Knowledge, start: np.ndarray) -> None:
        """Weigh, for each exchange I was not part of, "the upper returned its weakest
        cards" against "any cards" by how well each explains the two hands the game began
        with."""
        for row in kn.pairs:
            upper, lower, n, mode = (int(x) for x in row[:4])
            if mode != MODE_NEITHER:  # (rows built without the learned rule)
                continue
            up_all, low_all = int(start[upper]), int(start[lower])
            any_ways = pair_weight(up_all, low_all, n)
            if any_ways <= 0:
                continue  # the hands contradict the exchange rule itself: no evidence
            low_ways = lowest_return_weight(up_all, low_all, n)
            if low_ways <= 0:
                self.return_evidence[upper] += RETURN_MISS
                continue
            # any return: each of the comb(cards held after receiving, n) equally likely
            choices = math.comb(up_all.bit_count() + n, n)
            self.return_evidence[upper] += math.log(low_ways * choices / any_ways)

    def _lowest_returners(self) -> list[int]:
        """The players known (from finished games) to return their weakest cards."""
        return [q for q in range(MAX_PLAYERS) if self.return_evidence[q] > MODEL_MARGIN]

    def _winning_candidate(self, base: np.ndarray, me: int, cand_c: np.ndarray,
                           cand_i: np.ndarray, deadline: Deadline | None = None,
                           until: float = math.inf) -> int:
        """Index of a candidate that surely wins the two-player race, or -1.

        Off the clock each candidate gets ``solve_nodes``.  On it the candidates are solved
        in rounds of growing node limits (:data:`SOLVE_FIRST_NODES`, x4 up to
        ``solve_nodes``; solved positions stay in the table), and no round starts that the
        solver's rate so far says would end after ``until``: then the search decides."""
        s = self.ws.solver
        s.clear()
        open_: list[tuple[int, np.ndarray]] = []
        for k in range(len(cand_c)):
            child = base.copy()
            apply_move(child, cand_c[k], cand_i[k])
            if child[HAND + me] == 0:
                if place_of(child, me) < child[N_OUT]:  # out, not to the bottom
                    return k
                continue
            open_.append((k, child))
        timed = deadline is not None and deadline.timed and until < math.inf
        clock = deadline.clock if deadline is not None else time.perf_counter
        limit = min(SOLVE_FIRST_NODES, self.solve_nodes) if timed else self.solve_nodes
        nodes, spent = 0, 0.0
        while open_:
            unsolved = []
            for k, child in open_:
                now = clock()
                if timed and (now >= until or (
                        nodes and now + limit * spent / nodes >= until)):
                    return -1  # out of the solver's time: the search decides
                won = solve_two(child, me, limit, s.arrays())
                nodes += int(s.nodes[0])
                spent += clock() - now
                if won == 1:
                    self._work.solver_nodes += nodes
                    return k
                if won == UNKNOWN:
                    unsolved.append((k, child))
            if limit >= self.solve_nodes:
                break
            open_, limit = unsolved, min(limit * 4, self.solve_nodes)
        self._work.solver_nodes += nodes
        return -1

    def _record(self, kind: str, stats: ArmStats, deadline: Deadline, ess: float,
                moves: list[str], stop: str = "") -> None:
        w = self._work
        self.last = Decision(kind, len(stats.visits), stats.playouts,
                             (deadline.clock() - deadline.begin) * 1000, stop or stats.stop,
                             ess, [round(float(m), 3) for m in stats.means()],
                             [int(v) for v in stats.visits], moves,
                             (time.process_time() - self._cpu_start) * 1000, w.proposals,
                             w.refined, w.solver_nodes)
        self.decisions.append(self.last)

    def _checked(self, move: Move, legal: list[Move], view: GameView) -> Move:
        if move in legal:
            return move
        log.warning("mc chose %s, which the view does not list as legal", move)
        return _fallback(view)


def _revealed_worlds(kn: Knowledge, hands: np.ndarray) -> tuple[np.ndarray, float]:
    if hands[kn.me] != kn.my_hand:
        raise RevealError("the revealed hands do not include my hand as I hold it")
    return np.repeat(hands[None, :], ORACLE_WORLDS, axis=0), float(ORACLE_WORLDS)


def world_states(view: GameView, kn: Knowledge, worlds: np.ndarray) -> np.ndarray:
    """One simulator state per world: the public facts are the same in all of them."""
    base = public_state(view, kn, worlds[0])
    bases = np.repeat(base[None, :], len(worlds), axis=0)
    bases[:, HAND:HAND + MAX_PLAYERS] = worlds
    if kn.pile:  # each world's own pile: the cards it leaves, in an order of its own
        set_world_piles(bases, kn.unknown, kn.me, kn.pile)
    return bases


def _candidates(my_hand: int, view: GameView,
                canonical: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Every legal play (each joker placement its own, unless ``canonical``: one per card
    set) and, over cards, the pass."""
    oc = np.zeros(MAX_MOVES, dtype=np.int64)
    oi = np.zeros(MAX_MOVES, dtype=np.int64)
    field_info = encode_move(view.field)[1] if view.field is not None else 0
    word = rules_word(view.rules) | (LEAD_HOLDS_CLUB3 if view.lead_must_contain else 0)
    n = generate(my_hand, field_info, int(view.reversed), lock_value(view.lock, view.geki),
                 canonical, oc, oi, word)
    cards, infos = list(oc[:n]), list(oi[:n])
    if view.field is not None:
        cards.append(0)
        infos.append(0)
    return np.array(cards, dtype=np.int64), np.array(infos, dtype=np.int64)


def _weakness(card: int, reversed_order: bool) -> tuple[int, int, int]:
    """Sort key, the weakest first, as rules.deal.weakest orders the cards."""
    if card >= JOKER:
        return (1, 0, card)
    return (0, -(card >> 2) if reversed_order else card >> 2, card & 3)


def choice_candidates(hand: CardSet, count: int, reversed_order: bool) -> list[CardSet]:
    """The answers to a choice of up to ``count`` cards worth searching: every set of
    exactly that many (fewer only when the hand holds fewer; moving fewer cards only keeps
    more), taken from the weakest cards when the sets would be more than
    :data:`MAX_CHOICE_CANDIDATES`; the weakest cards first.

    >>> [str(c) for c in choice_candidates(CardSet.parse("S3 H9 D2"), 2, False)]
    ['S3 H9', 'S3 D2', 'H9 D2']
    """
    k = min(count, len(hand))
    if k == 0:
        return [CardSet(0)]
    pool = sorted(hand, key=lambda c: _weakness(c, reversed_order))
    size = len(pool)
    while size > k and math.comb(size, k) > MAX_CHOICE_CANDIDATES:
        size -= 1
    seen: set[CardSet] = set()
    out: list[CardSet] = []
    for chosen in combinations(pool[:size], k):
        option = CardSet.of(chosen)
        if option not in seen:
            seen.add(option)
            out.append(option)
    return out


def _goes_to_the_bottom(view: GameView, move: Move) -> bool:
    """Would going out with ``move`` be a forbidden finish of the ``last`` form?"""
    return (view.rules.forbidden_finish is ForbiddenFinish.LAST
            and is_forbidden_finish(view, move))


def _lower_partner(view: GameView, count: int) -> int:
    """The player who gets my returned cards, from the classes; -1 if unclear."""
    for upper, lower, n in exchange_pairs(view):
        if upper == view.player and n == count:
            return lower
    return -1


def _fallback(view: GameView) -> Move:
    """Rules the simulator does not model: the weakest legal play, else pass."""
    plays = view.legal_plays()
    if not plays:
        return PASS
    return min(plays, key=lambda m: (m.jokers, m.low if not view.reversed else -m.high))


_WARM = False


def warm_up() -> None:
    """Compile (or load from Numba's cache) every Numba function the player uses."""
    global _WARM
    if _WARM:
        return
    run_warm_up(MCBot)
    record_warm()  # what a later start loads from the cache (compile_needed)
    _WARM = True


__all__ = ["Decision", "MCBot", "NoWorldError", "RevealError", "warm_up"]
