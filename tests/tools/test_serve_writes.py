"""The write modes the commands choose: ``serve`` coalesces unless told otherwise; ``match``
defers for bundled bots and writes exactly once an external program plays; a tournament
match as ``match``."""

from __future__ import annotations

from dataclasses import replace

import pytest
from daihinmin.runs.spec import MatchSpec, Participant
from daihinmin.runs.tcp_table import match_write_mode as tournament_write_mode
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.errors import ServerConfigError
from daihinmin.tools.cli import build_parser
from daihinmin.tools.cmd_match import lineup_of, match_write_mode
from daihinmin.tools.cmd_serve import serve_write_mode
from daihinmin.tools.match_options import config_from_args


@pytest.mark.parametrize(("flags", "mode"), [
    ([], "coalesced"), (["--coalesce"], "coalesced"), (["--exact-writes"], "exact"),
    (["--write-mode", "deferred"], "deferred"), (["--write-mode", "exact"], "exact")])
def test_serve_coalesces_by_default(flags: list[str], mode: str) -> None:
    args = build_parser().parse_args(["serve", "--no-log", "--seed", "1", *flags])
    assert config_from_args(args, args.host, args.port, serve_write_mode(args)
                            ).write_mode == mode


@pytest.mark.parametrize("flags", [["--coalesce", "--exact-writes"],
                                   ["--write-mode", "deferred", "--coalesce"],
                                   ["--write-mode", "sometimes"]])
def test_the_write_mode_options_exclude_each_other(flags: list[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *flags])


@pytest.mark.parametrize(("bots", "commands", "flags", "mode"), [
    (["default"] * 5, [], [], "deferred"),
    (["default"] * 4, ["./client {host} {port}"], [], "exact"),
    (["default"] * 5, [], ["--exact-writes"], "exact"),
    (["default"] * 4, ["./client {host} {port}"], ["--write-mode", "deferred"], "deferred"),
    (["default"] * 5, [], ["--write-mode", "coalesced"], "coalesced")])
def test_match_defers_for_bundled_bots_only(bots: list[str], commands: list[str],
                                            flags: list[str], mode: str) -> None:
    argv = ["match", *bots, *[f"--cmd={c}" for c in commands], "--no-log", *flags]
    args = build_parser().parse_args(argv)
    assert match_write_mode(args, lineup_of(args.bots, args.cmd, 5)) == mode


def test_a_tournament_match_defers_unless_a_command_plays() -> None:
    bots = tuple(Participant(f"b{i}", bot="default") for i in range(5))
    spec = MatchSpec(id=0, rules="uecda", rule=(), seed=1, games=1, lineup=bots)
    assert tournament_write_mode(spec) == WriteMode.DEFERRED
    command = Participant("c", command="./c {port}")
    assert tournament_write_mode(replace(spec, lineup=(*bots[:4], command))) == WriteMode.EXACT


def test_an_unknown_write_mode_is_refused() -> None:
    with pytest.raises(ServerConfigError, match="write_mode is one of"):
        ServerConfig(port=0, write_mode="sometimes").validate()  # type: ignore[arg-type]
