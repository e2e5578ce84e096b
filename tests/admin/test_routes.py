"""One path, two readers: `/admin/approvals/<id>` is the approval's page for a browser's navigation and
the JSON API for anything that sends a key or does not ask for HTML; without the page, always JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.admin import ADMIN_KEY, admin_client, auth

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


@pytest.mark.parametrize(
    ("headers", "page"),
    [
        ({"Accept": BROWSER}, True),
        ({"Accept": "text/html"}, True),
        ({"Accept": BROWSER, **auth()}, False),  # a key means the API, whatever it accepts
        ({"Accept": BROWSER, "X-Api-Key": ADMIN_KEY}, False),
        ({"Accept": "*/*"}, False),  # curl
        ({}, False),
        ({"Accept": "application/json"}, False),
        ({"Accept": "application/json, text/html;q=0.5"}, False),
        ({"Accept": "text/html;q=0"}, False),
    ],
)
async def test_a_browser_gets_the_page_and_everything_else_the_json_api(
    tmp_path: Path, headers: dict[str, str], page: bool
) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        approval = await admin.pending()
        response = await admin.client.get(f"/admin/approvals/{approval.id}", headers=headers)
        assert "Accept" in response.headers["vary"]
        if page:  # signed out: to the sign-in form, which brings the browser back here
            assert response.status_code == 303
            assert response.headers["location"].startswith("/admin/sign-in?next=")
        elif "authorization" in {h.lower() for h in headers} or "X-Api-Key" in headers:
            assert (response.status_code, response.json()["id"]) == (200, approval.id)
        else:
            assert (response.status_code, response.json()["error"]["code"]) == (401, "key-missing")


async def test_a_browser_asking_for_the_approvals_list_is_sent_to_the_page(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        response = await admin.client.get("/admin/approvals", headers={"Accept": BROWSER})
        assert (response.status_code, response.headers["location"]) == (303, "/admin/")
        api = await admin.client.get("/admin/approvals", headers={"Accept": BROWSER, **auth()})
        assert api.json() == {"approvals": [], "next": None}


async def test_without_the_page_the_same_path_is_always_the_api(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}", page=False) as admin:
        approval = await admin.pending()
        response = await admin.client.get(f"/admin/approvals/{approval.id}", headers={"Accept": BROWSER})
        assert (response.status_code, response.json()["error"]["code"]) == (401, "key-missing")
        assert (await admin.client.get("/admin/")).status_code == 404
