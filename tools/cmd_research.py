"""The research tools as ``daihinmin`` sub-commands: each keeps its own options in its module
(``main(argv, prog, formatter)``; ``python -m daihinmin.research.<module>`` still works), and
the command line gives it the help format of every other command (:mod:`.help_text`)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

# sub-command -> (module, one line for ``daihinmin --help``)
RESEARCH_TOOLS: dict[str, tuple[str, str]] = {
    "mc-strength": ("daihinmin.research.mc_strength",
                    "mc against four copies of one bot: mean points with 95%% intervals"),
    "duplicate": ("daihinmin.research.duplicate",
                  "two players on the same deals and seats: the paired difference"),
    "mc-fit": ("daihinmin.research.mc_fit",
               "fit mc's learned playout policy to its own searches"),
    "levels": ("daihinmin.research.levels_measure",
               "one bot against a table of another: mean place (the CPU levels' order)"),
    "soak": ("daihinmin.bench.soak",
             "one server, many matches against misbehaving clients: memory and faults"),
    "fault-client": ("daihinmin.bench.fault_client",
                     "a client that misbehaves on purpose, against any server"),
}


def tool_main(name: str) -> Callable[..., int]:
    """The tool's ``main(argv, prog)``."""
    main: Callable[..., int] = importlib.import_module(RESEARCH_TOOLS[name][0]).main
    return main


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, (_module, summary) in RESEARCH_TOOLS.items():
        # The tool parses its own arguments (``--help`` included): cli.main hands it the rest.
        p = sub.add_parser(name, help=summary, add_help=False)
        p.set_defaults(func=None, passthrough=_runner(name))


def _runner(name: str) -> Callable[[list[str]], int]:
    def run(rest: list[str]) -> int:
        from daihinmin.tools.help_text import PlainHelp

        return tool_main(name)(rest, prog=f"daihinmin {name}", formatter=PlainHelp)

    return run
