"""Damage in a SQLite write-ahead log, found before SQLite silently drops what follows it.

A results database runs in WAL mode: committed games may sit in ``NAME.sqlite-wal`` until a
checkpoint copies them into the database.  When SQLite opens the database it replays the WAL
up to the first frame whose checksum fails and *silently* ignores the rest, so bytes damaged
in the middle of the WAL would lose every game committed after them, with no error.  This
module reads the WAL as SQLite does (format: https://sqlite.org/fileformat2.html#walformat)
and reports damage when a committed frame of the current WAL comes after a frame that fails
its checksum, or when the WAL header itself is broken.  A frame torn at the very end (the
process was killed while writing a transaction that never committed) is normal and is not
reported.

>>> wal_damage(Path("/nonexistent.sqlite")) is None
True
"""

from __future__ import annotations

import struct
from pathlib import Path

MAGIC_LE, MAGIC_BE = 0x377F0682, 0x377F0683  # the low bit: byte order of the checksums
HEADER = struct.Struct(">IIIIIIII")
FRAME = struct.Struct(">IIIIII")


def checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), continuing from (s0, s1)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_damage(db: Path) -> str | None:
    """Why the WAL of the database at ``db`` would lose committed data, or None."""
    wal = db.with_name(db.name + "-wal")
    try:
        data = wal.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read {wal}: {exc.strerror or exc}"
    if len(data) < HEADER.size:
        return None if not data.strip(b"\0") else f"{wal}: {len(data)} bytes, no WAL header"
    magic, _version, page, _seq, salt1, salt2, c0, c1 = HEADER.unpack_from(data)
    big = magic == MAGIC_BE
    if magic not in (MAGIC_LE, MAGIC_BE) or page < 512 or page > 65536 or page & (page - 1):
        return f"{wal}: not a write-ahead log (damaged header); its games would be lost"
    if checksum(data[:24], 0, 0, big) != (c0, c1):
        return f"{wal}: the header fails its checksum; the games in it would be lost"
    size = FRAME.size + page
    s0, s1 = c0, c1
    offset, frame, bad_at = HEADER.size, 0, None
    while offset + size <= len(data):
        frame += 1
        number, commit, f1, f2, k0, k1 = FRAME.unpack_from(data, offset)
        current = (f1, f2) == (salt1, salt2)
        if bad_at is None:
            s0, s1 = checksum(data[offset:offset + 8], s0, s1, big)
            s0, s1 = checksum(data[offset + FRAME.size:offset + size], s0, s1, big)
            if not current or (s0, s1) != (k0, k1) or number == 0:
                bad_at = frame  # SQLite stops here (frames of an older generation end too)
        elif current and commit:
            return (f"{wal}: frame {bad_at} is damaged and transactions committed after it "
                    f"(frame {frame}) would be lost silently")
        offset += size
    return None


__all__ = ["wal_damage"]
