"""The floor server's script replayed in Python: what the event loop alone costs a game.

``daihinmin bench tcp`` replays a recorded session three ways beside the real server: in C
(``floor_server.c``, ``floor_*``), and here, in Python with no rules and no protocol
logic, in one of two loops:

* ``selectors`` (``pyfloor_*``): non-blocking sockets and one ``selectors`` object holding
  every connection, a ``send`` per write and a ``recv`` per wake-up; a reply wait is one
  ``select`` with the move deadline as its timeout.  What any Python server pays.
* ``trio`` (``triofloor_*``): the same sockets driven as ``serve`` drives them: each write a
  plain non-blocking ``send`` (Trio's ``wait_writable`` only when the socket is full), each
  reply a ``recv`` tried first, then ``trio.lowlevel.wait_readable`` inside a
  ``trio.move_on_after`` of the move deadline, a checkpoint after every
  ``QUICK_READS_PER_YIELD`` replies served at once, and a send watcher task per player
  sleeping as ``PlayerConnection.watch_sends`` does.  What Trio's loop costs on its own.

Both listen on 127.0.0.1 (an ephemeral port, printed as the C server does), take the k-th
connection as player k (TCP_NODELAY, the real server's send buffer), compare each reply with
the recorded one byte for byte, and print the real server's game lines.  Exit codes as the C
server's: 0 done, 1 connection, 2 usage or script, 3 a reply differs.

usage: python -m daihinmin.bench.floor_py {selectors,trio} SCRIPT
"""

from __future__ import annotations

import selectors
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import trio
from daihinmin.bench.floor import (
    OP_GAME,
    OP_READ,
    OP_READ_ANY,
    OP_WRITE,
    RecordingError,
    read_script,
)
from daihinmin.server.config import MOVE_TIMEOUT, SEND_TIMEOUT
from daihinmin.server.connection import QUICK_READS_PER_YIELD, SEND_BUFFER_BYTES

LOOPS = ("selectors", "trio")
Ops = list[tuple[int, int, int, bytes]]


class ReplayError(Exception):
    """The replay cannot go on; ``code`` is the exit code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def seat(players: int) -> list[socket.socket]:
    """Listen, say where, and take ``players`` connections in order (non-blocking)."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(f"listening on 127.0.0.1:{listener.getsockname()[1]}", file=sys.stderr,
              flush=True)
        socks = []
        for _ in range(players):
            sock, _ = listener.accept()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            sock.setblocking(False)
            socks.append(sock)
    return socks


def game_line(game: int, turns: int) -> None:
    print(f"game {game}: order replayed, {turns} turns, floor", file=sys.stderr, flush=True)


def check(at: int, player: int, kind: int, got: bytes, want: bytes) -> None:
    if kind == OP_READ and got != want:
        raise ReplayError(3, f"operation {at}: the reply of player {player} differs from the "
                             "recorded one")


def send(sock: socket.socket, data: bytes) -> int:
    """Bytes the socket took now (0 when it is full)."""
    try:
        return sock.send(data)
    except BlockingIOError:
        return 0


def take(sock: socket.socket, got: bytes, size: int) -> bytes:
    """``got`` and what the socket holds now, up to ``size`` bytes; ``got`` when it holds
    nothing yet."""
    try:
        data = sock.recv(size - len(got))
    except BlockingIOError:
        return got
    if not data:
        raise ReplayError(1, "a player closed the connection")
    return got + data


def replay_selectors(socks: list[socket.socket], ops: Ops) -> None:
    selector = selectors.DefaultSelector()
    for sock in socks:
        selector.register(sock, selectors.EVENT_READ)
    for at, (kind, player, size, data) in enumerate(ops):
        if kind == OP_GAME:  # (its "player" is the game's number)
            game_line(player, size)
            continue
        sock = socks[player]
        if kind == OP_WRITE:
            sent = send(sock, data)
            while sent < size:  # the socket is full: wait until it takes more
                with selectors.DefaultSelector() as full:
                    full.register(sock, selectors.EVENT_WRITE)
                    if not full.select(SEND_TIMEOUT):
                        raise ReplayError(1, "a write blocked past the send deadline")
                sent += send(sock, data[sent:])
        else:
            got = take(sock, b"", size)
            deadline = time.monotonic() + MOVE_TIMEOUT
            while len(got) < size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ReplayError(1, f"no reply within {MOVE_TIMEOUT:g} s")
                if any(key.fileobj is sock for key, _ in selector.select(left)):
                    got = take(sock, got, size)  # (else another player's bytes: none come)
            check(at, player, kind, got, data)


async def replay_trio(socks: list[socket.socket], ops: Ops) -> None:
    failed: list[BaseException] = []  # raised past the nursery, not in an exception group
    async with trio.open_nursery() as nursery:
        for _ in socks:
            nursery.start_soon(watch_sends)
        try:
            await replay_on_trio(socks, ops)
        except (ReplayError, OSError) as exc:
            failed.append(exc)
        nursery.cancel_scope.cancel()
    if failed:
        raise failed[0]


async def replay_on_trio(socks: list[socket.socket], ops: Ops) -> None:
    quick = 0
    for at, (kind, player, size, data) in enumerate(ops):
        if kind == OP_GAME:
            game_line(player, size)
            continue
        sock = socks[player]
        if kind == OP_WRITE:
            sent = send(sock, data)
            while sent < size:
                await trio.lowlevel.wait_writable(sock)
                sent += send(sock, data[sent:])
        else:
            got = take(sock, b"", size)
            if len(got) == size:  # served at once: a checkpoint now and then, as serve
                quick += 1
                if quick >= QUICK_READS_PER_YIELD:
                    quick = 0
                    await trio.lowlevel.checkpoint()
            else:
                with trio.move_on_after(MOVE_TIMEOUT):
                    while len(got) < size:
                        await trio.lowlevel.wait_readable(sock)
                        got = take(sock, got, size)
                if len(got) < size:
                    raise ReplayError(1, f"no reply within {MOVE_TIMEOUT:g} s")
            check(at, player, kind, got, data)


async def watch_sends() -> None:
    """What each connection's send watcher costs serve (a sleep a quarter deadline long)."""
    while True:
        await trio.sleep(SEND_TIMEOUT / 4)


def replay(loop: str, path: Path) -> None:
    try:
        players, ops = read_script(path.read_bytes())
    except (OSError, RecordingError) as exc:
        raise ReplayError(2, f"cannot read the script: {exc}") from exc
    if any(kind not in (OP_WRITE, OP_READ, OP_READ_ANY, OP_GAME) for kind, *_ in ops):
        raise ReplayError(2, "an unknown operation in the script")
    try:
        socks = seat(players)
    except OSError as exc:
        raise ReplayError(1, f"cannot seat the players: {exc}") from exc
    run: Callable[[], None] = ((lambda: replay_selectors(socks, ops)) if loop == "selectors"
                               else (lambda: trio.run(replay_trio, socks, ops)))
    try:
        run()
    except OSError as exc:
        raise ReplayError(1, f"a read or write failed: {exc}") from exc
    finally:
        for sock in socks:
            sock.close()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in LOOPS:
        print("usage: python -m daihinmin.bench.floor_py {selectors,trio} SCRIPT",
              file=sys.stderr)
        return 2
    try:
        replay(argv[0], Path(argv[1]))
    except ReplayError as exc:
        print(f"bench_floor_py: {exc}", file=sys.stderr)
        return exc.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
