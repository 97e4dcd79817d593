"""A scripted wire client on a plain blocking socket that checks everything the server sends.

A test helper (it lives in ``tests/``, not in the shipped packages).

It plays whole matches (random legal moves, or deliberately bad tables with ``fault_rate``),
predicts every 9/8 answer from the rules, and raises :class:`ProtocolViolation` as soon as a
server message breaks the protocol: wrong size, row 7 not 0, wrong flags, a hand that changed
unexpectedly, an answer the rules do not give.  Tests use it as an independent peer of the
server; it is also handy against any UECda server.  Run one per thread.
"""

from __future__ import annotations

import random
import socket
import sys
from dataclasses import dataclass, field

import trio
from daihinmin.protocol.codec import (
    build_exchange,
    build_move,
    build_profile,
    decode_move_table,
    read_hand,
    read_state,
)
from daihinmin.protocol.table import (
    INT_BYTES,
    PROTOCOL_20060,
    PROTOCOL_20070,
    Table,
    decode_int,
    table_size,
)
from daihinmin.rules.game import remove_from_hand
from daihinmin.rules.judge import beats, check_shape
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchObserver, MatchOutcome, MatchServer
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import PASS, Move, MoveKind


class ProtocolViolation(Exception):
    """The server sent something the protocol (or the rules) does not allow."""


@dataclass(frozen=True)
class _Judged:
    """The part of the game state the judge needs, as read from a turn table."""

    rules: RuleSet
    revolution: bool
    eleven_back: bool
    lock: bool
    field: Move | None
    geki: bool = False  # not on a 20070 table (the probe has always judged without it)
    lead_must_contain: CardSet = EMPTY


@dataclass
class SeenTurn:
    mover: int
    sent: str | None = None  # our move (str of Move, or "bad:<kind>") when we moved
    answer: int | None = None


@dataclass
class SeenGame:
    deal_hand: CardSet
    give: int
    classes: tuple[int, ...]
    seats: tuple[int, ...]
    exchange_sent: str | None = None
    turns: list[SeenTurn] = field(default_factory=list)
    end_flag: int = 0


@dataclass
class ProbeRecord:
    number: int = -1
    games: list[SeenGame] = field(default_factory=list)


def bad_move_table(kind: str, hand: CardSet, rng: random.Random) -> Table:
    """A move table the server must answer 8: malformed cells or cards not held."""
    if kind == "value3":
        return Table.zeros().with_cells({(0, 5): 3})
    if kind == "column0":
        return Table.zeros().with_cells({(1, 0): 1})
    if kind == "two_jokers":
        return Table.zeros().with_cells({(0, 4): 2, (1, 4): 2})
    if kind == "not_held":
        missing = [c for c in range(4, 56) if c not in hand]
        c = rng.choice(missing)
        return Table.zeros().with_cells({(c & 3, c >> 2): 1})
    raise ValueError(f"unknown bad table kind {kind!r}")


BAD_KINDS = ("value3", "column0", "two_jokers", "not_held")


