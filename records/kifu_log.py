"""A match log as the reference server's kifu, and a kifu as a match log.

**Writing** (:func:`write_kifu`, ``daihinmin replay LOG --kifu FILE``): a log of the
``uecda`` rules (with only the toggles the reference server has changed) becomes the lines
the reference server's logger writes (:mod:`daihinmin.records.kifu`).  What the kifu cannot
hold is left out: think times, time banks, faults and seat reports, which turns a stand-in
played, the exchange choices the server replaced; a move table that was no move keeps the
cells it had, a timeout is a pass.  The rule the reference server has no setting for, which
of the two ways a trick clears (``owner_answers``), is one more match line in the same
form, ``RULE_OWNER_ANSWERS``; the host name is written as ``daihinmin``.

**Reading** (:class:`KifuImport`, ``daihinmin import-kifu``): the engine plays every game
again from the kifu's deal (the log's header says ``deals: "recorded"``: no seed re-creates
them), with the kifu's exchanges and tables as the players' answers, and the mover of every
table, the classes, the finishing order and the points must come out as the kifu says; the
first difference is refused naming its line.  The engine's record of each game is the log's
game: answers (8 or 9) as the engine judges them, think times 0, every player protocol
20070.  The rules come from the kifu's settings; ``RULE_OWNER_ANSWERS``, when missing,
follows the logger that wrote the kifu: the 2013 build (``change_cards`` lines) clears a
trick as soon as all the others have passed, the development kit waits for the owner's
answer.  The kifu's other match lines (host name, window settings, port) are kept in the
header, so writing the kifu again gives them back.  A kifu without ``change_cards`` lines
(the development kit's logger) has its returned cards worked out from the plays: the upper
class returned the cards it received no other way and never played.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace
from typing import IO

from daihinmin.driver.game import (
    ChoiceRequest,
    ExchangeRequest,
    GameDriver,
    GameOver,
    MoveRequest,
    TurnDone,
)
from daihinmin.driver.record import GameRecord, TurnRecord, raw_cells
from daihinmin.rules.events import EventKind
from daihinmin.rules.match import DealError, GameSetup, GivenDeal, MatchState, deal_sizes
from daihinmin.rules.ruleset import UECDA, RuleConfigError, RuleSet, ruleset_from, ruleset_to_dict
from daihinmin.values.cards import CardParseError, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Move, move_to_cells

from . import logcheck
from .errors import KifuError, KifuRulesError, MatchLogError
from .kifu import (
    KIFU_PASS,
    PLAYERS,
    Cells,
    KifuChange,
    KifuGame,
    KifuMatch,
    KifuPlay,
    KifuReader,
    game_lines,
    match_line,
)
from .matchlog import LogRecord, MatchEnd, MatchHeader, MatchLog, PlayerInfo
from .move_reading import read_move_cells

KIFU_PROTOCOL = 20070  # a kifu names no protocol: the reference server's
OWNER_KEY = "RULE_OWNER_ANSWERS"  # the one match line the reference server does not write
# The reference server's yes/no settings and the rule each one is.
BOOL_RULES: dict[str, str] = {
    "RULE_KAKUMEI": "revolution", "RULE_SHIBARI": "lock", "RULE_KAIDAN": "sequences",
    "RULE_CHANGE": "exchange", "RULE_6REVERS": "six_reverse", "RULE_8GIRI": "eight_cut",
    "RULE_11BACK": "eleven_back", OWNER_KEY: "owner_answers"}
# Every rule a kifu states; all others must be uecda's.
STATED_RULES = (*BOOL_RULES.values(), "seat_change_period", "class_reset_period")
# The match lines in the order the reference server writes them (with ours after the 11-back).
MATCH_KEYS = ("hostname", "TIME_START", "palyer_name", "WINDOW_TYPE", "GRAPH_WINDOW",
              "RAND_TYPE", "RULE_KAKUMEI", "RULE_SHIBARI", "RULE_KINSOKU", "RULE_KAIDAN",
              "RULE_CHANGE", "RULE_5TOBI", "RULE_6REVERS", "RULE_8GIRI", "RULE_11BACK",
              OWNER_KEY, "RULE_SEKIGAE", "RULE_SEKIGAE_NUM", "GAME_NUMBER",
              "FLASH_MIBUN_NUMBER", "GAME_PORT", "RANDOM_SEED")
# Lines a log has no field for, as a log not read from a kifu writes them (RULE_KINSOKU and
# RULE_5TOBI do nothing in the reference server).
UNSTATED_DEFAULTS = {"hostname": "daihinmin", "WINDOW_TYPE": "CONSOLE", "GRAPH_WINDOW": "NO",
                     "RAND_TYPE": "1", "RULE_KINSOKU": "NO", "RULE_5TOBI": "NO",
                     "GAME_PORT": "42485"}
TIME_FORMAT = "%Y/%m/%d %H:%M:%S"


# --- rules ------------------------------------------------------------------------------------
def kifu_rules_problem(rules: RuleSet) -> str | None:
    """Why a kifu cannot state ``rules`` (None: it can).  A kifu states the reference
    server's settings; every other rule must be uecda's."""
    base = replace(rules, name=UECDA.name, **{f: getattr(UECDA, f) for f in STATED_RULES})
    differ = [f.name for f in fields(RuleSet) if getattr(base, f.name) != getattr(UECDA, f.name)]
    if not differ:
        return None
    shown = ", ".join(f"{f}={_rule_text(getattr(rules, f))}" for f in differ[:4])
    more = f" and {len(differ) - 4} more" if len(differ) > 4 else ""
    return (f"rules {rules.name}: {shown}{more} cannot be written in a kifu (the reference "
            "server plays uecda's rules, with only its own settings to change)")


def _rule_text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(getattr(value, "value", value))


def _yes(value: bool) -> str:
    return "YES" if value else "NO"


# --- writing ----------------------------------------------------------------------------------
def safe_name(name: str) -> str:
    """A name as one word of the names line (spaces and control characters replaced)."""
    text = "".join(ch if ch.isprintable() else "?" for ch in name)
    return re.sub(r"\s", "_", text) or "_"


def kifu_time(stamp: str, seconds: float = 0.0) -> str | None:
    """A log's ISO time stamp (plus ``seconds``) as the kifu writes times; None if it is
    not one."""
    try:
        when = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (when + datetime.timedelta(seconds=round(seconds))).strftime(TIME_FORMAT)


def match_values(header: MatchHeader) -> list[tuple[str, str]]:
    """The match lines a log's header gives, in the reference server's order."""
    rules = header.ruleset()
    kept = header.kifu or {}
    period = rules.seat_change_period
    computed: dict[str, str | None] = {
        "TIME_START": kifu_time(header.started),
        "palyer_name": " ".join(safe_name(p.name) for p in
                                sorted(header.players, key=lambda p: p.number)),
        "RULE_SEKIGAE": _yes(period > 0),
        "RULE_SEKIGAE_NUM": str(period) if period > 0 else "5",
        "GAME_NUMBER": str(header.games),
        "FLASH_MIBUN_NUMBER": str(rules.class_reset_period or header.games),
        "RANDOM_SEED": str(header.seed),
        **{key: _yes(getattr(rules, rule)) for key, rule in BOOL_RULES.items()},
        **UNSTATED_DEFAULTS}
    out: list[tuple[str, str]] = []
    for key in MATCH_KEYS:
        value = kept.get(key, computed.get(key))
        if value is not None:
            out.append((key, value))
    out += [(k, v) for k, v in kept.items() if k not in MATCH_KEYS and k not in TAIL_ONLY]
    return out


TAIL_ONLY = ("TIME_END", "TOTAL_POINT")


def kifu_game(record: GameRecord) -> KifuGame:
    """One logged game as the reference server's logger writes it."""
    g = record.game
    dealt = [_cards(g, text) for text in record.dealt]
    changes = [KifuChange(t.giver, t.receiver, _cards(g, t.cards)) for t in record.transfers]
    plays = [KifuPlay(t.player, turn_cells(g, number, t))
             for number, t in enumerate(record.turns, 1) if t.by != KIFU_PASS]
    order = sorted(range(len(record.places)), key=lambda p: record.places[p])
    return KifuGame(g - 1, record.classes, list(record.seats), dealt, changes, plays, order,
                    list(record.totals))


