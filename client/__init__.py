"""daihinmin.client: write a bot for any UECda (protocol 20070) server.

Subclass :class:`Bot`, override :meth:`Bot.play` (and optionally :meth:`Bot.exchange`
and the ``on_*`` hooks), and hand an instance to :func:`run_bot` (blocking sockets) or
``await`` :func:`run_bot_async` (Trio).  The runner does the handshake and the message
loop, and gives the bot a :class:`GameView` of its hand, the field and what it has seen::

    from daihinmin.client import PASS, Bot, GameView, Move, run_bot

    class FirstMoveBot(Bot):
        name = "first"

        def play(self, view: GameView) -> Move:
            return view.legal_moves()[0]  # a play if there is one, else the pass

    run_bot(FirstMoveBot(), "127.0.0.1", 42485)

Everything a bot needs is importable from here: the cards and moves (:class:`CardSet`,
:class:`Move`, :data:`PASS`) and a pending 7-pass/10-discard choice
(:class:`PendingChoice`) included. ``examples/mybot.py`` is a complete bot with a command
line (``--host``, ``--port``).

Errors are specific: :class:`ServerUnreachableError`, :class:`ServerClosedError`,
:class:`ServerTimeoutError`, and :class:`UnexpectedMessageError` (a
:class:`~daihinmin.protocol.errors.ProtocolError`) for a server that sends garbage.
"""

from typing import TYPE_CHECKING

from daihinmin.contract.view import Bot, GameView, Observed
from daihinmin.rules.choices import PendingChoice
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

from .errors import (
    BotError,
    ClientError,
    ServerClosedError,
    ServerTimeoutError,
    ServerUnreachableError,
    UnexpectedMessageError,
)
from .protocol import ClientProtocol, Expect, MatchRecord, Step
from .sync_runner import DEFAULT_HOST, DEFAULT_PORT, run_bot

if TYPE_CHECKING:  # what __getattr__ gives, for the type checker (a user's too)
    from .trio_runner import run_bot_async


def __getattr__(name: str) -> object:
    # Trio is imported only by programs that use the async runner.
    if name == "run_bot_async":
        from .trio_runner import run_bot_async

        return run_bot_async
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "PASS",
    "Bot",
    "BotError",
    "CardSet",
    "ClientError",
    "ClientProtocol",
    "Expect",
    "GameView",
    "MatchRecord",
    "Move",
    "Observed",
    "PendingChoice",
    "ServerClosedError",
    "ServerTimeoutError",
    "ServerUnreachableError",
    "Step",
    "UnexpectedMessageError",
    "run_bot",
    "run_bot_async",
]
