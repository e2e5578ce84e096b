"""`specbridge serve` once its options are checked: the gateway made and run over stdio (after the
stdio front: `gateway._stdio_front`) or HTTP."""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from .._errors import ConfigError, ErrorCode
from .._logging import log_event
from ..config import Config
from ._tools import dropped_parameters


@dataclass(frozen=True, slots=True)
class Serving:
    """What `serve` was told, besides where it serves."""

    config: Config
    config_path: str | None
    client_id: str | None
    deadline: float
    drain_timeout: float | None
    strict_start: bool
    cache_dir: str | None
    no_cache: bool


def conversion_cache(config: Config, cache_dir: str | None, no_cache: bool) -> Any:
    """Where conversions are kept: `--no-cache` nowhere, else `--cache-dir`, else the config's
    `cache:` ("" nowhere), else the user's cache folder (docs/startup.md, "The conversion cache")."""
    from ..tools import ConversionCache, default_cache_folder

    if no_cache:
        return ConversionCache(None)
    if cache_dir is not None:
        return ConversionCache(Path(cache_dir).expanduser())
    if config.cache is not None:
        return ConversionCache(Path(config.cache) if config.cache else None)
    return ConversionCache(default_cache_folder())


def start_problems(gateway: Any, strict: bool) -> None:
    """One warning per API whose every call will fail (call.readiness); with `strict`, a ConfigError."""
    from ..call import readiness

    problems = [
        problem
        for state in gateway.states.values()
        for problem in readiness(state.api, state.caller.base_url, state.toolset.document.servers)
    ]
    for problem in problems:
        level = logging.ERROR if strict else logging.WARNING
        log_event("not ready", level=level, api=problem.api, code=str(problem.code), message=problem.message)
    if strict and problems:
        raise ConfigError(
            f"{len(problems)} problem{'s' if len(problems) != 1 else ''} above; --strict-start refuses to "
            "start until they are fixed",
            source=gateway.config.source,
            code=ErrorCode.CONFIG_INVALID,
        )


def log_dropped_parameters(document: Any) -> None:
    prefix = f"warning [{ErrorCode.PARAMETER_DROPPED}]: "
    for line in dropped_parameters(document):
        log_event(
            "parameter dropped",
            level=logging.WARNING,
            code=str(ErrorCode.PARAMETER_DROPPED),
            message=line.removeprefix(prefix),
        )


def serve_over_stdio(serving: Serving, api: str, *, front: bool) -> None:
    """Serve `api` on stdin/stdout; with `front`, the stdio front answers what it can first."""
    cache = conversion_cache(serving.config, serving.cache_dir, serving.no_cache)
    handover = None
    if front:
        from ..gateway import stdio_front

        # a strict start answers nothing it has not recorded before its checks
        handover = stdio_front(serving.config, api, serving.client_id, cache, make=not serving.strict_start)
        if handover.answered:
            log_event("stdio front answered", api=api, answers=handover.answered)
    from ..gateway import Gateway, serve_stdio

    gateway = Gateway(
        serving.config,
        config_path=serving.config_path,
        deadline=serving.deadline,
        stdio_client=serving.client_id,
        conversions=cache,
    )

    async def main() -> None:
        try:
            await gateway.start()
        except BaseException:
            await gateway.aclose()
            raise
        log_dropped_parameters(gateway.state(api).toolset.document)
        try:
            start_problems(gateway, serving.strict_start)
        except ConfigError:
            await gateway.aclose()
            raise
        await serve_stdio(gateway, api, drain_timeout=serving.drain_timeout, handover=handover)

    anyio.run(main)
    log_stopped(gateway, "stdio")


def serve_over_http(serving: Serving, sock: socket.socket, host: str) -> None:
    """Serve every API of the config on `sock` (bound to `host`) until stopped."""
    from ..gateway import Gateway, endpoint_urls, event_loop_options, serve_http

    gateway = Gateway(
        serving.config,
        config_path=serving.config_path,
        deadline=serving.deadline,
        stdio_client=serving.client_id,
        host=host,  # reloads keep the bind rule
        check_worker_at_start=True,  # shared by many clients: no first large call waits for it
        conversions=conversion_cache(serving.config, serving.cache_dir, serving.no_cache),
    )

    async def main() -> None:
        await gateway.start()
        for state in gateway.states.values():
            log_dropped_parameters(state.toolset.document)
        try:
            start_problems(gateway, serving.strict_start)
        except ConfigError:
            await gateway.aclose()
            raise

        def ready(base: str) -> None:
            for name, url in endpoint_urls(gateway, base).items():
                log_event(f"serving {name} at {url}", api=name, url=url)

        await serve_http(gateway, sock, on_ready=ready, drain_timeout=serving.drain_timeout)

    anyio.run(main, backend_options=event_loop_options())
    log_stopped(gateway, "http")


def log_stopped(gateway: Any, transport: str) -> None:
    """The last line of a gateway that stopped on its own terms (a drain, stdin closed): that it did."""
    drained = gateway.calls.stopping.stopping  # SIGTERM's drain ran; else stdin ended (stdio)
    log_event("stopped", transport=transport, after="the drain" if drained else "its input ended")
