"""The UECda reference server's game record (its "kifu"): the lines, read and written.

The reference server (tndhms) writes one text file per match when its logger is on.  Every
line is ``%<tag>%<key>% <value>``: the tag is ``-----`` for the match's own lines and the
game index (``00000`` for the first game, five digits or more) for a game's lines.

* Match lines: ``hostname``, ``TIME_START`` (``YYYY/MM/DD hh:mm:ss``), ``palyer_name`` (sic,
  the five names), one line per setting (``RULE_KAKUMEI`` ``YES``, ... ``GAME_NUMBER``,
  ``FLASH_MIBUN_NUMBER``, ``GAME_PORT``, ``RANDOM_SEED``); after the games ``TIME_END`` and
  ``TOTAL_POINT``.
* A game's lines, in this order: ``mibun`` (the class of players 0..4 at the deal, five
  digits; ``22222`` in the first game of a class block), ``seat`` (the player in seats
  0..4), ``palyer_cards`` (the five hands as dealt, before the exchange), ``change_cards``
  (each transfer as giver, receiver, cards, ``EE``: the automatic ones first, then the
  returns; ``NULL`` for none), ``play`` (each table a mover sent, as mover, cards, ``EE``:
  a pass is the mover and ``EE``; a rejected table is listed like any other), ``result``
  (the players in finishing order) and ``points`` (every player's points so far).  The
  older logger of the distributed development kit writes no ``change_cards`` and no
  ``points`` lines, and none of the match lines but the names and settings.

Cards are two characters for the table cell they fill, in table order (row by row, each
row by column): the suit of the row (``S H D C``, and ``J`` for row 4), or for a cell
holding 2 (a joker) ``K L M N`` for rows 0..3 and ``J`` for row 4; then the rank of the
column, ``x3456789TJQKA2x``.  A joker in a hand is ``J3`` (the 2 at row 4, column 1).
Column 0 and column 14 are both ``x``: a reader takes an ``x`` before any other cell of its
row for column 0 and one after them for column 14.  A cell value other than 0, 1 or 2 is
written like a 1 (the server writes any non-zero cell), so only tables of 0, 1 and 2 read
back exactly.

This module reads and writes the lines (:class:`KifuReader`, :func:`game_lines`); what a
kifu means as a match log is :mod:`daihinmin.records.kifu_log`.

>>> text = cells_text({(1, 5): 1, (2, 5): 1, (3, 5): 2})
>>> text, parse_cells(text) == {(1, 5): 1, (2, 5): 1, (3, 5): 2}
('H7D7N7', True)
>>> cells_text(hand_cells(CardSet.parse("S3 D2 JK")))
'S3D2J3'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from daihinmin.protocol.codec import hand_cells
from daihinmin.values.cards import JOKER, JOKER2, CardSet
from daihinmin.values.moves import Cell

from .errors import KifuError

Cells = dict[Cell, int]

SUIT_CHARS = "SHDCJKLMNJ"  # the character of row r: [r] for a card (1), [r + 5] for a 2
RANK_CHARS = "x3456789TJQKA2x"  # the character of column c
PLAYERS = 5  # the reference server's table
MATCH_TAG = "-----"
# A game's lines in the order the server writes them; those in OPTIONAL_KEYS may be missing
# (the development kit's logger writes neither).
GAME_KEYS = ("mibun", "seat", "palyer_cards", "change_cards", "play", "result", "points")
OPTIONAL_KEYS = ("change_cards", "points")
TAIL_KEYS = ("TIME_END", "TOTAL_POINT")  # the match lines written after the games
MAX_LINE_BYTES = 64 * 1024  # a game's plays take a few kilobytes at most; longer is no kifu
MAX_MATCH_LINES = 64  # match lines (the reference writes about 20)
MAX_POINTS = 10**12
NO_CLASSES = "22222"  # the classes of the first game of a class block
# The ``by`` of a pass a kifu's import answers for a player its server never asked (the 2013
# build's early trick clear); such a pass is not written back into a kifu.
KIFU_PASS = "kifu"

_LINE = re.compile(r"%(-----|[0-9]{5,9})%([A-Za-z0-9_]{1,40})%(.*)")
_PLAY = re.compile(r"([0-9])((?:[A-Z][0-9A-Zx])*)EE")
_CHANGE = re.compile(r"([0-9])([0-9])((?:[A-Z][0-9A-Zx])*)EE")
_CELL = {(r, v): SUIT_CHARS[r + 5 * (v == 2)] for r in range(5) for v in (1, 2)}
_READ_SUIT = {"S": (0, 1), "H": (1, 1), "D": (2, 1), "C": (3, 1), "J": (4, 2),
              "K": (0, 2), "L": (1, 2), "M": (2, 2), "N": (3, 2)}


class KifuSyntaxError(ValueError):
    """A value that is not what its line holds (the reader adds the line number)."""


# --- cards ----------------------------------------------------------------------------------
def cells_text(cells: Cells) -> str:
    """The cells as the server writes them: rows 0..4, non-zero cells, in table order."""
    return "".join(_CELL[r, 2 if v == 2 else 1] + RANK_CHARS[c]
                   for (r, c), v in sorted(cells.items()) if v and 0 <= r < 5 and 0 <= c < 15)


def parse_cells(text: str) -> Cells:
    """The cells of a card text (the inverse of :func:`cells_text` for tables of 0, 1, 2)."""
    if len(text) % 2:
        raise KifuSyntaxError(f"{text!r:.40} is not two characters per card")
    cells: Cells = {}
    last: Cell = (-1, -1)
    for i in range(0, len(text), 2):
        suit, rank = text[i], text[i + 1]
        if suit not in _READ_SUIT or rank not in RANK_CHARS:
            raise KifuSyntaxError(f"{suit + rank!r} is not a card")
        row, value = _READ_SUIT[suit]
        col = (0 if last[0] != row else 14) if rank == "x" else RANK_CHARS.index(rank, 1)
        if (row, col) <= last:
            raise KifuSyntaxError(f"{suit + rank!r} is out of the table order the server "
                                  "writes (row by row, each by rank)")
        cells[row, col] = value
        last = (row, col)
    return cells


def cards_of(cells: Cells) -> CardSet:
    """The cards a hand's (or a transfer's) cells list: a 1 is that card, a 2 a joker."""
    mask, jokers = 0, 0
    for (row, col), value in cells.items():
        if value == 2:
            jokers += 1
        elif row < 4 and 1 <= col <= 13:
            mask |= 1 << (4 * col + row)
        else:
            raise KifuSyntaxError(f"{cells_text({(row, col): value})!r} is no card")
    if jokers > 2:
        raise KifuSyntaxError(f"{jokers} jokers")
    return CardSet(mask | (1 << JOKER if jokers else 0) | (1 << JOKER2 if jokers > 1 else 0))


def cards_text(cards: CardSet) -> str:
    """A hand or a transfer as the server writes it (a joker as ``J3``)."""
    return cells_text(hand_cells(cards))


# --- records of the format ------------------------------------------------------------------
@dataclass
class KifuPlay:
    player: int
    cells: Cells  # the table the mover sent (empty: a pass)


@dataclass
class KifuChange:
    giver: int
    receiver: int
    cards: CardSet


@dataclass
class KifuGame:
    index: int  # 0 for the match's first game
    classes: list[int] | None  # None: the first game of a class block (``22222``)
    seats: list[int]  # the player in each seat
    dealt: list[CardSet]  # each player's hand as dealt
    changes: list[KifuChange] | None  # None: no change_cards line (the older logger)
    plays: list[KifuPlay]
    order: list[int]  # the players in finishing order
    totals: list[int] | None  # None: no points line
    lines: dict[str, int] = field(default_factory=dict)  # line number of each of its lines


@dataclass
class KifuMatch:
    """The match lines, by key in the order read (values as written, without the space)."""

    values: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)


def game_lines(game: KifuGame) -> list[str]:
    """A game's lines, as the reference server writes them (each ending in a newline)."""
    tag = f"%{game.index:05d}%"
    changes = "NULL" if not game.changes else "".join(
        f" {c.giver}{c.receiver}{cards_text(c.cards)}EE" for c in game.changes)
    lines = [f"{tag}mibun% {NO_CLASSES if game.classes is None else _digits(game.classes)}",
             f"{tag}seat% {_digits(game.seats)}",
             f"{tag}palyer_cards% {''.join(cards_text(h) + ' ' for h in game.dealt)}"]
    if game.changes is not None:
        lines.append(f"{tag}change_cards% {changes}")
    lines += [f"{tag}play% {''.join(f' {p.player}{cells_text(p.cells)}EE' for p in game.plays)}",
              f"{tag}result% {_digits(game.order)}"]
    if game.totals is not None:
        lines.append(f"{tag}points% {' '.join(map(str, game.totals))}")
    return [line + "\n" for line in lines]


