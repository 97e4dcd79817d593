"""Play in a league from your own machine's client:

    python -m daihinmin.league.lobby_client --lobby 127.0.0.1:9100 --name alice \\
        --secret SECRET -- ./myclient {host} {port}

Waits in the league's lobby; for each match the league seats it in, runs the command with
``{host}`` and ``{port}`` of its table (any UECda client), waits for it to end, and goes
back to the lobby.  Stops on Ctrl-C, or when the lobby refuses it (exit code 2).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time


def wait_for_table(host: str, port: int, name: str, secret: str) -> int | None:
    """The table's port, or None when the lobby refused (it says why on stderr)."""
    with socket.create_connection((host, port), timeout=30) as s:
        s.sendall(f"LOBBY {name} {secret}\n".encode())
        s.settimeout(None)
        f = s.makefile("r", encoding="utf-8")
        for line in f:
            words = line.split()
            if words[:1] == ["WAIT"]:
                continue
            if words[:1] == ["PLAY"] and len(words) == 2:
                return int(words[1])
            print(f"lobby: {line.strip()}", file=sys.stderr)
            return None
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m daihinmin.league.lobby_client")
    p.add_argument("--lobby", required=True, metavar="HOST:PORT")
    p.add_argument("--name", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--matches", type=int, default=0, help="stop after this many (0: never)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND {host} {port}")
    args = p.parse_args(argv)
    command = [a for a in args.command if a != "--"] if args.command[:1] == ["--"] \
        else args.command
    if not command:
        p.error("give the client's command after --")
    host, _, port = args.lobby.rpartition(":")
    played = 0
    while not args.matches or played < args.matches:
        try:
            table = wait_for_table(host, int(port), args.name, args.secret)
        except OSError as exc:
            print(f"lobby: {exc}; trying again", file=sys.stderr)
            time.sleep(2)
            continue
        if table is None:
            return 2
        run = [a.replace("{host}", host).replace("{port}", str(table)) for a in command]
        subprocess.run(run, check=False)
        played += 1
    return 0


__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
