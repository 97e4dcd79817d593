"""daihinmin.tournament: thousands of matches over many tables, with duplicate deals and ratings.

Modules: ``config`` (what to play), ``schedule`` (which matches), ``store`` (the SQLite
results, resumable) and ``walcheck``, ``run`` (the dispatcher: the one writer of the store,
fed by a run of :mod:`daihinmin.runs` on this machine's cores or on a Ray cluster), ``live``
and ``stats`` (the standings and ratings with their intervals), ``report`` (the final
tables), ``publish`` (the tables and standings live in ``daihinmin web``: ``--publish``),
``sprt`` (the sequential probability ratio test) and ``sprt_run`` (a two-participant
tournament that stops when it decides: ``--sprt``).
"""
