"""The client side of protocol 20260 (``docs/PROTOCOL_EXTENSION.md``): checked readers for
the extended tables, a tracker that keeps the extension state, and the rules check.

A 20260 table is read in two parts: the 20070 part (``HandTable``/``FieldTable``, whose
state holds one count, class and seat per player, up to six) and the :class:`ExtState`.

>>> from daihinmin.protocol.codec import TableState, build_turn
>>> from daihinmin.protocol.extension import ExtState, ext_cells
>>> ext = ExtState(players=6, preset=1, digest=0, jokers=2, counts=(9,) * 6, classes=(0,) * 6,
...                seats=(0, 1, 2, 3, 4, 5), pile=0)
>>> t = build_turn(CardSet.parse("S3 JK JK"), TableState(turn_player=5)).with_cells(
...     ext_cells(ext))
>>> turn, got = read_ext_turn(t, "a turn table")
>>> str(turn.hand), turn.state.counts, got.players
('S3 JK JK', (9, 9, 9, 9, 9, 9), 6)
"""

from __future__ import annotations

import logging
from dataclasses import replace

from daihinmin.contract.view import GameView
from daihinmin.protocol.codec import TableState, read_hand, read_state
from daihinmin.protocol.extension import (
    CHOICE_DISCARD,
    CHOICE_GIVE,
    FLAG_AFTER_DRAW,
    FLAG_OPENING_C3,
    MAX_PLAYERS,
    NOBODY,
    PROTOCOL_20260,
    ExtState,
    read_ext,
)
from daihinmin.protocol.table import Table
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.extension_rules import adopt_rules, rules_digest
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import Move, move_from_cells

from .errors import ClientError, UnexpectedMessageError
from .tables import MAX_CARDS, FieldTable, HandTable
from .tracker import GameTracker

log = logging.getLogger("daihinmin.client")

MIN_PLAYERS = 3
CLUB3 = CardSet.parse("C3")


