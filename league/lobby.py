"""The lobby: entrants who run their own client, seated in their next match.

Opt in with ``lobby_port`` and ``lobby = ["alice", ...]`` in the config.  The league issues
each lobby entrant a secret once (printed, and kept in ``DATABASE.lobby-secrets``, readable
by the host only); the database keeps only its hash.  The lobby listens on 127.0.0.1.

The protocol is lines of text (UTF-8, at most 200 bytes a line):

1. the client connects and sends ``LOBBY <name> <secret>``; the lobby answers ``WAIT``
   (it is on the list for the next tables) or ``NO <why>`` and closes;
2. when a table seats it, the lobby sends ``PLAY <port>`` and closes: the client connects to
   ``127.0.0.1:<port>`` as any UECda client does and plays the match to its end;
3. for its next match the client comes back to step 1.

Only clients waiting in the lobby are paired.  A client that was sent ``PLAY`` and does not
connect to its table in time, or leaves mid-match, is a fault on its own record (the match
fails and counts for nobody), never a stand-in's win.

On the table's side each lobby seat is a small process (:mod:`.lobby_seat`) that asks the
lobby to send ``PLAY`` and stays until the client is back in the lobby (its match is over)
or the match ends.

``python -m daihinmin.league.lobby_client`` runs any UECda client program this way.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

MAX_LINE = 200
HELLO_SECONDS = 10.0  # a connection must say who it is within this long


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass
class Waiting:
    stream: trio.SocketStream
    gone: trio.Event = field(default_factory=trio.Event)
    dismissed: str | None = None  # why the lobby sends it away (suspended, retired)


class Lobby:
    """Clients waiting for a table, by entrant name; ``check(name, secret)`` says whether
    the secret is that entrant's (and the entrant may play)."""

    def __init__(self, check: Callable[[str, str], str | None],
                 on_change: Callable[[], None] = lambda: None) -> None:
        self.check = check
        self.on_change = on_change
        self.waiting: dict[str, Waiting] = {}
        self.back: dict[str, trio.Event] = {}  # a seated client's return to the lobby
        self.seat_token = secrets.token_hex(16)  # what a seat process proves itself with
        self.port = 0

    def present(self) -> set[str]:
        return set(self.waiting)

    def dismiss(self, name: str, why: str) -> None:
        """Send a waiting client away (``NO why``): its entrant may no longer play."""
        me = self.waiting.pop(name, None)
        if me is not None:
            me.dismissed = why
            me.gone.set()

    async def serve(self, port: int, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self.handle, listeners)

    async def handle(self, stream: trio.SocketStream) -> None:
        try:
            with trio.move_on_after(HELLO_SECONDS):
                line = await read_line(stream)
            if not line:
                return
            parts = line.split()
            if len(parts) == 3 and parts[0] == "LOBBY":
                await self.client(stream, parts[1], parts[2])
            elif len(parts) == 4 and parts[0] == "SEAT":
                await self.seat(stream, parts[1], parts[2], parts[3])
            else:
                await send(stream, "NO expected: LOBBY <name> <secret>")
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            await stream.aclose()

    async def client(self, stream: trio.SocketStream, name: str, secret: str) -> None:
        why = self.check(name, secret)
        if why is not None:
            await send(stream, f"NO {why}")
            return
        old = self.waiting.pop(name, None)
        if old is not None:  # a newer connection of the same entrant replaces it
            old.gone.set()
        me = Waiting(stream)
        self.waiting[name] = me
        if name in self.back:
            self.back.pop(name).set()
        self.on_change()
        await send(stream, "WAIT")
        async with trio.open_nursery() as nursery:
            async def closed() -> None:  # the client hung up while waiting
                try:
                    while await stream.receive_some(64):
                        pass
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                me.gone.set()

            nursery.start_soon(closed)
            await me.gone.wait()
            nursery.cancel_scope.cancel()
        if me.dismissed is not None:
            await send(stream, f"NO {me.dismissed}")
        if self.waiting.get(name) is me:
            del self.waiting[name]
            self.on_change()

    async def seat(self, stream: trio.SocketStream, token: str, name: str, port: str) -> None:
        """A table's seat process: send the waiting client to ``port``, then wait for it
        to come back (or for the seat process to be stopped)."""
        if not secrets.compare_digest(token.encode(), self.seat_token.encode()):
            await send(stream, "NO bad seat token")
            return
        me = self.waiting.pop(name, None)
        if me is None:
            await send(stream, "ABSENT")
            return
        self.back[name] = trio.Event()
        back = self.back[name]
        try:
            await send(me.stream, f"PLAY {int(port)}")
        except (trio.BrokenResourceError, trio.ClosedResourceError, ValueError):
            await send(stream, "ABSENT")
            return
        finally:
            me.gone.set()
            self.on_change()
        await send(stream, "SENT")
        await back.wait()
        await send(stream, "BACK")


async def read_line(stream: trio.SocketStream) -> str:
    data = b""
    while b"\n" not in data:
        chunk = await stream.receive_some(MAX_LINE)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_LINE:
            return ""
    return data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()


async def send(stream: trio.SocketStream, line: str) -> None:
    await stream.send_all(line.encode() + b"\n")


def issue_secrets(path: Path, names: list[str], known: dict[str, str]) -> dict[str, str]:
    """A new secret for each lobby entrant that has none (``known``: name -> hash); the new
    ones are appended to ``path`` (mode 0600).  Returns name -> new secret."""
    # hex: a secret is typed as `--secret S`, and one starting with '-' (1 in 64 of
    # token_urlsafe's) would be read as an option: the client could never connect
    new = {n: secrets.token_hex(12) for n in names if n not in known}
    if new:
        fd = path.open("a", encoding="utf-8")
        try:
            path.chmod(0o600)
            for n, s in new.items():
                fd.write(f"{n} {s}\n")
        finally:
            fd.close()
    return new


__all__ = ["Lobby", "issue_secrets", "read_line", "secret_hash", "send"]
