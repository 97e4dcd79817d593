"""The exit codes of the ``daihinmin`` commands that run matches or read files.

One table for ``match``, ``serve``, ``tournament``, ``replay`` and ``play`` so that a script
can tell a run that did what was asked from one that did not (``daihinmin bot`` has its own
codes for connection failures: ``BOT_*`` below).  Documented for users in
``docs/EXIT_CODES.md``; keep the two in step.
"""

from __future__ import annotations

OK = 0  # the run did what was asked, and every seat was played by its own participant
FAILED = 1  # the run could not finish (a server or runner error)
USAGE = 2  # bad command-line arguments or configuration values
STAND_IN = 3  # finished, but some games were played by a stand-in (crash, timeout, missing bot)
BAD_INPUT = 4  # an input file (log, database, config) is missing, unreadable or invalid
OUTPUT_REFUSED = 5  # an output file exists, is locked by another process, or cannot be written
INTERRUPTED = 130  # stopped by the user (Ctrl-C); the standings so far were printed

# ``daihinmin bot KIND`` (one player process against a server): how its match ended.
BOT_OK, BOT_FAILED, BOT_USAGE = 0, 1, 2  # normal end; the bot itself failed; bad command line
BOT_UNREACHABLE, BOT_CLOSED, BOT_PROTOCOL, BOT_TIMEOUT = 3, 4, 5, 6  # the server: cannot be
# reached; closed the connection mid-match; broke the protocol; sent nothing before the timeout
