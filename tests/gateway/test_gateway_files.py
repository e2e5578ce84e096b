"""Attachments end to end: POST /files over HTTP, the SDK client calling upload tools of a real upstream on
loopback, binary answers kept as files, on SQLite, PostgreSQL and Redis."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import httpx
import mcp_types as types
import pytest

from tests.support.files import (
    DATA,
    KEY_A,
    KEY_B,
    PDF,
    config_with,
    parts,
    upload,
    upstream_routes,
)
from tests.support.gateway import http_client, running_gateway, text
from tests.support.processes import gateway_process
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream

__all__ = ["namespaces", "store_url", "upstream_routes"]


async def test_an_uploaded_file_goes_upstream_byte_for_byte_as_a_multipart_part_and_as_a_raw_body(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with running_gateway(config) as (base, _):
        answer = await upload(
            base, KEY_A, DATA, **{"Content-Type": "image/png", "X-Filename": "me%20%C3%A9.png"}
        )
        assert answer.status_code == 201
        described = answer.json()
        assert {k: described[k] for k in ("size", "content_type", "filename")} == {
            "size": len(DATA),
            "content_type": "image/png",
            "filename": "me é.png",
        }
        file_id = described["file_id"]
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            part = await client.call_tool("uploadAvatar", {"file": {"file_id": file_id}, "caption": "hi"})
            raw = await client.call_tool(
                "putBlob", {"name": "b1", "body": {"file_id": file_id, "content_type": "application/x-raw"}}
            )
            as_text = await client.call_tool(
                "putBlob", {"name": "b1", "body": base64.b64encode(b"abc").decode()}
            )
    assert not part.is_error and not raw.is_error and not as_text.is_error, (text(part), text(raw))
    avatars = [r for r in upstream.requests if r.path == "/avatars"]
    blobs = [r for r in upstream.requests if r.path == "/blobs/b1"]
    assert parts(avatars[0])["file"] == ("me é.png", "image/png", DATA)
    assert parts(avatars[0])["caption"][2] == b"hi"
    assert blobs[0].body == DATA
    assert blobs[0].headers["content-type"] == "application/octet-stream"
    assert blobs[1].body == b"abc"  # base64 text is still accepted for a raw body


async def test_the_served_schema_takes_a_file_reference_or_the_text_it_took_before(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp", key=KEY_A) as client:
        tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    file_schema = tools["uploadAvatar"]["properties"]["file"]
    body_schema = tools["putBlob"]["properties"]["body"]
    for schema in (file_schema, body_schema):
        original, reference = schema["anyOf"]
        assert reference["required"] == ["file_id"] and reference["type"] == "object"
        assert original["type"] == "string"
    assert "anyOf" not in tools["uploadAvatar"]["properties"]["caption"]


async def test_another_clients_file_is_not_found_over_http_and_through_a_tool(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with running_gateway(config) as (base, _):
        file_id = (await upload(base, KEY_A, DATA)).json()["file_id"]
        async with httpx.AsyncClient(timeout=30) as http:
            theirs = await http.get(f"{base}/files/{file_id}", headers={"Authorization": f"Bearer {KEY_B}"})
            unknown = await http.get(f"{base}/files/f_nope", headers={"Authorization": f"Bearer {KEY_B}"})
            not_deleted = await http.delete(
                f"{base}/files/{file_id}", headers={"Authorization": f"Bearer {KEY_B}"}
            )
            mine = await http.get(f"{base}/files/{file_id}", headers={"Authorization": f"Bearer {KEY_A}"})
            no_key = await http.get(f"{base}/files/{file_id}")
        async with http_client(f"{base}/mcp", key=KEY_B) as client:
            result = await client.call_tool("uploadAvatar", {"file": {"file_id": file_id}})
    for refused in (theirs, unknown, not_deleted):
        assert refused.status_code == 404
        assert refused.json() == {"error": {"code": "file-not-found", "message": "not found"}}
    assert mine.status_code == 200 and mine.content == DATA
    assert no_key.status_code == 401 and no_key.json()["error"]["code"] == "key-missing"
    assert result.is_error and text(result).startswith("[file-not-found]")
    assert not [r for r in upstream.requests if r.path == "/avatars"]


async def test_a_file_over_the_cap_is_refused_with_413_and_kept_nowhere(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url, files="files: {max_bytes: 1kB, ttl: 1h}\n")
    async with running_gateway(config) as (base, _):
        over = await upload(base, KEY_A, b"x" * 1001)
        at_cap = await upload(base, KEY_A, b"x" * 1000)
    assert over.status_code == 413
    assert over.json()["error"]["code"] == "file-too-large"
    assert at_cap.status_code == 201 and at_cap.json()["size"] == 1000


async def test_a_deleted_file_is_gone_for_its_owner(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with running_gateway(config) as (base, _):
        file_id = (await upload(base, KEY_A, DATA)).json()["file_id"]
        auth = {"Authorization": f"Bearer {KEY_A}"}
        async with httpx.AsyncClient(timeout=30) as http:
            deleted = await http.delete(f"{base}/files/{file_id}", headers=auth)
            after = await http.get(f"{base}/files/{file_id}", headers=auth)
    assert deleted.status_code == 204
    assert after.status_code == 404


async def test_a_multipart_upload_with_one_file_part_is_kept_with_its_name_and_type(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with running_gateway(config) as (base, _), httpx.AsyncClient(timeout=30) as http:
        auth = {"Authorization": f"Bearer {KEY_A}"}
        answer = await http.post(
            f"{base}/files", files={"file": ("scan.pdf", PDF, "application/pdf")}, headers=auth
        )
        two = await http.post(
            f"{base}/files",
            files=[("a", ("a.txt", b"a", "text/plain")), ("b", ("b.txt", b"b", "text/plain"))],
            headers=auth,
        )
        back = await http.get(f"{base}/files/{answer.json()['file_id']}", headers=auth)
        garbled = await http.post(
            f"{base}/files", content=b"garbage", headers={**auth, "Content-Type": "multipart/form-data"}
        )
    assert answer.status_code == 201
    assert {k: answer.json()[k] for k in ("size", "content_type", "filename")} == {
        "size": len(PDF),
        "content_type": "application/pdf",
        "filename": "scan.pdf",
    }
    assert back.content == PDF and back.headers["content-type"] == "application/pdf"
    assert two.status_code == 400 and two.json()["error"]["code"] == "request-invalid"
    assert garbled.status_code == 400 and garbled.json()["error"]["code"] == "request-invalid"


async def test_a_binary_answer_is_kept_as_a_file_of_the_caller_and_passed_on_to_an_upload_tool(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with running_gateway(config) as (base, gateway):
        await gateway.ledger.open()  # files are kept where the store is open
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            report = await client.call_tool("getReport", {"id": "r1"})
            found = re.search(r'"file_id": ?"([^"]+)"', text(report))
            assert found is not None, text(report)
            file_id = found.group(1)
            passed = await client.call_tool("uploadAvatar", {"file": {"file_id": file_id}})
        async with httpx.AsyncClient(timeout=30) as http:
            theirs = await http.get(f"{base}/files/{file_id}", headers={"Authorization": f"Bearer {KEY_B}"})
    assert not report.is_error and "application/pdf" in text(report)
    assert not passed.is_error, text(passed)
    avatar = next(r for r in upstream.requests if r.path == "/avatars")
    assert parts(avatar)["file"] == ("r1.pdf", "application/pdf", PDF)
    assert theirs.status_code == 404


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_binary_answer_is_kept_through_serve_even_when_nothing_opened_the_store_first(
    tmp_path: Path, upstream: Upstream, mode: str
) -> None:
    """Issue 33: a 2 KB application/pdf answer was only described. Whether it is kept no longer depends
    on what other calls did first: the store opens for it, and the result links the file."""
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with gateway_process(config) as running:
        async with http_client(f"{running.base}/mcp", key=KEY_A, mode=mode) as client:
            report = await client.call_tool("getReport", {"id": "r1"})
        links = [block for block in report.content if isinstance(block, types.ResourceLink)]
        async with httpx.AsyncClient(timeout=30) as http:
            mine = await http.get(links[0].uri, headers={"Authorization": f"Bearer {KEY_A}"})
            theirs = await http.get(links[0].uri, headers={"Authorization": f"Bearer {KEY_B}"})
    assert not report.is_error and '"file_id"' in text(report)
    (link,) = links
    assert link.uri.startswith(f"{running.base}/files/f_")
    assert (link.name, link.mime_type, link.size) == ("r1.pdf", "application/pdf", len(PDF))
    assert mine.content == PDF and theirs.status_code == 404


async def test_a_binary_answer_over_the_cap_is_described_and_not_kept(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(
        tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}", files="files: {max_bytes: 100}\n"
    )
    async with running_gateway(config) as (base, gateway):
        await gateway.ledger.open()
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            report = await client.call_tool("getReport", {"id": "r1"})
    assert not report.is_error
    assert "larger than files.max_bytes (100), so it was not kept" in text(report)
    assert "file_id" not in text(report)
