"""The web application: pages, a small JSON API and one websocket per open page.

Starlette makes the ASGI app (routing, static files, websockets; it runs on Trio through
AnyIO) and Hypercorn serves it with its Trio worker, so the tables, the bots' worker threads
and the connections all live in one Trio nursery, like the match server.

Routes: ``/`` (the menu and the table page), ``/t/ID`` (a table), ``/watch`` (live tables),
``/replay`` (open a match log), ``/api/...``, ``/ws/ID?token=T`` (a page of a table: a seat
when the token is a seat's, else a spectator) and ``/ws/publish`` (a running serve/match
publishing its table, see :mod:`daihinmin.watch.publish`).
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
from importlib.resources import files
from pathlib import Path
from typing import Any

import trio
from daihinmin.rules.ruleset import RuleConfigError
from daihinmin.values.cards import card_name
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .feeds import MAX_FEEDS, MAX_PUBLISHED, Feed, FeedError, forget_ended
from .page_snapshot import snapshot
from .seats import BadAnswerError, cards_of
from .settings import level_bot, presets_json, table_games, table_rules
from .tables import Lobby, Table, TableError
from .watched import json_object

log = logging.getLogger("daihinmin.web")

STATIC = files("daihinmin.web") / "static"
MAX_MESSAGE = 4096  # bytes: every message of a page is small
CLOSE_REFUSED = 4409  # the seat is open in another page
CLOSE_NOT_FOUND = 4404


def page() -> HTMLResponse:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))


def error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > 64 * 1024:
        raise TableError("the request is too large")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise TableError("the request is not JSON") from None
    if not isinstance(data, dict):
        raise TableError("the request must be a JSON object")
    return data


class WebApp:
    """Handlers bound to one :class:`Lobby`."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    # --- HTTP ---------------------------------------------------------------------------------
    async def table_page(self, request: Request) -> Response:
        table_id = request.path_params["table"]
        if self.lobby.get(table_id) is None and table_id not in self.lobby.feeds:
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        return page()

    async def presets(self, request: Request) -> JSONResponse:
        return JSONResponse(presets_json())

    async def tables(self, request: Request) -> JSONResponse:
        feeds = [f.listing() for f in self.lobby.feeds.values()]
        return JSONResponse({"tables": feeds + self.lobby.listing()})

    async def create(self, request: Request) -> JSONResponse:
        try:
            data = await read_json(request)
            rules = table_rules(data)
            games = table_games(data)
            level = str(data.get("level", "intermediate"))
            kind = level_bot(level, rules)
            table, host = self.lobby.create(str(data.get("mode", "cpu")), rules, games, level,
                                            kind, data.get("name", ""))
        except (RuleConfigError, TableError) as exc:
            return error(str(exc))
        return JSONResponse({"table": table.id, "token": host.token, "player": host.number,
                             "url": f"/t/{table.id}"})

    async def join(self, request: Request) -> JSONResponse:
        table = self.lobby.get(request.path_params["table"])
        if table is None:
            return error("there is no such table (it may have ended with the server)", 404)
        try:
            data = await read_json(request)
            place = table.claim(data.get("name", ""))
        except TableError as exc:
            return error(str(exc), 409)
        return JSONResponse({"table": table.id, "token": place.token, "player": place.number})

    # --- the websocket ------------------------------------------------------------------------
    async def publish(self, ws: WebSocket) -> None:
        """A running serve/match publishing its table (``--publish``)."""
        await ws.accept()
        try:
            feed = Feed.from_hello(secrets.token_urlsafe(6), await ws.receive_text())
        except (FeedError, WebSocketDisconnect, KeyError, RuntimeError) as exc:
            await refuse(ws, f"not a publisher: {exc}", CLOSE_NOT_FOUND)
            return
        if sum(f.status == "playing" for f in self.lobby.feeds.values()) >= MAX_FEEDS:
            await refuse(ws, f"this web app shows {MAX_FEEDS} published tables already",
                         CLOSE_REFUSED)
            return
        self.lobby.feeds[feed.id] = feed
        try:
            while True:
                try:
                    text = await ws.receive_text()
                except (WebSocketDisconnect, KeyError, RuntimeError):
                    return
                try:
                    feed.update(text)
                except FeedError as exc:
                    await ws.send_json({"type": "error", "text": str(exc)})
        finally:
            feed.ended()
            forget_ended(self.lobby.feeds)

    async def watch_feed(self, ws: WebSocket, feed: Feed) -> None:
        """A spectator of a published table: every new snapshot, nothing taken in."""
        async with trio.open_nursery() as nursery:
            async def send_states() -> None:
                seen = -1
                while True:
                    await feed.wait_change(seen)
                    seen = feed.version
                    if feed.latest:
                        await ws.send_json(feed.latest)

            nursery.start_soon(send_states)
            while True:
                try:
                    await ws.receive_text()
                except (WebSocketDisconnect, KeyError, RuntimeError):
                    break
                await ws.send_json({"type": "error",
                                    "text": "you are watching this table: you hold no seat"})
            nursery.cancel_scope.cancel()

    async def socket(self, ws: WebSocket) -> None:
        await ws.accept()
        feed = self.lobby.feeds.get(ws.path_params["table"])
        if feed is not None:
            await self.watch_feed(ws, feed)
            return
        table = self.lobby.get(ws.path_params["table"])
        if table is None:
            await refuse(ws, "there is no such table (it may have ended with the server)",
                         CLOSE_NOT_FOUND)
            return
        token = ws.query_params.get("token") or None
        places = [p for p in table.places if token and p.token == token]
        if token and not places:
            await refuse(ws, "this link's seat is not at this table; you can watch instead",
                         CLOSE_NOT_FOUND)
            return
        if places and places[0].connections:
            await refuse(ws, "this seat is already open in another tab or window; close that "
                         "one first", CLOSE_REFUSED)
            return
        for place in places:
            place.connections += 1
            if place.person is not None:
                place.person.connect()
        table.changed()
        page = Page(table, ws, token if places else None)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(page.send_states)
                await page.receive()
                nursery.cancel_scope.cancel()
        finally:
            for place in places:
                place.connections -= 1
                if place.person is not None and not place.connections:
                    place.person.disconnect()
            table.changed()


