"""A config with admins and a client, a store, the approval gate and the admin app, in process; or any
app served on a loopback socket."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import uvicorn

from specbridge.access import key_sha256
from specbridge.admin import admin_app
from specbridge.config import Config, config_from_data
from specbridge.gateway import base_url, bind
from specbridge.service import ApprovalGate
from specbridge.store import Approval, Store, open_store

ADMIN_KEY = "sbk_admin-key-of-alice-0000000000000000000000"
OTHER_ADMIN_KEY = "sbk_admin-key-of-bob-00000000000000000000000"
CLIENT_KEY = "sbk_client-key-of-the-bot-00000000000000000000"
ARGS = {"orderId": "o-1", "amount": 25}
BOUND = {"body.currency": "EUR"}


def admin_config(**extra: Any) -> Config:
    return config_from_data(
        {
            "apis": {"shop": {"spec": "shop.yaml"}},
            "clients": {"bot": {"key_sha256": key_sha256(CLIENT_KEY), "apis": ["shop"]}},
            "admins": {
                "alice": {"key_sha256": key_sha256(ADMIN_KEY)},
                "bob": {"key_sha256": key_sha256(OTHER_ADMIN_KEY)},
            },
            **extra,
        },
        source="specbridge.yaml",
    )


def auth(key: str = ADMIN_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@dataclass
class Admin:
    gate: ApprovalGate
    client: httpx.AsyncClient
    store: Store

    async def pending(
        self,
        arguments: dict[str, Any] | None = None,
        bound: dict[str, Any] | None = None,
        client: str = "bot",
    ) -> Approval:
        """A pending approval, as a call of `refundOrder` leaves it."""
        approvals = self.gate.desk.for_api("shop")
        return await approvals.request(
            "shop",
            "refundOrder",
            client,
            ARGS if arguments is None else arguments,
            BOUND if bound is None else bound,
        )


@asynccontextmanager
async def admin_client(store_url: str, config: Config | None = None, **options: Any) -> AsyncIterator[Admin]:
    config = config or admin_config()
    async with open_store(store_url) as store:
        gate = ApprovalGate(store, config, clock=time.time)
        app = admin_app(gate.desk, config.admins, **options)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            yield Admin(gate, client, store)


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[str]:
    """`app` served by uvicorn on a loopback socket that already listens; yields its base URL."""
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:  # the socket listens already: a first request waits in its backlog until uvicorn accepts it
        yield base_url(sock)
    finally:
        server.should_exit = True
        with anyio.fail_after(20):
            await task
        sock.close()
