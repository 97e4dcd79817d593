"""The development commands stay what the README says they are."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines()
                   if line.startswith("python3 -m venv .venv && ") and "pytest" in line)
    assert command.removeprefix("python3 -m venv .venv && ") in ci.splitlines()
    assert ".venv/bin/mypy" in command  # the type check is part of it


def test_the_type_checker_sees_every_package_under_its_import_name() -> None:
    """typecheck/daihinmin/<name> links to each top-level package folder of pyproject."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = {name.split(".")[1]: path
               for name, path in config["tool"]["setuptools"]["package-dir"].items()
               if name.count(".") == 1}
    links = ROOT / "typecheck" / "daihinmin"
    top = links / "__init__.py"  # the top package's module: its version, the map of the rest
    assert top.is_symlink() and top.resolve() == (ROOT / "daihinmin" / "__init__.py").resolve()
    assert {p.name for p in links.iterdir()} - {"__init__.py"} == set(folders)
    for name, folder in folders.items():
        link = links / name
        assert link.is_symlink() and not os.path.isabs(os.readlink(link))
        assert link.resolve() == (ROOT / folder).resolve()
    mypy = config["tool"]["mypy"]
    assert mypy["mypy_path"].split(":")[0] == "typecheck"
    assert "typecheck/daihinmin" in mypy["files"]


def test_the_type_checker_checks_the_tests_too() -> None:
    """tests/ is checked (not strictly: a test may leave its fixtures unannotated), so a
    ``# type: ignore`` there silences a real error or is itself reported."""
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert "tests" in mypy["files"] and "tests/support" in mypy["mypy_path"].split(":")
    assert mypy["warn_unused_ignores"] is True
