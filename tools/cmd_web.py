"""``daihinmin web``: the browser game (CPUs, hot-seat, rooms), live tables and replays.

    daihinmin web                 # http://127.0.0.1:8080/
    daihinmin web --port 9000 --log-dir logs

Listens on loopback unless ``--host`` says otherwise (another address warns: anyone who can
reach it can join the tables).  Pages and scripts ship with the package; nothing is fetched
from the network.  With ``--log-dir`` every browser match writes a match log there
(``daihinmin replay --verify`` checks it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from daihinmin.records.exit_codes import FAILED, INTERRUPTED, OK, USAGE

DEFAULT_PORT = 8080


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("web", help="serve the browser game, live tables and replays",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--cpu-delay", type=float, default=0.6, metavar="SECONDS",
                   help="pause after each CPU play so people can follow (default 0.6)")
    p.add_argument("--log-dir", type=Path, default=None, metavar="DIR",
                   help="write a match log of every browser match into DIR")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the first table's match, the next tables count up from it "
                        "(default: random seeds)")
    p.set_defaults(func=web_command)


def web_command(args: argparse.Namespace) -> int:
    import trio
    from daihinmin.server.match_server import is_loopback
    from daihinmin.web.app import serve

    if not 0 <= args.port <= 65535 or args.cpu_delay < 0:
        print("daihinmin web: --port must be 0..65535 and --cpu-delay 0 or more",
              file=sys.stderr)
        return USAGE
    if not is_loopback(args.host):
        print(f"daihinmin web: warning: listening on {args.host}, not loopback: anyone who "
              "can reach this address can open and join the tables", file=sys.stderr)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(lambda task_status: serve(
                args.host, args.port, cpu_delay=args.cpu_delay, log_dir=args.log_dir,
                seed=args.seed, task_status=task_status))
            print(f"daihinmin web: serving on {url}/ (Ctrl-C stops)", flush=True)

    try:
        trio.run(main)
    except KeyboardInterrupt:
        print("daihinmin web: stopped", file=sys.stderr)
        return INTERRUPTED
    except BaseExceptionGroup as group:  # the server's nursery: report what stopped it
        first = group.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        if isinstance(first, KeyboardInterrupt):
            return INTERRUPTED
        return failed(args, first)
    except OSError as exc:
        return failed(args, exc)
    return OK


def failed(args: argparse.Namespace, exc: BaseException) -> int:
    if isinstance(exc, OSError):
        print(f"daihinmin web: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
    else:
        print(f"daihinmin web: stopped by an error: {exc!r}", file=sys.stderr)
    return FAILED
