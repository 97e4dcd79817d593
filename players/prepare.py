"""Get bundled bots ready before they are needed, saying so when it takes a while.

The Monte-Carlo player compiles its Numba code on its first start (a few minutes on a 2-core
machine), longer than a match's seating timeout.  ``match``, ``tournament``, ``play`` and
``bench mc`` do that work first, in their own process (Numba's cache then makes every bot
process start fast).  A start that compiles says so on stderr before and when it is done; a
start that loads the cache says nothing, unless it took long all the same.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable

_prepared: set[str] = set()  # kinds made ready in this process
UNANNOUNCED_LIMIT = 10.0  # s: an unannounced preparation this long is still reported


def prepare_kinds(kinds: Iterable[str], prog: str) -> None:
    """Prepare each bot kind once (``players.registry.prepare``), with progress on stderr
    when it compiles (``players.registry.prepare_notice``)."""
    from daihinmin.players.registry import needs_preparing, prepare, prepare_notice

    for kind in dict.fromkeys(kinds):
        if kind in _prepared or not needs_preparing(kind):
            continue
        notice = prepare_notice(kind)
        if notice is not None:
            print(f"{prog}: {kind}: {notice}...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        prepare(kind)
        _prepared.add(kind)
        took = time.perf_counter() - started
        if notice is not None or took >= UNANNOUNCED_LIMIT:
            print(f"{prog}: {kind} ready in {took:.1f} s", file=sys.stderr, flush=True)
