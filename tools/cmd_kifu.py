"""``daihinmin import-kifu KIFU --log FILE`` and ``daihinmin replay LOG --kifu FILE``: the
reference server's game record (kifu) read into a match log, and a match log written as one.

A kifu that cannot be read, or whose games the engine does not play as it says, exits 4
with one line naming the line of the kifu; rules a kifu cannot state exit 2; an existing
output file is refused (exit 5).  ``docs/KIFU.md`` describes the format and what each side
holds that the other does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from daihinmin.local.terminal_text import terminal_safe

if TYPE_CHECKING:
    from daihinmin.records.matchlog import MatchLog


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("import-kifu",
                       help="read a UECda reference server kifu into a match log")
    p.add_argument("kifu", type=Path, metavar="KIFU", help="a kifu (logs/*.log of tndhms)")
    p.add_argument("--log", type=Path, required=True, metavar="FILE",
                   help="the match log to write (.jsonl; an existing FILE is refused)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule the kifu does not state as it was played (e.g. "
                        "owner_answers=no); repeatable")
    p.set_defaults(func=import_command)


def say(text: str, err: bool = False) -> None:
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def import_command(args: argparse.Namespace) -> int:
    from daihinmin.records.errors import KifuError, KifuRulesError
    from daihinmin.records.exit_codes import BAD_INPUT, OUTPUT_REFUSED, USAGE
    from daihinmin.records.outfile import OutputRefusedError

    try:
        games, complete, torn = import_kifu(args.kifu, args.log, args.rule)
    except KifuRulesError as exc:
        say(f"daihinmin import-kifu: {args.kifu}: {exc}", err=True)
        return USAGE
    except KifuError as exc:
        say(f"daihinmin import-kifu: {exc}", err=True)
        return BAD_INPUT
    except OutputRefusedError as exc:
        say(f"daihinmin import-kifu: {exc}", err=True)
        return OUTPUT_REFUSED
    status = "complete" if complete else "incomplete match"
    say(f"imported {args.kifu}: {games} games ({status}) -> {args.log}")
    if torn:
        say("the kifu's last game was cut short (the server was stopped) and is left out")
    return 0


def import_kifu(source: Path, target: Path, overrides: list[str]) -> tuple[int, bool, bool]:
    """Read the kifu at ``source`` into a new match log at ``target`` (removed again if the
    kifu turns out bad): (games, whether the match is complete, whether a cut last game was
    left out)."""
    from daihinmin.driver.record import GameRecord
    from daihinmin.records.errors import KifuError
    from daihinmin.records.kifu import KifuReader, text_lines
    from daihinmin.records.kifu_log import KifuImport
    from daihinmin.records.matchlog import MatchEnd, MatchHeader, MatchLogWriter

    try:
        f = source.open("rb")
    except OSError as exc:
        raise KifuError(f"cannot read {source}: {exc.strerror or exc}") from None
    with f:
        reading = KifuImport(KifuReader(text_lines(f, str(source)), str(source)), overrides)
        records = reading.records()
        try:
            first = next(records)  # the header: a bad kifu is refused before FILE exists
        except OSError as exc:
            raise KifuError(f"cannot read {source}: {exc.strerror or exc}") from None
        assert isinstance(first, MatchHeader)
        writer = MatchLogWriter.open(target, durable=False)
        complete = False
        try:
            writer.write_header(first)
            for record in records:
                if isinstance(record, MatchEnd):
                    writer.write_end(record)
                    complete = record.status == "complete"
                elif isinstance(record, GameRecord):
                    writer.write_game(record)
        except BaseException as exc:
            writer.close()
            target.unlink(missing_ok=True)  # ours, created above: no half log stays behind
            if isinstance(exc, OSError):
                raise KifuError(f"cannot read {source}: {exc.strerror or exc}") from None
            raise
        writer.close()
    return reading.games, complete, reading.torn


def write_kifu_file(source: Path, log: MatchLog, target: Path) -> int:
    """``replay LOG --kifu FILE``: exit 0, 3 (turns a stand-in played, which the kifu
    cannot mark), 2 (rules a kifu cannot state), 4 or 5."""
    from daihinmin.records.errors import KifuRulesError, MatchLogError
    from daihinmin.records.exit_codes import BAD_INPUT, OUTPUT_REFUSED, STAND_IN, USAGE
    from daihinmin.records.kifu_log import kifu_rules_problem, write_kifu
    from daihinmin.records.outfile import OutputRefusedError, claim_output

    problem = kifu_rules_problem(log.header.ruleset())
    if problem is not None:
        say(f"daihinmin replay: {source}: {problem}", err=True)
        return USAGE
    try:
        out = claim_output(target, what="kifu")
    except OutputRefusedError as exc:
        say(f"daihinmin replay: {exc}", err=True)
        return OUTPUT_REFUSED
    try:
        with out:
            written = write_kifu(log, out)
    except (KifuRulesError, MatchLogError) as exc:
        target.unlink(missing_ok=True)
        say(f"daihinmin replay: {source}: {exc}", err=True)
        return USAGE if isinstance(exc, KifuRulesError) else BAD_INPUT
    say(f"wrote {target}: {written.games} games as a kifu")
    if written.stand_in_games:
        shown = " ".join(map(str, written.stand_in_games[:10]))
        more = " ..." if len(written.stand_in_games) > 10 else ""
        say(f"games {shown}{more} had turns a stand-in played; the kifu cannot mark them, "
            "so they read as the player's own")
        return STAND_IN
    return 0
