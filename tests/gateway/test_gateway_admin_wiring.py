"""The gateway's wiring of the admin page (gateway/_http.py): the page learns what a tool's call does from
the documents served now, and reads the admins of the config served now (a reload applies at once)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx2

from specbridge.access import key_sha256, new_key
from specbridge.config import load_config
from tests.support.gateway import IN_PROCESS, in_process_gateway, write_config
from tests.support.upstream import Upstream

KEY = new_key(admin=True)
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}


def config(tmp_path: Path, upstream: Upstream, admins: str) -> Path:
    path = write_config(tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    path.write_text(
        path.read_text(encoding="utf-8") + f"store: 'sqlite:///{tmp_path / 'state.db'}'\n" + admins,
        encoding="utf-8",
    )
    return path


async def sign_in(client: httpx2.AsyncClient) -> None:
    form = (await client.get("/admin/sign-in")).text
    token = re.findall(r'name="csrf" value="([^"]+)"', form)[0]
    signed = await client.post("/admin/sign-in", data={"key": KEY, "csrf": token})
    assert signed.headers["location"] == "/admin/"


async def test_the_approval_page_shows_the_served_operation_and_a_reload_ends_a_removed_admin_s_session(
    tmp_path: Path, upstream: Upstream
) -> None:
    path = config(tmp_path, upstream, f"admins:\n  ops: {{key_sha256: {key_sha256(KEY)}}}\n")
    async with in_process_gateway(path) as (transport, gateway):
        approval = await gateway.ledger.desk.for_api("shop").request("shop", "createOrder", "", ORDER, {})
        async with httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as client:
            await sign_in(client)
            page = await client.get(f"/admin/approvals/{approval.id}", headers={"Accept": "text/html"})
            assert page.status_code == 200
            assert "<code>POST /shops/{shopId}/orders</code>" in page.text
            assert f"<code>{upstream.url}</code>" in page.text
            assert "Place an order" in page.text
            assert '<span class="badge">changes data</span>' in page.text
            listing = (await client.get("/admin/")).text
            assert "POST /shops/{shopId}/orders" in listing

            path.write_text(path.read_text(encoding="utf-8").split("admins:")[0] + "admins: {}\n", "utf-8")
            await gateway.reload(load_config(path))
            gone = await client.get(f"/admin/approvals/{approval.id}", headers={"Accept": "text/html"})
            assert gone.status_code == 303
            assert gone.headers["location"].startswith("/admin/sign-in")
