"""``tournament --publish``: the relay of table snapshots and standings, its usage errors, and
a tournament that cannot reach its web app (it plays on; its results do not change)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import PRESETS
from daihinmin.runs.views import Views
from daihinmin.tournament.live import LiveTally
from daihinmin.tournament.publish import STANDINGS_ROWS, standings_json
from daihinmin.web.feeds import KEEP_ENDED, Feed, forget_ended
from vectors import SUPPORT


def test_a_worker_relays_only_the_snapshots_that_changed() -> None:
    rules = PRESETS["uecda"]
    views = Views(show_hands=False)
    watcher = views.watch("1-1", rules, 3, ["a", "b", "c", "d", "e"],
                          {"number": 7, "key": "d0-t0-r0", "table": "1-1"})
    first = views.due()
    assert [key for key, _ in first] == ["1-1"] and views.due() == []
    setup = MatchState(rules, seed=1, games=3).setup_game()
    watcher.turn_played(setup, setup.start(), None)
    (key, latest), = views.due()
    assert key == "1-1"
    assert latest["match"]["number"] == 7 and latest["source"] == "tournament"
    assert [s["name"] for s in latest["seats"]] == ["p0 a", "p1 b", "p2 c", "p3 d", "p4 e"]
    assert all("hand" not in seat for seat in latest["seats"])
    assert views.due() == []
    # the next match of the slot replaces the watcher: a slot holds one table, not a history
    views.watch("1-1", rules, 3, ["e", "d", "c", "b", "a"], {"number": 8})
    assert len(views.watchers) == 1 and views.due()[0][1]["match"] == {"number": 8}


def test_standings_follow_the_live_tally_and_stay_bounded() -> None:
    names = [f"bot{i}" for i in range(STANDINGS_ROWS + 5)]
    tally = LiveTally(names, total_games=10, done_games=0, transport="tcp")
    tally.add_game([0, 1, 2, 3, 4], places=[4, 3, 2, 1, 0], points=[1, 2, 3, 4, 5])
    standings = standings_json(tally)
    assert standings["done"] == 1 and standings["total"] == 10
    assert len(standings["rows"]) == STANDINGS_ROWS and standings["more"] == 5
    top = standings["rows"][0]
    assert top["name"] == "bot4" and top["games"] == 1 and top["mean"] == 5.0
    assert top["first"] == 100.0 and top["mu"] > 25
    assert standings["rows"][-1]["games"] == 0 and standings["rows"][-1]["mean"] is None


def test_the_web_app_forgets_the_oldest_finished_published_tables() -> None:
    hello = json.dumps({"type": "hello", "players": 5, "games": 1})
    feeds = {str(i): Feed.from_hello(str(i), hello) for i in range(KEEP_ENDED + 10)}
    for i in range(KEEP_ENDED + 5):
        feeds[str(i)].ended()
    forget_ended(feeds)
    assert len(feeds) == KEEP_ENDED + 5
    assert "0" not in feeds and str(KEEP_ENDED + 4) in feeds  # the newest ended stay
    assert all(str(i) in feeds for i in range(KEEP_ENDED + 5, KEEP_ENDED + 10))  # live ones


def tournament(tmp_path: Path, *args: str, db: str = "t.sqlite"
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daihinmin.tools", "tournament", "--bot",
                           "random", "--bot", "weakest", "--games", "1", "--games-per-match",
                           "1", "--no-duplicate", "--jobs", "1", "--tables", "1", "--seed",
                           "5", "--db", str(tmp_path / db), "--json", *args],
                          capture_output=True, text=True, timeout=120)


def test_publish_usage_errors_create_no_database(tmp_path: Path) -> None:
    cases = [(["--publish-hands"], "--publish-hands needs --publish URL"),
             (["--publish", "ftp://127.0.0.1:1"], "--publish takes the web app's address"),
             (["--publish", "http://127.0.0.1:1", "--report"], "--report plays nothing")]
    for args, said in cases:
        done = tournament(tmp_path, *args)
        assert done.returncode == 2, done.stderr
        assert said in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "t.sqlite").exists()


def test_a_tournament_whose_web_app_is_gone_plays_on(tmp_path: Path) -> None:
    """Publishing to an address nobody listens on: one warning, the same results."""
    import socket

    with socket.socket() as free:  # a loopback port that was free a moment ago
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    done = tournament(tmp_path, "--in-process", "--publish", f"http://127.0.0.1:{port}")
    assert done.returncode == 0, done.stderr
    assert "cannot publish the table" in done.stderr and "Traceback" not in done.stderr
    plain = tournament(tmp_path, "--in-process", db="plain.sqlite")
    assert plain.returncode == 0, plain.stderr
    report, expected = json.loads(done.stdout), json.loads(plain.stdout)
    assert report["run"]["failed_matches"] == 0 and report["games"] == expected["games"] > 0
    assert report["participants"] == expected["participants"]


def test_an_in_process_tournament_publishes_each_turn_and_the_standings(tmp_path: Path) -> None:
    """In process the driver tells the worker's bots, and the table's watcher, each turn: a
    spectator of the web app (a real process) gets turn after turn, then the standings."""
    import os
    import re
    import urllib.request

    import trio
    from trio_websocket import open_websocket_url

    config = tmp_path / "t.toml"
    config.write_text('games = 2\ngames_per_match = 1\nduplicate = false\nseed = 3\n'
                      'transport = "in-process"\njobs = 1\n'
                      '[[participant]]\nname = "slow"\nbot = "web_slow_bot:SlowBot"\n'
                      '[[participant]]\nname = "rand"\nbot = "random"\n')
    web = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "web", "--port", "0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert web.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", web.stdout.readline())
        assert found, web.stderr
        url = found.group(1)
        publish = re.search(r"--publish '([^']+)'", web.stdout.readline())
        assert publish, web.stderr
        env = {**os.environ, "PYTHONPATH": str(SUPPORT)}
        run = subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "tournament",
                                str(config), "--db", str(tmp_path / "t.sqlite"), "--json",
                                "--publish", publish.group(1)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)

        def listing() -> dict[str, Any]:
            with urllib.request.urlopen(url + "/api/tables") as page:
                return json.loads(page.read())

        async def watch() -> list[dict[str, Any]]:
            feed = None
            with trio.fail_after(60):
                while feed is None:
                    tables = (await trio.to_thread.run_sync(listing))["tables"]
                    feed = next((t["id"] for t in tables if t["mode"] == "live tournament"),
                                None)
                    await trio.sleep(0.05)
                seen: list[dict[str, Any]] = []
                async with open_websocket_url(f"ws://{url[len('http://'):]}/ws/{feed}") as ws:
                    while not seen or seen[-1]["status"] == "playing":
                        seen.append(json.loads(await ws.get_message()))
                return seen

        seen = trio.run(watch)
        out, err = run.communicate(timeout=120)
    finally:
        web.terminate()
        web.wait(10)
    assert run.returncode == 0, err
    final = seen[-1]["tournament"]
    assert seen[-1]["status"] == "over" and seen[-1]["match"]["table"] == "1-1"
    assert final["done"] == final["total"] == json.loads(out)["games"] == 2
    assert {r["name"] for r in final["rows"]} == {"slow", "rand"}
    assert all("hand" not in seat for m in seen for seat in m["seats"])
    turns = {len(m["recent"]) + m["recent_from"] for m in seen if m.get("recent")}
    assert len(turns) >= 5  # turn after turn, live
