"""daihinmin.research: experiments with the bundled players.

``mc_strength`` (the Monte Carlo player against a field, with confidence intervals),
``duplicate`` (paired comparisons of two players over the same deals: ``positions`` plays
them, ``duplicate_sprt`` stops when a sequential test decides), ``mc_fit`` (fitting
``mc``'s playout policy), ``levels_measure`` (the CPU levels' order).  The command line runs
them as ``daihinmin mc-strength``, ``duplicate``, ``mc-fit`` and ``levels``.
"""
