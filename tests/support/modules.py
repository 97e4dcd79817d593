"""Every module of the ``daihinmin`` packages (importable as ``modules`` from the tests).

The packages are the ones ``pyproject.toml`` installs; the modules are found in their
folders, so a new module is covered by the doctest and import-cycle tests without a list.
"""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from functools import cache
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@cache
def packages() -> tuple[str, ...]:
    """The installed packages, e.g. ``daihinmin.protocol``, ``daihinmin.players.mc``."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return tuple(config["tool"]["setuptools"]["packages"])


@cache
def module_names() -> tuple[str, ...]:
    """Every package and module name (``__main__`` modules excluded: importing runs them)."""
    names: list[str] = []
    for package in packages():
        names.append(package)
        path = importlib.import_module(package).__path__
        names += [f"{package}.{m.name}" for m in pkgutil.iter_modules(path)
                  if not m.ispkg and m.name != "__main__"]
    return tuple(sorted(names))


def top_package(name: str) -> str:
    """``daihinmin.players.mc.bot`` -> ``players``: cycles are counted between these
    (``daihinmin`` itself, the top package, is its own)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]
