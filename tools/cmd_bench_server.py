"""``daihinmin bench server``: the server's memory over one long match, and resume time.

Plays one match of ``--games`` games (default 10,000) on loopback against five bundled bots,
each its own process (``daihinmin bot``), and samples the server process's resident memory
(RSS, from ``/proc``) at game ``--early`` (default 100) and at the last game, so the
difference says what the server keeps per game.  Then it times ``--resume`` of the log (its
end record dropped, as after a kill): reading the log record by record and re-simulating
its last game.  ``--full-replay`` also times ``replay --verify`` of the same log (every game
re-simulated).  ``--stand-ins`` has the server's own stand-ins play every seat in its
process (its RSS then includes them), for a long log in minutes; the log and the report say
they were asked for (status ``REQUESTED``, not a fault).  The log goes to a
temporary folder (``--keep LOG`` to keep it); it is not fsynced after each game unless
``--fsync`` (the disk is not what is measured).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any


def register_bench_server(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = bench_sub.add_parser("server", help="server RSS over one long match; resume time")
    s.add_argument("--games", type=int, default=10_000, help="games in the long match")
    s.add_argument("--early", type=int, default=100, help="the early game sampled (100)")
    s.add_argument("--bot", default="default", help="the bundled bot of all five seats")
    s.add_argument("--seed", type=int, default=1, help="the match seed")
    s.add_argument("--fsync", action="store_true", help="fsync the log after each game")
    s.add_argument("--stand-ins", action="store_true",
                   help="the server's own stand-ins play every seat (no sockets, no bot "
                        "processes): the quick way to a long match and its log")
    s.add_argument("--full-replay", action="store_true",
                   help="also time replay --verify of the whole log")
    s.add_argument("--keep", type=Path, metavar="LOG", help="keep the match log here")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=bench_server)


def rss_kib() -> int:
    """This process's resident memory now (not its peak), in KiB; 0 where /proc is missing."""
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


STAND_INS_ASKED = "asked for by bench server --stand-ins"


def stand_in_match(config: Any, on_game: Any) -> Any:
    """The match with a stand-in in every seat, as asked, in this process (no connections)."""
    import trio
    from daihinmin.driver.faults import SeatStatus
    from daihinmin.server.match_server import MatchObserver, MatchServer

    class Sampler(MatchObserver):
        def game_finished(self, record: Any) -> None:
            on_game(record)

    server = MatchServer(config, Sampler())

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            for _ in range(config.rules.players):
                server.seat_stand_in(SeatStatus.REQUESTED, STAND_INS_ASKED)

    trio.run(main)
    return server.outcome


def play_match(games: int, early: int, bot: str, seed: int, log_path: Path,
               fsync: bool, stand_ins: bool = False) -> dict[str, Any]:
    import trio
    from daihinmin.driver.record import GameRecord
    from daihinmin.launch.process import PlayerSpec
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.runner import run_headless_match

    samples: dict[int, int] = {}
    marks = {1, min(early, games), games, *range(0, games + 1, max(1, games // 10))}

    def on_game(record: GameRecord) -> None:
        if record.game in marks:
            samples[record.game] = rss_kib()

    config = ServerConfig(games=games, seed=seed, port=0, log_path=log_path, durable=fsync,
                          move_timeout=5.0, exchange_timeout=5.0)  # a loaded machine: no faults
    specs = [PlayerSpec.bundled(bot) for _ in range(5)]
    started = time.perf_counter()
    if stand_ins:
        outcome = stand_in_match(config, on_game)
    else:
        outcome = trio.run(lambda: run_headless_match(config, specs, on_game=on_game))
    wall = time.perf_counter() - started
    faults = sum(sum(r.faults.values()) for r in outcome.seats)
    return {"games": outcome.games_played, "wall_seconds": round(wall, 2),
            "games_per_second": round(outcome.games_played / wall, 1), "faults": faults,
            "seats": seats_text(outcome.seats),
            "rss_kib_by_game": dict(sorted(samples.items())),
            "rss_kib_early": samples.get(min(early, games), 0),
            "rss_kib_last": samples.get(games, 0),
            "log_bytes": log_path.stat().st_size}


def seats_text(seats: list[Any]) -> str:
    """Who played the seats: the bots, the stand-ins asked for, or stand-ins after faults."""
    from daihinmin.driver.faults import SeatStatus

    asked = sum(r.status is SeatStatus.REQUESTED for r in seats)
    faulted = sum(r.stand_in is not None for r in seats) - asked
    parts = []
    if asked:
        parts.append(f"{asked} of {len(seats)} by the server's stand-ins, as asked (--stand-ins)")
    if faulted:
        parts.append(f"{faulted} by a stand-in after a fault (see the log)")
    if not asked:
        parts.insert(0, f"{len(seats) - faulted} of {len(seats)} by their bot processes")
    return "; ".join(parts)


def time_resume(log_path: Path, folder: Path, full_replay: bool) -> dict[str, Any]:
    from daihinmin.records.matchlog import read_match_log
    from daihinmin.records.replay import verify_log
    from daihinmin.server.resume import load_resume

    cut = folder / "resume.jsonl"
    shutil.copyfile(log_path, cut)
    with cut.open("r+b") as f:  # drop the end record, as if the server had been killed
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - 65536))
        tail = f.read()
        f.truncate(size - len(tail) + tail.rstrip(b"\n").rfind(b"\n") + 1)
    before = rss_kib()
    started = time.perf_counter()
    point = load_resume(cut)
    result: dict[str, Any] = {"resume_seconds": round(time.perf_counter() - started, 3),
                              "resume_games": point.games_done,
                              "resume_rss_growth_kib": rss_kib() - before}
    if full_replay:
        started = time.perf_counter()
        summary = verify_log(read_match_log(cut))
        result["full_replay_seconds"] = round(time.perf_counter() - started, 3)
        result["full_replay_games"] = summary.games
    return result


def bench_server(args: argparse.Namespace) -> int:
    if args.games < 1 or args.early < 1:
        print("daihinmin bench server: --games and --early must be at least 1")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log_path = folder / "match.jsonl"
        result: dict[str, Any] = {"bench": "server",
                                  "bot": "stand-ins" if args.stand_ins else args.bot,
                                  "cpus": os.cpu_count(),
                                  "load_before": round(os.getloadavg()[0], 2)}
        result.update(play_match(args.games, args.early, args.bot, args.seed, log_path,
                                 args.fsync, args.stand_ins))
        result.update(time_resume(log_path, folder, args.full_replay))
        result["load_after"] = round(os.getloadavg()[0], 2)
        if args.keep is not None:
            shutil.copyfile(log_path, args.keep)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"server: {result['games']} games in {result['wall_seconds']} s "
          f"({result['games_per_second']} games/s, {result['faults']} faults); RSS "
          f"{result['rss_kib_early'] / 1024:.1f} MiB at game {min(args.early, args.games)}, "
          f"{result['rss_kib_last'] / 1024:.1f} MiB at game {result['games']}")
    print(f"seats played: {result['seats']}")
    print(f"resume of the {result['resume_games']}-game log "
          f"({result['log_bytes'] / 2**20:.1f} MiB): {result['resume_seconds']} s"
          + (f"; full replay --verify: {result['full_replay_seconds']} s"
             if "full_replay_seconds" in result else ""))
    return 0
