"""Large argument checks in a worker process, so they never hold the GIL against the event loop.

A check of a large call (10,000 union items: tens of milliseconds of Python and jsonschema-rs) in a
thread of the gateway's own process held the GIL, and every wake-up of the event loop waited up to
Python's switch interval (5 ms) for it: a trivial call beside hostile ones took 15-25 ms instead of 3.
Here the check runs in a process of its own (`python -m specbridge.call._check_worker`, its loop in
_checked.py), started ahead by `start()` (`serve` over HTTP) or else by the first large call, fed over a
socket pair:

- the request is the arguments pickled (pickle, not JSON: NaN, integers past 64 bits and lone
  surrogates must reach the check as they are, to be refused by it), the check's token, and the
  check's schema the first time that worker sees the check (each keeps `KEPT` compiled checks);
- the worker runs `checked()`, the very function an inline check runs, and answers the arguments
  without nulls (or "unchanged") or the error to raise: the same answers as inline;
- the parent thread only waits on the socket (no GIL held while waiting); pickling is on the loop
  (C, a few milliseconds at the limits);
- the worker runs at niceness 10 from its start: when the machine's cores are busy, the scheduler gives
  the gateway's event loop the CPU first (without it, a check at full speed beside the loop on a 2-core
  machine left the trivial call at 15-25 ms, and the worker's imports at start stalled it 30-70 ms; the
  price is a slower start on a busy machine: 1-3 s for a worker that imported the whole package, about
  0.2-0.6 s now that it imports only what a check needs);
- a call cancelled while its check runs (the gateway's deadline) kills that worker; the next large
  call starts a new one. A worker that dies under a call is replaced and the call tried once more.

`WORKERS` processes at most, process-wide, shared by every API; a large call waits for a free one.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import socket
import subprocess
import sys
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

import anyio

from .._errors import ArgumentError, CallError, ErrorCode
from ._bindings import BindingPlan
from ._check import Checker
from ._checked import KEPT
from ._limits import CallLimits

Json = Any
WORKERS = 1  # worker processes at most (each ~28 MB; large calls are rare and bounded by the limits)
NICE = 10  # the workers' niceness: on a busy machine the event loop's process gets the CPU first


class WorkerFault(RuntimeError):
    """A worker failed in a way no argument explains (a bug): the gateway's internal-error path."""


class _Worker:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "specbridge.call._check_worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # under `serve --transport stdio`, stdout is the MCP channel
                close_fds=True,
                # Its own process group: a terminal's Ctrl-C goes to the gateway, which stops its workers;
                # otherwise a worker still importing printed a KeyboardInterrupt traceback.
                start_new_session=True,
            )
        with contextlib.suppress(OSError):  # at once: its imports (0.5 s of CPU) yield to the loop too
            own = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, self.process.pid, max(own, NICE))
        self.connection = Connection(ours.detach())
        self.known: collections.OrderedDict[int, None] = collections.OrderedDict()

    def exchange(self, request: bytes) -> bytes:
        """In a thread: send, then wait for the answer (both let go of the GIL)."""
        self.connection.send_bytes(request)
        return self.connection.recv_bytes()

    def kill(self) -> None:
        """Kill and reap. The socket is closed when the last reference goes (a thread abandoned by a
        cancelled call may still be reading it: the worker's end closing wakes it with EOF)."""
        self.process.kill()
        self.process.wait()  # a killed process ends at once: this only reaps it


class _Waiter:
    def __init__(self) -> None:
        self.event = anyio.Event()
        self.worker: _Worker | None = None  # None when woken to start a worker of its own


