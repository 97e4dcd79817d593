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
from pathlib import Path
from typing import Any

from daihinmin.bench.server import play_match, time_resume


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
