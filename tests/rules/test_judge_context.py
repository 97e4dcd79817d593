"""The judge reads declared fields: a view is judged like the server's state, nothing is
read with a silent default."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from daihinmin.contract.view import GameView
from daihinmin.rules.judge import Reject, beats, play_verdict
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move


def view(lock: bool, field: str = "S5") -> GameView:
    return GameView(player=0, hand=CardSet.parse("S6 H6 D7"), field=Move.parse(field),
                    turn_player=0, revolution=False, eleven_back=False, lock=lock,
                    counts=(3, 5, 5, 5, 5), classes=(0, 0, 0, 0, 0), seats=(0, 1, 2, 3, 4),
                    my_turn=True)


def test_a_locked_view_is_judged_locked() -> None:
    assert play_verdict(view(lock=True), CardSet.parse("S6 H6 D7"), Move.parse("H6")) \
        is Reject.LOCKED
    assert play_verdict(view(lock=True), CardSet.parse("S6 H6 D7"), Move.parse("S6")) is None
    assert play_verdict(view(lock=False), CardSet.parse("S6 H6 D7"), Move.parse("H6")) is None
    assert Move.parse("S6") in view(lock=True).legal_plays()
    assert Move.parse("H6") not in view(lock=True).legal_plays()


@dataclass
class WithoutLock:
    """A context that forgot the lock: it used to be judged unlocked."""

    rules: RuleSet
    field: Move | None
    revolution: bool = False
    eleven_back: bool = False


def test_a_context_without_the_lock_is_an_error_not_an_unlocked_trick() -> None:
    ctx = WithoutLock(UECDA, Move.parse("S5"))
    with pytest.raises(AttributeError, match="lock"):
        beats(ctx, Move.parse("H6"), Move.parse("S5"))  # type: ignore[arg-type]
