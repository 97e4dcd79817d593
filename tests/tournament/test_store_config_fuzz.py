"""Hostile tournament inputs: TOML configs and SQLite databases, damaged or made up.

Every reader answers with the project's own errors and the CLI with exit code 2 (bad values
on the command line) or 4 (a bad input file), never a traceback; absurd sizes are refused
before anything is allocated; a damaged database and a damaged WAL are reported, not half
read (SQLite on its own drops what follows damage in the WAL without a word).
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sqlite3
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from daihinmin.tools.cli import main
from daihinmin.tournament.config import (
    ConfigFileError,
    TournamentConfigError,
    config_from_dict,
    load_config,
)
from daihinmin.tournament.stats import compute_stats
from daihinmin.tournament.store import StoreError, StoreReadError, TournamentStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
GOOD: dict[str, Any] = {"games": 20, "games_per_match": 2, "transport": "in-process", "seed": 3,
        "participant": [{"bot": "default"}, {"bot": "random"}, {"bot": "greedy"}]}


# --- TOML ----------------------------------------------------------------------------------
def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v) if v == v and abs(v) != float("inf") else "nan"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f'"{k}" = {toml_value(x)}' for k, x in v.items()) + "}"


def toml_text(d: dict[str, Any]) -> str:
    lines = [f"{k} = {toml_value(v)}" for k, v in d.items() if k != "participant"]
    for p in d.get("participant", []):
        lines.append("[[participant]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in p.items()] if isinstance(p, dict) \
            else [f"x = {toml_value(p)}"]
    return "\n".join(lines) + "\n"


scalars = (st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats()
           | st.text(max_size=10))
values = st.recursive(scalars.filter(lambda v: v is not None),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text("abcdefgkmoprstu_", max_size=8), inner,
                                        max_size=3), max_leaves=8)
KEYS = ["games", "games_per_match", "seed", "jobs", "tables", "rule", "rules", "format",
        "hero", "transport", "schedule", "duplicate", "bot_seeds", "match_timeout", "name",
        "bogus"]


@FUZZ
@given(changes=st.dictionaries(st.sampled_from(KEYS), values, max_size=3),
       participant=st.none() | st.dictionaries(st.sampled_from(["bot", "name", "options",
                                                                "command", "x"]), values,
                                               max_size=3))
def test_toml_values_of_any_type(tmp_path: Path, changes: dict[str, Any],
                                 participant: dict[str, Any] | None) -> None:
    d = {**GOOD, **changes}
    if participant is not None:
        d["participant"] = [*GOOD["participant"], participant]
    path = tmp_path / "t.toml"
    path.write_text(toml_text(d))
    with contextlib.suppress(ConfigFileError):
        load_config(path)


@FUZZ
@given(text=st.text(max_size=200) | st.binary(max_size=200))
def test_toml_text_of_any_kind(tmp_path: Path, text: str | bytes) -> None:
    path = tmp_path / "t.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "replace"))
    with contextlib.suppress(ConfigFileError):
        load_config(path)


@pytest.mark.parametrize("line", ['games = "many"', 'jobs = "x"', "rule = 5", "seed = 1.5",
                                  "games = true", "seed = -1", "match_timeout = nan",
                                  "games = 1000000000000", "participant = 5",
                                  "a = " + "[" * 5000 + "]" * 5000])
def test_wrong_types_and_bounds_in_a_file_exit_4(tmp_path: Path, line: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(line + "\n" + toml_text({k: v for k, v in GOOD.items()
                                             if k not in line.split(" ")[0]}))
    with pytest.raises(ConfigFileError):
        load_config(path)
    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert main(["tournament", str(path), "--db", str(tmp_path / "t.sqlite")]) == 4
    assert "Traceback" not in err.getvalue() and str(path) in err.getvalue()
    assert not (tmp_path / "t.sqlite").exists()


def test_a_missing_config_file_exits_4(tmp_path: Path) -> None:
    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert main(["tournament", str(tmp_path / "nofile.toml")]) == 4
    assert "cannot read" in err.getvalue()


def test_absurd_sizes_are_refused_before_allocation(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        with contextlib.redirect_stderr(io.StringIO()) as err:
            code = main(["tournament", "--bot", "default", "--bot", "random", "--in-process",
                         "--games", "1000000000000", "--db", str(tmp_path / "x.sqlite")])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 2 and "matches; at most" in err.getvalue()
    assert peak < 20 * 2**20
    with pytest.raises(TournamentConfigError, match="at most"):
        config_from_dict({**GOOD, "games_per_match": 10**9})


# --- SQLite --------------------------------------------------------------------------------
def make_store(path: Path, close: bool = True) -> TournamentStore:
    store = TournamentStore.create(path, config_from_dict(GOOD))
    for match in range(3):
        store.match_started(match)
        for g in (1, 2):
            store.record_game(match, g, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
        store.match_done(match, 0.1)
    if close:
        store.close()
    return store


def report(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["tournament", "--report", "--json", "--db", str(path)])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def clean_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "t.sqlite"
    make_store(path)
    return path


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_database_bytes(clean_db: Path, tmp_path: Path, data: st.DataObject) -> None:
    raw = bytearray(clean_db.read_bytes())
    for _ in range(data.draw(st.integers(1, 8), label="changes")):
        at = data.draw(st.integers(0, len(raw) - 1), label="offset")
        raw[at] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="cut?"):
        raw = raw[:data.draw(st.integers(0, len(raw)), label="cut at")]
    path = tmp_path / "d.sqlite"
    for old in tmp_path.glob("d.sqlite*"):
        old.unlink(missing_ok=True)  # (SQLite may have removed its -wal with the last close)
    path.write_bytes(bytes(raw))
    store = None
    with contextlib.suppress(StoreError):  # StoreReadError, or a mismatch with the config
        store = TournamentStore.resume(path, None)
        names = store.participant_names()
        compute_stats(store.games(), names, 5, resamples=20)
    if store is not None:
        store.close()


def test_a_damaged_page_exits_4(clean_db: Path, tmp_path: Path) -> None:
    raw = bytearray(clean_db.read_bytes())
    raw[4096 * 2 + 8:4096 * 2 + 400] = b"\xee" * 392  # the cells of a table page
    path = tmp_path / "p.sqlite"
    path.write_bytes(bytes(raw))
    code, text = report(path)
    assert code == 4 and "Traceback" not in text, text
    assert report(clean_db)[0] == 1  # the undamaged file reports (unfinished matches: 1)


def test_a_database_that_is_not_one_exits_4(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    code, text = report(path)
    assert code == 4 and "not a usable tournament database" in text
    with pytest.raises(StoreError):
        TournamentStore.resume(path, None)
    assert main(["tournament", "--report", "--db", str(tmp_path / "none.sqlite")]) == 4


def test_a_damaged_wal_is_reported_not_silently_dropped(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite"
    store = make_store(live, close=False)  # open: the games are still in the WAL
    crashed = tmp_path / "crashed.sqlite"
    shutil.copy(live, crashed)  # what a killed dispatcher leaves behind
    shutil.copy(f"{live}-wal", f"{crashed}-wal")
    store.close()
    intact = tmp_path / "intact.sqlite"
    shutil.copy(crashed, intact)
    shutil.copy(f"{crashed}-wal", f"{intact}-wal")
    code, text = report(intact)  # an undamaged WAL: every game is there
    assert code == 1 and '"games": 6' in text, text  # (1: matches are still to play)
    assert TournamentStore(intact).game_count() == 6
    wal = bytearray(Path(f"{crashed}-wal").read_bytes())
    page = int.from_bytes(wal[8:12], "big")
    wal[32 + 24 + page + 24 + 100] ^= 0xFF  # inside the second frame's page
    Path(f"{crashed}-wal").write_bytes(bytes(wal))
    copy = tmp_path / "copy.sqlite"  # what SQLite alone makes of it
    shutil.copy(crashed, copy)
    shutil.copy(f"{crashed}-wal", f"{copy}-wal")
    with sqlite3.connect(copy) as con:
        silently = con.execute("SELECT name FROM sqlite_master").fetchall()
    assert len(silently) < 7  # SQLite drops the damaged frame and everything after it
    code, text = report(crashed)
    assert code == 4 and "frame 2 is damaged" in text and "would be lost" in text
    with pytest.raises(StoreReadError, match=r"WAL|wal"):
        TournamentStore.resume(crashed, None)
