"""Card sets and moves are values that cannot hold inconsistent data (hypothesis).

* ``CardSet`` keeps jokers by count whatever mask it is built from (one joker is bit 60),
  refuses bits outside the deck, obeys the set laws with jokers counted, and returns
  ``NotImplemented`` to foreign types;
* ``Move`` is made only by its constructors, which derive ``size``/``low``/``high``/``suits``
  from the cards; ``repr`` is a ``Move.parse`` call that gives the same move back.
"""

from __future__ import annotations

import pickle
from collections.abc import Set

import pytest
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import ruleset_from
from daihinmin.values.cards import (
    DECK52,
    JOKER,
    JOKER2,
    CardParseError,
    CardSet,
    rank_of,
    suit_of,
)
from daihinmin.values.moves import JOKER_PAIR, LONE_JOKER, PASS, Move, MoveKind
from hypothesis import given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=200, deadline=None)
REAL = sorted(CardSet(DECK52))


@st.composite
def card_sets(draw: st.DrawFn, max_real: int = 52) -> CardSet:
    real = draw(st.lists(st.sampled_from(REAL), unique=True, max_size=max_real))
    jokers = draw(st.sampled_from([[], [JOKER], [JOKER2], [JOKER, JOKER2]]))
    return CardSet.of(real + jokers)


def counted(s: CardSet) -> tuple[frozenset[int], int]:
    """The model: the real cards as a Python set and the jokers as a count."""
    return frozenset(s.without_jokers), s.jokers


# --- CardSet ----------------------------------------------------------------------------
@FAST
@given(st.integers(min_value=0, max_value=DECK52), st.sampled_from([0, 1, 2, 3]))
def test_one_joker_is_always_bit_60(real: int, joker_bits: int) -> None:
    s = CardSet((real & DECK52) | joker_bits << JOKER)
    assert s.jokers == joker_bits.bit_count()
    assert (JOKER in s) == (s.jokers >= 1) and (JOKER2 in s) == (s.jokers == 2)
    assert s == CardSet.parse(str(s)) == eval(repr(s))  # repr round-trips


@FAST
@given(st.integers(min_value=-(1 << 70), max_value=1 << 70))
def test_bits_outside_the_deck_are_refused(mask: int) -> None:
    if mask & ~(DECK52 | 1 << JOKER | 1 << JOKER2):
        with pytest.raises(CardParseError):
            CardSet(mask)
    else:
        assert CardSet(mask).mask in (mask, mask ^ (3 << JOKER))


@FAST
@given(card_sets(), card_sets())
def test_algebra_counts_jokers(a: CardSet, b: CardSet) -> None:
    (ra, ja), (rb, jb) = counted(a), counted(b)
    assert counted(a | b) == (ra | rb, max(ja, jb))
    assert counted(a & b) == (ra & rb, min(ja, jb))
    assert counted(a - b) == (ra - rb, max(0, ja - jb))
    assert counted(a ^ b) == (ra ^ rb, abs(ja - jb))
    assert (a <= b) == (ra <= rb and ja <= jb)
    assert (a < b) == (a <= b and a != b) and (a > b) == (b < a) and (a >= b) == (b <= a)
    assert a.isdisjoint(b) == (not a & b) == a.isdisjoint(list(b))
    assert (a == b) == (counted(a) == counted(b))
    assert (a != b) == (counted(a) != counted(b))
    if a == b:
        assert hash(a) == hash(b)


@FAST
@given(card_sets(), card_sets(), card_sets())
def test_set_laws(a: CardSet, b: CardSet, c: CardSet) -> None:
    assert a | b == b | a and a & b == b & a and a ^ b == b ^ a
    assert (a | b) | c == a | (b | c) and (a & b) & c == a & (b & c)
    assert a & (b | c) == (a & b) | (a & c) and a | (b & c) == (a | b) & (a | c)
    assert a - (b | c) == (a - b) & (a - c) and a - (b & c) == (a - b) | (a - c)
    assert a ^ b == (a | b) - (a & b)
    assert a - b <= a <= a | b and a & b <= a
    assert a | a == a & a == a and not a - a and not a ^ a


