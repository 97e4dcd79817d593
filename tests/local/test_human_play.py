"""A person (scripted: it reads each prompt and picks a listed number) plays whole matches:
in process against bundled bots (``daihinmin play``'s session) and over TCP on a server
(``daihinmin bot human``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from daihinmin.local.terminal import PlaySession, Seat
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.human import HumanBot
from daihinmin.players.random_bot import RandomBot
from daihinmin.players.registry import make_bot
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.rules.ruleset import ruleset_from
from daihinmin.server.config import ServerConfig
from daihinmin.tools.cmd_play import bot_kinds
from rich.console import Console
from scripted_person import ScriptedPerson, play_on_server


def human_seat(person: ScriptedPerson, out: io.StringIO) -> HumanBot:
    return HumanBot(console=Console(file=out, width=110, color_system=None),
                    input_func=person, infer_notes=False)


@pytest.mark.parametrize(("preset", "overrides", "games"), [
    ("web", [], 2),
    ("app", ["seven_pass=yes", "ten_discard=yes", "players=3"], 2),
    ("original", [], 1),
    ("thirteenth_floor", [], 2),
    ("uecda", [], 2),
])
def test_a_person_plays_a_whole_match_in_process(preset: str, overrides: list[str],
                                                 games: int) -> None:
    rules = ruleset_from(preset, overrides)
    out = io.StringIO()
    person = ScriptedPerson(seed=len(preset))
    human = human_seat(person, out)
    kinds = bot_kinds("default,random", rules.players - 1)
    seats = [Seat(human, "you")] + [Seat(make_bot(k, seed=i), k) for i, k in enumerate(kinds)]
    human.names = [s.name for s in seats]
    match = PlaySession(rules, seed=9, games=games, seats=seats, human=0).run()
    assert match.finished and len(match.results) == games
    text = out.getvalue()
    assert person.moves > 0 and "illegal move" not in text
    assert text.count("Standings after game") == games and "Match over" in text
    assert "Legal moves:" in text and "Your hand:" in text
    if person.wrong:
        assert "there is no move" in text
    for p in range(1, rules.players):
        assert f"p{p} {kinds[p - 1]}: " in text  # every bot's plays are shown


def test_a_person_takes_a_seat_on_a_server(tmp_path: Path) -> None:
    """``daihinmin bot human``: the same HumanBot over protocol 20260 on a web table."""
    rules = ruleset_from("web")
    log = tmp_path / "m.jsonl"
    config = ServerConfig(rules=rules, games=2, seed=3, port=0, log_path=log,
                          move_timeout=None, exchange_timeout=None)
    out = io.StringIO()
    person = ScriptedPerson(seed=1)
    play_on_server(config, [human_seat(person, out), DefaultBot(), RandomBot(2), DefaultBot()])
    match_log = read_match_log(log)
    assert verify_log(match_log).complete
    assert match_log.header.players[0].protocol == 20260
    mine = [t for g in match_log.games for t in g.turns if t.player == 0]
    # Every prompt but the wrong numbers became a move (and a seat with no legal play
    # passes without a prompt); no move of the person was rejected.
    assert len(mine) >= person.moves - person.wrong > 0
    assert all(t.answer == 9 or t.move == "pass" for t in mine)
    text = out.getvalue()
    assert "You are player 0." in text and "Game 2 over" in text
