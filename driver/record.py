"""The record of one game, as every way of playing writes it to the match log.

:class:`GameRecord` is what :class:`~daihinmin.driver.game.GameDriver` builds as a game is
played (over TCP, in process, in the terminal or in the browser) and what
``daihinmin replay --verify`` re-simulates: the deal, the exchange (:class:`TransferRecord`),
every turn (:class:`TurnRecord`, with its 7-pass/10-discard :class:`ChoiceRecord` s), the
places and points.  Cards and moves are the strings of ``CardSet`` / ``Move``.  The seat
facts only the server knows (hand-overs, time banks, fault reports) are optional fields.

A turn record lists its choices in the order they were asked; replaying feeds them to
``GameState.step_choice`` (a substituted one as ``None``: the engine's default).

>>> r = ChoiceRecord("give", 2, "S3 H4", False)
>>> ChoiceRecord.from_json(r.to_json()) == r, r.to_json()
(True, {'kind': 'give', 'count': 2, 'cards': 'S3 H4', 'substituted': False})
>>> t = TurnRecord(1, "pass", 8, 0.5, fault="ILLEGAL")
>>> TurnRecord.from_json(t.to_json()) == t
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from daihinmin.values.moves import Cell

from .faults import SeatEvent, SeatReport

RawCells = list[list[int]]  # [[row, col, value], ...]: the non-zero card cells of a bad table


def raw_cells(cells: dict[Cell, int]) -> RawCells:
    """The cells of a table as the log keeps them: sorted ``[row, col, value]`` triples."""
    return [[r, c, v] for (r, c), v in sorted(cells.items())]


@dataclass
class ChoiceRecord:
    kind: str  # "give" or "discard"
    count: int  # at most this many cards
    cards: str  # the cards given or discarded (what the engine moved)
    substituted: bool  # the answer was missing or invalid: the engine's default moved
    error: str | None = None  # why the answer was not used
    raw: list[list[int]] | None = None  # the non-zero card cells of an invalid answer
    fault: str | None = None  # TIMEOUT / MALFORMED / ILLEGAL, as for moves
    by: str | None = None  # the stand-in that chose ("fallback" / "forfeit")

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "count": self.count, "cards": self.cards,
                             "substituted": self.substituted}
        for key in ("error", "raw", "fault", "by"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ChoiceRecord:
        return cls(str(d["kind"]), int(d["count"]), str(d["cards"]), bool(d["substituted"]),
                   d.get("error"), d.get("raw"), d.get("fault"), d.get("by"))




@dataclass
class TransferRecord:
    """Cards passed in the exchange: automatic (lower gives its strongest) or chosen."""

    giver: int
    receiver: int
    cards: str
    automatic: bool
    substituted: bool = False  # the chosen table was invalid; the server picked instead
    error: str | None = None  # why the chosen table was invalid
    raw: RawCells | None = None
    fault: str | None = None  # TIMEOUT / MALFORMED / ILLEGAL (schema 2)
    by: str | None = None  # the stand-in that chose ("fallback" / "forfeit")

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"giver": self.giver, "receiver": self.receiver,
                             "cards": self.cards, "automatic": self.automatic,
                             "substituted": self.substituted}
        if self.error is not None:
            d["error"] = self.error
        if self.raw is not None:
            d["raw"] = self.raw
        if self.fault is not None:
            d["fault"] = self.fault
        if self.by is not None:
            d["by"] = self.by
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TransferRecord:
        return cls(int(d["giver"]), int(d["receiver"]), str(d["cards"]), bool(d["automatic"]),
                   bool(d.get("substituted", False)), d.get("error"), d.get("raw"),
                   d.get("fault"), d.get("by"))


@dataclass
class TurnRecord:
    """One turn: who moved, what they sent, the answer, and how long they thought."""

    player: int
    move: str  # the move as judged; "pass" for a table that is no move, or no table in time
    answer: int
    think_ms: float
    error: str | None = None  # set when no move could be read (unreadable table, timeout)
    raw: RawCells | None = None
    fault: str | None = None  # TIMEOUT / MALFORMED / ILLEGAL (schema 2)
    by: str | None = None  # the stand-in that played it ("fallback" / "forfeit")
    choices: list[ChoiceRecord] = field(default_factory=list)  # 7-pass/10-discard (20260)

    @property
    def malformed(self) -> bool:
        """No move could be read: played as a pass and answered 8 whatever the engine says."""
        return self.error is not None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "move": self.move, "answer": self.answer,
                             "think_ms": self.think_ms}
        if self.error is not None:
            d["error"] = self.error
            d["raw"] = self.raw
        if self.fault is not None:
            d["fault"] = self.fault
        if self.by is not None:
            d["by"] = self.by
        if self.choices:
            d["choices"] = [c.to_json() for c in self.choices]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TurnRecord:
        return cls(int(d["player"]), str(d["move"]), int(d["answer"]), float(d["think_ms"]),
                   d.get("error"), d.get("raw"), d.get("fault"), d.get("by"),
                   [ChoiceRecord.from_json(c) for c in d.get("choices", [])])


@dataclass
class GameRecord:
    game: int
    seats: list[int]
    dealer: int
    classes: list[int] | None  # None in the first game of a class block
    dealt: list[str]  # hands right after the deal
    transfers: list[TransferRecord] = field(default_factory=list)
    hands: list[str] = field(default_factory=list)  # hands after the exchange
    first: int = -1  # the player who leads
    turns: list[TurnRecord] = field(default_factory=list)
    places: list[int] = field(default_factory=list)  # 0 = first
    points: list[int] = field(default_factory=list)  # earned in this game
    totals: list[int] = field(default_factory=list)  # cumulative after this game
    events: list[SeatEvent] = field(default_factory=list)  # seats handed over (schema 2)
    stand_in: list[int] = field(default_factory=list)  # players a stand-in played, at least
    bank_ms: list[int] | None = None  # time bank left per player after the game
    reports: list[SeatReport] = field(default_factory=list)  # seats with faults, so far

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": "game", "game": self.game, "seats": self.seats, "dealer": self.dealer,
            "classes": self.classes, "dealt": self.dealt,
            "transfers": [t.to_json() for t in self.transfers], "hands": self.hands,
            "first": self.first, "turns": [t.to_json() for t in self.turns],
            "places": self.places, "points": self.points, "totals": self.totals}
        if self.events:
            d["events"] = [e.to_json() for e in self.events]
        if self.stand_in:
            d["stand_in"] = self.stand_in
        if self.bank_ms is not None:
            d["bank_ms"] = self.bank_ms
        if self.reports:
            d["seat_reports"] = [r.to_json() for r in self.reports]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameRecord:
        return cls(int(d["game"]), list(d["seats"]), int(d["dealer"]),
                   None if d["classes"] is None else list(d["classes"]), list(d["dealt"]),
                   [TransferRecord.from_json(t) for t in d["transfers"]], list(d["hands"]),
                   int(d["first"]), [TurnRecord.from_json(t) for t in d["turns"]],
                   list(d["places"]), list(d["points"]), list(d["totals"]),
                   [SeatEvent.from_json(e) for e in d.get("events", [])],
                   list(d.get("stand_in", [])), d.get("bank_ms"),
                   [SeatReport.from_json(r) for r in d.get("seat_reports", [])])


__all__ = ["ChoiceRecord", "GameRecord", "RawCells", "TransferRecord", "TurnRecord",
           "raw_cells"]
