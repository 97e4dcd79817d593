"""Resource limits for a player's process, and how a stop by one is described.

Every player process the platform starts runs under these, through the guard
(:mod:`daihinmin.launch.guard`).  A value of 0 turns that limit off.  The defaults suit a
contest: generous for a real bot, small enough that a runaway one harms nobody.

>>> Limits().describe("memory")
'memory limit 2048 MiB'
>>> Limits(cpu_seconds=5).describe("cpu"), Limits().status_of("cpu"), Limits().status_of("memory")
('CPU limit 5 s', 'TIMEOUT', 'CRASHED')
>>> Limits.parse("memory=512, cpu=30").to_dict()["memory"], Limits.parse("processes=8").processes
(512.0, 8)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


class LimitsError(ValueError):
    """A limit that is not a number, is negative, or has no such name."""


# The names a user writes (``--limit memory=512``, ``[limits]`` in a TOML config).
KEYS = {"cpu": "cpu_seconds", "memory": "memory_mib", "processes": "processes",
        "open_files": "open_files", "file_size": "file_size_mib", "wall": "wall_seconds"}
TIMEOUTS = ("cpu", "wall")  # a stop by these is a TIMEOUT; by the others a CRASHED


@dataclass(frozen=True)
class Limits:
    """Per player process (0 = no limit).

    ``cpu_seconds``: CPU time of each process (``RLIMIT_CPU``: SIGXCPU, then SIGKILL);
    ``memory_mib``: its data segment and private writable mappings (``RLIMIT_DATA``: an
    allocation past it fails); ``processes``: processes of the player at once (counted by
    the guard each second; over it, all are killed); ``open_files``: file descriptors
    (``RLIMIT_NOFILE``); ``file_size_mib``: the largest file it may write (``RLIMIT_FSIZE``:
    SIGXFSZ); ``wall_seconds``: how long the player may run at all (the guard kills it).
    """

    cpu_seconds: float = 3600.0
    memory_mib: float = 2048.0
    processes: int = 64
    open_files: int = 1024
    file_size_mib: float = 64.0
    wall_seconds: float = 0.0

    def describe(self, key: str) -> str:
        """``memory`` -> ``memory limit 2048 MiB`` (the reason a result shows)."""
        value = getattr(self, KEYS[key])
        number = f"{value:g}"
        return {"cpu": f"CPU limit {number} s", "memory": f"memory limit {number} MiB",
                "processes": f"process limit {number}",
                "open_files": f"open files limit {number}",
                "file_size": f"file size limit {number} MiB",
                "wall": f"wall time limit {number} s"}[key]

    @staticmethod
    def status_of(key: str) -> str:
        return "TIMEOUT" if key in TIMEOUTS else "CRASHED"

    def to_guard(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}

    def to_dict(self) -> dict[str, float]:
        """By the user's names (``memory``, ``cpu``, ...), for configs and results."""
        return {name: getattr(self, attr) for name, attr in KEYS.items()}

    def with_values(self, values: dict[str, Any]) -> Limits:
        """These limits with ``values`` (user's names) changed; LimitsError on a bad one."""
        changes: dict[str, Any] = {}
        types = {f.name: f.type for f in fields(self)}
        for name, value in values.items():
            if name not in KEYS:
                raise LimitsError(f"no limit named {name!r}; the limits: {', '.join(KEYS)}")
            attr = KEYS[name]
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise LimitsError(f"limit {name}: {value!r} is not a number") from None
            if isinstance(value, bool) or not number >= 0 or number == float("inf"):
                raise LimitsError(f"limit {name}: {value!r} must be a number >= 0")
            changes[attr] = int(number) if types[attr] in (int, "int") else number
        return replace(self, **changes)

    @classmethod
    def parse(cls, text: str, base: Limits | None = None) -> Limits:
        """``"memory=512,cpu=30"`` (the ``--limit`` option's value) over ``base``."""
        values: dict[str, str] = {}
        for item in text.split(","):
            if not item.strip():
                continue
            name, sep, value = item.partition("=")
            if not sep:
                raise LimitsError(f"--limit {item.strip()!r}: give NAME=VALUE")
            values[name.strip().replace("-", "_")] = value.strip()
        return (base or cls()).with_values(values)


__all__ = ["KEYS", "Limits", "LimitsError"]
