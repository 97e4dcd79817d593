"""The sans-IO ClientProtocol: fed real reference-server bytes, and unit cases.

The replay feeds player 3's decoded session under the reference server tndhms
(``tests/data/transcript_example.txt``: two games, 5 standard C clients) message by
message into :class:`ClientProtocol`, with a bot that answers what the real client answered.
The replies must be the real client's tables, and what the client infers (every player's
play or pass, places, exchange) must equal the server's own kifu printed in the same file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from daihinmin.client import Bot, ClientProtocol, GameView, Observed, Step
from daihinmin.client import protocol as client_protocol
from daihinmin.protocol.codec import (
    TableState,
    build_deal,
    build_field,
    build_turn,
    decode_exchange_table,
    decode_move_table,
    read_hand,
    read_profile,
)
from daihinmin.protocol.table import Table, encode_int
from daihinmin.values.cards import RANK_CHARS, SUITS, CardSet, card, rank_of, suit_of
from daihinmin.values.moves import PASS, Move
from vectors import transcript_text

ME = 3  # the transcript is player 3's connection


# --- reading the transcript ----------------------------------------------------------------
@dataclass
class Wire:
    sender: str  # "S" (server to client) or "C"
    data: bytes  # the whole message as it went over the wire


_HEAD = re.compile(r"^#\d+ ([SC])>[SC] (.*)$")
_RAW_INT = re.compile(r"\(raw ([0-9a-f]{2}) ([0-9a-f]{2}) ([0-9a-f]{2}) ([0-9a-f]{2})\)")
_ROW = re.compile(r"^\s+r(\d): \[(.*)\]$")
_ROW56 = re.compile(r"exch_phase=(\d+) exch_n=(\d+) my_turn=(\d+) turn_player=(\d+) "
                    r"onset\(field empty\)=(\d+) 11back=(\d+) rev=(\d+) lock=(\d+) \| row6: "
                    r"counts=\[(.*?)\] classes=\[(.*?)\] seats=\[(.*?)\]")


def card_cells(text: str) -> dict[tuple[int, int], int]:
    """A ``cards:`` line: ``S4 JOKER`` (held joker at [4][1]) or ``JOKER(as H8)``."""
    cells: dict[tuple[int, int], int] = {}
    for placed, name in re.findall(r"JOKER\(as (\w\w)\)|(\S+)", text):
        if placed:
            c = card(placed)
            cells[(suit_of(c), rank_of(c))] = 2
        elif name == "JOKER":
            cells[(4, 1)] = 2
        elif name != "(none)":
            c = card(name)
            cells[(suit_of(c), rank_of(c))] = 1
    return cells


def table_from(lines: list[str]) -> Table:
    """The full grid when printed, else the ``cards:`` and ``row5/row6`` lines."""
    rows = [m for m in (_ROW.match(x) for x in lines) if m]
    if len(rows) == 8:
        return Table.from_rows([int(v) for v in m.group(2).split()] for m in rows)
    cells: dict[tuple[int, int], int] = {}
    for line in lines:
        text = line.strip()
        if text.startswith("cards:"):
            cells.update(card_cells(text[len("cards:"):]))
        state = _ROW56.search(text)
        if state:
            r5 = [int(state.group(i)) for i in range(1, 9)]
            r6 = [int(v) for g in (9, 10, 11) for v in state.group(g).split(",")]
            cells.update({(5, i): v for i, v in enumerate(r5)})
            cells.update({(6, i): v for i, v in enumerate(r6)})
    return Table.zeros().with_cells(cells)


def parse_wire(text: str) -> list[Wire]:
    out: list[Wire] = []
    blocks: list[tuple[str, str, list[str]]] = []
    for line in text.split("==================== server kifu")[0].splitlines():
        head = _HEAD.match(line)
        if head:
            blocks.append((head.group(1), head.group(2), []))
        elif blocks and line.startswith(" "):
            blocks[-1][2].append(line)
    for sender, title, lines in blocks:
        raw = _RAW_INT.search(title)
        if "table" in title.split("(")[0]:
            out.append(Wire(sender, table_from(lines).to_bytes()))
        else:
            assert raw, title
            out.append(Wire(sender, bytes(int(h, 16) for h in raw.groups())))
    return out


def kifu_games(text: str) -> list[dict[str, str]]:
    games: dict[int, dict[str, str]] = {}
    for number, key, value in re.findall(r"^%(\d{5})%(\w+)% ?(.*)$", text, re.M):
        games.setdefault(int(number), {})[key] = value.strip()
    return [games[k] for k in sorted(games)]


def kifu_cards(body: str) -> tuple[CardSet, int]:
    """Kifu card tokens: suit char (S H D C; K L M N = joker in that row) + rank char."""
    real, jokers = [], 0
    for i in range(0, len(body), 2):
        suit, rank = body[i], body[i + 1]
        if suit in "KLMNJ":
            jokers += 1
        else:
            real.append(4 * RANK_CHARS.index(rank, 1) + SUITS.index(suit))
    return CardSet.of(real), jokers


def kifu_plays(line: str) -> list[tuple[int, CardSet, int]]:
    """``0D3C3EE 2EE ...`` -> (player, real cards, jokers); a pass has no cards."""
    out = []
    for token in line.split():
        assert token.endswith("EE"), token
        cards, jokers = kifu_cards(token[1:-2])
        out.append((int(token[0]), cards, jokers))
    return out


# --- the replay -----------------------------------------------------------------------------
class ReplayBot(Bot):
    """Answers what the real client answered; keeps every game's record."""

    name = "std3lt"

    def __init__(self, moves: list[Move], exchanges: list[CardSet]) -> None:
        self.moves, self.exchanges = moves, exchanges
        self.ended: list[tuple[GameView, tuple[int, ...] | None]] = []
        self.turn_calls = 0

    def exchange(self, view: GameView, count: int) -> CardSet:
        return self.exchanges.pop(0)

    def play(self, view: GameView) -> Move:
        return self.moves.pop(0)

    def on_turn(self, view: GameView, observed: Observed, accepted: bool) -> None:
        self.turn_calls += 1

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        self.ended.append((view, places))


