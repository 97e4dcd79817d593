"""Errors of the match server and its players (the match log's: ``daihinmin.records``)."""

from __future__ import annotations


class ServerError(Exception):
    """Base class of everything the match server reports."""


class ServerConfigError(ServerError):
    """The server was asked for something it cannot do (e.g. 6 players on the 5-slot wire)."""


class ResumeLogError(ServerConfigError):
    """The log to resume from is missing, unreadable, inconsistent or already complete
    (exit code 4: a bad input file)."""


class ListenError(ServerError):
    """The server cannot listen on its address (in use, not this machine's, no permission);
    the message names the address."""


class HandshakeError(ServerError):
    """A connection did not send a usable profile table; it is closed and not seated."""


class PlayerConnectionError(ServerError):
    """A seated player's connection failed during the match."""

    def __init__(self, player: int, message: str) -> None:
        super().__init__(f"player {player}: {message}")
        self.player = player
        self.message = message  # without the player prefix (logs say whose turn it was)


class PlayerDisconnectedError(PlayerConnectionError):
    """The player closed the connection (or it broke) before the match was over."""


class PlayerTimeoutError(PlayerConnectionError):
    """The player did not send a message before its deadline."""


class MatchInterruptedError(ServerError):
    """A headless match was stopped by a signal (SIGTERM, SIGHUP); its players were stopped."""


class BotProcessError(ServerError):
    """A player process of a headless match failed (did not start, exited, did not connect)."""


def leaf_errors(exc: BaseException) -> list[BaseException]:
    """The individual errors inside (nested) exception groups, in order."""
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for inner in exc.exceptions:
            out.extend(leaf_errors(inner))
        return out
    return [exc]


CTRL_C = "interrupted by the user (Ctrl-C)"


def plain_reason(exc: BaseException) -> str:
    """Why a run stopped, in words (for the log's end record and messages): the user's
    Ctrl-C or a signal before any error the stop caused inside the nursery."""
    errors = leaf_errors(exc)
    if any(isinstance(e, KeyboardInterrupt) for e in errors):
        return CTRL_C
    for e in errors:
        if isinstance(e, MatchInterruptedError):
            return str(e)
    for e in errors:  # trio.Cancelled: the reason the launcher gave when it cancelled
        reason = getattr(e, "reason", None) if type(e).__name__ == "Cancelled" else None
        if reason:
            return CTRL_C if "KeyboardInterrupt" in reason else str(reason)
    real = [e for e in errors if type(e).__name__ != "Cancelled"] or errors
    first = real[0]
    text = f"{type(first).__name__}: {first}" if str(first) else type(first).__name__
    return text + (f" (and {len(real) - 1} more errors)" if len(real) > 1 else "")
