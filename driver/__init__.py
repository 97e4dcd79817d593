"""daihinmin.driver: the one sans-IO game driver that every way of playing adapts.

Modules: ``game`` (:class:`GameDriver`: deal, exchange, turns, choices, result; its requests
and events in one order, as h11's ``Connection`` gives events), ``record`` (the
:class:`GameRecord` every way of playing writes to the match log), ``faults`` (the seat
fault vocabulary the record uses).  The TCP server, the in-process runner
(:mod:`daihinmin.local`), the terminal game, the browser and replay all play through it.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what __getattr__ gives, for the type checker (a user's too)
    from daihinmin.driver.faults import OnFault, SeatReport, SeatStatus
    from daihinmin.driver.game import (
        ChoiceRequest,
        ExchangeDone,
        ExchangeRequest,
        GameDriver,
        GameOver,
        GameStarted,
        MoveRequest,
        Output,
        TurnDone,
    )
    from daihinmin.driver.record import GameRecord, TurnRecord

# Each name is imported from its module on first use: importing the fault vocabulary does
# not import the whole engine.
_MODULES = {
    "faults": ("OnFault", "SeatReport", "SeatStatus"),
    "game": ("ChoiceRequest", "ExchangeDone", "ExchangeRequest", "GameDriver", "GameOver",
             "GameStarted", "MoveRequest", "Output", "TurnDone"),
    "record": ("GameRecord", "TurnRecord"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ChoiceRequest", "ExchangeDone", "ExchangeRequest", "GameDriver", "GameOver",
           "GameRecord", "GameStarted", "MoveRequest", "OnFault", "Output", "SeatReport",
           "SeatStatus", "TurnDone", "TurnRecord"]
