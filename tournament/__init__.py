"""Tournaments: thousands of matches over many tables, with duplicate deals and ratings.

Modules: ``config`` (what to play), ``schedule`` (which matches), ``store`` (SQLite results,
resumable), ``stats`` (ratings and intervals), ``worker``/``pool`` (running matches on all
cores, in process or over TCP), ``display`` and ``report`` (live view and final tables),
``publish`` (the tables and standings live in ``daihinmin web``, ``--publish``).
"""
