"""``--help`` in plain text: the docstrings the commands reuse lose their reStructuredText
(``:mod:`x```, double back-quotes, ``====`` table rules), and every option that has a default
says it.

>>> plain("Run ``daihinmin bot KIND`` (see :mod:`daihinmin.players`).\\n====  ===\\na     b")
'Run daihinmin bot KIND (see daihinmin.players).\\na     b'
"""

from __future__ import annotations

import argparse
import re

_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|obj|ref|doc|exc):"
                   r"`~?([^`<]+?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_RULE = re.compile(r"^[ \t]*=[= \t]*=[ \t]*\n?", re.MULTILINE)
#: Actions whose default says nothing (flags) or whose help already names it.
_FLAGS = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction,
          argparse._CountAction, argparse._HelpAction, argparse._VersionAction)


def plain(text: str) -> str:
    """``text`` without reStructuredText roles, literals and table rules."""
    return _RULE.sub("", _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text)))


class PlainHelp(argparse.RawDescriptionHelpFormatter):
    """Descriptions kept as written (their line breaks), in plain text; each option's help
    ends with its default unless the help names one."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))

    def _expand_help(self, action: argparse.Action) -> str:
        return plain(super()._expand_help(action))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help = action.help or ""
        shown = (not action.option_strings or isinstance(action, _FLAGS) or action.nargs == 0
                 or action.default in (None, False, argparse.SUPPRESS, [])
                 or "default" in help.lower() or help == argparse.SUPPRESS)
        return help if shown else f"{help} (default: %(default)s)".lstrip()


def use_plain_help(parser: argparse.ArgumentParser) -> None:
    """:class:`PlainHelp` for ``parser`` and every sub-command's parser under it."""
    parser.formatter_class = PlainHelp
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                use_plain_help(child)


__all__ = ["PlainHelp", "plain", "use_plain_help"]
