"""A reload's documents at URLs, read apart from the reload.

A reload never waits for the network: a config change applies at once, each changed API's settings over
the document last read, and the APIs whose `spec` is an `http(s)://` URL have their document read again
here, in the background of the gateway's watcher, at most one read per API. A read that ends swaps its
API's new state in if the config served then still has the API as the read was asked for; otherwise a
later reload has asked for a read of its own. A server that drips its document holds one read (until the
fetch's whole timeout ends it), never a reload: a client key removed meanwhile stops working at once.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from types import MappingProxyType

import anyio
from anyio.abc import TaskGroup

from .._errors import SpecbridgeError
from .._logging import log_event
from ..config import ApiConfig
from ._metrics import Metrics
from ._rules import apply_rules
from ._snapshot import ApiState, Snapshot


class DocumentReads:
    """The reads under way, by API: `build(api)` reads and converts (raising SpecbridgeError), then
    `arrived(name, api, state)` swaps the state in (or drops it when the config moved on)."""

    def __init__(
        self,
        build: Callable[[ApiConfig], Awaitable[ApiState]],
        arrived: Callable[[str, ApiConfig, ApiState], Awaitable[None]],
        metrics: Metrics,
    ) -> None:
        self._build = build
        self._arrived = arrived
        self._metrics = metrics
        self._tasks: TaskGroup | None = None
        self._pending: dict[str, tuple[ApiConfig, anyio.CancelScope]] = {}

    @property
    def background(self) -> bool:
        """Whether reads run apart from the reload (while the watcher runs); else a reload reads itself."""
        return self._tasks is not None

    def pending(self, name: str) -> ApiConfig | None:
        found = self._pending.get(name)
        return found[0] if found is not None else None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                self._pending.clear()
                tasks.cancel_scope.cancel()

    def start(self, name: str, api: ApiConfig) -> None:
        """Read `api`'s document again, unless a read for these very settings is under way; a read for
        other settings is given up (its thread ends at the fetch's own deadline)."""
        if self._tasks is None:
            raise RuntimeError("document reads run while the gateway watches")
        under_way = self._pending.get(name)
        if under_way is not None:
            if under_way[0] == api:
                return
            under_way[1].cancel()
        scope = anyio.CancelScope()
        self._pending[name] = (api, scope)
        self._tasks.start_soon(self._read, name, api, scope)

    async def _read(self, name: str, api: ApiConfig, scope: anyio.CancelScope) -> None:
        state: ApiState | None = None
        with scope:
            try:
                state = await self._build(api)
            except SpecbridgeError as error:
                reload_failed(self._metrics, name, error)
        if self._pending.get(name, (None, None))[1] is scope:
            del self._pending[name]
        if state is not None:  # swapped in, or dropped when the config has moved on since
            await self._arrived(name, api, state)


def reload_failed(metrics: Metrics, name: str, error: SpecbridgeError, *, what: str = "failed") -> None:
    """A document of `name` could not be read or converted again (`failed`), or its tools do not meet
    the config's rules (`refused`): said, counted, the old tools kept."""
    log_event(
        f"document reload {what}; still serving the previous tools",
        level=logging.ERROR,
        api=name,
        code=str(error.code),
        reason=error.message,
    )
    metrics.reload(name, "failed")


def swapped_in(
    served: Snapshot, name: str, api: ApiConfig, new: ApiState, pending: ApiConfig | None, metrics: Metrics
) -> Snapshot | None:
    """`served` with `new` as the state of `name`; None when the config served now no longer has the API
    as the read was asked for (or another read for it is under way), or its rules do not fit the tools."""
    if served.config.apis.get(name) != api or name not in served.states or pending is not None:
        return None
    states = {**served.states, name: new}
    refused = apply_rules(served.config, {key: state.toolset for key, state in states.items()})
    if refused is not None:
        reload_failed(metrics, name, refused, what="refused")
        return None
    return Snapshot(served.config, MappingProxyType(states))
