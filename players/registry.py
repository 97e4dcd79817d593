"""Bundled and plugged-in players by name: ``make_bot("default", seed=1)``.

Entries are ``"module:factory"`` strings, imported only when that player is made, so a
heavy player (e.g. the Monte-Carlo one) costs nothing until it is used.  A factory is any
callable returning a :class:`~daihinmin.contract.view.Bot` (usually the class itself) and
takes the player's options as keyword arguments.  ``make_bot`` also accepts a
``"module:factory"`` string directly, to run a bot that is not registered.

>>> bot = make_bot("random", seed=3)
>>> bot.name, "default" in names()
('random', True)
>>> make_bot("nosuchbot")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
daihinmin.players.registry.UnknownBotError: no player named 'nosuchbot'; known: ...
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from daihinmin.contract.view import Bot

BotFactory = Callable[..., Bot]

# name -> "module:factory".  Other packages add themselves with register() or a line here.
_REGISTRY: dict[str, str | BotFactory] = {
    "random": "daihinmin.players.random_bot:RandomBot",
    "default": "daihinmin.players.default_bot:DefaultBot",  # the UECda devkit's sample client
    "default2013": "daihinmin.players.default_bot:Default2013Bot",  # its 2013 build
    "weakest": "daihinmin.players.weakest_bot:WeakestBot",
    "greedy": "daihinmin.players.greedy_bot:GreedyBot",
    "mc": "daihinmin.players.mc.bot:MCBot",
    "human": "daihinmin.players.human:HumanBot",  # a person at the terminal
}


class UnknownBotError(LookupError):
    """No player of that name, or its ``module:factory`` cannot be imported."""

    def __str__(self) -> str:  # LookupError would show the repr of the message
        return str(self.args[0])


def register(name: str, factory: str | BotFactory, *, replace: bool = False) -> None:
    """Add a player: ``factory`` is a callable or a lazy ``"module:factory"`` string."""
    if name in _REGISTRY and not replace:
        raise ValueError(f"a player named {name!r} is already registered")
    if isinstance(factory, str) and ":" not in factory:
        raise ValueError(f"a lazy factory is 'module:attribute', got {factory!r}")
    _REGISTRY[name] = factory


def names() -> list[str]:
    """Registered player names, sorted."""
    return sorted(_REGISTRY)


def _load(target: str) -> BotFactory:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnknownBotError(f"cannot import {module_name!r} for {target!r}: {exc}") from exc
    factory = module
    for part in attr.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError:
            raise UnknownBotError(f"{module_name!r} has no {attr!r}") from None
    if not callable(factory):
        raise UnknownBotError(f"{target!r} is not callable")
    return factory


def resolve(name: str) -> BotFactory:
    """The factory of a registered name, or of a ``"module:factory"`` string."""
    entry = _REGISTRY.get(name)
    if entry is None:
        if ":" in name:
            return _load(name)
        raise UnknownBotError(f"no player named {name!r}; known: {', '.join(names())}")
    return _load(entry) if isinstance(entry, str) else entry


def make_bot(name: str, **options: Any) -> Bot:
    """A new player; ``options`` go to its factory (e.g. ``seed``)."""
    bot = resolve(name)(**options)
    if not isinstance(bot, Bot):
        raise TypeError(f"the factory of {name!r} returned {type(bot).__name__}, not a Bot")
    return bot


def _prepare_hook(name: str) -> Callable[[], None] | None:
    hook = getattr(resolve(name), "prepare", None)
    return hook if callable(hook) else None


def needs_preparing(name: str) -> bool:
    """The player has work to do once before it can play (its factory's ``prepare``,
    e.g. compiling), which a launcher should do before seating it."""
    return _prepare_hook(name) is not None


def prepare_notice(name: str) -> str | None:
    """What to say before preparing the player (e.g. that it compiles, and how long that
    takes), or None when preparing is quick now (e.g. a compile cache holds its code).  A
    player that cannot tell says nothing special: "this can take a while"."""
    hook = getattr(resolve(name), "prepare_notice", None)
    if not callable(hook):
        return "preparing; this can take a while" if needs_preparing(name) else None
    notice = hook()
    return None if notice is None else str(notice)


def prepare(name: str) -> None:
    """Do that work now, in this process (a compile cache makes later starts fast)."""
    hook = _prepare_hook(name)
    if hook is not None:
        hook()


def parse_options(items: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs; values that read as int or float become numbers, yes/no and
    true/false become booleans.

    >>> parse_options(["time_ms=250", "adapt=no", "weights_file=w.json"])
    {'time_ms': 250, 'adapt': False, 'weights_file': 'w.json'}
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--opt needs KEY=VALUE, got {item!r}")
        value: object = text
        if text.lower() in ("yes", "no", "true", "false"):
            out[key.replace("-", "_")] = text.lower() in ("yes", "true")
            continue
        for convert in (int, float):
            try:
                value = convert(text)
                break
            except ValueError:
                continue
        out[key.replace("-", "_")] = value
    return out


__all__ = ["BotFactory", "UnknownBotError", "make_bot", "names", "needs_preparing", "parse_options",
           "prepare", "prepare_notice", "register", "resolve"]
