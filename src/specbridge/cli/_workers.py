"""`specbridge serve --transport http --workers N`: N gateway processes sharing one port.

The first process reserves the address (bound with SO_REUSEPORT, never listening, so it takes no
connection) and starts N copies of the same command; each copy binds its own socket to that port
with SO_REUSEPORT and listens, and the kernel spreads new connections over them. Each worker is a
whole gateway (its own conversion, caches, check worker and store connections). 2026-07-28 clients
are stateless, so any worker answers any request; handshake-era sessions are kept in the store
(`sessions: store`), so a request of a session may reach any worker, as with several instances
(docs/instances.md, "Several instances: sessions"). SIGTERM (and SIGINT) are passed on to every worker as
SIGTERM (each drains as one instance does); when one worker ends, the others are stopped too and `serve`
exits with the first one's status, for whatever runs it to start it again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
from types import FrameType

from .._logging import log_event

WORKER_PORT = "SPECBRIDGE_WORKER_PORT"  # set for a worker: the port its socket binds (SO_REUSEPORT)
MAX_WORKERS = 64


def worker_port() -> int | None:
    """The port this process serves as one of `--workers` (None: it is not a worker)."""
    value = os.environ.get(WORKER_PORT, "")
    return int(value) if value.isdigit() else None


def run_workers(count: int, port: int) -> int:
    """Run `count` workers of this very command on `port` until they end; the exit status of the first
    that ended (when they were stopped: 0 after SIGTERM, 130 after Ctrl-C, as one gateway)."""
    command = [sys.executable, "-m", "specbridge", *sys.argv[1:]]
    environment = {**os.environ, WORKER_PORT: str(port)}
    workers = [subprocess.Popen(command, env=environment) for _ in range(count)]
    stopping: int | None = None  # the signal that stops them

    def pass_on(number: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = number
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.send_signal(signal.SIGTERM)

    previous = {number: signal.signal(number, pass_on) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        log_event("workers started", workers=count, pids=[worker.pid for worker in workers])
        pid, status = os.wait()  # the first worker to end
        first = next(worker for worker in workers if worker.pid == pid)
        first.returncode = os.waitstatus_to_exitcode(status)
        if stopping is None:
            log_event(
                "a worker ended; stopping the others", level=logging.ERROR, pid=pid, status=first.returncode
            )
            for worker in workers:
                if worker.returncode is None:
                    with contextlib.suppress(OSError):
                        worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait()
        if stopping is not None and all(worker.returncode in (0, 130, -signal.SIGTERM) for worker in workers):
            return 130 if stopping == signal.SIGINT else 0
        return first.returncode if first.returncode > 0 else 1
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
