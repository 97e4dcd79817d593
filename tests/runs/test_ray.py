"""Tournaments on a real Ray cluster (a head and a second node) in a loopback-only namespace.

The same tournament on Ray and on this machine's cores holds the same games, game for game
(in process and over TCP); a driver killed with SIGKILL is resumed on Ray to the same games;
a Ray worker killed while it plays a match costs an attempt, never a game counted twice; no
socket of the cluster, the drivers or the bots is bound to or connected to anything but
loopback.  One cluster for the module (Ray starts slowly on a busy machine).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daihinmin.bench.cluster import LoopbackCluster, can_unshare, not_loopback
from daihinmin.tournament.store import TournamentStore
from results_db import committed_games

# one cluster for the module: under xdist every test of it runs in the same worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray-cluster")]

CLI = [sys.executable, "-m", "daihinmin.tools", "tournament"]
BOTS = ["--bot", "default", "--bot", "random", "--bot", "greedy", "--bot", "default2013",
        "--bot", "weakest"]
# 5 matches of 20 games (one table of five, each rotation once): long enough to be killed
IN_PROCESS = [*BOTS, "--games", "100", "--games-per-match", "20", "--seed", "11",
              "--in-process"]
TCP = [*BOTS, "--games", "6", "--games-per-match", "2", "--no-duplicate", "--seed", "5"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LoopbackCluster]:
    why = can_unshare()
    if why is not None:
        pytest.skip(f"a Ray cluster here needs a private network namespace: {why}")
    c = LoopbackCluster(nodes=2, cpus=1)
    try:
        yield c
    finally:
        c.stop()


def ray_args(c: LoopbackCluster) -> list[str]:
    return ["--backend", "ray", "--address", c.address]


def games_of(path: Path) -> list:
    store = TournamentStore(path)
    try:
        return store.game_results()
    finally:
        store.close()


def attempts_of(path: Path) -> int:
    store = TournamentStore(path)
    try:
        return int(store.con.execute("SELECT SUM(attempts) FROM matches").fetchone()[0])
    finally:
        store.close()


def local(args: list[str], db: Path) -> list:
    proc = subprocess.run([*CLI, *args, "--db", str(db), "--json"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return games_of(db)


def on_ray(c: LoopbackCluster, args: list[str], db: Path) -> dict:
    proc = c.run([*CLI, *args, "--db", str(db), *ray_args(c), "--json"], timeout=300)
    assert proc.returncode == 0, proc.stderr
    report: dict = json.loads(proc.stdout)
    return report


@pytest.fixture(scope="module")
def local_in_process(tmp_path_factory: pytest.TempPathFactory) -> list:
    return local(IN_PROCESS, tmp_path_factory.mktemp("local") / "t.sqlite")


def test_in_process_on_ray_plays_the_local_games_and_sends_the_logs_back(
        cluster: LoopbackCluster, local_in_process: list, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    report = on_ray(cluster, [*IN_PROCESS, "--log-dir", str(logs)], tmp_path / "r.sqlite")
    assert report["run"]["backend"] == "ray" and report["run"]["failed_matches"] == 0
    assert games_of(tmp_path / "r.sqlite") == local_in_process
    assert len(local_in_process) == 100
    names = sorted(p.name for p in logs.iterdir())
    assert names == [f"match-{m:05d}.jsonl" for m in range(5)]
    check = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", "--verify",
                            str(logs / names[2])], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_tcp_tables_on_ray_play_the_local_games(cluster: LoopbackCluster,
                                                tmp_path: Path) -> None:
    expected = local([*TCP, "--jobs", "1"], tmp_path / "local.sqlite")
    report = on_ray(cluster, TCP, tmp_path / "r.sqlite")
    assert report["run"]["failed_matches"] == 0
    assert games_of(tmp_path / "r.sqlite") == expected and len(expected) == 6


def start_on_ray(c: LoopbackCluster, db: Path) -> subprocess.Popen[bytes]:
    return c.popen([*CLI, *IN_PROCESS, "--db", str(db), *ray_args(c), "--json"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_games(proc: subprocess.Popen[bytes], db: Path, games: int) -> None:
    deadline = time.monotonic() + 240
    while committed_games(db) < games:
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)


def test_a_driver_killed_midway_resumes_on_ray_to_the_same_games_on_loopback_only(
        cluster: LoopbackCluster, local_in_process: list, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = start_on_ray(cluster, db)
    try:
        wait_for_games(proc, db, 30)
        sockets = cluster.sockets()  # the cluster, the driver and its tasks, while they play
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert sockets and not_loopback(sockets) == []
    assert 30 <= committed_games(db) < 100
    deadline = time.monotonic() + 120
    while cluster.task_workers("play_task"):  # the cluster ends the dead driver's tasks
        assert time.monotonic() < deadline, "the killed driver's tasks play on"
        time.sleep(0.2)
    report = on_ray(cluster, ["--resume"], db)
    assert report["matches"] == {"done": 5}
    assert games_of(db) == local_in_process


def test_a_killed_ray_worker_costs_an_attempt_and_no_game_is_counted_twice(
        cluster: LoopbackCluster, local_in_process: list, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = start_on_ray(cluster, db)
    try:
        wait_for_games(proc, db, 1)
        killed = 0
        while not killed:
            assert proc.poll() is None, "finished before a worker could be killed"
            for pid in cluster.task_workers("play_task")[:1]:
                os.kill(pid, signal.SIGKILL)
                killed = pid
            time.sleep(0.02)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and out, err.decode()[-3000:]
    report = json.loads(out)
    assert report["run"]["retried_attempts"] >= 1
    # an attempt counts in the database once its start reached the driver (it may be lost
    # before that): never more than the matches and the lost attempts
    assert 5 <= attempts_of(db) <= 5 + report["run"]["retried_attempts"]
    assert games_of(db) == local_in_process


def test_without_ray_the_backend_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['ray'] = None; from daihinmin.tools.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "tournament", *BOTS, "--games", "5",
                           "--db", str(tmp_path / "t.sqlite"), "--backend", "ray"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("daihinmin tournament: --backend ray needs Ray on this "
                                   "machine: pip install 'daihinmin[ray]'")
    assert not (tmp_path / "t.sqlite").exists()


def test_the_socket_check_sees_what_is_not_loopback() -> None:
    assert not_loopback(["tcp LISTEN 0 128 127.0.0.1:6379 0.0.0.0:*",
                          "tcp ESTAB 0 0 [::ffff:127.0.0.1]:41 [::ffff:127.0.0.1]:6379",
                          "tcp ESTAB 0 0 [::1]:41 [::1]:6379"]) == []
    assert not_loopback(["tcp LISTEN 0 128 0.0.0.0:8000 0.0.0.0:*",
                          "udp ESTAB 0 0 10.0.0.2:5353 8.8.8.8:53",
                          "tcp LISTEN 0 128 *:8000 *:*"]) == [
        "tcp LISTEN 0 128 0.0.0.0:8000 0.0.0.0:*", "udp ESTAB 0 0 10.0.0.2:5353 8.8.8.8:53",
        "tcp LISTEN 0 128 *:8000 *:*"]


def test_match_jobs_on_ray_plays_the_local_tables_and_sends_their_logs_back(
        cluster: LoopbackCluster, tmp_path: Path) -> None:
    from daihinmin.records.matchlog import read_match_log
    from daihinmin.records.replay import verify_log

    match = [sys.executable, "-m", "daihinmin.tools", "match", "default", "random", "greedy",
             "weakest", "default2013", "--games", "6", "--seed", "4", "--jobs", "2", "--json"]
    here = subprocess.run([*match, "--log", str(tmp_path / "l.jsonl")], capture_output=True,
                          text=True, timeout=300)
    assert here.returncode == 0, here.stderr
    there = cluster.run([*match, "--log", str(tmp_path / "r.jsonl"), *ray_args(cluster)])
    assert there.returncode == 0, there.stderr
    local, ray = json.loads(here.stdout), json.loads(there.stdout)
    assert ray["logs"] == [str(tmp_path / "r.t1.jsonl"), str(tmp_path / "r.t2.jsonl")]
    for key in ("games", "totals", "ranking"):
        assert ray[key] == local[key]
    def played(report: dict) -> list:  # each table's results (not its timings)
        return [[(p["points"], p["places"], p["status"]) for p in t["players"]]
                for t in report["tables"]]

    assert played(ray) == played(local)
    for t in ray["tables"]:
        loaded = read_match_log(Path(t["log"]))
        assert verify_log(loaded).complete and len(loaded.games) == t["games"] == 3


def test_duplicate_on_ray_gives_the_local_figures(cluster: LoopbackCluster) -> None:
    duplicate = [sys.executable, "-m", "daihinmin.tools", "duplicate", "--a", "weakest",
                 "--b", "default", "--positions", "4", "--warm-games", "0", "--jobs", "2",
                 "--json"]
    here = subprocess.run(duplicate, capture_output=True, text=True, timeout=300)
    assert here.returncode == 0, here.stderr
    there = cluster.run([*duplicate, *ray_args(cluster)])
    assert there.returncode == 0, there.stderr
    local, ray = json.loads(here.stdout), json.loads(there.stdout)
    local.pop("wall_s")
    ray.pop("wall_s")
    assert ray == local and sum(local["places_a"]) == 4


SPECTATOR = """
import json, sys, urllib.request
import trio
from trio_websocket import open_websocket_url
url = sys.argv[1]
with urllib.request.urlopen(url + "/api/tables") as page:
    tables = json.loads(page.read())["tables"]
