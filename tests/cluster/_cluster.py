"""One cluster: three `specbridge serve` instances on one store (the tests' own PostgreSQL or Redis),
behind HAProxy running the shipped config, calling one loopback upstream; and the SDK clients that
load it (the 2026-07-28 era, stateless: any instance serves any request)."""

from __future__ import annotations

import contextlib
import signal
import textwrap
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from specbridge.access import key_sha256, new_key
from tests.cluster._servers import Gateway, HAProxy, free_port, until
from tests.support.gateway import text
from tests.support.upstream import Upstream

ADMIN_KEY = new_key(admin=True)
SPEC = """\
openapi: 3.1.0
info: {title: Cluster fixture, version: '1'}
paths:
  /shops/{shopId}/orders:
    post:
      operationId: createOrder
      summary: Place an order (not idempotent upstream)
      parameters:
        - {name: shopId, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [product]
              properties: {product: {type: string}, quantity: {type: integer}}
      responses:
        '201': {description: The order, content: {application/json: {schema: {type: object}}}}
  /refunds/{orderId}:
    post:
      operationId: refundOrder
      summary: Refund an order (a person approves it)
      parameters:
        - {name: orderId, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: Refunded, content: {application/json: {schema: {type: object}}}}
  /products/{id}:
    get:
      operationId: getProduct
      summary: One product
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: The product, content: {application/json: {schema: {type: object}}}}
"""


def code(result: types.CallToolResult) -> str | None:
    """The stable code of an error result (`[code] message`), or None for a success."""
    said = text(result)
    if not result.is_error:
        return None
    return said[1 : said.index("]")] if said.startswith("[") and "]" in said else said[:60]


def write_config(folder: Path, upstream: Upstream, store: str) -> Path:
    (folder / "shop.yaml").write_text(SPEC, encoding="utf-8")
    api = f"""\
spec: ./shop.yaml
base_url: {upstream.url}
egress: {{allow: ["{upstream.address}"]}}
timeout: 30
"""
    config = f"""\
apis:
  shop:
{textwrap.indent(api, "    ")}    tools:
      refundOrder: {{requires_approval: true}}
  reports:
{textwrap.indent(api, "    ")}    calls: {{long: true, wait: 1}}
admins:
  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}
approvals: {{wait: 0}}
store: '{store}'
"""
    path = folder / "specbridge.yaml"
    path.write_text(config, encoding="utf-8")
    return path


@dataclass
class Cluster:
    backend: str
    folder: Path
    config: Path
    upstream: Upstream
    gateways: list[Gateway] = field(default_factory=list)
    balancer: HAProxy | None = None

    @classmethod
    def start(cls, backend: str, folder: Path, upstream: Upstream, store: str) -> Cluster:
        config = write_config(folder, upstream, store)
        cluster = cls(backend, folder, config, upstream)
        ports = [free_port() for _ in range(3)]
        cluster.gateways = [Gateway(config, port, folder / f"gw{n}.log") for n, port in enumerate(ports, 1)]
        for gateway in cluster.gateways:
            gateway.start()
        for gateway in cluster.gateways:
            gateway.ready()
        cluster.balancer = HAProxy(folder, free_port(), ports)
        cluster.balancer.start()
        cluster.all_in_rotation()
        return cluster

    def stop(self) -> None:
        for process in (self.balancer, *self.gateways):
            if process is not None:
                process.kill()

    @property
    def base(self) -> str:
        assert self.balancer is not None
        return self.balancer.base

    def all_in_rotation(self) -> None:
        """Every instance up and the balancer sending to each (its checks run every second)."""
        for gateway in self.gateways:
            gateway.ready()

        def balanced() -> bool:
            try:
                return all(httpx.get(self.base + "/healthz", timeout=5).status_code == 200 for _ in range(6))
            except httpx.HTTPError:
                return False

        until("haproxy sends to every instance", balanced, 30)

    def restart(self, gateway: Gateway, *, sigterm: bool = True) -> None:
        """Stop one instance (SIGTERM, or SIGKILL) and start it again on its port."""
        if not gateway.running:
            pass
        elif sigterm:
            gateway.signal(signal.SIGTERM)
            gateway.wait(60)
        else:
            gateway.kill()
        gateway.start()
        gateway.ready()

    def calls_served(self) -> list[float]:
        """Each instance's count of tool calls so far (its /metrics)."""
        counts = []
        for gateway in self.gateways:
            metrics = httpx.get(gateway.base + "/metrics", timeout=10).text
            lines = [line for line in metrics.splitlines() if line.startswith("specbridge_tool_calls_total")]
            counts.append(sum(float(line.rsplit(" ", 1)[1]) for line in lines))
        return counts

    def requests_to(self, path: str) -> int:
        return sum(1 for request in list(self.upstream.requests) if request.path == path)


@contextlib.asynccontextmanager
async def agent(url: str, *, mode: str = "2026-07-28") -> AsyncIterator[Client]:
    """The official MCP SDK client over Streamable HTTP (through the balancer)."""
    http = create_mcp_http_client()
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        yield client


async def load(
    url: str, calls: Sequence[tuple[str, dict[str, Any]]], *, clients: int = 8, mode: str = "2026-07-28"
) -> list[types.CallToolResult]:
    """`calls` (tool, arguments) made by `clients` SDK clients at once, by turns; their results in order."""
    results: list[types.CallToolResult | None] = [None] * len(calls)

    async def worker(first: int) -> None:
        async with agent(url, mode=mode) as client:
            for index in range(first, len(calls), clients):
                tool, arguments = calls[index]
                results[index] = await client.call_tool(tool, arguments)

    with anyio.fail_after(150):
        async with anyio.create_task_group() as tasks:
            for first in range(min(clients, len(calls))):
                tasks.start_soon(worker, first)
    return [result for result in results if result is not None]


async def admin(base: str, method: str, path: str, *, timeout: float = 30) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=timeout) as client:
        return await client.request(method, path, headers={"Authorization": f"Bearer {ADMIN_KEY}"})
