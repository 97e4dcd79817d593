"""A complete bot in a few lines: play the first legal move, pass when there is none.

Run it against a server on this machine with ``python -m daihinmin.client.example``.
"""

from daihinmin.client import Bot, GameView, run_bot
from daihinmin.values.moves import PASS, Move


class FirstMoveBot(Bot):
    name = "first"

    def play(self, view: GameView) -> Move:
        plays = view.legal_plays()  # every play the rules allow now (pass not included)
        return plays[0] if plays else PASS


if __name__ == "__main__":
    record = run_bot(FirstMoveBot(), "127.0.0.1", 42485)
    print(f"player {record.player}: {record.games} games, places {record.places}")
