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

import contextlib
import logging
import math
import select
import socket
import struct
import sys
import time

from daihinmin.contract.view import Bot
from daihinmin.rules.ruleset import UECDA, RuleSet

from .errors import ServerClosedError, ServerTimeoutError, ServerUnreachableError
from .protocol import ClientProtocol, MatchRecord, Step
from .retry import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT, Retry, wait_for

log = logging.getLogger("daihinmin.client")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 42485
RECEIVE_BYTES = 65536  # more than the server ever writes at once
_POLL = hasattr(select, "poll")  # else select.select (Windows)
# Linux: a blocking recv under SO_RCVTIMEO (one system call a wake-up instead of poll + recv).
_KERNEL_DEADLINE = sys.platform.startswith("linux")
_DONT_WAIT = socket.MSG_DONTWAIT if _KERNEL_DEADLINE else 0  # a reply never blocks there
RECV_LIMIT_SLACK = 0.002  # seconds a read may outlast its deadline before the limit is set


def connect(host: str, port: int, timeout: float | None) -> socket.socket:
    """An open TCP connection with TCP_NODELAY, or :class:`ServerUnreachableError`."""
    try:
        sock = socket.create_connection(
            (host, port), timeout=None if timeout is None else max(timeout, 0.001))
    except TimeoutError:
        raise ServerUnreachableError(host, port, f"no answer within {timeout:g} s") from None
    except OSError as exc:
        raise ServerUnreachableError(host, port, exc.strerror or str(exc)) from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def recv_exactly(sock: socket.socket, size: int, where: str,
                 timeout: float | None = None) -> bytes:
    """Read exactly ``size`` bytes, looping over partial reads, all within ``timeout`` seconds
    (a server that trickles a byte at a time meets the same deadline as a silent one)."""
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    deadline = None if timeout is None else time.monotonic() + timeout
    while got < size:
        try:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
            n = sock.recv_into(view[got:])
        except TimeoutError:
            raise ServerTimeoutError(where, timeout or 0.0, got, size) from None
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


class _Wire:
    """The socket of one match: one ``recv`` of what is there per wake-up, and each reply
    written at once (a wait only when the server stops reading).

    On Linux the socket stays blocking and the kernel keeps the read deadline
    (``SO_RCVTIMEO``, set again only when the time left moves by more than
    ``RECV_LIMIT_SLACK``): a wake-up is one system call.  Elsewhere the socket is
    non-blocking and each ``recv`` waits in ``poll``/``select`` first."""

    def __init__(self, sock: socket.socket, proto: ClientProtocol) -> None:
        self.sock, self.proto = sock, proto
        self.limit: float | None = None  # the SO_RCVTIMEO set (0: none), None: not set yet
        self.poller = None
        if _KERNEL_DEADLINE:
            sock.setblocking(True)
            return
        sock.setblocking(False)
        if _POLL:
            self.poller = select.poll()
            self.poller.register(sock, select.POLLIN)

    def _wait(self, left: float) -> bool:
        """Bytes (or an error, or the end) to read within ``left`` seconds."""
        if _KERNEL_DEADLINE:  # recv itself waits, up to the limit
            want = 0.0 if left == math.inf else max(left, 1e-6)  # 0: no limit
            if self.limit is None or abs(self.limit - want) > RECV_LIMIT_SLACK:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(want))
                self.limit = want
            return True
        if self.poller is None:
            return bool(select.select([self.sock], [], [], None if left == math.inf else left)[0])
        return bool(self.poller.poll(None if left == math.inf else math.ceil(left * 1000)))

    def receive(self, deadline: float, timeout: float | None) -> bytes:
        """What the server has sent (at least one byte) before ``deadline``.  The errors name
        the message waited for and how much of it came; their text is built only then."""
        proto = self.proto
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self._wait(left):
                raise ServerTimeoutError(proto.where(), timeout or 0.0, proto.unread,
                                         proto.expecting.size)
            try:
                data = self.sock.recv(RECEIVE_BYTES)
            except BlockingIOError:  # the kernel's limit ran out, or woken for nothing
                continue
            except (ConnectionResetError, ConnectionAbortedError) as exc:
                raise ServerClosedError(proto.where(), proto.unread, proto.expecting.size,
                                        "connection reset") from exc
            except OSError as exc:  # e.g. the network went away (EHOSTUNREACH, ETIMEDOUT)
                raise ServerClosedError(proto.where(), proto.unread, proto.expecting.size,
                                        exc.strerror or str(exc)) from exc
            if not data:
                raise ServerClosedError(proto.where(), proto.unread, proto.expecting.size)
            return data

    def send(self, data: bytes, timeout: float | None) -> None:
        """One reply, one write; a full socket waits for room within ``timeout``."""
        sock = self.sock
        try:
            sent = sock.send(data, _DONT_WAIT)
        except BlockingIOError:
            sent = 0
        except OSError as exc:  # broken pipe, reset, network gone
            raise ServerClosedError(f"sending a reply ({self.proto.replied_where()})",
                                    reason=str(exc)) from exc
        if sent == len(data):
            return
        sock.settimeout(timeout)
        try:
            send_message(sock, data[sent:], self.proto.replied_where())
        finally:
            sock.setblocking(_KERNEL_DEADLINE)

    def close(self) -> None:
        """Leave the socket as it was given: no kernel read limit."""
        if self.limit:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(0.0))


