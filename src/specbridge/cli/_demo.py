"""`specbridge demo` (what `make demo` runs): our example shop API on loopback, the gateway in front of
it, and one real tool call through the official MCP client. `--once` stops after that call."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from importlib import resources
from typing import Any

import anyio
import click
import mcp_types as types

from .._errors import ErrorCode, StartError
from .._json import dumps
from ._app import app, friendly_errors
from ._serve import listen

DEMO_PORT = 8765
DEMO_ORDER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"  # an order the example shop starts with
Json = Any
TOKEN_ENV = "SPECBRIDGE_DEMO_TOKEN"


def example_spec_path() -> str:
    return str(resources.files("specbridge") / "examples" / "shop.openapi.yaml")


SERVER_NAME = "specbridge-shop"
EXAMPLE_BASE_URL = "https://api.example.com"


def client_configs(url: str) -> dict[str, Json]:
    """Each client's own config for the demo's gateway: the keys differ, and a wrong one is ignored
    silently by the client (VS Code reads `servers`, Cursor and Claude Desktop `mcpServers`)."""
    return {
        "vscode": {"servers": {SERVER_NAME: {"type": "http", "url": url}}},
        "cursor": {"mcpServers": {SERVER_NAME: {"url": url}}},
        # Desktop clients start stdio servers themselves; this runs specbridge with the interpreter that
        # has it installed, so the client needs no PATH. The demo's shop lives only in this process, so
        # the entry is for your own API.
        "stdio": {
            "mcpServers": {
                "my-api": {
                    "command": sys.executable,
                    "args": [
                        "-m",
                        "specbridge",
                        "serve",
                        "/path/to/openapi.yaml",
                        "--base-url",
                        EXAMPLE_BASE_URL,
                    ],
                }
            }
        },
    }


def client_snippets(url: str) -> str:
    configs = client_configs(url)

    def block(value: Json) -> str:
        return "  " + dumps(value, indent=True).replace("\n", "\n  ")

    return "\n".join(
        [
            f"Connect an MCP client to {url} (while this runs):",
            "",
            "Claude Code:",
            f"  claude mcp add --transport http {SERVER_NAME} {url}",
            "",
            "VS Code (.vscode/mcp.json):",
            block(configs["vscode"]),
            "",
            "Cursor (~/.cursor/mcp.json):",
            block(configs["cursor"]),
            "",
            "Claude Desktop and other clients that start a stdio server (claude_desktop_config.json),",
            "for your own API:",
            block(configs["stdio"]),
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

    from .._logging import configure_logging
    from ..config import ApiConfig, ApprovalsConfig, AuthConfig, Config, EgressConfig, Secret, ToolConfig
    from ..examples.shop_api import shop_app
    from ..gateway import Gateway, bind, endpoint_urls, serve_http

    class QuietServer(uvicorn.Server):
        """The shop leaves Ctrl-C to the gateway, which then stops it."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    configure_logging(level=30)  # warnings and errors only: the demo's own output is the point
    os.environ[TOKEN_ENV] = secrets.token_urlsafe(16)
    try:
        gateway_sock = listen("127.0.0.1", port)
    except StartError as error:
        if error.code != ErrorCode.SERVE_PORT_IN_USE or port != DEMO_PORT:
            raise
        gateway_sock = bind("127.0.0.1", 0)  # the usual port is taken: any free one will do
    shop_sock = bind("127.0.0.1", 0)
    shop_host, shop_port = shop_sock.getsockname()[:2]
    api = ApiConfig(
        name="shop",
        spec=example_spec_path(),
        base_url=f"http://{shop_host}:{shop_port}/v1",
        auth=AuthConfig(type="bearer", secret=Secret(f"env:{TOKEN_ENV}")),
        egress=EgressConfig(allow=(f"{shop_host}:{shop_port}",)),
        tools={"refundOrder": ToolConfig(requires_approval=True)},  # a person says yes to each refund
        approvals=ApprovalsConfig(wait=0),
    )
    state_dir = tempfile.mkdtemp(prefix="specbridge-demo-")  # the demo's SQLite store, removed at the end
    store = f"sqlite:///{os.path.join(state_dir, 'state.db')}"
    gateway = Gateway(Config(source="<demo>", apis={"shop": api}, store=store))
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
                await show_approval(client, gateway, url, store)
            if once:
                stop.set()
            else:
                click.echo("\nServing until Ctrl-C.")
            await stop.wait()
            shop.should_exit = True
    finally:
        shop_sock.close()
        gateway_sock.close()
        shutil.rmtree(state_dir, ignore_errors=True)


async def show_approval(client: Any, gateway: Any, url: str, store: str) -> None:
    """refundOrder needs a person's approval: the call waits, a person approves, the call goes through."""
    refund = {"orderId": DEMO_ORDER, "reason": "The mugs arrived broken"}
    click.echo(f"\ntools/call refundOrder {dumps(refund)}   (requires_approval; store {store}):")
    pending = await client.call_tool("refundOrder", refund)
    click.echo("  " + describe(pending))
    approval = (await gateway.approvals.desk.list())[0]
    click.echo(
        f"a person approves it: specbridge approvals approve {approval.id}  "
        f"(or the page {url.rsplit('/', 1)[0]}/admin/)"
    )
    await gateway.approvals.desk.approve(approval.id, "demo")
    click.echo("tools/call refundOrder again:")
    done = await client.call_tool("refundOrder", refund)
    click.echo(("  error: " if done.is_error else "  ") + describe(done))


def describe(result: types.CallToolResult) -> str:
    """A short summary of a result, for the demo's output."""
    if result.structured_content is not None:
        return dumps(result.structured_content)
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
