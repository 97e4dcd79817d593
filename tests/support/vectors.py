"""Where the tests' recorded vectors live: ``tests/data`` (importable as ``vectors``).

The repository carries its own test data, so a fresh clone runs every test with nothing
beside it.  ``data/transcript_example.txt`` is the reference session (its first lines say
what it holds and how it is written).
"""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent  # these helper modules (a child process's PYTHONPATH)
DATA = SUPPORT.parent / "data"
TRANSCRIPT = DATA / "transcript_example.txt"


def transcript_text() -> str:
    """The decoded reference session and the server's kifu of it."""
    return TRANSCRIPT.read_text(encoding="utf-8")
