"""Text from outside (player names, bot output, log details) made safe for a terminal.

Such text is data: a control character (an escape sequence that clears the screen or sets
the window title, a bell, a bidirectional override that reorders what follows) is shown
escaped, never sent to the terminal raw.  :func:`markup_safe` also escapes rich's markup, for
text printed through a rich console or table (``[red]`` in a name stays ``[red]``).
"""

from __future__ import annotations

import re

# C0/C1 controls but the newline, DEL, and the bidirectional overrides that reorder text.
# Lone surrogates too: no character, they cannot even be encoded for the terminal.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e"
                      "\u2066-\u2069\ud800-\udfff]")
_CONTROL_OR_NEWLINE = re.compile(f"\n|{_CONTROL.pattern}")


def terminal_safe(text: str, newlines: bool = True) -> str:
    r"""``text`` with every control character escaped (the newline too unless ``newlines``:
    a name must stay on its line).

    >>> terminal_safe("p1\x1b[2Jevil\u202e\n")
    'p1\\x1b[2Jevil\\u202e\n'
    >>> terminal_safe("a\nb", newlines=False)
    'a\\nb'
    """
    pattern = _CONTROL if newlines else _CONTROL_OR_NEWLINE
    return pattern.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def markup_safe(text: str, newlines: bool = True) -> str:
    r"""``text`` for a rich console: control characters and markup escaped.

    >>> markup_safe("[red]x\x07")
    '\\[red]x\\x07'
    """
    from rich.markup import escape

    return escape(terminal_safe(text, newlines))


__all__ = ["markup_safe", "terminal_safe"]
