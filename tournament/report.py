"""The final report: a terminal table, a JSON summary and a CSV of the standings."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import IO, Any

from rich import box
from rich.console import Console
from rich.table import Table

from .run import RunSummary
from .stats import TournamentStats
from .store import MatchLogRow, ParticipantFaults, TournamentStore

TRANSPORT_LABELS = {"in-process": "in-process (bots as objects, same engine; no sockets)",
                    "tcp": "TCP (real server and bot processes)"}


def clean(x: float) -> float | None:
    """NaN (no data) as JSON null; floats rounded for reading."""
    return None if math.isnan(x) else round(x, 6)


def pair(ci: tuple[float, float] | None) -> list[float | None] | None:
    return None if ci is None else [clean(ci[0]), clean(ci[1])]


def summary_dict(stats: TournamentStats, store: TournamentStore,
                 run: RunSummary | None = None) -> dict[str, Any]:
    cfg = store.stored_config()
    specs = dict(store.con.execute("SELECT name, spec FROM participants").fetchall())
    n = len(stats.participants)
    faults = store.participant_faults()
    parts = []
    for rank, i in enumerate(stats.ranking(), 1):
        p = stats.participants[i]
        parts.append({
            "rank": rank, "name": p.name, "spec": specs.get(p.name), "games": p.games,
            "faults": faults[i].counts, "stand_in_matches": faults[i].replaced_matches,
            "rating": clean(p.mu), "sigma": clean(p.sigma), "rating_ci": pair(p.rating_ci),
            "mean_points": clean(p.mean_points), "points_ci": pair(p.points_ci),
            "places": [clean(x) for x in p.places],
            "places_ci": [pair(c) for c in p.places_ci],
        })
    names = [p.name for p in stats.participants]
    pairwise = {names[a]: {names[b]: {"above": stats.pairwise.above[a][b],
                                      "meetings": stats.pairwise.meetings[a][b],
                                      "rate": None if (r := stats.pairwise.rate(a, b)) is None
                                      else round(r, 6),
                                      "ci": pair(stats.pairwise.ci[a][b])}
                           for b in range(n) if b != a and stats.pairwise.meetings[a][b]}
                for a in range(n)}
    transports = store.transports()
    out: dict[str, Any] = {
        "tournament": cfg.name if cfg else None,
        "fingerprint": store.get_meta("fingerprint"),
        "rules": store.get_meta("rules"),
        "transport": transports[0] if len(transports) == 1 else transports,
        "games": stats.games,
        "games_planned": store.total_games(),
        "games_asked": cfg.games if cfg else None,
        "planned_note": planned_note(store),
        "lower_is_better": stats.lower_is_better,
        "stand_in_policy": STAND_IN_POLICY,
        "matches": store.counts(),
        "interval_unit": stats.cluster_unit, "clusters": stats.clusters,
        "notes": stats.notes,
        "participants": parts,
        "pairwise": pairwise,
        "match_logs": [{"match": r.match_id, "attempt": r.attempt, "path": r.path,
                        "counted": r.counted} for r in store.match_logs()],
    }
    if run is not None:
        out["run"] = {"games": run.games, "wall_seconds": round(run.wall_seconds, 3),
                      "games_per_second": round(run.games_per_second, 2),
                      "cpu_seconds_per_game": None if run.cpu_per_game is None
                      else round(run.cpu_per_game, 5),
                      "jobs": run.jobs, "tables": run.tables,
                      "failed_matches": len(run.failed)}
    return out


STAND_IN_POLICY = ("a match in which a stand-in played for a participant (it could not "
                   "start, crashed, timed out or disconnected) fails and keeps no games; "
                   "--resume retries it; the faults are kept per participant")


def planned_note(store: TournamentStore) -> str:
    """Why the plan has the games it has: whole rounds (every table of a round plays every
    rotation), so the games asked are rounded up."""
    cfg = store.stored_config()
    planned = store.total_games()
    row = store.con.execute("SELECT COUNT(*), COALESCE(MAX(games), 0), COUNT(DISTINCT"
                            " table_no), COUNT(DISTINCT rotation) FROM matches WHERE"
                            " deal_set = 0").fetchone()
    matches, per_match, tables, rotations = (int(x) for x in row)
    per_round = matches * per_match
    asked = cfg.games if cfg else planned
    text = (f"{planned:,} games planned in whole rounds of {per_round:,} ({tables} table(s)"
            f" x {rotations} rotation(s) x {per_match} games)")
    if asked != planned:
        text += f"; {asked:,} were asked, rounded up to whole rounds"
    return text


def logs_note(logs: list[MatchLogRow]) -> str | None:
    """Where the match logs are, and how many of them hold the games that count."""
    if not logs:
        return None
    folders = sorted({str(Path(r.path).parent) for r in logs})
    where = folders[0] if len(folders) == 1 else f"{len(folders)} folders"
    counted = sum(r.counted for r in logs)
    rest = len(logs) - counted
    text = f"Match logs: {len(logs)} in {where}; {counted} hold the counted games"
    if rest:
        text += f", {rest} a failed or unfinished attempt"
    return text + " (check one: daihinmin replay --verify FILE)"


def fmt_ci(ci: tuple[float, float], digits: int = 2) -> str:
    if math.isnan(ci[0]):
        return "-"
    return f"[{ci[0]:.{digits}f},{ci[1]:.{digits}f}]"


def fmt_share(share: float, ci: tuple[float, float]) -> str:
    if math.isnan(share):
        return "-"
    if math.isnan(ci[0]):
        return f"{100 * share:.1f}%"
    return f"{100 * share:.1f}±{100 * max(ci[1] - share, share - ci[0]):.1f}%"


def print_report(console: Console, stats: TournamentStats, store: TournamentStore,
                 run: RunSummary | None = None) -> None:
    transports = store.transports()
    label = ", ".join(TRANSPORT_LABELS.get(t, t) for t in transports)
    console.print(f"[bold]{stats.games:,} games[/bold] of {store.total_games():,} planned; "
                  f"transport: {label}")
    console.print(planned_note(store), highlight=False)
    if stats.lower_is_better:
        console.print("Card scoring: fewer points are better.")
    faults = store.participant_faults()
    faulty = any(f.counts for f in faults)
    standings = Table(title="Standings (rating: OpenSkill Plackett-Luce, mu ± 1.96 sigma)",
                      box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0))  # 80 columns
    for col in ("#", "participant", "games", "mean pts", "95% CI", "rating",
                "95% CI ", *(["faults"] if faulty else [])):
        standings.add_column(col, justify="left" if col in ("participant", "faults")
                             else "right", no_wrap=col != "participant")
    for rank, i in enumerate(stats.ranking(), 1):
        p = stats.participants[i]
        standings.add_row(str(rank), p.name, f"{p.games:,}", f"{p.mean_points:.3f}",
                          fmt_ci(p.points_ci, 3), f"{p.mu:.2f}", fmt_ci(p.rating_ci),
                          *([faults[i].text()] if faulty else []))
    console.print(standings)
    for i, f in enumerate(faults):
        if f.replaced_matches:
            console.print(f"[red]{stats.participants[i].name}[/red]: a stand-in played for it"
                          f" in {f.replaced_matches} match attempt(s) ({f.text()}); those "
                          "matches failed and none of their games count", highlight=False)
    places = Table(title="Places (share of seat-games, ± the wider side of the 95% CI)")
    places.add_column("participant")
    for k in range(stats.table_size):
        places.add_column(f"{k + 1}.", justify="right")
    for i in stats.ranking():
        p = stats.participants[i]
        places.add_row(p.name, *[fmt_share(s, c)
                                 for s, c in zip(p.places, p.places_ci, strict=True)])
    console.print(places)
    order = stats.ranking()
    h2h = Table(title="Head to head: row finished above column (share of shared games)")
    h2h.add_column("")
    for j in order:
        h2h.add_column(stats.participants[j].name, justify="right")
    for i in order:
        cells = []
        for j in order:
            r = stats.pairwise.rate(i, j) if i != j else None
            cells.append("-" if r is None else f"{100 * r:.1f}%")
        h2h.add_row(stats.participants[i].name, *cells)
    console.print(h2h)
    console.print(f"Intervals: cluster bootstrap over {stats.clusters:,} "
                  f"{stats.cluster_unit}s.")
    for note in stats.notes:
        console.print(f"note: {note}")
    logs = logs_note(store.match_logs())
    if logs:
        console.print(logs, highlight=False)
    failures = store.failures()
    if failures:
        console.print(f"[red]{len(failures)} failed match(es)[/red]; first: "
                      f"#{failures[0][0]}: {failures[0][1]}  (--resume retries them)")
    if run is not None and run.games:
        cpu = run.cpu_per_game or 0.0
        console.print(f"This run: {run.games:,} games in {run.wall_seconds:.1f} s = "
                      f"{run.games_per_second:.1f} games/s on {run.jobs} worker(s), "
                      f"{run.tables} table(s) at once; CPU {1000 * cpu:.1f} ms/game")


def open_output(path: str | Path, overwrite: bool) -> IO[str]:
    """A report file: never clobbered unless ``overwrite`` (server.outfile)."""
    from daihinmin.server.outfile import claim_output

    return claim_output(Path(path), what="report file", overwrite=overwrite)


def write_csv(path: str | Path, stats: TournamentStats,
              faults: list[ParticipantFaults] | None = None, overwrite: bool = False) -> None:
    k = stats.table_size
    faults = faults or [ParticipantFaults() for _ in stats.participants]
    with open_output(path, overwrite) as f:
        w = csv.writer(f)
        w.writerow(["rank", "participant", "seat_games", "mean_points", "points_lo",
                    "points_hi", "rating_mu", "rating_sigma", "rating_lo", "rating_hi",
                    *[f"place{j + 1}" for j in range(k)],
                    *[f"place{j + 1}_{e}" for j in range(k) for e in ("lo", "hi")],
                    "faults", "stand_in_matches"])
        for rank, i in enumerate(stats.ranking(), 1):
            p = stats.participants[i]
            w.writerow([rank, p.name, p.games, clean(p.mean_points), clean(p.points_ci[0]),
                        clean(p.points_ci[1]), clean(p.mu), clean(p.sigma),
                        clean(p.rating_ci[0]), clean(p.rating_ci[1]),
                        *[clean(x) for x in p.places],
                        *[clean(v) for c in p.places_ci for v in c],
                        "; ".join(f"{kind} {n}" for kind, n in sorted(faults[i].counts.items())),
                        faults[i].replaced_matches])


def write_json(path: str | Path, summary: dict[str, Any], overwrite: bool = False) -> None:
    with open_output(path, overwrite) as f:
        f.write(json.dumps(summary, indent=2) + "\n")
