"""A bounded soak test of the match server: many matches against chaotic clients, on loopback.

``daihinmin soak --games 300 --seconds 600`` starts one server process that
plays matches back to back (``--games-per-match`` each, short deadlines), and for every match
five ``fault_client chaos`` processes that misbehave at random (late, garbage, half tables,
junk bytes, illegal moves, crashes, hangs, floods), plus bad connections before the match
(silent, garbage and half profiles) and after it is full (refused).  It stops by itself after
``--games`` games or ``--seconds`` seconds (after the match under way), then reports the
faults injected, the games finished, the games lost (a match that did not finish all its
games, or a log that does not verify: must be 0) and the server's resident memory at the
start and the end.  Everything listens and connects on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

HOST = "127.0.0.1"  # loopback only, whatever the options say
FAULT_LINE = re.compile(r"fault_client: reply \d+ \((\w+)\): ([\w-]+)")
class Deadlines(TypedDict):
    move_timeout: float
    exchange_timeout: float
    profile_timeout: float
    send_timeout: float
    time_bank: float
    fault_limit: int


DEADLINES: Deadlines = {"move_timeout": 0.2, "exchange_timeout": 0.2, "profile_timeout": 1.0,
             "send_timeout": 2.0, "time_bank": 0.0, "fault_limit": 3}
CLIENT_DELAY = 0.3  # how late a late reply is (beyond the 0.2 s deadline)


def rss_kib(pid: int) -> int:
    """Resident memory of a process (KiB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# --- the server process ----------------------------------------------------------------------
def serve_matches(games: int, seed: int, log_dir: Path) -> int:
    """Play matches until stdin says ``stop``: ``PORT p`` out, play, ``DONE {json}`` out."""
    import trio
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchObserver, serve_match

    class Announce(MatchObserver):
        def listening(self, host: str, port: int) -> None:
            print(f"PORT {port}", flush=True)

    async def main() -> None:
        index = 0
        while True:
            index += 1
            config = ServerConfig(games=games, seed=seed + index, host=HOST, port=0,
                                  log_path=log_dir / f"match{index:04d}.jsonl",
                                  **DEADLINES)
            outcome = await serve_match(config, Announce())
            done = {"match": index, "games": outcome.games_played,
                    "seats": [r.to_json() for r in outcome.seats],
                    "log": str(outcome.log_path), "rss_kib": rss_kib_self()}
            print("DONE " + json.dumps(done), flush=True)
            if (await trio.to_thread.run_sync(sys.stdin.readline)).strip() != "next":
                return

    trio.run(main)
    return 0


def rss_kib_self() -> int:
    import os

    return rss_kib(os.getpid())


# --- bad connections -----------------------------------------------------------------------
def bad_connections(port: int, count: int, seed: int) -> Counter[str]:
    """Connections that never finish the handshake; waits until the server closed them all."""
    import random

    rng = random.Random(seed)
    kinds: Counter[str] = Counter()
    socks = []
    for _ in range(count):
        kind = rng.choice(["silent", "garbage-profile", "half-profile"])
        try:
            s = socket.create_connection((HOST, port), timeout=5)
        except OSError:
            continue
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if kind == "garbage-profile":
            s.sendall(bytes(rng.randrange(256) for _ in range(480)))
        elif kind == "half-profile":
            s.sendall(b"\0\0\x4e\x66" + b"\0" * 200)
        kinds[kind] += 1
        socks.append(s)
    for s in socks:  # the server must close each (deadline or bad profile), or refuse it
        s.settimeout(10)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        s.close()
    return kinds


def refused_after_seating(port: int, wait: float = 10.0) -> bool:
    """Whether a connection is refused once the seats are taken (polls until then)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=2).close()
        except ConnectionRefusedError:
            return True
        except OSError:
            return False
        time.sleep(0.2)  # still seating: that connection took no seat (it sent nothing)
    return False


# --- the driver ------------------------------------------------------------------------------
@dataclass
class Report:
    matches: int = 0
    games_planned: int = 0
    games_finished: int = 0
    games_verified: int = 0
    faults: Counter[str] = field(default_factory=Counter)  # injected, by kind
    server_seen: Counter[str] = field(default_factory=Counter)  # seat statuses / fault counts
    stand_in_turns: int = 0
    refused_late: int = 0
    rss_start_kib: int = 0
    rss_end_kib: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def games_lost(self) -> int:
        return self.games_planned - self.games_verified

    @property
    def faults_injected(self) -> int:
        return sum(self.faults.values())

    def to_json(self) -> dict[str, Any]:
        return {"matches": self.matches, "games_planned": self.games_planned,
                "games_finished": self.games_finished, "games_verified": self.games_verified,
                "games_lost": self.games_lost, "faults_injected": self.faults_injected,
                "faults": dict(sorted(self.faults.items())),
                "server_faults": dict(sorted(self.server_seen.items())),
                "stand_in_turns": self.stand_in_turns, "refused_late": self.refused_late,
                "rss_start_kib": self.rss_start_kib, "rss_end_kib": self.rss_end_kib,
                "seconds": round(self.seconds, 1), "problems": self.problems}


def client_cmd(port: int, rate: float, seed: int) -> list[str]:
    return [sys.executable, "-m", "daihinmin.bench.fault_client", "chaos", "--host", HOST,
            "--port", str(port), "--rate", str(rate), "--seed", str(seed),
            "--delay", str(CLIENT_DELAY), "--read-timeout", "60", "--name", f"chaos{seed}"]


def run_match(server: subprocess.Popen[str], port: int, index: int, args: argparse.Namespace,
              report: Report) -> None:
    from daihinmin.records.matchlog import read_match_log
    from daihinmin.records.replay import verify_log

    if args.bad_connections:
        for kind, n in bad_connections(port, args.bad_connections, args.seed + index).items():
            report.faults[f"handshake:{kind}"] += n
    clients = [subprocess.Popen(client_cmd(port, args.rate, args.seed * 1000 + index * 10 + i),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for i in range(5)]
    assert server.stdout is not None
    if refused_after_seating(port):
        report.refused_late += 1
    line = server.stdout.readline()
    for c in clients:
        try:
            _, err = c.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            c.kill()
            _, err = c.communicate()
            report.problems.append(f"match {index}: a client did not end")
        for kind, fault in FAULT_LINE.findall(err or ""):
            report.faults[f"{kind}:{fault}"] += 1
    report.matches += 1
    report.games_planned += args.games_per_match
    if not line.startswith("DONE "):
        report.problems.append(f"match {index}: the server said {line!r}")
        return
    done = json.loads(line[5:])
    report.games_finished += done["games"]
    for seat in done["seats"]:
        for kind, n in seat["faults"].items():
            report.server_seen[kind] += n
    try:
        log = read_match_log(Path(done["log"]))
        summary = verify_log(log)
    except Exception as exc:  # any failure here is a lost match, reported as such
        report.problems.append(f"match {index}: {type(exc).__name__}: {exc}")
        return
    report.stand_in_turns += summary.stand_in_turns
    if summary.complete:
        report.games_verified += summary.games
    else:
        report.problems.append(f"match {index}: log incomplete ({summary.games} games)")


def soak(args: argparse.Namespace) -> Report:
    report = Report()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="daihinmin-soak-") as tmp:
        log_dir = Path(args.log_dir) if args.log_dir else Path(tmp)
        server = subprocess.Popen(
            [sys.executable, "-m", "daihinmin.bench.soak", "--serve", "--games-per-match",
             str(args.games_per_match), "--seed", str(args.seed), "--log-dir", str(log_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert server.stdin is not None and server.stdout is not None
        try:
            index = 0
            while True:
                index += 1
                line = server.stdout.readline()
                match = re.match(r"PORT (\d+)", line)
                if match is None:
                    report.problems.append(f"the server said {line!r} instead of a port")
                    break
                if index == 1:
                    report.rss_start_kib = rss_kib(server.pid)
                run_match(server, int(match.group(1)), index, args, report)
                elapsed = time.monotonic() - started
                report.rss_end_kib = rss_kib(server.pid)
                if not args.quiet:
                    print(f"match {index}: {report.games_verified} games verified, "
                          f"{report.faults_injected} faults injected, "
                          f"server RSS {report.rss_end_kib} KiB, {elapsed:.0f} s",
                          file=sys.stderr, flush=True)
                more = (report.games_planned < args.games and elapsed < args.seconds
                        and server.poll() is None)
                server.stdin.write("next\n" if more else "stop\n")
                server.stdin.flush()
                if not more:
                    break
            server.wait(timeout=30)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    report.seconds = time.monotonic() - started
    return report


def main(argv: list[str] | None = None, prog: str = "daihinmin soak",
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Run the tool on ``argv``; ``daihinmin`` passes its ``prog`` and its help
    ``formatter`` (how the command line shows help: plain text, defaults said)."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=formatter)
    p.add_argument("--games", type=int, default=300, help="stop after this many games")
    p.add_argument("--seconds", type=float, default=900.0, help="or after this long")
    p.add_argument("--games-per-match", type=int, default=10, help="games in each match")
    p.add_argument("--rate", type=float, default=0.12,
                   help="chance that a client's reply misbehaves")
    p.add_argument("--bad-connections", type=int, default=6,
                   help="bad connections before each match")
    p.add_argument("--seed", type=int, default=1, help="the first match's seed")
    p.add_argument("--log-dir", default=None, help="keep the match logs here")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        return serve_matches(args.games_per_match, args.seed, Path(args.log_dir))
    report = soak(args)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        r = report
        print(f"soak: {r.matches} matches, {r.games_finished} games finished, "
              f"{r.games_verified} verified, {r.games_lost} lost; "
              f"{r.faults_injected} faults injected; server RSS {r.rss_start_kib} KiB at the "
              f"start, {r.rss_end_kib} KiB at the end; {r.seconds:.0f} s")
        for kind, n in sorted(r.faults.items()):
            print(f"  injected {kind}: {n}")
        for kind, n in sorted(r.server_seen.items()):
            print(f"  server saw {kind}: {n}")
        for problem in r.problems:
            print(f"  PROBLEM: {problem}")
    return 0 if report.games_lost == 0 and not report.problems else 1


if __name__ == "__main__":
    sys.exit(main())
