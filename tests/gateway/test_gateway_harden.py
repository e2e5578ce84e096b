"""Hardening findings (issue 9) in the gateway: each test here failed before its fix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.gateway._harness import running_gateway, write_config
from tests.support.upstream import Upstream, json_response


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        server.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))
        yield server


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream)


# -- /healthz and /metrics: the same Host and Origin checks as the MCP endpoint ------------------------


@pytest.mark.parametrize("route", ["/healthz", "/metrics"])
async def test_a_foreign_host_header_gets_421_from_health_and_metrics_on_loopback(
    config: Path, route: str
) -> None:
    async with running_gateway(config) as (base, _), httpx2.AsyncClient() as plain:
        foreign = await plain.get(f"{base}{route}", headers={"Host": "rebind.example"})
        local = await plain.get(f"{base}{route}", headers={"Host": base.removeprefix("http://")})
        named = await plain.get(f"{base}{route}", headers={"Host": "localhost"})
    assert foreign.status_code == 421
    assert foreign.json()["error"]["code"] == "host-refused"
    assert "shop" not in foreign.text
    assert local.status_code == 200 and named.status_code == 200


@pytest.mark.parametrize("route", ["/healthz", "/metrics"])
async def test_a_foreign_browser_origin_gets_403_from_health_and_metrics(config: Path, route: str) -> None:
    async with running_gateway(config) as (base, _), httpx2.AsyncClient() as plain:
        response = await plain.get(f"{base}{route}", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "origin-refused"
