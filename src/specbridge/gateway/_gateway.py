"""The gateway's state: the config, each API's tools and caller, and reloading them while serving.

A `Gateway` owns one `ApiState` per API. An `ApiState` is an immutable snapshot (config, tools, caller);
a reload builds a new one off the event loop and swaps it in whole, so a request sees either the old
tools or the new ones, never a mix. A document or config that fails to load keeps the old snapshot
serving, and the log says why.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

from .._errors import SpecbridgeError
from ..call import Caller
from ..call._limits import DEFAULT_LIMITS, CallLimits
from ..call._lru import Lru
from ..config import ApiConfig, ClientConfig, Config, load_config
from ..spec import load_document
from ..tools import ToolSet, convert, too_big_for_one_context
from ._logging import log_event
from ._metrics import Metrics
from ._search import ToolIndex

DEFAULT_DEADLINE = 60.0
DEFAULT_POLL_INTERVAL = 1.0
OUTPUT_VALIDATORS = 256  # compiled output schemas kept per API, the least recently used dropped
Resolve = Callable[[str, int], Awaitable[list[str]]]
ChangeListener = Callable[[str], Awaitable[None]]


def _fingerprint(path: str | None) -> tuple[int, int, int] | None:
    """A cheap change marker for a local file (mtime, size, inode); None for URLs and missing files."""
    if path is None or path.startswith(("http://", "https://")):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


@dataclass(slots=True)
class ApiState:
    """One API as it is served now. `listings` caches each client's `tools/list` entries."""

    api: ApiConfig
    toolset: ToolSet
    caller: Caller
    spec_digest: str
    search: bool = False  # search mode: tools/list offers search_tools and call_tool
    listings: dict[str | None, tuple[list[Any], list[int]]] = field(default_factory=dict)
    validators: Lru[str, Any] = field(default_factory=lambda: Lru(OUTPUT_VALIDATORS))  # by tool name
    _index: ToolIndex | None = None

    @property
    def index(self) -> ToolIndex:
        if self._index is None:
            self._index = ToolIndex.build(self.toolset.tools)
        return self._index


def _freeze_heap() -> None:
    """Take what is alive now (the loaded documents, tools and schemas: most of the heap) out of the
    cyclic garbage collector's way. A full collection otherwise walks all of it, about 80 ms for five
    large documents, whenever a call allocates many objects, such as parsing 10,000 items; with them
    frozen a collection walks only what calls create (docs/benchmarks.md)."""
    gc.collect()
    gc.freeze()


