"""Games played in one process: bots as objects, over the game driver.

Modules: ``runner`` (in-process matches between bots: the research fast path), ``terminal``
(``daihinmin play``: a person against bots in the terminal), ``match_log`` (the server's
match log, written for an in-process match so ``daihinmin replay --verify`` checks it),
``parallel`` (experiment jobs side by side, one process each), ``terminal_text`` (outside
text made safe for a terminal).
"""
