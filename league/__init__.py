"""daihinmin.league: a contest that runs on its own (``daihinmin league CONFIG``).

Modules: ``config`` (the TOML file), ``store`` (the SQLite database: entrants and their
versions, matches, games, faults; one writer), ``entrants`` (submission folders, house bots),
``pairing`` (the online rating and who plays next), ``runner`` (the seam to where matches are
played), ``loop`` (the league itself: picks up new versions, pairs, plays, records, stops
and resumes), ``groups`` (the UECda format: groups of five, the best advance), ``lobby``
(entrants who run their own client), ``standings`` (the leaderboard from the database, fitted
over all games; its JSON and CSV).
"""