async def refuse(ws: WebSocket, text: str, code: int) -> None:
    await ws.send_json({"type": "refused", "text": text})
    await ws.close(code)


class Page:
    """One open page of a table: sends snapshots, takes the page's messages."""

    def __init__(self, table: Table, ws: WebSocket, token: str | None) -> None:
        self.table = table
        self.ws = ws
        self.token = token
        self.lock = trio.Lock()  # one message at a time on the socket

    def viewer(self) -> tuple[int | None, bool]:
        """(the player whose hand this page shows, whether a curtain hides it)."""
        table = self.table
        if self.token is None:
            return None, False
        if table.mode == "hotseat":
            asked = table.hot_seat_player()
            if asked is not None and table.revealed == asked:
                return asked, False
            return None, asked is not None
        place = table.place_of(self.token)
        return (place.number if place else None), False

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.ws.send_json(message)

    async def send_states(self) -> None:
        seen = -1
        while True:
            await self.table.wait_change(seen)
            seen = self.table.version
            player, curtain = self.viewer()
            state = snapshot(self.table, player, curtain)
            if curtain:
                asked = self.table.hot_seat_player()
                state["curtain_for"] = None if asked is None else self.table.places[asked].name
            await self.send(state)

    async def receive(self) -> None:
        while True:
            try:
                text = await self.ws.receive_text()
            except (WebSocketDisconnect, KeyError, RuntimeError):
                return  # closed (KeyError/RuntimeError: a frame that was not text)
            try:
                reply = self.handle(text)
            except (BadAnswerError, TableError) as exc:
                reply = {"type": "error", "text": str(exc)}
            except Exception:  # a bug answering one page must not cost it its seat
                log.exception("table %s: cannot answer %r", self.table.id, text[:200])
                reply = {"type": "error", "text": "the server could not answer that message"}
            if reply is not None:
                await self.send(reply)

    def handle(self, text: str) -> dict[str, Any] | None:
        message = json_object(text, MAX_MESSAGE, BadAnswerError)
        kind = message.get("type")
        table = self.table
        if kind == "start":
            table.start(self.token)
            return None
        if kind == "reveal":
            table.reveal(self.token)
            return None
        if kind in ("play", "exchange", "choose", "explain"):
            person = self.person()
            if kind == "explain":
                return {"type": "explain", "text": explain(person, message.get("cards"))}
            person.answer(message.get("prompt"), message)
            return None
        raise BadAnswerError(f"unknown message type {kind!r}")

    def person(self) -> Any:
        if self.token is None:
            raise BadAnswerError("you are watching this table: you hold no seat")
        player, curtain = self.viewer()
        if curtain:
            raise BadAnswerError("lift the curtain first")
        place = self.table.places[player] if player is not None else None
        if place is None or place.person is None:
            raise BadAnswerError("nothing is asked of you now (not your turn)")
        return place.person


