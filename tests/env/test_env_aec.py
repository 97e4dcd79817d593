"""The PettingZoo AEC environment (daihinmin.env): PettingZoo's own API and seed tests at
every preset and table size, the engine's games move for move, observations blind to hidden
cards, rewards by the preset's scoring, rendering and illegal actions."""

from __future__ import annotations

import copy
import random
import warnings
from typing import Any

import daihinmin.env as denv
import numpy as np
import pytest
from daihinmin.contract.view import Bot
from daihinmin.driver.game import ChoiceRequest, ExchangeRequest, MoveRequest
from daihinmin.driver.record import GameRecord
from daihinmin.env.actions import IllegalActionError, action_table
from daihinmin.env.aec import DaihinminEnv, resolve_rules
from daihinmin.env.observe import Decision, ObservationLayout
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.ruleset import PRESETS
from daihinmin.values.cards import CardSet
from pettingzoo.test import api_test, seed_test


def _table_rules(name: str, n: int) -> tuple[str, ...]:
    """The overrides a preset needs at ``n`` players (uecda's five places of points: six
    players need a sixth)."""
    rules = PRESETS[name]
    if rules.points and len(rules.points) < n:
        return (f"points={','.join(map(str, range(n, 0, -1)))}",)
    return ()


# Every preset at every table size its rules allow, and app with both choice rules on.
TABLES = [(name, n) for name, rules in PRESETS.items()
          for n in range(rules.min_players, rules.max_players + 1)]
CHOICES = ("app", ("seven_pass=yes", "ten_discard=yes"))


def quiet_api_test(env: Any, cycles: int) -> None:
    with warnings.catch_warnings():  # (its notes on dict observations, as for its own envs)
        warnings.simplefilter("ignore", UserWarning)
        api_test(env, num_cycles=cycles)


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_pettingzoo_api_test_passes_at_every_preset_and_table_size(preset: str,
                                                                   players: int) -> None:
    cycles = 40 if preset == "thirteenth_floor" else 120  # (its action mask is 133k long)
    quiet_api_test(denv.env(rules=preset, players=players, games=3,
                            rule_overrides=_table_rules(preset, players)), cycles)


def test_api_test_passes_with_the_choices_and_exchanges_asked() -> None:
    preset, rules = CHOICES
    quiet_api_test(denv.env(rules=preset, rule_overrides=rules, games=3), 300)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_pettingzoo_seed_test_passes(preset: str) -> None:
    seed_test(lambda: denv.env(rules=preset, games=2), num_cycles=60)


class ChoosyBot(Bot):
    """Random moves and exchanges, and random answers to choices (fewer cards, too)."""

    def __init__(self, seed: int) -> None:
        self.bot = make_bot("random", seed=seed)
        self.rng = random.Random(seed)

    def play(self, view: Any) -> Any:
        return self.bot.play(view)

    def exchange(self, view: Any, count: int) -> CardSet:
        return self.bot.exchange(view, count)

    def choose(self, view: Any, choice: PendingChoice) -> CardSet:
        return self.rng.choice(view.legal_choices())


def drive(env: DaihinminEnv, bots: list[Bot], seed: int
          ) -> tuple[list[GameRecord], set[Decision]]:
    """Play a seeded episode with each agent's actions taken from its bot's answers; the
    records of its games and the kinds of decision asked."""
    records: list[GameRecord] = []
    env.reset(seed=seed)
    queued: list[int] = []
    kinds: set[Decision] = set()
    for agent in env.agent_iter():
        _, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        driver = env.driver
        assert driver is not None
        if not records or records[-1] is not driver.record:
            records.append(driver.record)
        if not queued:
            p = int(agent.removeprefix("player_"))
            view, request = env.view(agent), env.request
            if isinstance(request, MoveRequest):
                answer: Any = bots[p].play(view)
            elif isinstance(request, ExchangeRequest):
                answer = bots[p].exchange(view, request.count)
            else:
                assert isinstance(request, ChoiceRequest)
                answer = bots[p].choose(view, request.choice)
            kinds.add(env._decision(p)[0])
            queued = env.answer_actions(answer)
        action = queued.pop(0)
        assert env.observe(agent)["action_mask"][action] == 1
        env.step(action)
    return records, kinds


def untimed(record: GameRecord) -> dict[str, Any]:
    """A record's JSON without the think times (the runner times its bots)."""
    data = record.to_json()
    for turn in data["turns"]:
        turn.pop("think_ms", None)
    return data


@pytest.mark.parametrize(("preset", "overrides"),
                         [("uecda", ()), ("original", ()), ("web", ()), ("thirteenth_floor", ()),
                          CHOICES])
def test_the_environment_plays_the_engines_games_move_for_move(
        preset: str, overrides: tuple[str, ...]) -> None:
    """Bots acting through the environment's actions play exactly the games the in-process
    runner plays with the same bots and seed (deals, exchanges, choices, moves, places)."""
    rules = resolve_rules(preset, rule_overrides=overrides)
    env = DaihinminEnv(rules, games=4)
    seen: set[Decision] = set()
    for seed in (5, 6):
        records, kinds = drive(env, [ChoosyBot(seed * 10 + p) for p in range(rules.players)],
                               seed)
        seen |= kinds
        expected: list[GameRecord] = []
        play_local_match(rules, seed, 4, [ChoosyBot(seed * 10 + p) for p in range(rules.players)],
                         on_game=expected.append)
        assert [untimed(r) for r in records] == [untimed(r) for r in expected]
    assert Decision.MOVE in seen
    if rules.exchange:
        assert Decision.EXCHANGE in seen
    if overrides:
        assert {Decision.GIVE, Decision.DISCARD} <= seen