def turn_cells(game: int, number: int, turn: TurnRecord) -> Cells:
    """The table the mover sent, as far as a kifu can hold it.  A table that was no move
    keeps its cells, unless one holds a value other than 1 or 2: the server writes that
    like a card, which would read back as one, so it is written as what it was played as,
    a pass (as is a timeout, which sent no table)."""
    if turn.malformed:
        cells = {(r, c): v for r, c, v in (turn.raw or []) if 0 <= r < 5 and 0 <= c < 15}
        return cells if all(v in (1, 2) for v in cells.values()) else {}
    try:
        return move_to_cells(Move.parse(turn.move))
    except (CardParseError, MoveShapeError, ValueError) as exc:
        raise MatchLogError(f"game {game}, turn {number}: move {turn.move!r:.40} cannot be "
                            f"written ({exc})") from None


def _cards(game: int, text: str) -> CardSet:
    try:
        return CardSet.parse(text)
    except CardParseError as exc:
        raise MatchLogError(f"game {game}: cards {text!r:.40} cannot be written ({exc})"
                            ) from None


@dataclass
class KifuWritten:
    games: int
    stand_in_games: list[int]  # games with turns a stand-in played (the kifu cannot say so)


def write_kifu(log: MatchLog, out: IO[str]) -> KifuWritten:
    """Write ``log`` as a kifu to ``out`` (:class:`KifuRulesError` for rules a kifu cannot
    state, :class:`MatchLogError` for a record that cannot be written)."""
    problem = kifu_rules_problem(log.header.ruleset())
    if problem is not None:
        raise KifuRulesError(problem)
    if len(log.header.players) != PLAYERS:
        raise KifuRulesError(f"a kifu is of {PLAYERS} players; the log has "
                             f"{len(log.header.players)}")
    for key, value in match_values(log.header):
        out.write(match_line(key, value))
    games, stand_in = 0, []
    totals: list[int] = []
    for record in log.games:
        out.writelines(game_lines(kifu_game(record)))
        games += 1
        totals = record.totals
        if record.stand_in or any(t.by and t.by != KIFU_PASS for t in record.turns):
            stand_in.append(record.game)
    if log.end is not None:
        kept = log.header.kifu or {}
        end = kept.get("TIME_END") or kifu_time(log.header.started, log.end.wall_seconds)
        if end is not None:
            out.write(match_line("TIME_END", end))
        out.write(match_line("TOTAL_POINT", " ".join(map(str, log.end.totals or totals))))
    return KifuWritten(games, stand_in)