def test_replay_of_a_reference_server_session() -> None:
    text = transcript_text()
    wire = parse_wire(text)
    profile, rest = wire[0], wire[1:]
    assert profile.sender == "C"
    client_tables = [Table.from_bytes(w.data) for w in rest if w.sender == "C"]
    # What the real client sent: the exchange table right after its deal, then its moves.
    bot_moves: list[Move] = []
    bot_exchanges: list[CardSet] = []
    expect_exchange = False
    deal_hand = Table.zeros()
    for w in rest:
        if w.sender == "S" and len(w.data) == 480:
            t = Table.from_bytes(w.data)
            if t[5, 0] == 1:
                expect_exchange, deal_hand = t[5, 1] > 0, t
        elif w.sender == "C":
            t = Table.from_bytes(w.data)
            if expect_exchange:
                bot_exchanges.append(decode_exchange_table(t, read_hand(deal_hand),
                                                           deal_hand[5, 1]))
                expect_exchange = False
            else:
                bot_moves.append(decode_move_table(t))
    assert len(bot_exchanges) == 1 and len(bot_moves) == len(client_tables) - 1

    bot = ReplayBot(list(bot_moves), list(bot_exchanges))
    proto = ClientProtocol(bot, name="std3")
    # The real profile has leftovers after the name's 0 ("std3", 0, "lt"); the rest is equal.
    ours, real = Table.from_bytes(proto.initiate()), Table.from_bytes(profile.data)
    assert read_profile(ours) == read_profile(real) == (20070, "std3")
    pending: list[bytes] = []
    for w in rest:
        if w.sender == "S":
            pending += proto.receive(w.data)
        else:
            assert pending, "the client should have answered here"
            assert Table.from_bytes(pending.pop(0)).nonzero() == Table.from_bytes(
                w.data).nonzero()
    assert not pending and proto.step is Step.DEAL and proto.record.games == 2
    assert proto.record.player == ME

    kifu = kifu_games(text)
    assert len(bot.ended) == 2
    for (view, places), game in zip(bot.ended, kifu, strict=True):
        seen = [(o.player, o.move.cards, o.move.jokers) for o in view.history]
        assert seen == kifu_plays(game["play"])
        order = [int(ch) for ch in game["result"]]
        assert places == tuple(order.index(p) for p in range(5))
    assert bot.turn_calls == sum(len(kifu_plays(g["play"])) for g in kifu)
    game2 = bot.ended[1][0]
    # Game 2: player 3 is the daifugo and gives S3 D4 ("31S3D4EE" in the kifu).
    assert game2.classes[ME] == 0
    assert game2.exchange_given == CardSet.parse("S3 D4")
    assert game2.exchange_received == CardSet()


# --- unit cases -----------------------------------------------------------------------------
COUNTS = (3, 3, 3, 3, 3)


class Quiet(Bot):
    def play(self, view: GameView) -> Move:
        return PASS


def started(hand: str = "S3 S4 S5", classes: tuple[int, ...] = (0,) * 5,
            give: int = 0) -> ClientProtocol:
    proto = ClientProtocol(Quiet())
    proto.initiate()
    proto.receive(encode_int(0))
    state = TableState(counts=COUNTS, classes=classes)
    proto.receive(build_deal(CardSet.parse(hand), state, give).to_bytes())
    return proto


def turn(proto: ClientProtocol, actor: int, empty: bool, shown: Move | None,
         hand: str = "S3 S4 S5", field_empty_after: bool | None = None) -> Observed:
    state = TableState(turn_player=actor, field_empty=int(empty), counts=COUNTS)
    proto.receive(build_turn(CardSet.parse(hand), state).to_bytes())
    after = TableState(turn_player=actor, counts=COUNTS,
                       field_empty=int(shown is None if field_empty_after is None
                                       else field_empty_after))
    proto.receive(build_field(shown, after).to_bytes())
    proto.receive(encode_int(0))
    assert proto.game is not None
    return proto.game.history[-1]


