"""A Trio client whose replies can go out late on Trio's clock (deadline tests, mock clock).

A bot that thinks too long calls ``late.hold(seconds)``: its next reply is written that much
later, after a ``trio.sleep``, so the server's deadline runs meanwhile, as it does against a
separate process that thinks.  A bot that jumped the mock clock instead could answer before
the server had started its deadline (Trio runs ready tasks in no fixed order), and then the
late answer would be on time.
"""

from __future__ import annotations

import trio
from daihinmin.client import Bot, ClientProtocol, MatchRecord
from daihinmin.client.trio_runner import run_protocol_async
from daihinmin.rules.ruleset import UECDA, RuleSet

HOST = "127.0.0.1"


class LateStream(trio.abc.Stream):
    """A client's TCP stream whose next write can be held back."""

    def __init__(self) -> None:
        self.stream: trio.abc.Stream | None = None  # set once connected
        self.held = 0.0

    def hold(self, seconds: float) -> None:
        """Write the next reply ``seconds`` late (a bot's thinking time)."""
        self.held = seconds

    def _connected(self) -> trio.abc.Stream:
        assert self.stream is not None, "not connected"
        return self.stream

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        held, self.held = self.held, 0.0
        if held:
            await trio.sleep(held)
        await self._connected().send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._connected().wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self._connected().receive_some(max_bytes)

    async def aclose(self) -> None:
        if self.stream is not None:
            await self.stream.aclose()


async def run_late_bot(bot: Bot, late: LateStream, port: int, *, rules: RuleSet = UECDA,
                       read_timeout: float = 30.0) -> MatchRecord:
    """Play the match with ``bot`` over ``late`` (the Trio runner's loop, with no retries)."""
    late.stream = await trio.open_tcp_stream(HOST, port)
    async with late:
        return await run_protocol_async(late, ClientProtocol(bot, rules=rules), read_timeout)
