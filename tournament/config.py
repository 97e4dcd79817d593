"""What a tournament plays: participants, format, games, seed, rules and concurrency.

A config comes from a TOML file (``daihinmin tournament CONFIG.toml``) or from the quick
command line (``--bot``/``--cmd``).  Everything that decides the content of a match is part
of the *fingerprint*; a resumed run must have the same fingerprint as the stored one (the
game count may grow: more deal sets are appended to the schedule).

>>> cfg = config_from_dict({"games": 50, "participant": [
...     {"name": "a", "bot": "random"}, {"bot": "default", "options": {"x": 1}}]})
>>> [p.name for p in cfg.participants], cfg.format, cfg.transport
(['a', 'default'], 'round-robin', 'tcp')
>>> p = parse_bot_arg("mc:playouts=200,fast=yes")
>>> p.name, p.bot, p.options, p.external
('mc', 'mc', {'playouts': 200, 'fast': True}, False)
"""

from __future__ import annotations

import hashlib
import json
import math
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.rules.ruleset import RuleConfigError, RuleSet, ruleset_from
from daihinmin.runs.spec import TRANSPORTS, Participant, TableSettings

if TYPE_CHECKING:
    from daihinmin.launch.process import LaunchOptions

FORMATS = ("round-robin", "gauntlet")
SCHEDULES = ("auto", "all", "balanced")


class TournamentConfigError(ValueError):
    """The tournament config (file or command line) is not valid."""


class ConfigFileError(TournamentConfigError):
    """The TOML file is missing, unreadable or invalid (exit code 4: a bad input file)."""


# Bounds checked before anything is allocated: a schedule holds one row per match.
MAX_MATCHES = 200_000
MAX_GAMES_PER_MATCH = 10_000_000
MAX_PARTICIPANTS = 1000
MAX_CONFIG_BYTES = 1024 * 1024
# The type of every setting (bool is not an int here: ``games = true`` is refused).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,), "format": (str,), "games": (int,), "games_per_match": (int,),
    "games_exact": (bool,), "seed": (int,), "duplicate": (bool,), "transport": (str,),
    "schedule": (str,),
    "rules": (str,), "bot_seeds": (bool,), "jobs": (int,), "tables": (int,),
    "match_timeout": (int, float)}


