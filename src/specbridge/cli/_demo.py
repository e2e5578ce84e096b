"""`specbridge demo` (what `make demo` runs): our example shop API on loopback, the gateway in front of
it, and one real tool call through the official MCP client. `--once` stops after that call."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from importlib import resources

import anyio
import click
import mcp_types as types

from .._json import dumps
from ._app import app, friendly_errors

DEMO_PORT = 8765
TOKEN_ENV = "SPECBRIDGE_DEMO_TOKEN"


def example_spec_path() -> str:
    return str(resources.files("specbridge") / "examples" / "shop.openapi.yaml")


def client_snippets(url: str) -> str:
    mcp_json = {"mcpServers": {"specbridge-shop": {"type": "http", "url": url}}}
    return "\n".join(
        [
            "Connect an MCP client:",
            f"  Claude Code:   claude mcp add --transport http specbridge-shop {url}",
            "  Cursor / Claude Desktop / VS Code style (mcp.json):",
            "  " + dumps(mcp_json, indent=True).replace("\n", "\n  "),
        ]
    )


@app.command("demo")
@click.option("--once", is_flag=True, help="Stop after the example call (what tests and `make demo` use).")
@click.option(
    "--port", default=DEMO_PORT, show_default=True, type=int, help="The gateway's port (0: any free)."
)
@friendly_errors
def demo_command(once: bool, port: int) -> None:
    """Serve the bundled example shop through the MCP gateway and call one tool with an MCP client."""
    anyio.run(_demo, once, port)


async def _demo(once: bool, port: int) -> None:
    import uvicorn
    from mcp import Client

    from ..config import ApiConfig, AuthConfig, Config, EgressConfig, Secret
    from ..examples.shop_api import shop_app
    from ..gateway import Gateway, bind, configure_logging, endpoint_urls, serve_http

    class QuietServer(uvicorn.Server):
        """The shop leaves Ctrl-C to the gateway, which then stops it."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    configure_logging(level=30)  # warnings and errors only: the demo's own output is the point
    os.environ[TOKEN_ENV] = secrets.token_urlsafe(16)
    shop_sock = bind("127.0.0.1", 0)
    try:
        gateway_sock = bind("127.0.0.1", port)
    except OSError:
        gateway_sock = bind("127.0.0.1", 0)  # the usual port is taken: any free one will do
    shop_host, shop_port = shop_sock.getsockname()[:2]
    api = ApiConfig(
        name="shop",
        spec=example_spec_path(),
        base_url=f"http://{shop_host}:{shop_port}/v1",
        auth=AuthConfig(type="bearer", secret=Secret(f"env:{TOKEN_ENV}")),
        egress=EgressConfig(allow=(f"{shop_host}:{shop_port}",)),
    )
    gateway = Gateway(Config(source="<demo>", apis={"shop": api}))
    await gateway.start()
    shop = QuietServer(
        uvicorn.Config(shop_app(os.environ[TOKEN_ENV]), log_config=None, access_log=False, lifespan="off")
    )
    stop = anyio.Event()
    ready = anyio.Event()
    urls: list[str] = []

    def on_ready(base: str) -> None:
        urls.append(endpoint_urls(gateway, base)["shop"])
        ready.set()

    async def serve_shop() -> None:
        await shop.serve(sockets=[shop_sock])

    async def serve_gateway() -> None:
        try:
            await serve_http(gateway, gateway_sock, on_ready=on_ready, stop=stop)
        finally:
            stop.set()  # Ctrl-C ends the gateway; the shop follows

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(serve_shop)
            tasks.start_soon(serve_gateway)
            with anyio.fail_after(30):
                await ready.wait()
            url = urls[0]
            click.echo(f"Example shop API (ours, in memory): http://{shop_host}:{shop_port}/v1")
            click.echo(f"MCP gateway: {url}  ({len(gateway.state('shop').toolset.tools)} tools)\n")
            click.echo(client_snippets(url) + "\n")
            async with Client(url) as client:
                tools = await client.list_tools()
                click.echo(f"tools/list: {', '.join(tool.name for tool in tools.tools)}")
                click.echo('tools/call listProducts {"limit": 2}:')
                result = await client.call_tool("listProducts", {"limit": 2})
                click.echo(("  error: " if result.is_error else "  ") + describe(result))
            if once:
                stop.set()
            else:
                click.echo("\nServing until Ctrl-C.")
            await stop.wait()
            shop.should_exit = True
    finally:
        shop_sock.close()
        gateway_sock.close()


def describe(result: types.CallToolResult) -> str:
    """A short summary of a result, for the demo's output."""
    if result.structured_content is not None:
        return dumps(result.structured_content)
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
