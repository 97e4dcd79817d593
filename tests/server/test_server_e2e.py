"""The server end to end over real loopback TCP, against independent blocking-socket probes.

Each probe (``tests/support/probe.py``) checks every message the server sends (sizes, row 7,
flags, hands, the 9/8 answers the rules give) and records what it saw; the tests compare
those records with the server's match log and re-simulate the log with the engine.
"""

from __future__ import annotations

import hashlib
import socket
import struct
from pathlib import Path

import pytest
import trio
from daihinmin.driver.record import GameRecord
from daihinmin.protocol.codec import build_profile
from daihinmin.protocol.extension import REFUSED
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.rules.extension_rules import extension_reasons
from daihinmin.rules.ruleset import PRESETS
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.match_server import MatchServer
from daihinmin.values.cards import CardSet
from probe import ProbePlayer, ProbeRecord, serve_probes

HOST = "127.0.0.1"
TRANSCRIPT_PROFILE = struct.pack(">120I", 20070, *([0] * 14),
                                 115, 116, 100, 51, 0, 108, 116, *([0] * 8), *([0] * 90))


def probes(n: int = 5, fault_rate: float = 0.0, versions: list[int] | None = None
           ) -> list[ProbePlayer]:
    return [ProbePlayer(HOST, 0, f"probe{i}", seed=100 + i, fault_rate=fault_rate,
                        version=versions[i] if versions else 20070) for i in range(n)]


def refused_20070_profile(config: ServerConfig) -> tuple[int, bytes]:
    """(the int a 20070 profile gets, what follows it) from a server of ``config``."""
    async def main() -> tuple[int, bytes]:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(MatchServer(config).run)
            probe = ProbePlayer(HOST, port, "old20070", rules=config.rules)

            def handshake() -> tuple[int, bytes]:
                probe.connect()
                probe.send_bytes(build_profile("old20070").to_bytes())
                number = probe.recv_int()
                assert probe.sock is not None
                return number, probe.sock.recv(1)

            try:
                return await trio.to_thread.run_sync(handshake)
            finally:
                probe.close()
                nursery.cancel_scope.cancel()

    return trio.run(main)


def expected_deal_hand(record: GameRecord, player: int) -> CardSet:
    """Receivers of the automatic transfer already hold those cards in the deal table."""
    hand = CardSet.parse(record.dealt[player])
    for t in record.transfers:
        if t.automatic and t.receiver == player:
            hand = hand | CardSet.parse(t.cards)
    return hand


def check_probes_agree_with_log(records: list[ProbeRecord], games: list[GameRecord]) -> None:
    for probe in records:
        assert len(probe.games) == len(games)
        for seen, logged in zip(probe.games, games, strict=True):
            assert seen.deal_hand == expected_deal_hand(logged, probe.number)
            assert [t.mover for t in seen.turns] == [t.player for t in logged.turns]
            for mine, entry in zip(seen.turns, logged.turns, strict=True):
                if mine.mover != probe.number:
                    continue
                assert mine.answer == entry.answer
                if mine.sent is not None and mine.sent.startswith("bad:"):
                    assert entry.answer == 8
                    if mine.sent != "bad:not_held":
                        assert entry.malformed and entry.move == "pass"
                else:
                    assert entry.move == mine.sent and not entry.malformed
            chosen = [t for t in logged.transfers
                      if not t.automatic and t.giver == probe.number]
            if seen.exchange_sent is None:
                assert not chosen
            elif seen.exchange_sent.startswith("bad:"):
                assert chosen[0].substituted and chosen[0].error
            else:
                assert chosen[0].cards == seen.exchange_sent and not chosen[0].substituted


def test_multi_game_match_with_exchanges_agrees_with_log_and_engine(tmp_path: Path) -> None:
    log_path = tmp_path / "match.jsonl"
    games = 8  # seats change at game 6; exchanges from game 2
    # fault_limit=0: the probes' deliberate bad tables never hand their seats over.
    config = ServerConfig(games=games, seed=2024, port=0, log_path=log_path, fault_limit=0)
    outcome, records = trio.run(serve_probes, config, probes(fault_rate=0.15))
    assert [r.number for r in records] == [0, 1, 2, 3, 4]
    assert outcome.games_played == games
    assert sum(outcome.totals) == 15 * games
    log = read_match_log(log_path)
    for g in log.games:
        assert sorted(g.places) == [0, 1, 2, 3, 4]
        if g.game == 1:
            assert g.classes is None and not g.transfers
        else:
            assert [t.automatic for t in g.transfers] == [True, True, False, False]
    assert [r.games[-1].end_flag for r in records] == [2] * 5
    assert all(seen.end_flag == 1 for r in records for seen in r.games[:-1])
    assert outcome.totals == log.games[-1].totals  # what was logged is what was played
    assert log.end is not None and log.end.status == "complete"
    assert [p.name for p in log.header.players] == [f"probe{i}" for i in range(5)]
    check_probes_agree_with_log(records, log.games)
    assert any(t.substituted for g in log.games for t in g.transfers)
    assert any(t.malformed for g in log.games for t in g.turns)
    summary = verify_log(log)
    assert summary.complete and summary.games == games


def test_mixed_protocol_versions_play_the_same_match(tmp_path: Path) -> None:
    versions = [20070, 20060, 20140, 20070, 20140]
    config = ServerConfig(games=3, seed=9, port=0, log_path=tmp_path / "m.jsonl",
                          write_mode=WriteMode.DEFERRED)
    outcome, records = trio.run(serve_probes, config, probes(versions=versions))
    assert [p.protocol for p in outcome.players] == versions
    log = read_match_log(tmp_path / "m.jsonl")
    check_probes_agree_with_log(records, log.games)
    assert verify_log(log).complete


