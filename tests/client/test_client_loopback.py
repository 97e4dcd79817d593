"""The client library against real server peers over loopback TCP.

``PeerServer`` is a minimal UECda server written here from the codec and the rules engine,
following the message order of docs/PROTOCOL.md §4 exactly (deal tables in class order,
exchange tables daifugo then fugo, turn tables to 0..4, the mover's move, the answer to the
mover, field tables to 0..4, end flags to 0..4).  It records what really happened, and
every client's own record (history, exchange facts, places, the legal moves it computed)
is compared with it.  The project's Trio server (``daihinmin.server``) is a second peer.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
import trio
from daihinmin.client import Bot, GameView, Observed, run_bot, run_bot_async
from daihinmin.client.example import FirstMoveBot
from daihinmin.client.sync_runner import recv_exactly
from daihinmin.players.registry import make_bot
from daihinmin.protocol.codec import (
    TableState,
    build_deal,
    build_field,
    build_turn,
    decode_exchange_table,
    decode_move_table,
    read_profile,
)
from daihinmin.protocol.errors import MoveTableError
from daihinmin.protocol.table import TABLE_BYTES, Table, encode_int
from daihinmin.rules.events import EventKind
from daihinmin.rules.match import MatchState, Transfer
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Move

pytestmark = pytest.mark.timeout(120)
PLAYERS = 5
IO_TIMEOUT = 30.0


# --- the in-test server ---------------------------------------------------------------------
@dataclass
class GameLog:
    turns: list[tuple[int, Move]] = field(default_factory=list)  # (actor, played or PASS)
    legal: dict[int, list[str]] = field(default_factory=dict)  # turn index -> mover's moves
    views: dict[int, tuple[object, ...]] = field(default_factory=dict)  # turn -> mover's state
    transfers: list[Transfer] = field(default_factory=list)
    places: tuple[int, ...] = ()
    pass_limit: bool = False


class PeerServer:
    """A minimal single-match UECda server on 127.0.0.1 (ephemeral port), one thread."""

    def __init__(self, rules: RuleSet = UECDA, seed: int = 1, games: int = 3) -> None:
        self.rules, self.seed, self.games = rules, seed, games
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(IO_TIMEOUT)
        self.port = self.listener.getsockname()[1]
        self.names: list[str] = []
        self.log: list[GameLog] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run_safely, daemon=True)

    def start(self) -> PeerServer:
        self.thread.start()
        return self

    def join(self) -> None:
        self.thread.join(IO_TIMEOUT * 2)
        assert not self.thread.is_alive(), "the peer server did not finish"
        if self.error is not None:
            raise self.error

    def _run_safely(self) -> None:
        try:
            self.run()
        except BaseException as exc:  # reported by join()
            self.error = exc
        finally:
            self.listener.close()

    def run(self) -> None:
        conns: list[socket.socket] = []
        try:
            for number in range(PLAYERS):
                conn, _ = self.listener.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.settimeout(IO_TIMEOUT)
                conns.append(conn)
                _, name = read_profile(Table.from_bytes(recv_exactly(conn, TABLE_BYTES, "p")))
                self.names.append(name)
                conn.sendall(encode_int(number))
            match = MatchState(self.rules, seed=self.seed, games=self.games)
            while not match.finished:
                self.play_game(match, conns)
        finally:
            for conn in conns:
                conn.close()

    def play_game(self, match: MatchState, conns: list[socket.socket]) -> None:
        setup = match.setup_game()
        gl = GameLog()
        self.log.append(gl)
        classes = setup.classes or (0,) * PLAYERS
        dealt_counts = tuple(len(h) for h in setup.dealt)
        deal_state = TableState(counts=dealt_counts, classes=classes, seats=setup.seats)
        order = sorted(range(PLAYERS), key=lambda p: (classes[p], p))
        for p in order:
            send(conns[p], build_deal(setup.deal_hand(p), deal_state, setup.give_count(p)))
        for p in setup.exchange_order():
            count, _ = setup.owed[p]
            table = read_table(conns[p])
            try:
                cards: CardSet | None = decode_exchange_table(table, setup.hands[p], count)
            except (MoveTableError, MoveShapeError):
                cards = None
            setup.give_back(p, cards)
        gl.transfers = list(setup.transfers)
        game = setup.start()
        last = setup.game == self.games
        shown: Move | None = None
        while not game.over:
            mover = game.turn
            if game.field is None:
                shown = None
            base = TableState(turn_player=mover, field_empty=int(game.field is None),
                              eleven_back=int(game.eleven_back), revolution=int(game.revolution),
                              lock=int(game.lock), counts=game.counts(), classes=classes,
                              seats=setup.seats)
            index = len(gl.turns)
            gl.legal[index] = sorted(str(m) for m in game.legal_moves())
            gl.views[index] = (game.hands[mover], game.field, game.passed, game.revolution,
                               game.lock, game.counts())
            for p in range(PLAYERS):
                send(conns[p], build_turn(game.hands[p], replace(base, my_turn=int(p == mover))))
            move = decode_move_table(read_table(conns[mover]))
            result = game.step(move)
            conns[mover].sendall(encode_int(result.answer))
            played = result.judgement.accepted and not move.is_pass
            if played:
                shown = move
            gl.turns.append((mover, move if played else PASS))
            gl.pass_limit |= any(e.kind is EventKind.PASS_LIMIT for e in result.events)
            after = replace(base, turn_player=mover, field_empty=int(shown is None),
                            eleven_back=int(game.eleven_back), revolution=int(game.revolution),
                            lock=int(game.lock), counts=game.counts())
            for p in range(PLAYERS):
                send(conns[p], build_field(shown, after))
            flag = (2 if last else 1) if game.over else 0
            for p in range(PLAYERS):
                conns[p].sendall(encode_int(flag))
        gl.places = match.finish_game(game).places


def send(conn: socket.socket, table: Table) -> None:
    conn.sendall(table.to_bytes())


def read_table(conn: socket.socket) -> Table:
    return Table.from_bytes(recv_exactly(conn, TABLE_BYTES, "a client table"))


# --- a bot wrapper that keeps everything the client saw --------------------------------------
@dataclass
class SeenGame:
    history: tuple[Observed, ...] = ()
    given: CardSet = EMPTY
    received: CardSet = EMPTY
    places: tuple[int, ...] | None = None
    legal: dict[int, list[str]] = field(default_factory=dict)
    views: dict[int, tuple[object, ...]] = field(default_factory=dict)
    on_turn_calls: int = 0


class Recorder(Bot):
    """Delegates to ``inner`` and records every view and hook call."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name
        self.player = -1
        self.games: list[SeenGame] = []

    def on_match_start(self, player: int) -> None:
        self.player = player

    def on_game_start(self, view: GameView) -> None:
        assert view.turn_player == -1 and view.field is None and not view.history
        self.games.append(SeenGame())

    def exchange(self, view: GameView, count: int) -> CardSet:
        return self.inner.exchange(view, count)

    def play(self, view: GameView) -> Move:
        assert view.my_turn and view.turn_player == self.player
        g = self.games[-1]
        index = len(view.history)
        g.legal[index] = sorted(str(m) for m in view.legal_moves())
        g.views[index] = (view.hand, view.field, view.passed, view.revolution, view.lock,
                          view.counts)
        return self.inner.play(view)

    def on_turn(self, view: GameView, observed: Observed, accepted: bool) -> None:
        g = self.games[-1]
        g.on_turn_calls += 1
        assert view.history[-1] == observed and accepted == observed.is_play
        assert (observed.answer is not None) == (observed.player == self.player)

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        g = self.games[-1]
        g.history, g.places = view.history, places
        g.given, g.received = view.exchange_given, view.exchange_received