# --- reading ----------------------------------------------------------------------------------
class KifuImport:
    """A kifu as the records of a match log: the header, every game (each played again by
    the engine and checked), and the end record if the kifu has its last lines or every
    game.  Iterate :meth:`records` once; afterwards ``games`` and ``torn`` say what was read.
    Errors: :class:`KifuError` naming the line, :class:`KifuRulesError` for rules the
    engine cannot play as the kifu states them."""

    def __init__(self, reader: KifuReader, overrides: Sequence[str] = ()) -> None:
        self.reader = reader
        self.overrides = list(overrides)
        self.games = 0
        self.header: MatchHeader | None = None
        self.match: MatchState | None = None
        self.offset: list[int] | None = None  # points before the kifu's first game

    @property
    def torn(self) -> bool:
        return self.reader.torn

    def error(self, line: int, message: str) -> KifuError:
        return self.reader.error(line, message)

    def records(self) -> Iterator[LogRecord]:
        items = iter(self.reader)
        head = next(items)
        assert isinstance(head, KifuMatch)
        first = next(items, None)
        assert first is None or isinstance(first, KifuGame)
        self.header = header = self._header(head, first)
        yield header
        game = first
        while game is not None:
            yield self._game(game)
            following = next(items, None)
            assert following is None or isinstance(following, KifuGame)
            game = following
        end = self._end(head)
        if end is not None:
            yield end

    # --- the match ------------------------------------------------------------------------
    def _int(self, head: KifuMatch, key: str, lo: int, hi: int) -> int:
        text = head.values[key].strip()
        if not re.fullmatch(r"-?[0-9]{1,20}", text) or not lo <= int(text) <= hi:
            raise self.error(head.line(key), f"{key} {text[:20]!r} is not a number in "
                                             f"{lo}..{hi}")
        return int(text)

    def _yes(self, head: KifuMatch, key: str) -> bool:
        text = head.values[key].strip().upper()
        if text not in ("YES", "NO"):
            raise self.error(head.line(key), f"{key} {text[:20]!r} is not YES or NO")
        return text == "YES"

    def rules(self, head: KifuMatch, older_logger: bool) -> RuleSet:
        """The rules the kifu states, with the user's overrides."""
        values = head.values
        stated: dict[str, object] = {}
        for key, rule in BOOL_RULES.items():
            if key in values:
                stated[rule] = self._yes(head, key)
        if OWNER_KEY not in values:
            stated["owner_answers"] = older_logger  # the devkit waits; the 2013 build not
        if "RULE_SEKIGAE" in values and not self._yes(head, "RULE_SEKIGAE"):
            stated["seat_change_period"] = 0
        elif "RULE_SEKIGAE_NUM" in values:
            stated["seat_change_period"] = self._int(head, "RULE_SEKIGAE_NUM", 0,
                                                     logcheck.MAX_GAMES)
        if "FLASH_MIBUN_NUMBER" in values:
            stated["class_reset_period"] = self._int(head, "FLASH_MIBUN_NUMBER", 0,
                                                     logcheck.MAX_GAMES)
        changes = [f"{rule}={_rule_text(v)}" for rule, v in stated.items()
                   if getattr(UECDA, rule) != v]
        try:
            rules = ruleset_from("uecda", changes + self.overrides)
        except RuleConfigError as exc:
            raise KifuRulesError(str(exc)) from None
        problem = kifu_rules_problem(rules)
        if problem is not None:
            raise KifuRulesError(problem)
        return rules

    def _kept(self, head: KifuMatch, rules: RuleSet) -> dict[str, str]:
        """The match lines the log has no field for."""
        used = {"palyer_name", "GAME_NUMBER", "FLASH_MIBUN_NUMBER", "TOTAL_POINT",
                *BOOL_RULES, "RULE_SEKIGAE"}
        if rules.seat_change_period > 0:
            used.add("RULE_SEKIGAE_NUM")
        values = head.values
        if "TIME_START" in values and _parse_time(values["TIME_START"]) is not None:
            used.add("TIME_START")
        if "RANDOM_SEED" in values and re.fullmatch(r"-?[0-9]{1,18}", values["RANDOM_SEED"]):
            used.add("RANDOM_SEED")
        kept = {k: v for k, v in values.items() if k not in used}
        end = self.reader.tail.values.get("TIME_END")
        if end is not None and _parse_time(end) is None:
            kept["TIME_END"] = end
        return kept

    def _header(self, head: KifuMatch, first: KifuGame | None) -> MatchHeader:
        values = head.values
        if "GAME_NUMBER" not in values:
            raise self.error(1, "no GAME_NUMBER line: the kifu says not how many games the "
                                "match has")
        games = self._int(head, "GAME_NUMBER", 1, logcheck.MAX_GAMES)
        rules = self.rules(head, first is not None and first.changes is None)
        names = [f"player{p}" for p in range(PLAYERS)]
        if "palyer_name" in values:
            names = values["palyer_name"].split()
            if len(names) != PLAYERS:
                raise self.error(head.line("palyer_name"), f"{len(names)} names for "
                                 f"{PLAYERS} players (a name with a space cannot be read)")
        seed = int(values["RANDOM_SEED"]) if re.fullmatch(
            r"-?[0-9]{1,18}", values.get("RANDOM_SEED", "")) else 0
        started = _parse_time(values.get("TIME_START", ""))
        start: dict[str, object] | None = None
        if first is not None and first.index > 0:
            if first.index >= games:
                raise self.error(first.lines["mibun"], f"game {first.index:05d} is beyond "
                                 f"the {games} games of the match")
            start = {"game": first.index + 1, "classes": first.classes,
                     "seats": list(first.seats)}
        header = MatchHeader(
            rules=ruleset_to_dict(rules), seed=seed, games=games,
            players=[PlayerInfo(p, names[p], KIFU_PROTOCOL) for p in range(PLAYERS)],
            started="" if started is None else started.isoformat(), start=start,
            deals="recorded", kifu=self._kept(head, rules))
        try:
            logcheck.check_header(header)
        except (logcheck.LogFieldError, RuleConfigError) as exc:
            raise self.error(1, f"the match lines make no log header ({exc})") from None
        self.match = MatchState(rules, seed=seed, games=games)
        self.offset = [0] * PLAYERS  # a kifu of the whole match counts as the log does
        if first is not None and first.index > 0:
            self.offset = None  # a kifu of later games: taken from its first points line
            self.match = MatchState(
                rules, seed=seed, games=games, game=first.index + 1,
                classes=None if first.classes is None else tuple(first.classes),
                seats=tuple(first.seats))
        return header

    def _end(self, head: KifuMatch) -> MatchEnd | None:
        match, tail = self.match, self.reader.tail
        assert match is not None and self.header is not None
        complete = match.finished
        if "TOTAL_POINT" not in tail.values and not complete:
            return None  # the kifu stops without the match's last lines: an unfinished match
        if "TOTAL_POINT" in tail.values:
            totals = tail.values["TOTAL_POINT"].split()
            counted = self.kifu_totals(match.points, None)
            if totals != [str(p) for p in counted]:
                raise self.error(tail.line("TOTAL_POINT"), f"TOTAL_POINT {' '.join(totals)[:60]} "
                                 f"is not the points of the games, {counted}")
        begun = _parse_time(head.values.get("TIME_START", ""))
        ended = _parse_time(tail.values.get("TIME_END", ""))
        wall = (ended - begun).total_seconds() if begun and ended and ended >= begun else 0.0
        return MatchEnd(self.games, list(match.points), "complete" if complete else "aborted",
                        None if complete else f"the kifu ends after game {match.game - 1} of "
                        f"{match.games}", wall)

    def kifu_totals(self, points: list[int], logged: list[int] | None) -> list[int]:
        """The match's points as the kifu counts them: a kifu that begins at a later game
        counts from the match's first game, the log from the kifu's first (the difference
        is taken from the first points line)."""
        if self.offset is None and logged is not None:
            self.offset = [a - b for a, b in zip(logged, points, strict=True)]
        return [a + b for a, b in zip(points, self.offset or [0] * len(points), strict=True)]

    # --- one game -----------------------------------------------------------------------
    def _game(self, kg: KifuGame) -> GameRecord:
        match = self.match
        assert match is not None
        g = kg.index + 1
        if match.finished:
            raise self.error(kg.lines["mibun"], f"game {kg.index:05d} is beyond the "
                             f"{match.games} games of the match")
        classes = None if match.is_block_start(g) else match.classes
        if kg.classes != (None if classes is None else list(classes)):
            raise self.error(kg.lines["mibun"], f"classes {_shown(kg.classes)}, but the "
                             f"games before make them {_shown(classes)}")
        driver = self._deal(kg, classes)
        GameReading(self, kg, driver).play()
        self.games += 1
        return driver.record

    def _deal(self, kg: KifuGame, classes: Sequence[int] | None) -> GameDriver:
        assert self.match is not None
        seats = tuple(kg.seats)
        if classes is not None:
            dealer = classes.index(0)
        else:
            sizes = [len(h) for h in kg.dealt]
            dealers = [d for d in seats if deal_sizes(seats, d, sum(sizes)) == sizes]
            dealer = dealers[0] if dealers else seats[0]  # none: the deal check says why
        try:
            return GameDriver(self.match, GivenDeal(seats, dealer, tuple(kg.dealt)))
        except DealError as exc:
            line = kg.lines["seat" if str(exc).startswith("seats") else "palyer_cards"]
            raise self.error(line, f"game {kg.index:05d}: {exc}") from None


