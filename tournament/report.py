"""The final report: a terminal table, a JSON summary and a CSV of the standings."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import IO, Any

from daihinmin.local.terminal_text import markup_safe, terminal_safe
from daihinmin.values.words import counted
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from .plan_text import plan_text
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
    order = stats.ranking()
    for rank, i in enumerate(order, 1):
        p = stats.participants[i]
        below = order[rank] if rank < len(order) else None
        parts.append({
            "elo": clean(p.elo), "elo_ci": pair(p.elo_ci),
            "told_apart_from_next": None if below is None else stats.told_apart(i, below),
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
        "games_exact": cfg.games_exact if cfg else None,
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
                      "failed_matches": len(run.failed),
                      "backend": run.backend, "retried_attempts": run.retries}
    return out


STAND_IN_POLICY = ("a match in which a stand-in played for a participant (it could not "
                   "start, crashed, timed out or disconnected) fails and keeps no games; "
                   "--resume retries it; the faults are kept per participant")


def planned_note(store: TournamentStore) -> str:
    """What the tournament in ``store`` plays and why (whole rounds, or the last one cut
    short), in one line."""
    cfg = store.stored_config()
    planned = store.total_games()
    return f"{counted(planned, 'game')} planned" if cfg is None else plan_text(cfg, planned)


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


REPORT_WIDTH = 80  # the text report fits this many columns (or a narrower terminal)


def fit(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` terminal columns: its start and end kept, ``…`` between
    (wide characters count two).

    >>> fit("participant_number_12", 12)
    'partic…er_12'
    >>> fit("大富豪大富豪", 7), fit("short", 12)
    ('大…富豪', 'short')
    """
    if cell_len(text) <= cells:
        return text
    room = max(cells - 1, 0)
    head = tail = ""
    for ch in text:  # the first half of the room
        if cell_len(head + ch) > room - room // 2:
            break
        head += ch
    for ch in reversed(text[len(head):]):
        if cell_len(head + tail + ch) > room:
            break
        tail = ch + tail
    return head + "…" + tail


def label(rank: int, name: str, cells: int) -> str:
    """A participant's row label, ``rank name``, for a rich table (escaped, fitted)."""
    prefix = f"{rank} "
    short = fit(terminal_safe(name, newlines=False), cells - len(prefix))
    return markup_safe(prefix + short)


def print_report(console: Console, stats: TournamentStats, store: TournamentStore,
                 run: RunSummary | None = None) -> None:
    """The report as text: names and every text from the database (errors, bot output) are
    shown escaped, and every line fits :data:`REPORT_WIDTH` columns."""
    console.width = min(console.width, REPORT_WIDTH)
    transports = store.transports()
    label_text = ", ".join(TRANSPORT_LABELS.get(t, t) for t in transports)
    console.print(f"[bold]{stats.games:,} games[/bold] of {store.total_games():,} planned; "
                  f"transport: {markup_safe(label_text)}")
    console.print(planned_note(store), highlight=False)
    if stats.lower_is_better:
        console.print("Card scoring: fewer points are better.")
    faults = store.participant_faults()
    faulty = any(f.counts for f in faults)
    standings = Table(title="Standings (rating: a fit over all games, Elo scale)",
                      box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0))  # 80 columns
    for col in ("#", "participant", "games", "mean pts", "95% CI", "rating",
                "95% CI ", *(["faults"] if faulty else [])):
        wraps = col in ("participant", "faults")  # a long name folds onto more lines
        standings.add_column(col, justify="left" if wraps else "right", no_wrap=not wraps,
                             overflow="fold")
    order = stats.ranking()
    for rank, i in enumerate(order, 1):
        p = stats.participants[i]
        same = rank > 1 and stats.told_apart(order[rank - 2], i) is False
        standings.add_row(f"{'≈' if same else ''}{rank}", markup_safe(p.name, newlines=False),
                          f"{p.games:,}", f"{p.mean_points:.3f}", fmt_ci(p.points_ci, 3),
                          "-" if math.isnan(p.elo) else f"{p.elo:+.0f}",
                          fmt_ci(p.elo_ci, 0), *([markup_safe(faults[i].text(), False)]
                                                 if faulty else []))
    console.print(standings)
    console.print("rating: Plackett-Luce maximum likelihood over every game at once, 0 = the "
                  "field's mean, 95% interval from its Hessian; ≈: the games cannot tell it "
                  "apart from the row above", highlight=False)
    for i, f in enumerate(faults):
        if f.replaced_matches:
            name = markup_safe(stats.participants[i].name, newlines=False)
            console.print(f"[red]{name}[/red]: a stand-in "
                          f"played for it in {counted(f.replaced_matches, 'match attempt')} "
                          f"({markup_safe(f.text())}); those matches failed and none of their"
                          " games count", highlight=False)
    print_places(console, stats)
    print_head_to_head(console, stats)
    console.print(f"Intervals: cluster bootstrap over {stats.clusters:,} "
                  f"{stats.cluster_unit}s.")
    for note in stats.notes:
        console.print(f"note: {markup_safe(note)}", highlight=False)
    logs = logs_note(store.match_logs())
    if logs:
        console.print(markup_safe(logs, newlines=False), highlight=False)
    failures = store.failures()
    if failures:
        console.print(f"[red]{len(failures)} failed match(es)[/red]; first: "
                      f"#{failures[0][0]}: {markup_safe(str(failures[0][1]))}  (--resume "
                      "retries them)", highlight=False)
    if run is not None and run.games:
        cpu = run.cpu_per_game or 0.0
        console.print(f"This run: {run.games:,} games in {run.wall_seconds:.1f} s = "
                      f"{run.games_per_second:.1f} games/s on {counted(run.jobs, 'worker')}, "
                      f"{counted(run.tables, 'table')} at once; CPU {1000 * cpu:.1f} ms/game"
                      + (" (on Ray)" if run.backend == "ray" else ""))
    if run is not None and run.retries:
        console.print(f"{counted(run.retries, 'match attempt')} lost with their Ray worker or "
                      "node and played again from their start (each match counted once)",
                      highlight=False)