def _swap_hidden(hands: list[CardSet], keep: int, rng: random.Random) -> bool:
    """Swap one card between two other players' hands (counts kept); False if none can."""
    others = [p for p in range(len(hands)) if p != keep and hands[p]]
    if len(others) < 2:
        return False
    a, b = rng.sample(others, 2)
    ca, cb = rng.choice(sorted(hands[a])), rng.choice(sorted(hands[b]))
    if ca == cb:
        return False
    hands[a] = CardSet((hands[a].mask & ~(1 << ca)) | 1 << cb)
    hands[b] = CardSet((hands[b].mask & ~(1 << cb)) | 1 << ca)
    return True


@pytest.mark.parametrize(("preset", "overrides"),
                         [*((name, ()) for name in sorted(PRESETS)), CHOICES])
def test_changing_hidden_cards_never_changes_an_observation(
        preset: str, overrides: tuple[str, ...]) -> None:
    """At random decisions, the other players' cards (and the draw pile) are shuffled among
    them in a copy of the game: the acting agent's observation and mask stay the same."""
    env = DaihinminEnv(preset, games=3, rule_overrides=overrides)
    rng = random.Random(7)
    changed = 0
    for seed in range(2):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            if rng.random() < 0.2:
                other = copy.deepcopy(env)
                p = int(agent.removeprefix("player_"))
                driver = other.driver
                assert driver is not None
                if driver.state is not None:
                    swapped = _swap_hidden(driver.state.hands, p, rng)
                    rng.shuffle(driver.state.pile)
                else:  # the exchange: the deal as the setup holds it
                    swapped = _swap_hidden(driver.setup.hands, p, rng)
                    _swap_hidden(driver.setup.dealt, p, rng)
                other._acting_view = None  # (the copy's view is made from its own state)
                seen = other.observe(agent)
                assert np.array_equal(seen["observation"], obs["observation"])
                assert np.array_equal(seen["action_mask"], obs["action_mask"])
                changed += swapped
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(rng.choice(legal)))
    assert changed > 10


@pytest.mark.parametrize(("preset", "reward"),
                         [("uecda", "game"), ("thirteenth_floor", "game"),
                          ("web", "match"), ("thirteenth_floor", "match")])
def test_rewards_follow_the_presets_scoring(preset: str, reward: str) -> None:
    env = DaihinminEnv(preset, games=3, reward=reward)
    env.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rewarded_steps = 0
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _cumulative, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        rewarded_steps += any(env.rewards.values())
        for a, r in env.rewards.items():
            totals[a] += r
    assert env.match is not None
    sign = -1 if preset == "thirteenth_floor" else 1  # card penalties: lower is better
    assert totals == {f"player_{p}": float(sign * pts) for p, pts in enumerate(env.match.points)}
    assert rewarded_steps == (3 if reward == "game" else 1)


def test_a_seed_plays_the_same_match_again_and_the_next_seeds_follow_it() -> None:
    def episode(env: DaihinminEnv, seed: int | None) -> list[int]:
        env.reset(seed=seed)
        actions: list[int] = []
        for _agent in env.agent_iter():
            obs, _, terminated, _, _ = env.last()
            action = None if terminated else int(np.flatnonzero(obs["action_mask"])[0])
            actions.append(-1 if action is None else action)
            env.step(action)
        return actions

    one, two = DaihinminEnv("uecda", seed=4), DaihinminEnv("uecda")
    assert episode(one, None) == episode(two, 4)
    assert one.match_seed == two.match_seed == 4
    assert episode(one, None) == episode(two, None)  # the next seed: drawn from the last one
    assert one.match_seed == two.match_seed != 4


def test_render_shows_text_and_the_replay_page() -> None:
    text_env = DaihinminEnv("uecda", games=1, render_mode="ansi")
    html_env = DaihinminEnv("uecda", games=1, render_mode="html")
    for env in (text_env, html_env):
        env.reset(seed=3)
        for _ in range(12):
            obs, *_ = env.last()
            env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    text = text_env.render()
    assert text is not None and "field:" in text and "to move" in text
    assert text.count("\np") == 5  # a line per player
    page = html_env.render()
    assert page is not None and page.startswith("<!doctype html>")
    game = html_env.frames.games[0]
    assert len(game["frames"]) == 13 and game["frames"][12]["text"].startswith("p")
    assert DaihinminEnv("uecda").render() is None  # no render mode: nothing


def test_illegal_actions_are_refused_or_end_the_wrapped_episode() -> None:
    raw = DaihinminEnv("uecda")
    raw.reset(seed=1)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError):
        raw.step(illegal)
    wrapped = denv.env(rules="uecda")
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == denv.ILLEGAL_REWARD


def test_the_action_table_holds_every_play_of_any_hand_once() -> None:
    for rules in PRESETS.values():
        table = action_table(rules)
        assert len(set(table.moves)) == len(table.moves)
        assert table.size == table.plays + 1 + 54 + 1
        assert ObservationLayout.of(rules).size == 472 + 7 * rules.players
    rng = random.Random(2)
    rules = resolve_rules("app", rule_overrides=["sandstorm=yes", "ambulance=yes"])
    env = DaihinminEnv(rules)
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            if isinstance(env.request, MoveRequest):
                legal = env.view(agent).legal_moves()  # every one has its action
                assert sorted(env.table.index(m) for m in legal) == list(
                    np.flatnonzero(obs["action_mask"]))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
