"""Acceptance of issue 22: a client that follows whose turn it is from the wire alone, by the
official devkit server's rule (as FujiGokoro does), is never surprised by a ``uecda`` match.

The follower keeps only what the tables show: the seats, the card counts, who acted and
whether the field's cards changed.  It applies the devkit's ``daihu.c`` turn logic: a pass or
a rejected table marks the actor passed; the trick clears when the passed players number
``5 - players out`` (the last player who played included), or at once on an 8 or a ♠3 over a
lone joker; the lead goes to the last player who played, or the next seat with cards; otherwise
the turn goes to the next seat with cards that has not passed.  Every turn table must name the
player and show the field (``[5][4]``) that rule gives, or the test fails on that turn.

One seat is the checking client (the project's probe, playing random legal moves, some
malformed tables, and now and then a lone joker written in row 4, which must be answered 8);
the other four are bundled bots over real TCP on 127.0.0.1.  One of them walks out during the
match, so the server's stand-in plays its seat (extra turns included) for the rest.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import pytest
import trio
from daihinmin.client import Bot, GameView, run_bot_async
from daihinmin.driver.record import GameRecord
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.registry import make_bot
from daihinmin.protocol.codec import read_hand
from daihinmin.protocol.table import Table
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchObserver, MatchServer
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from probe import ProbePlayer, ProtocolViolation, SeenTurn

pytestmark = pytest.mark.timeout(240)
HOST = "127.0.0.1"
N = 5
EIGHT_COL = 6
SPADE3_CELL = {(0, 1): 1}


class DevkitTurnError(AssertionError):
    """The server gave a turn the devkit server would not have given."""


Cells = dict[tuple[int, int], int]


@dataclass
class DevkitTurns:
    """The devkit server's turn order, rebuilt from the tables one player receives."""

    seats: tuple[int, ...] = ()
    counts: list[int] = field(default_factory=lambda: [0] * N)
    passed: list[int] = field(default_factory=lambda: [0] * N)
    last_player: int = -1
    stage: Cells = field(default_factory=dict)  # the cards on the field, {} when cleared
    lone_joker: bool = False
    expected: tuple[int, bool] | None = None  # (mover, field empty) of the next turn table
    game: int = 0
    turn: int = 0
    owner_answers: int = 0  # turns where the last player who played answered its own cards

    def deal(self, table: Table) -> None:
        self.game += 1
        self.turn = 0
        self.seats = tuple(table[6, 10 + i] for i in range(N))
        self.passed = [0] * N
        self.stage, self.lone_joker, self.expected = {}, False, None

    def turn_table(self, table: Table, me: int, hand: CardSet) -> None:
        self.turn += 1
        mover, empty = table[5, 3], bool(table[5, 4])
        self.counts = [table[6, i] for i in range(N)]
        where = f"game {self.game} turn {self.turn}"
        if self.expected is None:  # the first turn: the holder of the ♦3 leads
            holds_d3 = CardSet.parse("D3") <= hand
            if (mover == me) != holds_d3 or not empty:
                raise DevkitTurnError(f"{where}: player {mover} leads the game (field empty "
                                      f"{empty}); I am {me}, ♦3 held: {holds_d3}")
            self.last_player = mover
        elif (mover, empty) != self.expected:
            raise DevkitTurnError(f"{where}: the server gives the turn to {mover} (field empty "
                                  f"{empty}); the devkit gives {self.expected}")
        if mover == self.last_player and self.stage:
            self.owner_answers += 1

    def field_table(self, table: Table) -> None:
        actor = table[5, 3]
        cells = {(r, c): table[r, c] for r in range(5) for c in range(15) if table[r, c]}
        self.counts = [table[6, i] for i in range(N)]
        clear = False
        if cells and cells != self.stage:  # a play
            self.last_player = actor
            if self.lone_joker:
                clear = cells == SPADE3_CELL  # only the ♠3 beats it, and it clears
                self.lone_joker = False
            elif len(cells) == 1 and 2 in cells.values():
                self.lone_joker = True
            else:
                clear = any(c == EIGHT_COL for _, c in cells)
            self.stage = cells
        else:  # a pass, or a table the server rejected
            self.passed[actor] = 1
        out = sum(1 for n in self.counts if n == 0)
        if clear or sum(self.passed) >= N - out:
            self.passed = [0] * N
            self.stage, self.lone_joker = {}, False
            nxt = self.last_player
            while self.counts[nxt] == 0:
                nxt = self._after(nxt)
            self.last_player = nxt
        else:
            nxt = self._after(actor)
            while self.counts[nxt] == 0 or self.passed[nxt]:
                nxt = self._after(nxt)
        self.expected = (nxt, not self.stage)

    def _after(self, player: int) -> int:
        return self.seats[(self.seats.index(player) + 1) % N]


