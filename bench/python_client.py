"""The Python floor client of ``daihinmin bench tcp`` (kind ``python``): what any Python
client of protocol 20070 pays per game on this machine, with no bot and no checks.

It plays as ``native_client.c`` does (the weakest single card on an empty field, else
a pass; the weakest cards to give), so five of them play the native clients' very games, and
reads like the bundled bots: one blocking ``recv`` of whatever is there per wake-up, whole
messages cut from a buffer, one ``send`` per reply.  Against the bundled bot it shows how
much of a bot's cost is the Python process waking up and reading at all.

usage: python -m daihinmin.bench.python_client HOST PORT [NAME]
"""

from __future__ import annotations

import socket
import struct
import sys

ROWS, COLS = 8, 15
CELLS = ROWS * COLS
TABLE = struct.Struct(f">{CELLS}I")
INT = struct.Struct(">I")
TABLE_BYTES, INT_BYTES = TABLE.size, INT.size


def weakest(hand: tuple[int, ...], count: int) -> list[int]:
    """The ``count`` weakest plain cards of ``hand`` as a table's cells (never the joker)."""
    out = [0] * CELLS
    for col in range(1, 14):
        for row in range(4):
            if count and hand[row * COLS + col] == 1:
                out[row * COLS + col] = 1
                count -= 1
    return out


def play(sock: socket.socket, name: str) -> None:
    profile = [0] * CELLS
    profile[0] = 20070
    for i, ch in enumerate(name[:14].encode()):
        profile[COLS + i] = ch
    sock.sendall(TABLE.pack(*profile))
    buffer = b""
    need = INT_BYTES  # the player number, then the deal
    state = "number"
    while True:
        while len(buffer) < need:
            data = sock.recv(65536)
            if not data:
                raise SystemExit("bench_python_client: the server closed the connection")
            buffer += data
        message, buffer = buffer[:need], buffer[need:]
        if state == "number":
            state, need = "deal", TABLE_BYTES
        elif state == "deal":
            t = TABLE.unpack(message)
            if t[5 * COLS + 1] > 0:
                sock.sendall(TABLE.pack(*weakest(t, t[5 * COLS + 1])))
            state = "turn"
        elif state == "turn":
            t = TABLE.unpack(message)
            if t[5 * COLS + 2] == 1:
                if t[5 * COLS + 4] == 1:
                    move = weakest(t, 1)
                    if not any(move):
                        move[1] = 2  # only the joker left: lead it alone
                else:
                    move = [0] * CELLS
                sock.sendall(TABLE.pack(*move))
                state, need = "answer", INT_BYTES
            else:
                state = "field"
        elif state == "answer":
            state, need = "field", TABLE_BYTES
        elif state == "field":
            state, need = "flag", INT_BYTES
        else:
            flag = INT.unpack(message)[0]
            if flag == 2:
                return
            state, need = ("turn" if flag == 0 else "deal"), TABLE_BYTES


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m daihinmin.bench.python_client HOST PORT [NAME]",
              file=sys.stderr)
        return 2
    name = argv[2] if len(argv) > 2 else "python"
    with socket.create_connection((argv[0], int(argv[1]))) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        play(sock, name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
