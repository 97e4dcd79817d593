"""daihinmin.web: the browser app (``daihinmin web``).

Play against CPUs, hot-seat on one device, rooms with friends; watch live tables (what
:mod:`daihinmin.watch` publishes); replay match logs.  Modules: ``app`` (the Starlette app and
its routes), ``tables`` and ``driver`` (a browser table over the game driver), ``seats`` (a
CPU's and a person's seat), ``page_snapshot`` (what one page is sent), ``feeds`` and
``watched`` (the live tables), ``settings`` (the new-game menu), ``replay_frames``,
``replay_html`` and ``tournament_html`` (offline pages), ``output``, ``static/`` (the page).
"""

from daihinmin.web.app import build_app, serve

__all__ = ["build_app", "serve"]