class Gateway:
    """Serves every API of a config. `start()` loads them; `watch()` reloads on change until cancelled."""

    def __init__(
        self,
        config: Config,
        *,
        config_path: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        resolve: Resolve | None = None,
        deadline: float = DEFAULT_DEADLINE,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        stdio_client: str | None = None,
        metrics: Metrics | None = None,
        limits: CallLimits = DEFAULT_LIMITS,
    ) -> None:
        self.config = config
        self.limits = limits  # what one call's arguments may carry (config key `limits:`)
        self.config_path = config_path
        self.transport = transport
        self.resolve = resolve
        self.deadline = deadline
        self.poll_interval = poll_interval
        self.stdio_client_id = stdio_client
        self.metrics = metrics or Metrics()
        self.states: dict[str, ApiState] = {}
        self._listeners: list[ChangeListener] = []
        self._config_marker = _fingerprint(config_path)
        self._config_digest = _digest(config_path) if config_path else ""
        self._spec_markers: dict[str, tuple[int, int, int] | None] = {}
        self._retired: list[tuple[float, Caller]] = []  # (when, caller) replaced by a reload

    # -- what handlers read ------------------------------------------------------------------------

    @property
    def api_names(self) -> tuple[str, ...]:
        return tuple(self.config.apis)

    @property
    def clients(self) -> Mapping[str, ClientConfig]:
        return self.config.clients

    def state(self, api: str) -> ApiState:
        return self.states[api]

    @property
    def stdio_client(self) -> ClientConfig | None:
        if self.stdio_client_id is None:
            return None
        return self.config.clients.get(self.stdio_client_id)

    def on_change(self, listener: ChangeListener) -> None:
        """`listener(api)` runs after the tools of `api` changed (reloaded document or config)."""
        self._listeners.append(listener)

    # -- loading -----------------------------------------------------------------------------------

    def _caller(self, api: ApiConfig, toolset: ToolSet) -> Caller:
        return Caller(api, toolset, transport=self.transport, resolve=self.resolve, limits=self.limits)

    async def _build(self, api: ApiConfig) -> ApiState:
        def load() -> tuple[ToolSet, str, bool]:
            toolset = convert(load_document(api.spec), api.convert_options())
            search = api.search == "on" or (api.search == "auto" and too_big_for_one_context(toolset))
            return toolset, _digest(api.spec), search

        toolset, digest, search = await anyio.to_thread.run_sync(load)
        caller = self._caller(api, toolset)
        return ApiState(api=api, toolset=toolset, caller=caller, spec_digest=digest, search=search)

    async def start(self) -> None:
        """Load every API; a document that cannot be used stops the start (there is nothing old to keep)."""
        if self.stdio_client_id is not None and self.stdio_client_id not in self.config.clients:
            raise SpecbridgeError(f"no client named {self.stdio_client_id!r} in the config")
        for name, api in self.config.apis.items():
            self._spec_markers[name] = _fingerprint(api.spec)
            self.states[name] = await self._build(api)
            self.metrics.tools[name] = len(self.states[name].toolset.tools)
            state = self.states[name]
            log_event("api loaded", api=name, tools=len(state.toolset.tools), search=state.search)
        _freeze_heap()

    async def aclose(self) -> None:
        callers = [state.caller for state in self.states.values()] + [c for _, c in self._retired]
        self._retired = []
        for caller in callers:
            await caller.aclose()

    # -- reloading ---------------------------------------------------------------------------------

    async def watch(self) -> None:
        """Poll the config and each document every `poll_interval` seconds; reload what changed."""
        while True:
            await anyio.sleep(self.poll_interval)
            await self.reload_changed()
            await self._close_retired()

    async def _close_retired(self) -> None:
        """Close callers replaced by a reload once no call that started on them can still be running."""
        now = anyio.current_time()
        due = [caller for when, caller in self._retired if now - when > self.deadline + 1]
        self._retired = [(when, caller) for when, caller in self._retired if now - when <= self.deadline + 1]
        for caller in due:
            await caller.aclose()
        if due:  # the retired tools may sit in cycles: let the collector see them once, then freeze again
            gc.unfreeze()
            _freeze_heap()

    async def reload_changed(self) -> list[str]:
        """Reload what changed on disk since the last look; returns the APIs whose tools changed."""
        config = self.config
        config_marker = _fingerprint(self.config_path)
        if self.config_path is not None and config_marker != self._config_marker:
            self._config_marker = config_marker
            digest = _digest(self.config_path)
            if digest != self._config_digest:
                try:
                    config = await anyio.to_thread.run_sync(load_config, self.config_path)
                except SpecbridgeError as error:
                    log_event(
                        "config reload failed; still serving the previous config",
                        level=logging.ERROR,
                        code=str(error.code),
                        reason=error.message,
                    )
                    self.metrics.reload("*config*", "failed")
                    return []
                self._config_digest = digest
                added = set(config.apis) - set(self.config.apis)
                if added:
                    log_event(
                        "new APIs in the config are served after a restart",
                        level=logging.WARNING,
                        apis=sorted(added),
                    )
        changed: list[str] = []
        for name, old in self.states.items():
            api = config.apis.get(name)
            if api is None:
                log_event(
                    "an API removed from the config keeps serving until a restart",
                    level=logging.WARNING,
                    api=name,
                )
                continue
            marker = _fingerprint(api.spec)
            spec_touched = marker != self._spec_markers.get(name)
            self._spec_markers[name] = marker
            if api == old.api and not spec_touched:
                continue
            if api == old.api and _digest(api.spec) == old.spec_digest:
                continue
            try:
                new = await self._build(api)
            except SpecbridgeError as error:
                log_event(
                    "document reload failed; still serving the previous tools",
                    level=logging.ERROR,
                    api=name,
                    code=str(error.code),
                    reason=error.message,
                )
                self.metrics.reload(name, "failed")
                continue
            self.states[name] = new
            self._retired.append((anyio.current_time(), old.caller))
            self.metrics.tools[name] = len(new.toolset.tools)
            self.metrics.reload(name, "ok")
            log_event("api reloaded", api=name, tools=len(new.toolset.tools))
            changed.append(name)
        clients_changed = config.clients != self.config.clients
        self.config = config
        if clients_changed:
            for name, state in self.states.items():
                state.listings.clear()
                if name not in changed:
                    changed.append(name)
        for name in changed:
            for listener in self._listeners:
                await listener(name)
        return changed
