"""``daihinmin COMMAND ...`` builds that command's parser alone: it parses as the whole
command line does, and a bot process imports none of the other commands."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest
from daihinmin.tools.cli import build_parser, command_module


def commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_every_command_is_found_by_its_name() -> None:
    names = commands(build_parser())
    assert "bot" in names and "soak" in names
    for name in names:
        assert command_module(name) is not None
        assert name in commands(build_parser(name)), name
    assert command_module("no-such-command") is None
    assert commands(build_parser("no-such-command")) == names  # the error lists them all


@pytest.mark.parametrize("argv", [
    ["bot", "default", "--port", "5", "--opt", "x=1", "-q"],
    ["serve", "--no-log", "--seed", "3", "--coalesce"],
    ["match", "default", "random", "--games", "4", "--no-log"],
    ["bench", "tcp", "--games", "3", "--kind", "default"],
    ["replay", "some.log", "--verify"],
])
def test_one_command_parses_as_the_whole_command_line(argv: list[str]) -> None:
    assert build_parser(argv[0]).parse_args(argv) == build_parser().parse_args(argv)


def test_a_bot_process_imports_no_other_command() -> None:
    code = ("import sys\n"
            "from daihinmin.tools.cli import main\n"
            "main(['bot', '--list'])\n"
            "print(' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    modules = set(out.split("\n")[-2].split())
    assert "daihinmin.tools.cmd_bot" in modules
    for absent in ("daihinmin.tools.cmd_serve", "daihinmin.tools.cmd_bench", "daihinmin.server",
                   "daihinmin.tournament", "daihinmin.rules.game", "importlib.metadata",
                   "trio", "sqlite3"):
        assert absent not in modules, absent


def test_version_is_read_when_asked() -> None:
    out = subprocess.run([sys.executable, "-m", "daihinmin.tools", "--version"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.startswith("daihinmin ") and len(out.split()) >= 2