def test_every_write_mode_carries_the_same_bytes(tmp_path: Path) -> None:
    """The five players' whole streams of a seeded match (bad tables too) are the same in
    every write mode; only when and in how many writes they go out differs."""
    streams = {}
    for mode in WriteMode:
        players = probes(fault_rate=0.1)
        config = ServerConfig(games=3, seed=77, port=0, write_mode=mode, fault_limit=0,
                              log_path=tmp_path / f"{mode}.jsonl")
        outcome, _ = trio.run(serve_probes, config, players)
        assert not any(r.stand_in for r in outcome.seats)
        streams[mode] = [hashlib.sha256(p.received).hexdigest() for p in players]
        assert all(len(p.received) > 10_000 for p in players)
        assert read_match_log(tmp_path / f"{mode}.jsonl").header.write_mode == mode
    assert streams[WriteMode.COALESCED] == streams[WriteMode.EXACT]
    assert streams[WriteMode.DEFERRED] == streams[WriteMode.EXACT]


def raw_connect(port: int) -> socket.socket:
    s = socket.create_connection((HOST, port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def recv_all(s: socket.socket, size: int) -> bytes:
    buf = b""
    while len(buf) < size:
        chunk = s.recv(size - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def test_transcript_profile_bytes_get_player_number_3_and_bad_profiles_no_seat(
        tmp_path: Path) -> None:
    """Profile -> player number as in the transcript; a bad version is closed unseated."""
    config = ServerConfig(games=1, seed=1, port=0, log_path=tmp_path / "t.jsonl")
    server = MatchServer(config)
    players = probes()
    replies: dict[str, bytes] = {}

    def handshake_all(port: int) -> None:
        bad = raw_connect(port)  # an unknown version: closed, takes no number
        bad.sendall(build_profile("bad", 12345).to_bytes())
        replies["bad"] = recv_all(bad, 4)
        bad.close()
        short = raw_connect(port)  # gone before a whole profile arrived
        short.sendall(TRANSCRIPT_PROFILE[:100])
        short.close()
        for p in players[:3]:
            p.port = port
            p.connect()
            p.handshake()
        fourth = players[3]
        fourth.port = port
        fourth.connect()
        fourth.send_bytes(TRANSCRIPT_PROFILE)  # the transcript's exact profile bytes
        replies["fourth"] = fourth.recv_exact(4)
        fourth.record.number = 3
        players[4].port = port
        players[4].connect()
        players[4].handshake()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            await trio.to_thread.run_sync(handshake_all, port)
            for p in players:
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    assert replies == {"bad": b"", "fourth": b"\x00\x00\x00\x03"}
    assert [p.record.number for p in players] == [0, 1, 2, 3, 4]
    assert server.outcome is not None
    assert [i.name for i in server.outcome.players] == ["probe0", "probe1", "probe2", "std3",
                                                        "probe4"]
    assert verify_log(read_match_log(tmp_path / "t.jsonl")).complete


def test_a_player_leaving_mid_match_is_handed_to_the_fallback_and_the_match_ends(
        tmp_path: Path) -> None:
    """The seat of a player that leaves goes to the fallback bot; the others play on."""
    log_path = tmp_path / "a.jsonl"
    config = ServerConfig(games=5, seed=4, port=0, log_path=log_path)
    server = MatchServer(config)
    players = probes(4)

    def quitter(port: int) -> None:
        s = raw_connect(port)
        s.sendall(build_profile("quitter").to_bytes())
        assert recv_all(s, 4) == b"\x00\x00\x00\x04"
        assert len(recv_all(s, 480)) == 480  # the deal table, then leave
        s.close()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            for p in players:
                p.port = port
                await trio.to_thread.run_sync(p.join)
            nursery.start_soon(trio.to_thread.run_sync, quitter, port)
            for p in players:
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    outcome = server.outcome
    assert outcome is not None and outcome.games_played == 5
    assert [r.status for r in outcome.seats] == ["OK"] * 4 + ["DISCONNECTED"]
    assert outcome.seats[4].stand_in == "fallback" and outcome.seats[4].since_game == 1
    assert all(p.record.games and len(p.record.games) == 5 for p in players)
    log = read_match_log(log_path)
    assert log.end is not None and log.end.status == "complete"
    assert [e.player for e in log.games[0].events] == [4]
    assert all(g.stand_in == [4] for g in log.games)
    assert {t.by for g in log.games for t in g.turns if t.player == 4} == {"fallback"}
    assert verify_log(log).complete


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_rules_preset_plays_over_20070_or_refuses_20070(name: str, tmp_path: Path) -> None:
    """Presets 20070 tables can carry play with 20070 probes and verify; the others answer a
    20070 profile with REFUSED (20260) and close it (they play over protocol 20260:
    tests/server/test_presets_tcp.py, tests/server/test_extension_server.py)."""
    rules = PRESETS[name]
    config = ServerConfig(rules=rules, games=4, seed=5, port=0, log_path=tmp_path / "p.jsonl",
                          fault_limit=0)
    if extension_reasons(rules):
        assert refused_20070_profile(config) == (REFUSED, b"")
        return
    players = [ProbePlayer(HOST, 0, f"{name[:8]}{i}", seed=i, rules=rules, fault_rate=0.05,
                           strict=name == "uecda") for i in range(rules.players)]
    outcome, _ = trio.run(serve_probes, config, players)
    assert outcome.games_played == 4
    log = read_match_log(tmp_path / "p.jsonl")
    summary = verify_log(log)
    assert summary.complete and summary.turns == sum(len(g.turns) for g in log.games)
