"""Get bundled bots ready before they are needed, saying so while it takes.

The Monte-Carlo player compiles its Numba code on first use (over two minutes on a loaded
machine), longer than a match's seating timeout.  ``match``, ``tournament`` and ``bench mc``
do that work first, in their own process (Numba's cache then makes every bot process start
fast), with a line on stderr before and after, so a slow first compile never costs a seat
and never looks like a hang.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable

_prepared: set[str] = set()  # kinds made ready in this process


def prepare_kinds(kinds: Iterable[str], prog: str) -> None:
    """Prepare each bot kind once (``players.registry.prepare``), with progress on stderr."""
    from daihinmin.players.registry import needs_preparing, prepare

    for kind in dict.fromkeys(kinds):
        if kind in _prepared or not needs_preparing(kind):
            continue
        print(f"{prog}: preparing {kind} (compiles on first use; this can take a few "
              "minutes)...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        prepare(kind)
        _prepared.add(kind)
        print(f"{prog}: {kind} ready in {time.perf_counter() - started:.1f} s",
              file=sys.stderr, flush=True)
