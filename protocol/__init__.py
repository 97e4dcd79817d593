"""daihinmin.protocol: the UECda wire, 8x15 tables of 32-bit integers (protocol 20070).

Modules: ``table`` (:class:`Table`, the byte encoding and the protocol versions), ``codec``
(building and reading the tables each message carries: deal, exchange, field, move,
profile), ``extension`` (protocol 20260's tables for the other rule sets), ``errors``
(what is wrong with a table that was read).  ``docs/PROTOCOL.md`` describes the wire.
"""

from daihinmin.protocol.errors import ProtocolError
from daihinmin.protocol.table import PROTOCOL_20070, PROTOCOL_20260, Table

__all__ = ["PROTOCOL_20070", "PROTOCOL_20260", "ProtocolError", "Table"]
