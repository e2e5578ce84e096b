"""`specbridge serve`: the MCP gateway over stdio or Streamable HTTP."""

from __future__ import annotations

import errno
import logging
import math
import shlex
import socket
import sys
from dataclasses import replace
from urllib.parse import urlsplit

import click

from .._deadline import DEFAULT_DEADLINE
from .._errors import ConfigError, ErrorCode, RequestRefused, StartError
from .._logging import log_event
from ..config import Config, EgressConfig, load_config, single_api_config
from ._app import app, coded, friendly_errors

DEFAULT_PORT = 8765
COMMAND_LINE = "<command line>"


def gateway_config(
    config_path: str | None, spec: str | None, base_url: str | None, allow: tuple[str, ...] = ()
) -> Config:
    if config_path is not None:
        if spec is not None:
            raise click.UsageError("give either --config FILE or SPEC --base-url URL, not both")
        if base_url is not None or allow:
            raise click.UsageError("--base-url and --allow go with SPEC, not with --config")
        config = load_config(config_path)
        config.api(next(iter(config.apis), None))  # a clear error when the config names no API
        return config
    if spec is None:
        raise click.UsageError("give --config FILE, or SPEC [--base-url URL]")
    return single_api_config(spec, base_url, egress=EgressConfig(allow=allow))


def check_command_line_base_url(base_url: str, allow: tuple[str, ...]) -> None:
    """The egress check of a `--base-url`, with the way out a person at a terminal needs: `--allow`."""
    from ..call import check_base_url

    try:
        check_base_url(base_url, allow)
    except RequestRefused as error:
        raise ConfigError(
            f"{error.message}{allow_hint(base_url)}", source=COMMAND_LINE, key="--base-url"
        ) from None


def allow_hint(url: str) -> str:
    """ "; add --allow HOST:PORT …" for a URL whose host the egress policy refuses ("" when unusable)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return ""
    if not host or parts.scheme not in ("http", "https"):
        return ""
    shown = f"[{host}]" if ":" in host else host
    return f"; to reach an API on this machine or your own network, add --allow {shown}:{port}"


def check_bind(config: Config, host: str) -> None:
    """The gateway's rule for serving off loopback (`gateway.exposure_refusal`), as a config error."""
    from ..gateway import exposure_refusal

    refusal = exposure_refusal(host, config)
    if refusal is None:
        return
    if not config.clients and any(api.oauth is None for api in config.apis.values()):
        raise ConfigError(
            f"refusing to serve on {host} without client keys; add `clients:` to the config "
            "(`specbridge keys new`), `oauth:` to every API, or bind 127.0.0.1",
            source=config.source,
            key="clients",
            code=ErrorCode.SERVE_UNSAFE_BIND,
        )
    raise ConfigError(refusal.message, source=config.source, key="apis", code=ErrorCode.SERVE_UNSAFE_BIND)


def _unresolvable(host: str) -> StartError:
    return StartError(
        f"--host {host!r} is neither an IP address nor a name that resolves; "
        "give 127.0.0.1 (the default), ::1, or an address of this machine",
        code=ErrorCode.SERVE_ADDRESS_INVALID,
    )


