"""Bots that record what the client library shows them, to compare its fast and plain paths."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from daihinmin.client import Bot, ClientProtocol, GameView, Observed, run_bot_async
from daihinmin.client.protocol import Step
from daihinmin.client.trio_runner import run_protocol_async
from daihinmin.players.default_bot import DefaultBot
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

pytestmark = pytest.mark.timeout(120)

IO_TIMEOUT = 30.0



def messages(reads: list[bytes]) -> list[bytes]:
    """The session cut into its messages (by the protocol's own order)."""
    proto = ClientProtocol(DefaultBot())
    proto.initiate()
    data, pos, out = b"".join(reads), 0, []
    while not proto.done:
        size = proto.expecting.size
        out.append(data[pos:pos + size])
        proto.receive(data[pos:pos + size])
        pos += size
    assert pos == len(data)
    return out


class Witness(DefaultBot):
    """The sample client, keeping everything it is shown (also told every turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[Any, ...]] = []

    def exchange(self, view: GameView, count: int) -> CardSet:
        self.seen.append(("exchange", view, count))
        return super().exchange(view, count)

    def play(self, view: GameView) -> Move:
        self.seen.append(("play", view))
        return super().play(view)

    def on_game_start(self, view: GameView) -> None:
        self.seen.append(("start", view))

    def on_turn(self, view: GameView, observed: Observed, accepted: bool) -> None:
        self.seen.append(("turn", view, observed, accepted))

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        self.seen.append(("end", view, places))


class QuietWitness(DefaultBot):
    """The same without ``on_turn`` (the client then builds no view between its turns)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[Any, ...]] = []

    def play(self, view: GameView) -> Move:
        self.seen.append(("play", view))
        return super().play(view)

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        self.seen.append(("end", view, places))


class Recording(ClientProtocol):
    """A client keeping each read it is fed."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.reads: list[bytes] = []

    def feed(self, data: bytes) -> list[bytes]:
        self.reads.append(data)
        return super().feed(data)


def play_seat_zero(proto: ClientProtocol, games: int, seed: int, **config: Any) -> None:
    """A real server's seeded match over loopback: ``proto`` joins first (seat 0, over its
    own socket), four ``default`` bots after it; ``config``: more ``ServerConfig`` fields."""
    from daihinmin.server import match_server as server_mod
    from daihinmin.server.config import ServerConfig

    async def main() -> None:
        server_config = ServerConfig(rules=UECDA, games=games, seed=seed, port=0, **config)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(
                lambda task_status: server_mod.serve_match(server_config,
                                                           server_mod.MatchObserver(),
                                                           task_status=task_status))

            async def recorded() -> None:
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                async with stream:
                    await run_protocol_async(stream, proto, IO_TIMEOUT)
            nursery.start_soon(recorded)
            while proto.step is Step.PLAYER_NUMBER:
                await trio.sleep(0.002)
            for _ in range(4):
                nursery.start_soon(lambda: run_bot_async(DefaultBot(), "127.0.0.1", port,
                                                         read_timeout=IO_TIMEOUT))

    trio.run(main)


def assert_read_alike(reads: list[bytes], by_feed: ClientProtocol, by_message: ClientProtocol,
                      fast: Witness | QuietWitness, slow: Witness | QuietWitness,
                      games: int) -> None:
    """``reads`` fed to ``by_feed`` as they came off the socket and to ``by_message`` one
    message at a time: the same replies, views, record and counts, for ``games`` games."""
    by_feed.initiate()
    by_message.initiate()
    fed = [reply for data in reads for reply in by_feed.feed(data)]
    one_by_one = [reply for msg in messages(reads) for reply in by_message.receive(msg)]
    assert by_feed.done and by_message.done and by_feed.record.games == games
    assert fed == one_by_one
    assert len(fast.seen) == len(slow.seen) > games * 10
    for a, b in zip(fast.seen, slow.seen, strict=True):
        assert a == b
    assert by_feed.record == by_message.record
    assert by_feed.received == by_message.received