class ProbePlayer:
    """One player over a blocking socket; :meth:`run` plays until the server ends the match."""

    def __init__(self, host: str, port: int, name: str = "probe", *,
                 version: int = PROTOCOL_20070, seed: int = 0, rules: RuleSet = UECDA,
                 fault_rate: float = 0.0, timeout: float = 60.0, strict: bool = True,
                 resumed: bool = False) -> None:
        self.host, self.port, self.name = host, port, name
        self.version = version
        self.rng = random.Random(seed)
        self.rules = rules
        self.fault_rate = fault_rate
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.record = ProbeRecord()
        self.received = bytearray()  # every byte the server sent, in order
        # Strict: predict every answer and hand from the UECda judging rules.  Presets with
        # effects the probe does not model (turn order, delayed revolution, draws, ...)
        # need strict=False: then only the message format is checked.
        self.strict = strict
        self.resumed = resumed  # a resumed match: its first game may carry classes

    # --- wire ---------------------------------------------------------------------------
    def connect(self) -> None:
        self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_bytes(self, data: bytes) -> None:
        assert self.sock is not None
        self.sock.sendall(data)

    def recv_exact(self, size: int) -> bytes:
        assert self.sock is not None
        buf = bytearray()
        while len(buf) < size:
            chunk = self.sock.recv(size - len(buf))
            if not chunk:
                raise ProtocolViolation(f"connection closed after {len(buf)} of {size} bytes")
            buf += chunk
        self.received += buf
        return bytes(buf)

    def recv_table(self) -> Table:
        table = Table.from_bytes(self.recv_exact(table_size(self.version)), self.version)
        if any(table.row(7)):
            raise ProtocolViolation(f"row 7 is not 0: {table.row(7)}")
        return table

    def recv_int(self) -> int:
        return decode_int(self.recv_exact(INT_BYTES), self.version)

    def send_table(self, table: Table) -> None:
        self.send_bytes(table.to_bytes(self.version))

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()

    # --- match ----------------------------------------------------------------------------
    def join(self) -> int:
        """Connect and hand in the profile: the player number."""
        self.connect()
        return self.handshake()

    def handshake(self, profile: bytes | None = None) -> int:
        """Send the profile (the given bytes, or one built from name/version); read the number."""
        if profile is None:
            # The profile is always a 480-byte table; only a 2006 client writes native ints.
            wire = PROTOCOL_20060 if self.version == PROTOCOL_20060 else PROTOCOL_20070
            profile = build_profile(self.name, self.version).to_bytes(wire)
        self.send_bytes(profile)
        number = self.recv_int()
        if not 0 <= number < self.rules.players:
            raise ProtocolViolation(f"player number {number} out of range")
        self.record.number = number
        return number

    def run(self) -> ProbeRecord:
        """Connect, play every game, and check the server closes after end flag 2."""
        try:
            if self.sock is None:
                self.connect()
                self.handshake()
            while True:
                flag = self.play_game()
                if flag == 2:
                    break
            assert self.sock is not None
            if self.sock.recv(1) != b"":
                raise ProtocolViolation("the server sent more after end flag 2")
        finally:
            self.close()
        return self.record

    def play_game(self) -> int:
        deal = self.recv_table()
        st = read_state(deal)
        if (st.exchange_phase, st.my_turn, st.turn_player) != (1, 0, 6):
            raise ProtocolViolation(f"bad deal table row 5: {deal.row(5)}")
        deck = 52 + self.rules.jokers
        if self.rules.hand_size == 0 and sum(st.counts) != deck:
            raise ProtocolViolation(f"deal counts {st.counts} do not add up to {deck}")
        if not self.record.games and any(st.classes) and not self.resumed:
            raise ProtocolViolation(f"classes {st.classes} in the first game")
        hand = read_hand(deal)
        me = self.record.number
        # Counts are from before the exchange; an upper class already holds what it received.
        if len(hand) != st.counts[me] + st.give:
            raise ProtocolViolation(f"deal hand has {len(hand)} cards, counts say "
                                    f"{st.counts[me]} and give {st.give}")
        game = SeenGame(hand, st.give, st.classes, st.seats)
        self.record.games.append(game)
        if st.give > 0:
            game.exchange_sent = self.send_exchange(hand, st.give)
        field: Move | None = None
        expected_hand: CardSet | None = None
        while True:
            turn = self.recv_table()
            ts = read_state(turn)
            if ts.exchange_phase != 0 or ts.give != 0:
                raise ProtocolViolation(f"bad turn table row 5: {turn.row(5)}")
            if ts.my_turn != int(ts.turn_player == me):
                raise ProtocolViolation(f"[5][2]={ts.my_turn} but the mover is "
                                        f"{ts.turn_player}, I am {me}")
            hand = read_hand(turn)
            if self.strict and expected_hand is not None and hand != expected_hand:
                raise ProtocolViolation(f"hand changed from {expected_hand} to {hand}")
            if ts.field_empty:
                field = None
            seen = SeenTurn(ts.turn_player)
            game.turns.append(seen)
            played: Move | None = None
            if ts.my_turn:
                played = self.move(turn, hand, field, seen)
            fld = self.recv_table()
            fs = read_state(fld)
            if fs.my_turn != 0 or fs.turn_player != ts.turn_player:
                raise ProtocolViolation(f"bad field table row 5: {fld.row(5)}")
            shown = decode_move_table(fld, self.rules.jokers) if not fs.field_empty else None
            if self.strict and played is not None and shown != played:
                raise ProtocolViolation(f"field shows {shown}, my accepted play was {played}")
            field = shown
            expected_hand = remove_from_hand(hand, played) if played is not None else hand
            flag = self.recv_int()
            if flag not in (0, 1, 2):
                raise ProtocolViolation(f"end flag {flag}")
            if flag:
                game.end_flag = flag
                return flag

    def send_exchange(self, hand: CardSet, count: int) -> str:
        if self.fault_rate and self.rng.random() < self.fault_rate:
            self.send_table(build_exchange(CardSet.of(list(hand)[:count + 1])))
            return "bad:count"
        cards = CardSet.of(self.rng.sample(list(hand), count))
        self.send_table(build_exchange(cards))
        return str(cards)

    def legal_moves(self, ts_hand: CardSet, field: Move | None, judged: _Judged) -> list[Move]:
        plays = [m for m in all_plays(ts_hand, self.rules)
                 if check_shape(judged, m) is None
                 and (field is None or beats(judged, m, field) is None)]
        if field is not None or self.rules.leader_may_pass:
            plays.append(PASS)
        return plays

    def move(self, turn: Table, hand: CardSet, field: Move | None,
             seen: SeenTurn) -> Move | None:
        """Send a move, check the answer; returns the play if it was accepted."""
        st = read_state(turn)
        judged = _Judged(self.rules, bool(st.revolution), bool(st.eleven_back), bool(st.lock),
                         field)
        if self.fault_rate and self.rng.random() < self.fault_rate:
            kind = self.rng.choice(BAD_KINDS)
            self.send_table(bad_move_table(kind, hand, self.rng))
            seen.sent, expected = f"bad:{kind}", 8
            move = None
        else:
            move = self.rng.choice(self.legal_moves(hand, field, judged))
            self.send_table(build_move(move))
            seen.sent = str(move)
            expected = 9 if move.kind is not MoveKind.PASS or field is None else 8
        answer = self.recv_int()
        seen.answer = answer
        if answer not in (8, 9) or (self.strict and answer != expected):
            raise ProtocolViolation(f"answer {answer} to {seen.sent} on field {field}; "
                                    f"the rules give {expected}")
        return move if move is not None and move.kind is not MoveKind.PASS else None


