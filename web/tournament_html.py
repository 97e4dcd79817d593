"""The tournament report as one HTML file: standings, ratings and points with their
intervals drawn (inline SVG), finishing-place shares and the head-to-head table.

Built from the report's JSON summary (:func:`daihinmin.tournament.report.summary_dict`),
so the page says exactly what ``--report-json`` says.  No script, no network: it opens from
disk and prints.
"""

from __future__ import annotations

import html
from typing import Any

from .app import STATIC

ROW = 28  # pixels per participant in the charts
LABEL = 170  # pixels for the names left of a chart
WIDTH = 640


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def interval_chart(title: str, rows: list[tuple[str, float | None, list[float | None] | None]],
                   unit: str) -> str:
    """A dot per participant with its interval as a bar, on one shared scale."""
    values: list[float] = [v for _, mid, ci in rows for v in (mid, *(ci or ())) if v is not None]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or 1.0
    lo, hi = lo - pad, hi + pad
    span = WIDTH - LABEL - 20

    def x(v: float) -> float:
        return LABEL + (v - lo) / (hi - lo) * span

    height = ROW * len(rows) + 40
    parts = [f'<svg class="chart" role="img" aria-label="{html.escape(title)}" '
             f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">',
             f'<title>{html.escape(title)}</title>']
    for i in range(5):  # grid lines with their values
        v = lo + (hi - lo) * i / 4
        parts.append(f'<line x1="{x(v):.1f}" y1="10" x2="{x(v):.1f}" y2="{height - 22}" '
                     'stroke="#ddd"/>')
        parts.append(f'<text x="{x(v):.1f}" y="{height - 6}" font-size="11" '
                     f'text-anchor="middle">{v:.2f}</text>')
    for i, (name, mid, ci) in enumerate(rows):
        y = 24 + i * ROW
        parts.append(f'<text x="{LABEL - 8}" y="{y + 4}" font-size="13" '
                     f'text-anchor="end">{html.escape(name)}</text>')
        if ci is not None and ci[0] is not None and ci[1] is not None:
            parts.append(f'<line class="interval" x1="{x(ci[0]):.1f}" y1="{y}" '
                         f'x2="{x(ci[1]):.1f}" y2="{y}" stroke="#1f5f3f" stroke-width="4">'
                         f'<title>{html.escape(name)}: {ci[0]:.2f} to {ci[1]:.2f} {unit}'
                         '</title></line>')
        if mid is not None:
            parts.append(f'<circle class="estimate" cx="{x(mid):.1f}" cy="{y}" r="6" '
                         f'fill="#d7a21a" stroke="#333"><title>{html.escape(name)}: '
                         f'{mid:.2f} {unit}</title></circle>')
    parts.append("</svg>")
    return "\n".join(parts)


def tournament_page(report: dict[str, Any]) -> str:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    parts = report["participants"]
    name = html.escape(str(report.get("tournament") or "tournament"))
    head = (f"<p>Rules {html.escape(str(report.get('rules')))} · "
            f"{report['games']} of {report['games_planned']} games · transport "
            f"{html.escape(str(report.get('transport')))} · intervals: 95%, bootstrap over "
            f"{report.get('clusters')} {html.escape(str(report.get('interval_unit')))}s</p>")
    notes = "".join(f"<p class='note'>note: {html.escape(n)}</p>" for n in report["notes"])
    places = max((len(p["places"]) for p in parts), default=0)
    rows = []
    same = False  # this row cannot be told apart from the one above
    for p in parts:
        elo_ci = p.get("elo_ci") or [None, None]
        points_ci = p["points_ci"] or [None, None]
        shares = "".join(f"<td>{_num(None if s is None else 100 * s, 1)}%</td>"
                         for s in p["places"])
        rows.append(f"<tr><td>{'≈' if same else ''}{p['rank']}</td>"
                    f"<th>{html.escape(p['name'])}</th>"
                    f"<td>{p['games']}</td><td>{_num(p['mean_points'])}</td>"
                    f"<td>{_num(points_ci[0])} – {_num(points_ci[1])}</td>"
                    f"<td>{_num(p.get('elo'), 0)}</td>"
                    f"<td>{_num(elo_ci[0], 0)} – {_num(elo_ci[1], 0)}</td>"
                    f"<td>{_num(p['rating'])}</td><td>{_num(p['sigma'])}</td>{shares}</tr>")
        same = p.get("told_apart_from_next") is False
    place_heads = "".join(f"<th>{j + 1}.</th>" for j in range(places))
    standings = ("<table class='standings'><tr><th>rank</th><th>participant</th>"
                 "<th>seat games</th><th>mean points</th><th>95% interval</th>"
                 "<th>rating</th><th>95% interval</th><th>online μ</th><th>σ</th>"
                 f"{place_heads}</tr>{''.join(rows)}</table>"
                 "<p>rating: a Plackett–Luce fit over every game at once (Elo scale, 0 = the "
                 "field's mean); ≈: the games cannot tell it apart from the row above. "
                 "Online μ, σ: OpenSkill, the games in schedule order.</p>")
    ratings = interval_chart("Ratings (fit over all games, Elo scale) with 95% intervals",
                             [(p["name"], p.get("elo"), p.get("elo_ci")) for p in parts],
                             "rating")
    points = interval_chart("Mean points per game with 95% intervals",
                            [(p["name"], p["mean_points"], p["points_ci"]) for p in parts],
                            "points")
    names = [p["name"] for p in parts]
    pairwise = report.get("pairwise", {})
    grid = ["<table class='pairwise'><tr><th></th>"
            + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr>"]
    for a in names:
        cells = []
        for b in names:
            cell = pairwise.get(a, {}).get(b)
            cells.append("<td>-</td>" if cell is None or cell["rate"] is None
                         else f"<td>{100 * cell['rate']:.1f}%</td>")
        grid.append(f"<tr><th>{html.escape(a)}</th>{''.join(cells)}</tr>")
    grid.append("</table>")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}: report</title>
<style>{css}</style></head>
<body><header class="top"><span class="brand">大富豪 Daihinmin tournament</span></header>
<main><h1>{name}</h1>{head}{notes}
<h2>Standings</h2>{standings}
<h2>Ratings</h2>{ratings}
<h2>Points</h2>{points}
<h2>Head to head</h2><p>Share of the shared games in which the row finished above the
column.</p>{''.join(grid)}
</main></body></html>
"""


__all__ = ["interval_chart", "tournament_page"]
