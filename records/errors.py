"""Errors of match records: logs that cannot be read or do not replay, output files refused."""

from __future__ import annotations


class RecordsError(Exception):
    """Base class of everything the records layer reports."""


class MatchLogError(RecordsError):
    """A match log file cannot be read: bad JSON, unknown schema, or missing records."""
