"""What a person types at the ``human`` seat: numbers, pass, cards; and the feedback."""

from __future__ import annotations

import doctest
import io
from collections.abc import Iterator

import pytest
from daihinmin.contract.view import GameView
from daihinmin.players import human, human_render
from daihinmin.players.human import HumanBot, HumanQuit, InputError, parse_cards, parse_move
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.ruleset import UECDA, ruleset_from
from daihinmin.tools import cmd_play
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from rich.console import Console


@pytest.mark.parametrize("module", [human, human_render, cmd_play])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def view_of(hand: str, field: str | None = None, rules: object = UECDA,
            **kw: object) -> GameView:
    n = rules.players  # type: ignore[attr-defined]
    return GameView(player=0, hand=CardSet.parse(hand),
                    field=Move.parse(field) if field else None, turn_player=0,
                    revolution=False, eleven_back=False, lock=False, counts=(5,) * n,
                    classes=(0,) * n, seats=tuple(range(n)), my_turn=True,
                    rules=rules, **kw)  # type: ignore[arg-type]


class Person:
    """Types the given lines in order and keeps every prompt it was shown."""

    def __init__(self, lines: list[str]) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.lines)
        except StopIteration:
            raise EOFError from None


def seat(lines: list[str]) -> tuple[HumanBot, Person, io.StringIO]:
    out = io.StringIO()
    person = Person(lines)
    bot = HumanBot(console=Console(file=out, width=120, color_system=None),
                   input_func=person, names=["me", "a", "b", "c", "d"])
    bot.on_match_start(0)
    return bot, person, out


def test_numbers_pass_and_cards_pick_legal_moves() -> None:
    view = view_of("S4 H4 D4 S6 JK", field="C3")
    moves = view.legal_moves()
    singles = [m for m in moves if not m.is_pass]
    assert parse_move("1", moves, view) == singles[0]
    assert parse_move(" pass ", moves, view) is PASS and parse_move("P", moves, view) is PASS
    assert parse_move("s6", moves, view) == Move.parse("S6")
    assert parse_move("♥4", moves, view) == Move.parse("H4")
    assert parse_move("jk", moves, view).kind.name == "JOKER"


@pytest.mark.parametrize(("text", "message"), [
    ("", "type a move number"),
    ("99", "there is no move 99"),
    ("S5", "you do not hold ♠5"),
    ("S4 H4", "is not a legal move now: the number of cards differs from the field"),
    ("X9", "not a move number or cards"),
    ("S4 JK", "several places"),
])
def test_bad_input_gets_a_reason(text: str, message: str) -> None:
    view = view_of("S4 H4 D4 S6 JK", field="C3")
    if text == "S4 JK":  # a pair with the joker: the joker's suit must be picked
        view = view_of("S4 H4 D4 S6 JK", field="C3 D3")
    with pytest.raises(InputError, match=message):
        parse_move(text, view.legal_moves(), view)


def test_a_leader_that_may_not_pass_is_told_so() -> None:
    web = ruleset_from("web")
    view = view_of("S4 H9", rules=web)
    with pytest.raises(InputError, match="may not pass"):
        parse_move("p", view.legal_moves(), view)


def test_cards_for_an_exchange_or_a_choice_are_checked() -> None:
    hand = CardSet.parse("S3 H4 D5 JK")
    assert parse_cards("s3 jk", hand, 2) == CardSet.parse("S3 JK")
    with pytest.raises(InputError, match="do not hold"):
        parse_cards("C9", hand, 2)
    with pytest.raises(InputError, match="at most 1"):
        parse_cards("S3 H4", hand, 1)
    with pytest.raises(InputError, match="exactly 2"):
        parse_cards("S3", hand, 2, exactly=True)


def test_the_person_is_asked_again_until_the_move_is_legal() -> None:
    bot, person, out = seat(["", "42", "S9", "?", "2"])
    view = view_of("S4 H4 S6", field="C3")
    move = bot.play(view)
    assert move == Move.parse("H4")  # plays are listed weakest first: S4, H4, S6
    text = out.getvalue()
    assert "type a move number" in text and "there is no move 42" in text
    assert "you do not hold ♠9" in text and "Type the number of a move" in text
    assert person.prompts[-1] == "Your move [1-3, p = pass, ? = help]: "
    assert "Legal moves:" in text and "1) ♠4" in text and "Your hand: ♠4 ♥4 ♠6" in text


def test_exchange_and_choices_have_defaults_and_none() -> None:
    bot, person, out = seat(["S9", "", "-", "H4 D5"])
    view = view_of("S3 H4 D5 S2 JK")
    assert bot.exchange(view, 2) == CardSet.parse("S3 H4")  # S9 refused, then Enter
    assert "you do not hold" in out.getvalue()
    give = PendingChoice(ChoiceKind.GIVE, 0, 2, receiver=1)
    assert bot.choose(view, give) == CardSet()  # "-": nothing
    assert person.prompts[-1] == "Give up to 2 cards to p1 a (Enter = ♠3 ♥4, - = none): "
    discard = PendingChoice(ChoiceKind.DISCARD, 0, 2)
    assert bot.choose(view, discard) == CardSet.parse("H4 D5")


def test_quit_and_end_of_input_stop_like_ctrl_c() -> None:
    bot, _, _ = seat(["q"])
    with pytest.raises(HumanQuit):
        bot.play(view_of("S4"))
    bot, _, _ = seat([])
    with pytest.raises(KeyboardInterrupt):  # HumanQuit is one: no runner swallows it
        bot.play(view_of("S4"))


def test_a_seat_with_no_legal_play_passes_without_asking() -> None:
    bot, person, out = seat([])
    assert bot.play(view_of("S4", field="S2")) is PASS
    assert person.prompts == [] and "no legal play" in out.getvalue()
