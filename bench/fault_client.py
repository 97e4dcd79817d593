"""A misbehaving UECda client, to test that a server survives bad, slow, dead and hostile players.

``daihinmin fault-client MODE --host H --port P [--at N]`` plays a normal
client (the bundled ``default`` bot over :class:`~daihinmin.client.ClientProtocol`) and
misbehaves at its ``N``-th reply (1 = the first move or exchange table it sends; with
``--on move`` or ``--on exchange`` only those replies are counted):

========================  ==========================================================
``ok``                    never misbehaves
``crash``                 exits with code 3 instead of replying (a crashed process)
``hang``                  stops replying; still reads (and drops) what comes, until closed
``deaf``                  stops replying and stops reading (the server's writes back up)
``slow``                  sends that reply ``--delay`` seconds late, then plays on
``slow-all``              sends every reply from the ``N``-th on ``--delay`` seconds late
``garbage``               sends a table of random bytes instead, then plays on
``junk-after``            sends the reply followed by 7 bytes nobody asked for
``half``                  sends half the table, then nothing more (reads until closed)
``half-late``             sends half the table, the rest ``--delay`` seconds later
``illegal``               sends a card it does not hold
``flood``                 sends 64 KiB of garbage instead
``hang-handshake``        connects and never sends its profile
``half-profile``          sends half a profile, then nothing
``disconnect-exchange``   closes the connection when it is asked for its exchange table
``chaos``                 each reply misbehaves with probability ``--rate`` (soak tests)
========================  ==========================================================

Exit status: 0 when the match ended or the server closed the connection (expected once
the server hands the seat over), 3 for ``crash``, 1 for anything unexpected.  The last line
on stderr says what the client did (``fault_client: <mode>: ...``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import socket
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from daihinmin.client.errors import ClientError, ServerClosedError, ServerTimeoutError
from daihinmin.client.protocol import ClientProtocol, Step
from daihinmin.client.sync_runner import connect, recv_exactly
from daihinmin.players.registry import make_bot
from daihinmin.protocol.codec import build_exchange, build_move, build_profile
from daihinmin.protocol.table import TABLE_BYTES
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import Move

MODES = ("ok", "crash", "hang", "deaf", "slow", "slow-all", "garbage", "junk-after", "half",
         "half-late", "illegal", "flood", "hang-handshake", "half-profile",
         "disconnect-exchange", "chaos")
# What ``chaos`` picks from, with weights: the stream survives all but the last three.
CHAOS_FAULTS = {"slow": 6, "garbage": 6, "junk-after": 4, "half-late": 4, "illegal": 6,
                "crash": 1, "hang": 1, "flood": 1}
CRASH_CODE = 3
FLOOD_BYTES = 64 * 1024
DEAF_RECEIVE_BUFFER = 4096


class Stop(Exception):
    """The client stops playing (it has hung, gone deaf or left on purpose)."""


@dataclass
class Plan:
    mode: str
    at: int = 1
    delay: float = 1.0
    rate: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    on: str = "any"  # count only replies of this kind ("move", "exchange") for ``at``
    replies: int = 0  # replies made so far (of the kind counted)
    done: Counter[str] = field(default_factory=Counter)  # faults injected, by kind

    def fault_for(self, kind: str) -> str:
        """The fault for this reply (``ok`` when it should be sent as it is)."""
        if self.on not in ("any", kind):
            return "ok"
        self.replies += 1
        if self.mode == "chaos":
            if self.rng.random() >= self.rate:
                return "ok"
            names = list(CHAOS_FAULTS)
            return self.rng.choices(names, [CHAOS_FAULTS[n] for n in names])[0]
        if self.mode == "disconnect-exchange":
            return self.mode if kind == "exchange" else "ok"
        if self.mode == "slow-all":
            return "slow" if self.replies >= self.at else "ok"
        return self.mode if self.replies == self.at else "ok"


def drain(sock: socket.socket) -> None:
    """Read and drop everything until the server closes (a client that stopped replying)."""
    sock.settimeout(None)
    with contextlib.suppress(OSError):
        while sock.recv(65536):
            pass


def not_held(hand: CardSet, rng: random.Random) -> Move:
    """A single card the player does not hold: the server must reject it."""
    missing = [c for c in range(4, 56) if c not in hand]
    return Move.single(rng.choice(missing))


def send_reply(sock: socket.socket, plan: Plan, reply: bytes, kind: str,
               hand: CardSet) -> None:
    fault = plan.fault_for(kind)
    if fault != "ok":
        plan.done[fault] += 1
        print(f"fault_client: reply {plan.replies} ({kind}): {fault}", file=sys.stderr,
              flush=True)
    if fault == "ok":
        sock.sendall(reply)
    elif fault == "crash":
        os._exit(CRASH_CODE)
    elif fault in ("hang", "disconnect-exchange"):
        raise Stop(fault)
    elif fault == "deaf":
        time.sleep(3600)
        raise Stop(fault)
    elif fault == "slow":
        time.sleep(plan.delay)
        sock.sendall(reply)
    elif fault == "garbage":
        sock.sendall(bytes(plan.rng.randrange(256) for _ in range(TABLE_BYTES)))
    elif fault == "junk-after":
        sock.sendall(reply + b"\x01\x02\x03\x04\x05\x06\x07")
    elif fault == "half":
        sock.sendall(reply[:TABLE_BYTES // 2])
        raise Stop(fault)
    elif fault == "half-late":
        sock.sendall(reply[:TABLE_BYTES // 2])
        time.sleep(plan.delay)
        sock.sendall(reply[TABLE_BYTES // 2:])
    elif fault == "illegal":  # a move of a card not held; an exchange of one card too many
        sock.sendall(build_move(not_held(hand, plan.rng)).to_bytes() if kind == "move"
                     else build_exchange(hand).to_bytes())
    elif fault == "flood":
        sock.sendall(bytes(plan.rng.randrange(3, 256) for _ in range(FLOOD_BYTES)))
        raise Stop(fault)
    else:
        raise ValueError(f"unknown fault {fault!r}")


def play(host: str, port: int, plan: Plan, name: str, read_timeout: float) -> str:
    """Play until the match ends, the server closes, or the plan stops the client."""
    sock = connect(host, port, 10.0)
    if plan.mode == "deaf":  # a small window, so the server's writes back up quickly
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, DEAF_RECEIVE_BUFFER)
    with sock:
        if plan.mode == "hang-handshake":
            drain(sock)
            return "never sent a profile; the server closed the connection"
        if plan.mode == "half-profile":
            sock.sendall(build_profile(name).to_bytes()[:TABLE_BYTES // 2])
            drain(sock)
            return "sent half a profile; the server closed the connection"
        proto = ClientProtocol(make_bot("default"), name=name, check_moves=False)
        sock.sendall(proto.initiate())
        sock.settimeout(read_timeout)
        try:
            while not proto.done:
                exp = proto.expecting
                data = recv_exactly(sock, exp.size, exp.what, read_timeout)
                kind = "exchange" if exp.step is Step.DEAL else "move"
                for reply in proto.receive(data):
                    hand = proto.game.hand if proto.game is not None else EMPTY
                    send_reply(sock, plan, reply, kind, hand)
        except Stop as stop:
            if str(stop) != "disconnect-exchange":
                drain(sock)
            return f"stopped ({stop}) after {plan.replies} replies"
        except ServerClosedError as exc:
            return f"the server closed the connection: {exc}"
        return f"match over after {proto.record.games} games, {plan.replies} replies"


def main(argv: list[str] | None = None, prog: str = "daihinmin fault-client",
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Run the tool on ``argv``; ``daihinmin`` passes its ``prog`` and its help
    ``formatter`` (how the command line shows help: plain text, defaults said)."""
    p = argparse.ArgumentParser(prog=prog,
                                description=__doc__,
                                formatter_class=formatter)
    p.add_argument("mode", choices=MODES)
    p.add_argument("--host", default="127.0.0.1", help="the server's address")
    p.add_argument("--port", type=int, required=True, help="the server's port (required)")
    p.add_argument("--at", type=int, default=1, help="misbehave at this reply (1-based)")
    p.add_argument("--on", choices=["any", "move", "exchange"], default="any",
                   help="count only this kind of reply for --at")
    p.add_argument("--delay", type=float, default=1.0, help="seconds late (slow modes)")
    p.add_argument("--rate", type=float, default=0.05, help="chaos: fault probability")
    p.add_argument("--seed", type=int, default=0, help="seed of the faults' random choices")
    p.add_argument("--name", default=None,
                   help="the name sent to the server (default: one naming the fault)")
    p.add_argument("--read-timeout", type=float, default=120.0,
                   help="give up when the server is silent this long")
    args = p.parse_args(argv)
    plan = Plan(args.mode, args.at, args.delay, args.rate, random.Random(args.seed), args.on)
    try:
        outcome = play(args.host, args.port, plan, args.name or args.mode[:14],
                       args.read_timeout)
    except (ServerTimeoutError, ClientError, OSError) as exc:
        print(f"fault_client: {args.mode}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    injected = ", ".join(f"{k} x{n}" for k, n in sorted(plan.done.items())) or "none"
    print(f"fault_client: {args.mode}: {outcome}; faults: {injected}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
