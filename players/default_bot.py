"""``default``: the official UECda sample client, move for move (written afresh, not ported).

Bots are measured against the devkit's standard client (``tndhm_devkit_c-20180826``), so
this one makes the same choices (:mod:`.sample_tables` has the tables it builds and their
quirks).  ``default2013`` is the 2013 build of the same client, the one the reference
transcript was recorded with: it differs in the joker-run count and the lead under a
revolution (it writes a malformed group where the devkit client leads a sequence).

When that client would send a table the server rejects, this bot passes: the server treats
a rejected table as a pass, so the game goes on exactly as it would with the C client.

Only the rules the client was written for (``uecda``) make sense for it; under other rules it
still plays: a choice the rules do not allow becomes a pass, or, where the leader may not
pass, the weakest lead.
"""

from __future__ import annotations

from daihinmin.contract.view import Bot, GameView
from daihinmin.rules.plays import revolts
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Move, move_from_cells, move_to_cells

from .sample_tables import field_facts, follow_cells, hand_grid, lead_cells
from .weakest_bot import lead_choice


def order_when_field_was_read(view: GameView) -> bool:
    """The revolution the client believed in when it last read the field: it reads each
    field table with the turn table's state from *before* that turn's action, so right after
    a revolution the field was read in the old order."""
    if view.field is not None and view.history:
        last = view.history[-1].move
        # ``is`` first: the view's field is mostly the very move its history ends with
        if (last is view.field or last == view.field) and revolts(last, view.rules):
            return not view.revolution
    return view.revolution


class DefaultBot(Bot):
    """The UECda sample client; deterministic (``seed`` is accepted for a uniform factory).
    Its exchange, the lowest cards, is the :class:`Bot` default.  Over its own cards (the
    devkit's trick clear gives it that turn) it follows them like anyone else's, as the C
    client does: it only reads whether the field is empty."""

    name = "default"
    devkit = True  # the devkit package's build; False: the 2013 build

    def __init__(self, seed: int | None = None) -> None:
        del seed  # nothing random here

    def play(self, view: GameView) -> Move:
        hand = hand_grid(view.hand)
        if view.field is None:
            cells = lead_cells(hand, view.revolution, self.devkit)
        else:
            facts = field_facts(move_to_cells(view.field), order_when_field_was_read(view))
            cells = follow_cells(hand, facts, view.revolution, view.lock, self.devkit)
        try:
            move = move_from_cells(cells, max_jokers=1) if cells else PASS
        except MoveShapeError:
            move = PASS  # the server would reject the table: a pass
        if view.allows(move):
            return move
        if view.allows(PASS):
            return PASS  # a table the server rejects counts as a pass
        # rules where the leader must play (not the client's): its lead among the legal ones
        return lead_choice(view.legal_plays(), view.reversed)


class Default2013Bot(DefaultBot):
    """The 2013 build of the sample client (the reference transcript's clients)."""

    name = "default2013"
    devkit = False
