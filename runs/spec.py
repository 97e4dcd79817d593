"""What a run plays: participants, match specs and the table settings (plain, picklable data).

A :class:`MatchSpec` carries everything its table needs (rules, seed, games, and the lineup of
participants themselves, not indices into someone's list), so it crosses to a worker process
or a Ray node unchanged.

>>> p = Participant("a", bot="mc", options={"playouts": 200})
>>> p.kind, p.describe(), Participant("x", command="./x --port {port}").kind
('bot', 'mc:playouts=200', 'command')
>>> Participant("s", submission="/srv/bots/s").kind
'submission'
>>> import pickle
>>> spec = MatchSpec(3, "uecda", (), seed=9, games=2, lineup=(p,) * 5)
>>> pickle.loads(pickle.dumps(spec)) == spec, spec.names()
(True, ['a', 'a', 'a', 'a', 'a'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from daihinmin.launch.process import LaunchOptions
from daihinmin.rules.ruleset import RuleSet, ruleset_from

TRANSPORTS = ("tcp", "in-process")
Message = tuple[Any, ...]  # what a worker posts about a task (.worker)


@dataclass(frozen=True)
class Participant:
    """A bundled bot (``bot`` + ``options``), an external command with ``{host}``/``{port}``,
    or a submission folder (``submission``: its ``daihinmin-bot.toml`` says how to run it).

    :attr:`kind` says which; a new kind of participant adds its own field and its case in
    :attr:`kind`, :meth:`describe` and where players are started (:mod:`.tcp_table`).  A
    command is only ever one the user typed or wrote in their own config."""

    name: str
    bot: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    command: str | None = None
    submission: str | None = None

    @property
    def kind(self) -> str:
        if self.submission is not None:
            return "submission"
        return "command" if self.command is not None else "bot"

    @property
    def external(self) -> bool:
        """Played by a process the project does not know (only over TCP)."""
        return self.kind != "bot"

    def describe(self) -> str:
        if self.submission is not None:
            return f"submission: {self.submission}"
        if self.command is not None:
            return f"cmd: {self.command}"
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.bot}:{opts}" if opts else str(self.bot)


@dataclass(frozen=True)
class MatchSpec:
    """One match: ``lineup[i]`` plays player number ``i``; ``id`` is the caller's (a
    tournament's match id), echoed in every result message of the match."""

    id: int
    rules: str
    rule: tuple[str, ...]
    seed: int
    games: int
    lineup: tuple[Participant, ...]
    bot_seeds: tuple[int | None, ...] = ()  # per player: the seed a bundled bot gets, if any
    label: str = ""  # shown to spectators (a tournament's deal set, table and rotation)

    def ruleset(self) -> RuleSet:
        return _ruleset(self.rules, self.rule)

    def names(self) -> list[str]:
        return [p.name for p in self.lineup]

    def bot_seed(self, player: int) -> int | None:
        return self.bot_seeds[player] if player < len(self.bot_seeds) else None


@lru_cache(maxsize=64)
def _ruleset(rules: str, rule: tuple[str, ...]) -> RuleSet:
    return ruleset_from(rules, list(rule)).validate()


@dataclass(frozen=True)
class TableSettings:
    """How every table of a run plays (not what): the same for all its matches."""

    transport: str = "tcp"  # one of TRANSPORTS
    log_dir: str | None = None  # each match's log goes here (.match_logs)
    match_timeout: float = 600.0  # TCP: seconds one match may take before it is failed
    launch: LaunchOptions | None = None  # TCP: the players' limits and sandbox (default: none)


__all__ = ["TRANSPORTS", "MatchSpec", "Message", "Participant", "TableSettings"]
