"""A scripted terminal session: a whole ``web`` game of ``daihinmin play`` in a real pseudo
terminal (pexpect), the script reading each prompt and answering with a listed move number
until the game ends and the program exits."""

from __future__ import annotations

import os
import random
import re
import sys
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

MOVE = r"Your move \[(?:1-)?(\d+)(, p = pass)?, \? = help\]: "
GIVE_BACK = r"Give back \d+ cards?[^\n]*: "
CHOICE = r"(Give up to|Discard up to) \d+ card\(s\)[^\n]*: "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn_play(*args: str) -> Any:  # a pexpect.spawn
    """``daihinmin play ARGS`` in a real pseudo terminal, colours off."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120", LINES="50", TERM="xterm")
    return pexpect.spawn(sys.executable, ["-m", "daihinmin.tools", "play", *args],
                         env=env, encoding="utf-8", timeout=60, dimensions=(50, 120))


@pytest.mark.timeout(180)
def test_a_whole_web_game_in_the_terminal() -> None:
    child = spawn_play("--rules", "web", "--players", "4", "--seed", "7")
    rng = random.Random(7)
    transcript: list[str] = []
    moves = 0
    try:
        while True:
            index = child.expect([MOVE, GIVE_BACK, CHOICE, pexpect.EOF])
            transcript.append(child.before)
            if index == 3:
                break
            if index == 0:
                moves += 1
                count = int(child.match.group(1))
                can_pass = child.match.group(2) is not None
                if moves == 1:  # a wrong answer first: the program must explain and ask again
                    child.sendline(str(count + 1))
                    child.expect(MOVE)
                    transcript.append(child.before)
                answer = "p" if can_pass and rng.random() < 0.25 else str(rng.randint(1, count))
                child.sendline(answer)
            else:
                child.sendline("")  # take the offered default
        child.close()
    finally:
        if child.isalive():
            child.terminate(force=True)
    text = ANSI.sub("", "".join(transcript))
    assert child.exitstatus == 0, text[-2000:]
    assert moves > 0
    assert "there is no move" in text  # the wrong number got a reason
    assert "Legal moves:" in text and "Your hand:" in text and "Field:" in text
    assert "rules web, 4 players" in text
    assert re.search(r"p[123] default: ", text)  # the bots' plays are shown
    assert "Game 1 over" in text and "Standings after game 1 of 1" in text
    assert "place this game" in text and "last place" not in text  # (read as "came last")
    assert "1 game, seed" in text and "game(s)" not in text and "card(s)" not in text
    assert "Match over" in text


@pytest.mark.timeout(120)
def test_play_seats_the_level_and_says_who_stands_in() -> None:
    """``--level strong`` at rules mc does not simulate (runs of four or more), and the
    program says who plays."""
    child = spawn_play("--rule", "sequence_min=6", "--seed", "4", "--level", "strong")
    try:
        child.expect(MOVE + "|" + GIVE_BACK)
        text = ANSI.sub("", child.before)
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert "mc does not simulate the uecda+sequence_min=6 rules yet" in text
    assert "strong (weakest)" in text
