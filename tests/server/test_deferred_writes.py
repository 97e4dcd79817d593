"""Deferred writes (``server.outbox``) over real TCP on 127.0.0.1: what a player is sent is
held until the server waits for that player, the game ends or its connection closes; a seat
a person watches gets everything at every wait.  (That every write mode carries the same
bytes: ``test_server_e2e``; the strict 480-byte reader: ``test_bench_tcp``.)"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable

import trio
from daihinmin.driver.faults import SeatStatus
from daihinmin.driver.record import GameRecord, TurnRecord
from daihinmin.protocol.codec import build_profile
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.match_server import MatchObserver
from daihinmin.server.outbox import HELD_CHUNKS, Outbox
from daihinmin.server.seats import SeatTable
from loopback import loopback_pairs
from probe import ProbePlayer, serve_probes

QUIET_SECONDS = 0.1  # loopback delivers a write in microseconds: nothing by then is nothing


async def receive(client: trio.SocketStream, size: int) -> bytes:
    data = bytearray()
    with trio.fail_after(5):
        while len(data) < size:
            chunk = await client.receive_some(size - len(data))
            assert chunk, "the connection closed"
            data += chunk
    return bytes(data)


async def nothing_came(client: trio.SocketStream) -> bool:
    with trio.move_on_after(QUIET_SECONDS):
        await client.receive_some(1)
        return False
    return True


@contextlib.asynccontextmanager
async def deferred_seats(count: int, watched: list[bool] | None = None
                         ) -> AsyncIterator[tuple[SeatTable, list[trio.SocketStream], Outbox]]:
    """``count`` seats over loopback TCP with a deferred outbox; all closed at the end."""
    pairs = await loopback_pairs(count)
    seats = SeatTable.of([conn for conn, _ in pairs], ServerConfig(port=0), watched=watched)
    clients = [client for _, client in pairs]
    try:
        yield seats, clients, Outbox(seats, WriteMode.DEFERRED)
    finally:
        await seats.close_all()
        for client in clients:
            await client.aclose()


async def test_only_the_player_waited_on_and_the_watched_seat_get_their_messages() -> None:
    async with deferred_seats(3, watched=[False, False, True]) as (_, clients, outbox):
        turn = [bytes([n]) * 480 for n in (1, 2, 3)]
        await outbox.raw_each(turn)
        await outbox.int(0, 9)  # the answer to player 0
        await outbox.raw_to_all(b"F" * 480, b"\0\0\0\0")
        await outbox.flush(1)  # the server waits for player 1
        tail = b"F" * 480 + b"\0\0\0\0"
        assert await receive(clients[1], 964) == turn[1] + tail
        assert await receive(clients[2], 964) == turn[2] + tail  # watched: at every wait
        assert await nothing_came(clients[0])
        again = [bytes([n]) * 480 for n in (4, 5, 6)]
        await outbox.raw_each(again)
        await outbox.flush(2)
        assert await receive(clients[2], 480) == again[2]
        assert await nothing_came(clients[0]) and await nothing_came(clients[1])
        await outbox.flush()  # the game's end: everyone, in the order queued
        held = turn[0] + b"\0\0\0\x09" + tail + again[0]
        assert await receive(clients[0], len(held)) == held
        assert await receive(clients[1], 480) == again[1]


async def test_a_player_not_waited_on_for_long_gets_its_messages_in_small_writes() -> None:
    async with deferred_seats(2) as (_, clients, outbox):
        for turn in range(HELD_CHUNKS - 1):
            await outbox.raw_each([bytes([turn]) * 480] * 2)
            await outbox.flush(1)
        assert await nothing_came(clients[0])
        await outbox.raw_each([b"z" * 480] * 2)
        await outbox.flush(1)  # HELD_CHUNKS now: written with the next wait
        held = b"".join(bytes([turn]) * 480 for turn in range(HELD_CHUNKS - 1)) + b"z" * 480
        assert await receive(clients[0], len(held)) == held


async def test_what_is_held_goes_out_before_the_server_closes_a_connection() -> None:
    async with deferred_seats(2) as (seats, clients, outbox):
        await outbox.raw_each([b"a" * 480, b"b" * 480])
        await seats.hand_over(0, SeatStatus.MALFORMED, "handed over in the test")
        assert await receive(clients[0], 480) == b"a" * 480
        assert await clients[0].receive_some(1) == b""  # then closed
        await seats.close_all()  # the match ends with player 1's bytes still held
        assert await receive(clients[1], 480) == b"b" * 480
        assert await clients[1].receive_some(1) == b""


def wait_until(done: Callable[[], bool], seconds: float = 5.0) -> bool:
    """``done()`` polled while the probes' threads read (the server's loop is held)."""
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.001)
    return True


class Checks(MatchObserver):
    """After each turn: the watched probe has seen the turn's table, and the others who did
    not move mostly have not (only when HELD_CHUNKS were held for one: one turn in 16);
    after each game: everyone has its end flag."""

    def __init__(self, probes: list[ProbePlayer], watched: int) -> None:
        self.probes, self.watched = probes, watched
        self.failures: list[str] = []
        self.turns = 0
        self.others = self.early = 0  # players neither moving nor watched; those with the table

    def seen(self, probe: ProbePlayer, game: int) -> int:
        games = probe.record.games
        return len(games[game - 1].turns) if len(games) >= game else -1

    def turn_played(self, setup: GameSetup, state: GameState, turn: TurnRecord | None) -> None:
        if turn is None or self.failures:
            return
        self.turns += 1
        t, game = state.turns, setup.game
        if not wait_until(lambda: self.seen(self.probes[self.watched], game) >= t):
            self.failures.append(f"game {game} turn {t}: the watched seat lacks its table")
        for probe in self.probes:
            if probe.record.number not in (self.watched, turn.player):
                self.others += 1
                self.early += self.seen(probe, game) >= t

    def game_finished(self, record: GameRecord) -> None:
        if not wait_until(lambda: all(len(p.record.games) >= record.game and
                                      p.record.games[record.game - 1].end_flag
                                      for p in self.probes)):
            self.failures.append(f"game {record.game}: a player lacks the game's end")


def test_a_deferred_match_waits_on_nobody_with_bytes_held_and_ends_each_game_whole() -> None:
    probes = [ProbePlayer("127.0.0.1", 0, f"probe{i}", seed=40 + i) for i in range(5)]
    checks = Checks(probes, watched=3)
    config = ServerConfig(games=3, seed=19, port=0, write_mode=WriteMode.DEFERRED)
    person = build_profile("person3", person=True).to_bytes()
    outcome, records = trio.run(serve_probes, config, probes, checks, {3: person})
    assert checks.failures == [] and checks.turns > 100
    assert checks.early * HELD_CHUNKS <= checks.others * 2  # one turn in HELD_CHUNKS / 2
    # a player the server waited on with its table still held would have timed out
    assert all(report.pristine for report in outcome.seats), outcome.seats
    assert [r.games[-1].end_flag for r in records] == [2] * 5
