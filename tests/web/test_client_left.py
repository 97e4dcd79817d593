"""A client that leaves while its answer is being sent ends its connection quietly.

hypercorn's trio server shuts a connection's sending side when its client goes away, outside
the lock its sends take; a send of the app meeting that raises ``trio.BusyResourceError``.
The race needs a machine busy at the wrong instant, so its effect on the app is shown here by
a server side ``send`` that raises as that one does."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from daihinmin.web.client_left import EndsQuietly
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route


def app_with(handler: Any) -> EndsQuietly:
    return EndsQuietly(Starlette(routes=[Route("/", handler)]))


SCOPE = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "root_path": "",
         "query_string": b"", "headers": [], "scheme": "http", "http_version": "1.1",
         "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5)}


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def test_a_send_into_a_closing_connection_ends_quietly() -> None:
    sent: list[str] = []

    async def closing(message: dict[str, Any]) -> None:
        sent.append(message["type"])
        if message["type"] == "http.response.body":
            raise trio.BusyResourceError("another task is currently sending data")

    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    trio.run(app_with(hello), SCOPE, receive, closing)
    assert sent == ["http.response.start", "http.response.body"]


def test_other_errors_of_the_app_still_surface() -> None:
    async def send(message: dict[str, Any]) -> None:
        pass

    async def broken(request: Any) -> PlainTextResponse:
        raise trio.BusyResourceError("the app's own misuse of a stream")  # not from a send

    with pytest.raises(trio.BusyResourceError):
        trio.run(app_with(broken), SCOPE, receive, send)
