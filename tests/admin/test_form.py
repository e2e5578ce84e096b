"""The page's forms are read no further than 16 KB whatever the framing: a declared length over it, a
chunked body past it, in process (counting what the app pulled) and over a real socket (the answer
comes while the client still has more to send)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx

from specbridge.admin import admin_app
from specbridge.admin._form import MAX_FORM
from specbridge.service import ApprovalGate
from specbridge.store import open_store
from tests.support.admin import admin_client, admin_config, served

CHUNK = 1024


async def test_a_chunked_sign_in_form_is_read_no_further_than_its_limit(tmp_path: Path) -> None:
    pulled = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal pulled
        for _ in range(10 * 1024):  # 10 MB on offer
            pulled += CHUNK
            yield b"k" * CHUNK

    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        response = await admin.client.post(
            "/admin/sign-in",
            content=endless(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
    assert response.status_code == 413
    assert "request-invalid" in response.text
    assert pulled <= MAX_FORM + CHUNK  # stopped at the limit, not at the end of what was sent


async def test_a_declared_length_over_the_limit_is_refused_before_any_byte_is_read(tmp_path: Path) -> None:
    pulled = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal pulled
        pulled += 1
        yield b"k" * (MAX_FORM + 1)

    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        response = await admin.client.post(
            "/admin/sign-in",
            content=body(),
            headers={
                "Content-Length": str(MAX_FORM + 1),
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
    assert (response.status_code, pulled) == (413, 0)


async def test_a_form_in_another_encoding_is_refused(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        response = await admin.client.post("/admin/sign-in", files={"key": ("k", b"x")})
    assert response.status_code == 400
    assert "request-invalid" in response.text


async def test_over_a_socket_a_chunked_form_past_the_limit_is_answered_while_the_client_still_sends(
    tmp_path: Path,
) -> None:
    """The client sends 20 KB of chunks and never ends the body: the answer comes anyway (reading on
    would wait for the rest, and the bounded read below would fail)."""
    config = admin_config()
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:
        app = admin_app(ApprovalGate(store, config).desk, config.admins)
        async with served(app) as url:
            parts = urlsplit(url)
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
            try:
                writer.write(
                    b"POST /admin/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
                )
                for _ in range(20):
                    writer.write(b"%x\r\n%s\r\n" % (CHUNK, b"k" * CHUNK))
                await writer.drain()
                with anyio.fail_after(20):
                    status_line = await reader.readline()
                    head = await reader.readuntil(b"\r\n\r\n")
            finally:
                writer.close()
    assert status_line.startswith(b"HTTP/1.1 413"), status_line
    assert b"content-security-policy" in head.lower()


async def test_a_small_form_is_read_whole(tmp_path: Path) -> None:
    async with admin_client(f"sqlite:///{tmp_path / 'state.db'}") as admin:
        form = await admin.client.get("/admin/sign-in")
        assert form.status_code == 200
        response = await admin.client.post("/admin/sign-in", data={"key": "x" * 1000, "csrf": "nope"})
    assert response.status_code == 403  # read, then refused for its token: not for its size
    assert isinstance(response, httpx.Response)
