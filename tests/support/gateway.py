"""Shared pieces of the gateway tests: a fixture API, its config, a running gateway, SDK clients."""

from __future__ import annotations

import contextlib
import socket
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from specbridge.config import load_config
from specbridge.gateway import Gateway, bind, http_app, serve_http
from tests.support.upstream import Upstream

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16

SPEC = """\
openapi: 3.1.0
info: {title: Gateway fixture, version: '1'}
paths:
  /products/{id}:
    get:
      operationId: getProduct
      summary: Get one product
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: The product
          content:
            application/json:
              schema:
                type: object
                properties: {id: {type: string}, name: {type: string}}
        '404': {description: No such product}
  /notes:
    get:
      operationId: listNotes
      summary: Notes as plain text
      responses:
        '200': {description: Notes, content: {text/plain: {schema: {type: string}}}}
  /logo:
    get:
      operationId: getLogo
      summary: The shop's logo
      responses:
        '200': {description: Logo, content: {image/png: {schema: {type: string, format: binary}}}}
  /shops/{shopId}/orders:
    post:
      operationId: createOrder
      summary: Place an order
      parameters:
        - {name: shopId, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [product, quantity]
              properties:
                product: {type: string}
                quantity: {type: integer, minimum: 1}
      responses:
        '201':
          description: The order
          content: {application/json: {schema: {type: object}}}
  /slow:
    get:
      operationId: slowThing
      summary: Takes its time
      responses:
        '200': {description: Eventually}
"""

EXTRA_OPERATION = """\
  /extra:
    get:
      operationId: extraThing
      summary: Added while serving
      responses:
        '200': {description: OK}
"""


def many_operations_spec(count: int, description_bytes: int = 0) -> str:
    lines = ["openapi: 3.1.0", "info: {title: Many, version: '1'}", "paths:"]
    for i in range(count):
        lines += [
            f"  /things/{i}:",
            "    get:",
            f"      operationId: thing{i:03d}",
            f"      summary: Thing {i}",
            f"      description: {'word ' * (description_bytes // 5)}end",
            "      responses: {'200': {description: OK}}",
        ]
    return "\n".join(lines) + "\n"


def write_config(
    directory: Path,
    upstream: Upstream,
    *,
    spec: str = SPEC,
    extra: str = "",
    clients: str = "",
    tools: str = "",
    allow: tuple[str, ...] = (),
) -> Path:
    """`extra`: more keys of the API (indented for it); `allow`: egress exceptions besides the upstream's."""
    (directory / "shop.yaml").write_text(spec, encoding="utf-8")
    exceptions = ", ".join(f'"{address}"' for address in (upstream.address, *allow))
    config = f"""\
apis:
  shop:
    spec: ./shop.yaml
    base_url: {upstream.url}
    egress: {{allow: [{exceptions}]}}
    timeout: 30
{textwrap.indent(extra, "    ")}{textwrap.indent(tools, "    ")}{clients}"""
    path = directory / "specbridge.yaml"
    path.write_text(config, encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def running_gateway(
    config_path: Path, *, deadline: float = 60.0, poll_interval: float = 0.05
) -> AsyncIterator[tuple[str, Gateway]]:
    """The gateway over Streamable HTTP on 127.0.0.1 (a free port); yields its base URL."""
    gateway = Gateway(
        load_config(config_path), config_path=str(config_path), deadline=deadline, poll_interval=poll_interval
    )
    async with serving_on(gateway, bind("127.0.0.1", 0)) as base:
        yield base, gateway


@contextlib.asynccontextmanager
async def serving_on(gateway: Gateway, sock: socket.socket) -> AsyncIterator[str]:
    """`gateway` over Streamable HTTP on `sock` (bound first where the config must name its address)
    until the block ends; yields the base URL it serves at, and closes the socket after."""
    stop = anyio.Event()
    ready = anyio.Event()
    base: list[str] = []

    def on_ready(url: str) -> None:
        base.append(url)
        ready.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: serve_http(gateway, sock, on_ready=on_ready, stop=stop))
            with anyio.fail_after(15):
                await ready.wait()
            try:
                yield base[0]
            finally:
                stop.set()
    finally:
        sock.close()


IN_PROCESS = "http://127.0.0.1"  # the base URL of an in-process gateway (a loopback Host, as the checks want)


@contextlib.asynccontextmanager
async def in_process_gateway(
    config_path: Path, *, deadline: float = 60.0, poll_interval: float = 3600.0
) -> AsyncIterator[tuple[httpx2.ASGITransport, Gateway]]:
    """The gateway's ASGI app run in this process (its lifespan too), reached through `ASGITransport`
    (give it to `http_client(..., transport=...)`): no socket, no server task. For tests where the socket
    is not the point; answers are buffered whole, so the handshake era's GET stream never arrives (use
    `running_gateway` to test notifications). The watcher does not poll: a test that reloads calls
    `gateway.reload`."""
    gateway = Gateway(
        load_config(config_path), config_path=str(config_path), deadline=deadline, poll_interval=poll_interval
    )
    app = http_app(gateway)
    async with app.router.lifespan_context(app):
        yield httpx2.ASGITransport(app), gateway


@contextlib.asynccontextmanager
async def http_client(
    url: str,
    *,
    mode: str = "legacy",
    key: str | None = None,
    transport: httpx2.AsyncBaseTransport | None = None,
    **options: Any,
) -> AsyncIterator[Client]:
    """The SDK client over Streamable HTTP, with the key as `Authorization: Bearer` when given; through
    `transport` (an in-process gateway's) when given, else over the network."""
    headers = {"Authorization": f"Bearer {key}"} if key else None
    http = (
        create_mcp_http_client(headers=headers)
        if transport is None
        else httpx2.AsyncClient(transport=transport, headers=headers)
    )
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client:
        yield client


def initialize_message(name: str, version: str) -> dict[str, Any]:
    """An MCP `initialize` request (JSON-RPC, protocol 2025-06-18) from the client `name` `version`."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": name, "version": version},
        },
    }


async def raw_post(url: str, headers: dict[str, str] | None = None) -> httpx2.Response:
    """An `initialize` POST without the SDK, to see the HTTP status the gateway answers with."""
    body = initialize_message("raw", "0")
    async with httpx2.AsyncClient() as client:
        return await client.post(
            url,
            json=body,
            headers={"Accept": "application/json, text/event-stream", **(headers or {})},
        )


def text(result: types.CallToolResult) -> str:
    """The text blocks of a tool's result, joined."""
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
