"""What a league plays: rules, where the entrants are, table size, time limits, stopping rule.

A league config is a TOML file (``daihinmin league CONFIG``)::

    name = "spring league"
    rules = "uecda"                 # a preset (docs/RULES.md); rule = ["key=value", ...]
    submissions = "entries"         # a folder of submission folders (relative to this file)
    house = ["default", "random"]   # bundled bots that play as entrants too (optional)
    database = "league.sqlite"      # the results (relative to this file)
    logs = "league-logs"            # every match's log, for its replay
    games_per_match = 10
    tables = 2                      # matches played at once
    backend = "local"
    seed = 1
    move_time = 1.0                 # seconds per move (time_bank, profile_time too)
    crash_limit = 3                 # suspended after this many failed matches in a row
    show_errors = "host"            # or "all": every visitor sees entrants' error output
    format = "ladder"               # or "uecda-groups"
    web_port = 8090                 # the leaderboard on 127.0.0.1 (0: any free port)
    sandbox = "bwrap"               # every entrant's process in a sandbox (docs/SANDBOX.md)

    [limits]                        # per player process (docs/SANDBOX.md)
    memory = 512

    [stop]                          # optional: stop when any is met
    matches = 500
    games = 5000
    hours = 48.0                    # of this run

>>> cfg = config_from_dict({"house": ["default", "random"], "games_per_match": 4}, Path("/x"))
>>> cfg.rules, cfg.table_size, cfg.database_path, cfg.format
('uecda', 5, PosixPath('/x/league.sqlite'), 'ladder')
>>> config_from_dict({"tables": 0}, Path("/x"))
Traceback (most recent call last):
...
daihinmin.league.config.LeagueConfigError: tables must be 1..64, got 0
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from daihinmin.launch.process import LaunchOptions
from daihinmin.rules.ruleset import RuleConfigError, RuleSet, ruleset_from

FORMATS = ("ladder", "uecda-groups")
BACKENDS = ("local", "ray")
SHOW_ERRORS = ("host", "all")
MAX_CONFIG_BYTES = 256 * 1024


class LeagueConfigError(ValueError):
    """The league config is not valid (exit code 2; a file that cannot be read: 4)."""


class LeagueConfigFileError(LeagueConfigError):
    """The TOML file is missing, unreadable or not TOML (exit code 4)."""


@dataclass(frozen=True)
class StopRule:
    """Stop when any of these is reached (0: not a rule)."""

    matches: int = 0
    games: int = 0
    hours: float = 0.0

    def describe(self) -> str:
        parts = [f"{self.matches} matches" if self.matches else "",
                 f"{self.games} games" if self.games else "",
                 f"{self.hours:g} hours" if self.hours else ""]
        return " or ".join(p for p in parts if p) or "never (until stopped)"


@dataclass(frozen=True)
class GroupsFormat:
    """``format = "uecda-groups"``: groups of ``size`` play ``games`` games each round, the
    best ``advance`` of each group (by points) go on, until one group is left: the final."""

    size: int = 5
    games: int = 100
    advance: int = 2
    filler: str = "default"  # the bundled bot that fills a short group (never advances)


@dataclass(frozen=True)
class LeagueConfig:
    home: Path  # the folder relative paths are read from (the config file's)
    name: str = "league"
    rules: str = "uecda"
    rule: tuple[str, ...] = ()
    submissions: str | None = None
    house: tuple[str, ...] = ()
    database: str = "league.sqlite"
    logs: str = "league-logs"
    games_per_match: int = 10
    tables: int = 1
    backend: str = "local"
    transport: str = "tcp"  # or "in-process": house bots only, as objects (fast research)
    seed: int = 1
    move_time: float = 1.0
    time_bank: float = 10.0
    profile_time: float = 10.0
    match_timeout: float = 600.0
    crash_limit: int = 3
    show_errors: str = "host"
    format: str = "ladder"
    web_port: int | None = None
    lobby_port: int | None = None
    lobby: tuple[str, ...] = ()  # entrants that play from their own client (names)
    scan_seconds: float = 5.0  # how often the submissions folder is looked at
    sandbox: str = "none"  # or "bwrap": every entrant's process in a sandbox (SANDBOX.md)
    check_bot: bool = True  # a new version plays only once `daihinmin check-bot` passed it
    limits: tuple[tuple[str, float], ...] = ()  # [limits]: per player process (SANDBOX.md)
    stop: StopRule = field(default_factory=StopRule)
    groups: GroupsFormat = field(default_factory=GroupsFormat)

    def launch_options(self) -> LaunchOptions:
        """How every player process runs: the limits and the sandbox."""
        from daihinmin.launch.limits import Limits, LimitsError

        try:
            limits = Limits().with_values(dict(self.limits))
        except LimitsError as exc:
            raise LeagueConfigError(f"[limits]: {exc}") from None
        return LaunchOptions(limits, self.sandbox)

    def ruleset(self) -> RuleSet:
        try:
            return ruleset_from(self.rules, list(self.rule)).validate()
        except RuleConfigError as exc:
            raise LeagueConfigError(f"rules: {exc}") from exc

    @property
    def table_size(self) -> int:
        return self.ruleset().players

    def path(self, value: str) -> Path:
        return (self.home / value).resolve()

    @property
    def database_path(self) -> Path:
        return self.path(self.database)

    @property
    def logs_path(self) -> Path:
        return self.path(self.logs)

    def to_json(self) -> str:
        d = asdict(self)
        d["home"] = str(self.home)
        return json.dumps(d, sort_keys=True)

    def fingerprint(self) -> str:
        """What decides how games are played and counted (not the speed or the pages)."""
        keep = ("rules", "rule", "games_per_match", "format", "seed")
        d = {k: getattr(self, k) for k in keep}
        d["groups"] = asdict(self.groups) if self.format == "uecda-groups" else None
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=list).encode()
                              ).hexdigest()[:16]


_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,), "rules": (str,), "submissions": (str,), "database": (str,),
    "logs": (str,), "games_per_match": (int,), "tables": (int,), "backend": (str,),
    "transport": (str,),
    "seed": (int,), "move_time": (int, float), "time_bank": (int, float),
    "profile_time": (int, float), "match_timeout": (int, float), "crash_limit": (int,),
    "show_errors": (str,), "format": (str,), "web_port": (int,), "lobby_port": (int,),
    "scan_seconds": (int, float), "table_size": (int,), "sandbox": (str,),
    "check_bot": (bool,)}


def _typed(d: Mapping[str, Any], key: str, types: tuple[type, ...], where: str = "") -> Any:
    value = d[key]
    if type(value) not in types:
        names = " or ".join("number" if t is float else t.__name__ for t in types)
        raise LeagueConfigError(f"{where}{key} must be a {names}, got {value!r:.40}")
    return value


def _texts(value: Any, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LeagueConfigError(f"{key} must be a list of texts")
    return tuple(value)


def config_from_dict(d: Mapping[str, Any], home: Path) -> LeagueConfig:
    """The league of a parsed TOML file (:class:`LeagueConfigError` says what is wrong)."""
    d = dict(d)
    stop = d.pop("stop", {})
    groups = d.pop("groups", {})
    limits = d.pop("limits", {})
    if not isinstance(limits, dict) or not all(
            type(v) in (int, float) for v in limits.values()):
        raise LeagueConfigError("[limits] must be a table of numbers (memory = 512, ...)")
    known = set(_TYPES) | {"rule", "house", "lobby"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise LeagueConfigError(f"unknown keys {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for key, types in _TYPES.items():
        if key in d:
            kwargs[key] = _typed(d, key, types)
    for key in ("rule", "house", "lobby"):
        if key in d:
            kwargs[key] = _texts(d[key], key)
    table_size = kwargs.pop("table_size", None)
    cfg = LeagueConfig(home=home, stop=_stop_rule(stop), groups=_groups(groups),
                       limits=tuple(sorted(limits.items())), **kwargs)
    if table_size is not None and table_size != cfg.table_size:
        cfg = replace(cfg, rule=(*cfg.rule, f"players={table_size}"))
    return validate(cfg)


def _stop_rule(d: Any) -> StopRule:
    if not isinstance(d, dict):
        raise LeagueConfigError("[stop] must be a table")
    unknown = sorted(set(d) - {"matches", "games", "hours"})
    if unknown:
        raise LeagueConfigError(f"[stop]: unknown keys {', '.join(unknown)}")
    rule = StopRule(
        matches=_typed(d, "matches", (int,), "stop.") if "matches" in d else 0,
        games=_typed(d, "games", (int,), "stop.") if "games" in d else 0,
        hours=float(_typed(d, "hours", (int, float), "stop.")) if "hours" in d else 0.0)
    if rule.matches < 0 or rule.games < 0 or not 0 <= rule.hours <= 10**6:
        raise LeagueConfigError("[stop]: matches, games and hours must be 0 or more")
    return rule


def _groups(d: Any) -> GroupsFormat:
    if not isinstance(d, dict):
        raise LeagueConfigError("[groups] must be a table")
    unknown = sorted(set(d) - {"size", "games", "advance", "filler"})
    if unknown:
        raise LeagueConfigError(f"[groups]: unknown keys {', '.join(unknown)}")
    g = GroupsFormat(**{k: _typed(d, k, (str,) if k == "filler" else (int,), "groups.")
                        for k in d})
    if not 1 <= g.advance < g.size or not 1 <= g.games <= 100_000:
        raise LeagueConfigError("[groups]: advance must be 1..size-1 and games 1..100000")
    return g


def validate(cfg: LeagueConfig) -> LeagueConfig:
    rules = cfg.ruleset()
    if cfg.format not in FORMATS:
        raise LeagueConfigError(f"format must be one of {', '.join(FORMATS)}, got "
                                f"{cfg.format!r:.40}")
    if cfg.backend not in BACKENDS:
        raise LeagueConfigError(f"backend must be one of {', '.join(BACKENDS)}")
    if cfg.transport not in ("tcp", "in-process"):
        raise LeagueConfigError("transport must be tcp or in-process")
    if cfg.transport == "in-process" and (cfg.submissions or cfg.lobby):
        raise LeagueConfigError("transport in-process plays house bots only (no submissions, "
                                "no lobby)")
    if cfg.sandbox not in ("none", "bwrap"):
        raise LeagueConfigError("sandbox must be none or bwrap")
    cfg.launch_options()  # the limits' names and values
    if cfg.sandbox == "bwrap" and cfg.lobby:
        raise LeagueConfigError("a lobby seat reaches the lobby, which the sandbox forbids: "
                                "lobby entrants need sandbox = \"none\" (their programs run on "
                                "their own machines anyway)")
    if cfg.show_errors not in SHOW_ERRORS:
        raise LeagueConfigError(f"show_errors must be one of {', '.join(SHOW_ERRORS)}")
    if not 1 <= cfg.tables <= 64:
        raise LeagueConfigError(f"tables must be 1..64, got {cfg.tables}")
    if not 1 <= cfg.games_per_match <= 100_000:
        raise LeagueConfigError("games_per_match must be 1..100000")
    if not 0 <= cfg.seed < 2**62:
        raise LeagueConfigError("seed must be 0..2**62-1")
    if cfg.crash_limit < 1:
        raise LeagueConfigError("crash_limit must be at least 1")
    for key in ("move_time", "time_bank", "profile_time", "match_timeout", "scan_seconds"):
        if not 0 < getattr(cfg, key) <= 10**6:
            raise LeagueConfigError(f"{key} must be a positive number of seconds")
    for key in ("web_port", "lobby_port"):
        port = getattr(cfg, key)
        if port is not None and not 0 <= port <= 65535:
            raise LeagueConfigError(f"{key} must be 0..65535")
    if cfg.format == "uecda-groups" and cfg.groups.size != rules.players:
        raise LeagueConfigError(f"[groups] size {cfg.groups.size} must be the rules' "
                                f"{rules.players} players")
    if cfg.submissions is None and not cfg.house and not cfg.lobby:
        raise LeagueConfigError("no entrants: give submissions (a folder), house or lobby")
    return cfg


def load_config(path: str | Path) -> LeagueConfig:
    """The league of a TOML file; relative paths in it are read from its folder."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise LeagueConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise LeagueConfigFileError(f"{path}: longer than {MAX_CONFIG_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise LeagueConfigFileError(f"{path}: not valid TOML ({exc})") from None
    try:
        return config_from_dict(data, path.resolve().parent)
    except LeagueConfigError as exc:
        raise LeagueConfigError(f"{path}: {exc}") from None


__all__ = ["GroupsFormat", "LeagueConfig", "LeagueConfigError", "LeagueConfigFileError",
           "StopRule", "config_from_dict", "load_config"]