class DevkitFollower(ProbePlayer):
    """The probe, with every table it receives also fed to :class:`DevkitTurns`."""

    def __init__(self, host: str, port: int, seed: int) -> None:
        super().__init__(host, port, "devkit", seed=seed, fault_rate=0.05)
        self.turns = DevkitTurns()
        self.row4_jokers = 0
        self._next = "deal"

    def recv_table(self) -> Table:
        table = super().recv_table()
        if self._next == "deal":
            self.turns.deal(table)
            self._next = "turn"
        elif self._next == "turn":
            self.turns.turn_table(table, self.record.number, read_hand(table))
            self._next = "field"
        else:
            self.turns.field_table(table)
            self._next = "flag"
        return table

    def recv_int(self) -> int:
        value = super().recv_int()
        if self._next == "flag":
            self._next = "turn" if value == 0 else "deal"
        return value

    def move(self, turn: Table, hand: CardSet, field: Move | None,
             seen: SeenTurn) -> Move | None:
        if self.rng.random() < 0.05:  # a lone joker in row 4: no move, answered 8
            self.send_table(Table.zeros().with_cells({(4, self.rng.randrange(15)): 2}))
            seen.sent = "bad:joker_row4"
            answer = self.recv_int()
            seen.answer = answer
            self.row4_jokers += 1
            if answer != 8:
                raise ProtocolViolation(f"answer {answer} to a lone joker in row 4")
            return None
        return super().move(turn, hand, field, seen)


class WalkOut(Exception):
    """The bot leaves the match (its connection closes)."""


class WalkingDefault(DefaultBot):
    """``default`` for ``plays`` plays, then it walks out."""

    def __init__(self, plays: int) -> None:
        super().__init__()
        self.left = plays

    def play(self, view: GameView) -> Move:
        self.left -= 1
        if self.left < 0:
            raise WalkOut
        return super().play(view)


async def run_until_walk_out(bot: Bot, port: int) -> None:
    with contextlib.suppress(WalkOut):
        await run_bot_async(bot, HOST, port, read_timeout=60)


def play_checked_match(games: int, seed: int, bot_names: list[str], rules: RuleSet = UECDA,
                       walk_out_after: int = 0) -> tuple[DevkitFollower, MatchServer]:
    """A match with the follower in seat 0; its first :class:`DevkitTurnError` is raised.
    With ``walk_out_after``, the last bot is a ``default`` that leaves after so many plays."""
    config = ServerConfig(rules=rules, games=games, seed=seed, port=0, fault_limit=0)
    server = MatchServer(config, StandInGames())
    follower = DevkitFollower(HOST, 0, seed)
    bots = [make_bot(name, seed=seed + i) for i, name in enumerate(bot_names)]
    if walk_out_after:
        bots[-1] = WalkingDefault(walk_out_after)
    caught: list[DevkitTurnError] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            follower.port = port
            await trio.to_thread.run_sync(follower.join)
            for bot in bots:
                nursery.start_soon(run_until_walk_out, bot, port)
            try:
                await trio.to_thread.run_sync(follower.run)
            except DevkitTurnError as exc:
                caught.append(exc)
                nursery.cancel_scope.cancel()  # the others wait on the stopped follower

    trio.run(main)
    if caught:
        raise caught[0]
    assert server.outcome is not None
    return follower, server


class StandInGames(MatchObserver):
    """The numbers of the games in which a stand-in played a seat (the server keeps no
    records; they reach the observer one by one)."""

    def __init__(self) -> None:
        self.games: list[int] = []

    def game_finished(self, record: GameRecord) -> None:
        if record.stand_in:
            self.games.append(record.game)


def test_a_devkit_client_follows_every_turn_of_a_100_game_uecda_match() -> None:
    follower, server = play_checked_match(100, seed=22, walk_out_after=250,
                                          bot_names=["default", "weakest", "greedy", "default"])
    turns = follower.turns
    assert turns.game == 100 and len(follower.record.games) == 100
    assert turns.owner_answers > 100  # the devkit's extra answer really happened
    assert follower.row4_jokers > 0
    assert server.outcome is not None
    assert isinstance(server.observer, StandInGames)
    stood_in = server.observer.games
    assert stood_in and stood_in[-1] == 100 and len(stood_in) < 90  # from mid-match on


def test_the_follower_catches_the_2013_trick_clear() -> None:
    """The same follower on a 2013-rule match fails at the first trick that clears before
    its last player answered (the check can fail)."""
    with pytest.raises(DevkitTurnError, match="the devkit gives"):
        play_checked_match(3, 5, ["weakest"] * 4, UECDA.with_rules(owner_answers=False))


def test_devkit_turns_on_hand_written_tables() -> None:
    """The follower's rule itself: the owner answers, then the trick clears to it."""
    t = DevkitTurns()
    deal = Table.zeros().with_cells({(6, 10 + i): i for i in range(N)} | {(5, 0): 1})
    t.deal(deal)

    def state(mover: int, empty: int, cells: Cells | None = None) -> Table:
        base = {(6, i): 5 for i in range(N)} | {(5, 3): mover, (5, 4): empty}
        return Table.zeros().with_cells(base | (cells or {}))

    t.turn_table(state(0, 1), 0, CardSet.parse("D3"))
    t.field_table(state(0, 0, {(2, 1): 1}))  # p0 leads ♦3
    for p in (1, 2, 3, 4):
        assert t.expected == (p, False)
        t.turn_table(state(p, 0), 0, CardSet())
        t.field_table(state(p, 0, {(2, 1): 1}))  # passes: the field unchanged
    assert t.expected == (0, False)  # the owner answers its own ♦3
    t.turn_table(state(0, 0), 0, CardSet())
    assert t.owner_answers == 1
    t.field_table(state(0, 0, {(2, 1): 1}))
    assert t.expected == (0, True)  # it passed too: cleared, it leads
