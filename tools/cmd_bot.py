"""``daihinmin bot KIND``: run one player as its own process against a UECda server.

KIND is a registered player (``daihinmin bot --list``) or ``module:factory`` for a bot of
your own.  Exit status: 0 when the match ended normally, 2 for a bad command line or an
unknown KIND, 3 server unreachable, 4 server closed the connection mid-match, 5 the server
broke the protocol, 6 read timeout, 1 the bot itself failed.
"""

from __future__ import annotations

import argparse
import logging
import sys

from daihinmin.players.registry import parse_options
from daihinmin.records.exit_codes import BOT_CLOSED as EXIT_CLOSED
from daihinmin.records.exit_codes import BOT_OK as EXIT_OK
from daihinmin.records.exit_codes import BOT_PROTOCOL as EXIT_PROTOCOL
from daihinmin.records.exit_codes import BOT_TIMEOUT as EXIT_TIMEOUT
from daihinmin.records.exit_codes import BOT_UNREACHABLE as EXIT_UNREACHABLE
from daihinmin.records.exit_codes import BOT_USAGE as EXIT_USAGE


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bot", help="run a bundled (or your own) bot against a server",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", nargs="?", help="player name (see --list) or module:factory")
    p.add_argument("--list", action="store_true", help="list the registered players")
    p.add_argument("--host", default="127.0.0.1", help="the server's address")
    p.add_argument("--port", type=int, default=42485, help="the server's port")
    p.add_argument("--name", help="name sent in the profile (default: the bot's own)")
    p.add_argument("--seed", type=int, help="seed for a bot that uses randomness")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                   help="extra option for the bot's factory (ints/floats are converted)")
    p.add_argument("--rules", default="uecda",
                   help="rule preset the bot assumes when listing legal moves")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule of --rules (repeatable)")
    p.add_argument("--extension", action="store_true",
                   help="speak protocol 20260 even when the rules do not need it "
                        "(docs/PROTOCOL_EXTENSION.md; other rule sets use it anyway)")
    # (defaults: daihinmin.client.retry, imported only when a bot runs)
    p.add_argument("--connect-timeout", type=float, default=None, metavar="SECONDS",
                   help="keep trying to connect (a refused connection, or one closed before "
                        "the player number, is tried again with a growing pause) and get the "
                        "player number within this long (default 10; 0 = one try, no limit)")
    p.add_argument("--read-timeout", type=float, default=None, metavar="SECONDS",
                   help="give up when a server message has not come whole within this long "
                        "(default 600; 0 = wait for ever)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary at the end")
    p.add_argument("-v", "--verbose", action="store_true", help="log every game")
    p.set_defaults(func=run_bot_command)


def run_bot_command(args: argparse.Namespace) -> int:
    from daihinmin.client import (
        ServerClosedError,
        ServerTimeoutError,
        ServerUnreachableError,
        run_bot,
    )
    from daihinmin.client.extension import ExtensionRequiredError
    from daihinmin.client.retry import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT
    from daihinmin.players.prepare import prepare_kinds
    from daihinmin.players.registry import UnknownBotError, make_bot, names
    from daihinmin.protocol.errors import ProtocolError
    from daihinmin.rules.ruleset import RuleConfigError, ruleset_from

    if args.list:
        print("\n".join(names()))
        return EXIT_OK
    if not args.kind:
        print("daihinmin bot: give the KIND of bot (or --list)", file=sys.stderr)
        return EXIT_USAGE
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        options = parse_options(args.opt)
        if args.seed is not None:
            options["seed"] = args.seed
        rules = ruleset_from(args.rules, args.rule)
        prepare_kinds([args.kind], "daihinmin bot")  # a first compile says so, not a hang
        bot = make_bot(args.kind, **options)
    except (UnknownBotError, RuleConfigError, ValueError, TypeError) as exc:
        print(f"daihinmin bot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    label = args.name or bot.name
    try:
        record = run_bot(bot, args.host, args.port, name=args.name, rules=rules,
                         extension=True if args.extension else None,
                         connect_timeout=_seconds(args.connect_timeout, DEFAULT_CONNECT_TIMEOUT),
                         read_timeout=_seconds(args.read_timeout, DEFAULT_READ_TIMEOUT))
    except ServerUnreachableError as exc:
        return _fail(label, exc, EXIT_UNREACHABLE)
    except ExtensionRequiredError as exc:
        return _fail(label, exc, EXIT_PROTOCOL)
    except ServerClosedError as exc:
        return _fail(label, exc, EXIT_CLOSED, getattr(bot, "person", False))
    except ServerTimeoutError as exc:
        return _fail(label, exc, EXIT_TIMEOUT, getattr(bot, "person", False))
    except ProtocolError as exc:
        return _fail(label, exc, EXIT_PROTOCOL)
    if not args.quiet:
        known = [p[record.player] for p in record.places if p is not None]
        mean = f", mean place {sum(known) / len(known) + 1:.2f}" if known else ""
        print(f"{label} (player {record.player}): {record.games} games{mean}")
    return EXIT_OK


def _seconds(given: float | None, default: float) -> float | None:
    """An option's seconds: the default when not given, None (no limit) for 0."""
    return default if given is None else given or None


HUMAN_HINT = ("the server stopped waiting for you (its move deadline ran out and it handed "
              "your seat to a stand-in, or it stopped).  A person needs a seat without "
              "deadlines: 'daihinmin serve' gives one to 'daihinmin bot human' unless it runs "
              "with --no-human-seats; any other server needs --move-time 0 --exchange-time 0 "
              "(or its own way to turn deadlines off)")


def _fail(label: str, exc: Exception, code: int, person: bool = False) -> int:
    print(f"daihinmin bot {label}: {exc}", file=sys.stderr)
    if person and code in (EXIT_CLOSED, EXIT_TIMEOUT):
        print(f"daihinmin bot {label}: {HUMAN_HINT}", file=sys.stderr)
    return code
