"""daihinmin.records: what a match leaves behind, and reading it back.

Modules: ``matchlog`` (the JSON Lines match log: write it, read it one game at a time),
``logcheck`` (the checks of every field read), ``replay`` (re-simulate a log and name the
first mismatch), ``inprocess_log`` (the same log written for a match played in process),
``outfile`` (output files created exclusively and locked while written), ``standings`` (a
match's standings from its records), ``kifu`` and ``kifu_log`` (the UECda reference
server's game record, and a match log as one and back), ``move_reading`` (the move a table's
cells mean, or why none), ``exit_codes`` (what every command's exit status means),
``errors``.
The server, the in-process runner, the browser and tournaments all write and read match
records through this package; a log-schema change touches it and ``driver.record`` only.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what __getattr__ gives, for the type checker (a user's too)
    from daihinmin.records.errors import MatchLogError, RecordsError
    from daihinmin.records.inprocess_log import LocalMatchLog
    from daihinmin.records.matchlog import MatchLogWriter, PlayerInfo, read_match_log
    from daihinmin.records.replay import LogMismatchError, verify_log
    from daihinmin.records.standings import Standings

# Each name is imported from its module on first use: a command that only needs the
# exit codes does not import the match log, the replay and the engine.
_MODULES = {
    "errors": ("MatchLogError", "RecordsError"),
    "inprocess_log": ("LocalMatchLog",),
    "matchlog": ("MatchLogWriter", "PlayerInfo", "read_match_log"),
    "replay": ("LogMismatchError", "verify_log"),
    "standings": ("Standings",),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LocalMatchLog", "LogMismatchError", "MatchLogError", "MatchLogWriter", "PlayerInfo",
           "RecordsError", "Standings", "read_match_log", "verify_log"]