def match_line(key: str, value: str) -> str:
    return f"%{MATCH_TAG}%{key}% {value}\n"


def _digits(values: Iterable[int]) -> str:
    return "".join(map(str, values))


# --- reading --------------------------------------------------------------------------------
KifuItem = KifuMatch | KifuGame


class KifuReader:
    """The items of a kifu in order: its match lines (:class:`KifuMatch`, once, before the
    first game), then each game (:class:`KifuGame`); afterwards ``tail`` holds the match
    lines written after the games.  Each line is checked as it is read; the first error
    raises :class:`KifuError` naming the line.  One game is held at a time, so a kifu of
    any length is read in bounded memory.  A last game cut short (the server was stopped
    while writing) is left out and ``torn`` says so."""

    def __init__(self, lines: Iterable[str], source: str = "kifu") -> None:
        self.lines = lines
        self.source = source
        self.head = KifuMatch()
        self.tail = KifuMatch()
        self.torn = False
        self.games = 0
        self._group: dict[str, tuple[int, str]] = {}  # the current game's lines by key
        self._index = -1  # the current game's index

    def error(self, number: int, message: str) -> KifuError:
        return KifuError(f"{self.source}:{number}: {message}", number)

    def __iter__(self) -> Iterator[KifuItem]:
        head_given = False
        for number, raw in enumerate(self.lines, 1):
            if self.torn:  # the line cut short was not the last one after all
                raise self.error(number - 1, "a line without its end")
            if not raw.endswith("\n"):
                self.torn = True  # the writer stopped in this line: it (and its game) is left out
                continue
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            m = _LINE.fullmatch(line)
            if m is None:
                raise self.error(number, f"not a kifu line ({line[:40]!r})")
            tag, key, value = m.groups()
            if tag == MATCH_TAG:
                if self._group:
                    yield self._finish()
                self._match_line(number, key, value)
                continue
            if not head_given:
                head_given = True
                yield self.head
            done = self._game_line(number, int(tag), key, value)
            if done is not None:
                yield done
        if self._group:
            if self.torn or self._missing():
                self.torn = True  # the last game was cut short: it is left out
                self._group = {}
            else:
                yield self._finish()
        if not head_given:
            yield self.head

    # --- match lines ----------------------------------------------------------------------
    def _match_line(self, number: int, key: str, value: str) -> None:
        if self.games and key not in TAIL_KEYS:
            raise self.error(number, f"match line {key} after the games")
        target = self.tail if self.games or key in TAIL_KEYS else self.head
        if key in target.values:
            raise self.error(number, f"a second {key} line")
        if len(target.values) >= MAX_MATCH_LINES:
            raise self.error(number, f"more than {MAX_MATCH_LINES} match lines")
        target.values[key] = value[1:] if value.startswith(" ") else value
        target.lines[key] = number

    # --- game lines -----------------------------------------------------------------------
    def _game_line(self, number: int, index: int, key: str, value: str) -> KifuGame | None:
        """Add a game's line; the game before it, if this line begins the next one."""
        if self.tail.values:
            raise self.error(number, "a game line after the match's last lines")
        if key not in GAME_KEYS:
            raise self.error(number, f"unknown game line {key!r}")
        done = self._finish() if self._group and index != self._index else None
        if not self._group:
            if self.games and index != self._index + 1:
                raise self.error(number, f"game {index:05d} follows game {self._index:05d}")
            self._index = index
        position = GAME_KEYS.index(key)
        if any(GAME_KEYS.index(k) >= position for k in self._group):
            raise self.error(number, f"{key} line out of order in game {index:05d}")
        self._group[key] = (number, value)
        return done

    def _missing(self) -> list[str]:
        return [k for k in GAME_KEYS if k not in self._group and k not in OPTIONAL_KEYS]

    def _finish(self) -> KifuGame:
        group, index = self._group, self._index
        missing = self._missing()
        if missing:
            first = min(n for n, _ in group.values())
            raise self.error(first, f"game {index:05d} has no {' or '.join(missing)} line")
        self._group = {}
        self.games += 1
        game = KifuGame(index, None, [], [], None, [], [], None,
                        lines={k: n for k, (n, _) in group.items()})
        for key, (number, value) in group.items():
            try:
                _parse_value(game, key, value.split())
            except KifuSyntaxError as exc:
                raise self.error(number, f"{key}: {exc}") from None
        return game


