"""Forbidden finishes (反則上がり / 禁じ手): which last plays each rule set forbids.

The list is judged on the state *before* the play (its order, the field it answers); the
same list serves both forms, ``reject`` (the play is illegal) and ``last`` (the player goes
out at the lowest free place).

>>> from types import SimpleNamespace
>>> from daihinmin.values.moves import Move
>>> from daihinmin.rules.ruleset import ORIGINAL
>>> ctx = SimpleNamespace(rules=ORIGINAL, field=None, revolution=False, eleven_back=False)
>>> [is_forbidden_finish(ctx, Move.parse(m)) for m in ("D2", "SA", "S2 H2", "JK", "SQ SK SA")]
[True, False, True, True, False]
>>> ctx.revolution = True
>>> [is_forbidden_finish(ctx, Move.parse(m)) for m in ("D2", "S3", "S3 S4 S5")]
[False, True, True]
"""

from __future__ import annotations

from typing import Protocol

from daihinmin.values.moves import JOKER_KIND, Move

from .plays import BOTTOM_RANK, TOP_RANK, eight_cuts, holds_role_card, is_spade3, revolts
from .ruleset import ForbiddenPlays, RuleSet


class OrderContext(Protocol):
    """What the forbidden-finish lists read: the rules, the field and the order flags."""

    @property
    def rules(self) -> RuleSet: ...
    @property
    def field(self) -> Move | None: ...
    @property
    def revolution(self) -> bool: ...
    @property
    def eleven_back(self) -> bool: ...


def is_reversed(ctx: OrderContext) -> bool:
    return ctx.revolution != ctx.eleven_back


def is_top_play(ctx: OrderContext, move: Move) -> bool:
    """A play holding the strongest rank under the current order (or the joker alone)."""
    if move.kind is JOKER_KIND:
        return True
    if move.is_joker_pair:
        return False  # jokers only: it holds no rank (forbidden where jokers are)
    top = BOTTOM_RANK if is_reversed(ctx) else TOP_RANK
    return move.low <= top <= move.high


def _spade3_return(ctx: OrderContext, move: Move) -> bool:
    field = ctx.field
    return (ctx.rules.spade3_return and field is not None and field.kind is JOKER_KIND
            and is_spade3(move))


def is_forbidden_finish(ctx: OrderContext, move: Move) -> bool:
    """Would ``move``, as a player's last play, be a forbidden finish under these rules?"""
    rules = ctx.rules
    kind = rules.forbidden_plays
    if kind is ForbiddenPlays.ROLE_CARDS:
        return holds_role_card(move, rules)
    if kind is ForbiddenPlays.TOP_PLAY:
        return is_top_play(ctx, move)
    if move.jokers or is_top_play(ctx, move) or eight_cuts(move, rules):
        return True
    if kind in (ForbiddenPlays.STANDARD, ForbiddenPlays.WEB) and rules.revolution and revolts(
            move, rules):
        return True
    return kind in (ForbiddenPlays.STANDARD, ForbiddenPlays.APP) and _spade3_return(ctx, move)


__all__ = ["OrderContext", "is_forbidden_finish", "is_reversed", "is_top_play"]
