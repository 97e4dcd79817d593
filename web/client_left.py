"""A client that leaves while its answer is being sent: its connection ends quietly.

hypercorn's trio server shuts a connection's sending side (``send_eof``) when its client goes
away, outside the lock its sends take; a send of the app that meets it raises
``trio.BusyResourceError``, which hypercorn would log as an error of the app, with its
traceback.  :class:`EndsQuietly` wraps an ASGI app so that such a send ends the connection
and nothing else; every other error of the app surfaces as before.
"""

from __future__ import annotations

from typing import Any

import trio


class ClientLeftError(Exception):
    """The connection is being closed under a send: its client went away."""


class EndsQuietly:
    """The ASGI app ``app``, for which a send into a closing connection ends the answer."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_unless_closing(message: Any) -> None:
            try:
                await send(message)
            except trio.BusyResourceError:
                raise ClientLeftError from None

        try:
            await self.app(scope, receive, send_unless_closing)
        except* ClientLeftError:
            pass  # nobody is there to answer


__all__ = ["ClientLeftError", "EndsQuietly"]
