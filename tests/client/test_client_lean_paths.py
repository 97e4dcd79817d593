"""The cheaper paths of a bundled bot's client show a bot exactly what the plain ones show.

A real session is recorded first: the project's server with deferred writes (what ``match``
uses for bundled bots) over loopback TCP, five clients, one keeping every read as it came
off the socket, so reads carry many tables each (another player's turn table and its field
table together).  It is fed again in process through ``feed`` and through ``receive`` one
message at a time (the handlers, the reference): the same views, observations, replies and
record; the fast paths are taken where they apply, and a bad cell in a table they take is
named as the handler names it.  Then the pieces the fast paths are built of, each against
what it replaces: ``quick_view``/``quick_observed`` against the dataclasses' own
constructors, ``move_bytes``/``hand_rows``/``move_to_cells`` against the protocol's encoder
and the cards themselves, ``HandGrid`` against an eager grid.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from daihinmin.client import Bot, ClientProtocol, GameView, Observed
from daihinmin.client.errors import UnexpectedMessageError
from daihinmin.client.protocol import Step
from daihinmin.client.tables import hand_rows, move_bytes
from daihinmin.contract.view import quick_observed, quick_view
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.sample_tables import CELLS, COLS, Grid, hand_grid
from daihinmin.protocol.codec import TableState, build_move, build_turn
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import JOKER, JOKER2, CardSet
from daihinmin.values.moves import PASS, move_to_cells
from witness import (  # the same bots as the fast paths' test, cut and match
    QuietWitness,
    Witness,
    assert_read_alike,
    play_seat_zero,
)

pytestmark = pytest.mark.timeout(120)
GAMES = 10
SEED = 23
IO_TIMEOUT = 30.0


class Counting(ClientProtocol):
    """A client counting what its turn tables took: the fast path's bytes (0 = the
    handler), and the turn tables the handler read that did not ask this client to move."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.taken: Counter[int] = Counter()
        self.handled_others = 0
        self.reads: list[bytes] = []

    def feed(self, data: bytes) -> list[bytes]:
        self.reads.append(data)
        return super().feed(data)

    def _quick_turn(self, buf: bytes, pos: int, end: int) -> int:
        taken = super()._quick_turn(buf, pos, end)
        self.taken[taken] += 1
        return taken

    def _consume(self, step: Step, data: bytes) -> list[bytes]:
        replies = super()._consume(step, data)
        self.handled_others += step is Step.TURN and not replies
        return replies


@pytest.fixture(scope="module")
def reads() -> list[bytes]:
    from daihinmin.server.config import WriteMode

    proto = Counting(DefaultBot())
    play_seat_zero(proto, GAMES, SEED, write_mode=WriteMode.DEFERRED)
    assert proto.record.games == GAMES
    return proto.reads


@pytest.mark.parametrize("witness", [Witness, QuietWitness])
def test_deferred_reads_show_the_bot_what_the_handlers_show(reads: list[bytes],
                                                            witness: type[QuietWitness]) -> None:
    fast, slow = witness(), witness()
    by_feed, by_message = Counting(fast), ClientProtocol(slow)
    assert_read_alike(reads, by_feed, by_message, fast, slow, GAMES)
    # Most other players' turns come with their field table, taken together; after the
    # client's own play its new hand is expected, so the handler reads another player's
    # turn table only at a game's first turn.
    assert by_feed.taken[2 * 480] > 20 * GAMES
    assert by_feed.handled_others <= GAMES


def facts_of(view: GameView) -> dict[str, object]:
    return {f.name: getattr(view, f.name) for f in dataclasses.fields(GameView)}


