"""The client library over protocol 20260, sans-IO: tables built by hand from the spec
(docs/PROTOCOL_EXTENSION.md), fed to :class:`ClientProtocol` message by message."""

from __future__ import annotations

import pytest
from daihinmin.client import Bot, ClientProtocol, GameView, Step
from daihinmin.client.errors import UnexpectedMessageError
from daihinmin.client.extension import ExtensionRequiredError
from daihinmin.protocol.codec import (
    TableState,
    build_deal,
    build_field,
    build_turn,
    decode_move_table,
    read_profile,
)
from daihinmin.protocol.extension import (
    CHOICE_DISCARD,
    CHOICE_GIVE,
    FLAG_OPENING_C3,
    PROTOCOL_20260,
    REFUSED,
    ExtState,
    ext_cells,
    read_choice_answer,
)
from daihinmin.protocol.table import Table, encode_int
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.extension_rules import preset_id, rules_digest
from daihinmin.rules.ruleset import PRESETS, UECDA, RuleSet, ruleset_from
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

APP7 = ruleset_from("app", ["seven_pass=yes", "ten_discard=yes"])
ME = 2


class Scripted(Bot):
    """Plays the given moves in order; answers choices with the given cards."""

    def __init__(self, moves: list[str], choices: list[str]) -> None:
        self.moves = [Move.parse(m) for m in moves]
        self.answers = [CardSet.parse(c) for c in choices]
        self.views: list[GameView] = []
        self.asked: list[PendingChoice] = []

    def play(self, view: GameView) -> Move:
        self.views.append(view)
        return self.moves.pop(0)

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        self.views.append(view)
        self.asked.append(choice)
        return self.answers.pop(0)


def ext(rules: RuleSet, counts: tuple[int, ...], **values: object) -> ExtState:
    n = rules.players
    return ExtState(players=n, preset=preset_id(rules), digest=rules_digest(rules),
                    jokers=rules.jokers, counts=counts, classes=(0,) * n,
                    seats=tuple(range(n)), **values)  # type: ignore[arg-type]


def feed(proto: ClientProtocol, data: bytes, step: Step) -> list[bytes]:
    assert proto.expecting.step is step, proto.where()
    return proto.receive(data)


def test_the_protocol_follows_the_rules_or_the_request() -> None:
    def version(**kw: object) -> int:
        return read_profile(Table.from_bytes(ClientProtocol(Bot(), **kw).initiate()))[0]  # type: ignore[arg-type]

    assert version() == 20070
    assert version(rules=PRESETS["web"]) == PROTOCOL_20260
    assert version(rules=UECDA, extension=True) == PROTOCOL_20260
    assert version(rules=PRESETS["web"], extension=False) == 20070


def test_a_refused_20070_client_says_why() -> None:
    proto = ClientProtocol(Bot())
    proto.initiate()
    with pytest.raises(ExtensionRequiredError, match="need protocol 20260"):
        proto.receive(encode_int(REFUSED))


