"""Run a bot inside a Trio program: ``await run_bot_async(bot, host, port)``.

Same protocol state machine as the blocking runner.  The bot is called synchronously in
the event loop by default; ``bot_in_thread=True`` moves each message's handling (and so
every bot call) to a worker thread, so a slow bot does not stall other tasks, e.g. a
server running in the same process.
"""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Callable

import trio
from daihinmin.contract.view import Bot
from daihinmin.rules.ruleset import UECDA, RuleSet

from .errors import ServerClosedError, ServerTimeoutError, ServerUnreachableError
from .protocol import ClientProtocol, MatchRecord, Step
from .retry import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT, Retry, wait_for
from .sync_runner import DEFAULT_HOST, DEFAULT_PORT, RECEIVE_BYTES

log = logging.getLogger("daihinmin.client")


async def connect_async(host: str, port: int, timeout: float | None) -> trio.SocketStream:
    """An open TCP stream with TCP_NODELAY, or :class:`ServerUnreachableError`."""
    try:
        with trio.fail_after(math.inf if timeout is None else timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise ServerUnreachableError(host, port, f"no answer within {timeout:g} s") from None
    except OSError as exc:
        raise ServerUnreachableError(host, port, exc.strerror or str(exc)) from exc
    stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
    return stream


async def receive_exactly(stream: trio.abc.ReceiveStream, size: int, where: str,
                          timeout: float | None = None) -> bytes:
    """Read exactly ``size`` bytes, looping over partial reads, all within ``timeout``."""
    buf = bytearray()
    try:
        with trio.fail_after(math.inf if timeout is None else timeout):
            while len(buf) < size:
                chunk = await stream.receive_some(size - len(buf))
                if not chunk:
                    raise ServerClosedError(where, len(buf), size)
                buf += chunk
    except trio.TooSlowError:
        raise ServerTimeoutError(where, timeout or 0.0, len(buf), size) from None
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise ServerClosedError(where, len(buf), size, "connection reset") from exc
    return bytes(buf)


async def send_message(stream: trio.abc.SendStream, data: bytes, where: str,
                       timeout: float | None = None) -> None:
    """One message, one write (within ``timeout``: a server that stops reading)."""
    await _send(stream, data, lambda: where, timeout)


async def _send(stream: trio.abc.SendStream, data: bytes, where: Callable[[], str],
                timeout: float | None) -> None:
    """:func:`send_message` with the error text built only when there is an error."""
    try:
        with trio.fail_after(math.inf if timeout is None else timeout):
            await stream.send_all(data)
    except trio.TooSlowError:
        raise ServerTimeoutError(f"sending a reply ({where()})", timeout or 0.0) from None
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise ServerClosedError(f"sending a reply ({where()})", reason=str(exc)) from exc


async def _receive_some(stream: trio.abc.ReceiveStream, proto: ClientProtocol, deadline: float,
                        timeout: float | None) -> bytes:
    """What the server has sent (at least one byte) before ``deadline`` (Trio's clock); the
    errors name the message waited for and how much of it came."""
    try:
        with trio.fail_at(deadline):
            data = await stream.receive_some(RECEIVE_BYTES)
    except trio.TooSlowError:
        raise ServerTimeoutError(proto.where(), timeout or 0.0, proto.unread,
                                 proto.expecting.size) from None
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise ServerClosedError(proto.where(), proto.unread, proto.expecting.size,
                                "connection reset") from exc
    if not data:
        raise ServerClosedError(proto.where(), proto.unread, proto.expecting.size)
    return data if isinstance(data, bytes) else bytes(data)


async def run_protocol_async(stream: trio.abc.Stream, proto: ClientProtocol,
                             read_timeout: float | None = DEFAULT_READ_TIMEOUT,
                             bot_in_thread: bool = False,
                             handshake: Retry | None = None) -> MatchRecord:
    """Drive ``proto`` over a connected stream until the match is over (each message whole
    within ``read_timeout`` of the moment the client began to wait for it; the player number
    also before the deadline of ``handshake``).  Each wake-up reads what is there and hands
    it to :meth:`ClientProtocol.feed`."""
    await send_message(stream, proto.initiate(), "the profile",
                       wait_for(read_timeout, handshake))
    deadline: float | None = None
    wait: float | None = None
    while not proto.done:
        if deadline is None:  # a new message: its clock starts now
            first = proto.step is Step.PLAYER_NUMBER
            wait = wait_for(read_timeout, handshake) if first else read_timeout
            deadline = math.inf if wait is None else trio.current_time() + wait
        data = await _receive_some(stream, proto, deadline, wait)
        seen = proto.received
        if bot_in_thread:
            replies = await trio.to_thread.run_sync(proto.feed, data)
        else:
            replies = proto.feed(data)
        if proto.received != seen:
            deadline = None
        for reply in replies:
            await _send(stream, reply, proto.replied_where, read_timeout)
    return proto.record


async def run_bot_async(bot: Bot, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                        name: str | None = None, rules: RuleSet = UECDA,
                        connect_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
                        read_timeout: float | None = DEFAULT_READ_TIMEOUT,
                        check_moves: bool = True, bot_in_thread: bool = False,
                        extension: bool | None = None) -> MatchRecord:
    """Connect, play the whole match with ``bot``, return what the client recorded.

    The options (and the retries and deadlines) are those of
    :func:`daihinmin.client.run_bot`, plus ``bot_in_thread``.  The deadlines follow Trio's
    clock, so ``trio.testing.MockClock`` can drive them.
    """
    retry = Retry(connect_timeout, clock=trio.current_time)
    while True:
        proto = ClientProtocol(bot, name=name, rules=rules, check_moves=check_moves,
                               extension=extension)
        try:
            stream = await connect_async(host, port, retry.left())
            async with stream:
                return await run_protocol_async(stream, proto, read_timeout, bot_in_thread,
                                                handshake=retry)
        except (ServerUnreachableError, ServerClosedError) as exc:
            pause = retry.after(exc, seated=proto.step is not Step.PLAYER_NUMBER)
            if pause is None:
                raise retry.error(exc) from None
            log.info("%s; trying again in %.2f s", exc, pause)
            await trio.sleep(pause)


__all__ = ["connect_async", "receive_exactly", "run_bot_async", "run_protocol_async"]
