"""The floor script of ``daihinmin bench tcp``: a real session's server-side system calls.

Five native clients run ``--record FILE`` against a real ``daihinmin serve``: each file holds
every message the client read and wrote, in order.  :func:`build_script` lines the five up by
the protocol's order (profile, player number; per game the deal, the exchange tables of the
players asked to give, then per turn the turn tables, the mover's move, its answer, the field
table and the end flag) and writes what ``floor_server.c`` replays, in the write
pattern of one of ``serve``'s write modes:

* coalesced (the default): before each reply, one write per player of everything the
  server sent it since the last wait for any reply;
* deferred: before each reply, one write to the player who replies of everything it was sent
  since it last replied, and to each player who has ``HELD_CHUNKS`` chunks waiting (as
  ``serve`` counts them: a table, an int, a turn's field table and end flag); everyone
  else's bytes wait (and at a game's end, everyone's go);

then the reply is read whole and compared with the recorded one.  The player numbers are
written as the profiles come, and every game ends with a write to every player.  So the
floor server does the system calls a server of protocol 20070 cannot do without for these
games in that pattern, and no judging.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

from daihinmin.protocol.table import COLS
from daihinmin.server.outbox import HELD_CHUNKS

TABLE_BYTES = 480
INT_BYTES = 4
OP_WRITE, OP_READ, OP_READ_ANY, OP_GAME = 1, 2, 3, 4
_OP = struct.Struct("=IIIIQ")
_HEADER = struct.Struct("=4sIIQ")
_RECORD = struct.Struct("=cI")


class RecordingError(Exception):
    """The recordings do not make one session of protocol 20070."""


def read_recording(path: Path) -> list[tuple[bytes, bytes]]:
    """The messages of one ``--record`` file: (b"R" or b"W", the bytes), in order."""
    data = path.read_bytes()
    messages, at = [], 0
    while at < len(data):
        if at + _RECORD.size > len(data):
            raise RecordingError(f"{path.name}: cut short")
        kind, size = _RECORD.unpack_from(data, at)
        at += _RECORD.size
        if kind not in (b"R", b"W") or at + size > len(data):
            raise RecordingError(f"{path.name}: not a recording")
        messages.append((kind, data[at:at + size]))
        at += size
    return messages


def cell(table: bytes, row: int, col: int) -> int:
    value: int = struct.unpack_from(">I", table, (row * COLS + col) * 4)[0]
    return value


class Script:
    """The operations and their bytes, as the floor server reads them."""

    def __init__(self, players: int, deferred: bool = False) -> None:
        self.players = players
        self.deferred = deferred  # a read flushes only its player (else every player)
        self.ops: list[tuple[int, int, int, int]] = []  # kind, player, size, offset
        self.blob = bytearray()
        self.pending = [bytearray() for _ in range(players)]
        self.chunks = [0] * players  # what serve queued for each player since its last write
        self.games = 0
        self.turns = 0

    def _bytes(self, kind: int, player: int, data: bytes) -> None:
        self.ops.append((kind, player, len(data), len(self.blob)))
        self.blob += data

    def send(self, player: int, data: bytes) -> None:
        """``data`` to ``player``: one chunk of serve's outbox."""
        self.pending[player] += data
        self.chunks[player] += 1

    def flush(self, player: int | None = None) -> None:
        """One write per player (or to ``player`` only, and to those with ``HELD_CHUNKS``
        chunks held) of what it was sent and not yet written."""
        for number, data in enumerate(self.pending):
            if (data and player in (None, number)) or self.chunks[number] >= HELD_CHUNKS:
                self._bytes(OP_WRITE, number, bytes(data))
                data.clear()
                self.chunks[number] = 0

    def read(self, player: int, reply: bytes, checked: bool = True) -> None:
        self.flush(player if self.deferred else None)
        self._bytes(OP_READ if checked else OP_READ_ANY, player, reply)

    def game_over(self, game: int, turns: int) -> None:
        self.flush()
        self.ops.append((OP_GAME, game, turns, 0))
        self.games += 1
        self.turns += turns

    def to_bytes(self) -> bytes:
        out = bytearray(_HEADER.pack(b"DHFL", self.players, len(self.ops), len(self.blob)))
        for kind, player, size, offset in self.ops:
            out += _OP.pack(kind, player, size, 0, offset)
        return bytes(out + self.blob)


