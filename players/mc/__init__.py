"""``mc``: a Monte-Carlo player on a Numba simulator of the ``uecda`` rules.

It samples the hidden hands consistent with what it has seen, plays every candidate move out
to the end of the game many times with a fast heuristic policy, and picks the move with the
best average result (UCB1 over the candidates).  Entry point:
:class:`~daihinmin.players.mc.bot.MCBot` (``make_bot("mc", time_ms=..., playouts=...,
seed=...)``, ``daihinmin bot mc --opt time_ms=300``).

Modules, bottom up:

- ``bits``, ``moves``: card masks (the :mod:`daihinmin.protocol.cards` layout, one joker as
  bit 60) and moves as ``(cards, info)`` int64 pairs;
- ``movegen``, ``state``: legal moves and state transitions, equal to the reference engine
  (differential tests in ``tests/test_mc_sim.py``); ``convert``: to and from engine objects;
- ``control``: unbeatable plays and certain wins by keeping the lead; ``endgame``: the exact
  two-player solver;
- ``rollout`` (the playout policy), ``models`` (opponent models), ``playout``;
- ``worlds``, ``observe``: determinisation from a :class:`~daihinmin.client.view.GameView`
  (proposals weighted and resampled, then refined by Metropolis card swaps);
- ``search`` (the bandit), ``exchange`` (candidate returns), ``bot``, ``bench``, ``warmup``.

Every Numba function is compiled with ``cache=True`` into ``__pycache__`` beside the source
(or Numba's user-wide cache when that is read-only); :func:`~daihinmin.players.mc.bot.warm_up`
loads them once per process.  Numba does not notice edits to a function's callees in other
modules: after changing one of these files, delete ``players/mc/__pycache__/*.nb?``.
"""
