"""`specbridge demo` (what `make demo` runs): our example shop API on loopback, the gateway in front of
it, one real tool call through the official MCP client, one script in code mode (`_demo_code`, with
the code extra), and a refund that waits for a person.

The demo writes its `specbridge.yaml` (the shop API, a SQLite store, an admin) and the admin key into
its folder, so the commands it prints (`specbridge approvals … --config FOLDER/specbridge.yaml`) and the
admin page work against it while it runs. It waits for the person to answer; `--once` (as `make demo`)
answers by itself, says so, and stops after the refund."""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import click
import mcp_types as types

from .._errors import ErrorCode, StartError
from .._json import dumps
from ._app import app, friendly_errors
from ._demo_code import API, code_api, code_mode_available, show_code_mode
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


def write_demo_config(folder: Path, spec: str, shop: str) -> tuple[Path, str]:
    """The demo's specbridge.yaml and admin key in `folder`: (the config's path, the admin key)."""
    from ..access import key_sha256, new_key

    admin_key = new_key(admin=True)
    key_file = folder / "admin-key.txt"
    key_file.touch(mode=0o600)
    key_file.write_text(admin_key + "\n")
    config = folder / "specbridge.yaml"
    config.write_text(
        "# Written by `specbridge demo`: the example shop on loopback, served by the demo's gateway.\n"
        "apis:\n"
        "  shop:\n"
        f"    spec: {dumps(spec)}\n"
        f"    base_url: http://{shop}/v1\n"
        f"    auth: {{type: bearer, secret: env:{TOKEN_ENV}}}\n"
        f'    egress: {{allow: ["{shop}"]}}\n'
        "    tools:\n"
        "      refundOrder: {requires_approval: true}   # a person says yes to each refund\n"
        + (code_api(spec, shop, TOKEN_ENV) if code_mode_available() else "")
        + "approvals: {wait: 0}\n"
        "store: sqlite:///state.db   # beside this file\n"
        "admins:\n"
        f'  demo: {{key_sha256: "{key_sha256(admin_key)}"}}   # the key: admin-key.txt\n',
        encoding="utf-8",
    )
    return config, admin_key


@app.command("demo")
@click.option(
    "--once", is_flag=True, help="Answer the approval itself and stop after the refund (as `make demo`)."
)
@click.option(
    "--port", default=DEMO_PORT, show_default=True, type=int, help="The gateway's port (0: any free)."
)
@click.option(
    "--folder",
    type=click.Path(file_okay=False),
    help="Where the demo writes its config, admin key and store [default: a new temporary folder, "
    "removed at the end].",
)
@friendly_errors
def demo_command(once: bool, port: int, folder: str | None) -> None:
    """Serve the bundled example shop through the MCP gateway, call one tool with an MCP client, and
    make a refund that waits for your approval (by the printed command or on the admin page)."""
    anyio.run(_demo, once, port, folder)


