"""daihinmin.tools: the ``daihinmin`` command line, and nothing else.

``cli`` builds the parser from one ``cmd_*`` module per sub-command (imported only when that
sub-command runs, so a bot process starts fast); ``match_options`` and ``match_outcome`` are
what ``serve`` and ``match`` share; ``botproc`` is ``daihinmin bot`` without the other
sub-commands; ``match_progress`` and ``standings_report`` print to the terminal;
``help_text`` shows every ``--help`` (the research and bench tools' too) in plain text.
"""