class GameReading:
    """One kifu game played again on the game driver, each answer checked against it."""

    def __init__(self, owner: KifuImport, kg: KifuGame, driver: GameDriver) -> None:
        self.owner, self.kg, self.driver = owner, kg, driver
        self.tag = f"game {kg.index:05d}"
        self.plays = iter(enumerate(kg.plays, 1))
        self.waiting: tuple[int, KifuPlay] | None = None  # the next play, read ahead
        self.by_limit = False

    def error(self, key: str, message: str) -> KifuError:
        return self.owner.error(self.kg.lines.get(key, self.kg.lines["mibun"]),
                                f"{self.tag}: {message}")

    def play(self) -> None:
        driver = self.driver
        returns = self.returns(driver.setup)
        while (out := driver.next()) is not None:
            if isinstance(out, ExchangeRequest):
                self.exchange(out, returns)
            elif isinstance(out, MoveRequest):
                self.move(out.player)
            elif isinstance(out, ChoiceRequest):  # not reached: a kifu's rules have none
                driver.choose(None)
            elif isinstance(out, TurnDone):
                self.by_limit = any(e.kind is EventKind.PASS_LIMIT for e in out.step.events)
            elif isinstance(out, GameOver):
                self.over(list(out.result.order))

    # --- the exchange ---------------------------------------------------------------------
    def returns(self, setup: GameSetup) -> list[KifuChange]:
        """The returns the kifu lists, after its automatic transfers are checked against
        the engine's (or, with no change_cards line, the returns the plays tell)."""
        auto = [t for t in setup.transfers if t.automatic]
        changes = self.kg.changes
        if changes is None:
            return self.inferred(setup)
        expected = len(auto) + len(setup.owed)
        if len(changes) != expected:
            raise self.error("change_cards", f"{len(changes)} transfers; the rules make "
                             f"{expected}")
        for i, (logged, sim) in enumerate(zip(changes, auto, strict=False), 1):
            if (logged.giver, logged.receiver, logged.cards) != (sim.giver, sim.receiver,
                                                                 sim.cards):
                taken = KifuChange(sim.giver, sim.receiver, sim.cards)
                raise self.error("change_cards", f"transfer {i} is {_change(logged)}; the "
                                 f"rules take {_change(taken)}")
        return changes[len(auto):]

    def inferred(self, setup: GameSetup) -> list[KifuChange]:
        """Each upper class returned the cards of its hand it never played (those the lower
        class played, if that leaves too many)."""
        played = [CardSet() for _ in range(PLAYERS)]
        for p in self.kg.plays:
            played[p.player] = played[p.player] | _played_cards(p.cells)
        out = []
        for upper in setup.exchange_order():
            count, lower = setup.owed[upper]
            kept = setup.hands[upper] - played[upper]
            if len(kept) > count:
                kept = kept & played[lower]
            if len(kept) != count:
                raise self.error("palyer_cards", f"no change_cards line, and the {count} "
                                 f"card(s) player {upper} returned cannot be told from the plays")
            out.append(KifuChange(upper, lower, kept))
        return out

    def exchange(self, request: ExchangeRequest, returns: list[KifuChange]) -> None:
        logged = returns.pop(0)
        if logged.giver != request.player:
            raise self.error("change_cards", f"{_change(logged)} is listed where player "
                             f"{request.player} returns cards")
        t = self.driver.exchange(logged.cards)
        if t.substituted or t.receiver != logged.receiver:
            raise self.error("change_cards", f"{_change(logged)} is no return the rules "
                             "allow")

    # --- the play -------------------------------------------------------------------------
    def move(self, player: int) -> None:
        if self.waiting is None:
            self.waiting = next(self.plays, None)
        if self.waiting is None:
            raise self.error("play", f"the plays end, but player {player} is still to move")
        number, play = self.waiting
        if play.player != player and self.cleared_early(player):
            # The 2013 build cleared this trick one pass early: the engine asks the player
            # the server skipped, who can only have passed (marked: not the player's own).
            self.driver.move(PASS, by=KIFU_PASS)
            return
        if play.player != player:
            rules = self.driver.match.rules
            raise self.error("play", f"play {number} is by player {play.player}, but player "
                             f"{player} is to move (the trick clears as with "
                             f"{OWNER_KEY} {_yes(rules.owner_answers)})")
        self.waiting = None
        move, error, fault = read_move_cells(play.cells, self.driver.match.rules.jokers)
        if move is None:
            self.driver.move(None, error=error, raw=raw_cells(play.cells),
                             fault=None if fault is None else str(fault))
        else:
            self.driver.move(move)

    def cleared_early(self, player: int) -> bool:
        """Would the 2013 build have cleared the trick without asking ``player``?  It does
        when the last player who played went out with that play."""
        state = self.driver.state
        assert state is not None
        return (not state.rules.owner_answers and state.field is not None
                and state.owner >= 0 and not state.is_active(state.owner))

    def over(self, order: list[int]) -> None:
        extra = self.waiting or next(self.plays, None)
        if extra is not None:
            raise self.error("play", f"play {extra[0]} comes after the game is over")
        if order != self.kg.order:
            hint = (" (the game ended by the pass limit, whose random places cannot be "
                    "played again)" if self.by_limit else "")
            raise self.error("result", f"finishing order {_shown(self.kg.order)}, but the "
                             f"plays give {_shown(order)}{hint}")
        totals = self.owner.kifu_totals(self.driver.match.points, self.kg.totals)
        if self.kg.totals is not None and self.kg.totals != totals:
            raise self.error("points", f"points {self.kg.totals}, but the games give {totals}")


def _played_cards(cells: Cells) -> CardSet:
    """The cards a table names (a 2 anywhere: the joker)."""
    mask, joker = 0, False
    for (row, col), value in cells.items():
        if value == 2:
            joker = True
        elif row < 4 and 1 <= col <= 13:
            mask |= 1 << (4 * col + row)
    return CardSet(mask) | (CardSet.parse("JK") if joker else CardSet())


def _change(c: KifuChange) -> str:
    return f"{c.giver} -> {c.receiver}: {c.cards or 'nothing'}"


def _shown(values: Sequence[int] | None) -> str:
    return "none (a new class block)" if values is None else "".join(map(str, values))


def _parse_time(text: str) -> datetime.datetime | None:
    try:
        return datetime.datetime.strptime(text.strip(), TIME_FORMAT)
    except ValueError:
        return None


__all__ = ["KifuImport", "KifuWritten", "kifu_game", "kifu_rules_problem", "match_values",
           "write_kifu"]
