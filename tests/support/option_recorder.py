"""A bundled-bot stand-in that records the options it was made with (made by name, as
``module:factory``, by the tools that seat opponents)."""

from __future__ import annotations

from typing import Any

from daihinmin.players.random_bot import RandomBot

#: (seed, options) of every OptionRecorder made in this process
MADE: list[tuple[int | None, dict[str, Any]]] = []


class OptionRecorder(RandomBot):
    """A random player that records the options it was made with."""

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed)
        MADE.append((seed, options))