@FAST
@given(card_sets())
def test_foreign_types_get_not_implemented(a: CardSet) -> None:
    as_python = frozenset(a)
    assert isinstance(a, Set)
    assert a != as_python and a.__eq__(as_python) is NotImplemented
    for op in ("__or__", "__and__", "__sub__", "__xor__", "__le__", "__lt__", "__ror__",
               "__rsub__"):
        assert getattr(a, op)(as_python) is NotImplemented
    with pytest.raises(TypeError):
        _ = a | as_python
    with pytest.raises(TypeError):
        _ = as_python - a
    with pytest.raises(TypeError):
        _ = a <= as_python


def test_a_cardset_cannot_be_changed() -> None:
    s = CardSet.parse("S3")
    with pytest.raises(AttributeError):
        s.mask = 0
    assert pickle.loads(pickle.dumps(CardSet.parse("S3 JK JK"))) == CardSet.parse("S3 JK JK")


# --- Move -------------------------------------------------------------------------------
def derived(move: Move) -> tuple[int, int, int, int]:
    """(size, low, high, suits) computed from the cards and joker cells alone."""
    if move.kind is MoveKind.PASS:
        return 0, 0, 0, 0
    if move.kind is MoveKind.JOKER:
        return 1, 14, 14, 0
    cols = [rank_of(c) for c in move.cards] + [col for _, col in move.joker_cells]
    suits = 0
    for c in move.cards:
        suits |= 1 << suit_of(c)
    for row, _ in move.joker_cells:
        suits |= 1 << row
    return len(move.cards) + len(move.joker_cells), min(cols), max(cols), suits


RULES = {name: ruleset_from(name, []) for name in ("uecda", "original", "app",
                                                     "thirteenth_floor")}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(RULES)), card_sets(max_real=9))
def test_every_generated_move_is_consistent_and_round_trips(rules: str, hand: CardSet) -> None:
    for move in [PASS, *all_plays(hand, RULES[rules])]:
        assert (move.size, move.low, move.high, move.suits) == derived(move), str(move)
        back = eval(repr(move))
        assert back == move and hash(back) == hash(move)
        assert (back.size, back.low, back.high, back.suits) == derived(move)
        assert Move.parse(str(move)) == move
        assert pickle.loads(pickle.dumps(move)) == move
        assert move.hand_cards().jokers == move.jokers and move.hand_cards() <= hand


def test_the_constants_and_the_issue_example() -> None:
    assert repr(Move.parse("S9 ST JK@SJ")) == "Move.parse('S9 ST JK@SJ')"
    for move in (PASS, LONE_JOKER, JOKER_PAIR):
        assert eval(repr(move)) is move or eval(repr(move)) == move
        assert (move.size, move.low, move.high, move.suits) == derived(move)


def test_the_raw_constructor_is_refused_and_moves_are_immutable() -> None:
    with pytest.raises(TypeError, match=r"Move\.parse"):
        Move(MoveKind.SINGLE, CardSet.parse("S3"))
    move = Move.parse("S3")
    with pytest.raises(AttributeError):
        move.size = 0
    assert move.__eq__("S3") is NotImplemented


@pytest.mark.parametrize("build", [
    lambda: Move.single(JOKER),
    lambda: Move.group(0, 0b11),
    lambda: Move.group(5, 0b11, (0,)),       # a joker on a row a real card fills
    lambda: Move.sequence(0, 12, 4),         # a real card past the 2
    lambda: Move.sequence(4, 3, 3),          # row 4 holds no run
    lambda: Move.sequence(0, 3, 3, (7,)),    # a joker outside the run
    lambda: Move.stairs(0b11, 3, 3, ((2, 4),)),  # a joker outside the suits
])
def test_constructors_refuse_what_is_no_move(build) -> None:
    with pytest.raises(CardParseError):
        build()
