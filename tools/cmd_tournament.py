"""``daihinmin tournament``: thousands of matches on all cores, with ratings.

    daihinmin tournament CONFIG.toml [--db FILE] [--resume]
    daihinmin tournament --bot default --bot greedy --bot random --games 1000 --db t.sqlite
    daihinmin tournament --resume --db t.sqlite          # continue (the stored config)
    daihinmin tournament --report --db t.sqlite --csv standings.csv

Results go to a SQLite file as every game finishes; ``--resume`` continues an interrupted
run (unfinished matches are replayed from their start).  See ``daihinmin.tournament``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.runs.backend import add_backend_options

if TYPE_CHECKING:  # the real imports are inside the functions: `daihinmin bot` starts fast
    from daihinmin.runs.backend import Backend
    from daihinmin.tournament.config import TournamentConfig
    from daihinmin.tournament.publish import Publishing
    from daihinmin.tournament.run import RunSummary
    from daihinmin.tournament.stats import TournamentStats
    from daihinmin.tournament.store import TournamentStore

DEFAULT_DB = "tournament.sqlite"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tournament", help="many matches between bots, with ratings",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", nargs="?", help="tournament TOML file")
    add_participant_options(p)
    add_play_options(p)
    add_sprt_options(p)
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(func=cmd_tournament)


def add_participant_options(p: argparse.ArgumentParser) -> None:
    who = p.add_argument_group("participants (quick run without a config)")
    who.add_argument("--bot", action="append", default=[], metavar="[LABEL=]NAME[:K=V,...]",
                     help="a bundled bot (repeat; a name twice is two participants)")
    who.add_argument("--cmd", action="append", default=[], metavar="[LABEL=]COMMAND",
                     help="an external bot command with {host} and {port} (TCP only)")
    who.add_argument("--submission", action="append", default=[], metavar="[LABEL=]DIR",
                     help="a submission folder with a daihinmin-bot.toml (repeatable)")


def add_play_options(p: argparse.ArgumentParser) -> None:
    what = p.add_argument_group("what to play")
    what.add_argument("--games", type=int,
                      help="total games (default: the config file's, else 100); rounded up "
                      "to whole rounds, which keep the seats fair (a round: every table in "
                      "every seat rotation), and said so before it starts")
    what.add_argument("--games-exact", action="store_true",
                      help="play exactly --games: the last round is cut short (its matches "
                      "play fewer games), and the start says how that bears on fairness")
    what.add_argument("--games-per-match", type=int,
                      help="games in each match (default: the config file's, else 10)")
    what.add_argument("--seed", type=int,
                      help="the tournament's seed (default: the config file's, else 1)")
    what.add_argument("--format", choices=["round-robin", "gauntlet"],
                      help="round-robin: everyone meets everyone; gauntlet: --hero against the "
                      "field (default: round-robin)")
    what.add_argument("--hero", help="gauntlet: the participant facing the field")
    what.add_argument("--rules", help="rule preset (default uecda)")
    what.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                      help="override one rule of --rules (repeatable)")
    what.add_argument("--no-duplicate", action="store_true",
                      help="no seat rotations of the same deals")


def add_sprt_options(p: argparse.ArgumentParser) -> None:
    test = p.add_argument_group(
        "sequential test (two participants)",
        "play until the answer is known at the error rates asked, at most --games "
        "(docs/SPRT.md): H0 says the second participant scores D0 points per game more than "
        "the first, H1 says D1 (D0 < D1)")
    test.add_argument("--sprt", nargs=2, type=float, metavar=("D0", "D1"),
                      help="the two hypotheses, mean points per game of the second "
                           "participant minus the first")
    test.add_argument("--alpha", type=float, default=0.05,
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    test.add_argument("--beta", type=float, default=0.05,
                      help="the chance of accepting H0 when H1 holds (default 0.05)")


def add_run_options(p: argparse.ArgumentParser) -> None:
    how = p.add_argument_group("how to run")
    how.add_argument("--db", help=f"results database (default: CONFIG.sqlite or {DEFAULT_DB})")
    how.add_argument("--resume", action="store_true", help="continue the tournament in --db")
    how.add_argument("--in-process", action="store_true",
                     help="bots as objects in worker processes (no sockets)")
    how.add_argument("--engine", choices=["rules", "numba"], default="rules",
                     help="with --in-process: rules (default), the rules engine; numba, the "
                          "bundled bots' exact Numba models on the simulator (the same "
                          "games, faster; default bots only, no logs: docs/ENVIRONMENTS.md)"),
    how.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    how.add_argument("--tables", type=int, help="TCP: tables at once (default 2 per worker)")
    how.add_argument("--match-timeout", type=float, help="TCP: seconds per match")
    how.add_argument("--sandbox", choices=["none", "bwrap"], default=None,
                     help="TCP: run each player in a bubblewrap sandbox (docs/SANDBOX.md)")
    how.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                     help="a limit per player process (repeatable): cpu, memory, processes, "
                          "open_files, file_size, wall (docs/SANDBOX.md)")
    add_backend_options(how)


def add_output_options(p: argparse.ArgumentParser) -> None:
    out = p.add_argument_group("output")
    out.add_argument("--report", action="store_true", help="only report on --db; play nothing")
    out.add_argument("--log-dir", metavar="DIR",
                     help="write each match's log into DIR (an existing folder; "
                          "match-NNNNN.jsonl, a replayed match the next free name "
                          "match-NNNNN.2.jsonl; checked by 'daihinmin replay --verify')")
    out.add_argument("--json", action="store_true", help="print one JSON summary object")
    out.add_argument("--csv", metavar="FILE", help="write the standings as CSV")
    out.add_argument("--report-json", metavar="FILE", help="write the full report as JSON")
    out.add_argument("--overwrite", action="store_true",
                     help="replace existing --csv / --report-json files (else refused)")
    out.add_argument("--report-html", metavar="FILE", type=Path,
                     help="write the report as one HTML page with the ratings and intervals "
                          "drawn (an existing FILE is refused before anything is played)")
    out.add_argument("--publish", metavar="URL",
                     help="show every table live, with the standings, in a running "
                          "`daihinmin web` at URL, with the token it printed "
                          "(http://127.0.0.1:8080/?token=T)")
    out.add_argument("--publish-hands", action="store_true",
                     help="with --publish: let the spectators see every hand")


def config_from_args(args: argparse.Namespace) -> TournamentConfig | None:
    """The tournament asked for on the command line; ``None`` if none (resume/report)."""
    from daihinmin.tournament.config import (
        TournamentConfig,
        TournamentConfigError,
        load_config,
        parse_bot_arg,
        parse_cmd_arg,
        parse_submission_arg,
        unique_names,
        validate,
    )

    if args.config:
        cfg = load_config(args.config)
        if args.bot or args.cmd or args.submission:
            raise TournamentConfigError("give participants in the config or with --bot/--cmd/"
                                        "--submission, not both")
    elif args.bot or args.cmd or args.submission:
        parts = [parse_bot_arg(b) for b in args.bot] + [parse_cmd_arg(c) for c in args.cmd]
        parts += [parse_submission_arg(d) for d in args.submission]
        cfg = TournamentConfig(participants=unique_names(parts))
    else:
        return None
    changes = {"games": args.games, "games_per_match": args.games_per_match,
               "seed": args.seed, "format": args.format, "hero": args.hero,
               "rules": args.rules, "jobs": args.jobs, "tables": args.tables,
               "match_timeout": args.match_timeout}
    cfg = replace(cfg, **{k: v for k, v in changes.items() if v is not None})
    if args.rule:
        cfg = replace(cfg, rule=tuple(args.rule))
    if args.sprt is not None:
        cfg = replace(cfg, sprt=(args.sprt[0], args.sprt[1], args.alpha, args.beta))
    if args.no_duplicate:
        cfg = replace(cfg, duplicate=False)
    if args.games_exact:
        cfg = replace(cfg, games_exact=True)
    if args.in_process:
        cfg = replace(cfg, transport="numba" if args.engine == "numba" else "in-process")
    elif args.engine == "numba":
        raise TournamentConfigError("--engine numba plays in process: add --in-process")
    if cfg.transport == "numba" and (args.publish or args.log_dir):
        raise TournamentConfigError("--engine numba shows no live tables and writes no "
                                    "match logs (--publish, --log-dir)")
    return validate(with_launch_args(cfg, args))


def with_launch_args(cfg: TournamentConfig, args: argparse.Namespace) -> TournamentConfig:
    """``--sandbox`` and ``--limit`` over the config's own (TournamentConfigError)."""
    from daihinmin.launch.limits import Limits, LimitsError
    from daihinmin.tournament.config import TournamentConfigError

    if args.sandbox is not None:
        cfg = replace(cfg, sandbox=args.sandbox)
    if args.limit:
        try:
            limits = cfg.launch_options().limits
            for text in args.limit:
                limits = Limits.parse(text, limits)
        except LimitsError as exc:
            raise TournamentConfigError(str(exc)) from None
        cfg = replace(cfg, limits=limits.to_dict())
    return cfg


