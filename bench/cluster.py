"""``daihinmin bench cluster``: tournaments on a Ray cluster of this machine, and the driver's
own throughput.

Measures, in one run: games per second on one Ray node and on two (each node one CPU), in
process and over TCP; Ray's overhead per match against the local run at 100 games a match;
and how many games a second the driver stores (and rates live) when the tables return at
once (:class:`InstantRun`, a synthetic run: no game is played), so how many nodes of this
machine's speed one driver could feed.  Every figure comes with the load average (the
machine may be shared).

The cluster runs in a private network namespace that has only loopback (``unshare --net``,
root only), the driver and its bots with it: Ray left to itself looks up its own address
towards a public resolver and may listen beyond loopback, and this benchmark must not.
:class:`LoopbackCluster` is that cluster (the tests use it too); it ends exactly the
processes of its namespace, by their ids.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HEAD_PORT = 6379  # free: the namespace is new
START_TIMEOUT = 240.0  # `ray start` on a busy 2-core machine
BOTS = ["default", "random", "greedy", "default2013", "weakest"]


def can_unshare() -> str | None:
    """Why no loopback-only namespace can be made here (None: it can)."""
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (util-linux, iproute2)"
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
    if probe.returncode != 0:
        return f"unshare --net is not allowed here: {probe.stderr.decode().strip()}"
    return None


class LoopbackCluster:
    """Ray nodes of ``cpus`` CPUs each in a fresh loopback-only network namespace; commands
    run in it through :meth:`run`/:meth:`popen`.  Token authentication, one token for the
    cluster and its drivers."""

    def __init__(self, nodes: int = 2, cpus: int = 1) -> None:
        self.ray = str(Path(sys.executable).with_name("ray"))
        self.env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
                    "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.cpus = cpus
        self.nodes = 0
        self.temp = tempfile.mkdtemp(prefix="dh-ray-", dir="/tmp")  # short: socket paths
        self.holder = subprocess.Popen(
            ["unshare", "--net", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
            stdout=subprocess.PIPE, text=True)
        assert self.holder.stdout is not None
        if self.holder.stdout.readline().strip() != "up":
            self.holder.wait()
            raise RuntimeError("could not make a loopback-only network namespace")
        self.netns = os.readlink(f"/proc/{self.holder.pid}/ns/net")
        self.address = f"127.0.0.1:{HEAD_PORT}"
        try:
            for _ in range(nodes):
                self.add_node()
        except BaseException:
            self.stop()
            raise

    def add_node(self) -> None:
        """The head first, then nodes that join it (each its own range of worker ports)."""
        low = 20000 + 1000 * self.nodes
        ports = ["--min-worker-port", str(low), "--max-worker-port", str(low + 999)]
        if self.nodes == 0:
            where = ["--head", "--port", str(HEAD_PORT), "--include-dashboard=false",
                     "--disable-usage-stats", "--temp-dir", self.temp]
        else:
            where = ["--address", self.address]
        proc = self.run([self.ray, "start", "--node-ip-address", "127.0.0.1", *where, *ports,
                         "--num-cpus", str(self.cpus)], timeout=START_TIMEOUT)
        if proc.returncode != 0:
            raise RuntimeError(f"ray start failed: {(proc.stdout + proc.stderr)[-2000:]}")
        self.nodes += 1

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["nsenter", f"--net=/proc/{self.holder.pid}/ns/net", "--", *argv]

    def run(self, argv: Sequence[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              timeout=timeout, env=self.env)

    def popen(self, argv: Sequence[str], stdout: Any = None,
              stderr: Any = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(self.command(argv), env=self.env, stdout=stdout, stderr=stderr)

    def sockets(self) -> list[str]:
        """Every TCP and UDP socket of the namespace, as ``ss -Htuan`` shows them."""
        return self.run(["ss", "-Htuan"], timeout=60).stdout.splitlines()

    def pids(self) -> list[int]:
        """The processes in the namespace (the cluster, the drivers, their bots)."""
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/ns/net") == self.netns:
                        out.append(int(entry))
        return out

    def task_workers(self, function: str) -> list[int]:
        """Ray workers running a task of that function now (``ray::NAME`` process title)."""
        found = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(
                        f"ray::{function}".encode()):
                    found.append(pid)
        return found

    def stop(self) -> None:
        """End every process of the namespace (SIGTERM, then SIGKILL), then the namespace."""
        for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 10.0)):
            for pid in self.pids():
                if pid != self.holder.pid:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and set(self.pids()) - {self.holder.pid}:
                time.sleep(0.2)
        self.holder.kill()
        self.holder.wait()
        if self.holder.stdout is not None:
            self.holder.stdout.close()
        shutil.rmtree(self.temp, ignore_errors=True)


def not_loopback(lines: list[str]) -> list[str]:
    """The ``ss -Htuan`` lines with an address that is not loopback (a listener's peer may be
    the wildcard; its own address may not).

    >>> not_loopback(["tcp LISTEN 0 128 127.0.0.1:6379 0.0.0.0:*",
    ...               "tcp ESTAB 0 0 [::ffff:127.0.0.1]:41 [::1]:6379",
    ...               "tcp LISTEN 0 128 0.0.0.0:8000 0.0.0.0:*"])
    ['tcp LISTEN 0 128 0.0.0.0:8000 0.0.0.0:*']
    """
    bad = []
    for line in lines:
        fields = line.split()
        local, peer = fields[4], fields[5]
        wildcard = peer.rsplit(":", 1)[0] in ("*", "0.0.0.0", "[::]")
        if not is_loopback(local) or not (is_loopback(peer) or wildcard):
            bad.append(line)
    return bad


def is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].split("%")[0].strip("[]")
    host = host.removeprefix("::ffff:")
    return host.startswith("127.") or host == "::1"


# --- the driver alone: a synthetic run whose tables return at once ---------------------------


class InstantRun:
    """A :class:`~daihinmin.runs.backend.Run` that "plays" each match at once: random
    places, no game (the benchmark of the driver only, never a tournament's result)."""

    def __init__(self, players: int, seed: int = 1) -> None:
        self.players = players
        self.rng = random.Random(seed)
        self.specs: deque[Any] = deque()

    @property
    def tables(self) -> int:
        return 1

    def start(self, tasks: Sequence[Any]) -> None:
        self.specs.extend(tasks)

    def poll(self, timeout: float) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        seats = tuple(range(self.players))
        for _ in range(min(20, len(self.specs))):
            spec = self.specs.popleft()
            out.append(("started", spec.id))
            for game in range(1, spec.games + 1):
                places = list(seats)
                self.rng.shuffle(places)
                points = tuple(self.players - 1 - q for q in places)
                out.append(("game", spec.id, game, seats, tuple(places), points, 40))
            out.append(("done", spec.id, 0.0))
        return out

    @property
    def finished(self) -> bool:
        return not self.specs

    def crashed(self) -> list[tuple[int, int | None]]:
        return []

    def interrupt(self, signum: int) -> None:
        self.specs.clear()

    def stop(self) -> None:
        self.specs.clear()

    def join(self) -> None:
        pass


def driver_throughput(games: int, live: bool) -> dict[str, Any]:
    """Games a second the dispatcher stores (and, ``live``, rates as the live view does)
    from an :class:`InstantRun`; then the seconds of the final report's ratings."""
    from daihinmin.rules.scoring import lower_is_better
    from daihinmin.runs.backend import Run
    from daihinmin.tournament.config import TournamentConfig, parse_bot_arg, unique_names
    from daihinmin.tournament.live import LiveTally
    from daihinmin.tournament.run import Dispatcher
    from daihinmin.tournament.stats import compute_stats
    from daihinmin.tournament.store import TournamentStore

    class InstantDispatcher(Dispatcher):
        def open_run(self, pending: int) -> Run:
            self.summary.jobs = self.summary.tables = 1
            return InstantRun(5)

    cfg = TournamentConfig(participants=unique_names([parse_bot_arg(b) for b in BOTS]),
                           games=games, games_per_match=100, transport="in-process")
    with tempfile.TemporaryDirectory() as tmp:
        store = TournamentStore.create(Path(tmp) / "instant.sqlite", cfg)
        try:
            tally = None
            if live:
                tally = LiveTally(store.participant_names(), store.total_games(), 0,
                                  cfg.transport, lower_is_better(cfg.ruleset()))
            summary = InstantDispatcher(store, cfg, tally).run(store.pending())
            started = time.perf_counter()
            compute_stats(store.games(), store.participant_names(), 5)
            report = time.perf_counter() - started
        finally:
            store.close()
    return {"games": summary.games, "seconds": round(summary.wall_seconds, 3),
            "games_per_second": round(summary.games_per_second, 1),
            "final_ratings_seconds": round(report, 3), "load": load()}


# --- tournaments on the cluster --------------------------------------------------------------


def load() -> float:
    return round(os.getloadavg()[0], 2)


def tournament_argv(db: Path, games: int, per_match: int, in_process: bool,
                    jobs: int | None = None) -> list[str]:
    argv = [sys.executable, "-m", "daihinmin.tools", "tournament", "--db", str(db), "--json",
            "--games", str(games), "--games-per-match", str(per_match), "--seed", "3"]
    for bot in BOTS:
        argv += ["--bot", bot]
    if in_process:
        argv.append("--in-process")
    if jobs is not None:
        argv += ["--jobs", str(jobs), "--tables", str(jobs)]
    return argv


def figures(proc: subprocess.CompletedProcess[str], what: str, db: Path) -> dict[str, Any]:
    """The run's figures, with the mean time of a match from its start to its end (as the
    database has them: without the run's start-up)."""
    import sqlite3

    if proc.returncode != 0:
        raise RuntimeError(f"{what}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    run = json.loads(proc.stdout)["run"]
    con = sqlite3.connect(db)
    try:
        (mean,) = con.execute("SELECT AVG(finished_at - started_at) FROM matches"
                              " WHERE status = 'done'").fetchone()
    finally:
        con.close()
    return {"games": run["games"], "seconds": run["wall_seconds"],
            "games_per_second": run["games_per_second"], "match_seconds": round(mean, 3),
            "failed_matches": run["failed_matches"], "tables": run["tables"], "load": load()}


def on_cluster(cluster: LoopbackCluster, folder: Path, name: str, games: int, per_match: int,
               in_process: bool, jobs: int | None = None) -> dict[str, Any]:
    db = folder / f"{name}.sqlite"
    argv = tournament_argv(db, games, per_match, in_process, jobs)
    proc = cluster.run([*argv, "--backend", "ray", "--address", cluster.address])
    return {"nodes": cluster.nodes, **figures(proc, name, db)}


def bench_cluster_run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "cluster", "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        overhead_games = 100 * args.overhead_matches
        db = folder / "local.sqlite"
        local = subprocess.run(tournament_argv(db, overhead_games, 100, True, 1),
                               capture_output=True, text=True)
        out["local_100_games_a_match"] = figures(local, "local", db)
        cluster = LoopbackCluster(nodes=1, cpus=1)
        try:
            one = {"in_process": on_cluster(cluster, folder, "in1", args.games, 20, True),
                   "tcp": on_cluster(cluster, folder, "tcp1", args.tcp_games, 5, False)}
            out["ray_100_games_a_match"] = on_cluster(cluster, folder, "over", overhead_games,
                                                      100, True, 1)
            cluster.add_node()
            two = {"in_process": on_cluster(cluster, folder, "in2", args.games, 20, True),
                   "tcp": on_cluster(cluster, folder, "tcp2", args.tcp_games, 5, False)}
            out["sockets_not_loopback"] = not_loopback(cluster.sockets())
        finally:
            cluster.stop()
    out["one_node"], out["two_nodes"] = one, two
    out["speedup"] = {k: round(two[k]["games_per_second"] / one[k]["games_per_second"], 2)
                      for k in one if one[k]["games_per_second"]}
    local_s = out["local_100_games_a_match"]["match_seconds"]
    ray_s = out["ray_100_games_a_match"]["match_seconds"]
    out["overhead_per_match"] = {"local_seconds": round(local_s, 3),
                                 "ray_seconds": round(ray_s, 3),
                                 "percent": round(100 * (ray_s - local_s) / local_s, 1)}
    driver = {"store": driver_throughput(args.instant_games, live=False),
              "store_and_live_ratings": driver_throughput(args.instant_games, live=True)}
    out["driver"] = driver
    per_node = one["in_process"]["games_per_second"]
    if per_node:
        out["nodes_one_driver_feeds"] = {
            k: int(v["games_per_second"] // per_node) for k, v in driver.items()}
    return out


def register_bench_cluster(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]
                           ) -> None:
    c = bench_sub.add_parser(
        "cluster", help="tournaments on a Ray cluster of this machine (1 and 2 nodes), "
                        "Ray's overhead per match, the driver's own throughput")
    c.add_argument("--games", type=int, default=600, help="in process, per cluster size")
    c.add_argument("--tcp-games", type=int, default=50, help="over TCP, per cluster size")
    c.add_argument("--overhead-matches", type=int, default=3,
                   help="matches of 100 games, locally and on one node")
    c.add_argument("--instant-games", type=int, default=20_000,
                   help="games the driver stores from the synthetic instant tables")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=bench_cluster)


def bench_cluster(args: argparse.Namespace) -> int:
    from daihinmin.runs.backend import RAY_MISSING, Backend, BackendError

    try:
        Backend("ray").check()
    except BackendError:
        print(f"daihinmin bench cluster: {RAY_MISSING}", file=sys.stderr)
        return 2
    why = can_unshare()
    if why is not None:
        print(f"daihinmin bench cluster: the cluster runs in a loopback-only network "
              f"namespace (as root): {why}", file=sys.stderr)
        return 2
    try:
        result = bench_cluster_run(args)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"daihinmin bench cluster: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
        return 0
    for size in ("one_node", "two_nodes"):
        for kind, r in result[size].items():
            print(f"{size} {kind}: {r['games']} games in {r['seconds']:.1f} s = "
                  f"{r['games_per_second']:.1f} games/s (load {r['load']})")
    print(f"speed-up 2 nodes / 1: {result['speedup']}")
    o = result["overhead_per_match"]
    print(f"a 100-game match: {o['local_seconds']} s here, {o['ray_seconds']} s on one Ray "
          f"node ({o['percent']:+.1f}%)")
    for kind, d in result["driver"].items():
        print(f"driver ({kind}): {d['games_per_second']:.0f} games/s from instant tables "
              f"(load {d['load']}); final ratings of {d['games']} games in "
              f"{d['final_ratings_seconds']} s")
    print(f"nodes of this speed one driver feeds: {result.get('nodes_one_driver_feeds')}")
    print(f"sockets not on loopback: {result['sockets_not_loopback'] or 'none'}")
    return 0


__all__ = ["InstantRun", "LoopbackCluster", "can_unshare", "driver_throughput", "is_loopback",
           "not_loopback", "register_bench_cluster"]
