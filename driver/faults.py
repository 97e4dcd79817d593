"""What can go wrong with a seat, and what the server does about it.

Every seat has a status: ``OK`` until something goes wrong.  The kinds of fault:

* ``TIMEOUT``: no (whole) move or exchange table before the deadline, or the player stopped
  reading (a write to it blocked past the send deadline).  The move counts as a pass,
  answered 8; an exchange is picked by the server.  A late table is read and thrown away
  when it comes, so the stream stays in step.
* ``MALFORMED``: bytes that are not a table of the protocol (a card cell outside 0..2, a
  20140 string that is not hex) or bytes nobody asked for.  Counts as a pass, answered 8.
* ``ILLEGAL``: a table of 0/1/2 that the rules reject (bad shape, cards not held, does not
  beat the field, a wrong exchange).  Answered 8 as a pass (the exchange: the server picks),
  exactly as the reference server does; by default it is not counted against the seat,
  because UECda clients routinely send such tables.
* ``DISCONNECTED``: the connection closed or broke.  ``CRASHED``: the player's process
  exited abnormally (known to ``daihinmin match``, which runs the processes).

Not a fault: ``REQUESTED``, a seat whose stand-in was asked for from the start (``daihinmin
bench server --stand-ins``); no fault is counted, and its games are still the stand-in's.

Counted faults (TIMEOUT, MALFORMED, and ILLEGAL if asked) add up per seat over the match;
at ``fault_limit`` (or at once on DISCONNECTED/CRASHED) the seat is handed to a stand-in
for the rest of the match and its connection is closed: the ``fallback`` bot (policy
``fallback``), or an always-pass stand-in (policy ``forfeit``: the player is out of the
match; see :mod:`daihinmin.records.standings` for how it is ranked).

A seat's status is the kind that made it hand over, if it did; otherwise the most serious
kind it met (MALFORMED, then TIMEOUT, then ILLEGAL), or OK.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from daihinmin.values.errors import IllegalTableError, MalformedTableError


class SeatStatus(enum.StrEnum):
    OK = "OK"
    TIMEOUT = "TIMEOUT"
    ILLEGAL = "ILLEGAL"
    MALFORMED = "MALFORMED"
    DISCONNECTED = "DISCONNECTED"
    CRASHED = "CRASHED"
    REQUESTED = "REQUESTED"  # no fault: a stand-in was asked for in the seat


class OnFault(enum.StrEnum):
    FALLBACK = "fallback"  # a bundled bot plays the seat for the rest of the match
    FORFEIT = "forfeit"  # the seat passes every turn; the player is ranked out


# The most serious first: what a seat's status shows when it met several kinds.
SEVERITY = (SeatStatus.CRASHED, SeatStatus.DISCONNECTED, SeatStatus.MALFORMED,
            SeatStatus.TIMEOUT, SeatStatus.ILLEGAL, SeatStatus.REQUESTED, SeatStatus.OK)
ENDS_CONNECTION = (SeatStatus.DISCONNECTED, SeatStatus.CRASHED)


def table_fault(exc: MalformedTableError | IllegalTableError) -> SeatStatus:
    """The fault of a table that could not be used, by what was sent: MALFORMED for no table
    of the protocol, ILLEGAL for a table of 0/1/2 cells the rules reject (each error says
    which by its base, :mod:`daihinmin.values.errors`)."""
    if isinstance(exc, MalformedTableError):
        return SeatStatus.MALFORMED
    if isinstance(exc, IllegalTableError):
        return SeatStatus.ILLEGAL
    raise TypeError(f"{type(exc).__name__} says neither MALFORMED nor ILLEGAL")


def more_serious(a: SeatStatus, b: SeatStatus) -> SeatStatus:
    return a if SEVERITY.index(a) <= SEVERITY.index(b) else b


@dataclass
class SeatEvent:
    """A seat handed to its stand-in (or a later finding about it, e.g. the process crashed)."""

    player: int
    game: int  # the game it happened in (0: before the first game)
    turn: int  # the turn number within the game (0: deal/exchange, or between games)
    status: SeatStatus
    action: str  # "fallback"/"forfeit" (handed over), "noted" (news about a seat already
    # handed over, e.g. its process crashed) or "fault" (a fault outside any turn)
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "game": self.game, "turn": self.turn,
                "status": str(self.status), "action": self.action, "detail": self.detail}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeatEvent:
        return cls(int(d["player"]), int(d["game"]), int(d["turn"]), SeatStatus(d["status"]),
                   str(d["action"]), str(d.get("detail", "")))


@dataclass
class SeatReport:
    """One seat over the match: its status, fault counts and stand-in, if any."""

    player: int
    status: SeatStatus = SeatStatus.OK
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count
    stand_in: str | None = None  # "fallback" / "forfeit" once handed over
    since_game: int | None = None  # where the stand-in took over
    since_turn: int | None = None
    detail: str = ""  # what made it hand over (or the last fault)

    @property
    def pristine(self) -> bool:
        """Nothing has happened to the seat yet."""
        return self.status is SeatStatus.OK and not self.faults and self.stand_in is None

    def copy(self) -> SeatReport:
        return replace(self, faults=dict(self.faults))

    def count(self, kind: SeatStatus) -> None:
        self.faults[str(kind)] = self.faults.get(str(kind), 0) + 1
        if self.stand_in is None:
            self.status = more_serious(self.status, kind)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "status": str(self.status),
                             "faults": dict(self.faults)}
        if self.stand_in is not None:
            d.update(stand_in=self.stand_in, since_game=self.since_game,
                     since_turn=self.since_turn)
        if self.detail:
            d["detail"] = self.detail
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeatReport:
        return cls(int(d["player"]), SeatStatus(d["status"]),
                   {str(k): int(v) for k, v in d.get("faults", {}).items()},
                   d.get("stand_in"), d.get("since_game"), d.get("since_turn"),
                   str(d.get("detail", "")))


__all__ = ["ENDS_CONNECTION", "SEVERITY", "OnFault", "SeatEvent", "SeatReport", "SeatStatus",
           "more_serious", "table_fault"]