def test_play_and_pass_are_told_apart_from_the_field() -> None:
    proto = started()
    assert turn(proto, 1, True, None).move == PASS  # a pass on the empty field
    first = turn(proto, 2, True, Move.parse("D6"))
    assert first.move == Move.parse("D6") and first.trick_cleared_before
    assert turn(proto, 3, False, Move.parse("D6")).move == PASS  # the field did not change
    assert turn(proto, 4, False, Move.parse("H9")).move == Move.parse("H9")
    view = proto.game.view() if proto.game else None
    assert view is not None
    assert view.passed == (1 << 1) | (1 << 3)  # a pass on the lead also counts
    assert view.field_owner == 4 and view.field == Move.parse("H9")
    # The next turn table shows an empty field: the trick was cleared.
    turn(proto, 4, True, Move.parse("C7"))
    view = proto.game.view() if proto.game else None
    assert view is not None and view.passed == 0 and view.field_owner == 4


def test_the_same_cards_after_a_clear_count_as_a_new_play() -> None:
    proto = started()
    assert turn(proto, 0, True, Move.parse("S8")).move == Move.parse("S8")
    # 8-cut: the field table still showed S8; the next turn table says the field is empty,
    # and the new lead is compared with that empty field, not with S8.
    assert turn(proto, 0, True, Move.parse("D8")).move == Move.parse("D8")
    assert turn(proto, 0, True, None).move == PASS  # a pass on the lead
    assert turn(proto, 1, True, Move.parse("S9")).trick_cleared_before


def test_plays_read_before_are_remembered_and_still_told_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Field plays are remembered by their card rows (the newest ``FIELD_PLAYS``): a play
    shown again, remembered or forgotten since, is that play, and a pass over it a pass."""
    monkeypatch.setattr(client_protocol, "FIELD_PLAYS", 2)
    proto = started()
    for i, text in enumerate(["D6", "H9", "D6", "SK", "C7", "H9", "H9"]):
        move = Move.parse(text)
        assert turn(proto, i % 5, True, move).move == move  # a lead on the cleared field
        assert turn(proto, (i + 1) % 5, False, move).move == PASS  # the same cells: a pass
    assert len(proto._plays) == 2


def test_a_view_keeps_its_history_as_the_game_goes_on() -> None:
    """Views share one tuple of the history until a turn is added; an older view keeps the
    turns it was given."""
    proto = started()
    turn(proto, 1, True, Move.parse("D6"))
    game = proto.game
    assert game is not None
    before = game.view()
    assert isinstance(before.history, tuple) and game.view().history is before.history
    turn(proto, 2, False, Move.parse("H9"))
    after = game.view(my_turn=True)
    assert [o.move for o in before.history] == [Move.parse("D6")]
    assert [o.move for o in after.history] == [Move.parse("D6"), Move.parse("H9")]


def test_lower_class_exchange_facts_when_a_card_comes_back() -> None:
    # Daihinmin (class 4) gives its two strongest (JK, H2) and gets H2 back plus S5.
    proto = started("S3 S4 H2 JK", classes=(4, 0, 1, 2, 3))
    proto.receive(build_turn(CardSet.parse("S3 S4 S5 H2"),
                             TableState(turn_player=1, field_empty=1, counts=COUNTS)).to_bytes())
    view = proto.game.view() if proto.game else None
    assert view is not None
    assert view.exchange_given == CardSet.parse("H2 JK")
    assert view.exchange_received == CardSet.parse("S5 H2")


def test_upper_class_gives_and_the_count_is_asked() -> None:
    asked: list[int] = []

    class Giver(Quiet):
        def exchange(self, view: GameView, count: int) -> CardSet:
            asked.append(count)
            return CardSet.parse("S3 S4")

    proto = ClientProtocol(Giver())
    proto.initiate()
    proto.receive(encode_int(2))
    deal = build_deal(CardSet.parse("S3 S4 S5 D2"), TableState(counts=COUNTS,
                                                                classes=(1, 2, 0, 3, 4)), 2)
    (reply,) = proto.receive(deal.to_bytes())
    assert asked == [2]
    assert decode_exchange_table(Table.from_bytes(reply), CardSet.parse("S3 S4 S5 D2"),
                                 2) == CardSet.parse("S3 S4")
    proto.receive(build_turn(CardSet.parse("S5 D2"),
                             TableState(turn_player=2, counts=COUNTS)).to_bytes())
    view = proto.game.view() if proto.game else None
    assert view is not None and view.exchange_given == CardSet.parse("S3 S4")
    assert view.exchange_received == CardSet()


def test_misuse_of_the_state_machine_is_refused() -> None:
    proto = ClientProtocol(Quiet())
    with pytest.raises(RuntimeError):
        proto.receive(encode_int(0))
    proto.initiate()
    with pytest.raises(RuntimeError):
        proto.initiate()
    with pytest.raises(ValueError, match="4 bytes"):
        proto.receive(bytes(480))
    assert proto.expecting.step is Step.PLAYER_NUMBER and proto.expecting.size == 4
