"""Errors a client can meet: the server is unreachable, goes away, is too slow or misbehaves.

Each error names where in the protocol it happened (``where``), e.g. "the field table of
game 3, turn 12", so a log line alone says what went wrong.
"""

from __future__ import annotations

from daihinmin.protocol.errors import ProtocolError


class ClientError(Exception):
    """Base class of every error the client runner raises about the server or the bot."""


class ServerUnreachableError(ClientError, ConnectionError):
    """The TCP connection to the server could not be opened (refused, no route, timeout)."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"cannot connect to the server at {host}:{port}: {reason}")
        self.host, self.port, self.reason = host, port, reason


class ServerClosedError(ClientError, ConnectionError):
    """The server closed (or reset) the connection before the match was over."""

    def __init__(self, where: str, received: int = 0, expected: int = 0,
                 reason: str = "") -> None:
        detail = f": got {received} of {expected} bytes" if expected else ""
        why = f" ({reason})" if reason else ""
        super().__init__(f"the server closed the connection while {where}{detail}{why}")
        self.where, self.received, self.expected = where, received, expected


class ServerTimeoutError(ClientError, TimeoutError):
    """A whole message did not come within the read timeout (or the player number within the
    connect timeout); ``received`` of ``expected`` bytes had come."""

    def __init__(self, where: str, seconds: float, received: int = 0,
                 expected: int = 0) -> None:
        part = f" (got {received} of {expected} bytes)" if received else ""
        super().__init__(f"no data from the server for {seconds:g} s while {where}{part}")
        self.where, self.seconds = where, seconds
        self.received, self.expected = received, expected


class UnexpectedMessageError(ProtocolError, ClientError):
    """A server message that does not fit the protocol at this point (garbage, wrong values).

    ``cell`` is the (row, column) of the offending table cell, or None for an int message.
    """

    def __init__(self, where: str, problem: str, cell: tuple[int, int] | None = None,
                 value: int | None = None) -> None:
        at = f" at [{cell[0]}][{cell[1]}]" if cell is not None else ""
        super().__init__(f"unexpected data from the server{at} while {where}: {problem}")
        self.where, self.problem, self.cell, self.value = where, problem, cell, value


class BotError(ClientError):
    """The bot returned something that is not a move / card set (a programming error)."""


__all__ = [
    "BotError",
    "ClientError",
    "ServerClosedError",
    "ServerTimeoutError",
    "ServerUnreachableError",
    "UnexpectedMessageError",
]
