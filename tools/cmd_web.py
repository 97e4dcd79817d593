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

from daihinmin.records.exit_codes import BAD_INPUT, FAILED, INTERRUPTED, OK, USAGE
from daihinmin.web.limits import WebLimits

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
    p.add_argument("--origin", action="append", default=[], metavar="URL",
                   help="another origin whose pages may use the app (like "
                        "https://games.example.org; repeatable); the app's own address is "
                        "always allowed, every other site's pages are refused")
    p.add_argument("--publish-token-file", type=Path, default=None, metavar="FILE",
                   help="keep the token publishers need in FILE (made, readable by you only, "
                        "if missing; read if present) instead of printing it")
    p.add_argument("--max-tables", type=int, default=WebLimits.max_tables, metavar="N",
                   help=f"tables at once (default {WebLimits.max_tables})")
    p.add_argument("--tables-per-client", type=int, default=WebLimits.tables_per_client,
                   metavar="N", help="tables one client address may have open (default "
                                     f"{WebLimits.tables_per_client})")
    p.add_argument("--table-idle", type=float, default=WebLimits.table_idle_seconds,
                   metavar="SECONDS", help="close a table no page has had open this long "
                                           f"(default {WebLimits.table_idle_seconds:g})")
    p.add_argument("--sockets-per-client", type=int, default=WebLimits.sockets_per_client,
                   metavar="N", help="open pages (websockets) per client address (default "
                                     f"{WebLimits.sockets_per_client})")
    p.set_defaults(func=web_command)


def web_command(args: argparse.Namespace) -> int:
    import trio
    from daihinmin.server.match_server import is_loopback
    from daihinmin.web.app import serve

    if not 0 <= args.port <= 65535 or args.cpu_delay < 0:
        print("daihinmin web: --port must be 0..65535 and --cpu-delay 0 or more",
              file=sys.stderr)
        return USAGE
    if min(args.max_tables, args.tables_per_client, args.sockets_per_client) < 1 \
            or not args.table_idle > 0:
        print("daihinmin web: the limits must be at least 1 (--table-idle more than 0)",
              file=sys.stderr)
        return USAGE
    bad = [o for o in args.origin if not o.startswith(("http://", "https://"))]
    if bad:
        print(f"daihinmin web: --origin takes http://HOST[:PORT] or https://..., got {bad[0]!r}",
              file=sys.stderr)
        return USAGE
    if not is_loopback(args.host):
        print(f"daihinmin web: warning: listening on {args.host}, not loopback: anyone who "
              "can reach this address can open and join the tables", file=sys.stderr)
    try:
        token = None if args.publish_token_file is None else token_file(args.publish_token_file)
    except (OSError, ValueError) as exc:
        print(f"daihinmin web: --publish-token-file {args.publish_token_file}: {exc}",
              file=sys.stderr)
        return BAD_INPUT
    limits = WebLimits(max_tables=args.max_tables, tables_per_client=args.tables_per_client,
                       table_idle_seconds=args.table_idle,
                       sockets_per_client=args.sockets_per_client)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            served = await nursery.start(lambda task_status: serve(
                args.host, args.port, cpu_delay=args.cpu_delay, log_dir=args.log_dir,
                seed=args.seed, limits=limits, origins=tuple(args.origin),
                publish_token=token, task_status=task_status))
            print(f"daihinmin web: serving on {served.url}/ (Ctrl-C stops)", flush=True)
            if token is None:
                print(f"daihinmin web: to show a match here: --publish '{served.publish_url}'",
                      flush=True)
            else:
                print(f"daihinmin web: to show a match here: --publish '{served.url}/?token="
                      f"TOKEN' with the token in {args.publish_token_file}", flush=True)

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


def token_file(path: Path) -> str:
    """The publish token kept in ``path``: read if the file exists, else a new one written
    there, readable by its owner only."""
    import os
    import secrets

    try:
        token = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        token = secrets.token_urlsafe(24)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
        return token
    except UnicodeDecodeError:
        raise ValueError("not a token (not ASCII text)") from None
    if not 16 <= len(token) <= 200 or not token.replace("-", "").replace("_", "").isalnum():
        raise ValueError("not a token (16 to 200 letters, digits, - and _)")
    return token


def failed(args: argparse.Namespace, exc: BaseException) -> int:
    if isinstance(exc, OSError):
        print(f"daihinmin web: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
    else:
        print(f"daihinmin web: stopped by an error: {exc!r}", file=sys.stderr)
    return FAILED