class CheckPool:
    """At most `size` worker processes, started when first needed; idle ones kept for the next call."""

    def __init__(self, size: int = WORKERS) -> None:
        self._size = size
        self._idle: list[_Worker] = []
        self._running = 0  # started and not discarded
        self._waiters: collections.deque[_Waiter] = collections.deque()

    @property
    def pids(self) -> list[int]:
        """The process ids of the idle workers (for tests and measurements)."""
        return [worker.process.pid for worker in self._idle]

    async def check(
        self, checker: Checker, bindings: BindingPlan, limits: CallLimits, arguments: Mapping[str, Json]
    ) -> dict[str, Json] | None:
        """`checked(...)` in a worker: the same answer, or the same CallError. None when the arguments
        cannot be pickled, or not unpickled by the worker (not JSON values: a library caller's own
        objects); check them in place."""
        try:
            values = pickle.dumps(arguments, pickle.HIGHEST_PROTOCOL)
        except Exception:
            return None
        for attempt in (1, 2):
            worker = await self._acquire()
            try:
                answer = await self._ask(worker, checker, (bindings, limits, values))
            except (EOFError, OSError):  # the worker died (killed, out of memory): a new one, once
                await self._discard(worker)
                if attempt == 2:
                    raise WorkerFault("the argument check's worker process ended twice") from None
                continue
            except BaseException:  # cancelled (the deadline) or a fault: the worker may be mid-check
                await self._discard(worker)
                raise
            self._release(worker)
            return _result(answer, arguments)
        raise AssertionError("unreachable")

    async def start(self) -> None:
        """Start a worker now, unless one is up or starting, so that the first large call finds it ready
        (`specbridge serve` does this once its APIs are loaded). Starting takes the gateway a few
        milliseconds in a thread; the worker's own start (imports, at niceness 10) is in its process."""
        if self._idle or self._running >= self._size:
            return
        self._running += 1
        try:
            worker = await anyio.to_thread.run_sync(_Worker)
        except BaseException:
            self._running -= 1
            self._wake()
            raise
        self._release(worker)

    async def _ask(self, worker: _Worker, checker: Checker, parts: tuple[Any, ...]) -> Any:
        """The worker's answer; the check's schema goes along when the worker may not have it yet."""
        token = checker.token
        known = token in worker.known
        worker.known[token] = None
        worker.known.move_to_end(token)
        while len(worker.known) > KEPT:
            worker.known.popitem(last=False)
        for schema in ((None,) if known else ()) + (checker.schema,):
            request = pickle.dumps((token, schema, *parts), pickle.HIGHEST_PROTOCOL)
            exchanged = await anyio.to_thread.run_sync(worker.exchange, request, abandon_on_cancel=True)
            answer = pickle.loads(exchanged)
            if answer != ("unknown",):
                return answer
        raise WorkerFault("the argument check's worker process did not take the check's schema")

    async def _acquire(self) -> _Worker:
        while True:
            if self._idle:
                return self._idle.pop()
            if self._running < self._size:
                self._running += 1
                try:
                    return await anyio.to_thread.run_sync(_Worker)
                except BaseException:
                    self._running -= 1
                    self._wake()
                    raise
            waiter = _Waiter()
            self._waiters.append(waiter)
            try:
                await waiter.event.wait()
            except BaseException:
                if waiter.worker is not None:
                    self._release(waiter.worker)
                elif waiter in self._waiters:
                    self._waiters.remove(waiter)
                else:
                    self._wake()  # it was woken to start a worker: hand that turn on
                raise
            if waiter.worker is not None:
                return waiter.worker

    def _release(self, worker: _Worker) -> None:
        if self._waiters:
            waiter = self._waiters.popleft()
            waiter.worker = worker
            waiter.event.set()
        else:
            self._idle.append(worker)

    def _wake(self) -> None:
        if self._waiters:
            self._waiters.popleft().event.set()

    async def _discard(self, worker: _Worker) -> None:
        self._running -= 1
        self._wake()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(worker.kill)

    async def aclose(self) -> None:
        """Stop the idle workers (a busy one is stopped by its call's end or the process's)."""
        idle, self._idle = self._idle, []
        for worker in idle:
            self._running -= 1
            await anyio.to_thread.run_sync(worker.kill)


def _result(answer: Any, arguments: Mapping[str, Json]) -> dict[str, Json] | None:
    kind = answer[0]
    if kind == "unreadable":
        return None
    if kind == "ok":
        present = answer[1]
        return dict(arguments) if present is None else present
    if kind == "arguments":
        error = ArgumentError(answer[1])
        error.code = ErrorCode(answer[2])
        raise error
    if kind == "refused":
        raise CallError(answer[1], code=ErrorCode(answer[2]))
    raise WorkerFault(f"the argument check failed in its worker process: {answer[1]}")


_pool = CheckPool()


def check_pool() -> CheckPool:
    """The process's one pool of check workers."""
    return _pool
