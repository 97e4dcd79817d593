"""daihinmin.records: what a match leaves behind, and reading it back.

Modules: ``matchlog`` (the JSON Lines match log: write it, read it one game at a time),
``logcheck`` (the checks of every field read), ``replay`` (re-simulate a log and name the
first mismatch), ``inprocess_log`` (the same log written for a match played in process),
``outfile`` (output files created exclusively and locked while written), ``standings`` (a
match's standings from its records), ``errors``.
The server, the in-process runner, the browser and tournaments all write and read match
records through this package; a log-schema change touches it and ``driver.record`` only.
"""
