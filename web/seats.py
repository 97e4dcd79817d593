"""The two kinds of seat at a browser table: a CPU (a bundled bot) and a person.

A CPU's bot runs in a worker thread, so a Monte Carlo search never stalls the pages.  A
person's seat asks the browser through a :class:`Prompt` and waits; while the person is not
connected (never joined, closed the tab, lost the network) the seat's stand-in, a CPU of the
table's level, answers at once, and the seat is given back as soon as the person returns.
The stand-in watches every turn, so it plays from the same knowledge a CPU would have.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import trio
from daihinmin.contract.view import Bot, GameView, Observed
from daihinmin.rules.choices import PendingChoice, is_valid_choice
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from daihinmin.values.words import counted

log = logging.getLogger("daihinmin.web")

_prompt_ids = itertools.count(1)
T = TypeVar("T")


class BadAnswerError(ValueError):
    """A browser's answer that cannot be used (stale, forged, not legal); the text says why."""


class CpuSeat:
    """A bundled bot; ``delay`` seconds after each play let people follow the game."""

    by: str | None = None

    def __init__(self, bot: Bot, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay
        self.error: str | None = None  # why the last question got no answer (the bot raised)

    async def _call(self, what: str, func: Callable[..., T], *args: Any) -> T | None:
        self.error = None
        try:
            return await trio.to_thread.run_sync(func, *args)
        except Exception as exc:  # a failing bot loses its answer, as in any local match
            log.exception("the %s bot failed to %s", self.bot.name, what)
            self.error = f"the bot raised {type(exc).__name__}: {exc}"
            return None

    async def exchange(self, view: GameView, count: int) -> CardSet | None:
        return await self._call("exchange", self.bot.exchange, view, count)

    async def play(self, view: GameView) -> Move:
        move = await self._call("play", self.bot.play, view)
        if self.delay:
            await trio.sleep(self.delay)
        return move if isinstance(move, Move) else PASS

    async def choose(self, view: GameView, choice: PendingChoice) -> CardSet | None:
        return await self._call("choose", self.bot.choose, view, choice)

    async def game_start(self, view: GameView) -> None:
        await self._call("start a game", self.bot.on_game_start, view)

    async def turn_seen(self, view: GameView, observed: Observed, accepted: bool) -> None:
        await self._call("watch a turn", self.bot.on_turn, view, observed, accepted)

    async def game_end(self, view: GameView, places: tuple[int, ...]) -> None:
        await self._call("end a game", self.bot.on_game_end, view, places)


@dataclass
class Prompt:
    """One question to a person: ``kind`` is play, exchange or choose."""

    kind: str
    view: GameView
    count: int = 0  # exchange: exactly this many; choose: at most this many
    choice: PendingChoice | None = None
    moves: list[Move] = field(default_factory=list)  # play: the legal moves, PASS last
    id: int = field(default_factory=lambda: next(_prompt_ids))


class PersonSeat:
    """A person in a browser; ``stand_in`` plays whenever nobody is connected."""

    error: str | None = None  # a person's answers are checked before they are taken

    def __init__(self, name: str, stand_in: CpuSeat, changed: Callable[[], None]) -> None:
        self.name = name
        self.stand_in = stand_in
        self.changed = changed  # tell the table that what its pages show has changed
        self.connected = False
        self.prompt: Prompt | None = None
        self.by: str | None = None
        self._answer: Any = None
        self._wake = trio.Event()

    # --- the connection ---------------------------------------------------------------------
    def connect(self) -> None:
        self.connected = True
        self.changed()

    def disconnect(self) -> None:
        """The stand-in answers the question pending now, and every one until the return."""
        self.connected = False
        self._wake.set()
        self.changed()

    # --- questions ----------------------------------------------------------------------------
    async def _ask(self, prompt: Prompt) -> Any:
        """The person's answer, or None when nobody is connected (the stand-in's turn)."""
        self.by = None
        if not self.connected:
            self.by = "fallback"
            return None
        self.prompt, self._answer, self._wake = prompt, None, trio.Event()
        self.changed()
        try:
            while self._answer is None:
                await self._wake.wait()
                self._wake = trio.Event()
                if self._answer is None and not self.connected:
                    self.by = "fallback"
                    return None
            return self._answer
        finally:
            self.prompt = None
            self.changed()

    def answer(self, prompt_id: object, message: dict[str, Any]) -> None:
        """Take the browser's answer to the open prompt, or raise :class:`BadAnswerError`."""
        prompt = self.prompt
        if prompt is None:
            raise BadAnswerError("nothing is asked of you now (not your turn)")
        if prompt_id != prompt.id:
            raise BadAnswerError("that answer is for an earlier question (stale or replayed)")
        if message.get("type") != prompt.kind:
            raise BadAnswerError(f"the question is a {prompt.kind}, not a "
                                 f"{message.get('type')!r}")
        if prompt.kind == "play":
            index = message.get("move")
            if not isinstance(index, int) or isinstance(index, bool) \
                    or not 0 <= index < len(prompt.moves):
                raise BadAnswerError("no such move: choose one of the legal moves")
            self._answer = prompt.moves[index]
        else:
            cards = cards_of(message.get("cards"))
            hand = prompt.view.hand
            if prompt.kind == "exchange":
                if len(cards) != prompt.count or not _holds(hand, cards):
                    raise BadAnswerError(
                        f"give exactly {counted(prompt.count, 'card')} of your hand")
            else:
                assert prompt.choice is not None
                if not is_valid_choice(hand, prompt.choice, cards):
                    raise BadAnswerError(
                        f"choose at most {counted(prompt.count, 'card')} of your hand")
            self._answer = cards
        self._wake.set()

    async def exchange(self, view: GameView, count: int) -> CardSet | None:
        answer = await self._ask(Prompt("exchange", view, count))
        return await self.stand_in.exchange(view, count) if answer is None else answer

    async def play(self, view: GameView) -> Move:
        answer = await self._ask(Prompt("play", view, moves=play_options(view)))
        return await self.stand_in.play(view) if answer is None else answer

    async def choose(self, view: GameView, choice: PendingChoice) -> CardSet | None:
        answer = await self._ask(Prompt("choose", view, choice.count, choice))
        return await self.stand_in.choose(view, choice) if answer is None else answer

    async def game_start(self, view: GameView) -> None:
        await self.stand_in.game_start(view)

    async def turn_seen(self, view: GameView, observed: Observed, accepted: bool) -> None:
        await self.stand_in.turn_seen(view, observed, accepted)

    async def game_end(self, view: GameView, places: tuple[int, ...]) -> None:
        await self.stand_in.game_end(view, places)


def play_options(view: GameView) -> list[Move]:
    """The legal moves a person picks from: plays in a stable order, the pass last."""
    moves = view.legal_moves()
    plays = sorted((m for m in moves if not m.is_pass),
                   key=lambda m: (m.size, m.low, str(m)))
    return plays + ([PASS] if len(plays) < len(moves) else [])


def cards_of(value: object) -> CardSet:
    """Card numbers from a browser message (jokers are 60 and 61), checked."""
    if not isinstance(value, list) or len(value) > 54:
        raise BadAnswerError("cards must be a list of card numbers")
    mask = 0
    for c in value:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= 61:
            raise BadAnswerError(f"not a card number: {c!r}")
        mask |= 1 << c
    return CardSet(mask)


def _holds(hand: CardSet, cards: CardSet) -> bool:
    return cards.without_jokers <= hand and cards.jokers <= hand.jokers


__all__ = ["BadAnswerError", "CpuSeat", "PersonSeat", "Prompt", "cards_of", "play_options"]
