"""What the research tools' command lines share: each tool's ``main(argv, prog, formatter)``
builds its parser here, so ``daihinmin`` can give it the help format of every other command
(:mod:`daihinmin.tools.cmd_research`)."""

from __future__ import annotations

import argparse

from daihinmin.rules.ruleset import PRESETS
from daihinmin.runs.backend import Backend, BackendError, backend_from


def tool_parser(prog: str | None, formatter: type[argparse.HelpFormatter],
                description: str | None) -> argparse.ArgumentParser:
    """A tool's parser: ``prog`` and ``formatter`` as ``daihinmin`` passes them, the tool's
    module docstring as its description."""
    return argparse.ArgumentParser(prog=prog, description=description,
                                   formatter_class=formatter)


def add_preset_option(p: argparse.ArgumentParser) -> None:
    """``--rules PRESET``: the preset a tool's games are played at."""
    p.add_argument("--rules", default="uecda", choices=sorted(PRESETS),
                   help="preset the games are played at (its default player count)")


def local_only_checked(p: argparse.ArgumentParser, args: argparse.Namespace) -> Backend:
    """The ``--backend`` asked for; a usage error when Ray is asked for with what only this
    machine can do: ``--log-dir`` (written where the games are played) or, where a tool has
    it, ``--sprt`` (the results stream here)."""
    try:
        backend = backend_from(args)
        if backend.kind == "ray" and args.log_dir is not None:
            raise BackendError("--log-dir is written where the games are played: not with "
                               "--backend ray")
        if backend.kind == "ray" and getattr(args, "sprt", None) is not None:
            raise BackendError("--sprt streams the positions' results here: not with "
                               "--backend ray")
    except BackendError as exc:
        p.error(str(exc))
    return backend