def test_a_play_with_7s_and_10s_asks_two_choices_then_the_field() -> None:
    bot = Scripted(["S7 S8 S9 ST"], ["S3", ""])
    proto = ClientProtocol(bot, name="me", rules=APP7)
    assert read_profile(Table.from_bytes(proto.initiate())) == (PROTOCOL_20260, "me")
    feed(proto, encode_int(ME), Step.PLAYER_NUMBER)
    hand = CardSet.parse("S3 S7 S8 S9 ST H7 D9 CQ JK JK")
    counts = (13, 13, 10, 13)
    table = build_deal(hand, TableState(counts=counts, seats=(0, 1, 2, 3)), give=0)
    assert feed(proto, table.with_cells(ext_cells(ext(APP7, counts))).to_bytes(),
                Step.DEAL) == []
    state = TableState(my_turn=1, turn_player=ME, field_empty=1, counts=counts,
                       seats=(0, 1, 2, 3))
    turn = build_turn(hand, state).with_cells(ext_cells(ext(APP7, counts, pile=0)))
    (reply,) = feed(proto, turn.to_bytes(), Step.TURN)
    assert bot.views[-1].hand == hand and bot.views[-1].my_turn
    assert Move.parse("S7 S8 S9 ST") in bot.views[-1].legal_plays()
    assert decode_move_table(Table.from_bytes(reply)) == Move.parse("S7 S8 S9 ST")
    assert feed(proto, encode_int(9), Step.ANSWER) == []
    # CHOICE 1: give up to 1 (one 7) to player 3; the hand is the one after the play.
    after = CardSet.parse("S3 H7 D9 CQ JK JK")
    counts = (13, 13, 6, 13)
    give = ext(APP7, counts, choice_kind=CHOICE_GIVE, choice_count=1, choice_receiver=3)
    choice = build_turn(after, state).with_cells(ext_cells(give))
    (answer,) = feed(proto, choice.to_bytes(), Step.FIELD)
    assert bot.asked[-1] == PendingChoice(ChoiceKind.GIVE, ME, 1, 3)
    view = bot.views[-1]
    assert view.pending == bot.asked[-1] and view.hand == after
    assert CardSet.parse("S3") in view.legal_choices()
    # The chooser's view already has its play applied (the CHOICE table confirms it).
    play = Move.parse("S7 S8 S9 ST")
    assert view.field == play and view.field_owner == ME and view.counts == counts
    assert [(o.player, o.move, o.answer) for o in view.history] == [(ME, play, 9)]
    assert read_choice_answer(Table.from_bytes(answer), 1) == CardSet.parse("S3")
    assert feed(proto, encode_int(9), Step.CHOICE_ANSWER) == []
    # CHOICE 2: discard up to 1 (one 10): the bot discards nothing.
    after = CardSet.parse("H7 D9 CQ JK JK")
    discard = ext(APP7, (13, 13, 5, 14), choice_kind=CHOICE_DISCARD, choice_count=1,
                  choice_receiver=6)
    (answer,) = feed(proto, build_turn(after, state).with_cells(ext_cells(discard)).to_bytes(),
                     Step.FIELD)
    assert bot.asked[-1] == PendingChoice(ChoiceKind.DISCARD, ME, 1, -1)
    assert read_choice_answer(Table.from_bytes(answer), 1) == CardSet()
    assert len(bot.views[-1].history) == 1  # the second CHOICE table applies no play
    feed(proto, encode_int(8), Step.CHOICE_ANSWER)  # say the server used its default
    assert proto.record.choices == 2 and proto.record.choices_rejected == 1
    game = proto.game
    assert game is not None and game.hand == CardSet.parse("D9 CQ JK JK")  # H7, the weakest
    # The field table, then the game ends with every place named in row 7.
    shown = build_field(Move.parse("S7 S8 S9 ST"), TableState(turn_player=ME, counts=counts))
    final = ext(APP7, (13, 13, 5, 14), places=(2, 3, 1, 4))
    assert feed(proto, shown.with_cells(ext_cells(final)).to_bytes(), Step.FIELD) == []
    # The field table confirms the play: in the history once, the hand not taken from twice.
    assert [(o.player, o.move) for o in game.history] == [(ME, play)]
    assert game.hand == CardSet.parse("D9 CQ JK JK") and game.field == play
    feed(proto, encode_int(2), Step.END_FLAG)
    assert proto.done and proto.record.places == [(1, 2, 0, 3)]


def test_six_players_and_the_state_cells_reach_the_view() -> None:
    rules = PRESETS["original"]  # 6 players, 2 jokers, club-3 opening
    bot = Scripted(["C3"], [])
    proto = ClientProtocol(bot, rules=rules)
    proto.initiate()
    feed(proto, encode_int(5), Step.PLAYER_NUMBER)
    counts = (9, 9, 9, 9, 9, 9)
    seats = (5, 0, 1, 2, 3, 4)
    hand = CardSet.parse("C3 D4 H5 S6 D7 C9 HJ JK JK")
    values = ExtState(players=6, preset=1, digest=rules_digest(rules), jokers=2, counts=counts,
                      classes=(0,) * 6, seats=seats, flags=FLAG_OPENING_C3, passed=0b10,
                      direction=1, geki=1)
    deal = build_deal(hand, TableState(counts=counts[:5], seats=seats[:5]), give=0)
    feed(proto, deal.with_cells(ext_cells(values)).to_bytes(), Step.DEAL)
    state = TableState(my_turn=1, turn_player=5, field_empty=1, counts=counts[:5],
                       seats=seats[:5])
    feed(proto, build_turn(hand, state).with_cells(ext_cells(values)).to_bytes(), Step.TURN)
    view = bot.views[-1]
    assert view.counts == counts and view.seats == seats and view.player == 5
    assert view.lead_must_contain == CardSet.parse("C3") and view.geki
    assert view.direction == -1 and view.passed == 0b10
    assert all(CardSet.parse("C3") <= m.cards for m in view.legal_plays())


def test_the_client_adopts_the_servers_preset_and_checks_the_tables() -> None:
    web = PRESETS["web"]
    proto = ClientProtocol(Scripted([], []), rules=UECDA, extension=True)
    proto.initiate()
    feed(proto, encode_int(0), Step.PLAYER_NUMBER)
    counts = (14, 14, 13, 13)
    deal = build_deal(CardSet.parse("S3"), TableState(counts=counts, seats=(0, 1, 2, 3)), 0)
    feed(proto, deal.with_cells(ext_cells(ext(web, counts))).to_bytes(), Step.DEAL)
    assert proto.rules == web
    bad = build_turn(CardSet.parse("S3"), TableState(counts=counts)).with_cells(
        ext_cells(ext(web, counts)) | {(6, 13): 9})  # seat 3 names player 9
    with pytest.raises(UnexpectedMessageError, match="not an order of players"):
        proto.receive(bad.to_bytes())
