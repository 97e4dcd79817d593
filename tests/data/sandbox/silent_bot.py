"""A player that connects and never says a word (no profile, no move)."""

import socket
import sys
import time

conn = socket.create_connection((sys.argv[1], int(sys.argv[2])))
time.sleep(600)
