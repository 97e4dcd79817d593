"""What one match server run needs to know."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.records.logcheck import MAX_GAMES
from daihinmin.rules.ruleset import UECDA, RuleSet

from .errors import ServerConfigError

if TYPE_CHECKING:
    from .resume import ResumePoint

DEFAULT_PORT = 42485
CONNECT_TIMEOUT_SECONDS = 60.0  # headless matches: how long a player process may take to join
# 3-6 players, choices (7-pass, 10-discard) and the other presets travel over protocol 20260
# (docs/PROTOCOL_EXTENSION.md); seating refuses a 20070 client at a table that needs it.


# Deadlines and fault policy a competition would use (seconds; 0 or None: no deadline).
# The bundled bots answer in well under 10 ms and the Monte-Carlo one thinks ~250 ms, so one
# second per move leaves room for a loaded machine; the bank absorbs the odd slow start.
PROFILE_TIMEOUT = 10.0  # connect -> profile (the reference waits ~2 s, then assumes 20060)
MOVE_TIMEOUT = 1.0
EXCHANGE_TIMEOUT = 1.0
TIME_BANK = 10.0  # per seat and match, drawn on once a request's own time is used up
SEND_TIMEOUT = 10.0  # a write to a player that does not read fails after this long
FAULT_LIMIT = 5  # counted faults (timeouts, malformed tables) before the stand-in takes over
# Connections in the handshake beyond the free seats; a newer one makes the oldest leave.
HANDSHAKE_SLACK = 32


class WriteMode(enum.StrEnum):
    """When the messages to the players are written (:mod:`daihinmin.server.outbox`).

    Each connection carries the very same bytes in the very same order in every mode; only
    the number and the timing of the writes differ."""

    EXACT = "exact"  # one write per message, at once (the reference server's writes)
    COALESCED = "coalesced"  # each player's messages in one write before any wait
    DEFERRED = "deferred"  # held per player until the server waits for that player


@dataclass(frozen=True)
class ServerConfig:
    """A match: rules, number of games, seed, where to listen, where to log, fault policy.

    ``port=0`` binds an ephemeral port (tests and the headless match runner); the bound port
    is reported through ``nursery.start``.  Deadlines are seconds, ``None`` or ``0`` for none
    (the reference server has none): ``profile_timeout`` (connect to profile),
    ``move_timeout``, ``exchange_timeout``, ``send_timeout`` (a write to a player that does
    not read), plus ``time_bank`` seconds per seat and match for slow moves and exchanges.
    Faults are handled as :mod:`daihinmin.driver.faults` says: ``fault_limit`` counted faults
    (0: no limit) or a lost connection hand the seat to the ``on_fault`` stand-in
    (``"fallback"``: the bundled bot named ``fallback``; ``"forfeit"``: always pass);
    ``illegal_counts`` counts rejected tables too.  ``write_mode`` sends the same bytes per
    connection with one write per message, or in fewer writes (:class:`WriteMode`).
    ``durable`` fsyncs the log after every game.  ``resume`` continues the match logged at
    ``log_path`` (rules, seed and games are then those of the log).  A new log is created
    exclusively (an existing file is refused unless ``overwrite_log``) and locked while it
    is written.
    """

    rules: RuleSet = UECDA
    games: int = 1
    seed: int = 0
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    log_path: Path | None = None
    profile_timeout: float | None = PROFILE_TIMEOUT
    move_timeout: float | None = MOVE_TIMEOUT
    write_mode: WriteMode = WriteMode.EXACT
    exchange_timeout: float | None = EXCHANGE_TIMEOUT
    time_bank: float = TIME_BANK
    send_timeout: float | None = SEND_TIMEOUT
    fault_limit: int = FAULT_LIMIT
    illegal_counts: bool = False
    on_fault: str = "fallback"
    fallback: str = "default"
    handshake_slack: int = HANDSHAKE_SLACK
    durable: bool = True
    resume: bool = False
    human_seats: bool = True  # a seat whose profile says a person plays has no deadlines
    overwrite_log: bool = False  # replace an existing log file (else it is refused)
    make_log_folder: bool = True  # create a missing folder (the CLI: only its default logs/)
    # How each player was started ({"bot": kind} or {"cmd": command}), logged in the header
    # so that --resume seats the same lineup.
    lineup: tuple[tuple[tuple[str, str], ...], ...] = ()
    # The resumed log as the command already read it (server.resume: read once).
    resume_point: ResumePoint | None = field(default=None, compare=False, repr=False)

    def validate(self) -> ServerConfig:
        self.rules.validate()
        if not 1 <= self.games <= MAX_GAMES:  # (its log must stay readable: logcheck)
            raise ServerConfigError(f"a match has 1..{MAX_GAMES} games, got {self.games}")
        if not 0 <= self.port <= 65535:
            raise ServerConfigError(f"port must be 0..65535, got {self.port}")
        for key in ("profile_timeout", "move_timeout", "exchange_timeout", "send_timeout",
                    "time_bank"):
            value = getattr(self, key)
            if value is not None and not value >= 0:
                raise ServerConfigError(f"{key} must be >= 0 seconds, got {value}")
        if self.write_mode not in tuple(WriteMode):
            raise ServerConfigError(f"write_mode is one of {', '.join(WriteMode)}, got "
                                    f"{self.write_mode!r}")
        if self.fault_limit < 0 or self.handshake_slack < 0:
            raise ServerConfigError("fault_limit and handshake_slack must be >= 0")
        if self.on_fault not in ("fallback", "forfeit"):
            raise ServerConfigError(f"on_fault is 'fallback' or 'forfeit', got {self.on_fault!r}")
        if self.on_fault == "fallback":
            from daihinmin.players.registry import UnknownBotError, resolve

            try:  # fail now, not when a seat is handed over mid-match
                resolve(self.fallback)
            except UnknownBotError as exc:
                raise ServerConfigError(f"fallback bot: {exc}") from exc
        if self.resume and self.log_path is None:
            raise ServerConfigError("resume needs the log of the match to continue")
        return self

    def policy(self) -> dict[str, Any]:
        """The deadlines and fault policy, as logged in the match header."""
        return {"profile_timeout": self.profile_timeout or 0, "move_timeout": self.move_timeout
                or 0, "exchange_timeout": self.exchange_timeout or 0,
                "time_bank": self.time_bank, "send_timeout": self.send_timeout or 0,
                "fault_limit": self.fault_limit, "illegal_counts": self.illegal_counts,
                "on_fault": self.on_fault, "fallback": self.fallback}
