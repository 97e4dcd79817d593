"""Every ``--help`` of the ``daihinmin`` command reads as plain text: no reStructuredText
roles or literals (``:mod:``, double back-quotes, ``====`` tables), every option has a line of
help, and every option with a default says what it is."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
from collections.abc import Iterator

import pytest
from daihinmin.tools.cli import build_parser, main
from daihinmin.tools.cmd_research import RESEARCH_TOOLS

RST = re.compile(r"``|:(?:mod|func|class|meth|attr|data|ref|doc):`|^\s*={4,}\s*$|^\.\. ",
                 re.MULTILINE)
NO_DEFAULT: tuple[object, ...] = (None, False, argparse.SUPPRESS, [])


def parsers(parser: argparse.ArgumentParser, prog: str = "daihinmin"
            ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every sub-command's, sub-sub-commands included."""
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                if name not in RESEARCH_TOOLS:  # they parse their own arguments (below)
                    yield from parsers(child, f"{prog} {name}")


def research_parsers(name: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser a research tool builds when asked for ``--help``."""
    made: list[argparse.ArgumentParser] = []
    real = argparse.ArgumentParser.parse_known_args

    def spy(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        made.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", spy)
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit):
        main([name, "--help"])
    monkeypatch.undo()
    return made[-1]


def problems(prog: str, parser: argparse.ArgumentParser) -> list[str]:
    found = []
    text = parser.format_help()
    for match in RST.finditer(text):
        found.append(f"{prog}: markup {match.group().strip()!r}")
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        flag = action.option_strings[-1]
        if not action.help or action.help == argparse.SUPPRESS:
            if action.help != argparse.SUPPRESS:
                found.append(f"{prog} {flag}: no help")
            continue
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                               argparse._StoreConstAction, argparse._CountAction,
                               argparse._VersionAction)) or action.nargs == 0:
            continue
        if action.default not in NO_DEFAULT and "default" not in parser._get_formatter() \
                ._expand_help(action).lower():
            found.append(f"{prog} {flag}: the default {action.default!r} is not shown")
    return found


def test_every_help_of_the_command_tree_is_plain_and_complete() -> None:
    found = [p for prog, parser in parsers(build_parser()) for p in problems(prog, parser)]
    assert found == []


@pytest.mark.parametrize("name", sorted(RESEARCH_TOOLS))
def test_every_research_tool_help_is_plain_and_complete(name: str,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    parser = research_parsers(name, monkeypatch)
    assert problems(f"daihinmin {name}", parser) == []


def test_serve_on_a_busy_port_names_the_address() -> None:
    """A real listening socket holds the port; serve says where it cannot listen."""
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "serve", "--port",
                               str(port), "--no-log"], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "Errno" not in done.stderr
