"""A complete bot: it sheds as many cards as it can, weakest first, and passes otherwise.

Copy this file and change ``play`` (and, if you like, ``exchange``). Run it against any
UECda server, or let ``daihinmin match`` start it (``{host}`` and ``{port}`` are filled in)::

    python examples/mybot.py --host 127.0.0.1 --port 42485
    daihinmin match --cmd 'python examples/mybot.py --host {host} --port {port}' \\
        default default default default --games 10
"""

from __future__ import annotations

import argparse

from daihinmin.client import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    PASS,
    Bot,
    CardSet,
    GameView,
    Move,
    run_bot,
)


class MyBot(Bot):
    name = "mybot"  # the name the server and the standings show

    def play(self, view: GameView) -> Move:
        """Called at each of this player's turns: return one of ``view.legal_moves()``."""
        plays = [move for move in view.legal_moves() if move != PASS]
        if not plays:
            return PASS
        # More cards first; among those the weakest (under a revolution the high ranks are).
        def weakness(move: Move) -> int:
            return move.high if view.reversed else -move.low

        return max(plays, key=lambda move: (move.size, weakness(move)))

    def exchange(self, view: GameView, count: int) -> CardSet:
        """As daifugo or fugo, the ``count`` cards handed back (here: the library's default,
        the weakest)."""
        return super().exchange(view, count)


def main() -> None:
    parser = argparse.ArgumentParser(description="MyBot: a UECda client")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    args = parser.parse_args()
    record = run_bot(MyBot(), args.host, args.port)
    print(f"{MyBot.name}: player {record.player}, {record.games} games, "
          f"places {record.places}")


if __name__ == "__main__":
    main()
