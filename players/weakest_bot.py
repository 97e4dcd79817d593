"""``weakest``: always the weakest play (a cleaner cousin of the UECda sample client).

It plays what the sample client means to play, without that client's quirks (see
:mod:`.default_bot` for the faithful one): it breaks pairs and runs to follow, keeps the
joker out of leads, and leads sequences under a revolution.

- Exchange: give back the weakest cards.
- Lead: the weakest sequence (longest on ties), else the weakest group (the most cards of
  that rank), else the weakest single.  The joker is kept out of leads while anything else
  can be led.
- Follow: the weakest legal play (all legal plays already have the field's shape), one
  without the joker if there is one; pass when nothing can be played.

"Weakest" follows the current order, so in a revolution the highest ranks go first.
"""

from __future__ import annotations

from daihinmin.contract.view import Bot, GameView
from daihinmin.values.moves import PASS, Move, MoveKind

from .util import weakness

_LEAD_KINDS = (MoveKind.SEQUENCE, MoveKind.GROUP)  # read once: enum members cost ~10x a global


def lead_choice(plays: list[Move], reversed_order: bool) -> Move:
    """The lead of the sample strategy among ``plays`` (not empty)."""
    plain = [m for m in plays if m.jokers == 0] or plays
    for kind in _LEAD_KINDS:
        of_kind = [m for m in plain if m.kind is kind]
        if of_kind:
            return min(of_kind, key=lambda m: (weakness(m, reversed_order), -m.size))
    return min(plain, key=lambda m: weakness(m, reversed_order))


def follow_choice(plays: list[Move], reversed_order: bool) -> Move:
    """The weakest play, preferring plays without the joker; PASS when there is none."""
    if not plays:
        return PASS
    return min(plays, key=lambda m: (m.jokers > 0, weakness(m, reversed_order)))


class WeakestBot(Bot):
    """Always the weakest play; deterministic (``seed`` is accepted for a uniform factory)."""

    name = "weakest"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # nothing random here

    def play(self, view: GameView) -> Move:
        plays = view.legal_plays()
        if view.field is None:
            return lead_choice(plays, view.reversed) if plays else PASS
        return follow_choice(plays, view.reversed)
