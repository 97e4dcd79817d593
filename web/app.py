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

import contextlib
import itertools
import json
import logging
import secrets
from dataclasses import dataclass
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

from .client_left import EndsQuietly
from .feeds import MAX_FEEDS, MAX_PUBLISHED, Feed, FeedError, forget_ended
from .guard import (
    BodyError,
    BodyTooLargeError,
    origin_allowed,
    own_origins,
    read_body,
    token_matches,
)
from .limits import PerClient, WebLimits
from .page_snapshot import snapshot
from .seats import BadAnswerError, cards_of
from .settings import level_bot, presets_json, table_games, table_rules
from .tables import Lobby, Table, TableError, TableLimitError
from .watched import json_object

log = logging.getLogger("daihinmin.web")

STATIC = files("daihinmin.web") / "static"
MAX_MESSAGE = 4096  # bytes: every message of a page is small
CLOSE_REFUSED = 4409  # the seat is open in another page
CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403  # publishing without the app's token
CLOSE_TOO_MANY = 4429  # too many sockets from one client address


def page() -> HTMLResponse:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))


def error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    try:
        body = await read_body(request, limit)
    except BodyTooLargeError:
        raise TableError("the request is too large") from None
    except BodyError as exc:
        raise TableError(str(exc)) from None
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise TableError("the request is not JSON") from None
    if not isinstance(data, dict):
        raise TableError("the request must be a JSON object")
    return data