def _parse_value(game: KifuGame, key: str, words: list[str]) -> None:
    """Set the field of ``game`` that line ``key`` holds."""
    if key == "mibun":
        text = _one(words)
        game.classes = None if text == NO_CLASSES else _permutation(text)
    elif key == "seat":
        game.seats = _permutation(_one(words))
    elif key == "palyer_cards":
        if len(words) != PLAYERS:
            raise KifuSyntaxError(f"{len(words)} hands for {PLAYERS} players")
        game.dealt = [cards_of(parse_cells(w)) for w in words]
    elif key == "change_cards":
        game.changes = [] if words == ["NULL"] else [_change(w) for w in words]
    elif key == "play":
        game.plays = [_play(w) for w in words]
    elif key == "result":
        game.order = _permutation(_one(words))
    else:
        game.totals = _points(words)


def _one(words: list[str]) -> str:
    if len(words) != 1:
        raise KifuSyntaxError(f"{len(words)} values, one expected")
    return words[0]


def _permutation(text: str) -> list[int]:
    """Five digits, each player once (classes, seats, finishing order)."""
    if len(text) != PLAYERS or sorted(text) != [str(p) for p in range(PLAYERS)]:
        raise KifuSyntaxError(f"{text[:20]!r} is not players 0..{PLAYERS - 1} once each")
    return [int(ch) for ch in text]