def explain(person: Any, cards_value: object) -> str:
    """Why the selected cards are not a legal play now (the terminal game's words)."""
    from daihinmin.players.human import InputError, parse_move

    prompt = person.prompt
    if prompt is None or prompt.kind != "play":
        raise BadAnswerError("nothing to play now (not your turn)")
    cards = cards_of(cards_value)
    if not cards:
        return "select the cards you want to play"
    text = " ".join(card_name(c) for c in cards)
    try:
        move = parse_move(text, prompt.moves, prompt.view)
    except InputError as exc:
        return str(exc)
    return f"{move} is a legal play"


NOT_FOUND_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>No such table</title><link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml"></head>
<body><main class="notice"><h1>No such table</h1>
<p>This table does not exist: the link may be mistyped, or the server was restarted.</p>
<p><a href="/">Start a new game</a> or <a href="/watch">watch the live tables</a>.</p>
</main></body></html>"""


def build_app(lobby: Lobby) -> Starlette:
    app = WebApp(lobby)

    async def index(request: Request) -> Response:
        return page()

    return Starlette(routes=[
        Route("/", index), Route("/watch", index), Route("/replay", index),
        Route("/t/{table}", app.table_page), Route("/favicon.ico", favicon),
        Route("/api/presets", app.presets), Route("/api/tables", app.tables),
        Route("/api/tables/new", app.create, methods=["POST"]),
        Route("/api/tables/{table}/join", app.join, methods=["POST"]),
        Route("/api/replay", replay_upload, methods=["POST"]),
        WebSocketRoute("/ws/publish", app.publish),
        WebSocketRoute("/ws/{table}", app.socket),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ])


async def favicon(request: Request) -> Response:
    """Browsers ask for /favicon.ico whatever the page links: the same small SVG."""
    return Response((STATIC / "favicon.svg").read_bytes(), media_type="image/svg+xml")


async def replay_upload(request: Request) -> JSONResponse:
    """A match log sent by the replay page, re-simulated into frames to step through."""
    from .replay_frames import LogFramesError, frames_from_text

    body = await request.body()
    try:
        return JSONResponse(frames_from_text(body.decode("utf-8", "replace")))
    except LogFramesError as exc:
        return error(str(exc))


async def serve(host: str, port: int, *, cpu_delay: float = 0.6, log_dir: Path | None = None,
                seed: int | None = None,
                task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve until cancelled; ``task_status`` gets the address (``http://host:port``)."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.websocket_max_message_size = MAX_PUBLISHED
    config.accesslog = None
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, cpu_delay=cpu_delay, log_dir=log_dir)
        if seed is not None:
            seeds = itertools.count(seed)
            lobby.seed_source = lambda: next(seeds)
        binds = await nursery.start(hypercorn_serve, build_app(lobby), config)
        task_status.started(binds[0])


__all__ = ["build_app", "serve"]
