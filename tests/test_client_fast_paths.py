"""``ClientProtocol.feed``'s fast paths (another player's turn under 20070) show a bot exactly
what the handlers show, and a client reads a burst of many tables from one write.

A real session is recorded first: the project's server over loopback TCP with five
clients, one of them keeping every read as it came off the socket.  It is then played
again, in process, through ``feed`` (the fast paths) and through ``receive`` one message at
a time (the handlers alone, the reference): the same view at every call of the bot, the
same observations, replies and record.  Last, a plain socket server sends the same bytes
to a ``run_bot`` client as a server that holds a waiting player's tables would: one write
per wait for that player's answer, many tables each.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio
from daihinmin.client import Bot, ClientProtocol, GameView, Observed, run_bot, run_bot_async
from daihinmin.client.protocol import Step
from daihinmin.client.trio_runner import run_protocol_async
from daihinmin.players.default_bot import DefaultBot
from daihinmin.protocol.table import INT_BYTES, TABLE_BYTES
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

pytestmark = pytest.mark.timeout(120)
GAMES = 12
SEED = 19
IO_TIMEOUT = 30.0


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


@dataclass
class Session:
    reads: list[bytes] = field(default_factory=list)  # as they came off the socket


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


@pytest.fixture(scope="module")
def session() -> Session:
    proto = Recording(DefaultBot())
    play_seat_zero(proto, GAMES, SEED)
    return Session(reads=proto.reads)


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


@pytest.mark.parametrize("witness", [Witness, QuietWitness])
def test_feed_shows_the_bot_what_the_handlers_show(session: Session,
                                                   witness: type[Witness]) -> None:
    fast, slow = witness(), witness()
    by_feed, by_message = ClientProtocol(fast), ClientProtocol(slow)
    assert_read_alike(session.reads, by_feed, by_message, fast, slow, GAMES)


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


def bursts(reads: list[bytes]) -> list[tuple[bytes, int]]:
    """The session as a server holding a player's tables writes it: one write for each
    wait for this player's answer (and at each game's end), with the answer's size."""
    proto = ClientProtocol(DefaultBot())
    proto.initiate()
    out, held = [], b""
    for msg in messages(reads):
        step = proto.step
        held += msg
        replies = proto.feed(msg)
        over = step is Step.END_FLAG and msg != bytes(INT_BYTES)
        if replies or over or step is Step.PLAYER_NUMBER:
            out.append((held, sum(map(len, replies))))
            held = b""
    assert not held
    return out


def test_a_client_reads_many_tables_from_one_write(session: Session) -> None:
    plan = bursts(session.reads)
    expected = [len(b) // TABLE_BYTES for b, _ in plan]
    assert max(expected) >= 8  # some writes do carry many tables
    reference = ClientProtocol(DefaultBot())
    reference.initiate()
    answers = [reference.feed(b) for b, _ in plan]
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(IO_TIMEOUT)
    got: list[bytes] = []
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(IO_TIMEOUT)
                conn.recv(TABLE_BYTES, socket.MSG_WAITALL)  # the profile
                for data, answer in plan:
                    conn.sendall(data)
                    if answer:
                        got.append(conn.recv(answer, socket.MSG_WAITALL))
        except BaseException as exc:  # reported by the test below
            failure.append(exc)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    record = run_bot(DefaultBot(), "127.0.0.1", listener.getsockname()[1],
                     read_timeout=IO_TIMEOUT)
    server.join(IO_TIMEOUT)
    listener.close()
    assert not failure
    assert got == [b"".join(a) for a in answers if a]
    assert record == reference.record and record.games == GAMES
