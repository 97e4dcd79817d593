"""Seating under attack: slowloris and idle-connection floods must not keep real players out.

The floods run in threads on real loopback sockets for the whole seating; the players are
real ``daihinmin bot`` processes.  The server closes the oldest waiting handshake when a
newer connection needs the room, and the bots try again when they are closed before their
player number, so all five get seated and finish the match.
"""

from __future__ import annotations

import logging
import select
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
import trio
from daihinmin.protocol.table import TABLE_BYTES
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer

pytestmark = pytest.mark.timeout(120)

HOST = "127.0.0.1"
BOT = [sys.executable, "-m", "daihinmin.tools", "bot", "default", "--quiet",
       "--connect-timeout", "30"]


class Flood:
    """``count`` connections kept open against ``port`` until stopped: one closed by the
    server is opened again at once.  ``trickle``: each sends one profile byte per tick
    (slowloris); otherwise they stay silent (idle)."""

    def __init__(self, port: int, count: int, trickle: bool) -> None:
        self.port, self.count, self.trickle = port, count, trickle
        self.stop = threading.Event()
        self.opened = self.closed_by_server = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _open(self) -> socket.socket | None:
        try:
            s = socket.create_connection((HOST, self.port), timeout=2)
        except OSError:  # refused: the seats are taken and the listener is closed
            return None
        self.opened += 1
        return s

    def _run(self) -> None:
        socks = [s for s in (self._open() for _ in range(self.count)) if s is not None]
        sent = {s: 0 for s in socks}
        while not self.stop.is_set():
            readable, _, _ = select.select(socks, [], [], 0.2)
            for s in readable:
                try:
                    gone = s.recv(1) == b""
                except OSError:  # reset by the server
                    gone = True
                if gone:
                    self.closed_by_server += 1
                    socks.remove(s)
                    s.close()
                    fresh = self._open()
                    if fresh is not None:
                        socks.append(fresh)
                        sent[fresh] = 0
            if self.trickle:
                for s in socks:
                    if sent.get(s, 0) < TABLE_BYTES - 1:  # never a whole profile
                        try:
                            s.send(b"\x00")
                            sent[s] = sent.get(s, 0) + 1
                        except OSError:
                            pass
            if not socks:
                time.sleep(0.05)
                fresh = self._open()
                if fresh is not None:
                    socks.append(fresh)
        for s in socks:
            s.close()


def play_under(floods: list[tuple[int, bool]], tmp_path: Path) -> tuple[MatchServer, list[Flood]]:
    """A 3-game match whose five bot processes start while ``floods`` hold the server."""
    config = ServerConfig(games=3, seed=17, port=0, log_path=tmp_path / "flood.jsonl",
                          profile_timeout=60.0)  # the flood never times out by itself
    server = MatchServer(config)
    started: list[Flood] = []
    codes: list[int] = []

    async def bot(port: int) -> None:
        done = await trio.run_process([*BOT, "--port", str(port)], check=False,
                                      capture_stderr=True)
        codes.append(done.returncode)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            for count, trickle in floods:
                flood = Flood(port, count, trickle)
                flood.thread.start()
                started.append(flood)
            while sum(f.opened for f in started) < sum(c for c, _ in floods):
                await trio.sleep(0.05)  # every flood connection is open before a bot starts
            async with trio.open_nursery() as bots:
                for _ in range(5):
                    bots.start_soon(bot, port)
            for flood in started:
                flood.stop.set()

    try:
        trio.run(main)
    finally:
        for flood in started:
            flood.stop.set()
            flood.thread.join(5)
    assert codes == [0] * 5
    assert server.outcome is not None and server.outcome.games_played == 3
    log = read_match_log(tmp_path / "flood.jsonl")
    assert verify_log(log).complete
    assert all(p.stand_in is None for p in log.header.players)
    return server, started


def test_slowloris_and_idle_floods_do_not_keep_real_bots_out(tmp_path: Path) -> None:
    server, (slow, idle) = play_under([(12, True), (300, False)], tmp_path)
    assert slow.closed_by_server + idle.closed_by_server >= 300 - 37
    assert server.refused > 0  # the room was needed, and the oldest waiting ones left


def test_a_flood_of_bad_profiles_is_counted_not_logged_line_by_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(games=1, seed=5, port=0, log_path=tmp_path / "bad.jsonl",
                          profile_timeout=5.0)
    server = MatchServer(config)
    bad = 300

    def hostile(port: int) -> None:
        for _ in range(bad):
            s = socket.create_connection((HOST, port), timeout=5)
            s.sendall(b"\xff" * TABLE_BYTES)
            s.recv(1)  # closed by the server
            s.close()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            await trio.to_thread.run_sync(hostile, port)
            for _ in range(5):
                nursery.start_soon(trio.run_process, [*BOT, "--port", str(port)])

    with caplog.at_level(logging.WARNING, logger="daihinmin.server"):
        trio.run(main)
    lines = [r for r in caplog.records if "before seating" in r.getMessage()]
    assert server.rejection_count == bad
    assert 1 <= len(lines) <= 20  # at most one a second, each saying how many it stands for
    summary = [r.getMessage() for r in caplog.records if "while seating" in r.getMessage()]
    assert summary and f"{bad} bad profile" in summary[0]
    assert server.outcome is not None and server.outcome.games_played == 1
