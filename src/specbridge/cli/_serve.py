"""`specbridge serve`: the MCP gateway over stdio or Streamable HTTP."""

from __future__ import annotations

import sys

import anyio
import click

from .._errors import ConfigError, ErrorCode
from ..config import Config, load_config, single_api_config
from ._app import app, friendly_errors

DEFAULT_PORT = 8765
DEFAULT_DEADLINE = 60.0


def gateway_config(config_path: str | None, spec: str | None, base_url: str | None) -> Config:
    if config_path is not None:
        if spec is not None:
            raise click.UsageError("give either --config FILE or SPEC --base-url URL, not both")
        config = load_config(config_path)
        config.api(next(iter(config.apis), None))  # a clear error when the config names no API
        return config
    if spec is None:
        raise click.UsageError("give --config FILE, or SPEC --base-url URL")
    return single_api_config(spec, base_url)


def check_bind(config: Config, host: str) -> None:
    from ..gateway import is_loopback

    if not is_loopback(host) and not config.clients:
        raise ConfigError(
            f"refusing to serve on {host} without client keys; add `clients:` to the config "
            "(`specbridge keys new`) or bind 127.0.0.1",
            source=config.source,
            key="clients",
            code=ErrorCode.SERVE_UNSAFE_BIND,
        )


@app.command("serve")
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--base-url", help="The API's base URL (with SPEC).")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to bind.")
@click.option(
    "--port", default=DEFAULT_PORT, show_default=True, type=int, help="HTTP: the port (0: any free)."
)
@click.option("--api", "api_name", help="stdio: which API of the config to serve (when it has several).")
@click.option("--client", "client_id", help="stdio: act as this client of the config (its bindings, secret).")
@click.option(
    "--deadline", default=DEFAULT_DEADLINE, show_default=True, type=float, help="Seconds per tool call."
)
@friendly_errors
def serve_command(
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    transport: str,
    host: str,
    port: int,
    api_name: str | None,
    client_id: str | None,
    deadline: float,
) -> None:
    """Serve an API's tools to MCP clients (stdio, or Streamable HTTP at /<api>/mcp and /mcp).

    Over HTTP, clients send a key (`specbridge keys new`); a config without clients is served without
    keys, and then only on a loopback address. Logs are JSON lines on stderr."""
    # The gateway (and the mcp SDK) load only when serving, so other commands start fast.
    from ..gateway import Gateway, bind, configure_logging, endpoint_urls, event_loop_options
    from ..gateway import serve_http as run_http
    from ..gateway import serve_stdio as run_stdio

    config = gateway_config(config_path, spec, base_url)
    configure_logging()
    gateway = Gateway(
        config,
        config_path=config_path,
        deadline=deadline,
        stdio_client=client_id,
        host=host if transport == "http" else None,  # reloads keep the bind rule
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
        anyio.run(run_stdio, gateway, api_name)
        return
    check_bind(config, host)
    sock = bind(host, port)

    async def main() -> None:
        await gateway.start()

        def ready(base: str) -> None:
            for name, url in endpoint_urls(gateway, base).items():
                click.echo(f"serving {name} at {url}", err=True)

        await run_http(gateway, sock, on_ready=ready)

    try:
        anyio.run(main, backend_options=event_loop_options())
    finally:
        sock.close()
    sys.exit(0)
