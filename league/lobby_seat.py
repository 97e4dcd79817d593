"""A lobby seat at a table: ``python -m daihinmin.league.lobby_seat HOST PORT TOKEN NAME
TABLE_PORT``.

Started by the table in the seat of a lobby entrant, as a bot process would be: it asks the
lobby to send the entrant's waiting client to ``TABLE_PORT``, then stays until the client is
back in the lobby (its match is over) or the table stops it.  Exit code 0; 3 when the client
was not in the lobby (the seat then goes to a stand-in, a fault on the entrant's record).
Standard library only: it starts in a few milliseconds.
"""

from __future__ import annotations

import socket
import sys


def main(argv: list[str]) -> int:
    host, port, token, name, table_port = argv
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(f"SEAT {token} {name} {table_port}\n".encode())
        s.settimeout(None)
        f = s.makefile("r", encoding="utf-8")
        first = f.readline().strip()
        if first != "SENT":
            print(f"lobby: {name}: {first or 'no answer'}", file=sys.stderr)
            return 3
        f.readline()  # BACK (or the lobby closed): the match is over for the client
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
