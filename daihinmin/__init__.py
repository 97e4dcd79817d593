"""daihinmin: computer Daihinmin (大富豪 / 大貧民), the Japanese climbing card game.

The sub-packages, bottom to top (each imports only those below it):

- ``values``: cards and moves, exact immutable values.
- ``rules`` (the pure rules engine and its presets) and ``protocol`` (the UECda 8x15 tables).
- ``contract``: what a bot sees and answers (``Bot``, ``GameView``).
- ``driver``: the one sans-IO game driver and its record.
- ``records``: match logs (write, check, replay), output files, standings, exit codes.
- ``players`` (the bundled bots, ``mc`` among them) and ``client`` (the client library).
- ``launch``: starting a player's process and leaving nothing behind.
- ``server`` (the TCP match server) and ``local`` (games in one process, the terminal game).
- ``watch``: live snapshots of a table and their publisher.
- ``runs``: match specs played on this machine's cores or a Ray cluster, results streamed back.
- ``tournament``: schedules, the results store, ratings, reports.
- ``league``: a contest that runs on its own: entrants' folders, pairing by rating, resume.
- ``web``: the browser app.
- ``bench`` and ``research``: measurements and experiments.
- ``tools``: the ``daihinmin`` command line.

>>> import daihinmin
>>> daihinmin.__version__
'0.1.0'
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
