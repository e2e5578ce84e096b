"""The store down under three instances: calls that need it answer `store-unavailable` within the
store's timeout (2 s here), never a JSON-RPC error and never the 30 s call deadline; the admin API
answers 503; calls that do not need the store go on; everything works again within seconds of the
store coming back. PostgreSQL is stopped (and started again: its data is kept); Redis is frozen
(SIGSTOP, then SIGCONT: a killed Redis without persistence comes back empty, see test_cluster_lost)."""

from __future__ import annotations

import secrets
import signal
import time
from collections.abc import Callable

import anyio
import pytest

from tests.cluster._cluster import Cluster, admin, code, load, text
from tests.cluster._servers import OwnPostgres, OwnRedis

pytestmark = pytest.mark.cluster


def faults(
    cluster: Cluster, redis: OwnRedis, postgres: OwnPostgres
) -> tuple[Callable[[], None], Callable[[], None]]:
    if cluster.backend == "redis":
        return (lambda: redis.signal(signal.SIGSTOP)), (lambda: redis.signal(signal.SIGCONT))
    return postgres.stop, postgres.start


async def test_while_the_store_is_down_calls_answer_store_unavailable_and_admin_503_then_recover(
    cluster: Cluster, own_redis: OwnRedis, own_postgres: OwnPostgres
) -> None:
    down, up = faults(cluster, own_redis, own_postgres)
    shop = "d" + secrets.token_hex(4)
    keyed = [
        ("createOrder", {"shopId": shop, "product": "p", "idempotency_key": f"{shop}-{n}"}) for n in range(16)
    ]
    down()
    try:
        started = time.monotonic()
        with anyio.fail_after(25):  # two rounds of the 2 s store timeout, not the 30 s call deadline
            results = await load(cluster.base + "/shop/mcp", keyed)
        took = time.monotonic() - started
        assert {code(result) for result in results} == {"store-unavailable"}, [text(r) for r in results]
        assert cluster.requests_to(f"/shops/{shop}/orders") == 0
        for gateway in cluster.gateways:
            answered = await admin(gateway.base, "GET", "/admin/approvals", timeout=20)
            assert answered.status_code == 503 and answered.json()["error"]["code"] == "store-unavailable"
        plain = await load(cluster.base + "/shop/mcp", [("getProduct", {"id": "p1"})] * 8)
        assert {code(result) for result in plain} == {None}  # no store needed: served all along
    finally:
        up()
    came_back = time.monotonic()
    with anyio.fail_after(15):  # within seconds of the store coming back
        while True:
            (after,) = await load(cluster.base + "/shop/mcp", [keyed[0]], clients=1)
            if code(after) is None:
                break
            await anyio.sleep(0.2)
    back = time.monotonic() - came_back
    print(f"{cluster.backend}: 16 calls during the outage in {took:.1f} s; back {back:.2f} s after the store")
    assert cluster.requests_to(f"/shops/{shop}/orders") == 1
    for gateway in cluster.gateways:
        assert (await admin(gateway.base, "GET", "/admin/approvals")).status_code == 200
