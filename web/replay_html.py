"""One self-contained HTML file that steps through a match log offline.

The page's stylesheet and the replay script are inlined with the frames (see
:mod:`daihinmin.web.replay_frames`), so the file opens from disk in any browser with no
server and no network.  The file is written next to its final name and moved into place, and
an existing file is never overwritten.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from .app import STATIC
from .replay_frames import frames_script


class OutputExistsError(FileExistsError):
    """The HTML file to write exists already."""


def replay_page(data: dict[str, Any]) -> str:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    script = (STATIC / "replay.js").read_text(encoding="utf-8").replace("</", "<\\/")
    title = html.escape(f"Replay: {data['rules']}, seed {data['seed']}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style></head>
<body><header class="top"><span class="brand">大富豪 Daihinmin replay</span></header>
<main><div id="replay-view"></div></main>
<script type="application/json" id="frames">{frames_script(data)}</script>
<script>{script}</script>
<script>Replay.mount(document.getElementById("replay-view"),
  JSON.parse(document.getElementById("frames").textContent));</script>
</body></html>
"""


def write_replay_html(data: dict[str, Any], path: Path) -> None:
    """Write the page to ``path``; refuses (:class:`OutputExistsError`) if it exists."""
    text = replay_page(data)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    try:
        os.link(temp, path)  # fails if the name exists: never clobbers another file
    except FileExistsError:
        raise OutputExistsError(f"{path} exists already; choose another name") from None
    finally:
        temp.unlink()


__all__ = ["OutputExistsError", "replay_page", "write_replay_html"]
