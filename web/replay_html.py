"""One self-contained HTML file that steps through a match log offline.

The page's stylesheet and the replay script are inlined with the frames (see
:mod:`daihinmin.web.replay_frames`), so the file opens from disk in any browser with no
server and no network.  The file is written next to its final name and moved into place, and
an existing file is never overwritten (:func:`daihinmin.web.output.write_new_file`).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .app import STATIC
from .output import write_new_file
from .replay_frames import frames_by_game, frames_script_pieces

if TYPE_CHECKING:
    from daihinmin.records.matchlog import MatchLog


def replay_page_pieces(head: dict[str, Any], games: Iterable[dict[str, Any]]
                       ) -> Iterator[str]:
    """The page, a game's frames at a time (``head``: the frames but their games)."""
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    script = (STATIC / "replay.js").read_text(encoding="utf-8").replace("</", "<\\/")
    title = html.escape(f"Replay: {head['rules']}, seed {head['seed']}")
    yield f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style></head>
<body><header class="top"><span class="brand">大富豪 Daihinmin replay</span></header>
<main><div id="replay-view"></div></main>
<script type="application/json" id="frames">"""
    yield from frames_script_pieces(head, games)
    yield f"""</script>
<script>{script}</script>
<script>Replay.mount(document.getElementById("replay-view"),
  JSON.parse(document.getElementById("frames").textContent));</script>
</body></html>
"""


def write_replay_log_html(log: MatchLog, path: Path) -> int:
    """The page of every game of ``log`` to ``path``, built and written game by game (the
    memory of one game, however long the log); the number of games.  Refuses an existing
    ``path`` (:class:`OutputExistsError`); a log the engine disagrees with leaves no file
    (:class:`LogFramesError`)."""
    head, games = frames_by_game(log)
    counted = _Counted(games)
    write_new_file(path, replay_page_pieces(head, counted))
    return counted.count


class _Counted:
    def __init__(self, items: Iterator[dict[str, Any]]) -> None:
        self.items = items
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for item in self.items:
            self.count += 1
            yield item


__all__ = ["replay_page_pieces", "write_replay_log_html"]
