"""The tournament's text report and live view on a terminal: whatever the participants are
called and whatever their bots wrote, no control character reaches the terminal raw (it is
shown escaped) and every line fits 80 columns (long names are shortened in the middle, the
head-to-head table is split by columns).  A real results database (SQLite file) each time.
"""

from __future__ import annotations

import io
import random
import re
import tempfile
from pathlib import Path

from daihinmin.local.terminal_text import terminal_safe
from daihinmin.tournament.config import config_from_dict
from daihinmin.tournament.live import LiveTally
from daihinmin.tournament.report import fit, print_report
from daihinmin.tournament.stats import compute_stats
from daihinmin.tournament.store import TournamentStore
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

# What must never be printed raw: C0/C1 controls but the newline, DEL, bidi overrides.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

names = st.lists(st.text(min_size=1, max_size=40), min_size=2, max_size=8,
                 unique_by=lambda n: n)
hostile = st.lists(st.sampled_from(["\x1b[2J", "\x07", "\u202e", "\r", "[red]", "[/]", "\t",
                                    "x", "大", " ", "\n"]), max_size=30).map("".join)


def filled_store(folder: Path, who: list[str], error: str) -> TournamentStore:
    """Every planned game played (random places), one match failed with ``error`` as its
    message, a fault of kind ``error`` and a log path with it."""
    cfg = config_from_dict({"games": 5, "games_per_match": 1, "transport": "in-process",
                            "participant": [
                                {"name": n, "bot": "random"} for n in who]})
    store = TournamentStore.create(folder / "t.sqlite", cfg)
    rng = random.Random(len(who))
    pending = store.pending()
    for spec in pending:
        store.match_started(spec.index)
        for game in range(1, spec.games + 1):
            places = rng.sample(range(5), 5)
            store.record_game(spec.index, game, tuple(range(5)), tuple(places),
                              tuple(5 - p for p in places), 20)
        store.record_log(spec.index, str(folder / f"log{error}" / "m.jsonl"))
        store.match_done(spec.index, 0.0)
    last = pending[-1].index
    store.match_started(last)
    store.record_faults(last, [(0, "CRASHED", {error or "CRASHED": 1}, "fallback", error)])
    store.match_failed(last, f"a stand-in played: {error}")
    return store


def check_terminal_text(out: str, who: list[str]) -> None:
    assert not RAW.search(out), repr(out)
    for line in out.splitlines():
        assert cell_len(line) <= 80, line


@settings(max_examples=25, deadline=None)
@given(who=names, error=hostile)
def test_the_report_escapes_every_name_and_message_and_fits_80_columns(
        who: list[str], error: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = filled_store(Path(tmp), who, error)
        try:
            stats = compute_stats(store.games(), store.participant_names(), 5, resamples=50)
            for width in (80, 200):  # a wide terminal gets the 80-column report too
                buf = io.StringIO()
                print_report(Console(file=buf, width=width, color_system=None), stats, store)
                out = buf.getvalue()
                check_terminal_text(out, who)
                assert "failed match(es)" in out
                for name in who:  # a short name is shown whole, escaped, on one line
                    safe = terminal_safe(name, newlines=False)
                    if cell_len(safe) <= 12 and safe.strip() == safe and "  " not in safe:
                        assert safe in out, (safe, out)
        finally:
            store.close()


@settings(max_examples=25, deadline=None)
@given(who=names)
def test_the_live_view_escapes_names_and_fits_80_columns(who: list[str]) -> None:
    tally = LiveTally(who, 100, 0, "tcp")
    tally.add_game([i % len(who) for i in range(5)], [0, 1, 2, 3, 4], [5, 4, 3, 2, 1])
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(tally.render())
    check_terminal_text(buf.getvalue(), who)


@given(text=st.text(max_size=60), cells=st.integers(min_value=1, max_value=40))
def test_fit_keeps_both_ends_within_the_cells(text: str, cells: int) -> None:
    short = fit(text, cells)
    assert cell_len(short) <= max(cells, 1)
    if cell_len(text) <= cells:
        assert short == text
    else:
        head, _, tail = short.partition("…")
        assert text.startswith(head) and text.endswith(tail)
