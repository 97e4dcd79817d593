"""A submission that plays as the bundled ``default`` bot until a flag file appears, then
crashes at start (exit code 3): ``crash_when.py FLAG HOST PORT``."""

import os
import sys

flag, host, port = sys.argv[1:4]
if os.path.exists(flag):
    print("crash_when: the flag is up; exiting", file=sys.stderr)
    sys.exit(3)
os.execv(sys.executable, [sys.executable, "-m", "daihinmin.tools.botproc", "default", "-q",
                          "--host", host, "--port", port])