def test_quick_view_and_quick_observed_are_the_dataclasses(reads: list[bytes]) -> None:
    bot = Witness()
    proto = ClientProtocol(bot)
    proto.initiate()
    for data in reads:
        proto.feed(data)
    views = [item[1] for item in bot.seen]
    observed = [item[2] for item in bot.seen if item[0] == "turn"]
    assert len(views) > GAMES * 50 and any(o.is_play for o in observed)
    for view in views:  # every view the client built is the dataclass's own
        assert type(view) is GameView
        assert set(vars(view)) >= set(facts_of(view))
        assert view == GameView(**facts_of(view))  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.hand = CardSet()  # type: ignore[misc]
    for o in observed:
        rebuilt = Observed(o.player, o.move, o.trick_cleared_before, o.answer)
        assert o == rebuilt and hash(o) == hash(rebuilt)
    plain = quick_observed(3, PASS)
    assert plain == Observed(3, PASS) and repr(plain) == repr(Observed(3, PASS))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plain.player = 1  # type: ignore[misc]
    facts = facts_of(views[-1])
    assert quick_view(**facts) == views[-1]
    facts.pop("hand")
    with pytest.raises(TypeError, match="needs hand"):
        quick_view(**facts)


def random_hands(count: int) -> list[CardSet]:
    rng = random.Random(7)
    hands = []
    for _ in range(count):
        mask = sum(1 << c for c in rng.sample(range(4, 56), rng.randint(0, 16)))
        jokers = rng.choice((0, 0, 1, 2))
        mask |= (1 << JOKER if jokers else 0) | (1 << JOKER2 if jokers == 2 else 0)
        hands.append(CardSet(mask))
    return hands


def test_move_and_hand_bytes_are_the_encoders() -> None:
    rules = dataclasses.replace(UECDA, jokers=2)
    moves = 0
    for hand in random_hands(60):
        assert hand_rows(hand) == build_turn(hand, TableState()).to_bytes()[:300]
        for move in [PASS, *all_plays(hand, rules)]:
            cells = {(c & 3, c >> 2): 1 for c in move.cards} | dict.fromkeys(
                move.joker_cells, 2)
            assert move_to_cells(move) == ({(0, 14): 2} if move.jokers and not move.cards
                                           and len(move.joker_cells) == 0 else cells)
            assert move_bytes(move) == build_move(move).to_bytes()
            moves += 1
    assert moves > 500


def test_a_hand_grid_reads_like_the_grid_it_stands_for() -> None:
    for hand in random_hands(200):
        lazy = hand_grid(hand)
        eager = Grid()
        for c in hand.without_jokers:
            eager.cells[(c & 3) * COLS + (c >> 2)] = 1
        if hand.jokers:
            eager.cells[4 * COLS + 1] = 2
        for row in range(-2, 11):
            for col in range(-3, 18):
                assert lazy.get(row, col) == eager.get(row, col), (hand, row, col)
        assert lazy.cells == eager.cells and len(lazy.cells) == CELLS
        assert lazy.copy().cells == eager.cells


def test_a_bad_cell_in_a_field_read_with_its_turn_is_named_as_the_handler_names_it(
        reads: list[bytes]) -> None:
    whole = b"".join(reads)
    finder = Counting(DefaultBot())
    finder.initiate()
    at: list[int] = []
    taken = finder._quick_turn

    def where_taken(buf: bytes, pos: int, end: int) -> int:
        n = taken(buf, pos, end)
        if n == 2 * 480:
            at.append(pos)
        return n
    finder._quick_turn = where_taken  # type: ignore[method-assign]
    finder.feed(whole)  # one read: the positions are the stream's
    assert len(at) > 20
    for count_cell in (6 * 15 + 0, 6 * 15 + 4):  # a count of the field table after the turn
        cell = at[20] + 480 + 4 * count_cell
        bad = whole[:cell] + (60).to_bytes(4, "big") + whole[cell + 4:]
        by_feed, by_message = ClientProtocol(DefaultBot()), ClientProtocol(DefaultBot())
        by_feed.initiate()
        by_message.initiate()
        with pytest.raises(UnexpectedMessageError) as fed:
            by_feed.feed(bad)
        with pytest.raises(UnexpectedMessageError) as handled:
            pos = 0
            while True:
                size = by_message.expecting.size
                by_message.receive(bad[pos:pos + size])
                pos += size
        assert str(fed.value) == str(handled.value)
        assert "a card count of 60" in str(fed.value)
