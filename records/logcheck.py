"""Types and bounds of the records read back from a match log.

A log is input like any other: it may be hand-edited, cut, or hostile.  ``from_json``
builds the records; these checks then make sure every field has the type and range the
readers rely on (player numbers within the table, one entry per player, finite numbers), so
that ``replay``, ``replay --verify`` and ``--resume`` meet a :class:`LogFieldError` (which the
reader turns into a :class:`~daihinmin.server.errors.MatchLogError` naming the line) instead
of an ``IndexError`` deep inside.

>>> check_ints([0, 1, True], "places", 0, 4)
Traceback (most recent call last):
...
daihinmin.records.logcheck.LogFieldError: places: True is not an integer in 0..4
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from daihinmin.driver.faults import SeatEvent, SeatReport
    from daihinmin.driver.record import GameRecord, TurnRecord
    from daihinmin.records.matchlog import MatchEnd, MatchHeader, PlayerInfo, ResumeRecord

MAX_GAMES = 10_000_000  # games in one match: more is refused before anything is allocated
MAX_POINTS = 10**12  # any real total is far below; bounds what a hostile log can claim
MAX_TEXT = 65536  # characters of a name, a card list, an error text (stderr tails)
MAX_CARDS = 64  # cards in one choice (the deck has 53 or 54)
# A lone surrogate (``"\ud800"`` in the JSON) is no character: it cannot be printed, written
# to a file or shown in a page, so a text holding one is refused like any bad field.
_SURROGATE = re.compile("[\ud800-\udfff]")
# The deadlines and fault policy of a header or resume record: key -> the type of its value.
POLICY_TYPES: dict[str, tuple[type, ...]] = {
    "profile_timeout": (int, float), "move_timeout": (int, float),
    "exchange_timeout": (int, float), "time_bank": (int, float), "send_timeout": (int, float),
    "fault_limit": (int,), "illegal_counts": (bool,), "on_fault": (str,), "fallback": (str,)}
MAX_POLICY_VALUE = 10**9
LINEUP_KINDS = ("bot", "cmd", "submission")


class LogFieldError(ValueError):
    """A field of a log record has the wrong type or is out of range."""


def check_int(value: object, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise LogFieldError(f"{what}: {value!r:.40} is not an integer in {lo}..{hi}")
    return value


def check_ints(values: object, what: str, lo: int, hi: int, length: int | None = None
               ) -> None:
    if not isinstance(values, list):
        raise LogFieldError(f"{what}: not a list")
    if length is not None and len(values) != length:
        raise LogFieldError(f"{what}: {len(values)} entries, the table has {length} players")
    for value in values:
        check_int(value, what, lo, hi)


def check_text(value: object, what: str, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise LogFieldError(f"{what}: {value!r:.40} is not a text of at most {MAX_TEXT} "
                            "characters")
    if _SURROGATE.search(value):
        raise LogFieldError(f"{what}: {value!r:.40} holds a lone surrogate (not a character)")


def check_texts(values: Sequence[object], what: str, lengths: tuple[int, ...]) -> None:
    if not isinstance(values, list) or len(values) not in lengths:
        raise LogFieldError(f"{what}: not a list of {' or '.join(map(str, lengths))} texts")
    for value in values:
        check_text(value, what)


def check_number(value: object, what: str) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise LogFieldError(f"{what}: {value!r:.40} is not a finite number")


def check_raw(value: object, what: str) -> None:
    """The non-zero cells of a bad table: ``[[row, col, value], ...]`` or None."""
    if value is None:
        return
    if not isinstance(value, list) or len(value) > 8 * 15:
        raise LogFieldError(f"{what}: not a list of table cells")
    for cell in value:
        check_ints(cell, what, -(2**31), 2**32, length=3)


def check_players(players: list[PlayerInfo], n: int, what: str) -> None:
    numbers = sorted(p.number for p in players)
    if numbers != list(range(len(numbers))) or len(numbers) > n:
        raise LogFieldError(f"{what}: player numbers {numbers} are not 0..{n - 1}")
    for p in players:
        check_text(p.name, f"{what}: name")
        check_int(p.protocol, f"{what}: protocol", 0, 2**32)
        check_text(p.stand_in, f"{what}: stand_in", optional=True)


def check_header(header: MatchHeader) -> int:
    """The number of players of the logged table (raises ``RuleConfigError`` for bad rules)."""
    n = header.ruleset().players
    check_int(header.seed, "seed", -(2**63), 2**64)
    check_int(header.games, "games", 1, MAX_GAMES)
    check_players(header.players, n, "players")
    if len(header.players) != n:  # the header lists every seat (the standings index them)
        raise LogFieldError(f"players: {len(header.players)} listed, the table has {n}")
    if header.start is not None:
        check_start(header.start, n, header.games)
    check_policy(header.policy)
    if header.lineup is not None:
        check_lineup(header.lineup, n)
    if header.deals not in ("seed", "recorded"):
        raise LogFieldError(f"deals: {header.deals!r:.40} is not seed or recorded")
    if header.kifu is not None:
        check_kifu_lines(header.kifu)
    return n


def check_policy(policy: object) -> None:
    """The logged deadlines and fault policy: an object of known keys and plain values."""
    if policy is None:
        return
    if not isinstance(policy, dict):
        raise LogFieldError(f"policy: {policy!r:.40} is not an object")
    for key, value in policy.items():
        types = POLICY_TYPES.get(key)
        if types is None:
            raise LogFieldError(f"policy: unknown key {key!r:.40}")
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            raise LogFieldError(f"policy {key}: {value!r:.40} is not a "
                                f"{' or '.join(t.__name__ for t in types)}")
        if isinstance(value, int | float) and not isinstance(value, bool) and not (
                math.isfinite(value) and 0 <= value <= MAX_POLICY_VALUE):
            raise LogFieldError(f"policy {key}: {value!r:.40} is not in 0..{MAX_POLICY_VALUE}")
        if isinstance(value, str):
            check_text(value, f"policy {key}")


def check_lineup(lineup: object, n: int) -> None:
    """How each player was started: one ``{"bot": NAME}``, ``{"cmd": COMMAND}`` or
    ``{"submission": FOLDER}`` per player (whether the bot exists, and whether a program may
    run, is the command's to decide)."""
    if not isinstance(lineup, list) or len(lineup) != n:
        raise LogFieldError(f"lineup: not a list of {n} players")
    for number, entry in enumerate(lineup):
        if not isinstance(entry, dict) or len(entry) != 1 or \
                next(iter(entry)) not in LINEUP_KINDS:
            raise LogFieldError(f"lineup: player {number}: {entry!r:.60} is not "
                                '{"bot": NAME}, {"cmd": COMMAND} or {"submission": DIR}')
        value = next(iter(entry.values()))
        check_text(value, f"lineup: player {number}")
        if not value.strip():
            raise LogFieldError(f"lineup: player {number}: an empty name")


MAX_KIFU_LINES = 64  # header lines of a kifu kept in a log's header (the reference has 20)


def check_kifu_lines(lines: object) -> None:
    """The kifu header lines a log keeps: at most :data:`MAX_KIFU_LINES` texts by key."""
    if not isinstance(lines, dict) or len(lines) > MAX_KIFU_LINES:
        raise LogFieldError(f"kifu: not an object of at most {MAX_KIFU_LINES} texts")
    for key, value in lines.items():
        check_text(key, "kifu key")
        check_text(value, "kifu value")


def check_start(start: object, n: int, games: int) -> None:
    """A later first game: its number, the classes it starts with (or None), the seats."""
    if not isinstance(start, dict) or set(start) != {"game", "classes", "seats"}:
        raise LogFieldError("start: not an object of game, classes and seats")
    check_int(start["game"], "start game", 1, games)
    if start["classes"] is not None:
        check_ints(start["classes"], "start classes", 0, n - 1, length=n)
        if sorted(start["classes"]) != list(range(n)):
            raise LogFieldError("start classes: not one class per player")
    check_ints(start["seats"], "start seats", 0, n - 1, length=n)
    if sorted(start["seats"]) != list(range(n)):
        raise LogFieldError("start seats: not one seat per player")


def check_events(events: list[SeatEvent], n: int) -> None:
    for e in events:
        check_int(e.player, "event player", 0, n - 1)
        check_int(e.game, "event game", 0, MAX_GAMES)
        check_int(e.turn, "event turn", 0, 10**6)
        check_text(e.action, "event action")
        check_text(e.detail, "event detail")


def check_reports(reports: list[SeatReport], n: int) -> None:
    for r in reports:
        check_int(r.player, "seat report player", 0, n - 1)
        for kind, count in r.faults.items():
            check_text(kind, "fault kind")
            check_int(count, "fault count", 0, 10**9)
        check_text(r.stand_in, "seat report stand_in", optional=True)
        if r.since_game is not None:
            check_int(r.since_game, "seat report since_game", 0, MAX_GAMES)
        if r.since_turn is not None:
            check_int(r.since_turn, "seat report since_turn", 0, 10**6)
        check_text(r.detail, "seat report detail")


def check_turn(t: TurnRecord, n: int) -> None:
    check_int(t.player, "turn player", 0, n - 1)
    check_text(t.move, "move")
    check_int(t.answer, "answer", -(2**31), 2**32)
    check_number(t.think_ms, "think_ms")
    check_text(t.error, "turn error", optional=True)
    check_raw(t.raw, "turn raw")
    check_text(t.fault, "turn fault", optional=True)
    check_text(t.by, "turn by", optional=True)
    for c in t.choices:
        check_text(c.kind, "choice kind")
        check_int(c.count, "choice count", 0, MAX_CARDS)
        check_text(c.cards, "choice cards")
        check_text(c.error, "choice error", optional=True)
        check_raw(c.raw, "choice raw")
        check_text(c.fault, "choice fault", optional=True)
        check_text(c.by, "choice by", optional=True)


def check_game(g: GameRecord, n: int) -> None:
    check_int(g.game, "game", 1, MAX_GAMES)
    check_ints(g.seats, "seats", 0, n - 1, length=n)
    check_int(g.dealer, "dealer", 0, n - 1)
    if g.classes is not None:
        check_ints(g.classes, "classes", 0, n - 1, length=n)
    check_texts(g.dealt, "dealt", (n,))
    check_texts(g.hands, "hands", (0, n))
    for t in g.transfers:
        check_int(t.giver, "transfer giver", 0, n - 1)
        check_int(t.receiver, "transfer receiver", 0, n - 1)
        check_text(t.cards, "transfer cards")
        for text in (t.error, t.fault, t.by):
            check_text(text, "transfer", optional=True)
        check_raw(t.raw, "transfer raw")
    check_int(g.first, "first", -1, n - 1)
    for turn in g.turns:
        check_turn(turn, n)
    check_ints(g.places, "places", 0, n - 1, length=n)
    check_ints(g.points, "points", -MAX_POINTS, MAX_POINTS, length=n)
    check_ints(g.totals, "totals", -MAX_POINTS, MAX_POINTS, length=n)
    check_events(g.events, n)
    check_ints(g.stand_in, "stand_in", 0, n - 1)
    if g.bank_ms is not None:
        check_ints(g.bank_ms, "bank_ms", 0, 10**12, length=n)
    check_reports(g.reports, n)


def check_end(end: MatchEnd, n: int) -> None:
    check_int(end.games_played, "games_played", 0, MAX_GAMES)
    if end.totals:
        check_ints(end.totals, "totals", -MAX_POINTS, MAX_POINTS, length=n)
    if end.status not in ("complete", "aborted"):
        raise LogFieldError(f"status: {end.status!r:.40} is not complete or aborted")
    check_text(end.error, "error", optional=True)
    check_number(end.wall_seconds, "wall_seconds")
    check_reports(end.seats, n)
    check_events(end.events, n)


def check_resume(resume: ResumeRecord, n: int) -> None:
    check_int(resume.after_game, "after_game", 0, MAX_GAMES)
    check_players(resume.players, n, "players")
    check_policy(resume.policy)


__all__ = ["MAX_GAMES", "LogFieldError", "check_end", "check_game", "check_header",
           "check_resume"]
