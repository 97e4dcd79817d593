"""``daihinmin check-bot DIR``: is this submission folder ready for a contest?

Four steps, each reported on one line, stopping at the first that fails:

1. the manifest (``daihinmin-bot.toml``: name, version, author, command, build, protocol);
2. the build command, if there is one (run in the folder, as the user who runs this);
3. the handshake: the bot is started (with the limits, and in the sandbox if asked) against
   a throw-away server on 127.0.0.1 and must connect and send its profile in time;
4. short games against bundled bots: every move in time, no fault, no crash.

Exit code 0 when every step passed, 4 for a manifest or build that is not usable, 3 when
the bot failed the handshake or the games (a stand-in had to play it), 2 for bad options
(e.g. ``--sandbox bwrap`` without bubblewrap).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from .match_options import add_launch_options, launch_options_from

if TYPE_CHECKING:
    from daihinmin.launch.process import LaunchOptions
    from daihinmin.launch.submission import Submission

OPPONENTS = ("default", "default", "random", "greedy", "default")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-bot", help="check a submission folder: manifest, build, "
                                         "handshake, a short match against bundled bots")
    p.add_argument("folder", metavar="DIR", help="the submission folder")
    p.add_argument("--games", type=int, default=2, help="games to play (default 2)")
    p.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    p.add_argument("--profile-time", type=float, default=10.0, metavar="S",
                   help="seconds to connect and send the profile (default 10)")
    p.add_argument("--move-time", type=float, default=1.0, metavar="S",
                   help="seconds per move (default 1)")
    add_launch_options(p)
    p.set_defaults(func=check_bot_command)


def line(step: str, ok: bool, text: str) -> None:
    print(f"{step:<10} {'ok' if ok else 'FAILED':<7} {text}", flush=True)


def check_bot_command(args: argparse.Namespace) -> int:
    from daihinmin.launch.limits import LimitsError
    from daihinmin.launch.sandbox import SandboxUnavailableError
    from daihinmin.launch.submission import (
        BuildError,
        SubmissionError,
        build_submission,
        load_submission,
    )
    from daihinmin.records.exit_codes import BAD_INPUT, OK, STAND_IN, USAGE

    try:
        launch = launch_options_from(args)
    except (LimitsError, SandboxUnavailableError, ValueError) as exc:
        print(f"daihinmin check-bot: {exc}", file=sys.stderr)
        return USAGE
    if args.games < 1:
        print("daihinmin check-bot: --games is at least 1", file=sys.stderr)
        return USAGE
    try:
        sub = load_submission(args.folder)
    except SubmissionError as exc:
        line("manifest", False, str(exc))
        return BAD_INPUT
    line("manifest", True, f"{sub.describe()}, protocol {sub.protocol}")
    if sub.build is None:
        line("build", True, "no build command")
    else:
        started = time.perf_counter()
        try:
            build_submission(sub)
        except BuildError as exc:
            line("build", False, str(exc))
            if exc.output:
                print("  " + "\n  ".join(exc.output.rstrip().splitlines()[-15:]))
            return BAD_INPUT
        line("build", True, f"{sub.build!r} in {time.perf_counter() - started:.1f} s")
    return OK if play_check(args, sub, launch) else STAND_IN


def play_check(args: argparse.Namespace, sub: Submission, launch: LaunchOptions) -> bool:
    """Handshake and games: the bot as player 0 against bundled bots."""
    import trio
    from daihinmin.driver.faults import SeatStatus
    from daihinmin.launch.process import PlayerSpec
    from daihinmin.rules.ruleset import ruleset_from
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.runner import run_headless_match

    rules = ruleset_from("uecda", [])
    specs = [sub.spec()] + [PlayerSpec.bundled(k) for k in OPPONENTS[:rules.players - 1]]
    config = ServerConfig(rules=rules, games=args.games, seed=args.seed, port=0,
                          profile_timeout=args.profile_time or None,
                          move_timeout=args.move_time or None).validate()
    started = time.perf_counter()
    outcome = trio.run(lambda: run_headless_match(
        config, specs, connect_timeout=args.profile_time + 5, launch=launch))
    seat = outcome.seats[0]
    player = outcome.players[0] if outcome.players else None
    # the runner's words for a player that never got its seat (docs/SERVER_FAULTS.md)
    seated = seat.stand_in is None or "seated" not in seat.detail
    if not seated:
        line("handshake", False, f"{seat.status}: {seat.detail}")
        return False
    line("handshake", True, f"seated as {player.name if player else 'player 0'!r}")
    wall = time.perf_counter() - started
    faults = ", ".join(f"{k} x{v}" for k, v in sorted(seat.faults.items()))
    against = ", ".join(s.label for s in specs[1:])
    if seat.status is not SeatStatus.OK or seat.stand_in is not None:
        line("games", False, f"{seat.status}{f' ({faults})' if faults else ''}: {seat.detail}")
        return False
    points = outcome.totals[0] if outcome.totals else 0
    line("games", True, f"{outcome.games_played} games against {against}: {points} points,"
                        f" no fault ({wall:.1f} s)")
    return True


if __name__ == "__main__":  # pragma: no cover
    from daihinmin.tools.cli import main

    sys.exit(main(["check-bot", *sys.argv[1:]]))
