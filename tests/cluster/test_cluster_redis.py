"""A Redis without persistence under three instances: the start's warning, a restart that empties it
(keyed calls refused until an operator acknowledges, never a second request), and each instance's
connections bounded after a burst of 400 calls."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys

import pytest
import redis

from specbridge.store import open_store
from tests.cluster._cluster import Cluster, code, load, text
from tests.cluster._servers import OwnRedis, free_port

pytestmark = pytest.mark.cluster


def test_a_redis_without_persistence_is_a_warning_at_start_naming_what_may_happen_twice(
    redis_cluster: Cluster,
) -> None:
    for gateway in redis_cluster.gateways:
        warned = [line for line in gateway.output().splitlines() if "store may forget" in line]
        assert warned, gateway.output()[-2000:]
        assert "appendonly 'no', save ''" in warned[0]
        assert "idempotency key" in warned[0] and "approved calls" in warned[0] and "long calls" in warned[0]


async def test_a_redis_whose_config_command_is_renamed_could_not_be_checked(tmp_path: object) -> None:
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--rename-command",
         "CONFIG", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        store = open_store(f"redis://127.0.0.1:{port}/0")
        for _ in range(200):
            try:
                await store.start()
                break
            except Exception:
                await asyncio.sleep(0.05)
        found = await store.guarantees()
        await store.close()
    finally:
        server.kill()
        server.wait()
    assert found.durable is None and "CONFIG GET is not allowed" in found.note


def store_check(cluster: Cluster, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "specbridge", "store", "check", "--config", str(cluster.config), *flags],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_a_redis_restarted_empty_refuses_keyed_calls_until_acknowledged_and_never_sends_twice(
    redis_cluster: Cluster, own_redis: OwnRedis
) -> None:
    cluster, shop = redis_cluster, "r" + secrets.token_hex(4)
    path = f"/shops/{shop}/orders"
    order = {"shopId": shop, "product": "p", "idempotency_key": "order-" + shop}
    (first,) = await load(cluster.base + "/shop/mcp", [("createOrder", order)], clients=1)
    assert code(first) is None and cluster.requests_to(path) == 1

    own_redis.kill()  # the records of "once" are gone with it
    own_redis.start()

    # the agent retries the same keyed call, as it may after a timeout: on every instance, refused
    retried = await load(cluster.base + "/shop/mcp", [("createOrder", order)] * 6, clients=3)
    assert {code(result) for result in retried} == {"store-unavailable"}, [text(r) for r in retried]
    assert all("lost its data" in text(result) and "store check" in text(result) for result in retried)
    fresh = {**order, "idempotency_key": "fresh-" + shop}
    (refused,) = await load(cluster.base + "/shop/mcp", [("createOrder", fresh)], clients=1)
    assert code(refused) == "store-unavailable"  # every call that relies on "once", not only old keys
    (plain,) = await load(cluster.base + "/shop/mcp", [("getProduct", {"id": "p1"})], clients=1)
    assert code(plain) is None  # a call without a key goes on
    assert cluster.requests_to(path) == 1

    checked = store_check(cluster)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "backend: redis" in checked.stdout and "marker: lost" in checked.stdout
    assert "appendonly 'no'" in checked.stdout
    acknowledged = store_check(cluster, "--acknowledge")
    assert acknowledged.returncode == 0 and "acknowledged" in acknowledged.stdout

    after = await load(cluster.base + "/shop/mcp", [("createOrder", fresh)] * 6, clients=3)
    assert {code(result) for result in after} <= {None, "idempotency-in-progress"}, [text(r) for r in after]
    assert cluster.requests_to(path) == 2  # the first order, and the fresh key's once
    assert "marker: present" in store_check(cluster).stdout


async def test_redis_connections_per_instance_stay_bounded_after_a_400_call_burst(
    redis_cluster: Cluster, own_redis: OwnRedis
) -> None:
    cluster, shop = redis_cluster, "b" + secrets.token_hex(4)
    burst = [
        ("createOrder", {"shopId": shop, "product": "p", "idempotency_key": f"{shop}-{n}"})
        for n in range(400)
    ]
    results = await load(cluster.base + "/shop/mcp", burst)
    assert {code(result) for result in results} == {None}, {text(r) for r in results if r.is_error}
    assert cluster.requests_to(f"/shops/{shop}/orders") == 400
    with redis.Redis(port=own_redis.port) as client:
        connected = [entry for entry in client.client_list() if entry.get("cmd") != "client|list"]
    print(f"redis connections after 400 calls: {len(connected)} for 3 instances (bound 3 x 4)")
    assert len(connected) <= 3 * 4, connected
