"""``daihinmin replay LOG``: read a match log; ``--verify`` re-simulates it with the engine.

``--verify`` exits 1 naming the first difference (game, turn, logged vs re-simulated);
``--game N`` prints one game turn by turn; with neither, a summary of the match.  A log that
cannot be read (not JSON, wrong types, out of range, a line longer than 1 MiB) exits 4 with
one line naming the line.  Everything printed goes through :class:`TerminalSafe`: names,
details and errors in a log are data, so control characters (terminal escapes) are shown
escaped, never sent to the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from daihinmin.local.terminal_text import terminal_safe

if TYPE_CHECKING:
    from daihinmin.driver.faults import SeatEvent
    from daihinmin.records.matchlog import MatchLog
    from daihinmin.records.replay import ReplayedGame
    from daihinmin.rules.game import StepResult


class TerminalSafe:
    """A text stream that escapes control characters before writing to ``out``."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(terminal_safe(text))

    def flush(self) -> None:
        self.out.flush()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="show or verify a match log")
    p.add_argument("log", type=Path, metavar="LOG", help="a match log (.jsonl)")
    p.add_argument("--verify", action="store_true",
                   help="re-simulate every game and check the log agrees")
    p.add_argument("--game", type=int, default=None, metavar="N", help="print game N")
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="write one self-contained HTML file that steps through the log "
                        "(opens offline in a browser; an existing FILE is refused)")
    p.add_argument("--kifu", type=Path, default=None, metavar="FILE",
                   help="write the log as a UECda reference server kifu (uecda rules only; "
                        "an existing FILE is refused)")
    p.set_defaults(func=replay_command)


def player_label(log: MatchLog, p: int) -> str:
    name = next((i.name for i in log.header.players if i.number == p), "?")
    return f"p{p} {name}"


def describe_events(step: StepResult) -> str:
    """What a turn caused, in words (plays and passes speak for themselves)."""
    from daihinmin.rules.event_words import describe_all

    return "; ".join(describe_all(step.events))


def print_game(log: MatchLog, replayed: ReplayedGame) -> None:
    from daihinmin.rules.scoring import class_title

    rec = replayed.record
    n = len(rec.seats)
    rules = log.header.ruleset()
    print(f"game {rec.game}   seats {' '.join(map(str, rec.seats))}   dealer p{rec.dealer}")
    print("dealt:")
    for p in range(n):
        cls = f"[{class_title(rules, rec.classes[p])}]" if rec.classes is not None else ""
        print(f"  {player_label(log, p):<20} {cls:<12} {rec.dealt[p]}")
    if rec.transfers:
        print("exchange:")
        for tr in rec.transfers:
            how = ("automatic" if tr.automatic else
                   f"invalid choice ({tr.error}); server picked" if tr.substituted else "chosen")
            if tr.by:
                how += f" by the {tr.by} stand-in"
            print(f"  p{tr.giver} -> p{tr.receiver}: {tr.cards}   ({how})")
        print("hands after the exchange:")
        for p in range(n):
            print(f"  {player_label(log, p):<20} {rec.hands[p]}")
    print(f"turns (p{rec.first} leads):")
    events: dict[int, list[SeatEvent]] = {}
    for e in rec.events:
        events.setdefault(e.turn, []).append(e)
    for e in events.get(0, []):
        print(f"  seat: p{e.player} {e.status} ({e.detail}) -> {e.action}")
    for number, turn in enumerate(replayed.turns, 1):
        t = turn.record
        move = t.move if not t.malformed else f"<{(t.fault or 'malformed').lower()}: {t.error}>"
        if t.by:
            move = f"{move} [{t.by}]"
        elif t.fault == "ILLEGAL" and not t.malformed:
            move = f"{move} [illegal]"
        notes = describe_events(turn.step)
        print(f"  {number:4d}  p{t.player}  {move:<24} {t.answer}  {t.think_ms:8.2f} ms"
              + (f"   {notes}" if notes else ""))
        for e in events.get(number, []):
            print(f"        seat: p{e.player} {e.status} ({e.detail}) -> {e.action}")
        for c in t.choices:  # 7-pass / 10-discard answers (protocol 20260)
            print(f"              {c.kind} {c.cards or 'nothing'}"
                  + (" (invalid answer: the weakest)" if c.substituted else ""))
    order = sorted(range(n), key=lambda p: rec.places[p])
    print("result:")
    for p in order:
        print(f"  {rec.places[p] + 1}. {player_label(log, p):<20} +{rec.points[p]}  "
              f"(total {rec.totals[p]})")