@dataclass(frozen=True)
class TournamentConfig:
    participants: tuple[Participant, ...]
    name: str = "tournament"
    format: str = "round-robin"
    hero: str | None = None  # gauntlet: the participant that plays every table
    games: int = 100  # total games wanted; rounded up to whole duplicate rounds...
    games_exact: bool = False  # ...unless this: the last round is cut short
    games_per_match: int = 10
    seed: int = 1
    duplicate: bool = True  # replay each deal set with the lineup rotated through the seats
    transport: str = "tcp"
    schedule: str = "auto"  # all table compositions, a balanced subset, or auto-choose
    rules: str = "uecda"
    rule: tuple[str, ...] = ()
    bot_seeds: bool = True  # give bundled bots a seed derived from (match seed, player)
    jobs: int = 0  # worker processes; 0 = one per core
    tables: int = 0  # TCP: tables played at once (over all workers); 0 = 2 per worker
    match_timeout: float = 600.0  # TCP: seconds one match may take before it is failed
    log_dir: str | None = None  # each match's log goes here (.match_logs)
    # Two participants: stop when a sequential test decides (d0, d1, alpha, beta: the mean
    # points per game of the second minus the first under H0 and H1, the error rates).
    sprt: tuple[float, float, float, float] | None = None
    sandbox: str | None = None  # TCP: "bwrap" runs every player in a sandbox (docs/SANDBOX.md)
    limits: dict[str, float] | None = None  # per player process, over the defaults

    def ruleset(self) -> RuleSet:
        try:
            return ruleset_from(self.rules, list(self.rule)).validate()
        except RuleConfigError as exc:
            raise TournamentConfigError(f"rules: {exc}") from exc

    def launch_options(self) -> LaunchOptions:
        """The players' limits and sandbox (the sandbox's presence is checked on use)."""
        from daihinmin.launch.limits import Limits, LimitsError
        from daihinmin.launch.process import LaunchOptions

        try:
            limits = Limits().with_values(dict(self.limits or {}))
        except LimitsError as exc:
            raise TournamentConfigError(f"limits: {exc}") from None
        return LaunchOptions(limits, self.sandbox or "none")

    def table_settings(self) -> TableSettings:
        """How the run plays each match (the run's settings, not the matches' content)."""
        return TableSettings(self.transport, self.log_dir, self.match_timeout,
                             self.launch_options())

    def fingerprint(self) -> str:
        """Hash of everything that decides what is played (not the game count or speed)."""
        return hashlib.sha256(json.dumps(fingerprint_fields(self), sort_keys=True)
                              .encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["participant"] = [participant_to_dict(p) for p in self.participants]
        del d["participants"]
        d["rule"] = list(self.rule)
        if self.sprt is not None:
            d["sprt"] = list(self.sprt)
        return {k: v for k, v in d.items() if v is not None}

    def programs(self) -> list[str]:
        """The participants that run code of their own: external commands, submissions and
        bots given as ``module:factory`` (importing the module runs it)."""
        return [f"{p.name}: {p.describe()}" for p in self.participants
                if p.external or ":" in str(p.bot)]

    def with_run_options(self, **changes: Any) -> TournamentConfig:
        """Change settings that do not affect results (games, jobs, tables, timeout)."""
        allowed = {"games", "jobs", "tables", "match_timeout", "log_dir", "sandbox", "limits"}
        bad = set(changes) - allowed
        if bad:
            raise TournamentConfigError(f"cannot change {sorted(bad)} on resume")
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def fingerprint_fields(cfg: TournamentConfig) -> dict[str, Any]:
    d = cfg.to_dict()
    for run_only in ("games", "jobs", "tables", "match_timeout", "name", "log_dir", "sandbox",
                     "limits"):
        d.pop(run_only, None)
    if not d.get("games_exact"):
        d.pop("games_exact", None)  # the fingerprints of whole-round tournaments stay as they were
    return d


def participant_to_dict(p: Participant) -> dict[str, Any]:
    d: dict[str, Any] = {"name": p.name}
    if p.submission is not None:
        d["submission"] = p.submission
    elif p.command is not None:
        d["command"] = p.command
    else:
        d["bot"] = p.bot
        if p.options:
            d["options"] = dict(p.options)
    return d


def parse_value(text: str) -> Any:
    """A command-line option value: int, float, yes/no/true/false, or the string."""
    low = text.lower()
    if low in ("yes", "true", "on"):
        return True
    if low in ("no", "false", "off"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_bot_arg(text: str) -> Participant:
    """``NAME[:key=value,...]`` (a bundled bot), optionally ``label=NAME:...``."""
    label = None
    if "=" in text.split(":", 1)[0]:
        label, text = text.split("=", 1)
    kind, _, opts = text.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise TournamentConfigError(f"bot option {item!r}: expected key=value")
        options[key.strip()] = parse_value(value.strip())
    if not kind:
        raise TournamentConfigError(f"--bot {text!r}: no bot name")
    return Participant(name=label or kind, bot=kind, options=options)


def parse_cmd_arg(text: str) -> Participant:
    """``[label=]COMMAND`` with ``{host}`` and ``{port}`` placeholders."""
    label = None
    head = text.split(None, 1)[0] if text.strip() else ""
    if "=" in head and "{" not in head and not head.startswith("-"):
        label, text = text.split("=", 1)
    if "{port}" not in text:
        raise TournamentConfigError(f"--cmd {text!r}: the command needs a {{port}} placeholder")
    return Participant(name=label or Path(shlex.split(text)[0]).name, command=text)


def parse_submission_arg(text: str, name: Any = None) -> Participant:
    """``[LABEL=]DIR``: a submission folder, named by its manifest unless labelled."""
    from daihinmin.launch.submission import SubmissionError, load_submission

    label, sep, folder = text.partition("=")
    if not sep or "/" in label:
        label, folder = "", text
    try:
        sub = load_submission(folder)
    except SubmissionError as exc:
        raise TournamentConfigError(str(exc)) from None
    return Participant(name=str(name or label or sub.name), submission=str(sub.folder))


def unique_names(parts: list[Participant]) -> tuple[Participant, ...]:
    """Same names get ``#2``, ``#3`` suffixes so every participant is told apart."""
    seen: dict[str, int] = {}
    out = []
    for p in parts:
        n = seen.get(p.name, 0) + 1
        seen[p.name] = n
        out.append(p if n == 1 else replace(p, name=f"{p.name}#{n}"))
    if len({p.name for p in out}) != len(out):
        raise TournamentConfigError("participant names are not unique")
    return tuple(out)


_PARTICIPANT_KEYS = {"name", "bot", "options", "command", "submission"}


def participant_from_dict(d: Mapping[str, Any]) -> Participant:
    unknown = set(d) - _PARTICIPANT_KEYS
    if unknown:
        raise TournamentConfigError(f"participant: unknown keys {sorted(unknown)}")
    bot, command, folder = d.get("bot"), d.get("command"), d.get("submission")
    if [bot, command, folder].count(None) != 2:
        raise TournamentConfigError(f"participant {dict(d)}: give exactly one of bot, "
                                    "command, submission")
    options = dict(d.get("options", {}))
    if folder is not None:
        if options:
            raise TournamentConfigError("options are for bundled bots")
        return parse_submission_arg(str(folder), d.get("name"))
    if command is not None:
        if options:
            raise TournamentConfigError("options are for bundled bots; put them in the command")
        p = parse_cmd_arg(str(command))
        return replace(p, name=str(d.get("name", p.name)))
    return Participant(name=str(d.get("name", bot)), bot=str(bot), options=options)


def config_from_dict(d: Mapping[str, Any]) -> TournamentConfig:
    """The config of a mapping (a parsed TOML file or a stored config); anything that is not
    one is a :class:`TournamentConfigError`."""
    try:
        return _config_from_dict(d)
    except TournamentConfigError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise TournamentConfigError(f"not a tournament config ({exc})") from None


def _config_from_dict(d: Mapping[str, Any]) -> TournamentConfig:
    d = dict(d)
    if "tournament" in d:  # allow a [tournament] section as well as top-level keys
        d.update(d.pop("tournament"))
    raw_parts = d.pop("participant", d.pop("participants", []))
    known = {f for f in TournamentConfig.__dataclass_fields__} - {"participants"}
    unknown = set(d) - known
    if unknown:
        raise TournamentConfigError(f"unknown config keys {sorted(unknown)}")
    if "rule" in d:
        rule = d["rule"]
        d["rule"] = tuple([rule] if isinstance(rule, str) else rule)
    if "sprt" in d:
        d["sprt"] = sprt_setting(d["sprt"])
    parts = unique_names([participant_from_dict(p) for p in raw_parts])
    try:
        cfg = TournamentConfig(participants=parts, **d)
    except TypeError as exc:
        raise TournamentConfigError(str(exc)) from exc
    return validate(cfg)


def load_config(path: str | Path) -> TournamentConfig:
    """The tournament of a TOML file; every problem is a :class:`ConfigFileError`."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigFileError(f"{path}: longer than {MAX_CONFIG_BYTES} bytes: not a config")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError, bad UTF-8, huge ints
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise ConfigFileError(f"{path}: not valid TOML ({why})") from None
    try:
        return config_from_dict(data)
    except TournamentConfigError as exc:
        raise ConfigFileError(f"{path}: {exc}") from None


def check_types(cfg: TournamentConfig) -> None:
    """Each setting has its type (a TOML file may say ``games = "many"`` or ``seed = 1.5``)."""
    for key, types in _FIELD_TYPES.items():
        value = getattr(cfg, key)
        if type(value) not in types:
            names = " or ".join("number" if t is float else t.__name__ for t in types)
            raise TournamentConfigError(f"{key} must be {'an' if names[0] in 'ai' else 'a'} "
                                        f"{names}, got {value!r:.40}")
    if cfg.hero is not None and not isinstance(cfg.hero, str):
        raise TournamentConfigError(f"hero must be a participant name, got {cfg.hero!r:.40}")
    if not all(isinstance(r, str) for r in cfg.rule):
        raise TournamentConfigError(f"rule must be a list of KEY=VALUE texts, got {cfg.rule!r:.60}")
    if not 0 <= cfg.seed < 2**63:
        raise TournamentConfigError(f"seed must be in 0..2**63-1, got {cfg.seed}")
    if not 0 < cfg.match_timeout <= 10**7:
        raise TournamentConfigError(f"match_timeout must be in (0, 1e7] s, got {cfg.match_timeout}")
    if cfg.jobs > 1024 or cfg.tables > 4096:
        raise TournamentConfigError("jobs must be at most 1024 and tables at most 4096")
    if len(cfg.participants) > MAX_PARTICIPANTS:
        raise TournamentConfigError(f"at most {MAX_PARTICIPANTS} participants")
    for p in cfg.participants:
        if not all(isinstance(v, str) for v in (p.name, p.bot or "", p.command or "")):
            raise TournamentConfigError(f"participant {p.name!r:.40}: name, bot and command "
                                        "must be texts")
        for k, v in p.options.items():
            if type(v) not in (str, int, float, bool):
                raise TournamentConfigError(f"participant {p.name}: option {k} must be a "
                                            f"text, number or boolean, got {v!r:.40}")


def check_sizes(cfg: TournamentConfig) -> None:
    """Absurd sizes are refused before a schedule is built (it holds one row per match)."""
    if cfg.games < 1 or cfg.games_per_match < 1:
        raise TournamentConfigError("games and games_per_match must be at least 1")
    if cfg.games_per_match > MAX_GAMES_PER_MATCH:
        raise TournamentConfigError(f"games_per_match must be at most {MAX_GAMES_PER_MATCH}")
    matches = -(-cfg.games // cfg.games_per_match)
    if matches > MAX_MATCHES:
        raise TournamentConfigError(
            f"{cfg.games} games of {cfg.games_per_match} per match are {matches} matches; "
            f"at most {MAX_MATCHES} (play more games per match)")
    if cfg.schedule == "all":
        table = cfg.ruleset().players
        tables = math.comb(len(cfg.participants) - (cfg.hero is not None),
                           table - (cfg.hero is not None))
        if tables > MAX_MATCHES:
            raise TournamentConfigError(f"schedule 'all' would seat {tables} tables a round; "
                                        "use 'balanced'")


def validate(cfg: TournamentConfig) -> TournamentConfig:
    check_types(cfg)
    check_sizes(cfg)
    if len(cfg.participants) < 2:
        raise TournamentConfigError("a tournament needs at least 2 participants")
    if cfg.format not in FORMATS:
        raise TournamentConfigError(f"format must be one of {FORMATS}, got {cfg.format!r}")
    if cfg.transport not in TRANSPORTS:
        raise TournamentConfigError(f"transport must be one of {TRANSPORTS}")
    if cfg.schedule not in SCHEDULES:
        raise TournamentConfigError(f"schedule must be one of {SCHEDULES}")
    names = [p.name for p in cfg.participants]
    if cfg.format == "gauntlet":
        if cfg.hero is None:
            cfg = replace(cfg, hero=names[0])
        if cfg.hero not in names:
            raise TournamentConfigError(f"gauntlet hero {cfg.hero!r} is not a participant")
    elif cfg.hero is not None:
        raise TournamentConfigError("hero is only for the gauntlet format")
    if cfg.games < 1 or cfg.games_per_match < 1:
        raise TournamentConfigError("games and games_per_match must be at least 1")
    if cfg.jobs < 0 or cfg.tables < 0:
        raise TournamentConfigError("jobs and tables must be >= 0")
    if cfg.transport == "in-process":
        ext = [p.name for p in cfg.participants if p.external]
        if ext:
            raise TournamentConfigError(f"external commands need transport tcp: {ext}")
    if cfg.sandbox not in (None, "none", "bwrap"):
        raise TournamentConfigError(f"sandbox {cfg.sandbox!r}: none or bwrap")
    cfg.launch_options()  # the limits' names and values
    cfg.ruleset()
    if cfg.sprt is not None:
        check_sprt(cfg)
    return cfg


def sprt_setting(value: Any) -> tuple[float, float, float, float]:
    """``[d0, d1]`` or ``[d0, d1, alpha, beta]`` (alpha and beta 0.05 by default)."""
    if (not isinstance(value, list | tuple) or len(value) not in (2, 4)
            or not all(type(v) in (int, float) for v in value)):
        raise TournamentConfigError(f"sprt must be [d0, d1] or [d0, d1, alpha, beta], got "
                                    f"{value!r:.60}")
    d0, d1, alpha, beta = (*map(float, value), 0.05, 0.05)[:4]
    return (d0, d1, alpha, beta)


def check_sprt(cfg: TournamentConfig) -> None:
    from .sprt import SprtError, SprtHypotheses

    assert cfg.sprt is not None
    if len(cfg.participants) != 2:
        raise TournamentConfigError("sprt compares two participants; this tournament has "
                                    f"{len(cfg.participants)}")
    try:
        SprtHypotheses(*cfg.sprt).check()
    except SprtError as exc:
        raise TournamentConfigError(f"sprt: {exc}") from None
