"""The server over protocol 20260, on real loopback TCP: 3-6 players, choices, the refusal of
plain 20070 clients at tables that need the extension, and mixed tables."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import trio
import trio.testing
from daihinmin.client import Bot, ClientProtocol, GameView, MatchRecord, run_bot_async
from daihinmin.client.extension import ExtensionRequiredError
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.random_bot import RandomBot
from daihinmin.records.matchlog import MatchLog, read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.ruleset import RuleSet, ruleset_from
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer
from daihinmin.values.cards import DECK52, CardSet
from late_client import LateStream, run_late_bot
from probe import ProbePlayer
from seating import seat, seat_bots

HOST = "127.0.0.1"
ALL_CHOICES = ["seven_pass=yes", "ten_discard=yes", "five_skip=yes", "nine_reverse=yes",
               "geki_shibari=yes", "sandstorm=yes", "ambulance=yes"]


class RandomChooser(RandomBot):
    """Random moves, and a random valid answer to every choice (giving nothing included)."""

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        return self.rng.choice(view.legal_choices())


class BadChooser(DefaultBot):
    """Answers every choice with a card it does not hold."""

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        missing = CardSet(DECK52) - view.hand
        return CardSet.of([next(iter(missing))])


def config_for(rules: RuleSet, log: Path, games: int = 2, seed: int = 4) -> ServerConfig:
    # No deadlines: a loaded test machine must not turn slow answers into faults.
    return ServerConfig(rules=rules, games=games, seed=seed, port=0, log_path=log,
                        move_timeout=None, exchange_timeout=None)


async def serve_bots(config: ServerConfig, bots: Sequence[Bot]) -> list[MatchRecord]:
    """The server plus one client per bot, seated in list order; records by player."""
    records: list[MatchRecord] = []
    async with trio.open_nursery() as nursery:
        server = MatchServer(config)
        port = await nursery.start(server.run)
        await seat_bots(nursery, server, port, bots, records, rules=config.rules)
    return sorted(records, key=lambda r: r.player)


def check_log(log: MatchLog, records: list[MatchRecord]) -> None:
    summary = verify_log(log)
    assert summary.complete and summary.games == log.header.games
    assert [p.protocol for p in log.header.players] == [20260] * len(records)
    for record in records:
        assert record.illegal_moves == 0  # the client's legal moves are the engine's
        assert record.places == [tuple(g.places) for g in log.games]


@pytest.mark.parametrize(("preset", "overrides"), [
    ("original", []),  # 6 players: player 5 travels in row 7
    ("app", ["players=3", *ALL_CHOICES]),
    ("app", ["players=5", *ALL_CHOICES]),
    ("thirteenth_floor", ["players=6", "seven_pass=yes"]),
], ids=["original-6p", "app-3p-local-rules", "app-5p-local-rules", "13th-floor-6p"])
def test_extension_tables_play_and_verify(preset: str, overrides: list[str],
                                          tmp_path: Path) -> None:
    rules = ruleset_from(preset, overrides)
    bots = [RandomChooser(seed=i) if i % 2 else DefaultBot() for i in range(rules.players)]
    records = trio.run(serve_bots, config_for(rules, tmp_path / "m.jsonl", games=3), bots)
    log = read_match_log(tmp_path / "m.jsonl")
    check_log(log, records)
    logged = [c for g in log.games for t in g.turns for c in t.choices]
    assert len(logged) == sum(r.choices for r in records)
    if rules.seven_pass:
        assert logged, "a 7 was played in three games"
        assert not any(c.substituted for c in logged)


def test_an_invalid_choice_answer_gets_8_and_the_default(tmp_path: Path) -> None:
    rules = ruleset_from("app", ["seven_pass=yes", "ten_discard=yes"])
    bots = [BadChooser(), DefaultBot(), DefaultBot(), DefaultBot()]
    records = trio.run(serve_bots, config_for(rules, tmp_path / "m.jsonl", games=3), bots)
    log = read_match_log(tmp_path / "m.jsonl")
    check_log(log, records)
    mine = [c for g in log.games for t in g.turns if t.player == 0 for c in t.choices]
    assert mine and all(c.substituted and "not up to" in (c.error or "") for c in mine)
    assert records[0].choices_rejected == records[0].choices == len(mine)
    others = [c for g in log.games for t in g.turns if t.player != 0 for c in t.choices]
    assert not any(c.substituted for c in others)


def test_a_20070_client_is_refused_and_the_seat_stays_free(tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture
                                                           ) -> None:
    rules = ruleset_from("web")
    config = config_for(rules, tmp_path / "m.jsonl", games=1)

    async def main() -> tuple[list[MatchRecord], BaseException | None]:
        refusal: BaseException | None = None
        async with trio.open_nursery() as nursery:
            server = MatchServer(config)
            port = await nursery.start(server.run)
            try:  # a 20070 client: the uecda rules do not need the extension
                await run_bot_async(DefaultBot(), HOST, port, extension=False)
            except ExtensionRequiredError as exc:
                refusal = exc
            assert server.players == []
            records: list[MatchRecord] = []
            await seat_bots(nursery, server, port, [RandomBot(i) for i in range(rules.players)],
                            records, rules=rules)
        return records, refusal

    records, refusal = trio.run(main)
    assert isinstance(refusal, ExtensionRequiredError)
    assert "need protocol 20260" in caplog.text and "the client speaks 20070" in caplog.text
    records.sort(key=lambda r: r.player)
    check_log(read_match_log(tmp_path / "m.jsonl"), records)


def test_20070_and_20260_clients_share_a_uecda_table(tmp_path: Path) -> None:
    """20070 probes check every table they get (row 7 all 0, the 20070 answers); the 20260
    clients get the extension cells on the same tables."""
    rules = ruleset_from("uecda")
    config = config_for(rules, tmp_path / "m.jsonl", games=3)
    probes = [ProbePlayer(HOST, 0, f"old{i}", seed=i) for i in range(3)]

    async def main() -> list[MatchRecord]:
        records: list[MatchRecord] = []
        async with trio.open_nursery() as nursery:
            server = MatchServer(config)
            port = await nursery.start(server.run)
            for probe in probes:
                probe.port = port
                await trio.to_thread.run_sync(probe.join)
                nursery.start_soon(trio.to_thread.run_sync, probe.run)
            await seat_bots(nursery, server, port, [RandomBot(1), RandomBot(2)], records,
                            extension=True)
        return records

    records = trio.run(main)
    log = read_match_log(tmp_path / "m.jsonl")
    assert [p.protocol for p in log.header.players] == [20070] * 3 + [20260] * 2
    assert verify_log(log).complete
    for record in records:
        assert record.illegal_moves == 0
        assert record.places == [tuple(g.places) for g in log.games]


def test_clients_speak_20260_only_when_needed() -> None:
    assert ClientProtocol(RandomBot(), rules=ruleset_from("uecda")).version == 20070
    rng = random.Random(3)
    for preset in ("original", "web", "app", "thirteenth_floor"):
        assert ClientProtocol(RandomBot(rng.randrange(9)),
                              rules=ruleset_from(preset)).version == 20260


class SlowFirstChooser(DefaultBot):
    """Thinks too long over its first choice only (``think(seconds)`` passes the time: a
    real sleep, or a late reply on Trio's clock)."""

    def __init__(self, think: Callable[[float], None], seconds: float) -> None:
        self.think = think
        self.seconds = seconds
        self.calls = 0

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        self.calls += 1
        if self.calls == 1:
            self.think(self.seconds)
        return super().choose(view, choice)


async def test_a_choice_answer_past_its_deadline_is_a_timeout(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """The server answers 8 at the deadline and applies the default; the late answer is
    thrown away when it comes, and the client stays in step.  Server and clients share one
    Trio run on the mock clock: the slow choice's reply goes out 1.5 s late."""
    rules = ruleset_from("app", ["seven_pass=yes", "ten_discard=yes"])
    config = ServerConfig(rules=rules, games=3, seed=4, port=0, log_path=tmp_path / "m.jsonl",
                          move_timeout=0.5, exchange_timeout=None, time_bank=0.0)
    late = LateStream()
    slow = SlowFirstChooser(late.hold, seconds=1.5)

    records: list[MatchRecord] = []
    async with trio.open_nursery() as nursery:
        server = MatchServer(config)
        port = await nursery.start(server.run)

        async def play_slow() -> None:
            records.append(await run_late_bot(slow, late, port, rules=rules))

        await seat(nursery, server, play_slow)  # player 0
        await seat_bots(nursery, server, port, [DefaultBot() for _ in range(3)], records,
                        rules=rules)
    log = read_match_log(tmp_path / "m.jsonl")
    assert verify_log(log).complete
    mine = [c for g in log.games for t in g.turns if t.player == 0 for c in t.choices]
    assert slow.calls >= 1 and mine
    assert mine[0].fault == "TIMEOUT" and mine[0].substituted
    record = next(r for r in records if r.player == 0)
    assert record.choices_rejected >= 1 and len(record.places) == 3
