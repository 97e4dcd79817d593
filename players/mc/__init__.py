"""``mc``: a Monte-Carlo player on a Numba simulator of the ``uecda`` rules.

It samples the hidden hands consistent with what it has seen, plays every candidate move out
to the end of the game many times with a fast heuristic policy, and picks the move with the
best average result (UCB1 over the candidates).  Entry point:
:class:`~daihinmin.players.mc.bot.MCBot` (``make_bot("mc", time_ms=..., playouts=...,
seed=...)``, ``daihinmin bot mc --opt time_ms=300``).

Modules, bottom up:

- ``bits``, ``moves``: card masks (the :mod:`daihinmin.values.cards` layout, one joker as
  bit 60) and moves as ``(cards, info)`` int64 pairs;
- ``plays`` (what a play is and does), ``movegen``, ``state``: legal moves and state
  transitions, equal to the reference engine (differential tests in
  ``tests/players/mc/test_mc_sim.py``); ``convert``: to and from engine objects;
- ``control``: unbeatable plays and certain wins by keeping the lead; ``endgame``: the exact
  two-player solver;
- ``rollout`` (the playout policy), ``models`` (opponent models), ``playout``;
- ``worlds``, ``observe``: determinisation from a :class:`~daihinmin.contract.view.GameView`
  (proposals weighted and resampled, then refined by Metropolis card swaps);
- ``tree`` (opt-in: the searching player's own later decisions in a playout as nodes keyed
  by what it sees, UCB1 once a node is reached often enough);
- ``search`` (the bandit), ``exchange`` (candidate returns), ``bot``, ``bench``, ``warmup``.

Every Numba function is compiled with ``cache=True``; :func:`~daihinmin.players.mc.bot.warm_up`
loads them once per process.  Numba keys a cached function by its own file only, so an edit to
a callee in another module would leave callers running the old code.  The cache therefore
lives in a directory named after a digest of every source file with Numba code
(:data:`NUMBA_SOURCES`: this folder, and the Numba matches, generator and batched
environment that call into it; ``__pycache__/numba-<digest>``, or under ``$NUMBA_CACHE_DIR``
when that is set): any edit starts a fresh cache, and in ``__pycache__`` the caches of other
versions are removed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from numba.core import config as _numba_config

CACHE_PREFIX = "numba-"


# Every file with Numba code, from the project's root (a test checks none is missing): the
# cache this process uses holds all their compiled code, and a caller's cached code holds
# its callees' from other files.
NUMBA_SOURCES = ("players/mc/*.py", "local/pyrandom.py", "local/numba_match.py",
                 "env/batched.py")
ROOT = Path(__file__).resolve().parents[2]


def source_digest(root: Path = ROOT, patterns: tuple[str, ...] = NUMBA_SOURCES) -> str:
    """A digest of the sources under ``root`` that ``patterns`` name (paths and contents)."""
    h = hashlib.sha256()
    for path in sorted(p for pattern in patterns for p in root.glob(pattern)):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def use_versioned_cache(folder: Path, root: Path = ROOT,
                        patterns: tuple[str, ...] = NUMBA_SOURCES) -> str:
    """Point Numba's cache at a directory for exactly these sources.  In the default place
    (``folder/__pycache__``, this checkout's own) older versions are removed; a shared
    ``$NUMBA_CACHE_DIR`` is left for its owner to tidy."""
    shared = os.environ.get("NUMBA_CACHE_DIR")
    base = Path(shared) if shared else folder / "__pycache__"
    current = base / f"{CACHE_PREFIX}{source_digest(root, patterns)}"
    _numba_config.CACHE_DIR = str(current)  # type: ignore[attr-defined]  # read by Numba, not declared
    if not shared:
        for old in base.glob(f"{CACHE_PREFIX}*"):
            if old != current and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)  # another version's compiled code
    return str(current)


CACHE_DIR = use_versioned_cache(Path(__file__).parent)
