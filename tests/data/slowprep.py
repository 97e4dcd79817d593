"""A bundled-style bot whose first start is slow, as the Monte-Carlo player's first compile.

``SlowStartBot.prepare()`` sleeps ``SLOWPREP_SECONDS`` unless the cache file named by
``SLOWPREP_CACHE`` exists, then creates it (a stand-in for Numba's on-disk cache); the bot
calls it when it is made, as ``MCBot`` warms up when it is made.  ``prepare_notice()`` says
so only while that file is missing, as ``MCBot`` says "compiling" only when it will.  Used
by the tests of ``daihinmin match`` preparing bots before seating them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from daihinmin.players.default_bot import DefaultBot


class SlowStartBot(DefaultBot):
    @staticmethod
    def prepare() -> None:
        cache = Path(os.environ["SLOWPREP_CACHE"])
        if not cache.exists():
            time.sleep(float(os.environ.get("SLOWPREP_SECONDS", "3")))
            cache.write_text("compiled")

    @staticmethod
    def prepare_notice() -> str | None:
        if Path(os.environ["SLOWPREP_CACHE"]).exists():
            return None
        return "compiling (a stand-in for a first compile)"

    def __init__(self, **options: object) -> None:
        self.prepare()
        super().__init__(**options)  # type: ignore[arg-type]