def db_path(args: argparse.Namespace) -> Path:
    if args.db:
        return Path(args.db)
    if args.config:
        return Path(args.config).with_suffix(".sqlite")
    return Path(DEFAULT_DB)


def open_store(args: argparse.Namespace, cfg: TournamentConfig | None
               ) -> tuple[TournamentStore, TournamentConfig]:
    from daihinmin.records.outfile import check_output_path
    from daihinmin.tournament.config import TournamentConfigError
    from daihinmin.tournament.store import StoreReadError, TournamentStore

    path = db_path(args)
    # A directory, a device or a missing folder is refused here; an existing database is
    # refused by create() unless --resume.
    check_output_path(path, what="results database", existing=path.exists())
    if args.report:
        if not path.exists():
            raise StoreReadError(f"{path} does not exist")
        store = TournamentStore(path)
        stored = store.stored_config()
        if stored is None:
            raise StoreReadError(f"{path} holds no tournament")
        return store, stored
    if args.resume:
        store = TournamentStore.resume(path, cfg)
        stored = store.stored_config()
        if cfg is None and stored is not None and args.games_exact and not stored.games_exact:
            store.close()
            raise TournamentConfigError(f"{path} plays whole rounds; --games-exact cannot "
                                        "change that on --resume")
        if cfg is None and stored is not None and stored.programs():
            programs = ", ".join(stored.programs())
            store.close()
            raise TournamentConfigError(
                f"{path} names programs ({programs}); a results database is never a reason "
                "to run one: give the CONFIG (or the --cmd/--submission players) again with "
                "--resume")
        if cfg is None and stored is not None and args.games and args.games > stored.games:
            store.write_tournament(stored.with_run_options(games=args.games))  # more games
    elif cfg is None:
        raise TournamentConfigError("nothing to play: give a CONFIG, --bot/--cmd, or --resume")
    else:
        store = TournamentStore.create(path, cfg)
    stored = store.stored_config()
    assert stored is not None
    run_cfg = stored.with_run_options(jobs=args.jobs, tables=args.tables,
                                      match_timeout=args.match_timeout, log_dir=args.log_dir,
                                      games=None if cfg is None else cfg.games,
                                      sandbox=None if cfg is None else cfg.sandbox,
                                      limits=None if cfg is None else cfg.limits)
    run_cfg = with_launch_args(run_cfg, args)
    return store, run_cfg


