"""Admin sign-in with OpenID Connect (`admin/_oidc.py`), beside admin keys, in process against glewlwyd:
a person an `oauth_server.admins` rule maps is signed in as that admin (a session in the store), one no
rule maps is refused and gets no session, the sign-in's state works once and only with the browser's
cookie, and taking the rule away ends the session at the next page load."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from specbridge.config import load_config
from tests.support.front import STORE_KEY, front_config, signin_client
from tests.support.gateway import IN_PROCESS, in_process_gateway
from tests.support.glewlwyd import EMAIL, PASSWORD, USER, Glewlwyd
from tests.support.upstream import Upstream

RULE = [{"claim": "email", "value": EMAIL, "admin": "ops"}]


@contextlib.asynccontextmanager
async def admin_page(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd, rules: list[dict[str, str]]
) -> AsyncIterator[tuple[httpx2.AsyncClient, Any, Path]]:
    config = front_config(
        tmp_path, upstream, glewlwyd, IN_PROCESS, signin_client(glewlwyd, IN_PROCESS), admins=rules
    )
    async with (
        in_process_gateway(config) as (transport, gateway),
        httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as http,
    ):
        yield http, gateway, config


async def at_provider(http: httpx2.AsyncClient, glewlwyd: Glewlwyd) -> str:
    """The page's OIDC button followed to glewlwyd, alice signed in there: the callback URL."""
    started = await http.get("/admin/sign-in/oidc")
    assert started.status_code == 303, started.text
    return glewlwyd.consent(started.headers["location"], USER, PASSWORD)


@pytest.fixture(autouse=True)
def store_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)


async def test_a_person_a_rule_maps_is_signed_in_as_that_admin(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with admin_page(tmp_path, upstream, glewlwyd, RULE) as (http, _, _):
        form = await http.get("/admin/sign-in")
        landed = await http.get(await at_provider(http, glewlwyd))
        home = await http.get("/admin/", headers={"Accept": "text/html"})
    assert "Sign in with your company account" in form.text
    assert landed.status_code == 200 and "Signed in as <strong>ops</strong>" in landed.text
    assert landed.headers["refresh"].startswith("0; url=/admin/")
    assert "samesite=strict" in landed.headers["set-cookie"].lower()
    assert home.status_code == 200 and "Pending approvals" in home.text and "ops" in home.text


async def test_a_person_no_rule_maps_gets_no_session(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    rules = [{"claim": "email", "value": "someone-else@example.com", "admin": "ops"}]
    async with admin_page(tmp_path, upstream, glewlwyd, rules) as (http, _, _):
        refused = await http.get(await at_provider(http, glewlwyd))
        home = await http.get("/admin/", headers={"Accept": "text/html"})
    assert refused.status_code == 403 and "signin-unmapped" in refused.text and EMAIL in refused.text
    assert "specbridge_admin=" not in refused.headers.get("set-cookie", "")
    assert home.status_code == 303  # still signed out


async def test_the_sign_in_state_works_once_and_only_in_its_own_browser(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with admin_page(tmp_path, upstream, glewlwyd, RULE) as (http, _, _):
        callback = await at_provider(http, glewlwyd)
        async with httpx2.AsyncClient(transport=http._transport, base_url=IN_PROCESS) as stranger:
            forged = await stranger.get(callback)
        own = await http.get(callback)
        again = await http.get(callback)
    assert forged.status_code == 403 and "csrf-invalid" in forged.text
    assert own.status_code == 200
    assert again.status_code in (400, 403)


async def test_taking_the_rule_away_ends_the_session_at_the_next_page_load(
    tmp_path: Path, upstream: Upstream, glewlwyd: Glewlwyd
) -> None:
    async with admin_page(tmp_path, upstream, glewlwyd, RULE) as (http, gateway, config):
        await http.get(await at_provider(http, glewlwyd))
        before = await http.get("/admin/", headers={"Accept": "text/html"})
        text = config.read_text(encoding="utf-8").replace(EMAIL, "nobody@example.com")
        config.write_text(text, encoding="utf-8")
        await gateway.reload(load_config(config))
        after = await http.get("/admin/", headers={"Accept": "text/html"})
    assert before.status_code == 200 and after.status_code == 303
    assert re.search(r"/admin/sign-in", after.headers["location"])
