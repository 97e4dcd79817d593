"""``python -m daihinmin.tools`` runs the command line."""

import sys

from daihinmin.tools.cli import main

sys.exit(main())
