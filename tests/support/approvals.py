"""Approvals through a gateway, as the tests of more than one folder ask for them: a config whose
`createOrder` waits for a person, the admin key that answers, the approval id a pending call names and
an admin API request."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import httpx2
import mcp_types as types

from specbridge.access import key_sha256, new_key
from tests.support.gateway import IN_PROCESS, text, write_config
from tests.support.upstream import Upstream

ADMIN_KEY = new_key(admin=True)
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}
MCP = f"{IN_PROCESS}/mcp"  # the in-process gateway's endpoint (the socket is not the point here)


def approval_config(tmp_path: Path, upstream: Upstream, store: str, *, wait: float = 0) -> Path:
    path = write_config(tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n")
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"admins:\n  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}\n"
        + f"approvals: {{wait: {wait}}}\nstore: '{store}'\n",
        encoding="utf-8",
    )
    return path


def approval_id(result: types.CallToolResult) -> str:
    found = re.search(r"approval ([A-Za-z0-9_-]{20,})", text(result))
    assert found is not None, text(result)
    return found.group(1)


async def admin(
    base: str | httpx2.ASGITransport, method: str, path: str, body: object = None
) -> httpx.Response | httpx2.Response:
    """An admin API request to a gateway: at its base URL, or through an in-process gateway's app."""
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    if isinstance(base, str):
        async with httpx.AsyncClient(base_url=base) as client:
            return await client.request(method, path, json=body, headers=headers)
    async with httpx2.AsyncClient(transport=base, base_url=IN_PROCESS) as local:
        return await local.request(method, path, json=body, headers=headers)
