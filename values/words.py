"""Counted nouns in plain English: ``1 card``, ``2 cards`` (never ``1 cards``).

>>> counted(1, "game"), counted(3, "game"), counted(0, "match", "matches")
('1 game', '3 games', '0 matches')
>>> counted(1200, "game")
'1,200 games'
"""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` (``plural``, default noun + s, unless ``n`` is 1)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


__all__ = ["counted"]