def client_of(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client is not None else "?"


class FrameError(ValueError):
    """A websocket frame that is not a text frame."""


async def receive_text(ws: WebSocket) -> str | None:
    """The next text frame, None once the socket is closed; a binary frame is a
    :class:`FrameError` (answered, not a reason to drop the socket)."""
    try:
        message = await ws.receive()
    except (WebSocketDisconnect, RuntimeError):
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        raise FrameError("send text frames (JSON), not binary ones")
    return str(text)


class WebApp:
    """Handlers bound to one :class:`Lobby`: the pages and API of the app's own origins
    (``origins``); publishing with ``publish_token``."""

    def __init__(self, lobby: Lobby, origins: frozenset[str], publish_token: str) -> None:
        self.lobby = lobby
        self.limits = lobby.limits
        self.origins = origins
        self.publish_token = publish_token
        self.sockets = PerClient(self.limits.sockets_per_client)
        self.uploading = PerClient(1)  # each client: one replay upload at a time
        self.upload_slots = trio.CapacityLimiter(self.limits.uploads_at_once)

    def foreign(self, request: Request) -> JSONResponse | None:
        """The refusal of a state-changing request from another site's page, or None."""
        if origin_allowed(request, self.origins):
            return None
        return error("requests from other sites' pages are refused", 403)

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
        if (refused := self.foreign(request)) is not None:
            return refused
        try:
            data = await read_json(request, self.limits.max_body)
            rules = table_rules(data)
            games = table_games(data)
            level = str(data.get("level", "intermediate"))
            kind = level_bot(level, rules)
            table, host = self.lobby.create(str(data.get("mode", "cpu")), rules, games, level,
                                            kind, data.get("name", ""), client_of(request))
        except TableLimitError as exc:
            return error(str(exc), 429)
        except (RuleConfigError, TableError) as exc:
            return error(str(exc))
        return JSONResponse({"table": table.id, "token": host.token, "player": host.number,
                             "url": f"/t/{table.id}"})

    async def join(self, request: Request) -> JSONResponse:
        if (refused := self.foreign(request)) is not None:
            return refused
        table = self.lobby.get(request.path_params["table"])
        if table is None:
            return error("there is no such table (it may have ended with the server)", 404)
        try:
            data = await read_json(request, self.limits.max_body)
            place = table.claim(data.get("name", ""))
        except TableError as exc:
            return error(str(exc), 409)
        return JSONResponse({"table": table.id, "token": place.token, "player": place.number})

    async def replay_upload(self, request: Request) -> Response:
        """A match log sent by the replay page, re-simulated into frames to step through:
        bounded in size, frames and time, in a worker thread (the tables play on), one at a
        time per client."""
        if (refused := self.foreign(request)) is not None:
            return refused
        client = client_of(request)
        if not self.uploading.take(client):
            return error("one replay at a time: wait for the one being read", 429)
        try:
            try:
                body = await read_body(request, self.limits.max_upload)
            except BodyTooLargeError:
                return error(f"the log is larger than {self.limits.max_upload} bytes; "
                             "`daihinmin replay --html` makes a page of any log", 413)
            except BodyError as exc:
                return error(str(exc))
            async with self.upload_slots:
                return await trio.to_thread.run_sync(self.replay_json, body)
        finally:
            self.uploading.give_back(client)

    def replay_json(self, body: bytes) -> Response:
        """(In a worker thread.)  The frames as JSON bytes, or the reason there are none."""
        import time

        from .replay_frames import FramesBudget, LogFramesError, frames_from_text

        budget = FramesBudget(self.limits.max_frames,
                              time.monotonic() + self.limits.upload_seconds)
        try:
            data = frames_from_text(body.decode("utf-8", "replace"), budget)
        except LogFramesError as exc:
            return error(str(exc))
        return Response(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(),
                        media_type="application/json")

    # --- websockets: admission ------------------------------------------------------------
    async def admit(self, ws: WebSocket) -> str | None:
        """Accept a socket from an allowed origin and within its client's socket limit; the
        client address (to give back), or None when refused (closed already)."""
        if not origin_allowed(ws, self.origins):
            await ws.close(CLOSE_FORBIDDEN)  # before accepting: the handshake fails (403)
            return None
        client = client_of(ws)
        await ws.accept()
        if not self.sockets.take(client):
            await refuse(ws, f"too many open pages from your address (at most "
                             f"{self.limits.sockets_per_client})", CLOSE_TOO_MANY)
            return None
        return client

    # --- the websocket ------------------------------------------------------------------------
    async def publish(self, ws: WebSocket) -> None:
        """A running serve/match publishing its table (``--publish URL/?token=T``)."""
        client = await self.admit(ws)
        if client is None:
            return
        try:
            await self.publish_admitted(ws)
        finally:
            self.sockets.give_back(client)

    async def publish_admitted(self, ws: WebSocket) -> None:
        if not token_matches(ws.query_params.get("token"), self.publish_token):
            await refuse(ws, "publishing needs the token `daihinmin web` printed at its start: "
                             "--publish 'http://HOST:PORT/?token=TOKEN'", CLOSE_FORBIDDEN)
            return
        if sum(f.status == "playing" for f in self.lobby.feeds.values()) >= MAX_FEEDS:
            await refuse(ws, f"this web app shows {MAX_FEEDS} published tables already",
                         CLOSE_REFUSED)
            return
        hello: str | None = None
        with trio.move_on_after(self.limits.hello_seconds):
            with contextlib.suppress(FrameError):
                hello = await receive_text(ws)
        try:
            if hello is None:
                raise FeedError("no hello (a text frame) in time")
            feed = Feed.from_hello(secrets.token_urlsafe(6), hello)
        except FeedError as exc:
            await refuse(ws, f"not a publisher: {exc}", CLOSE_NOT_FOUND)
            return
        self.lobby.feeds[feed.id] = feed
        try:
            while True:
                try:
                    text = await receive_text(ws)
                    if text is None:
                        return
                    feed.update(text)
                except (FeedError, FrameError) as exc:
                    await ws.send_json({"type": "error", "text": str(exc)})
        finally:
            feed.ended()
            forget_ended(self.lobby.feeds)

    async def watch_feed(self, ws: WebSocket, feed: Feed) -> None:
        """A spectator of a published table: every new snapshot (encoded once for all its
        spectators), nothing taken in."""
        async with trio.open_nursery() as nursery:
            async def send_states() -> None:
                seen = -1
                while True:
                    await feed.wait_change(seen)
                    seen = feed.version
                    if feed.text:
                        await ws.send_text(feed.text)

            nursery.start_soon(send_states)
            while True:
                try:
                    if await receive_text(ws) is None:
                        break
                except FrameError:
                    pass
                await ws.send_json({"type": "error",
                                    "text": "you are watching this table: you hold no seat"})
            nursery.cancel_scope.cancel()

    async def socket(self, ws: WebSocket) -> None:
        client = await self.admit(ws)
        if client is None:
            return
        try:
            await self.page_socket(ws)
        finally:
            self.sockets.give_back(client)

    async def page_socket(self, ws: WebSocket) -> None:
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
        table.page_opened()
        if places:  # a seat's page came: every page shows it connected (a spectator: none)
            table.changed()
        page = Page(table, ws, token if places else None)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(page.send_states)
                await page.receive()
                nursery.cancel_scope.cancel()
        finally:
            table.page_closed()
            for place in places:
                place.connections -= 1
                if place.person is not None and not place.connections:
                    place.person.disconnect()
            if places:
                table.changed()


async def refuse(ws: WebSocket, text: str, code: int) -> None:
    await ws.send_json({"type": "refused", "text": text})
    await ws.close(code, reason=text.encode()[:120].decode(errors="ignore"))


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
            if self.token is None:  # a spectator: the one snapshot every spectator is sent
                async with self.lock:
                    await self.ws.send_text(spectator_text(self.table))
                continue
            player, curtain = self.viewer()
            state = snapshot(self.table, player, curtain)
            if curtain:
                asked = self.table.hot_seat_player()
                state["curtain_for"] = None if asked is None else self.table.places[asked].name
            await self.send(state)

    async def receive(self) -> None:
        while True:
            text: str | None = None
            try:
                text = await receive_text(self.ws)
                if text is None:
                    return
                reply = self.handle(text)
            except (BadAnswerError, TableError, FrameError) as exc:
                reply = {"type": "error", "text": str(exc)}
            except Exception:  # a bug answering one page must not cost it its seat
                log.exception("table %s: cannot answer %r", self.table.id, (text or "")[:200])
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


def spectator_text(table: Table) -> str:
    """The table as spectators see it, built and encoded once per change of the table."""
    cached = table.spectator_text
    if cached is None or cached[0] != table.version:
        cached = table.spectator_text = (table.version, json.dumps(snapshot(table, None)))
    return cached[1]


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


def build_app(lobby: Lobby, origins: frozenset[str] = frozenset(),
              publish_token: str = "") -> Starlette:
    """The app; ``origins``: the pages allowed to change state (none given: no browser
    page), ``publish_token``: what a publisher must show (empty: a secret nobody knows)."""
    app = WebApp(lobby, origins, publish_token or secrets.token_urlsafe(24))  # none: nobody

    async def index(request: Request) -> Response:
        return page()

    return Starlette(routes=[
        Route("/", index), Route("/watch", index), Route("/replay", index),
        Route("/t/{table}", app.table_page), Route("/favicon.ico", favicon),
        Route("/api/presets", app.presets), Route("/api/tables", app.tables),
        Route("/api/tables/new", app.create, methods=["POST"]),
        Route("/api/tables/{table}/join", app.join, methods=["POST"]),
        Route("/api/replay", app.replay_upload, methods=["POST"]),
        WebSocketRoute("/ws/publish", app.publish),
        WebSocketRoute("/ws/{table}", app.socket),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ])


async def favicon(request: Request) -> Response:
    """Browsers ask for /favicon.ico whatever the page links: the same small SVG."""
    return Response((STATIC / "favicon.svg").read_bytes(), media_type="image/svg+xml")


@dataclass(frozen=True)
class Served:
    """Where the app serves, and the token a publisher shows (``--publish URL/?token=T``)."""

    url: str
    publish_token: str

    @property
    def publish_url(self) -> str:
        return f"{self.url}/?token={self.publish_token}"


async def serve(host: str, port: int, *, cpu_delay: float = 0.6, log_dir: Path | None = None,
                seed: int | None = None, limits: WebLimits | None = None,
                origins: tuple[str, ...] = (), publish_token: str | None = None,
                task_status: trio.TaskStatus[Served] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve until cancelled; ``task_status`` gets the address and the publish token."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.websocket_max_message_size = MAX_PUBLISHED
    config.accesslog = None
    token = publish_token or secrets.token_urlsafe(24)
    async with trio.open_nursery() as nursery:
        lobby = Lobby(nursery, cpu_delay=cpu_delay, log_dir=log_dir, limits=limits)
        if seed is not None:
            seeds = itertools.count(seed)
            lobby.seed_source = lambda: next(seeds)
        app = Starlette()  # replaced below once the port is known
        handle = _Late(app)
        binds = await nursery.start(hypercorn_serve, EndsQuietly(handle), config)
        url = binds[0]
        bound_port = int(url.rsplit(":", 1)[1])
        handle.app = build_app(lobby, own_origins(host, bound_port, origins), token)
        nursery.start_soon(lobby.expire_forever)
        task_status.started(Served(url, token))


class _Late:
    """An ASGI app whose target is set once the server is bound (the origins name the port,
    which ``--port 0`` only knows then)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


__all__ = ["Served", "build_app", "serve"]
