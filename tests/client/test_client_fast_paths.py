"""``ClientProtocol.feed``'s fast paths (another player's turn under 20070) show a bot exactly
what the handlers show, and a client reads a burst of many tables from one write.

A real session is recorded first: the project's server over loopback TCP with five
clients, one of them keeping every read as it came off the socket.  It is then played
again, in process, through ``feed`` (the fast paths) and through ``receive`` one message at
a time (the handlers alone, the reference): the same view at every call of the bot, the
same observations, replies and record.  Last, a plain socket server sends the same bytes
to a ``run_bot`` client as a server that holds a waiting player's tables would: one write
per wait for that player's answer, many tables each.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field

import pytest
from daihinmin.client import ClientProtocol, run_bot
from daihinmin.client.protocol import Step
from daihinmin.players.default_bot import DefaultBot
from daihinmin.protocol.table import INT_BYTES, TABLE_BYTES
from witness import (
    QuietWitness,
    Recording,
    Witness,
    assert_read_alike,
    messages,
    play_seat_zero,
)

pytestmark = pytest.mark.timeout(120)

GAMES = 12


SEED = 19


IO_TIMEOUT = 30.0


@dataclass
class Session:
    reads: list[bytes] = field(default_factory=list)  # as they came off the socket


@pytest.fixture(scope="module")
def session() -> Session:
    proto = Recording(DefaultBot())
    play_seat_zero(proto, GAMES, SEED)
    return Session(reads=proto.reads)



@pytest.mark.parametrize("witness", [Witness, QuietWitness])
def test_feed_shows_the_bot_what_the_handlers_show(session: Session,
                                                   witness: type[Witness]) -> None:
    fast, slow = witness(), witness()
    by_feed, by_message = ClientProtocol(fast), ClientProtocol(slow)
    assert_read_alike(session.reads, by_feed, by_message, fast, slow, GAMES)


def bursts(reads: list[bytes]) -> list[tuple[bytes, int]]:
    """The session as a server holding a player's tables writes it: one write for each
    wait for this player's answer (and at each game's end), with the answer's size."""
    proto = ClientProtocol(DefaultBot())
    proto.initiate()
    out, held = [], b""
    for msg in messages(reads):
        step = proto.step
        held += msg
        replies = proto.feed(msg)
        over = step is Step.END_FLAG and msg != bytes(INT_BYTES)
        if replies or over or step is Step.PLAYER_NUMBER:
            out.append((held, sum(map(len, replies))))
            held = b""
    assert not held
    return out


def test_a_client_reads_many_tables_from_one_write(session: Session) -> None:
    plan = bursts(session.reads)
    expected = [len(b) // TABLE_BYTES for b, _ in plan]
    assert max(expected) >= 8  # some writes do carry many tables
    reference = ClientProtocol(DefaultBot())
    reference.initiate()
    answers = [reference.feed(b) for b, _ in plan]
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(IO_TIMEOUT)
    got: list[bytes] = []
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(IO_TIMEOUT)
                conn.recv(TABLE_BYTES, socket.MSG_WAITALL)  # the profile
                for data, answer in plan:
                    conn.sendall(data)
                    if answer:
                        got.append(conn.recv(answer, socket.MSG_WAITALL))
        except BaseException as exc:  # reported by the test below
            failure.append(exc)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    record = run_bot(DefaultBot(), "127.0.0.1", listener.getsockname()[1],
                     read_timeout=IO_TIMEOUT)
    server.join(IO_TIMEOUT)
    listener.close()
    assert not failure
    assert got == [b"".join(a) for a in answers if a]
    assert record == reference.record and record.games == GAMES
