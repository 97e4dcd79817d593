"""The leaderboard, computed from the database alone (the pages and the exports share it).

Every number comes from the stored games of done matches and the stored faults: the rating
is the Plackett–Luce fit over all games at once (:mod:`daihinmin.tournament.plfit`), with a
retired version held at the rating it had when it retired; mean points, the first-place share
and the games are counts over the same games; faults are counted by kind over every attempt.
Neighbours on the board that the fit cannot tell apart are marked.

The JSON and CSV exports are made from the same :class:`Leaderboard`, so they give the same
numbers as the page.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from daihinmin.tournament.plfit import PlackettLuceFit, fit_plackett_luce
from daihinmin.tournament.stats import game_ranks

from .store import CountedGame, Entrant, LeagueStore

CSV_FIELDS = ("rank", "id", "name", "version", "status", "rating", "rating_low",
              "rating_high", "games", "matches", "mean_points", "first_share", "faults",
              "last_active", "told_apart_from_next")


@dataclass
class Row:
    rank: int | None  # None: not ranked yet (no counted game)
    id: int
    name: str
    version: str
    kind: str
    status: str
    reason: str | None
    rating: float | None
    rating_low: float | None
    rating_high: float | None
    games: int
    matches: int
    mean_points: float | None
    first_share: float | None
    faults: dict[str, int]
    failed_matches: int
    last_active: float | None
    told_apart_from_next: bool | None  # None: last on the board, or unrated


@dataclass
class Leaderboard:
    rows: list[Row]
    games: int
    matches: int
    version: str
    name: str = ""
    running: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"league": self.name, "games": self.games, "matches": self.matches,
                "version": self.version, "rating_scale": "Elo (Plackett-Luce fit, 0 = field)",
                "entrants": [asdict(r) for r in self.rows], "running": self.running,
                "events": self.events}

    def to_csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in self.rows:
            d = asdict(r)
            d["faults"] = ";".join(f"{k}={v}" for k, v in sorted(r.faults.items()))
            w.writerow(["" if d[k] is None else d[k] for k in CSV_FIELDS])
        return out.getvalue()


def lower_is_better(store: LeagueStore) -> bool:
    raw = store.get_meta("config")
    if not raw:
        return False
    from daihinmin.rules.ruleset import ruleset_from
    from daihinmin.rules.scoring import lower_is_better as card_scoring

    cfg = json.loads(raw)
    try:
        return card_scoring(ruleset_from(cfg.get("rules", "uecda"), list(cfg.get("rule", []))))
    except (ValueError, AttributeError, TypeError):
        return False


def fit(games: list[CountedGame], entrants: list[Entrant],
        frozen: dict[int, tuple[float, float]], lower: bool
        ) -> tuple[PlackettLuceFit, dict[int, int]]:
    """The fit over ``games`` (entrant ids mapped to 0..n-1); retired versions anchored."""
    index = {e.id: i for i, e in enumerate(entrants)}
    data = [([index[x] for x in g.lineup], game_ranks(g.places, g.points, lower))
            for g in games]
    fixed = {index[e]: r for e, (r, _) in frozen.items() if e in index}
    result = fit_plackett_luce(data, len(entrants), fixed,
                               clusters=[g.match_id for g in games])
    for e, (_, sd) in frozen.items():  # an anchor keeps the interval it had
        if e in index:
            result.covariance[index[e], index[e]] = sd * sd
    return result, index


def entrant_rating(store: LeagueStore, entrant: int) -> tuple[float, float] | None:
    """The entrant's fitted rating and its sd now (to freeze it when it retires)."""
    entrants = store.entrants()
    games = store.counted_games()
    if not any(entrant in g.lineup for g in games):
        return None
    result, index = fit(games, entrants, store.frozen_ratings(), lower_is_better(store))
    i = index[entrant]
    return result.ratings[i], result.sd(i)


def leaderboard(store: LeagueStore, name: str = "") -> Leaderboard:
    entrants = store.entrants()
    games = store.counted_games()
    lower = lower_is_better(store)
    result, index = fit(games, entrants, store.frozen_ratings(), lower)
    n = len(entrants)
    seat_games = [0] * n
    points = [0] * n
    firsts = [0] * n
    last: list[float | None] = [None] * n
    for g in games:
        ranks = game_ranks(g.places, g.points, lower)
        best = min(ranks)
        for p, e in enumerate(g.lineup):
            i = index[e]
            seat_games[i] += 1
            points[i] += g.points[p]
            firsts[i] += ranks[p] == best
    matches = {int(e): int(k) for e, k in store.con.execute(
        "SELECT j.value, COUNT(DISTINCT m.id) FROM matches m, json_each(m.lineup) j"
        " WHERE m.status = 'done' GROUP BY j.value")}
    failed = {int(e): int(k) for e, k in store.con.execute(
        "SELECT entrant, COUNT(DISTINCT match_id) FROM faults WHERE stand_in IS NOT NULL"
        " GROUP BY entrant")}
    for e, at in store.con.execute(
            "SELECT j.value, MAX(m.finished_at) FROM matches m, json_each(m.lineup) j"
            " WHERE m.status IN ('done', 'failed') GROUP BY j.value"):
        if int(e) in index:
            last[index[int(e)]] = float(at) if at is not None else None
    faults: list[dict[str, int]] = [{} for _ in range(n)]
    for e, status, counts in store.con.execute("SELECT entrant, status, counts FROM faults"):
        f = faults[index[int(e)]]
        for kind, k in (json.loads(counts) or {status: 1}).items():
            f[kind] = f.get(kind, 0) + int(k)
    rated = [i for i in range(n) if seat_games[i] > 0]
    sign = 1 if lower else -1
    order = sorted(rated, key=lambda i: (-result.ratings[i], sign * points[i] / seat_games[i],
                                         entrants[i].id))
    order += [i for i in range(n) if seat_games[i] == 0]
    rows = []
    for pos, i in enumerate(order):
        who = entrants[i]
        n_games = seat_games[i]
        lo, hi = result.interval(i) if n_games else (math.nan, math.nan)
        nxt = order[pos + 1] if pos + 1 < len(order) else None
        apart = (result.apart(i, nxt) if n_games and nxt is not None and seat_games[nxt]
                 else None)
        rows.append(Row(
            rank=pos + 1 if n_games else None, id=who.id, name=who.name, version=who.version,
            kind=who.kind, status=who.status, reason=who.reason,
            rating=round(result.ratings[i], 1) if n_games else None,
            rating_low=round(lo, 1) if n_games else None,
            rating_high=round(hi, 1) if n_games else None,
            games=n_games, matches=matches.get(who.id, 0),
            mean_points=round(points[i] / n_games, 4) if n_games else None,
            first_share=round(firsts[i] / n_games, 4) if n_games else None, faults=faults[i],
            failed_matches=failed.get(who.id, 0), last_active=last[i],
            told_apart_from_next=apart))
    running = [{"match": r[0], "lineup": json.loads(r[1]), "started_at": r[2]}
               for r in store.con.execute(
                   "SELECT id, lineup, started_at FROM matches WHERE status = 'running'"
                   " ORDER BY id")]
    events = [{"at": r[0], "entrant": r[1], "text": r[2]} for r in store.con.execute(
        "SELECT at, entrant, text FROM events ORDER BY id DESC LIMIT 20")]
    return Leaderboard(rows, games=len(games), matches=store.done_matches(),
                       version=store.version(), name=name, running=running, events=events)


__all__ = ["CSV_FIELDS", "Leaderboard", "Row", "entrant_rating", "fit", "leaderboard"]
