"""The admin page as a person's browser meets it: sign in with a key, the CSRF token of a form, an approval's page."""

from __future__ import annotations

import re

import httpx

from tests.support.admin import (
    ADMIN_KEY,
)


def csrf_of(page: str) -> str:
    tokens = set(re.findall(r'name="csrf" value="([^"]+)"', page))
    assert len(tokens) == 1
    return tokens.pop()


async def sign_in(client: httpx.AsyncClient, key: str = ADMIN_KEY, next_path: str = "") -> httpx.Response:
    form = await client.get("/admin/sign-in" + (f"?next={next_path}" if next_path else ""))
    fields = {"key": key, "csrf": csrf_of(form.text)} | ({"next": next_path} if next_path else {})
    return await client.post("/admin/sign-in", data=fields)


async def approval_page(client: httpx.AsyncClient, approval_id: str) -> httpx.Response:
    return await client.get(f"/admin/approvals/{approval_id}", headers={"Accept": "text/html"})
