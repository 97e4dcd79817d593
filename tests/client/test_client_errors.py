"""The client's error paths against scripted server peers on loopback TCP.

Each peer accepts one connection, reads the profile, then plays a fixed script (send these
bytes, read that many, close).  Every test bounds its waits with timeouts: no hangs.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import trio
import trio.testing
from daihinmin.client import (
    Bot,
    GameView,
    MatchRecord,
    ServerClosedError,
    ServerTimeoutError,
    ServerUnreachableError,
    UnexpectedMessageError,
    run_bot,
    run_bot_async,
)
from daihinmin.client.retry import DEFAULT_CONNECT_TIMEOUT, MAX_PAUSE
from daihinmin.client.sync_runner import recv_exactly
from daihinmin.players.random_bot import RandomBot
from daihinmin.protocol.codec import TableState, build_deal, build_field, build_turn, read_hand
from daihinmin.protocol.errors import ProtocolError
from daihinmin.protocol.table import TABLE_BYTES, Table, encode_int
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

pytestmark = pytest.mark.timeout(60)
WAIT = 10.0
RETRY = 0.5  # seconds a runner keeps trying to connect (refused ones are tried again)

HAND = CardSet.parse("S3 S4 S5 H9 JK")
COUNTS = (5, 5, 5, 5, 5)
DEAL = build_deal(HAND, TableState(counts=COUNTS), give=0).to_bytes()
MY_TURN = build_turn(HAND, TableState(my_turn=1, turn_player=0, field_empty=1,
                                      counts=COUNTS)).to_bytes()
FIELD = build_field(Move.parse("S3"), TableState(turn_player=0, counts=(4, 5, 5, 5, 5)))


class ScriptedPeer:
    """Accepts one client, reads its profile, then runs ``script(conn)`` in a thread."""

    def __init__(self, script: Callable[[socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(WAIT)
        self.port = self.listener.getsockname()[1]
        self.script = script
        self.profile: Table | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn, _ = self.listener.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.settimeout(WAIT)
                self.profile = Table.from_bytes(recv_exactly(conn, TABLE_BYTES, "profile"))
                self.script(conn)
        except BaseException as exc:
            self.error = exc
        finally:
            self.listener.close()

    def join(self) -> None:
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error


def sends(*messages: bytes) -> Callable[[socket.socket], None]:
    def script(conn: socket.socket) -> None:
        for m in messages:
            conn.sendall(m)
    return script


def run_sync(peer: ScriptedPeer, bot: Bot | None = None, **kw: object) -> MatchRecord:
    kw.setdefault("read_timeout", WAIT)
    try:
        return run_bot(bot or RandomBot(seed=1), "127.0.0.1", peer.port,
                       **kw)  # type: ignore[arg-type]
    finally:
        peer.join()


def run_async(peer: ScriptedPeer, **kw: Any) -> MatchRecord:
    kw.setdefault("read_timeout", WAIT)

    async def main() -> MatchRecord:
        return await run_bot_async(RandomBot(seed=1), "127.0.0.1", peer.port,
                                   **kw)
    try:
        return trio.run(main)
    finally:
        peer.join()


RUNNERS = [pytest.param(run_sync, id="sync"), pytest.param(run_async, id="trio")]


# --- the server goes away ----------------------------------------------------------------------
@pytest.mark.parametrize("run", RUNNERS)
def test_closed_during_handshake(run: Callable[..., MatchRecord]) -> None:
    with pytest.raises(ServerClosedError, match="player number") as info:
        run(ScriptedPeer(sends()), connect_timeout=RETRY)  # closed, then refused: tried again
    assert info.value.received == 0 and info.value.expected == 4


@pytest.mark.parametrize("run", RUNNERS)
def test_closed_mid_game_names_the_place(run: Callable[..., MatchRecord]) -> None:
    peer = ScriptedPeer(sends(encode_int(2), DEAL))
    with pytest.raises(ServerClosedError, match=r"turn table \(game 1, turn 1\)"):
        run(peer)
    assert peer.profile is not None and peer.profile[0, 0] == 20070


@pytest.mark.parametrize("run", RUNNERS)
def test_closed_inside_a_table(run: Callable[..., MatchRecord]) -> None:
    with pytest.raises(ServerClosedError, match="got 100 of 480 bytes"):
        run(ScriptedPeer(sends(encode_int(0), DEAL[:100])))


@pytest.mark.parametrize("run", RUNNERS)
def test_closed_after_the_move_was_sent(run: Callable[..., MatchRecord]) -> None:
    def script(conn: socket.socket) -> None:
        conn.sendall(encode_int(0) + DEAL + MY_TURN)
        recv_exactly(conn, TABLE_BYTES, "move")
    with pytest.raises(ServerClosedError, match="answer to this client's move"):
        run(ScriptedPeer(script))


# --- the server sends garbage -----------------------------------------------------------------
GARBAGE_CASES = {
    "player-number": (encode_int(7),),
    "random-deal": (encode_int(0), bytes(range(240)) * 2),
    "deal-without-flag": (encode_int(0), build_turn(HAND, TableState(counts=COUNTS)).to_bytes()),
    "hand-cell": (encode_int(0), Table.from_bytes(DEAL).with_cells({(2, 3): 5}).to_bytes()),
    "turn-player": (encode_int(0), DEAL, Table.from_bytes(MY_TURN).with_cells(
        {(5, 3): 9}).to_bytes()),
    "field-shape": (encode_int(0), DEAL, build_turn(HAND, TableState(counts=COUNTS)).to_bytes(),
                    FIELD.with_cells({(0, 1): 1, (1, 5): 1}).to_bytes()),
    "end-flag": (encode_int(0), DEAL, build_turn(HAND, TableState(counts=COUNTS)).to_bytes(),
                 FIELD.to_bytes(), encode_int(3)),
}


@pytest.mark.parametrize("case", sorted(GARBAGE_CASES))
def test_garbage_is_a_protocol_error(case: str) -> None:
    with pytest.raises(UnexpectedMessageError) as info:
        run_sync(ScriptedPeer(sends(*GARBAGE_CASES[case])))
    assert isinstance(info.value, ProtocolError)
    assert "unexpected data from the server" in str(info.value)


def test_bad_answer_int_is_a_protocol_error_async() -> None:
    def script(conn: socket.socket) -> None:
        conn.sendall(encode_int(0) + DEAL + MY_TURN)
        recv_exactly(conn, TABLE_BYTES, "move")
        conn.sendall(encode_int(1234))
    with pytest.raises(UnexpectedMessageError, match="got 1234, expected one of 9, 8, 7"):
        run_async(ScriptedPeer(script))


# --- timeouts and unreachable servers -----------------------------------------------------------
def test_silent_server_times_out() -> None:
    """The blocking runner on real time (the Trio runner's case runs on the mock clock in
    test_client_deadlines)."""
    def script(conn: socket.socket) -> None:
        conn.sendall(encode_int(0))
        assert conn.recv(1) == b""  # silent until the client gives up and closes

    start = time.monotonic()
    with pytest.raises(ServerTimeoutError, match="deal table of game 1"):
        run_sync(ScriptedPeer(script), read_timeout=0.3)
    assert time.monotonic() - start < WAIT


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_sync() -> None:
    with pytest.raises(ServerUnreachableError, match="cannot connect"):
        run_bot(RandomBot(), "127.0.0.1", closed_port(), connect_timeout=RETRY)


async def test_unreachable_server_async(autojump_clock: trio.testing.MockClock) -> None:
    """On the mock clock: the Trio runner tries again (with a backoff) for the whole default
    connect deadline, then gives up."""
    port = closed_port()
    started = trio.current_time()
    with pytest.raises(ServerUnreachableError, match="cannot connect"):
        await run_bot_async(RandomBot(), "127.0.0.1", port)
    gave_up = trio.current_time() - started
    assert DEFAULT_CONNECT_TIMEOUT - MAX_PAUSE <= gave_up <= DEFAULT_CONNECT_TIMEOUT


# --- what the client sends ----------------------------------------------------------------------
def one_turn_match(received: list[Table]) -> Callable[[socket.socket], None]:
    """Player 0 leads the only turn; the server echoes what it got and ends the match."""
    def script(conn: socket.socket) -> None:
        conn.sendall(encode_int(0) + DEAL + MY_TURN)
        move = Table.from_bytes(recv_exactly(conn, TABLE_BYTES, "move"))
        received.append(move)
        conn.sendall(encode_int(8) + build_field(None, TableState(turn_player=0,
                                                                  field_empty=1)).to_bytes())
        conn.sendall(encode_int(2))
    return script


def test_illegal_move_is_sent_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    class Cheater(Bot):
        name = "cheater"

        def play(self, view: GameView) -> Move:
            return Move.parse("D2")  # not in the hand

    received: list[Table] = []
    with caplog.at_level(logging.WARNING, logger="daihinmin.client"):
        record = run_sync(ScriptedPeer(one_turn_match(received)), Cheater())
    assert record.illegal_moves == 1 and record.games == 1
    assert read_hand(received[0]) == CardSet.parse("D2")
    assert any("not legal" in r.getMessage() for r in caplog.records)


def test_profile_and_pass_tables_on_the_wire() -> None:
    class Passer(Bot):
        name = "passer"

        def play(self, view: GameView) -> Move:
            return Move.parse("pass")

    received: list[Table] = []
    peer = ScriptedPeer(one_turn_match(received))
    record = run_sync(peer, Passer(), name="custom-name")
    assert record.player == 0 and record.places == [None]
    assert received[0] == Table.zeros()
    assert peer.profile is not None
    assert peer.profile.row(1)[:12] == (*(ord(c) for c in "custom-name"), 0)


def test_wrong_exchange_is_sent_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    class BadGiver(RandomBot):
        def exchange(self, view: GameView, count: int) -> CardSet:
            return CardSet.parse("D2")

    deal = build_deal(HAND, TableState(counts=COUNTS, classes=(0, 1, 2, 3, 4)), give=2)
    got: list[Table] = []

    def script(conn: socket.socket) -> None:
        conn.sendall(encode_int(0) + deal.to_bytes())
        got.append(Table.from_bytes(recv_exactly(conn, TABLE_BYTES, "exchange")))

    with caplog.at_level(logging.WARNING, logger="daihinmin.client"), \
            pytest.raises(ServerClosedError):
        run_sync(ScriptedPeer(script), BadGiver())
    assert read_hand(got[0]) == CardSet.parse("D2")
    assert any("must give 2" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("run", RUNNERS)
def test_bytes_trickling_in_are_reassembled(run: Callable[..., MatchRecord]) -> None:
    """Tables split into odd-sized pieces with pauses still make a whole match."""
    turn = build_turn(HAND, TableState(turn_player=1, field_empty=1, counts=COUNTS))
    field = replace(TableState(turn_player=1, counts=COUNTS))
    stream = (encode_int(3) + DEAL + turn.to_bytes() + build_field(None, field).to_bytes()
              + encode_int(2))

    def script(conn: socket.socket) -> None:
        for i in range(0, len(stream), 37):
            conn.sendall(stream[i:i + 37])
            time.sleep(0.001)

    record = run(ScriptedPeer(script))
    assert record.player == 3 and record.games == 1


# --- the command ----------------------------------------------------------------------------
def test_cmd_bot_exit_code_when_the_server_goes_away() -> None:
    peer = ScriptedPeer(sends(encode_int(1), DEAL))
    proc = subprocess.run(
        [sys.executable, "-m", "daihinmin.tools", "bot", "random", "--port", str(peer.port),
         "--read-timeout", str(WAIT)], capture_output=True, text=True, timeout=60)
    peer.join()
    assert proc.returncode == 4
    assert "closed the connection while waiting for the turn table" in proc.stderr


def test_cmd_bot_exit_code_when_unreachable() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "daihinmin.tools", "bot", "greedy", "--port", str(closed_port()),
         "--connect-timeout", str(RETRY)],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert "cannot connect to the server" in proc.stderr
