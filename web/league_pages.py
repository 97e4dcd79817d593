"""The league's pages: the leaderboard, each entrant's page, and each match's replay.

Everything is read from the league's database (read-only; the league process is its only
writer): ``/league`` (the board), ``/league/e/ID`` (an entrant), ``/league/m/ID`` (a match
in the replay viewer), and their JSON: ``/api/league/standings`` (``?since=VERSION``
answers ``{"unchanged": true}`` while nothing changed: the pages poll it every two
seconds), ``/api/league/entrants/ID``, ``/api/league/matches/ID/replay``, and the exports
``/api/league/export.json`` and ``/api/league/export.csv`` (the same numbers as the board).

Error output (the faults' details: crashes with the end of stderr, timeouts) is shown to the
host only, a request carrying the key the league printed (``?key=``, kept by the page), unless
the config says ``show_errors = "all"``.  Names are data: the pages only ever set them as
text.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import OrderedDict
from importlib.resources import files
from pathlib import Path
from typing import Any

import trio
from daihinmin.league.standings import Leaderboard, leaderboard
from daihinmin.league.store import LeagueStore, LeagueStoreError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .client_left import EndsQuietly

STATIC = files("daihinmin.web") / "static"
MATCHES_SHOWN = 200  # an entrant's page lists its newest matches
REPLAYS_KEPT = 16  # replays of ended matches kept ready (each is re-simulated once)


class LeagueData:
    """The database as the pages read it: one read-only connection, the board cached per
    version of the database."""

    def __init__(self, db: Path, host_key: str, show_errors: bool, name: str) -> None:
        self.db = db
        self.host_key = host_key
        self.show_errors = show_errors
        self.name = name
        self.lock = trio.Lock()
        self.store: LeagueStore | None = None
        self.cached: Leaderboard | None = None
        self.cached_at = 0.0
        self.took = 0.0  # seconds the last board took to compute
        self.replays: OrderedDict[tuple[int, str, str], dict[str, Any]] = OrderedDict()

    def open(self) -> LeagueStore:
        if self.store is None:
            self.store = LeagueStore.reader(self.db)
        return self.store

    def board(self) -> Leaderboard:
        """The board of the database's newest version; a big league's fit takes a while, so
        it is redone at most every other of its own durations (the pages lag, never pile up)."""
        store = self.open()
        now = time.monotonic()
        if self.cached is not None and now - self.cached_at < 2 * self.took:
            return self.cached
        version = store.version()
        if self.cached is None or self.cached.version != version:
            self.cached = leaderboard(store, self.name)
            self.took = time.monotonic() - now
            self.cached_at = time.monotonic()
        return self.cached

    async def run(self, fn: Any, *args: Any) -> Any:
        async with self.lock:
            return await trio.to_thread.run_sync(fn, *args)

    def is_host(self, request: Request) -> bool:
        key = request.headers.get("x-league-key") or request.query_params.get("key") or ""
        return secrets.compare_digest(key.encode(), self.host_key.encode())

    def entrant(self, entrant_id: int, errors: bool) -> dict[str, Any] | None:
        store = self.open()
        board = self.board()
        row = next((r for r in board.rows if r.id == entrant_id), None)
        if row is None:
            return None
        names = {e.id: e.name if e.kind == "house" else e.label for e in store.entrants()}
        matches = []
        for mid, lineup, status, error, finished, log in store.con.execute(
                "SELECT m.id, m.lineup, m.status, m.error, m.finished_at, m.log_path FROM"
                " matches m WHERE m.status IN ('done', 'failed') AND EXISTS (SELECT 1 FROM"
                " json_each(m.lineup) WHERE value = ?) ORDER BY m.finished_at DESC, m.id DESC"
                " LIMIT ?", (entrant_id, MATCHES_SHOWN)):
            seats = json.loads(lineup)
            totals = [0] * len(seats)
            for player, points in store.con.execute(
                    "SELECT player, SUM(points) FROM results WHERE match_id = ? GROUP BY player",
                    (mid,)):
                totals[player] = int(points)
            order = sorted(range(len(seats)), key=lambda p: -totals[p])
            mine = [p for p in range(len(seats)) if seats[p] == entrant_id]
            matches.append({
                "match": mid, "status": status, "finished_at": finished,
                "players": [{"entrant": e, "name": names.get(e, "?"), "points": totals[p]}
                            for p, e in enumerate(seats)],
                "points": sum(totals[p] for p in mine) if status == "done" else None,
                "place": (min(order.index(p) for p in mine) + 1) if status == "done" else None,
                "replay": bool(log) and Path(log).is_file(),
                "error": error if errors or status != "failed" else
                ("failed: a stand-in had to play" if error else None)})
        faults = []
        if errors:
            faults = [{"match": m, "attempt": a, "status": s, "counts": json.loads(c),
                       "stand_in": by, "detail": d, "at": at}
                      for m, a, s, c, by, d, at in store.con.execute(
                          "SELECT match_id, attempt, status, counts, stand_in, detail, at FROM"
                          " faults WHERE entrant = ? ORDER BY at DESC LIMIT 100", (entrant_id,))]
        events = [{"at": at, "text": text} for at, text in store.con.execute(
            "SELECT at, text FROM events WHERE entrant = ? ORDER BY id DESC LIMIT 50",
            (entrant_id,))]
        return {"entrant": row.__dict__, "matches": matches, "errors_shown": errors,
                "entry_output": store.detail(entrant_id) if errors else None,
                "faults": faults, "events": events, "version": board.version}

    def replay(self, match_id: int) -> dict[str, Any] | None:
        """The match's frames, its players named as the board names them (the log holds the
        names the programs sent)."""
        from daihinmin.records.errors import MatchLogError
        from daihinmin.records.matchlog import read_match_log

        from .replay_frames import LogFramesError, frames

        store = self.open()
        row = store.con.execute("SELECT log_path, status, lineup FROM matches WHERE id = ?",
                                (match_id,)).fetchone()
        if row is None or not row[0] or not Path(row[0]).is_file():
            return None
        key = (match_id, row[0], row[1])
        if key in self.replays:  # a match's log does not change once it ended
            self.replays.move_to_end(key)
            return self.replays[key]
        names = {e.id: e.name if e.kind == "house" else e.label for e in store.entrants()}
        lineup = json.loads(row[2])
        try:
            log = read_match_log(Path(row[0]))
        except MatchLogError as exc:
            raise LogFramesError(str(exc)) from exc
        for player in log.players:
            if 0 <= player.number < len(lineup):
                player.name = names.get(lineup[player.number], player.name)
        data = frames(log)
        data["league_match"] = match_id
        data["status"] = row[1]
        if row[1] in ("done", "failed"):
            self.replays[key] = data
            while len(self.replays) > REPLAYS_KEPT:
                self.replays.popitem(last=False)
        return data


def page() -> HTMLResponse:
    return HTMLResponse((STATIC / "league.html").read_text(encoding="utf-8"),
                        headers={"Cache-Control": "no-store"})


def league_routes(data: LeagueData) -> list[Route]:
    async def board_page(request: Request) -> Response:
        return page()

    async def standings(request: Request) -> Response:
        try:
            board = await data.run(data.board)
        except LeagueStoreError as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        if request.query_params.get("since") == board.version:
            return JSONResponse({"unchanged": True, "version": board.version})
        out = board.to_json()
        out["host"] = data.is_host(request)
        return JSONResponse(out)

    async def entrant(request: Request) -> Response:
        try:
            eid = int(request.path_params["entrant"])
        except ValueError:
            return JSONResponse({"error": "no such entrant"}, status_code=404)
        errors = data.show_errors or data.is_host(request)
        out = await data.run(data.entrant, eid, errors)
        if out is None:
            return JSONResponse({"error": "no such entrant"}, status_code=404)
        return JSONResponse(out)

    async def replay(request: Request) -> Response:
        from .replay_frames import LogFramesError

        try:
            mid = int(request.path_params["match"])
            out = await data.run(data.replay, mid)
        except ValueError:
            return JSONResponse({"error": "no such match"}, status_code=404)
        except LogFramesError as exc:
            return JSONResponse({"error": str(exc)}, status_code=422)
        if out is None:
            return JSONResponse({"error": "this match has no log"}, status_code=404)
        return JSONResponse(out)

    async def export_json(request: Request) -> Response:
        board = await data.run(data.board)
        return JSONResponse(board.to_json())

    async def export_csv(request: Request) -> Response:
        board = await data.run(data.board)
        return PlainTextResponse(board.to_csv(), media_type="text/csv")

    return [
        Route("/league", board_page), Route("/league/e/{entrant}", board_page),
        Route("/league/m/{match}", board_page),
        Route("/api/league/standings", standings),
        Route("/api/league/entrants/{entrant}", entrant),
        Route("/api/league/matches/{match}/replay", replay),
        Route("/api/league/export.json", export_json),
        Route("/api/league/export.csv", export_csv),
    ]


def build_league_app(data: LeagueData) -> Starlette:
    from starlette.responses import RedirectResponse

    async def index(request: Request) -> Response:
        return RedirectResponse("/league")

    return Starlette(routes=[Route("/", index), *league_routes(data),
                             Mount("/static", app=StaticFiles(directory=str(STATIC)))])


async def serve_league(db: Path, port: int, host_key: str, show_errors: bool, name: str,
                       task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the league's pages on 127.0.0.1 until cancelled (``task_status``: the URL)."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    data = LeagueData(db, host_key, show_errors, name)
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(hypercorn_serve, EndsQuietly(build_league_app(data)),
                                   config)
        task_status.started(binds[0])


__all__ = ["LeagueData", "build_league_app", "league_routes", "serve_league"]
