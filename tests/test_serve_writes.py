"""``daihinmin serve`` writes once per player per wait unless told ``--exact-writes``."""

from __future__ import annotations

import pytest
from daihinmin.tools.cli import build_parser
from daihinmin.tools.cmd_serve import coalesces, config_from_args


@pytest.mark.parametrize(("flags", "coalesced"), [
    ([], True), (["--coalesce"], True), (["--exact-writes"], False)])
def test_serve_coalesces_by_default(flags: list[str], coalesced: bool) -> None:
    args = build_parser().parse_args(["serve", "--no-log", "--seed", "1", *flags])
    assert config_from_args(args, args.host, args.port, coalesces(args)
                            ).coalesce_writes is coalesced


def test_the_two_write_modes_exclude_each_other() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--coalesce", "--exact-writes"])
