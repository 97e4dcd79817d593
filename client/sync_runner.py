"""Run a bot over plain blocking sockets: ``run_bot(bot, host, port)``.

Messages are read whole, however the bytes arrive:

>>> a, b = socket.socketpair()
>>> a.sendall(bytes([0, 0])); a.sendall(bytes([0, 3])); a.close()
>>> list(recv_exactly(b, 4, "waiting for the player number"))
[0, 0, 0, 3]
>>> recv_exactly(b, 4, "waiting for the player number")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
daihinmin.client.errors.ServerClosedError: the server closed the connection while waiting ...
>>> b.close()
"""

from __future__ import annotations

import socket

from daihinmin.rules.ruleset import UECDA, RuleSet

from .errors import ServerClosedError, ServerTimeoutError, ServerUnreachableError
from .protocol import ClientProtocol, MatchRecord, Step
from .view import Bot

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 42485


def connect(host: str, port: int, timeout: float | None) -> socket.socket:
    """An open TCP connection with TCP_NODELAY, or :class:`ServerUnreachableError`."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except TimeoutError:
        raise ServerUnreachableError(host, port, f"no answer within {timeout:g} s") from None
    except OSError as exc:
        raise ServerUnreachableError(host, port, exc.strerror or str(exc)) from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def recv_exactly(sock: socket.socket, size: int, where: str,
                 timeout: float | None = None) -> bytes:
    """Read exactly ``size`` bytes, looping over partial reads."""
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        try:
            n = sock.recv_into(view[got:])
        except TimeoutError:
            raise ServerTimeoutError(where, timeout or 0.0) from None
        except (ConnectionResetError, ConnectionAbortedError) as exc:
            raise ServerClosedError(where, got, size, "connection reset") from exc
        except OSError as exc:  # e.g. the network went away (EHOSTUNREACH, ETIMEDOUT)
            raise ServerClosedError(where, got, size, exc.strerror or str(exc)) from exc
        if n == 0:
            raise ServerClosedError(where, got, size)
        got += n
    return bytes(buf)


def send_message(sock: socket.socket, data: bytes, where: str) -> None:
    """One message, one write."""
    try:
        sock.sendall(data)
    except TimeoutError:  # the server stopped reading for the whole read timeout
        raise ServerTimeoutError(f"sending a reply ({where})", sock.gettimeout() or 0.0
                                 ) from None
    except OSError as exc:  # broken pipe, reset, network gone
        raise ServerClosedError(f"sending a reply ({where})", reason=str(exc)) from exc


def run_protocol(sock: socket.socket, proto: ClientProtocol,
                 read_timeout: float | None = None,
                 handshake_timeout: float | None = None) -> MatchRecord:
    """Drive ``proto`` over a connected socket until the match is over.

    The player number must come within ``handshake_timeout`` when ``read_timeout`` is None
    (a server answers the profile at once), so a server that accepts and then says nothing
    cannot hang the client."""
    first = read_timeout if read_timeout is not None else handshake_timeout
    sock.settimeout(first)
    send_message(sock, proto.initiate(), "the profile")
    while not proto.done:
        exp = proto.expecting
        wait = first if exp.step is Step.PLAYER_NUMBER else read_timeout
        if wait != sock.gettimeout():
            sock.settimeout(wait)
        data = recv_exactly(sock, exp.size, exp.what, wait)
        for reply in proto.receive(data):
            send_message(sock, reply, exp.what)
    return proto.record


def run_bot(bot: Bot, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
            name: str | None = None, rules: RuleSet = UECDA,
            connect_timeout: float | None = 10.0, read_timeout: float | None = None,
            check_moves: bool = True,
            extension: bool | None = None) -> MatchRecord:
    """Connect, play the whole match with ``bot``, return what the client recorded.

    ``name`` is the profile name (default ``bot.name``); ``rules`` only serve to list the
    legal moves in the bot's views (the server judges) and pick the protocol: 20260 when they
    need it or with ``extension=True`` (``docs/PROTOCOL_EXTENSION.md``).  ``read_timeout``
    bounds every wait for a server message (None: wait as long as the server takes, as the
    reference does, except for the player number, which must come within
    ``connect_timeout``).
    """
    proto = ClientProtocol(bot, name=name, rules=rules, check_moves=check_moves,
                           extension=extension)
    with connect(host, port, connect_timeout) as sock:
        return run_protocol(sock, proto, read_timeout, handshake_timeout=connect_timeout)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "connect", "recv_exactly", "run_bot", "run_protocol"]
