"""daihinmin.tournament: thousands of matches over many tables, with duplicate deals and ratings.

Modules: ``config`` (what to play), ``schedule`` (which matches), ``store`` (the SQLite
results, resumable) and ``walcheck``, ``run`` (the dispatcher: the one writer of the store),
``worker``/``pool``/``local_table``/``tcp_table``/``match_logs`` (matches played on all
cores, in process or over TCP), ``live`` and ``stats`` (the standings and ratings with their
intervals), ``report`` (the final tables), ``publish`` (the tables and standings live in
``daihinmin web``: ``--publish``), ``sprt`` (the sequential probability ratio test) and
``sprt_run`` (a two-participant tournament that stops when it decides: ``--sprt``).
"""
