"""The move kinds as plain module names, for the code that reads them on every move.

On Python 3.11 ``MoveKind.SINGLE`` goes through the enum metaclass's ``__getattr__`` hook
(about ten times the cost of a global name); the judge reads several per judged move.

>>> SINGLE_KIND is MoveKind.SINGLE and PASS_KIND is MoveKind.PASS
True
"""

from daihinmin.values.moves import MoveKind

PASS_KIND = MoveKind.PASS
SINGLE_KIND = MoveKind.SINGLE
GROUP_KIND = MoveKind.GROUP
SEQUENCE_KIND = MoveKind.SEQUENCE
STAIRS_KIND = MoveKind.STAIRS
JOKER_KIND = MoveKind.JOKER

__all__ = ["GROUP_KIND", "JOKER_KIND", "PASS_KIND", "SEQUENCE_KIND", "SINGLE_KIND",
           "STAIRS_KIND"]
