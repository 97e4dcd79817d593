"""A person, scripted: reads each prompt of the human seat and picks a listed number; and
a match on a real server around it."""

from __future__ import annotations

import random
import re

import trio
from daihinmin.contract.view import Bot
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer
from seating import seat_bots

MOVE_PROMPT = re.compile(r"Your move \[(?:1-)?(\d+)(, p = pass)?")



class ScriptedPerson:
    """Answers prompts as a person might: a listed move number (sometimes a pass, sometimes
    a wrong number first), Enter for exchanges and choices."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.moves = self.choices = self.wrong = 0
        self._retry = False

    def __call__(self, prompt: str) -> str:
        match = MOVE_PROMPT.match(prompt)
        if match is None:
            self.choices += 1
            return ""  # exchange / give / discard: take the offered default
        self.moves += 1
        count = int(match.group(1))
        if not self._retry and self.rng.random() < 0.05:
            self._retry, self.wrong = True, self.wrong + 1
            return str(count + 1)  # not listed: the bot must ask again
        self._retry = False
        if match.group(2) and self.rng.random() < 0.2:
            return "p"
        return str(self.rng.randint(1, count))


def play_on_server(config: ServerConfig, bots: list[Bot]) -> None:
    """A real server on loopback and one Trio client per bot, seated in order (connection
    ``i`` is player ``i``), until the match is over."""

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server = MatchServer(config)
            port = await nursery.start(server.run)
            await seat_bots(nursery, server, port, bots, rules=config.rules)

    trio.run(main)
