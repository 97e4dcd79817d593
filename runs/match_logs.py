"""Where a tournament's match logs go: one file per attempt of a match, never reused.

``--log-dir DIR`` makes every match (in process and over TCP) write the server's match log,
``DIR/match-NNNNN.jsonl`` (NNNNN the match id).  A match that is played again (it failed, or
the run was interrupted and ``--resume`` replays it) gets the next free name,
``match-NNNNN.2.jsonl``, ``match-NNNNN.3.jsonl`` ...: the log of an earlier attempt is kept,
never clobbered.  The file is still created exclusively and locked by its one writer
(:mod:`daihinmin.records.outfile`), so a file that appears in between is refused, not
overwritten.  The results database records which log belongs to which attempt.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> first = next_log_path(folder, 7)
>>> first.name
'match-00007.jsonl'
>>> _ = first.write_text("")
>>> next_log_path(folder, 7).name
'match-00007.2.jsonl'
>>> _ = (first.parent / "match-00007.2.player3.stderr").write_text("a stopped attempt's")
>>> next_log_path(folder, 7).name
'match-00007.3.jsonl'
"""

from __future__ import annotations

import os
import re
from pathlib import Path

LOG_NAME = re.compile(r"match-(\d{5,})(?:\.(\d+))?\.jsonl")


def next_log_path(log_dir: str | Path, match_id: int) -> Path:
    """The first name not yet taken in ``log_dir`` for this match (absolute).  A name is
    taken by its log or by a player's stderr kept beside it (``STEM.playerN.stderr``): a
    TCP match stopped while its players were seated leaves their stderr but removes the
    log it never wrote a header to, and the next attempt must not overwrite those."""
    folder = Path(os.path.abspath(log_dir))
    attempt = 1
    while True:
        stem = f"match-{match_id:05d}" + ("" if attempt == 1 else f".{attempt}")
        path = folder / f"{stem}.jsonl"
        if not os.path.lexists(path) and not any(folder.glob(f"{stem}.player*.stderr")):
            return path
        attempt += 1


def logs_in(log_dir: str | Path) -> list[tuple[int, int, Path]]:
    """Every log in ``log_dir`` named as :func:`next_log_path` names them: (match id, the
    number in its name, absolute path), in that order.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("match-00003.2.jsonl", "match-00003.jsonl", "notes.jsonl"):
    ...     _ = (folder / name).write_text("")
    >>> [(m, n, p.name) for m, n, p in logs_in(folder)]
    [(3, 1, 'match-00003.jsonl'), (3, 2, 'match-00003.2.jsonl')]
    """
    folder = Path(os.path.abspath(log_dir))
    found = []
    for entry in os.scandir(folder):
        named = LOG_NAME.fullmatch(entry.name)
        if named is not None and entry.is_file(follow_symlinks=False):
            found.append((int(named[1]), int(named[2] or 1), folder / entry.name))
    return sorted(found)


__all__ = ["logs_in", "next_log_path"]
