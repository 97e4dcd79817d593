"""Errors of match records: logs that cannot be read or do not replay, output files refused."""

from __future__ import annotations


class RecordsError(Exception):
    """Base class of everything the records layer reports."""


class MatchLogError(RecordsError):
    """A match log file cannot be read: bad JSON, unknown schema, or missing records."""


class KifuError(RecordsError):
    """A kifu (the reference server's game record) cannot be read, or disagrees with the
    rules; the message names the line (exit code 4)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


class KifuRulesError(RecordsError):
    """The rules cannot be written in a kifu, or a kifu asks for rules the engine has no
    match for (exit code 2)."""
