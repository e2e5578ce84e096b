"""`GET /files/{id}` in a real headless Chromium (Debian's, driven by playwright): an uploaded HTML page
with a script, opened on the gateway's own origin (where the admin page lives), is downloaded and its
script never runs; the same page served inline by another server does run (so the browser runs scripts
and the check can fail). Skipped, saying why, without /usr/bin/chromium or playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import NEEDS_CHROMIUM, browser
from tests.support.files import FILES_SPEC
from tests.support.gateway import running_gateway, write_config
from tests.support.upstream import Reply, Upstream

__all__ = ["browser"]

pytestmark = NEEDS_CHROMIUM


def page_for(recorder: Upstream) -> bytes:
    """A page whose script tells `recorder` where it ran, then marks itself."""
    script = (
        f"fetch('{recorder.url}/ran?on=' + encodeURIComponent(location.origin), {{mode: 'no-cors'}})"
        ".finally(() => { document.title = 'ran'; });"
    )
    return f"<!doctype html><title>page</title><script>{script}</script><p>hello</p>".encode()


@pytest.fixture
def recorder() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


async def test_an_uploaded_page_never_runs_on_the_gateway_origin(
    tmp_path: Path, upstream: Upstream, recorder: Upstream, browser: Any
) -> None:
    from playwright.async_api import Error as PlaywrightError

    page_bytes = page_for(recorder)
    recorder.route("/page", Reply(200, [("Content-Type", "text/html")], page_bytes))
    config = write_config(tmp_path, upstream, spec=FILES_SPEC)  # no clients: no key needed, as in the review
    config.write_text(
        config.read_text(encoding="utf-8") + f"store: 'sqlite:///{tmp_path / 'state.db'}'\n", encoding="utf-8"
    )
    async with running_gateway(config) as (base, _):
        async with httpx.AsyncClient(timeout=30) as http:
            stored = await http.post(
                f"{base}/files",
                content=page_bytes,
                headers={"Content-Type": "text/html"},
            )
        file_url = f"{base}/files/{stored.json()['file_id']}"
        page = await browser.new_page()
        page.set_default_timeout(30_000)
        async with page.expect_download(timeout=10_000) as downloading:
            try:
                await page.goto(file_url)
            except PlaywrightError as error:  # a download is not a page: the navigation is aborted
                assert "Download is starting" in str(error) or "ERR_ABORTED" in str(error)
        download = await downloading.value
        assert download.suggested_filename.startswith(stored.json()["file_id"])  # named from the URL
        assert page.url != file_url  # no document was committed at the file's URL

        # The control: the same bytes served inline by another server run their script.
        await page.goto(recorder.url + "/page")
        await page.wait_for_function("document.title === 'ran'")
    origins = [dict(request.query).get("on") for request in recorder.requests if request.path == "/ran"]
    assert origins == [recorder.url]  # only the control ran; never on the gateway's origin
