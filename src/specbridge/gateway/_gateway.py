"""The gateway's state: the config, each API's tools and caller, and reloading them while serving.

A `Gateway` serves one `Snapshot` (`_snapshot`): the config with its clients and an `ApiState` per API. A
reload builds every new state off the event loop first and then swaps the whole snapshot with one
assignment; a request takes the snapshot once, when it is authenticated, and uses it to the end, so a client
of one config is never paired with an API state (and its secrets) of another. A document that fails to load
keeps its old tools; a config that fails to load (or leaves a network-bound gateway without keys) keeps the
old snapshot. Documents at URLs are read apart (`_reads`): a reload never waits for the network."""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from types import MappingProxyType

import anyio
import httpx

from .._audit import audit_to
from .._deadline import DEFAULT_DEADLINE as DEFAULT_DEADLINE
from .._errors import ErrorCode, SpecbridgeError
from .._logging import log_event
from ..call import Caller, CallLimits, Lru, check_pool
from ..config import ApiConfig, ClientConfig, Config, SearchIndexConfig, load_config
from ..document import is_url
from ..files import Files
from ..service import CallService, Ledger
from ..tools import ConversionCache, ToolSet
from ..webhooks import has_webhooks, running_webhooks
from ._changes import digest as _digest
from ._changes import marker as _fingerprint
from ._loading import load_api
from ._local import exposure_refusal
from ._metrics import Metrics
from ._modes import modes
from ._reads import DocumentReads, reload_failed, swapped_in
from ._reloaded import said_reloaded
from ._rules import apply_rules
from ._snapshot import LISTINGS
from ._snapshot import ApiState as ApiState  # where the gateway's modules have always found them
from ._snapshot import Snapshot as Snapshot
from ._tracing import start_telemetry, stop_telemetry

DEFAULT_POLL_INTERVAL = 1.0
Resolve = Callable[[str, int], Awaitable[list[str]]]
ChangeListener = Callable[[str], Awaitable[None]]


def call_limits(config: Config) -> CallLimits:
    limits = config.limits
    return CallLimits(
        max_bytes=limits.max_bytes,
        max_items=limits.max_items,
        max_nodes=limits.max_nodes,
        max_string=limits.max_string,
        max_depth=limits.max_depth,
    )


