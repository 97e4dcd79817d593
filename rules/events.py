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
    # effects of the other presets
    GEKI_ON = "geki_on"  # geki-shibari: from now on exactly one rank stronger, same suits
    SANDSTORM = "sandstorm"  # three 3s: beat anything, clear
    AMBULANCE = "ambulance"  # two 9s: clear
    JOKER_PAIR = "joker_pair"  # two jokers: the strongest pair, clear
    REVOLUTION_PENDING = "revolution_pending"  # delayed revolution; value = pending count
    REVOLUTION_CANCELLED = "revolution_cancelled"  # a sandstorm cancelled pending revolutions
    CHOICE = "choice"  # the player is asked a follow-up choice (value = at most that many)
    GIVE = "give"  # 7-pass: value = cards given to the next player
    DISCARD = "discard"  # 10-discard: value = cards discarded
    DRAW = "draw"  # cards drawn from the pile (value = how many)
    LEAD_LIMIT = "lead_limit"  # the lead moved on: that player led too often in a row


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    player: int = -1
    value: int = 0  # e.g. the new revolution flag, the place taken

    def __str__(self) -> str:
        who = f" p{self.player}" if self.player >= 0 else ""
        return f"{self.kind.value}{who}" + (f"={self.value}" if self.value else "")


_EVENTS: dict[tuple[EventKind, int, int], Event] = {}
EVENTS_KEPT = 4096


def event(kind: EventKind, player: int = -1, value: int = 0) -> Event:
    """``Event(kind, player, value)``, the same instance for the same values (events are
    frozen): the engine makes one or more on every move, and a lookup is far cheaper than
    a frozen dataclass's ``__init__``.

    >>> event(EventKind.PASS, 2) is event(EventKind.PASS, 2) == Event(EventKind.PASS, 2)
    True
    """
    key = (kind, player, value)
    known = _EVENTS.get(key)
    if known is None:
        if len(_EVENTS) >= EVENTS_KEPT:
            _EVENTS.clear()
        known = _EVENTS[key] = Event(kind, player, value)
    return known
