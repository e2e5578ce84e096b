"""The part of `specbridge demo` that shows code mode (docs/code-mode.md): the example shop served a
second time, as `shop-code`, in code mode, and one script run through the official MCP client: a few
lines that list the products, keep the clothes and return the two cheapest; one request to the shop,
and only the script's result back. Shown when the code extra is installed."""

from __future__ import annotations

from typing import Any

import click

from .._json import dumps

API = "shop-code"
SCRIPT = """\
products = api.listProducts(limit=50)["items"]
clothes = [p for p in products if "clothes" in p["tags"]]
cheapest = sorted(clothes, key=lambda p: p["price"]["amount"])[:2]
print(len(products), "products looked at")
[{"name": p["name"], "euros": p["price"]["amount"] / 100} for p in cheapest]
"""


def code_mode_available() -> bool:
    from ..codemode import sandbox_available

    return sandbox_available()


def code_api(spec: str, shop: str, token_env: str) -> str:
    """The demo config's `shop-code` API: the example shop again, in code mode."""
    return (
        f"  {API}:   # the same shop in code mode: `search` and `execute` (a script) instead of its tools\n"
        f"    spec: {dumps(spec)}\n"
        f"    base_url: http://{shop}/v1\n"
        f"    auth: {{type: bearer, secret: env:{token_env}}}\n"
        f'    egress: {{allow: ["{shop}"]}}\n'
        "    code_mode: on\n"
        "    tools:\n"
        "      refundOrder: {requires_approval: true}\n"
    )


async def show_code_mode(url: str) -> None:
    """One script through the code-mode endpoint, and what the model reads of it."""
    from mcp import Client

    async with Client(url) as client:
        tools = await client.list_tools()
        click.echo(f"\nCode mode at {url}: tools/list: {', '.join(tool.name for tool in tools.tools)}")
        click.echo("tools/call execute, a script (each operation a function of `api`, each call checked):")
        click.echo("".join(f"  | {line}\n" for line in SCRIPT.splitlines()), nl=False)
        result = await client.call_tool("execute", {"code": SCRIPT})
        click.echo(("  error: " if result.is_error else "  ") + describe(result))


def describe(result: Any) -> str:
    if result.structured_content is not None:
        return dumps(result.structured_content)
    return " ".join(getattr(block, "text", "") for block in result.content)
