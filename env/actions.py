"""The fixed discrete action space of a rule set: every play, the pass, and card picks.

One table per rule set (:func:`action_table`), the same for every seat and every game:

* ``0``: the pass;
* ``1 .. plays``: every play the rules allow, each distinct joker placement its own action
  (the engine's own list, :func:`daihinmin.rules.movegen.all_plays`, of a hand holding every
  card of the deck: any hand's plays are among them);
* ``plays + 1 .. plays + 54``: pick one card (52 cards, then the first and second joker):
  an exchange (return ``count`` cards) and a 7-pass or 10-discard choice (up to ``count``
  cards) are made one card at a time, the same agent acting again until it is done;
* ``plays + 55``: done, to give or discard fewer cards than a choice allows.

>>> from daihinmin.rules.ruleset import UECDA
>>> from daihinmin.values.cards import card
>>> table = action_table(UECDA)
>>> table.size, table.plays, table.index(Move.parse("S3")), table.move(1)
(2661, 2605, 1, Move.parse('S3'))
>>> table.index(PASS), table.pick_index(card("JK")) == table.first_pick + 52
(0, True)
>>> table.describe(table.done)
'done'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import DECK52, JOKER, JOKER2, Card, CardSet, card_name
from daihinmin.values.moves import PASS, Move

#: Card slots of a pick, in order: the 52 cards (bit ``4 * rank + suit``), then both jokers.
CARD_BITS: tuple[int, ...] = (*range(4, 56), JOKER, JOKER2)
CARD_SLOTS = len(CARD_BITS)
_SLOT_OF_BIT = {bit: slot for slot, bit in enumerate(CARD_BITS)}


class IllegalActionError(ValueError):
    """An action that is not in the acting agent's legal-action mask."""


def card_slot(c: Card) -> int:
    """The pick slot (0..53) of card ``c``."""
    return _SLOT_OF_BIT[c]


def full_deck(rules: RuleSet) -> CardSet:
    """Every card of the rules' deck (52 and the jokers)."""
    jokers = (1 << JOKER if rules.jokers >= 1 else 0) | (1 << JOKER2 if rules.jokers >= 2 else 0)
    return CardSet(DECK52 | jokers)


@dataclass(frozen=True)
class ActionTable:
    """The actions of one rule set (see the module docstring)."""

    rules: RuleSet
    moves: tuple[Move, ...]  # index 0 is PASS
    _index: dict[Move, int] = field(repr=False, compare=False)

    @property
    def plays(self) -> int:
        """How many plays (the pass not counted)."""
        return len(self.moves) - 1

    @property
    def first_pick(self) -> int:
        return len(self.moves)

    @property
    def done(self) -> int:
        return len(self.moves) + CARD_SLOTS

    @property
    def size(self) -> int:
        return self.done + 1

    def __deepcopy__(self, memo: dict[int, object]) -> ActionTable:
        return self  # (immutable: a copied environment shares its table)

    def index(self, move: Move) -> int:
        """The action of ``move`` (KeyError: a move the rules cannot make)."""
        return self._index[move]

    def move(self, action: int) -> Move:
        """The move of a play or pass action (IndexError for a pick or done)."""
        if not 0 <= action < len(self.moves):
            raise IndexError(f"action {action} is no move")
        return self.moves[action]

    def pick_index(self, c: Card) -> int:
        return self.first_pick + _SLOT_OF_BIT[c]

    def picked_card(self, action: int) -> Card:
        """The card a pick action names (IndexError for anything else)."""
        slot = action - self.first_pick
        if not 0 <= slot < CARD_SLOTS:
            raise IndexError(f"action {action} is no card pick")
        return CARD_BITS[slot]

    def describe(self, action: int) -> str:
        """A short text for an action: the move, ``pick S3``, or ``done``."""
        if action == self.done:
            return "done"
        if self.first_pick <= action < self.done:
            return f"pick {card_name(self.picked_card(action))}"
        return str(self.move(action))


# The rules that shape the plays (what rules.movegen reads): the table depends on nothing else.
_PLAY_RULES = ("jokers", "group_max", "sequences", "sequence_min", "sequence_edge_jokers",
               "double_stairs", "joker_pair_clears", "sandstorm", "ambulance")


_PLAYS: dict[tuple[object, ...], tuple[tuple[Move, ...], dict[Move, int]]] = {}


def action_table(rules: RuleSet) -> ActionTable:
    """The action table of ``rules`` (its plays listed once per process for each set of play
    rules: the same for every table size)."""
    key = tuple(getattr(rules, name) for name in _PLAY_RULES)
    known = _PLAYS.get(key)
    if known is None:
        moves = (PASS, *all_plays(full_deck(rules), rules))
        known = _PLAYS[key] = (moves, {m: i for i, m in enumerate(moves)})
    return ActionTable(rules, *known)


__all__ = ["CARD_BITS", "CARD_SLOTS", "ActionTable", "IllegalActionError", "action_table",
           "card_slot", "full_deck"]
