"""Words for the engine's events: the one vocabulary every renderer uses (the terminal game,
``daihinmin replay``; the browser's pages can take it from here too).

>>> from daihinmin.rules.events import Event, EventKind
>>> describe(Event(EventKind.PLAYER_OUT, 2, 0)), describe(Event(EventKind.PLAY, 2))
('p2 finished in place 1', None)
>>> describe_all([Event(EventKind.EIGHT_CUT, 1), Event(EventKind.TRICK_CLEAR, 1)],
...              who=lambda p: f"p{p} (you)")
['8-cut: the trick is cleared', 'trick cleared: p1 (you) to lead']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from daihinmin.values.words import counted

from .events import Event, EventKind


def cards(n: int) -> str:
    return counted(n, "card")


def seat(player: int) -> str:
    return f"p{player}"


# How each event reads; ``who`` is the acting player's label.
_WORDS: dict[EventKind, Callable[[Event, str], str]] = {
    EventKind.REJECTED: lambda e, who: "an illegal move: counted as a pass",
    EventKind.REVOLUTION: lambda e, who: "REVOLUTION" if e.value else "revolution undone",
    EventKind.ELEVEN_BACK: lambda e, who: ("11-back: the order is reversed until the trick "
                                           "clears" if e.value else "11-back undone"),
    EventKind.EIGHT_CUT: lambda e, who: "8-cut: the trick is cleared",
    EventKind.SPADE3_RETURN: lambda e, who: "spade 3 beats the joker",
    EventKind.LOCK_ON: lambda e, who: "lock",
    EventKind.REVERSE: lambda e, who: "the direction of play flips",
    EventKind.SKIP: lambda e, who: f"{counted(e.value, 'player')} skipped",
    EventKind.TRICK_CLEAR: lambda e, who: f"trick cleared: {who} to lead",
    EventKind.PLAYER_OUT: lambda e, who: f"{who} finished in place {e.value + 1}",
    EventKind.FORBIDDEN_FINISH: lambda e, who: (f"{who} went out with a forbidden play: "
                                                "ranked from the bottom"),
    EventKind.MIYAKO_OCHI: lambda e, who: f"miyako-ochi: {who} fell to place {e.value + 1}",
    EventKind.PASS_LIMIT: lambda e, who: (f"pass limit ({e.value}) reached: the remaining "
                                          "places are drawn"),
    EventKind.GEKI_ON: lambda e, who: "geki-shibari",
    EventKind.SANDSTORM: lambda e, who: "sandstorm",
    EventKind.AMBULANCE: lambda e, who: "ambulance",
    EventKind.JOKER_PAIR: lambda e, who: "joker pair",
    EventKind.REVOLUTION_PENDING: lambda e, who: "revolution when the trick clears",
    EventKind.REVOLUTION_CANCELLED: lambda e, who: "pending revolution cancelled",
    EventKind.GIVE: lambda e, who: f"{who} gave {cards(e.value)} to the next player",
    EventKind.DISCARD: lambda e, who: f"{who} discarded {cards(e.value)}",
    EventKind.DRAW: lambda e, who: f"{who} drew {cards(e.value)}",
    EventKind.LEAD_LIMIT: lambda e, who: f"{who} led too often: the lead moves on",
}
#: Events every renderer shows in its own way (the move itself, the end, the question).
SILENT = frozenset({EventKind.PLAY, EventKind.PASS, EventKind.GAME_OVER, EventKind.CHOICE,
                    EventKind.LOCK_OFF})


def describe(event: Event, who: Callable[[int], str] = seat) -> str | None:
    """One short sentence for what ``event`` did; None for the :data:`SILENT` kinds."""
    words = _WORDS.get(event.kind)
    return None if words is None else words(event, who(event.player))


def describe_all(events: Iterable[Event], who: Callable[[int], str] = seat) -> list[str]:
    """The sentences for a turn's events, in order."""
    return [text for e in events if (text := describe(e, who)) is not None]


__all__ = ["SILENT", "describe", "describe_all", "seat"]