def _timeval(seconds: float) -> bytes:
    """A ``struct timeval`` for SO_RCVTIMEO (Linux: two longs)."""
    whole = int(seconds)
    return struct.pack("@ll", whole, int((seconds - whole) * 1_000_000))


def run_protocol(sock: socket.socket, proto: ClientProtocol,
                 read_timeout: float | None = DEFAULT_READ_TIMEOUT,
                 handshake: Retry | None = None) -> MatchRecord:
    """Drive ``proto`` over a connected socket until the match is over.

    Each message must come whole within ``read_timeout`` of the moment the client began to
    wait for it; the player number also before the deadline of ``handshake`` (a server that
    accepts and then says nothing, or trickles, cannot hang the client).  Each wake-up reads
    what is there and hands it to :meth:`ClientProtocol.feed`."""
    sock.settimeout(wait_for(read_timeout, handshake))
    send_message(sock, proto.initiate(), "the profile")
    wire = _Wire(sock, proto)
    deadline: float | None = None
    wait: float | None = None
    try:
        while not proto.done:
            if deadline is None:  # a new message: its clock starts now
                first = proto.step is Step.PLAYER_NUMBER
                wait = wait_for(read_timeout, handshake) if first else read_timeout
                deadline = math.inf if wait is None else time.monotonic() + wait
            seen = proto.received
            replies = proto.feed(wire.receive(deadline, wait))
            if proto.received != seen:
                deadline = None
            for reply in replies:
                wire.send(reply, read_timeout)
    finally:
        with contextlib.suppress(OSError):
            wire.close()
        with contextlib.suppress(OSError):  # a caller's socket goes back to blocking reads
            sock.settimeout(read_timeout)
    return proto.record


def run_bot(bot: Bot, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
            name: str | None = None, rules: RuleSet = UECDA,
            connect_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
            read_timeout: float | None = DEFAULT_READ_TIMEOUT,
            check_moves: bool = True,
            extension: bool | None = None) -> MatchRecord:
    """Connect, play the whole match with ``bot``, return what the client recorded.

    ``name`` is the profile name (default ``bot.name``); ``rules`` only serve to list the
    legal moves in the bot's views (the server judges) and pick the protocol: 20260 when they
    need it or with ``extension=True`` (``docs/PROTOCOL_EXTENSION.md``).

    Deadlines (:mod:`daihinmin.client.retry`): a refused connection, or one closed before the
    player number came, is tried again with a growing pause until ``connect_timeout`` seconds
    after the first try (default 10), and the player number must come by then too;
    afterwards each server message must come whole within ``read_timeout`` (default 600 s;
    None waits for ever).
    """
    retry = Retry(connect_timeout)
    while True:
        proto = ClientProtocol(bot, name=name, rules=rules, check_moves=check_moves,
                               extension=extension)
        try:
            with connect(host, port, retry.left()) as sock:
                return run_protocol(sock, proto, read_timeout, handshake=retry)
        except (ServerUnreachableError, ServerClosedError) as exc:
            pause = retry.after(exc, seated=proto.step is not Step.PLAYER_NUMBER)
            if pause is None:
                raise retry.error(exc) from None
            log.info("%s; trying again in %.2f s", exc, pause)
            time.sleep(pause)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "connect", "recv_exactly", "run_bot", "run_protocol"]