def resolvable(host: str) -> None:
    try:
        socket.getaddrinfo(host.strip("[]"), None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise _unresolvable(host) from None


def listen(host: str, port: int, *, reuse_port: bool = False, listening: bool = True) -> socket.socket:
    """The gateway's listening socket, or a StartError that says what to change."""
    from ..gateway import bind

    if not 0 <= port <= 65535:
        raise StartError(
            f"--port {port} is not a TCP port; give 1 to 65535, or 0 for any free port",
            code=ErrorCode.SERVE_ADDRESS_INVALID,
        )
    try:
        return bind(host, port, reuse_port=reuse_port, listening=listening)
    except (socket.gaierror, UnicodeError):
        raise _unresolvable(host) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise StartError(
                f"{host}:{port} is already in use; stop what listens there or choose another --port "
                "(0: any free port)",
                code=ErrorCode.SERVE_PORT_IN_USE,
            ) from None
        if error.errno == errno.EADDRNOTAVAIL:
            why = f"--host {host} is not an address of this machine"
        elif error.errno == errno.EACCES:
            why = f"this user may not listen on {host}:{port} (ports below 1024 need privileges)"
        else:
            why = f"cannot listen on {host}:{port} ({error.strerror or type(error).__name__})"
        raise StartError(
            f"{why}; give 127.0.0.1 (the default), ::1, or an address of this machine",
            code=ErrorCode.SERVE_ADDRESS_INVALID,
        ) from None


def positive_seconds(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise click.BadParameter("must be a number of seconds above 0")
    return value


TERMINAL_NOTICE = (
    "specbridge serve speaks MCP over stdin and stdout: an MCP client starts it and talks to it there,\n"
    "so nothing happens when you type here. Ctrl-C stops it.\n"
    "To serve over HTTP instead: specbridge serve {how} --transport http  (then connect a client to the\n"
    "URL it prints; `specbridge demo` shows one working end to end)."
)


@app.command("serve")
@click.argument("spec", required=False)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option(
    "--base-url", help="The API's base URL (with SPEC; default: the document's first public server)."
)
@click.option(
    "--allow", multiple=True, help="HOST:PORT the egress policy may reach although not public (with SPEC)."
)
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to bind.")
@click.option(
    "--port", default=DEFAULT_PORT, show_default=True, type=int, help="HTTP: the port (0: any free)."
)
@click.option("--api", "api_name", help="stdio: which API of the config to serve (when it has several).")
@click.option("--client", "client_id", help="stdio: act as this client of the config (its bindings, secret).")
@click.option(
    "--deadline",
    default=DEFAULT_DEADLINE,
    show_default=True,
    type=float,
    callback=lambda _ctx, _param, value: positive_seconds(value),
    help="Seconds per tool call.",
)
@click.option(
    "--drain-timeout",
    type=float,
    callback=lambda _ctx, _param, value: None if value is None else positive_seconds(value),
    help="At SIGTERM: seconds calls already sent have to finish  [default: the --deadline].",
)
@click.option(
    "--strict-start",
    is_flag=True,
    help="Refuse to start when a call is sure to fail (a secret unset, no usable base URL).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="HTTP: gateway processes sharing the port (Linux); handshake-era sessions then live in the store.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="Where each document's conversion is kept between starts  [default: the config's `cache`, "
    "else the user's cache folder].",
)
@click.option("--no-cache", is_flag=True, help="Convert every document afresh; keep no conversion.")
@click.option(
    "--log-format",
    type=click.Choice(["json", "text"]),
    default="json",
    show_default=True,
    help="stderr: JSON lines (for a log collector) or readable lines (for a terminal).",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    help="The least severe log lines written.",
)
@friendly_errors
def serve_command(
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
    transport: str,
    host: str,
    port: int,
    api_name: str | None,
    client_id: str | None,
    deadline: float,
    drain_timeout: float | None,
    strict_start: bool,
    workers: int,
    cache_dir: str | None,
    no_cache: bool,
    log_format: str,
    log_level: str,
) -> None:
    """Serve an API's tools to MCP clients (stdio, or Streamable HTTP at /<api>/mcp and /mcp).

    Over HTTP, clients send a key (`specbridge keys new`); a config without clients is served without
    keys, and then only on a loopback address. Every line on stderr is a log record (JSON, or text with
    --log-format text), the error that stops it too. At start, one warning per API whose calls are
    sure to fail (its secret unset, no usable base URL); --strict-start makes those errors. SIGTERM
    stops it gracefully: no new calls (/healthz answers 503), calls already sent finish first."""
    from .._logging import LEVELS, configure_logging

    configure_logging(level=LEVELS[log_level], fmt=log_format)
    try:
        _serve(
            spec, config_path, base_url, allow, transport, host, port, api_name, client_id, deadline,
            drain_timeout, strict_start, cache_dir, no_cache, workers,
        )  # fmt: skip
    except BaseException as error:
        known = coded(error)
        if known is None or not known[1]:
            raise
        status, code, message = known
        log_event("serve stopped", level=logging.ERROR, code=code, message=message)
        sys.exit(status)


def _serve(
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
    transport: str,
    host: str,
    port: int,
    api_name: str | None,
    client_id: str | None,
    deadline: float,
    drain_timeout: float | None,
    strict_start: bool,
    cache_dir: str | None = None,
    no_cache: bool = False,
    workers: int = 1,
) -> None:
    # The gateway (and the mcp SDK) load only when serving, so other commands start fast.
    from ._serving import Serving, serve_over_http, serve_over_stdio

    config = gateway_config(config_path, spec, base_url, allow)
    if transport == "http":  # where it would listen first: refusing an unsafe bind matters more
        resolvable(host)
        check_bind(config, host)
    if config_path is None and base_url is not None:
        check_command_line_base_url(base_url, allow)
    if workers > 1 and transport != "http":
        raise click.UsageError("--workers goes with --transport http")
    serving = Serving(
        config, config_path, client_id, deadline, drain_timeout, strict_start, cache_dir, no_cache
    )
    if transport == "stdio":
        if api_name is None:
            if len(config.apis) > 1:
                raise click.UsageError(
                    f"the config has several APIs; name one with --api ({', '.join(config.apis)})"
                )
            api_name = next(iter(config.apis))
        elif api_name not in config.apis:
            raise click.UsageError(f"no API named {api_name!r}; the config has {', '.join(config.apis)}")
        if client_id is not None and client_id not in config.clients:
            raise ConfigError(
                f"no client named {client_id!r} in the config; it has: {', '.join(config.clients) or 'none'}",
                source=config.source,
                key="--client",
            )
        terminal = sys.stdin.isatty()
        if terminal:
            words = ["--config", config_path] if config_path else [spec or ""]
            words += ["--base-url", base_url] if base_url else []
            words += [part for entry in allow for part in ("--allow", entry)]
            log_event("stdio", message=TERMINAL_NOTICE.format(how=shlex.join(words)))
        serve_over_stdio(serving, api_name, front=not terminal)
        return
    from ._workers import run_workers, worker_port

    shared = worker_port()  # one of several workers: the port is shared, sessions are in the store
    if workers > 1 and shared is None:
        if not sys.platform.startswith("linux"):
            raise StartError("--workers needs Linux (SO_REUSEPORT spreading connections over processes)")
        reserved = listen(host, port, reuse_port=True, listening=False)
        try:
            sys.exit(run_workers(workers, reserved.getsockname()[1]))
        finally:
            reserved.close()
    sock = listen(host, shared if shared is not None else port, reuse_port=shared is not None)
    if shared is not None:
        serving = replace(serving, config=replace(config, sessions="store"))
    try:
        serve_over_http(serving, sock, host)
    finally:
        sock.close()
    sys.exit(0)
