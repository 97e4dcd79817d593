"""The 8x15 card table and its wire forms (20070 big-endian, 20060 native, 20140 hex).

>>> t = Table.zeros().with_cells({(0, 0): 20070})
>>> Table.from_bytes(t.to_bytes()) == t, t.to_bytes()[:4].hex()
(True, '00004e66')
>>> len(t.to_bytes())
480
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterable, Mapping

from .errors import TableSizeError, UnsupportedVersionError

ROWS, COLS = 8, 15
CELLS = ROWS * COLS
TABLE_BYTES = CELLS * 4
INT_BYTES = 4

PROTOCOL_20070 = 20070
PROTOCOL_20060 = 20060
PROTOCOL_20140 = 20140
PROTOCOL_20260 = 20260  # the extension (docs/PROTOCOL_EXTENSION.md): 20070's byte form
SUPPORTED_VERSIONS = (PROTOCOL_20070, PROTOCOL_20060, PROTOCOL_20140, PROTOCOL_20260)

_BE = struct.Struct(">120I")
_NATIVE = struct.Struct("=120I")
_INT_BE = struct.Struct(">I")
_INT_NATIVE = struct.Struct("=I")
_MAX_U32 = 0xFFFFFFFF


class Table:
    """An immutable 8x15 table of non-negative 32-bit values."""

    __slots__ = ("cells",)
    cells: tuple[int, ...]

    def __init__(self, cells: Iterable[int]) -> None:
        values = tuple(cells)
        if len(values) != CELLS:
            raise TableSizeError(f"a table has {CELLS} cells, got {len(values)}")
        object.__setattr__(self, "cells", values)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Table is immutable")

    @classmethod
    def zeros(cls) -> Table:
        return _ZEROS

    @classmethod
    def from_rows(cls, rows: Iterable[Iterable[int]]) -> Table:
        return cls(v for row in rows for v in row)

    def __getitem__(self, rc: tuple[int, int]) -> int:
        row, col = rc
        return self.cells[row * COLS + col]

    def row(self, r: int) -> tuple[int, ...]:
        return self.cells[r * COLS:(r + 1) * COLS]

    def rows(self) -> list[tuple[int, ...]]:
        return [self.row(r) for r in range(ROWS)]

    def with_cells(self, updates: Mapping[tuple[int, int], int]) -> Table:
        values = list(self.cells)
        for (row, col), v in updates.items():
            values[row * COLS + col] = v
        return Table(values)

    def nonzero(self, rows: range = range(5)) -> dict[tuple[int, int], int]:
        """Non-zero cells of the given rows (the card rows 0..4 by default)."""
        cells = self.cells
        if rows == _CARD_ROWS:  # the common case: one pass over a slice
            return {_CELL_AT[i]: v for i, v in enumerate(cells[:_CARD_CELLS]) if v}
        out = {}
        for r in rows:
            base = r * COLS
            for c in range(COLS):
                v = cells[base + c]
                if v:
                    out[(r, c)] = v
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Table) and other.cells == self.cells

    def __hash__(self) -> int:
        return hash(self.cells)

    def __repr__(self) -> str:
        return "Table.from_rows(" + repr([list(r) for r in self.rows()]) + ")"

    def pretty(self) -> str:
        return "\n".join(f"r{r}: " + " ".join(f"{v:2d}" for v in self.row(r)) for r in range(ROWS))

    # --- wire forms -------------------------------------------------------------------
    def to_bytes(self, version: int = PROTOCOL_20070) -> bytes:
        """Encode for the wire; negatives become 0 as the reference server sends them."""
        clamped = [min(max(v, 0), _MAX_U32) for v in self.cells]
        if version in (PROTOCOL_20070, PROTOCOL_20260):
            return _BE.pack(*clamped)
        if version == PROTOCOL_20060:
            return _NATIVE.pack(*clamped)
        if version == PROTOCOL_20140:
            return to_hex20140(self).encode("ascii")
        raise UnsupportedVersionError(f"protocol version {version} is not supported")

    @classmethod
    def from_bytes(cls, data: bytes, version: int = PROTOCOL_20070) -> Table:
        if version == PROTOCOL_20140:
            try:
                text = data.decode("ascii")
            except UnicodeDecodeError as exc:
                raise TableSizeError(f"a 20140 table is ASCII hex, got {data!r}") from exc
            return from_hex20140(text)
        if len(data) != TABLE_BYTES:
            raise TableSizeError(f"a table is {TABLE_BYTES} bytes, got {len(data)}")
        if version in (PROTOCOL_20070, PROTOCOL_20260):
            return cls(_BE.unpack(data))
        if version == PROTOCOL_20060:
            return cls(_NATIVE.unpack(data))
        raise UnsupportedVersionError(f"protocol version {version} is not supported")


_ZEROS = Table((0,) * CELLS)
_CARD_ROWS = range(5)
_CARD_CELLS = 5 * COLS
_CELL_AT = [divmod(i, COLS) for i in range(CELLS)]  # flat index -> (row, col)


def table_size(version: int) -> int:
    """Bytes one table takes on the wire for ``version``."""
    return HEX20140_CHARS if version == PROTOCOL_20140 else TABLE_BYTES


def encode_int(value: int, version: int = PROTOCOL_20070) -> bytes:
    v = min(max(value, 0), _MAX_U32)
    return (_INT_NATIVE if version == PROTOCOL_20060 else _INT_BE).pack(v)


def decode_int(data: bytes, version: int = PROTOCOL_20070) -> int:
    if len(data) != INT_BYTES:
        raise TableSizeError(f"an int is 4 bytes, got {len(data)}")
    value: int = (_INT_NATIVE if version == PROTOCOL_20060 else _INT_BE).unpack(data)[0]
    return value


# --- 20140: a table as 33 hex characters (ints stay big-endian) --------------------------
HEX20140_CHARS = 33
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def to_hex20140(t: Table) -> str:
    digits = []
    for col in range(1, 14):
        digits.append(sum(1 << r for r in range(4) if t[r, col] == 1))
    joker_pos = next((r * COLS + c for r in range(5) for c in range(COLS) if t[r, c] == 2), 0xFF)
    flags = sum(1 << i for i, c in enumerate(range(4, 8)) if t[5, c])
    out = "".join(f"{d:X}" for d in digits) + f"{joker_pos:02X}"
    out += f"{(8 * t[5, 0] + t[5, 1] + 2) & 0xF:X}{(8 * t[5, 2] + t[5, 3]) & 0xF:X}{flags:X}"
    out += "".join(f"{t[6, c] & 0xF:X}" for c in range(COLS))
    return out


def from_hex20140(text: str) -> Table:
    if len(text) != HEX20140_CHARS:
        raise TableSizeError(f"a 20140 table is {HEX20140_CHARS} characters, got {len(text)}")
    # int(ch, 16) alone would also take non-ASCII digits such as "٣"
    if not all(ch in _HEX_DIGITS for ch in text):
        raise TableSizeError(f"not a hex table: {text!r}")
    d = [int(ch, 16) for ch in text]
    cells: dict[tuple[int, int], int] = {}
    for i in range(13):
        for r in range(4):
            if d[i] >> r & 1:
                cells[(r, i + 1)] = 1
    pos = d[13] * 16 + d[14]
    if pos != 0xFF:
        if pos >= 5 * COLS:  # only the card rows 0..4 can hold the joker's 2
            raise TableSizeError(f"joker position {pos} is outside the card rows: {text!r}")
        cells[divmod(pos, COLS)] = 2
    a, b, flags = d[15], d[16], d[17]
    cells[(5, 0)], cells[(5, 1)] = a >> 3, max((a & 7) - 2, 0)
    cells[(5, 2)], cells[(5, 3)] = b >> 3, b & 7
    for i in range(4):
        cells[(5, 4 + i)] = flags >> i & 1
    for c in range(COLS):
        cells[(6, c)] = d[18 + c]
    return Table.zeros().with_cells(cells)


NATIVE_IS_BIG_ENDIAN = sys.byteorder == "big"
