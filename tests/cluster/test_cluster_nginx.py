"""The shipped nginx config (docs/deployment/nginx.conf) run in front of the same three instances:
round-robin over all three, and one idempotency key sent by 20 concurrent calls reaches the API once."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import httpx
import pytest

from tests.cluster._cluster import Cluster, code, load, text
from tests.cluster._servers import NGINX, Nginx, free_port
from tests.support.required import lacking

pytestmark = pytest.mark.cluster


@pytest.fixture
def nginx(redis_cluster: Cluster) -> Iterator[Nginx]:
    if not os.path.exists(NGINX):
        pytest.skip(lacking("nginx", "not installed (Debian: apt-get install -y nginx)"))
    server = Nginx(redis_cluster.folder, free_port(), [gateway.port for gateway in redis_cluster.gateways])
    server.start()
    yield server
    server.kill()


async def test_behind_nginx_one_key_over_three_instances_is_sent_once(
    redis_cluster: Cluster, nginx: Nginx
) -> None:
    assert httpx.get(nginx.base + "/healthz", timeout=10).status_code == 200
    shop = "n" + secrets.token_hex(4)
    order = {"shopId": shop, "product": "p1", "idempotency_key": "order-" + shop}
    results = await load(nginx.base + "/shop/mcp", [("createOrder", order)] * 20)
    assert redis_cluster.requests_to(f"/shops/{shop}/orders") == 1
    assert {code(result) for result in results} <= {None, "idempotency-in-progress"}, [
        text(r) for r in results
    ]
    before = redis_cluster.calls_served()
    served = await load(nginx.base + "/shop/mcp", [("getProduct", {"id": f"p{n}"}) for n in range(12)])
    assert {code(result) for result in served} == {None}
    after = redis_cluster.calls_served()
    assert all(now > then for now, then in zip(after, before, strict=True)), (before, after)  # all three
