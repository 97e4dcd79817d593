"""The PettingZoo AEC environment: a match of daihinmin over the one game driver.

Agents are ``player_0`` .. ``player_{n-1}`` (the driver's player numbers).  The agent to act
is the one the driver asks: a move, an exchange return or a 7-pass/10-discard choice.
Seats may be given to in-process bots (``bots={seat: "default", ...}``, names of the players'
registry or :class:`~daihinmin.contract.view.Bot` objects): they answer their own requests and
see every event as in ``tournament --in-process``, and only the other seats are agents.  A
multi-card answer is made one card at a time (see :mod:`daihinmin.env.actions`), the same
agent acting again until it is complete.  Observations are dicts ``{"observation": vector,
"action_mask": int8 vector}`` built from the seat's bot view alone
(:mod:`daihinmin.env.observe`); the mask is all zeros for an agent that is not asked.

Rewards follow the rule set's scoring, given to every agent when a game ends: the points of
its place (``reward="game"``, the default), or only the match totals when the match ends
(``reward="match"``).  Under card scoring (``thirteenth_floor``: lower is better) the reward
is minus the game's score.  An episode is a match of ``games`` games (default 1); it ends for
every agent at once.  ``reset(seed=s)`` plays the match of seed ``s`` (the same games as
``daihinmin match --seed s`` with the same moves); a reset without a seed takes the next seed
from a generator seeded by the last seed given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from daihinmin.contract.view import Bot, GameView
from daihinmin.driver.game import (
    ChoiceRequest,
    ExchangeDone,
    ExchangeRequest,
    GameDriver,
    GameOver,
    GameStarted,
    MoveRequest,
    Request,
    TurnDone,
)
from daihinmin.local.runner import BotTable
from daihinmin.players.registry import make_bot
from daihinmin.rules.choices import ChoiceKind
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet, Scoring
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from gymnasium import spaces
from pettingzoo import AECEnv

from .actions import CARD_BITS, IllegalActionError, action_table
from .observe import Decision, ObservationLayout, PlayedCards, encode
from .render import FrameLog, text_frame
from .tables import resolve_rules

AGENT_PREFIX = "player_"
REWARDS = ("game", "match")
Observation = dict[str, npt.NDArray[Any]]


def agent_name(player: int) -> str:
    return f"{AGENT_PREFIX}{player}"


class DaihinminEnv(AECEnv):  # type: ignore[misc]  # (pettingzoo has no type information)
    """The bare AEC environment (``daihinmin.env.raw_env``); see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"name": "daihinmin_v0", "render_modes": ["ansi", "html"],
                                "is_parallelizable": False}

    def __init__(self, rules: str | RuleSet = "uecda", players: int | None = None,
                 seed: int | None = None, games: int = 1, reward: str = "game",
                 render_mode: str | None = None, rule_overrides: Sequence[str] = (),
                 bots: Mapping[int, str | Bot] | None = None) -> None:
        super().__init__()
        if games < 1:
            raise ValueError(f"games must be 1 or more, got {games}")
        if reward not in REWARDS:
            raise ValueError(f"reward is one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        self.rules = resolve_rules(rules, players, rule_overrides)
        self.games = games
        self.reward_mode = reward
        self.render_mode = render_mode
        self.table = action_table(self.rules)
        self.layout = ObservationLayout.of(self.rules)
        n = self.rules.players
        self.bot_seats = dict(bots or {})
        if not set(self.bot_seats) <= set(range(n)) or len(self.bot_seats) >= n:
            raise ValueError(f"bots take some of the seats 0..{n - 1} and leave one or more "
                             f"to the agents, got {sorted(self.bot_seats)}")
        self.possible_agents = [agent_name(p) for p in range(n) if p not in self.bot_seats]
        self._player = {agent_name(p): p for p in range(n)}
        self.bot_table: BotTable | None = None
        observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.layout.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.table.size,), np.int8)})
        action_space = spaces.Discrete(self.table.size)
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self._sign = 1 if self.rules.scoring is Scoring.PLACE else -1
        self._pending_seed = seed
        self._seeds = np.random.default_rng(seed)
        self.match_seed = -1
        self.match: MatchState | None = None
        self.driver: GameDriver | None = None
        self.request: Request | None = None
        self.picked = 0  # card mask picked so far in the open exchange or choice
        self._mask: npt.NDArray[np.int8] | None = None  # the acting agent's, this decision
        self._acting_view: GameView | None = None  # the acting agent's, this decision
        self._played = PlayedCards()
        self.frames = FrameLog()

    # --- the spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- episodes ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None and self._pending_seed is not None:
            seed = self._pending_seed
        self._pending_seed = None
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            self.match_seed = int(seed)
        else:
            self.match_seed = int(self._seeds.integers(0, 2**31 - 1))
        self.match = MatchState(self.rules, seed=self.match_seed, games=self.games)
        self.bot_table = self._seat_bots() if self.bot_seats else None
        self.driver = GameDriver(self.match)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.frames = FrameLog()
        self._played = PlayedCards()
        self._advance()

    def _seat_bots(self) -> BotTable:
        """The seats' bots for this match: a name is made anew with a seed from the match's
        (so a seeded episode replays exactly); an object is kept from match to match."""
        seats: list[Bot] = []
        for p in range(self.rules.players):
            bot = self.bot_seats.get(p)
            if isinstance(bot, str):
                bot = make_bot(bot, seed=self.match_seed * 8 + p)
            seats.append(bot if bot is not None else Bot())  # (an agent's seat: no callbacks)
        for p, bot in enumerate(seats):
            bot.on_match_start(p)
        return BotTable(seats)

    def _advance(self) -> None:
        """Run the driver to its next request (or the end of the match)."""
        driver = self.driver
        assert driver is not None and self.match is not None
        self.request = None
        self.picked = 0
        self._mask = None
        self._acting_view = None
        keep_frames = self.render_mode == "html"
        while True:
            out = driver.next()
            if out is None:
                if self.match.finished:
                    self._end_match()
                    return
                driver = self.driver = GameDriver(self.match)
                continue
            table = self.bot_table
            if isinstance(out, MoveRequest | ExchangeRequest | ChoiceRequest):
                if table is not None and out.player in self.bot_seats:
                    table.answer(driver, out)
                    continue
                self.request = out
                self.agent_selection = agent_name(out.player)
                return
            if table is not None and isinstance(out, GameStarted | TurnDone | GameOver):
                table.handle(driver, out)
            if isinstance(out, GameOver) and self.reward_mode == "game":
                for agent in self.agents:
                    points = out.result.points[self._player[agent]]
                    self.rewards[agent] = float(self._sign * points)
            if keep_frames and isinstance(out, ExchangeDone | TurnDone | GameOver):
                self.frames.add(driver, out)

    def _end_match(self) -> None:
        assert self.match is not None
        if self.reward_mode == "match":
            for agent in self.agents:
                points = self.match.points[self._player[agent]]
                self.rewards[agent] = float(self._sign * points)
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[0]

    # --- acting -----------------------------------------------------------------------------
    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} must act (got None)")
        a = int(action)
        if not 0 <= a < self.table.size or not self.action_mask(agent)[a]:
            raise IllegalActionError(f"action {a} ({self._describe(a)}) is not legal for "
                                     f"{agent} now")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._act(a)
        self._accumulate_rewards()

    def _describe(self, action: int) -> str:
        return self.table.describe(action) if 0 <= action < self.table.size else "no action"

    def _act(self, action: int) -> None:
        request, driver, table = self.request, self.driver, self.table
        assert request is not None and driver is not None
        if isinstance(request, MoveRequest):
            driver.move(table.move(action))
            self._advance()
            return
        if action != table.done:
            self.picked |= 1 << table.picked_card(action)
            self._mask = None
        if self._answer_complete(request, action == table.done):
            cards = CardSet(self.picked)
            if isinstance(request, ExchangeRequest):
                driver.exchange(cards)
            else:
                driver.choose(cards)
            self._advance()

    def _answer_complete(self, request: ExchangeRequest | ChoiceRequest, done: bool) -> bool:
        picked = self.picked.bit_count()
        if isinstance(request, ExchangeRequest):
            return picked >= request.count
        hand = self._view(request.player).hand
        return done or picked >= min(request.choice.count, len(hand))

    def answer_actions(self, answer: Move | CardSet) -> list[int]:
        """The actions that give ``answer`` to the open request: a move's action, or one
        pick per card (cards not yet picked, in card order; ``done`` after them when a choice
        takes fewer cards than it allows).  With :meth:`view`, this lets a bot
        (:class:`~daihinmin.contract.view.Bot`) act in the environment."""
        request, table = self.request, self.table
        if request is None:
            raise IllegalActionError("nothing is asked: the match is over")
        if isinstance(request, MoveRequest):
            if not isinstance(answer, Move):
                raise IllegalActionError(f"a move is asked, not cards ({answer})")
            return [table.index(answer)]
        if not isinstance(answer, CardSet):
            raise IllegalActionError(f"cards are asked, not a move ({answer})")
        todo = CardSet(answer.mask & ~self.picked)
        actions = [table.pick_index(c) for c in todo]
        if isinstance(request, ChoiceRequest):
            hand = self._view(request.player).hand
            if (self.picked | todo.mask).bit_count() < min(request.choice.count, len(hand)):
                actions.append(table.done)
        return actions

    # --- what an agent sees -------------------------------------------------------------------
    def view(self, agent: str) -> GameView:
        """``agent``'s bot view now (the facts its observation is made of)."""
        return self._view(self._player[agent])

    def _view(self, player: int) -> GameView:
        request = self.request
        if request is not None and request.player == player:
            view = self._acting_view  # (nothing changes until the agent acts)
            if view is None:
                assert self.driver is not None
                view = self._acting_view = self.driver.view(player)
            return view
        assert self.driver is not None
        return self.driver.view(player)

    def _decision(self, player: int) -> tuple[Decision, int]:
        """What ``player`` is asked now, and how many cards it still has to pick."""
        request = self.request
        if request is None or request.player != player:
            return Decision.NONE, 0
        if isinstance(request, MoveRequest):
            return Decision.MOVE, 0
        picked = self.picked.bit_count()
        if isinstance(request, ExchangeRequest):
            return Decision.EXCHANGE, request.count - picked
        kind = Decision.GIVE if request.choice.kind is ChoiceKind.GIVE else Decision.DISCARD
        return kind, request.choice.count - picked

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """The legal actions of ``agent`` now (all zeros when it is not asked)."""
        player = self._player[agent]
        asked = (self.request is not None and self.request.player == player
                 and not self.terminations.get(agent, True))
        if asked and self._mask is not None:
            return self._mask
        mask = np.zeros(self.table.size, dtype=np.int8)
        if not asked:
            return mask
        request, table = self.request, self.table
        view = self._view(player)
        if isinstance(request, MoveRequest):
            index = table.index
            for move in view.legal_moves():
                mask[index(move)] = 1
        else:
            free = view.hand.mask & ~self.picked
            first = table.first_pick
            for slot, bit in enumerate(CARD_BITS):
                if free >> bit & 1:
                    mask[first + slot] = 1
            if isinstance(request, ChoiceRequest):
                mask[table.done] = 1
        self._mask = mask
        return mask

    def observe(self, agent: str) -> Observation:
        player = self._player[agent]
        decision, to_pick = self._decision(player)
        view = self._view(player)
        vector = encode(view, self.layout, decision,
                        CardSet(self.picked) if decision is not Decision.NONE else None,
                        to_pick, self._played.of(view))
        return {"observation": vector, "action_mask": self.action_mask(agent).copy()}

    # --- showing the game ---------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.driver is None:
            raise RuntimeError("reset the environment before rendering it")
        if self.render_mode == "html":
            return self.frames.page(self.rules, self.match_seed, self.games)
        return text_frame(self.driver, self.match)

    def close(self) -> None:
        """Nothing to release (the environment holds no files or processes)."""


__all__ = ["AGENT_PREFIX", "DaihinminEnv", "agent_name", "resolve_rules"]
