"""daihinmin.server: the UECda match server (Trio) and its headless runner.

Modules: ``match_server`` (listen, seat, run the games), ``config``, ``game_play`` (one game
in the protocol's message order), ``tables`` (the tables sent), ``connection``/``handshake``/
``outbox`` (the wire), ``extension`` (protocol 20260), ``runner`` (a headless match: the
server with its player processes, started through :mod:`daihinmin.launch`), ``ratelog``.
Faults (``docs/SERVER_FAULTS.md``): ``seats`` (the fault policy), ``requests`` (asking a
seat, with deadlines), ``stand_in`` (who plays a handed-over seat), ``resume`` (continue a
logged match), ``errors``.  The match log it writes is :mod:`daihinmin.records`.

Where this server deliberately differs from the reference server tndhms
(``docs/PROTOCOL.md`` §3, §5, §11):

* ``[6][5..9]`` carries the true classes of the deal all game long (tndhms overwrites them
  as players go out); row 7 is always 0 (tndhms echoes the mover's row 7).
* The engine judges every move: a table with a cell value other than 0/1/2, two 2s, a 1 in
  column 0/14 or row 4, or extra cards beside a spade 3 over a lone joker is answered 8 and
  counts as a pass (tndhms lets some of these through).
* An exchange table that is not exactly the owed number of held cards makes the server give
  that player's strongest cards instead.  A 2 is the joker wherever it is written, as in
  tndhms; over a held card's cell tndhms also wipes that card out of the game, here it stays.
* A lone joker written in row 4 is answered 8 (tndhms's suit mask 16 is no shape either).
* ``uecda`` clears tricks as the devkit build does (``owner_answers``: the last player who
  played answers its own cards before the trick clears); ``owner_answers=no`` is the 2013
  build's clear, without its "one pass early" clear after a player goes out with the last play.
* A profile with an unknown version closes that connection with a logged error and the seat
  stays free (tndhms keeps it and sends nothing).  20060 is recognised from a native-endian
  profile; there is no 2-second "no profile means 20060" fallback.
* Deadlines everywhere (profile, move, exchange, send; a time bank), and a fault policy:
  a timeout or a table that is no table is a pass answered 8; repeated faults or a lost
  connection hand the seat to a stand-in, so the match always finishes (tndhms waits forever).
* Protocol 20260 (``docs/PROTOCOL_EXTENSION.md``, :mod:`daihinmin.server.extension`) carries
  the other rule sets (3-6 players, two jokers, a draw pile, 7-pass/10-discard choices); a
  20070 client at a table that needs it is answered 20260 (REFUSED) and closed.
"""
