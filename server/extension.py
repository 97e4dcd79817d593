"""The server side of protocol 20260 (``docs/PROTOCOL_EXTENSION.md``).

* :func:`wire_refusal`: whether a client's protocol can follow the table's rules (a plain
  20070 client may only sit at a table the 20070 tables can carry);
* :class:`ExtensionWire`: adds the extension cells (``[5][8..14]``, row 6 beyond five players,
  row 7) to the tables of the connections that speak 20260 — connections that speak 20070
  get the very same tables as before;
* :meth:`ExtensionWire.answer_choice`: the CHOICE round trip after a play that asks its
  player to give or discard cards (7-pass, 10-discard), answering the game driver's
  choice request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import trio
from daihinmin.driver.faults import SeatStatus, table_fault
from daihinmin.driver.game import GameDriver
from daihinmin.driver.record import raw_cells
from daihinmin.protocol.codec import build_turn
from daihinmin.protocol.errors import TABLE_ERRORS, IllegalTableError, MalformedTableError
from daihinmin.protocol.extension import (
    CHOICE_DISCARD,
    CHOICE_GIVE,
    FLAG_AFTER_DRAW,
    FLAG_OPENING_C3,
    FLAG_REVOLUTION_PENDING,
    NOBODY,
    PROTOCOL_20260,
    REFUSED,
    ExtState,
    ext_cells,
    read_choice_answer,
)
from daihinmin.protocol.table import Table, encode_int
from daihinmin.records.move_reading import describe
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.extension_rules import extension_reasons, preset_id, rules_digest
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet, card
from daihinmin.values.moves import Cell

from .errors import PlayerDisconnectedError, PlayerTimeoutError
from .outbox import Outbox
from .requests import GameRequests
from .seats import SeatTable
from .tables import turn_state

log = logging.getLogger("daihinmin.server")

ACCEPTED, REJECTED = 9, 8
CLUB3 = card("C3")


def wire_refusal(version: int, rules: RuleSet) -> str | None:
    """Why a client speaking ``version`` cannot play ``rules`` (None: it can)."""
    if version == PROTOCOL_20260:
        return None
    reasons = extension_reasons(rules)
    if not reasons:
        return None
    return (f"the rules {rules.name!r} need protocol {PROTOCOL_20260} ({'; '.join(reasons)}); "
            f"the client speaks {version}")


async def refuse(stream: trio.SocketStream, version: int) -> None:
    """Answer the profile with :data:`REFUSED` instead of a player number, then close."""
    try:
        await stream.send_all(encode_int(REFUSED, version))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # it is going away either way
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()


def _flags(game: GameState) -> int:
    flags = 0
    if CLUB3 in game.lead_must_contain:
        flags |= FLAG_OPENING_C3
    if game.after_draw:
        flags |= FLAG_AFTER_DRAW
    if game.pending_revolutions % 2:
        flags |= FLAG_REVOLUTION_PENDING
    return flags


def _choice_cells(choice: PendingChoice) -> dict[str, int]:
    kind = CHOICE_GIVE if choice.kind is ChoiceKind.GIVE else CHOICE_DISCARD
    receiver = choice.receiver if choice.kind is ChoiceKind.GIVE else NOBODY
    return {"choice_kind": kind, "choice_count": choice.count, "choice_receiver": receiver}


class ExtensionWire:
    """The 20260 cells of one match's tables, for the seats whose connection speaks 20260."""

    def __init__(self, seats: SeatTable, rules: RuleSet) -> None:
        self.seats = seats
        self.rules = rules
        self.active = any(self.extended(p) for p in range(len(seats)))
        self.preset = preset_id(rules)
        self.digest = rules_digest(rules)

    def extended(self, player: int) -> bool:
        conn = self.seats[player].conn
        return conn is not None and conn.version == PROTOCOL_20260

    # --- the extension cells ---------------------------------------------------------------
    def _state(self, counts: tuple[int, ...], classes: tuple[int, ...],
               seats: tuple[int, ...], **values: Any) -> ExtState:
        return ExtState(players=self.rules.players, preset=self.preset, digest=self.digest,
                        jokers=self.rules.jokers, counts=counts, classes=classes, seats=seats,
                        **values)

    def setup_cells(self, setup: GameSetup, classes: tuple[int, ...]) -> dict[Cell, int] | None:
        """The extension cells of the deal tables (None when nobody speaks 20260)."""
        if not self.active:
            return None
        counts = tuple(len(h) for h in setup.dealt)
        return ext_cells(self._state(counts, classes, setup.seats, pile=len(setup.pile)))

    def game_cells(self, game: GameState, classes: tuple[int, ...],
                   choice: PendingChoice | None = None) -> dict[Cell, int] | None:
        """The extension cells for the game as it stands (None when nobody speaks 20260)."""
        if not self.active:
            return None
        places = tuple(p + 1 for p in game.places())  # -1 (not known) becomes 0
        extra = _choice_cells(choice) if choice is not None else {}
        return ext_cells(self._state(
            game.counts(), classes, game.seats, pile=len(game.pile), passed=game.passed,
            direction=0 if game.direction == 1 else 1, geki=int(game.geki),
            flags=_flags(game), places=places if any(places) else (), **extra))

    def for_player(self, player: int, table: Table, cells: dict[Cell, int] | None) -> Table:
        """``table`` as player ``player`` receives it."""
        if cells is None or not self.extended(player):
            return table
        return table.with_cells(cells)

    async def send_to_all(self, outbox: Outbox, table: Table,
                          cells: dict[Cell, int] | None) -> None:
        """The same table to every player, with the extension cells for 20260 players."""
        if cells is None:
            await outbox.table_to_all(table)
            return
        extended = table.with_cells(cells)
        for player in range(len(self.seats)):
            await outbox.table(player, extended if self.extended(player) else table)

    # --- choices -----------------------------------------------------------------------------
    def choice_table(self, game: GameState, classes: tuple[int, ...],
                     choice: PendingChoice) -> Table:
        """The CHOICE table: the chooser's hand and the state, ``[5][2] = 1``, the question in
        ``[5][8..10]``."""
        state = turn_state(game, classes)
        table = build_turn(game.hands[choice.player], state).with_cells({(5, 2): 1})
        cells = self.game_cells(game, classes, choice)
        assert cells is not None
        return table.with_cells(cells)

    async def answer_choice(self, driver: GameDriver, classes: tuple[int, ...],
                            outbox: Outbox, requests: GameRequests,
                            choice: PendingChoice) -> None:
        """Ask a pending choice of the play just made and give the driver the answer."""
        game = driver.state
        assert game is not None
        reply = await self._ask(game, classes, outbox, requests, choice)
        result = driver.choose(reply.cards, error=reply.error,
                               raw=raw_cells(reply.cells) if reply.cells else None,
                               fault=str(reply.fault) if reply.fault is not None else None,
                               by=reply.by)
        if reply.error is None and result.substituted and reply.by is None:
            error = driver.record.turns[-1].choices[-1].error
            await self.seats.fault(choice.player, SeatStatus.ILLEGAL,
                                   f"{choice.kind.value} answer: {error}")
        if reply.asked:
            await outbox.int(choice.player, REJECTED if result.substituted else ACCEPTED)

    async def _ask(self, game: GameState, classes: tuple[int, ...], outbox: Outbox,
                   requests: GameRequests, choice: PendingChoice) -> ChoiceReply:
        """The answer of the chooser's connection, or of its stand-in."""
        player = choice.player
        seat = self.seats[player]
        if seat.conn is not None and not self.extended(player):
            # Seating refuses such clients; should one get here, the rules' default moves.
            return ChoiceReply(None, error="the client does not speak protocol 20260")
        if seat.conn is not None:
            conn, base = seat.conn, requests.config.move_timeout
            await outbox.table(player, self.choice_table(game, classes, choice))
            await outbox.flush(player)
            start = trio.current_time()  # the deadline's clock: the bank is spent by the same
            try:
                raw = await conn.receive_table_bytes(seat.deadline(base))
            except PlayerTimeoutError as exc:
                seat.bank = 0.0
                await self.seats.fault(player, SeatStatus.TIMEOUT, str(exc))
                return ChoiceReply(None, error=f"TIMEOUT: {exc}", fault=SeatStatus.TIMEOUT,
                                   asked=self.seats[player].conn is not None)
            except PlayerDisconnectedError as exc:
                await self.seats.lost(player, str(exc))
            else:
                seat.charge(base, trio.current_time() - start)
                cards, problem, cells = read_choice(conn.version, raw, choice.count)
                if problem is None:
                    return ChoiceReply(cards, cells, asked=self.seats[player].conn is not None)
                fault, error = table_fault(problem), describe(problem)
                await self.seats.fault(player, fault, f"{choice.kind.value} answer: {error}")
                return ChoiceReply(None, cells, error, fault,
                                   asked=self.seats[player].conn is not None)
        stand_in = requests.stand_in(seat)
        cards = None
        if stand_in.bot is not None:
            view = requests.driver.view(player)
            try:
                cards = stand_in.bot.choose(view, choice)
            except Exception:  # the stand-in must never stop the match
                log.exception("stand-in of player %d failed to choose", player)
        return ChoiceReply(cards if isinstance(cards, CardSet) else None, by=str(stand_in.kind))


@dataclass
class ChoiceReply:
    cards: CardSet | None  # None: the engine's default (the weakest cards)
    cells: dict[Cell, int] | None = None
    error: str | None = None
    fault: SeatStatus | None = None
    by: str | None = None  # None: the player; else the stand-in's kind
    asked: bool = False  # a CHOICE table went out, so the 9/8 answer is owed


def read_choice(version: int, raw: bytes, count: int
                ) -> tuple[CardSet | None, MalformedTableError | IllegalTableError | None,
                           dict[Cell, int]]:
    """(cards, None, cells), or (None, what is wrong, cells) for a table that is no answer."""
    try:
        table = Table.from_bytes(raw, version)
    except TABLE_ERRORS as exc:
        return None, exc, {}
    cells = table.nonzero()
    try:
        return read_choice_answer(table, count), None, cells
    except TABLE_ERRORS as exc:
        return None, exc, cells


__all__ = ["ChoiceReply", "ExtensionWire", "read_choice", "refuse",
           "wire_refusal"]

