"""The front on real parts: the gateway's ASGI app in process (its store on SQLite), glewlwyd signing
alice in (tests/support/front.py), the loopback upstream as the API."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from specbridge.gateway import Gateway
from tests.support.front import STORE_KEY, Driver, front_config, signin_client
from tests.support.gateway import IN_PROCESS, in_process_gateway
from tests.support.glewlwyd import Glewlwyd
from tests.support.upstream import Upstream, echo


@dataclass
class Served:
    transport: httpx2.ASGITransport
    gateway: Gateway
    http: httpx2.AsyncClient
    driver: Driver
    config: Path


Serving = Callable[..., contextlib.AbstractAsyncContextManager[Served]]


@pytest.fixture
def serving(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, monkeypatch: pytest.MonkeyPatch
) -> Serving:
    """`async with serving(**front_config options) as served:` the gateway with its front, in process
    (a context of the test's own task: the app's lifespan must end where it began)."""
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    upstream.route("/shops/alice-shop/orders", echo)

    @contextlib.asynccontextmanager
    async def serve(**options: Any) -> AsyncIterator[Served]:
        client_id = signin_client(glewlwyd, IN_PROCESS)
        config = front_config(tmp_path, upstream, glewlwyd, IN_PROCESS, client_id, **options)
        async with (
            in_process_gateway(config) as (transport, gateway),
            httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as http,
        ):
            yield Served(transport, gateway, http, Driver(http, glewlwyd, IN_PROCESS), config)

    return serve
