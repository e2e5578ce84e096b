"""Several in-process gateways on one store, and a transport that sends each request to the next of them."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2

from specbridge.config import load_config
from specbridge.gateway import Gateway, http_app


class RoundRobin(httpx2.AsyncBaseTransport):
    """A balancer without stickiness: each request goes to the next instance in turn."""

    def __init__(self, instances: list[httpx2.ASGITransport]) -> None:
        self.instances = instances
        self._turn = itertools.count()
        self.served = [0] * len(instances)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        turn = next(self._turn) % len(self.instances)
        self.served[turn] += 1
        return await self.instances[turn].handle_async_request(request)


@contextlib.asynccontextmanager
async def gateways(config: Path, count: int = 2) -> AsyncIterator[list[tuple[httpx2.ASGITransport, Gateway]]]:
    """`count` gateways on one config (one store), each with its own app and session managers."""
    async with contextlib.AsyncExitStack() as stack:
        made = []
        for _ in range(count):
            gateway = Gateway(load_config(config), config_path=str(config), poll_interval=3600.0)
            app = http_app(gateway)
            await stack.enter_async_context(app.router.lifespan_context(app))
            made.append((httpx2.ASGITransport(app), gateway))
        yield made
