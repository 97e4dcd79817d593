"""The ``daihinmin`` command: one sub-command per module, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from importlib import metadata

# Each module defines ``register(subparsers)`` adding its sub-command(s); a handler is stored
# as ``func`` in the parsed namespace and returns the process exit code.
COMMAND_MODULES = [
    "daihinmin.tools.cmd_bench",
    "daihinmin.tools.cmd_bot",
    "daihinmin.tools.cmd_serve",
    "daihinmin.tools.cmd_match",
    "daihinmin.tools.cmd_replay",
    "daihinmin.tools.cmd_tournament",
    "daihinmin.tools.cmd_play",
    "daihinmin.tools.cmd_web",
    "daihinmin.tools.cmd_research",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="daihinmin",
        description="UECda-compatible Daihinmin server, bots, matches and tools.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