def print_places(console: Console, stats: TournamentStats) -> None:
    """Place shares; the names are fitted into what the place columns leave."""
    order = stats.ranking()
    rows = [[fmt_share(s, c) for s, c in zip(stats.participants[i].places,
                                             stats.participants[i].places_ci, strict=True)]
            for i in order]
    widths = [max([len(f"{k + 1}."), *(len(r[k]) for r in rows)])
              for k in range(stats.table_size)]
    room = max(console.width - sum(w + 1 for w in widths), 8)
    places = Table(title="Places (share of seat-games, ± the wider side of the 95% CI)",
                   box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0))
    places.add_column("participant", no_wrap=True)
    for k in range(stats.table_size):
        places.add_column(f"{k + 1}.", justify="right", no_wrap=True)
    for rank, (i, row) in enumerate(zip(order, rows, strict=True), 1):
        places.add_row(label(rank, stats.participants[i].name, room), *row)
    console.print(places)


def print_head_to_head(console: Console, stats: TournamentStats) -> None:
    """Row above column, the columns named by rank; as many tables as 80 columns need."""
    order = stats.ranking()
    n = len(order)
    cell = len("100.0%")
    name_room = min(24, max(8, console.width // 3))
    per_table = max(1, (console.width - name_room - 1) // (cell + 1))
    for first in range(0, n, per_table):
        cols = range(first, min(first + per_table, n))
        title = "Head to head: share of shared games the row finished above the column"
        if n > per_table:
            title = (f"Head to head, columns {cols[0] + 1}-{cols[-1] + 1}: share of shared "
                     "games the row finished above the column")
        h2h = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0))
        h2h.add_column("", no_wrap=True)
        for c in cols:
            h2h.add_column(str(c + 1), justify="right", no_wrap=True, min_width=cell)
        for rank, i in enumerate(order, 1):
            cells = []
            for c in cols:
                r = stats.pairwise.rate(i, order[c]) if i != order[c] else None
                cells.append("-" if r is None else f"{100 * r:.1f}%")
            h2h.add_row(label(rank, stats.participants[i].name, name_room), *cells)
        console.print(h2h)


def open_output(path: str | Path, overwrite: bool) -> IO[str]:
    """A report file: never clobbered unless ``overwrite`` (server.outfile)."""
    from daihinmin.records.outfile import claim_output

    return claim_output(Path(path), what="report file", overwrite=overwrite)


def write_csv(path: str | Path, stats: TournamentStats,
              faults: list[ParticipantFaults] | None = None, overwrite: bool = False) -> None:
    k = stats.table_size
    faults = faults or [ParticipantFaults() for _ in stats.participants]
    with open_output(path, overwrite) as f:
        w = csv.writer(f)
        w.writerow(["rank", "participant", "seat_games", "mean_points", "points_lo",
                    "points_hi", "elo", "elo_lo", "elo_hi", "rating_mu", "rating_sigma",
                    "rating_lo", "rating_hi",
                    *[f"place{j + 1}" for j in range(k)],
                    *[f"place{j + 1}_{e}" for j in range(k) for e in ("lo", "hi")],
                    "faults", "stand_in_matches"])
        for rank, i in enumerate(stats.ranking(), 1):
            p = stats.participants[i]
            w.writerow([rank, p.name, p.games, clean(p.mean_points), clean(p.points_ci[0]),
                        clean(p.points_ci[1]), clean(p.elo), clean(p.elo_ci[0]),
                        clean(p.elo_ci[1]), clean(p.mu), clean(p.sigma),
                        clean(p.rating_ci[0]), clean(p.rating_ci[1]),
                        *[clean(x) for x in p.places],
                        *[clean(v) for c in p.places_ci for v in c],
                        "; ".join(f"{kind} {n}" for kind, n in sorted(faults[i].counts.items())),
                        faults[i].replaced_matches])


def write_json(path: str | Path, summary: dict[str, Any], overwrite: bool = False) -> None:
    with open_output(path, overwrite) as f:
        f.write(json.dumps(summary, indent=2) + "\n")
