"""``daihinmin play``: play in the terminal against bundled bots (one process, no network).

    daihinmin play --rules web --players 4 --seed 7
    daihinmin play --level strong

``--level easy|medium|strong`` seats CPUs of that level
(:mod:`daihinmin.players.levels`) instead of naming the bots with ``--bots``.

At your turn you see the players, the field, the state (revolution, lock, 11-back, ...),
your hand and every legal move numbered; type a number, ``p`` to pass, or the cards
(``S3 H3``).  Each bot's play is shown as it happens; after each game the places and the
match standings.  ``q`` quits.  To take a seat on a server instead, run
``daihinmin bot human --host H --port P --rules NAME``.
"""

from __future__ import annotations

import argparse
import secrets
import sys

from daihinmin.players.levels import LEVELS

DEFAULT_BOT = "default"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="play in the terminal against bundled bots",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="uecda", help="rules preset (uecda, original, web, ...)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule (repeatable)")
    p.add_argument("--players", type=int, default=None,
                   help="number of players, you included (default: the preset's)")
    p.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    p.add_argument("--games", type=int, default=1, help="games in the match (default 1)")
    p.add_argument("--bots", default=None, metavar="KIND[,KIND...]",
                   help="the bots, in seat order after you (the last one repeats); "
                        f"default {DEFAULT_BOT}")
    p.add_argument("--level", default=None, choices=LEVELS,
                   help="CPU level of every bot (instead of --bots)")
    p.add_argument("--seat", type=int, default=0, help="your player number (default 0)")
    p.add_argument("--name", default="you", help="your name")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="pause after each bot move")
    p.set_defaults(func=play_command)


def bot_kinds(spec: str, count: int) -> list[str]:
    """``count`` bot kinds from ``a,b,c`` (the last one repeats).

    >>> bot_kinds("default,random", 4)
    ['default', 'random', 'random', 'random']
    """
    kinds = [k.strip() for k in spec.split(",") if k.strip()] or [DEFAULT_BOT]
    return [kinds[min(i, len(kinds) - 1)] for i in range(count)]


def play_command(args: argparse.Namespace) -> int:
    from daihinmin.local.terminal import PlaySession, Seat
    from daihinmin.players.human import HumanBot, HumanQuit
    from daihinmin.players.levels import level_for, make_level_bot
    from daihinmin.players.prepare import prepare_kinds
    from daihinmin.players.registry import UnknownBotError, make_bot
    from daihinmin.rules.ruleset import RuleConfigError, ruleset_from
    from daihinmin.values.words import counted
    from rich.console import Console

    console = Console(highlight=False)
    overrides = list(args.rule)
    try:
        rules = ruleset_from(args.rules, overrides)
        if args.players is not None and args.players != rules.players:
            rules = ruleset_from(args.rules, [*overrides, f"players={args.players}"])
        if args.games < 1:
            raise ValueError("--games must be 1 or more")
        if not 0 <= args.seat < rules.players:
            raise ValueError(f"--seat must be 0..{rules.players - 1}")
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        if args.level is not None and args.bots is not None:
            raise ValueError("give --level or --bots, not both")
        wanted = bot_kinds(args.bots or DEFAULT_BOT, rules.players - 1)
        if "human" in wanted:
            raise ValueError("--bots names the bots; you are the only human seat")
        kinds = iter(wanted)
        human = HumanBot(console=console, infer_notes=False)
        seats: list[Seat] = []
        level = level_for(args.level, rules) if args.level is not None else None
        prepare_kinds([level.bot] if level is not None else wanted, "daihinmin play")
        for p in range(rules.players):
            if p == args.seat:
                seats.append(Seat(human, args.name))
            elif level is not None:
                seats.append(Seat(make_level_bot(level.name, rules, seed + p), level.label))
            else:
                kind = next(kinds)
                seats.append(Seat(make_bot(kind, seed=seed + p), kind))
    except (RuleConfigError, UnknownBotError, ValueError, TypeError) as exc:
        print(f"daihinmin play: {exc}", file=sys.stderr)
        return 2
    human.names = [s.name for s in seats]
    if level is not None and level.note:
        console.print(f"[yellow]{level.note}[/]")
    console.print(f"[bold]daihinmin play[/]: rules {rules.name}, {rules.players} players, "
                  f"{counted(args.games, 'game')}, seed {seed}. Type ? for help, q to quit.")
    session = PlaySession(rules, seed, args.games, seats, args.seat, delay=args.delay)
    try:
        session.run()
    except HumanQuit:
        console.print("Bye.")
        return 0
    return 0
