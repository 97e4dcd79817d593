"""The ``daihinmin`` command: one sub-command per module, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Each module defines ``register(subparsers)`` adding its sub-command(s); a handler is stored
# as ``func`` in the parsed namespace and returns the process exit code.
COMMAND_MODULES = [
    "daihinmin.tools.cmd_bench",
    "daihinmin.tools.cmd_bot",
    "daihinmin.tools.cmd_check_bot",
    "daihinmin.tools.cmd_serve",
    "daihinmin.tools.cmd_match",
    "daihinmin.tools.cmd_replay",
    "daihinmin.tools.cmd_kifu",
    "daihinmin.tools.cmd_tournament",
    "daihinmin.tools.cmd_league",
    "daihinmin.tools.cmd_play",
    "daihinmin.tools.cmd_web",
    "daihinmin.tools.cmd_research",
]
RESEARCH_MODULE = "daihinmin.tools.cmd_research"
# The module that registers each sub-command (the research tools are listed in theirs).
# A command line naming one of them builds that parser alone: a bot process (five per
# match) then imports neither the other commands nor what they need.
_COMMANDS = {
    "bench": "daihinmin.tools.cmd_bench",
    "bot": "daihinmin.tools.cmd_bot",
    "check-bot": "daihinmin.tools.cmd_check_bot",
    "serve": "daihinmin.tools.cmd_serve",
    "match": "daihinmin.tools.cmd_match",
    "replay": "daihinmin.tools.cmd_replay",
    "import-kifu": "daihinmin.tools.cmd_kifu",
    "tournament": "daihinmin.tools.cmd_tournament",
    "league": "daihinmin.tools.cmd_league",
    "play": "daihinmin.tools.cmd_play",
    "web": "daihinmin.tools.cmd_web",
}


def command_module(name: str) -> str | None:
    """The module registering the sub-command ``name`` (None: no such command)."""
    if name in _COMMANDS:
        return _COMMANDS[name]
    from daihinmin.tools.cmd_research import RESEARCH_TOOLS

    return RESEARCH_MODULE if name in RESEARCH_TOOLS else None


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked (importlib.metadata
    costs more to import than a bot's whole command line)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"{parser.prog} {package_version()}")  # on stdout, as argparse's own
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (``command``) the parser with that sub-command alone:
    it parses that command's arguments exactly as the whole one does."""
    parser = argparse.ArgumentParser(
        prog="daihinmin",
        description="UECda-compatible Daihinmin server, bots, matches and tools.",
    )
    parser.add_argument("--version", action=_VersionAction,
                        help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    module = command_module(command) if command is not None else None
    for name in COMMAND_MODULES if module is None else [module]:
        importlib.import_module(name).register(sub)
    from daihinmin.tools.help_text import use_plain_help

    use_plain_help(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_given = sys.argv[1:] if argv is None else argv
    parser = build_parser(args_given[0] if args_given else None)
    # A research tool parses its own arguments: everything after its name is handed over.
    args, rest = parser.parse_known_args(argv)
    passthrough = getattr(args, "passthrough", None)
    if rest and passthrough is None:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if passthrough is not None:
            return int(passthrough(rest))
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return closed_pipe()


def package_version() -> str:
    """The installed distribution's version (pyproject's ``version``)."""
    from importlib import metadata

    try:
        return metadata.version("daihinmin")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def closed_pipe() -> int:
    """The reader of our output went away (``daihinmin replay LOG | head -3``): stop quietly.
    Python would complain when it flushes stdout at exit, so stdout becomes /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


if __name__ == "__main__":
    sys.exit(main())
