"""Reading a tournament's results database while its run is writing it."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def committed_games(path: Path) -> int:
    """Games committed so far (0 while the database is not made yet); read-only, so the
    run's one writer is never held up."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0