class Player:
    """One recording read in the protocol's order."""

    def __init__(self, name: str, messages: list[tuple[bytes, bytes]]) -> None:
        self.name = name
        self._messages: Iterator[tuple[bytes, bytes]] = iter(messages)

    def take(self, kind: bytes, size: int) -> bytes:
        got = next(self._messages, None)
        if got is None or got[0] != kind or len(got[1]) != size:
            what = "the end" if got is None else f"{got[0].decode()} of {len(got[1])} bytes"
            raise RecordingError(f"{self.name}: expected {kind.decode()} of {size} bytes, "
                                 f"found {what}")
        return got[1]

    def done(self) -> bool:
        return next(self._messages, None) is None


def build_script(recordings: list[list[tuple[bytes, bytes]]], deferred: bool = False
                 ) -> Script:
    """The floor script of one session from its players' recordings (any order), in the
    coalesced or the ``deferred`` write pattern."""
    by_number: dict[int, Player] = {}
    profiles: dict[int, bytes] = {}
    for index, messages in enumerate(recordings):
        player = Player(f"recording {index}", messages)
        profile = player.take(b"W", TABLE_BYTES)
        number = struct.unpack(">I", player.take(b"R", INT_BYTES))[0]
        if number in by_number or number >= len(recordings):
            raise RecordingError(f"player number {number} twice or out of range")
        by_number[number], profiles[number] = player, profile
    players = [by_number[n] for n in range(len(recordings))]
    script = Script(len(players), deferred)
    for number, profile in profiles.items():  # the k-th connection is player k
        script.read(number, profile, checked=False)
        script.send(number, struct.pack(">I", number))
        script.flush(number)  # as serve: the number goes out as the profile is read
    game, flag = 0, 0
    while flag != 2:
        game += 1
        deals = [p.take(b"R", TABLE_BYTES) for p in players]
        for number, deal in enumerate(deals):
            script.send(number, deal)
        # the daifugo's exchange table first, then the fugo's (2 cards, then 1)
        givers = sorted((n for n, d in enumerate(deals) if cell(d, 5, 1) > 0),
                        key=lambda n: -cell(deals[n], 5, 1))
        for number in givers:
            script.read(number, players[number].take(b"W", TABLE_BYTES))
        turns, flag = 0, 0
        while flag == 0:
            turns += 1
            tables = [p.take(b"R", TABLE_BYTES) for p in players]
            for number, table in enumerate(tables):
                script.send(number, table)
            movers = [n for n, t in enumerate(tables) if cell(t, 5, 2) == 1]
            if len(movers) != 1:
                raise RecordingError(f"game {game} turn {turns}: {len(movers)} players to move")
            mover = movers[0]
            script.read(mover, players[mover].take(b"W", TABLE_BYTES))
            script.send(mover, players[mover].take(b"R", INT_BYTES))
            flags = set()
            for number, p in enumerate(players):
                field = p.take(b"R", TABLE_BYTES)
                end = p.take(b"R", INT_BYTES)
                script.send(number, field + end)  # serve's one chunk (plain 20070)
                flags.add(struct.unpack(">I", end)[0])
            if len(flags) != 1:
                raise RecordingError(f"game {game} turn {turns}: end flags {sorted(flags)}")
            flag = flags.pop()
        script.game_over(game, turns)
    if not all(p.done() for p in players):
        raise RecordingError("messages after the end of the match")
    return script


def read_script(data: bytes) -> tuple[int, list[tuple[int, int, int, bytes]]]:
    """The players and the operations of a script (:meth:`Script.to_bytes`), each as (kind,
    player, size, its bytes), as ``floor_server.c`` reads them: the Python replays of
    :mod:`daihinmin.bench.floor_py` use this."""
    if len(data) < _HEADER.size:
        raise RecordingError("not a floor script")
    magic, players, count, blob_size = _HEADER.unpack_from(data)
    blob = _HEADER.size + count * _OP.size
    if magic != b"DHFL" or not 0 < players <= 16 or blob + blob_size != len(data):
        raise RecordingError("not a floor script, or one cut short")
    ops = []
    for kind, player, size, _, offset in _OP.iter_unpack(data[_HEADER.size:blob]):
        if kind == OP_GAME:  # (player: the game's number; size: its turns)
            ops.append((kind, player, size, b""))
            continue
        if player >= players or offset + size > blob_size:
            raise RecordingError("an operation points outside the script")
        ops.append((kind, player, size, data[blob + offset:blob + offset + size]))
    return players, ops


def write_script(recordings: list[Path], out: Path, deferred: bool = False) -> Script:
    """Build the script from the ``--record`` files and write it to ``out``."""
    script = build_script([read_recording(path) for path in recordings], deferred)
    out.write_bytes(script.to_bytes())
    return script
