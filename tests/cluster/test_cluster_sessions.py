"""What lives in one process unless it is shared through the store, under round-robin with no
stickiness: handshake-era MCP sessions (the 2025 protocol versions: `initialize`, then
`Mcp-Session-Id` on every request) and the admin page's sign-ins, both kept in the store (issue 26 items 2
and 3). Before, 133 of 200 calls answered `Session not found` and two of three page loads showed the
sign-in form."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.cluster._cluster import ADMIN_KEY, Cluster, code, load, text

pytestmark = pytest.mark.cluster


async def test_handshake_era_sessions_serve_200_calls_under_round_robin_without_session_not_found(
    cluster: Cluster,
) -> None:
    calls = [("getProduct", {"id": f"p{n}"}) for n in range(200)]
    results = await load(cluster.base + "/shop/mcp", calls, mode="legacy")
    assert len(results) == 200
    assert {code(result) for result in results} == {None}, {text(r) for r in results if r.is_error}


async def test_the_admin_page_signed_in_through_the_balancer_is_signed_in_on_every_instance(
    cluster: Cluster,
) -> None:
    async with httpx.AsyncClient(base_url=cluster.base, timeout=30) as browser:
        form = await browser.get("/admin/sign-in")
        (csrf,) = set(re.findall(r'name="csrf" value="([^"]+)"', form.text))
        signed = await browser.post("/admin/sign-in", data={"key": ADMIN_KEY, "csrf": csrf})
        assert signed.status_code == 303, signed.text
        pages = [await browser.get("/admin/") for _ in range(6)]  # two rounds over the three instances
    assert [page.status_code for page in pages] == [200] * 6, [page.headers.get("location") for page in pages]
    assert all("Pending approvals" in page.text for page in pages)
