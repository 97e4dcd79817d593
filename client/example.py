"""A complete bot in a few lines: play the first legal move, pass when there is none.

Run it against a server on this machine with ``python -m daihinmin.client.example``;
``examples/mybot.py`` in the repository is the same with a command line (``--host``,
``--port``), for ``daihinmin match --cmd``.
"""

from daihinmin.client import PASS, Bot, GameView, Move, run_bot


class FirstMoveBot(Bot):
    name = "first"

    def play(self, view: GameView) -> Move:
        plays = view.legal_plays()  # every play the rules allow now (pass not included)
        return plays[0] if plays else PASS


if __name__ == "__main__":
    record = run_bot(FirstMoveBot(), "127.0.0.1", 42485)
    print(f"player {record.player}: {record.games} games, places {record.places}")