def check_against_peer(server: PeerServer, bots: list[Recorder]) -> None:
    """Every client's record equals what the server did."""
    for bot in bots:
        assert len(bot.games) == server.games
        for gl, seen in zip(server.log, bot.games, strict=True):
            p = bot.player
            assert [(o.player, o.move) for o in seen.history] == gl.turns
            assert seen.on_turn_calls == len(gl.turns)
            assert seen.legal == {i: m for i, m in gl.legal.items() if gl.turns[i][0] == p}
            assert seen.views == {i: v for i, v in gl.views.items() if gl.turns[i][0] == p}
            gave = CardSet.of(c for t in gl.transfers if t.giver == p for c in t.cards)
            assert seen.given == gave
            lower = any(t.giver == p and t.automatic for t in gl.transfers)
            got = CardSet.of(c for t in gl.transfers if t.receiver == p for c in t.cards)
            assert seen.received == (got if lower else EMPTY)
            if gl.pass_limit:
                assert seen.places is None
            else:
                assert seen.places == gl.places


def five_bots() -> list[Recorder]:
    inner: list[Bot] = [make_bot("default"), make_bot("greedy"), make_bot("random", seed=5),
                        FirstMoveBot(), make_bot("random", seed=9)]
    return [Recorder(b) for b in inner]


# --- tests -----------------------------------------------------------------------------------
def run_sync_clients(server: PeerServer, bots: Sequence[Bot]) -> list[Any]:
    """Each bot in its own thread; each connects once the previous one has joined, so the
    list order is the player-number order."""
    results: list[Any] = [None] * len(bots)

    def client(i: int) -> None:
        try:
            results[i] = run_bot(bots[i], "127.0.0.1", server.port, read_timeout=IO_TIMEOUT)
        except BaseException as exc:
            results[i] = exc

    threads = []
    for i in range(len(bots)):
        t = threading.Thread(target=client, args=(i,), daemon=True)
        t.start()
        threads.append(t)
        wait_for(lambda i=i: len(server.names) > i or results[i] is not None)  # type: ignore[misc]
    for t in threads:
        t.join(IO_TIMEOUT * 2)
    return results


