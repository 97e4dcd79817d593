"""What happened when a move was applied."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EventKind(StrEnum):
    PLAY = "play"
    PASS = "pass"
    REJECTED = "rejected"  # an illegal move, counted as a pass
    REVOLUTION = "revolution"
    ELEVEN_BACK = "eleven_back"
    EIGHT_CUT = "eight_cut"
    SPADE3_RETURN = "spade3_return"
    LOCK_ON = "lock_on"
    LOCK_OFF = "lock_off"
    REVERSE = "reverse"
    SKIP = "skip"
    TRICK_CLEAR = "trick_clear"
    PLAYER_OUT = "player_out"
    FORBIDDEN_FINISH = "forbidden_finish"
    MIYAKO_OCHI = "miyako_ochi"
    PASS_LIMIT = "pass_limit"
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    player: int = -1
    value: int = 0  # e.g. the new revolution flag, the place taken

    def __str__(self) -> str:
        who = f" p{self.player}" if self.player >= 0 else ""
        return f"{self.kind.value}{who}" + (f"={self.value}" if self.value else "")
