"""The research tools are ``daihinmin`` sub-commands; ``daihinmin --version``."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata

import pytest
from daihinmin.tools.cli import main
from daihinmin.tools.cmd_research import RESEARCH_TOOLS

DAIHINMIN = [sys.executable, "-m", "daihinmin.tools"]


@pytest.mark.parametrize("name", sorted(RESEARCH_TOOLS))
def test_each_research_tool_has_help_under_its_subcommand_name(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([name, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: daihinmin {name} ")
    assert "--help" in out


def test_the_command_list_names_every_research_tool(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in RESEARCH_TOOLS:
        assert re.search(rf"^    {re.escape(name)}\b", out, re.M), name


def test_version_is_the_installed_package_version() -> None:
    done = subprocess.run([*DAIHINMIN, "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"daihinmin {metadata.version('daihinmin')}"


def test_a_research_tool_runs_as_a_subcommand() -> None:
    """A real (tiny) measurement in its own process: 4 games of random against weakest."""
    done = subprocess.run([*DAIHINMIN, "levels", "uecda", "random", "weakest", "4"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    m = re.fullmatch(r"uecda: random against weakest: mean place (\d\.\d\d) ± (\d\.\d\d) "
                     r"\(1 = first\) over 4 games\n", done.stdout)
    assert m is not None, done.stdout
    assert 1 <= float(m.group(1)) <= 5  # five players, 1 = first


def test_a_research_tool_refuses_bad_arguments_with_the_usage_code() -> None:
    done = subprocess.run([*DAIHINMIN, "levels", "uecda", "random", "weakest", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "usage: daihinmin levels" in done.stderr and "Traceback" not in done.stderr


def test_other_commands_still_refuse_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["replay", "x.jsonl", "--no-such-option"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