def _play(word: str) -> KifuPlay:
    m = _PLAY.fullmatch(word)
    if m is None:
        raise KifuSyntaxError(f"{word[:40]!r} is not a mover, cards and EE")
    player = int(m.group(1))
    if player >= PLAYERS:
        raise KifuSyntaxError(f"{word[:40]!r}: no player {player}")
    return KifuPlay(player, parse_cells(m.group(2)))


def _change(word: str) -> KifuChange:
    m = _CHANGE.fullmatch(word)
    if m is None:
        raise KifuSyntaxError(f"{word[:40]!r} is not a giver, a receiver, cards and EE")
    giver, receiver = int(m.group(1)), int(m.group(2))
    if max(giver, receiver) >= PLAYERS or giver == receiver:
        raise KifuSyntaxError(f"{word[:40]!r}: no transfer between players")
    return KifuChange(giver, receiver, cards_of(parse_cells(m.group(3))))


def _points(words: list[str]) -> list[int]:
    if len(words) != PLAYERS or not all(w.isdigit() and len(w) <= 13 for w in words):
        raise KifuSyntaxError(f"{' '.join(words)[:40]!r} is not {PLAYERS} point totals")
    return [int(w) for w in words]


def text_lines(f: IO[bytes], source: str) -> Iterator[str]:
    """The lines of a binary file as text (UTF-8; bytes of another encoding, as a name may
    hold, become U+FFFD), each at most :data:`MAX_LINE_BYTES` (an endless line is refused
    after that much, not read into memory)."""
    number = 0
    while raw := f.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise KifuError(f"{source}:{number}: a line longer than {MAX_LINE_BYTES} bytes: "
                            "not a kifu", number)
        yield raw.decode("utf-8", errors="replace")


__all__ = ["GAME_KEYS", "KIFU_PASS", "MAX_LINE_BYTES", "NO_CLASSES", "PLAYERS", "Cells",
           "KifuChange", "KifuGame", "KifuMatch", "KifuPlay", "KifuReader", "KifuSyntaxError",
           "cards_of", "cards_text", "cells_text", "game_lines", "match_line", "parse_cells",
           "text_lines"]