def check_log_dir(cfg: TournamentConfig) -> None:
    """Match logs go into a folder that exists."""
    from daihinmin.records.outfile import OutputRefusedError

    if cfg.log_dir is None:
        return
    if not Path(cfg.log_dir).is_dir():
        raise OutputRefusedError(f"--log-dir {cfg.log_dir}: not an existing folder")


def say_error(text: object) -> None:
    """``daihinmin tournament: TEXT`` on stderr, made safe for the terminal."""
    from daihinmin.local.terminal_text import terminal_safe

    print(terminal_safe(f"daihinmin tournament: {text}"), file=sys.stderr)


def cmd_tournament(args: argparse.Namespace) -> int:
    from daihinmin.records.exit_codes import OK, OUTPUT_REFUSED, USAGE
    from daihinmin.tournament.config import TournamentConfigError

    if args.report_html is not None and args.report_html.exists():
        print(f"daihinmin tournament: {args.report_html} exists already; choose another name",
              file=sys.stderr)
        return OUTPUT_REFUSED
    from daihinmin.runs.backend import BackendError, backend_from

    try:
        backend = backend_from(args)
        publishing = publishing_from(args)
    except (ValueError, BackendError) as exc:
        say_error(exc)
        return USAGE
    opened = open_checked_or_code(args, publishing)
    if isinstance(opened, int):
        return opened
    store, run_cfg = opened
    summary: RunSummary | None = None
    code = OK
    if not args.report:
        try:
            summary, code = play_until_stopped(args, store, run_cfg, publishing, backend)
        except TournamentConfigError as exc:
            say_error(exc)
            return USAGE
    return report_and_close(args, store, run_cfg, summary, code)


