"""``daihinmin league CONFIG``: a contest that runs on its own, with a live leaderboard.

    daihinmin league league.toml                 # run (Ctrl-C stops; run again: resumes)
    daihinmin league league.toml --web-port 8090 # and serve the leaderboard on 127.0.0.1
    daihinmin league league.toml --export csv    # the standings from the database, and exit

New submission folders, new versions and removed folders are picked up while it runs.
See docs/LEAGUE.md.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TYPE_CHECKING

from daihinmin.records.exit_codes import (
    BAD_INPUT,
    FAILED,
    INTERRUPTED,
    OK,
    OUTPUT_REFUSED,
    USAGE,
)

if TYPE_CHECKING:
    from daihinmin.league.config import LeagueConfig
    from daihinmin.league.store import LeagueStore


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("league", help="run a league: entrants' folders, pairing by rating, "
                                      "a live leaderboard, resumable",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", metavar="CONFIG", help="the league's TOML file")
    p.add_argument("--web-port", type=int, default=None, metavar="PORT",
                   help="serve the leaderboard on 127.0.0.1:PORT (0: any free port; default: "
                        "the config's web_port, else no page)")
    p.add_argument("--export", choices=("json", "csv"), default=None,
                   help="print the standings from the database and exit (runs nothing)")
    p.add_argument("--reinstate", metavar="NAME", default=None,
                   help="let a suspended entrant play again (its newest version) and exit; "
                        "the league must not be running")
    p.set_defaults(func=league_command)


def err(text: str) -> None:
    from daihinmin.local.terminal_text import terminal_safe

    print(terminal_safe(f"daihinmin league: {text}"), file=sys.stderr, flush=True)


def league_command(args: argparse.Namespace) -> int:
    from daihinmin.league.config import LeagueConfigError, LeagueConfigFileError, load_config

    try:
        cfg = load_config(args.config)
    except LeagueConfigFileError as exc:
        err(str(exc))
        return BAD_INPUT
    except LeagueConfigError as exc:
        err(str(exc))
        return USAGE
    if args.export:
        return export(cfg, args.export)
    if args.reinstate is not None:
        return reinstate(cfg, args.reinstate)
    if cfg.backend == "ray":
        err("backend 'ray' plays a league once the runs layer is installed; use 'local'")
        return USAGE
    from daihinmin.launch.sandbox import SandboxUnavailableError

    try:
        cfg.launch_options().check()
    except SandboxUnavailableError as exc:
        err(str(exc))
        return USAGE
    port = args.web_port if args.web_port is not None else cfg.web_port
    if port is not None and not 0 <= port <= 65535:
        err("--web-port must be 0..65535")
        return USAGE
    return run(cfg, port)


def export(cfg: LeagueConfig, kind: str) -> int:
    from daihinmin.league.standings import leaderboard
    from daihinmin.league.store import LeagueStore, LeagueStoreError

    try:
        store = LeagueStore.reader(cfg.database_path)
    except LeagueStoreError as exc:
        err(str(exc))
        return BAD_INPUT
    try:
        board = leaderboard(store, cfg.name)
    finally:
        store.close()
    if kind == "csv":
        sys.stdout.write(board.to_csv())
    else:
        import json

        print(json.dumps(board.to_json(), indent=1, ensure_ascii=False))
    return OK


def open_store(cfg: LeagueConfig, make_logs_folder: bool = False) -> LeagueStore | int:
    """The league's database, opened to write (``make_logs_folder``: its match logs' folder
    made first); else the exit code of the one line that says why not."""
    from daihinmin.league.store import LeagueMismatchError, LeagueStore, LeagueStoreError
    from daihinmin.records.outfile import OutputRefusedError

    try:
        if make_logs_folder:
            cfg.logs_path.mkdir(parents=True, exist_ok=True)
        return LeagueStore.open(cfg.database_path, cfg.fingerprint(), cfg.to_json())
    except OutputRefusedError as exc:
        err(str(exc))
        return OUTPUT_REFUSED
    except LeagueMismatchError as exc:
        err(str(exc))
        return USAGE
    except (LeagueStoreError, OSError) as exc:
        err(str(exc))
        return BAD_INPUT


def reinstate(cfg: LeagueConfig, name: str) -> int:
    store = open_store(cfg)
    if isinstance(store, int):
        return store
    try:
        suspended = [e for e in store.entrants() if e.name == name and e.status == "suspended"]
        if not suspended:
            err(f"no suspended entrant named {name}")
            return USAGE
        store.set_status(suspended[-1].id, "active", "reinstated by the host")
        print(f"daihinmin league: {suspended[-1].label} may play again")
    finally:
        store.close()
    return OK


def run(cfg: LeagueConfig, port: int | None) -> int:
    import trio
    from daihinmin.league.loop import League, check_bot_checker
    from daihinmin.league.runner import InProcessRunner, LoopbackRunner
    from daihinmin.server.errors import MatchInterruptedError, leaf_errors

    store = open_store(cfg, make_logs_folder=True)
    if isinstance(store, int):
        return store

    def say(text: str) -> None:
        from daihinmin.local.terminal_text import terminal_safe

        print(terminal_safe(f"league: {text}"), flush=True)

    runner = InProcessRunner() if cfg.transport == "in-process" else LoopbackRunner()
    league = League(cfg, store, runner, say, check_bot_checker(cfg))
    host_key = secrets.token_urlsafe(16)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            if port is not None:
                from daihinmin.web.league_pages import serve_league

                url = await nursery.start(serve_league, cfg.database_path, port, host_key,
                                          cfg.show_errors == "all", cfg.name)
                say(f"leaderboard: {url}/league (host view with error output: "
                    f"{url}/league?key={host_key})")
            games = (cfg.groups.games if cfg.format == "uecda-groups" else cfg.games_per_match)
            say(f"{cfg.name} ({cfg.format}): {cfg.table_size} seats a table, {games} games a "
                f"match, {cfg.tables} table(s) at once; stops: {cfg.stop.describe()}")
            await league.run()
            nursery.cancel_scope.cancel()

    code = OK
    try:
        trio.run(main)
    except KeyboardInterrupt:
        league.progress.stopped_by = "interrupted (Ctrl-C)"
        code = INTERRUPTED
    except BaseException as exc:
        leaves = leaf_errors(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in leaves):
            league.progress.stopped_by = "interrupted (Ctrl-C)"
            code = INTERRUPTED
        elif any(isinstance(e, MatchInterruptedError) for e in leaves):
            code = INTERRUPTED
        elif isinstance(leaves[0], OSError):
            err(f"cannot serve the leaderboard on 127.0.0.1:{port}: {leaves[0]}")
            code = FAILED
        else:
            raise
    finally:
        store.close()
    p = league.progress
    say(f"{p.matches} matches ({p.games} games) played, {p.failed} failed in this run; "
        f"{p.stopped_by or 'stopped'}" + ("; run the same command again to resume"
                                          if code == INTERRUPTED else ""))
    return code
