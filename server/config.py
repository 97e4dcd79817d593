"""What one match server run needs to know."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from daihinmin.rules.ruleset import UECDA, RuleSet

from .errors import ServerConfigError

DEFAULT_PORT = 42485
CONNECT_TIMEOUT_SECONDS = 60.0  # headless matches: how long a player process may take to join
WIRE_PLAYER_SLOTS = 5  # row 6 of a table has five cells for counts, classes and seats
# Rules whose plays ask their player a follow-up question (which cards to give or discard).
OFF_WIRE_CHOICES = ("seven_pass", "ten_discard")


@dataclass(frozen=True)
class ServerConfig:
    """A match: rules, number of games, seed, where to listen, where to log.

    ``port=0`` binds an ephemeral port (tests and the headless match runner); the bound port
    is reported through ``nursery.start``.  ``profile_timeout``/``move_timeout`` are seconds
    or ``None`` for no deadline (the reference server has none).  ``coalesce_writes`` sends
    the same bytes per connection in fewer writes (see :mod:`daihinmin.server.outbox`).
    """

    rules: RuleSet = UECDA
    games: int = 1
    seed: int = 0
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    log_path: Path | None = None
    profile_timeout: float | None = None
    move_timeout: float | None = None
    coalesce_writes: bool = False  # gather each player's messages into one write per wait

    def validate(self) -> ServerConfig:
        self.rules.validate()
        if self.rules.players > WIRE_PLAYER_SLOTS:
            raise ServerConfigError(f"the wire protocol seats at most {WIRE_PLAYER_SLOTS} "
                                    f"players; the rules ask for {self.rules.players}")
        asks = [key for key in OFF_WIRE_CHOICES if getattr(self.rules, key, False)]
        if asks:
            raise ServerConfigError("the UECda protocol has no message for the follow-up "
                                    f"choice of {', '.join(asks)}; the server cannot play it")
        if self.games < 1:
            raise ServerConfigError(f"a match needs at least one game, got {self.games}")
        if not 0 <= self.port <= 65535:
            raise ServerConfigError(f"port must be 0..65535, got {self.port}")
        return self
