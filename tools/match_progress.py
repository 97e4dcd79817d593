"""The progress bar of ``daihinmin match``: one table's and ``--jobs N``'s, the same columns."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress


def match_progress(title: str, quiet: bool) -> Progress:
    """A transient bar on stderr counting games (hidden with ``quiet``, e.g. under ``--json``).

    Two redraws a second: each redraw costs CPU in the process that plays the games.
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn(f"[bold]match[/]{title}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("games"), TimeRemainingColumn(),
                    console=Console(stderr=True), disable=quiet, transient=True,
                    refresh_per_second=2)
