"""The store down under three instances: calls that need it answer `store-unavailable` within the
store's timeout (2 s here), never a JSON-RPC error and never the 30 s call deadline; the admin API
answers 503; calls that do not need the store go on; everything works again within seconds of the
store coming back. PostgreSQL is stopped (and started again: its data is kept) or frozen (SIGSTOP to every
process, then SIGCONT); Redis is frozen (a killed Redis without persistence comes back empty: see
test_cluster_redis)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable

import anyio
import pytest

from tests.cluster._cluster import Cluster, admin, code, load, text
from tests.cluster._history import History
from tests.cluster._servers import OwnPostgres, OwnRedis

pytestmark = pytest.mark.cluster


def freeze(postgres: OwnPostgres, number: int) -> None:
    """SIGSTOP/SIGCONT the postmaster and every backend: a server that answers nothing."""
    master = postgres.postmaster()
    children = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True, check=False)
    for pid in [master, *(int(pid) for pid in children.stdout.split())]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)


def faults(
    fault: str, redis: OwnRedis, postgres: OwnPostgres
) -> tuple[Callable[[], None], Callable[[], None]]:
    if fault == "redis-frozen":
        return (lambda: redis.signal(signal.SIGSTOP)), (lambda: redis.signal(signal.SIGCONT))
    if fault == "postgresql-frozen":
        return (lambda: freeze(postgres, signal.SIGSTOP)), (lambda: freeze(postgres, signal.SIGCONT))
    return postgres.stop, postgres.start


@pytest.mark.parametrize("fault", ["postgresql-stopped", "postgresql-frozen", "redis-frozen"])
async def test_while_the_store_is_down_calls_answer_store_unavailable_and_admin_503_then_recover(
    fault: str, clusters: Callable[[str], Cluster], own_redis: OwnRedis, own_postgres: OwnPostgres
) -> None:
    cluster = clusters(fault.split("-")[0])
    down, up = faults(fault, own_redis, own_postgres)
    shop = "d" + secrets.token_hex(4)
    keyed = [
        ("createOrder", {"shopId": shop, "product": "p", "idempotency_key": f"{shop}-{n}"}) for n in range(16)
    ]
    history = History(cluster.upstream)  # every operation and upstream request, checked at the end
    sent = [("createOrder", {"shopId": f"{shop}-k{n}", "product": "p", "idempotency_key": f"{shop}-k{n}"})
            for n in range(8)]  # fmt: skip
    await history.load(cluster.base + "/shop/mcp", sent)  # sent just before the outage
    down()
    try:
        started = time.monotonic()
        with anyio.fail_after(25):  # two rounds of the 2 s store timeout, not the 30 s call deadline
            results = await history.load(cluster.base + "/shop/mcp", keyed)
            retried = await history.load(cluster.base + "/shop/mcp", sent)  # their agents' retries
        took = time.monotonic() - started
        assert {code(result) for result in results} == {"store-unavailable"}, [text(r) for r in results]
        assert {code(result) for result in retried} == {"store-unavailable"}, [text(r) for r in retried]
        assert cluster.requests_to(f"/shops/{shop}/orders") == 0
        answers = []

        async def ask(base: str) -> None:
            answers.append(await admin(base, "GET", "/admin/approvals", timeout=20))

        async with anyio.create_task_group() as tasks:  # every instance's admin API, at once
            for gateway in cluster.gateways:
                tasks.start_soon(ask, gateway.base)
        assert [answer.status_code for answer in answers] == [503] * 3
        assert {answer.json()["error"]["code"] for answer in answers} == {"store-unavailable"}
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
    print(f"{fault}: 32 calls during the outage in {took:.1f} s; back {back:.2f} s after the store")
    assert cluster.requests_to(f"/shops/{shop}/orders") == 1
    again = await history.load(cluster.base + "/shop/mcp", sent)  # the retries once it is back
    assert {code(result) for result in again} == {None}, [text(r) for r in again]
    history.check()
    for gateway in cluster.gateways:
        assert (await admin(gateway.base, "GET", "/admin/approvals")).status_code == 200
