"""`python -m specbridge.call._check_worker FD`: a worker process of call/_offload.py, its loop in
_checked.py (this entry is a module of its own, so the one that runs is not one the package has
imported already)."""

import signal
import sys

from ._checked import serve

if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the gateway's Ctrl-C is the gateway's to handle
    serve(int(sys.argv[1]))