def _freeze_heap() -> None:
    """Take what is alive now (the loaded documents, tools and schemas: most of the heap) out of the
    cyclic garbage collector's way. A full collection otherwise walks all of it, about 80 ms for five
    large documents, whenever a call allocates many objects, such as parsing 10,000 items; with them
    frozen a collection walks only what calls create (docs/history/benchmarks-speed.md)."""
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
        host: str | None = None,
        limits: CallLimits | None = None,
        check_worker_at_start: bool = False,
        conversions: ConversionCache | None = None,
    ) -> None:
        """`host`: the address the HTTP listener is bound to (None for stdio); a reload may not leave a
        gateway bound elsewhere than loopback without client keys. `check_worker_at_start`: `start()` ends
        by starting the check worker (call/_offload.py; docs/calls.md, "Limits on one call").
        `conversions`: the conversion cache (`_loading`; None: every document converted when loaded)."""
        self.snapshot = Snapshot(config, MappingProxyType({}))
        self.host = host
        # What one call's arguments may carry: the config's `limits:` at start (a reload keeps them).
        self.limits = limits or call_limits(config)
        self.config_path = config_path
        self.check_worker_at_start = check_worker_at_start
        self.conversions = conversions
        self.transport = transport
        self.resolve = resolve
        self.deadline = deadline
        self.poll_interval = poll_interval
        self.stdio_client_id = stdio_client
        self.metrics = metrics or Metrics()
        # the store, its approvals and the one record of each call (service/), when the config needs them
        self.ledger = Ledger(lambda: self.config)
        self.files = Files(self.ledger.open, lambda: self.config.files)
        # the life of each call of a document tool (service/): plan, check, approvals, keys, long calls
        self.calls = CallService(self.ledger, self.files, lambda: self.config, deadline=deadline)
        self._listeners: list[ChangeListener] = []
        self._config_marker = _fingerprint(config_path)
        self._config_digest = _digest(config_path) if config_path else ""
        self._spec_markers: dict[str, tuple[int, int, int] | None] = {}
        self._retired: list[tuple[float, Caller]] = []  # (when, caller) replaced by a reload
        self._reads = DocumentReads(self._build, self._arrived, self.metrics)  # while `watch()` runs

    # -- what handlers read ------------------------------------------------------------------------

    @property
    def config(self) -> Config:
        return self.snapshot.config

    @property
    def states(self) -> Mapping[str, ApiState]:
        return self.snapshot.states

    @property
    def api_names(self) -> tuple[str, ...]:
        return tuple(self.config.apis)

    @property
    def clients(self) -> Mapping[str, ClientConfig]:
        return self.config.clients

    def state(self, api: str) -> ApiState:
        return self.snapshot.states[api]

    def stdio_client_of(self, snapshot: Snapshot) -> ClientConfig | None:
        if self.stdio_client_id is None:
            return None
        return snapshot.clients.get(self.stdio_client_id)

    @property
    def stdio_client(self) -> ClientConfig | None:
        return self.stdio_client_of(self.snapshot)

    def on_change(self, listener: ChangeListener) -> None:
        """`listener(api)` runs after the tools of `api` changed (reloaded document or config)."""
        self._listeners.append(listener)

    # -- loading -----------------------------------------------------------------------------------

    def _caller(self, api: ApiConfig, toolset: ToolSet) -> Caller:
        return Caller(api, toolset, transport=self.transport, resolve=self.resolve, limits=self.limits)

    async def _build(
        self,
        api: ApiConfig,
        old: ApiState | None = None,
        search_config: SearchIndexConfig | None = None,
        *,
        read: bool = True,
    ) -> ApiState:
        """The state for `api`, its document read afresh; with `old`, the old document is used again
        (under the new settings) when the file cannot be read now, or without `read` (then also when its
        `spec` moved: it serves as it was until the new one is read apart)."""
        same = old is not None and (old.api.spec == api.spec or not read)
        kept = old if same else None
        build = functools.partial(
            load_api, api, self.config, search_config=search_config, cache=self.conversions, read=read
        )
        if kept is not None:
            build = functools.partial(build, old=kept.toolset, old_digest=kept.spec_digest)
        loaded = await anyio.to_thread.run_sync(build)
        caller = self._caller(api, loaded.toolset)
        mode, code = modes(api, loaded.toolset, caller, loaded.index, self.metrics)
        return ApiState(
            api=api, toolset=loaded.toolset, caller=caller, spec_digest=loaded.digest, search=mode, code=code
        )

    def unsafe(self, config: Config) -> SpecbridgeError | None:
        """Why `config` may not be served here (None when it may)."""
        if self.host is not None and (exposed := exposure_refusal(self.host, config)) is not None:
            return exposed
        if self.stdio_client_id is not None and self.stdio_client_id not in config.clients:
            return SpecbridgeError(
                f"no client named {self.stdio_client_id!r} in the config", code=ErrorCode.CONFIG_INVALID
            )
        return None

    async def start(self) -> None:
        """Load every API; a document that cannot be used stops the start (there is nothing old to keep)."""
        config = self.config
        refusal = self.unsafe(config)
        if refusal is not None:
            raise refusal
        states: dict[str, ApiState] = {}
        for name, api in config.apis.items():
            self._spec_markers[name] = _fingerprint(api.spec)
            state = states[name] = await self._build(api)
            self.metrics.tools[name] = len(state.toolset.tools)
            log_event("api loaded", api=name, tools=len(state.toolset.tools), search=state.search is not None)
        if (
            refused := apply_rules(config, {name: state.toolset for name, state in states.items()})
        ) is not None:
            raise refused  # a rule naming no tool, an audit log that cannot be written
        await self.ledger.start()
        start_telemetry(config)  # off unless `telemetry:` or OTEL_EXPORTER_OTLP_ENDPOINT asks for it
        self.snapshot = Snapshot(config, MappingProxyType(states))
        _freeze_heap()
        if self.check_worker_at_start:  # a few ms here; a worker that cannot start now is started later
            with contextlib.suppress(OSError):
                await check_pool().start()

    async def aclose(self) -> None:
        callers = [state.caller for state in self.states.values()] + [c for _, c in self._retired]
        self._retired = []
        await self.calls.aclose()
        for caller in callers:
            await caller.aclose()
        await self.ledger.aclose()
        await stop_telemetry()  # the spans still batched are exported
        audit_to(None)

    async def run_webhooks(self) -> None:
        """Deliver the store's outbox (routed by the config as reloaded) until cancelled; needs a store."""
        store = self.ledger.store
        if store is None:
            return
        while not has_webhooks(self.config):  # a reload may add the first one
            await anyio.sleep(self.poll_interval)
        async with running_webhooks(store, self.config, current=lambda: self.config):
            await anyio.sleep_forever()

    async def run_approved(self) -> None:
        """Send approved calls nobody waits for (`approvals.send: on_answer`) until cancelled."""
        await self.calls.run_approved(lambda: self.states)

    # -- reloading ---------------------------------------------------------------------------------

    async def watch(self) -> None:
        """Poll the config and each document every `poll_interval` seconds; reload what changed."""
        async with self._reads.running():
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
                    return self._config_kept(error, "failed")
                self._config_digest = digest
        touched = set()
        for name in self.states:
            api = config.apis.get(name)
            marker = _fingerprint(api.spec) if api is not None else None
            if api is not None and marker != self._spec_markers.get(name):
                touched.add(name)
            self._spec_markers[name] = marker
        return await self.reload(config, documents=touched)

    def _config_kept(self, error: SpecbridgeError, what: str) -> list[str]:
        """A new config that could not be read (`failed`) or served (`refused`): said, counted, and no
        API's tools changed."""
        log_event(
            f"config reload {what}; still serving the previous config",
            level=logging.ERROR,
            code=str(error.code),
            reason=error.message,
        )
        self.metrics.reload("*config*", "failed")
        return []

    async def reload(
        self, config: Config, *, documents: set[str] | frozenset[str] = frozenset()
    ) -> list[str]:
        """Serve `config` from now on, with the documents of the APIs in `documents` read again (others
        only when their settings changed). Every new state is built first; then config, clients and
        states are swapped as one snapshot. Returns the APIs whose tools changed (listeners are told)."""
        old = self.snapshot
        refusal = self.unsafe(config)
        if refusal is not None:
            return self._config_kept(refusal, "refused")
        added = set(config.apis) - set(old.config.apis)
        if added:
            log_event(
                "new APIs in the config are served after a restart", level=logging.WARNING, apis=sorted(added)
            )
        states = dict(old.states)
        changed: list[str] = []
        for name, state in old.states.items():
            api = config.apis.get(name)
            if api is None:
                log_event("an API removed from the config keeps serving until a restart",
                    level=logging.WARNING, api=name)  # fmt: skip
                continue
            document_changed = name in documents and _digest(api.spec) != state.spec_digest
            if api == state.api and not document_changed:
                continue
            if over_network := self._reads.background and is_url(api.spec):  # read apart (_reads.py)
                self._reads.start(name, api)
                if api.spec != state.api.spec:  # nothing of the new address read yet: the API as it was
                    continue
            try:  # read apart: the settings over the document last read, until the new one is
                new = await self._build(
                    api, state if api != state.api else None, config.search, read=not over_network
                )
            except SpecbridgeError as error:
                reload_failed(self.metrics, name, error)
                if api != state.api and not over_network:  # no document serves the new settings: all old
                    return []
                continue  # (read apart: the API as it was until its new document is read)
            states[name] = new
            changed.append(name)
        if config.clients != old.config.clients:  # each client's listing depends on its bindings
            for name in states:
                if name not in changed:
                    states[name] = replace(states[name], listings=Lru(LISTINGS))
                    changed.append(name)
        if (
            refused := apply_rules(config, {name: state.toolset for name, state in states.items()})
        ) is not None:
            log_event("config reload refused; still serving the previous config", level=logging.ERROR,
                code=str(refused.code), reason=refused.message)  # fmt: skip
            self.metrics.reload("*config*", "failed")
            for name in changed:  # the callers made for it are not used
                if states[name].caller is not old.states[name].caller:
                    await states[name].caller.aclose()
            return []
        self.snapshot = Snapshot(config, MappingProxyType(states))
        restart = self.ledger.reload(config)
        if restart is not None:
            log_event("config reloaded in part", level=logging.WARNING, reason=restart)
        said_reloaded(old.config, config, changed, self.metrics)  # what changed, counted (_reloaded)
        await self._announce(old.states, states, changed)
        return changed

    async def _arrived(self, name: str, api: ApiConfig, new: ApiState) -> None:
        """A document read apart from its reload (_reads.py), swapped in when it still fits."""
        old = self.snapshot
        swapped = swapped_in(old, name, api, new, self._reads.pending(name), self.metrics)
        if swapped is None:
            await new.caller.aclose()
            return
        self.snapshot = swapped
        await self._announce(old.states, swapped.states, [name])

    async def _announce(
        self, old: Mapping[str, ApiState], states: Mapping[str, ApiState], changed: list[str]
    ) -> None:
        """After a swap: the replaced callers retired, the metrics and log told, listeners told."""
        now = anyio.current_time()
        for name in changed:
            if states[name].caller is not old[name].caller:
                self._retired.append((now, old[name].caller))
                self.metrics.tools[name] = len(states[name].toolset.tools)
                self.metrics.reload(name, "ok")
                log_event("api reloaded", api=name, tools=len(states[name].toolset.tools))
        for name in changed:
            for listener in self._listeners:
                await listener(name)
