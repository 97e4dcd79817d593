"""One self-contained HTML file that steps through a match log offline.

The page's stylesheet and the replay script are inlined with the frames (see
:mod:`daihinmin.web.replay_frames`), so the file opens from disk in any browser with no
server and no network.  The file is written next to its final name and moved into place, and
an existing file is never overwritten (:func:`daihinmin.web.output.write_new_file`).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .app import STATIC
from .output import write_new_file
from .replay_frames import frames_script


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
    write_new_file(path, replay_page(data))


__all__ = ["replay_page", "write_replay_html"]