def print_summary(log: MatchLog) -> None:
    from daihinmin.records.standings import Standings

    h = log.header
    print(f"match log {h.schema}: rules {h.rules.get('name')}, seed {h.seed}, "
          f"{len(log.games)} of {h.games} games"
          + (f", {log.end.status}" if log.end else ", no end record"))
    for info in h.players:
        print(f"  p{info.number} {info.name} (protocol {info.protocol})")
    standings = Standings(h.players, rules=h.ruleset())
    resumes = {r.after_game: r for r in log.resumes}
    for rec in log.games:
        if rec.game - 1 in resumes:
            print(f"  resumed after game {rec.game - 1} ({resumes[rec.game - 1].started})")
        standings.add_game(rec)
        order = sorted(range(len(rec.places)), key=lambda p: rec.places[p])
        stand_in = f"  stand-in for {' '.join(f'p{p}' for p in rec.stand_in)}" \
            if rec.stand_in else ""
        print(f"  game {rec.game:4d}: order {' '.join(f'p{p}' for p in order)}  "
              f"{len(rec.turns):3d} turns  totals {rec.totals}{stand_in}")
    if log.end is not None:
        standings.apply_reports(log.end.seats)
    print("standings:" + (" (fewer points are better)" if standings.lower_is_better else ""))
    for s in standings.ranked():
        own = (f" ({s.own_games} own games, {s.stand_in_games} by a stand-in)"
               if s.stand_in_games else "")
        print(f"  p{s.number} {s.name:<16} {s.points:6d} points{own}  mean place "
              f"{s.mean_place_text()}  {s.mean_move_ms:.2f} ms/move  {s.status_text()}")
    for s in standings.players:
        if s.status != "OK" and s.detail:
            print(f"  p{s.number}: {s.detail}")
    if standings.stand_in_games:
        print("  points and places count only the games a player played itself")
    if log.end is not None and log.end.error:
        print(f"match aborted: {log.end.error}")
    if log.torn:
        print("the last line was cut short (the writer was stopped) and is ignored")


def write_html(source: Path, log: MatchLog, target: Path) -> int:
    from daihinmin.records.exit_codes import BAD_INPUT, OK, OUTPUT_REFUSED
    from daihinmin.web.replay_frames import LogFramesError
    from daihinmin.web.replay_html import write_replay_log_html

    try:
        games = write_replay_log_html(log, target)  # game by game: any length of log
    except LogFramesError as exc:
        print(terminal_safe(f"daihinmin replay: {source}: {exc}"), file=sys.stderr)
        return BAD_INPUT
    except OSError as exc:
        print(f"daihinmin replay: cannot write {target}: {exc}", file=sys.stderr)
        return OUTPUT_REFUSED
    print(f"wrote {target}: {games} games to step through")
    return OK


def replay_command(args: argparse.Namespace) -> int:
    with contextlib.redirect_stdout(TerminalSafe(sys.stdout)):
        return replay_safely(args)


def replay_safely(args: argparse.Namespace) -> int:
    from daihinmin.records.errors import MatchLogError
    from daihinmin.records.exit_codes import BAD_INPUT
    from daihinmin.records.matchlog import scan_match_log

    try:
        # One game at a time: the log is checked whole first, and its games are read again
        # as they are replayed, so a log of any length takes the memory of one game.
        return replay_scanned(args, scan_match_log(args.log))
    except MatchLogError as exc:  # on the first reading, or when the file changed since
        print(terminal_safe(f"daihinmin replay: {exc}"), file=sys.stderr)
        return BAD_INPUT


def replay_scanned(args: argparse.Namespace, log: MatchLog) -> int:
    from daihinmin.records.replay import LogMismatchError, replay_log, verify_log

    if args.html is not None:
        return write_html(args.log, log, args.html)
    if args.kifu is not None:
        from daihinmin.tools.cmd_kifu import write_kifu_file

        return write_kifu_file(args.log, log, args.kifu)
    if args.verify:
        try:
            summary = verify_log(log)
        except LogMismatchError as exc:
            print(terminal_safe(f"daihinmin replay: MISMATCH in {args.log}: {exc}"),
                  file=sys.stderr)
            return 1
        status = "complete" if summary.complete else "incomplete match"
        extra = "".join([f", {summary.faults} faults" if summary.faults else "",
                         f", {summary.stand_in_turns} stand-in turns"
                         if summary.stand_in_turns else "",
                         f", resumed {summary.resumes}x" if summary.resumes else "",
                         f", {summary.kifu_passes} passes the kifu's server never asked for"
                         if summary.kifu_passes else ""])
        print(f"verified {args.log}: {summary.games} games, {summary.turns} turns agree with "
              f"the engine ({status}{extra})")
        programs = log.header.lineup_programs()
        if programs:
            print(f"note: the lineup names programs of its own ({'; '.join(programs)}); "
                  "`match --resume` runs them only when the players are named again")
        if args.game is None:
            return 0
    if args.game is not None:
        try:
            for replayed in replay_log(log):
                if replayed.record.game == args.game:
                    print_game(log, replayed)
                    return 0
        except LogMismatchError as exc:
            print(terminal_safe(f"daihinmin replay: MISMATCH in {args.log}: {exc}"),
                  file=sys.stderr)
            return 1
        print(f"daihinmin replay: no game {args.game} in {args.log}", file=sys.stderr)
        return 2
    print_summary(log)
    return 0
