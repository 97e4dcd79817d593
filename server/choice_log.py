"""The log record of one follow-up choice (7-pass, 10-discard; protocol 20260).

A turn record lists its choices in the order they were asked; replaying feeds them to
``GameState.step_choice`` (a substituted one as ``None``: the engine's default).

>>> r = ChoiceRecord("give", 2, "S3 H4", False)
>>> ChoiceRecord.from_json(r.to_json()) == r, r.to_json()
(True, {'kind': 'give', 'count': 2, 'cards': 'S3 H4', 'substituted': False})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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


__all__ = ["ChoiceRecord"]