def open_checked(args: argparse.Namespace, publishing: Publishing | None
                 ) -> tuple[TournamentStore, TournamentConfig]:
    """Every check made before anything is played, then the results database opened:
    the output files, the config, the log folder, the publishing, the submissions (built
    once) and the sandbox."""
    from daihinmin.launch.submission import prepare_submissions
    from daihinmin.records.outfile import check_output_path
    from daihinmin.tournament.run import preflight

    for out in (args.csv, args.report_json):  # every output is checked before playing
        if out:
            check_output_path(Path(out), what="report file", overwrite=args.overwrite)
    cfg = config_from_args(args)
    if cfg is not None and not args.report:
        preflight(cfg)  # before a database is created for a tournament that cannot run
        check_log_dir(replace(cfg, log_dir=args.log_dir))
    check_publishable(publishing, args.report)  # before a database is created
    store, run_cfg = open_store(args, cfg)
    check_log_dir(run_cfg)
    if not args.report:  # built once, before any match; bwrap there if asked for
        prepare_submissions(p.submission for p in run_cfg.participants if p.submission)
        run_cfg.launch_options().check()
    return store, run_cfg


def open_checked_or_code(args: argparse.Namespace, publishing: Publishing | None
                         ) -> tuple[TournamentStore, TournamentConfig] | int:
    """:func:`open_checked`, or the exit code of the one line that says why not."""
    from daihinmin.launch.sandbox import SandboxUnavailableError
    from daihinmin.launch.submission import SubmissionError
    from daihinmin.records.exit_codes import BAD_INPUT, OUTPUT_REFUSED, USAGE
    from daihinmin.records.outfile import OutputRefusedError
    from daihinmin.tournament.config import ConfigFileError, TournamentConfigError
    from daihinmin.tournament.store import StoreError, StoreReadError

    try:
        return open_checked(args, publishing)
    except (SubmissionError, SandboxUnavailableError) as exc:
        say_error(exc)
        return BAD_INPUT if isinstance(exc, SubmissionError) else USAGE
    except OutputRefusedError as exc:
        say_error(exc)
        return OUTPUT_REFUSED
    except (TournamentConfigError, StoreError) as exc:
        say_error(exc)
        bad_file = isinstance(exc, ConfigFileError | StoreReadError)
        return BAD_INPUT if bad_file else USAGE


def play_until_stopped(args: argparse.Namespace, store: TournamentStore, cfg: TournamentConfig,
                       publishing: Publishing | None, backend: Backend
                       ) -> tuple[RunSummary | None, int]:
    """Play what is left; the summary (``None`` if the run stopped) and the exit code so
    far.  A TournamentConfigError found while playing is the caller's to report."""
    from daihinmin.records.exit_codes import FAILED, INTERRUPTED, OK
    from daihinmin.runs.ray_run import RayConnectError
    from daihinmin.tournament.report import planned_note
    from daihinmin.tournament.run import TournamentAbortedError

    if not args.json:
        print(planned_note(store), file=sys.stderr)
    try:
        return play(store, cfg, live=not args.json and sys.stdout.isatty(),
                    publishing=publishing, backend=backend), OK
    except (TournamentAbortedError, RayConnectError) as exc:
        say_error(exc)
        return None, FAILED
    except KeyboardInterrupt:
        print(f"daihinmin tournament: interrupted; continue with: daihinmin tournament "
              f"--resume --db {store.path}", file=sys.stderr)
        return None, INTERRUPTED