class ExtensionRequiredError(ClientError):
    """The server refused this 20070 client: its table's rules need protocol 20260."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"the server refused this client while {where}: the table's rules need protocol "
            f"{PROTOCOL_20260} (answered {PROTOCOL_20260} instead of a player number). Run "
            "the bot with the table's rules (--rules NAME) or with --extension.")


def _fail(where: str, problem: str, cell: tuple[int, int] | None = None,
          value: int | None = None) -> UnexpectedMessageError:
    return UnexpectedMessageError(where, problem, cell, value)


# --- checks ----------------------------------------------------------------------------
def _check_hand(t: Table, where: str, jokers: int) -> None:
    twos = 0
    for (row, col), v in t.nonzero().items():
        if v == 1 and row < 4 and 1 <= col <= 13:
            continue
        if v == 2 and row == 4:
            twos += 1
            continue
        raise _fail(where, f"a hand cell holds {v}", (row, col), v)
    if twos > jokers:
        raise _fail(where, f"{twos} jokers in the hand; the deck has {jokers}")


def _check_flags(t: Table, where: str, cells: tuple[tuple[int, int], ...]) -> None:
    for cell in cells:
        if t[cell] not in (0, 1):
            raise _fail(where, f"flag cell holds {t[cell]}, expected 0 or 1", cell, t[cell])


def _check_ext(t: Table, where: str) -> ExtState:
    n = t[7, 0]
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise _fail(where, f"{n} players; a 20260 table seats {MIN_PLAYERS}..{MAX_PLAYERS}",
                    (7, 0), n)
    ext = read_ext(t)
    if ext.jokers > 2:
        raise _fail(where, f"{ext.jokers} jokers in the deck", (7, 3), ext.jokers)
    if sorted(ext.seats) != list(range(n)):
        raise _fail(where, f"the seats {list(ext.seats)} are not an order of players "
                    f"0..{n - 1}", (6, 10))
    for i, count in enumerate(ext.counts):
        if count > MAX_CARDS:
            raise _fail(where, f"player {i} holds {count} cards")
    if ext.choice_kind not in (0, CHOICE_GIVE, CHOICE_DISCARD):
        raise _fail(where, f"choice kind {ext.choice_kind}", (5, 8), ext.choice_kind)
    if ext.passed >> n:
        raise _fail(where, f"passed mask {ext.passed:#b} names players beyond {n - 1}", (7, 7))
    _check_flags(t, where, ((5, 11), (5, 13)))
    return ext


def _state_of(t: Table, ext: ExtState) -> TableState:
    """Rows 5-6 as 20070 reads them, with one count, class and seat per player."""
    return replace(read_state(t), counts=ext.counts, classes=ext.classes, seats=ext.seats)


def _check_player(t: Table, where: str, n: int, allow_nobody: bool = False) -> None:
    v = t[5, 3]
    if v >= n and not (allow_nobody and v == NOBODY):
        raise _fail(where, f"player number {v}, expected 0..{n - 1}", (5, 3), v)


# --- readers -----------------------------------------------------------------------------
def read_ext_deal(t: Table, where: str) -> tuple[HandTable, ExtState]:
    if t[5, 0] != 1:
        raise _fail(where, f"the exchange-phase flag is {t[5, 0]}; a deal table has 1",
                    (5, 0), t[5, 0])
    ext = _check_ext(t, where)
    _check_hand(t, where, ext.jokers)
    _check_player(t, where, ext.players, allow_nobody=True)
    hand = read_hand(t)
    give = t[5, 1]
    if give > len(hand):
        raise _fail(where, f"{give} cards to give from a hand of {len(hand)}", (5, 1), give)
    for i, c in enumerate(ext.classes):
        if c >= ext.players:
            raise _fail(where, f"class {c} of player {i}, expected 0..{ext.players - 1}")
    return HandTable(hand, _state_of(t, ext), give), ext


def read_ext_turn(t: Table, where: str) -> tuple[HandTable, ExtState]:
    """A turn table, or a CHOICE table (``ext.is_choice``)."""
    ext = _check_ext(t, where)
    _check_hand(t, where, ext.jokers)
    _check_flags(t, where, ((5, 2), (5, 4), (5, 5), (5, 6), (5, 7)))
    _check_player(t, where, ext.players)
    return HandTable(read_hand(t), _state_of(t, ext)), ext


def read_ext_field(t: Table, where: str) -> tuple[FieldTable, ExtState]:
    ext = _check_ext(t, where)
    _check_flags(t, where, ((5, 4), (5, 5), (5, 6), (5, 7)))
    _check_player(t, where, ext.players)
    cells = t.nonzero()
    try:
        move = move_from_cells(cells, max(ext.jokers, 1), extended=True) if cells else None
    except MoveShapeError as exc:
        raise _fail(where, f"the field is not a play: {exc}", exc.cell) from exc
    return FieldTable(cells, move, _state_of(t, ext)), ext


def pending_of(ext: ExtState, player: int) -> PendingChoice:
    """The choice a CHOICE table asks of ``player``."""
    kind = ChoiceKind.GIVE if ext.choice_kind == CHOICE_GIVE else ChoiceKind.DISCARD
    receiver = ext.choice_receiver if kind is ChoiceKind.GIVE else -1
    return PendingChoice(kind, player, ext.choice_count, receiver)


def check_rules(rules: RuleSet, ext: ExtState, warned: bool) -> tuple[RuleSet, bool]:
    """The rules to list legal moves with: ``rules`` when the table's digest says the server
    plays them, else the same with the table's player count or the named preset when one of
    those matches; otherwise ``rules`` with a warning (once).  Returns (rules, warned)."""
    if rules_digest(rules) == ext.digest:
        return rules, warned
    resized = rules.with_rules(players=ext.players)
    if rules_digest(resized) == ext.digest:
        return resized, warned
    adopted = adopt_rules(ext.preset, ext.digest, ext.players)
    if adopted is not None:
        if adopted.name != rules.name:
            log.info("the server plays the %r rules; listing legal moves with them",
                     adopted.name)
        return adopted, warned
    if not warned:
        log.warning("the server's rules (preset #%d, digest %08x) are not this client's %r; "
                    "legal moves may be listed wrongly (the server judges): pass the "
                    "server's --rules/--rule options", ext.preset, ext.digest, rules.name)
    return resized, True


class ExtendedTracker(GameTracker):
    """A :class:`GameTracker` that also keeps what the 20260 cells say."""

    def __init__(self, player: int, rules: RuleSet, game: int, deal: HandTable,
                 ext: ExtState) -> None:
        super().__init__(player, rules, game, deal)
        self.ext = ext
        self.known_places: tuple[int, ...] = ()

    def on_ext_turn(self, turn: HandTable, ext: ExtState) -> None:
        self.on_turn_table(turn)
        self.ext = ext
        self.passed = ext.passed  # the server says who passed (draws make it hard to infer)

    def on_ext_choice(self, table: HandTable, ext: ExtState, sent: Move, answer: int) -> None:
        """A CHOICE table after this client's play ``sent``: the first one of the turn
        applies the play (it confirms it: the hand and the state after it), a later one (the
        discard after a give) only its facts.  The field table then adds nothing twice."""
        if self.own_play is None:
            self.on_own_play(sent, answer, table)
        else:
            self.on_choice_table(table)
        self.ext = ext
        self.passed = ext.passed

    def on_ext_field(self, ext: ExtState) -> None:
        if ext.places:
            self.known_places = ext.places

    def view(self, my_turn: bool = False, pending: PendingChoice | None = None,
             hand: CardSet | None = None) -> GameView:
        ext = self.ext
        base = super().view(my_turn)
        return replace(
            base, hand=base.hand if hand is None else hand, geki=bool(ext.geki),
            opening=CLUB3 if ext.flags & FLAG_OPENING_C3 else EMPTY, pending=pending,
            pile_count=ext.pile, direction=-1 if ext.direction else 1)

    @property
    def after_draw(self) -> bool:
        return bool(self.ext.flags & FLAG_AFTER_DRAW)

    def places(self) -> tuple[int, ...] | None:
        """Places from the server (the final field table names every place)."""
        places = self.known_places
        if places and all(places):
            return tuple(p - 1 for p in places)
        return super().places()


__all__ = ["ExtendedTracker", "ExtensionRequiredError", "check_rules", "pending_of",
           "read_ext_deal", "read_ext_field", "read_ext_turn"]
