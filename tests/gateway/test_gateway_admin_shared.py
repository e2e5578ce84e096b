"""The admin page's sign-ins in the store (gateway/_admin.py): signed in on one instance, a page load on
another is signed in; a reload that gives the admin a new key or removes it ends the session on both;
signing out on one ends it on the other. SQLite (two gateways on one file), PostgreSQL and Redis."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from specbridge.access import key_sha256, new_key
from specbridge.config import load_config
from tests.gateway._shared import RoundRobin, gateways
from tests.support.gateway import IN_PROCESS, write_config
from tests.support.stores import namespaces, server_store
from tests.support.upstream import Upstream

__all__ = ["namespaces"]

KEY, NEW_KEY = new_key(admin=True), new_key(admin=True)


@pytest.fixture(params=["sqlite", "postgresql", "redis"])
def shared_store(request: pytest.FixtureRequest, tmp_path: Path, namespaces: Callable[[str], str]) -> str:
    if request.param == "sqlite":
        return f"'sqlite:///{tmp_path / 'state.db'}'"
    return server_store(request.param, namespaces)


def admin_config(tmp_path: Path, upstream: Upstream, store: str, admins: str) -> Path:
    path = write_config(tmp_path, upstream)
    path.write_text(path.read_text(encoding="utf-8") + f"store: {store}\n{admins}", encoding="utf-8")
    return path


def admins(key: str) -> str:
    return f"admins:\n  ops: {{key_sha256: {key_sha256(key)}}}\n"


async def sign_in(client: httpx2.AsyncClient) -> None:
    form = (await client.get("/admin/sign-in")).text
    token = re.findall(r'name="csrf" value="([^"]+)"', form)[0]
    signed = await client.post("/admin/sign-in", data={"key": KEY, "csrf": token})
    assert signed.headers["location"] == "/admin/", signed.text


def signed_in(page: httpx2.Response) -> bool:
    if page.status_code == 303:
        assert page.headers["location"].startswith("/admin/sign-in")
        return False
    assert page.status_code == 200, page.text
    return "Sign out" in page.text or "sign-out" in page.text


@pytest.mark.parametrize("change", ["new key", "removed"])
async def test_signed_in_on_one_instance_is_signed_in_on_the_other_until_a_reload_ends_it(
    tmp_path: Path, upstream: Upstream, shared_store: str, change: str
) -> None:
    path = admin_config(tmp_path, upstream, shared_store, admins(KEY))
    async with gateways(path) as made:
        balancer = RoundRobin([transport for transport, _ in made])
        async with httpx2.AsyncClient(transport=balancer, base_url=IN_PROCESS) as browser:
            await sign_in(browser)  # the form from one instance, the sign-in on the other
            pages = [await browser.get("/admin/") for _ in range(4)]
            assert all(signed_in(page) for page in pages)
            assert balancer.served[0] >= 3 and balancer.served[1] >= 3

            path.write_text(
                path.read_text(encoding="utf-8").split("admins:")[0]
                + (admins(NEW_KEY) if change == "new key" else "admins: {}\n"),
                encoding="utf-8",
            )
            for _, gateway in made:
                await gateway.reload(load_config(path))
            pages = [await browser.get("/admin/") for _ in range(2)]
            assert not any(signed_in(page) for page in pages)


async def test_signing_out_on_one_instance_ends_the_session_on_the_other(
    tmp_path: Path, upstream: Upstream, shared_store: str
) -> None:
    path = admin_config(tmp_path, upstream, shared_store, admins(KEY))
    async with gateways(path) as made:
        (one, _), (two, _) = made
        async with httpx2.AsyncClient(transport=one, base_url=IN_PROCESS) as first:
            await sign_in(first)
            home = await first.get("/admin/")
            assert signed_in(home)
            csrf = re.findall(r'name="csrf" value="([^"]+)"', home.text)[0]
            async with httpx2.AsyncClient(
                transport=two, base_url=IN_PROCESS, cookies=first.cookies
            ) as second:
                assert signed_in(await second.get("/admin/"))
                out = await second.post("/admin/sign-out", data={"csrf": csrf})
                assert out.status_code == 303 and out.headers["location"] == "/admin/sign-in"
            assert not signed_in(await first.get("/admin/"))