def report_and_close(args: argparse.Namespace, store: TournamentStore, cfg: TournamentConfig,
                     summary: RunSummary | None, code: int) -> int:
    """The report (printed, and written to the files asked for), the notes on failed and
    unplayed matches, the database closed; the exit code."""
    from daihinmin.records.exit_codes import BAD_INPUT
    from daihinmin.rules.scoring import lower_is_better
    from daihinmin.tournament.report import summary_dict
    from daihinmin.tournament.stats import compute_stats
    from daihinmin.tournament.store import StoreReadError

    lower = lower_is_better(cfg.ruleset())
    try:
        stats = compute_stats(store.games(), store.participant_names(),
                              cfg.ruleset().players, lower_is_better=lower)
        report = summary_dict(stats, store, summary)
    except (StoreReadError, sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        say_error(f"{db_path(args)}: cannot report: {exc}")
        return BAD_INPUT
    written = write_report_files(args, stats, store, report)  # each file, whatever the code
    code = code or written
    sprt_lines = add_sprt_report(store, cfg, report)
    if args.json:
        print(json.dumps(report))
    else:
        from daihinmin.local.terminal_text import terminal_safe
        from daihinmin.tournament.report import print_report
        from rich.console import Console

        print_report(Console(), stats, store, summary)
        for line in sprt_lines:
            print(terminal_safe(line))
    return close_with_code(store, report, code)


def write_report_files(args: argparse.Namespace, stats: TournamentStats, store: TournamentStore,
                       report: dict[str, Any]) -> int:
    """``--csv``, ``--report-json``, ``--report-html``: OK, or OUTPUT_REFUSED if one was
    refused (each said on stderr; the others are still written)."""
    from daihinmin.records.exit_codes import OK, OUTPUT_REFUSED
    from daihinmin.records.outfile import OutputRefusedError
    from daihinmin.tournament.report import write_csv, write_json

    code = OK
    try:
        if args.csv:
            write_csv(args.csv, stats, store.participant_faults(), overwrite=args.overwrite)
        if args.report_json:
            write_json(args.report_json, report, overwrite=args.overwrite)
    except OutputRefusedError as exc:
        say_error(exc)
        code = OUTPUT_REFUSED
    if args.report_html is not None:
        from daihinmin.web.output import write_new_file
        from daihinmin.web.tournament_html import tournament_page

        try:
            write_new_file(args.report_html, tournament_page(report))
        except OSError as exc:
            print(f"daihinmin tournament: cannot write {args.report_html}: {exc}",
                  file=sys.stderr)
            code = OUTPUT_REFUSED
    return code


def add_sprt_report(store: TournamentStore, cfg: TournamentConfig,
                    report: dict[str, Any]) -> list[str]:
    """A sequential test's state into ``report["sprt"]``; its lines for the terminal."""
    if cfg.sprt is None:
        return []
    from daihinmin.tournament.sprt_run import SprtMonitor

    monitor = SprtMonitor(store, cfg)
    report["sprt"] = monitor.report()
    return monitor.lines(store.participant_names())


def close_with_code(store: TournamentStore, report: dict[str, Any], code: int) -> int:
    """Say what failed or is left to play, close the database; the exit code (FAILED while
    matches are unplayed, unless a sequential test has decided)."""
    from daihinmin.records.exit_codes import FAILED, OK

    failed = store.counts().get("failed", 0)
    unfinished = sum(n for state, n in store.counts().items() if state != "done")
    if report.get("sprt", {}).get("verdict") is not None:
        unfinished = failed  # decided: the matches left unplayed were not needed
    if failed and code == OK:
        print(f"daihinmin tournament: {failed} match(es) failed and keep no games (the "
              "report says why); --resume retries them", file=sys.stderr)
    if unfinished and not failed and code == OK:
        print(f"daihinmin tournament: {unfinished} match(es) not played yet (exit code 1); "
              f"--resume plays them", file=sys.stderr)
    store.close()
    return code or (FAILED if unfinished else OK)


def publishing_from(args: argparse.Namespace) -> Publishing | None:
    """``--publish``/``--publish-hands`` (a bad URL or a lone --publish-hands: ValueError)."""
    if args.publish is None:
        if args.publish_hands:
            raise ValueError("--publish-hands needs --publish URL")
        return None
    from daihinmin.tournament.publish import Publishing
    from daihinmin.watch.publish import publish_url

    publish_url(args.publish)  # refused now, not after the first match
    return Publishing(args.publish, args.publish_hands)


def check_publishable(publishing: Publishing | None, report_only: bool) -> None:
    from daihinmin.tournament.config import TournamentConfigError

    if publishing is not None and report_only:
        raise TournamentConfigError("--publish shows a running tournament; --report plays "
                                    "nothing")


def play(store: TournamentStore, cfg: TournamentConfig, live: bool,
         publishing: Publishing | None = None, backend: Backend | None = None) -> RunSummary:
    from daihinmin.tournament.live import LiveDisplay, LiveTally
    from daihinmin.tournament.run import run_tournament

    if not live and publishing is None:
        return run_tournament(store, cfg, backend=backend)
    from daihinmin.rules.scoring import lower_is_better

    tally = LiveTally(store.participant_names(), store.total_games(),
                      store.game_count(done_only=True), cfg.transport,
                      lower_is_better(cfg.ruleset()))
    if not live:
        return run_tournament(store, cfg, tally, publishing, backend)
    with LiveDisplay(tally):
        return run_tournament(store, cfg, tally, publishing, backend)