async def serve_probes(config: ServerConfig, probes: list[ProbePlayer],
                       observer: MatchObserver | None = None,
                       profiles: dict[int, bytes] | None = None
                       ) -> tuple[MatchOutcome, list[ProbeRecord]]:
    """Run a match in-process against ``probes`` (each in a thread, seated in list order),
    ``observer`` told what the server's observer is told; ``profiles[i]``: the profile bytes
    probe ``i`` sends (else one built from its name).

    ``config.port`` should be 0; each probe's port is set to the bound one.
    """
    server = MatchServer(config, observer)
    records: list[ProbeRecord] = []

    async def play(probe: ProbePlayer) -> None:
        records.append(await trio.to_thread.run_sync(probe.run))

    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        for index, probe in enumerate(probes):
            probe.port = port
            await trio.to_thread.run_sync(probe.connect)
            await trio.to_thread.run_sync(probe.handshake, (profiles or {}).get(index))
            nursery.start_soon(play, probe)
    assert server.outcome is not None
    records.sort(key=lambda r: r.number)
    return server.outcome, records


def probe_match(config: ServerConfig, *, first_seed: int = 0, fault_rate: float = 0.0
                ) -> tuple[MatchOutcome, list[ProbeRecord]]:
    """A whole in-process match of probes ``p0``, ``p1``, ... (seeds from ``first_seed``,
    seated in that order) with ``fault_rate``."""
    players = [ProbePlayer("127.0.0.1", 0, f"p{i}", seed=first_seed + i, fault_rate=fault_rate)
               for i in range(config.rules.players)]
    return trio.run(serve_probes, config, players)


def main(argv: list[str] | None = None) -> int:
    """``python tests/support/probe.py --port P``: play one checked player, exit 0 if clean."""
    import argparse

    parser = argparse.ArgumentParser(prog="python tests/support/probe.py")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", default="probe")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--version", type=int, default=PROTOCOL_20070)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    args = parser.parse_args(argv)
    probe = ProbePlayer(args.host, args.port, args.name, version=args.version, seed=args.seed,
                        fault_rate=args.fault_rate)
    try:
        record = probe.run()
    except (ProtocolViolation, OSError) as exc:
        print(f"probe: {exc}", file=sys.stderr)
        return 1
    print(f"probe {record.number}: {len(record.games)} games checked", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
