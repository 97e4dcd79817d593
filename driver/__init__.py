"""The game driver: one sans-IO state machine that every way of playing drives.

Modules: ``game`` (:class:`~daihinmin.driver.game.GameDriver`: deal, exchange, turns,
choices, result; requests and events in one order), ``record`` (the game record every
way of playing writes to the match log), ``faults`` (the seat fault vocabulary the record
uses), ``local`` (in-process matches between bots: the research fast path).
"""