def wait_for(condition: Callable[[], bool], seconds: float = IO_TIMEOUT) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.002)


def test_sync_clients_track_a_whole_match() -> None:
    server = PeerServer(seed=11, games=6).start()  # games 2..6 exchange, game 6 new seats
    bots = five_bots()
    results = run_sync_clients(server, bots)
    server.join()
    for i, r in enumerate(results):
        assert not isinstance(r, BaseException), r
        assert r.player == i and r.games == 6 and r.illegal_moves == 0
    assert server.names == [b.name for b in bots]
    check_against_peer(server, bots)
    assert any(g.given for b in bots for g in b.games)  # the exchange was exercised


def test_async_clients_track_a_whole_match() -> None:
    server = PeerServer(seed=4, games=3).start()
    bots = five_bots()
    records: list[Any] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for i, bot in enumerate(bots):
                async def one(b: Bot = bot, threaded: bool = i % 2 == 1) -> None:
                    records.append(await run_bot_async(b, "127.0.0.1", server.port,
                                                       read_timeout=IO_TIMEOUT,
                                                       bot_in_thread=threaded))
                nursery.start_soon(one)
                while bot.player < 0:  # connect in list order
                    await trio.sleep(0.002)

    trio.run(main)
    server.join()
    assert sorted(r.player for r in records) == list(range(PLAYERS))
    check_against_peer(server, bots)


def test_a_bot_in_a_few_lines_plays_a_match() -> None:
    class Lowest(Bot):
        name = "lowest"

        def play(self, view: GameView) -> Move:
            plays = view.legal_plays()
            return min(plays, key=lambda m: m.low) if plays else PASS

    server = PeerServer(seed=2, games=2).start()
    results = run_sync_clients(server, [Lowest() for _ in range(PLAYERS)])
    server.join()
    assert all(not isinstance(r, BaseException) and r.games == 2 for r in results), results


def test_cmd_bot_process_plays_a_match() -> None:
    """``daihinmin bot default`` as a real process next to four in-process clients."""
    import subprocess

    server = PeerServer(seed=3, games=2).start()
    proc = subprocess.Popen(
        [sys.executable, "-m", "daihinmin.tools", "bot", "default", "--port",
         str(server.port), "--name", "proc", "--read-timeout", str(IO_TIMEOUT)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: bool(server.names))  # the process connects first: player 0
        bots = [Recorder(make_bot("greedy")) for _ in range(PLAYERS - 1)]
        server.names.pop(0)  # run_sync_clients counts the joins of its own clients
        results = run_sync_clients(server, bots)
        server.names.insert(0, "proc")
        out, err = proc.communicate(timeout=IO_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    server.join()
    assert proc.returncode == 0, err
    assert "proc (player 0): 2 games" in out
    assert server.names[0] == "proc"
    assert all(not isinstance(r, BaseException) for r in results)


# --- the project's server ---------------------------------------------------------------------
def test_clients_against_the_project_server() -> None:
    from daihinmin.driver.record import GameRecord
    from daihinmin.server import match_server as server_mod
    from daihinmin.server.config import ServerConfig

    bots = five_bots()
    outcome: list[Any] = []
    games: list[GameRecord] = []

    class Recorder(server_mod.MatchObserver):
        def game_finished(self, record: GameRecord) -> None:
            games.append(record)

    async def main() -> None:
        config = ServerConfig(rules=UECDA, games=4, seed=21, port=0)
        async with trio.open_nursery() as nursery:
            async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                            ) -> None:
                outcome.append(await server_mod.serve_match(config, Recorder(),
                                                            task_status=task_status))

            port = await nursery.start(serve)
            for i, bot in enumerate(bots):
                async def one(b: Bot = bot, threaded: bool = i % 2 == 0) -> None:
                    await run_bot_async(b, "127.0.0.1", port, read_timeout=IO_TIMEOUT,
                                        bot_in_thread=threaded)
                nursery.start_soon(one)
                while bot.player < 0:
                    await trio.sleep(0.002)

    trio.run(main)
    (result,) = outcome
    assert result.games_played == 4
    for bot in bots:
        p = bot.player
        assert len(bot.games) == len(games) == 4
        for rec, seen in zip(games, bot.games, strict=True):
            played = [(t.player, t.move if t.answer == 9 and t.move != "pass" else "pass")
                      for t in rec.turns]
            assert [(o.player, str(o.move)) for o in seen.history] == played
            if seen.places is not None:
                assert list(seen.places) == rec.places
            gave = [t for t in rec.transfers if t.giver == p]
            expected = CardSet.parse(" ".join(t.cards for t in gave)) if gave else EMPTY
            assert seen.given == expected