async def _demo(once: bool, port: int, folder_name: str | None) -> None:
    import uvicorn
    from mcp import Client

    from .._logging import configure_logging
    from ..config import load_config
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
    if folder_name is None:
        folder = Path(tempfile.mkdtemp(prefix="specbridge-demo-"))  # removed at the end
    else:
        folder = Path(folder_name).resolve()
        folder.mkdir(parents=True, exist_ok=True)
    config_path, admin_key = write_demo_config(folder, example_spec_path(), f"{shop_host}:{shop_port}")
    config = load_config(config_path)
    gateway = Gateway(config, config_path=str(config_path))
    await gateway.start()
    shop = QuietServer(
        uvicorn.Config(shop_app(os.environ[TOKEN_ENV]), log_config=None, access_log=False, lifespan="off")
    )
    stop = anyio.Event()
    ready = anyio.Event()
    urls: list[str] = []

    code_urls: list[str] = []
    bases: list[str] = []

    def on_ready(base: str) -> None:
        endpoints = endpoint_urls(gateway, base)
        urls.append(endpoints["shop"])
        code_urls.extend([endpoints[API]] if API in endpoints else [])
        bases.append(base)
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
            click.echo(
                f"Its config: {config_path}  (store {config.store}, admin key in {folder}/admin-key.txt)\n"
            )
            async with Client(url) as client:
                tools = await client.list_tools()
                click.echo(f"tools/list: {', '.join(tool.name for tool in tools.tools)}")
                click.echo('tools/call listProducts {"limit": 2}:')
                result = await client.call_tool("listProducts", {"limit": 2})
                click.echo(("  error: " if result.is_error else "  ") + describe(result))
                if API in gateway.api_names:
                    await show_code_mode(code_urls[0])
                await show_approval(client, gateway, bases[0], config_path, admin_key, once)
            if once:
                stop.set()
            else:
                click.echo("\nServing until Ctrl-C.")
            await stop.wait()
            shop.should_exit = True
    finally:
        shop_sock.close()
        gateway_sock.close()
        if folder_name is None:
            shutil.rmtree(folder, ignore_errors=True)


async def show_approval(
    client: Any, gateway: Any, url: str, config_path: Path, admin_key: str, once: bool
) -> None:  # `url`: the gateway's base URL
    """refundOrder needs a person's approval: the call waits, a person answers (by the printed command,
    on the page, or with --once the demo itself), and the agent's same call then gets the outcome."""
    refund = {"orderId": DEMO_ORDER, "reason": "The mugs arrived broken"}
    click.echo(f"\ntools/call refundOrder {dumps(refund)}   (requires_approval):")
    pending = await client.call_tool("refundOrder", refund)
    click.echo("  " + describe(pending))
    desk = gateway.ledger.desk
    approval = (await desk.list())[0]
    config = shlex.quote(str(config_path))
    command = this_specbridge()
    click.echo(
        "\nA person answers it, in another terminal:\n"
        f"  {command} approvals show {approval.id} --config {config}\n"
        f"  {command} approvals approve {approval.id} --config {config}\n"
        f'  {command} approvals reject {approval.id} --reason "ask the customer first" --config {config}\n'
        f"or on the page {url}/admin/ , signed in with the admin key {admin_key}"
    )
    if once:
        await desk.approve(approval.id, "demo --once")
        click.echo(f"(--once: the demo approved {approval.id} itself, as `approvals approve` would)")
    else:
        click.echo("Waiting for the answer (Ctrl-C stops the demo) ...")
        from ..store import Status, poll

        async def look() -> tuple[bool, Any]:  # the store is the meeting point: read as a person reloads
            found = await desk.get(approval.id)
            return found.status != "pending", found

        answered = await poll(look, seconds=math.inf, first=0.5, most=0.5)
        # the gateway sends an approved call at once: the record may already say `executing` or `done`
        decision = (
            answered.status if answered.status in (Status.REJECTED, Status.EXPIRED) else Status.APPROVED
        )
        click.echo(f"{decision} by {answered.answered_by}")
    click.echo("tools/call refundOrder again:   (the agent's same call gets the outcome)")
    done = await client.call_tool("refundOrder", refund)
    click.echo(("  error: " if done.is_error else "  ") + describe(done))


def this_specbridge() -> str:
    """The command that runs this specbridge from any shell: `specbridge` when that is what PATH finds,
    else the script beside this Python (`.venv/bin/specbridge` after `make install`)."""
    beside = Path(sys.executable).parent / "specbridge"
    found = shutil.which("specbridge")
    if found is not None and Path(found).resolve() == beside.resolve():
        return "specbridge"
    return shlex.quote(str(beside)) if beside.exists() else "specbridge"


def describe(result: types.CallToolResult) -> str:
    """A short summary of a result, for the demo's output."""
    if result.structured_content is not None:
        return dumps(result.structured_content)
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
