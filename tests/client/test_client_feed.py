"""``ClientProtocol.feed``: a stream cut anywhere gives the replies of one message at a time."""

from __future__ import annotations

import itertools

from daihinmin.client import Bot, ClientProtocol, GameView, Step
from daihinmin.client.tables import move_bytes
from daihinmin.protocol.codec import TableState, build_deal, build_field, build_move, build_turn
from daihinmin.protocol.table import encode_int
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import PRESETS
from daihinmin.values.cards import VALID_BITS, CardSet
from daihinmin.values.moves import PASS, Move
from hypothesis import given
from hypothesis import strategies as st

COUNTS = (3, 3, 3, 3, 3)


class Lowest(Bot):
    def play(self, view: GameView) -> Move:
        return min(view.legal_moves(), key=str)


def stream() -> list[bytes]:
    """Player number, a deal and three turns of game 1 (this client moves in two)."""
    hand = CardSet.parse("S3 S4 S5")
    msgs = [encode_int(2), build_deal(hand, TableState(exchange_phase=1, turn_player=6,
                                                       counts=COUNTS), 0).to_bytes()]
    for mine in (True, False, True):
        state = TableState(my_turn=int(mine), turn_player=2 if mine else 3, field_empty=1,
                           counts=COUNTS)
        msgs.append(build_turn(hand, state).to_bytes())
        if mine:
            msgs.append(encode_int(9))
        msgs.append(build_field(None, TableState(turn_player=state.turn_player,
                                                 field_empty=1, counts=COUNTS)).to_bytes())
        msgs.append(encode_int(0))
    return msgs


def one_at_a_time() -> list[bytes]:
    proto = ClientProtocol(Lowest())
    proto.initiate()
    return [reply for msg in stream() for reply in proto.receive(msg)]


@given(st.lists(st.integers(min_value=0, max_value=2400), max_size=12))
def test_feed_splits_any_cut_of_the_stream_into_the_same_messages(cuts: list[int]) -> None:
    data = b"".join(stream())
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    proto = ClientProtocol(Lowest())
    proto.initiate()
    replies = []
    for a, b in itertools.pairwise(points):
        replies += proto.feed(data[a:b])
    assert replies == one_at_a_time() and len(replies) == 2
    assert proto.unread == 0 and proto.step is Step.TURN and proto.player == 2


def test_feed_keeps_a_partial_message_for_the_next_call() -> None:
    proto = ClientProtocol(Lowest())
    proto.initiate()
    first = b"".join(stream()[:2])
    assert proto.feed(first + b"\x00" * 100) == []
    assert proto.unread == 100 and proto.step is Step.TURN



CARD_BITS = [1 << i for i in range(64) if VALID_BITS >> i & 1]


# Hands of up to 20 cards hold every shape of play (a 13-card run with both jokers, six of a
# rank); a deal gives at most 18.  Whole-deck hands list tens of thousands of plays and took
# most of this test's time without reaching a shape the smaller ones miss.
@given(st.sets(st.sampled_from(CARD_BITS), max_size=20), st.sampled_from(sorted(PRESETS)))
def test_move_bytes_are_the_move_tables_bytes(cards: set[int], preset: str) -> None:
    """The client's packed move table equals ``build_move(move).to_bytes()`` for every play a
    hand allows (singles, groups, runs, stairs, jokers) and for the pass."""
    hand = CardSet(sum(cards))
    for move in [PASS, *all_plays(hand, PRESETS[preset])]:
        assert move_bytes(move) == build_move(move).to_bytes()