feed = next(t["id"] for t in tables if t["mode"] == "live tournament")
async def last():
    async with open_websocket_url(f"ws://{url[len('http://'):]}/ws/{feed}") as ws:
        return json.loads(await ws.get_message())
print(json.dumps(trio.run(last)))
"""


def test_publish_works_unchanged_on_ray(cluster: LoopbackCluster, tmp_path: Path) -> None:
    import re

    web = cluster.popen([sys.executable, "-m", "daihinmin.tools", "web", "--port", "0"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert web.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", web.stdout.readline().decode())
        assert found
        url = found.group(1)
        # the next line is the publish address with the token the app printed
        publish = re.search(r"--publish '([^']+)'", web.stdout.readline().decode())
        assert publish, "no publish address printed"
        report = on_ray(cluster, ["--bot", "random", "--bot", "greedy", "--games", "4",
                                  "--games-per-match", "2", "--no-duplicate", "--in-process",
                                  "--publish", publish.group(1)], tmp_path / "r.sqlite")
        seen = cluster.run([sys.executable, "-c", SPECTATOR, url], timeout=120)
    finally:
        web.terminate()
        web.communicate(timeout=30)
    assert seen.returncode == 0, seen.stderr
    last = json.loads(seen.stdout)
    assert last["status"] == "over"
    assert last["tournament"]["done"] == last["tournament"]["total"] == report["games"] == 4


def test_without_an_address_the_run_starts_its_own_cluster_on_loopback(
        cluster: LoopbackCluster, local_in_process: list, tmp_path: Path) -> None:
    """(A namespace of its own: the one-machine cluster of the run, nothing else.)"""
    db = tmp_path / "own.sqlite"
    argv = [*CLI, *IN_PROCESS, "--db", str(db), "--backend", "ray", "--json"]
    proc = subprocess.run(["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"',
                           "sh", *argv], capture_output=True, text=True, timeout=300,
                          env={**cluster.env, "RAY_TMPDIR": cluster.temp})  # its files there
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run"]["backend"] == "ray"
    assert games_of(db) == local_in_process


def test_a_program_missing_on_the_node_fails_its_matches_with_the_reason(
        cluster: LoopbackCluster, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = cluster.run([*CLI, "--bot", "random", "--bot", "greedy", "--cmd",
                        "gone=/nonexistent/bot {host} {port}", "--games", "2",
                        "--games-per-match", "1", "--no-duplicate", "--db", str(db),
                        *ray_args(cluster), "--json"])
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert list(report["matches"]) == ["failed"] and report["games"] == 0
    store = TournamentStore(db)
    try:
        errors = [why for _, why in store.failures()]
    finally:
        store.close()
    assert errors and all("stand-in" in why and "could not start" in why and
                          "/nonexistent/bot" in why for why in errors), errors
