"""``python -m daihinmin.tools.botproc KIND ...`` = ``daihinmin bot KIND ...``.

The same command (``daihinmin.tools.cmd_bot``, same flags and exit codes), without loading
every other sub-command of ``daihinmin`` first: a TCP tournament starts five bot processes
per match, so their start-up time is a large part of its cost.
"""

from __future__ import annotations

import argparse
import sys

from daihinmin.tools.cmd_bot import register


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="daihinmin")
    register(parser.add_subparsers())
    args = parser.parse_args(["bot", *argv])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
