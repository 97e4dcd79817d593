"""Shared bits of the things pages follow (tables, published feeds): a change counter that
page tasks wait on, and reading one bounded JSON object from a websocket message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import trio


@dataclass(kw_only=True)
class Watched:
    """Something pages show; each change bumps ``version`` and wakes the waiting pages."""

    version: int = 0
    _changed: trio.Event = field(default_factory=trio.Event, repr=False)

    def changed(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def wait_change(self, seen: int) -> None:
        while self.version == seen:
            await self._changed.wait()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: no page could read them back


def json_object(text: str, limit: int, error: type[ValueError]) -> dict[str, Any]:
    """The JSON object in ``text``, or ``error`` saying why not (too long, not JSON...)."""
    if len(text) > limit:
        raise error("the message is too long")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        raise error("the message is not JSON") from None
    except RecursionError:
        raise error("the message is nested too deeply") from None
    if not isinstance(value, dict):
        raise error("the message must be a JSON object")
    return value


__all__ = ["Watched", "json_object"]
