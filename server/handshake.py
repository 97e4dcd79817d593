"""The first message of a connection: the profile table, which names the protocol version.

The profile is always read as a 480-byte table, as the reference server reads it.  Its
``[0][0]`` read big-endian is 20070 or 20140; a 2006-protocol client writes native-endian
ints, so its 20060 is recognised in the machine's byte order.

>>> from daihinmin.protocol.codec import build_profile
>>> profile_version(build_profile("std3").to_bytes())
(20070, 'std3')
>>> profile_version(build_profile("old", 20060).to_bytes(20060))
(20060, 'old')
>>> profile_version(build_profile("ext", 20260).to_bytes())  # docs/PROTOCOL_EXTENSION.md
(20260, 'ext')
>>> profile_version(build_profile("x", 1234).to_bytes())
Traceback (most recent call last):
...
daihinmin.server.errors.HandshakeError: unsupported protocol version 1234 in the profile
"""

from __future__ import annotations

from daihinmin.protocol.codec import declares_person, read_profile
from daihinmin.protocol.table import (
    PROTOCOL_20060,
    PROTOCOL_20070,
    PROTOCOL_20140,
    PROTOCOL_20260,
    TABLE_BYTES,
    Table,
)

from .errors import HandshakeError

NAME_CHARS = 14


def profile_version(raw: bytes) -> tuple[int, str]:
    """(protocol version, player name) from the raw profile table."""
    if len(raw) != TABLE_BYTES:
        raise HandshakeError(f"a profile is {TABLE_BYTES} bytes, got {len(raw)}")
    big = int.from_bytes(raw[:4], "big")
    if big in (PROTOCOL_20070, PROTOCOL_20140, PROTOCOL_20260):
        table = Table.from_bytes(raw, PROTOCOL_20070)
    elif Table.from_bytes(raw, PROTOCOL_20060)[0, 0] == PROTOCOL_20060:
        table = Table.from_bytes(raw, PROTOCOL_20060)
    else:
        raise HandshakeError(f"unsupported protocol version {big} in the profile")
    version, name = read_profile(table)
    return version, name[:NAME_CHARS]


def profile_person(raw: bytes) -> bool:
    """The profile (20070 and later) declares that a person plays the seat."""
    if len(raw) != TABLE_BYTES or int.from_bytes(raw[:4], "big") not in (
            PROTOCOL_20070, PROTOCOL_20140, PROTOCOL_20260):
        return False
    return declares_person(Table.from_bytes(raw, PROTOCOL_20070))
