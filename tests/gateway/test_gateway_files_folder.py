"""Attachments with `files.folder` on, end to end: POST /files over HTTP into the folder, the SDK client
calling a multipart and a raw-binary upload tool of a real upstream on loopback that receives the exact
bytes, on SQLite, PostgreSQL and Redis."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import httpx

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
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream

__all__ = ["namespaces", "store_url", "upstream_routes"]

FOLDER = "files: {folder: kept/files, max_bytes: 1MB}\n"  # relative to the config's folder
BIG = bytes(range(256)) * 3900  # 998,400 bytes: several chunks each way


async def test_a_file_uploaded_into_the_folder_goes_upstream_byte_for_byte_as_a_part_and_as_a_body(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url, files=FOLDER)
    folder = tmp_path / "kept" / "files"
    async with running_gateway(config) as (base, _):
        answer = await upload(
            base, KEY_A, BIG, **{"Content-Type": "image/png", "X-Filename": "..%2F..%2Fme.png"}
        )
        assert answer.status_code == 201, answer.text
        file_id = answer.json()["file_id"]
        assert answer.json()["filename"] == "me.png"
        assert [path.name for path in folder.iterdir()] == [file_id]
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            part = await client.call_tool("uploadAvatar", {"file": {"file_id": file_id}, "caption": "hi"})
            raw = await client.call_tool("putBlob", {"name": "b1", "attachments": [{"file_id": file_id}]})
        async with httpx.AsyncClient(timeout=30) as http:
            back = await http.get(f"{base}/files/{file_id}", headers={"Authorization": f"Bearer {KEY_A}"})
    assert not part.is_error and not raw.is_error, (text(part), text(raw))
    (avatar,) = [r for r in upstream.requests if r.path == "/avatars"]
    (blob,) = [r for r in upstream.requests if r.path == "/blobs/b1"]
    assert parts(avatar)["file"] == ("me.png", "image/png", BIG)
    assert blob.body == BIG
    assert back.status_code == 200 and back.content == BIG
    assert back.headers["content-length"] == str(len(BIG))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


async def test_with_a_folder_another_clients_id_and_a_climbing_id_are_not_found(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url, files=FOLDER)
    (tmp_path / "secret.txt").write_text("not for agents")
    async with running_gateway(config) as (base, _):
        file_id = (await upload(base, KEY_A, DATA)).json()["file_id"]
        b = {"Authorization": f"Bearer {KEY_B}"}
        async with httpx.AsyncClient(timeout=30) as http:
            theirs = await http.get(f"{base}/files/{file_id}", headers=b)
            not_deleted = await http.delete(f"{base}/files/{file_id}", headers=b)
            climbing = [
                await http.get(f"{base}/files/{name}", headers={"Authorization": f"Bearer {KEY_A}"})
                for name in ("..%2F..%2Fsecret.txt", "..%5C..%5Csecret.txt", "%2E%2E")
            ]
        async with http_client(f"{base}/mcp", key=KEY_B) as client:
            through_tool = await client.call_tool("uploadAvatar", {"file": {"file_id": file_id}})
    for refused in (theirs, not_deleted):
        assert refused.status_code == 404
        assert refused.json() == {"error": {"code": "file-not-found", "message": "not found"}}
    for answer in climbing:  # the router's 404 where the name holds a slash, ours where it does not
        assert answer.status_code == 404 and "not for agents" not in answer.text
    assert through_tool.is_error and text(through_tool).startswith("[file-not-found]")
    assert (tmp_path / "kept" / "files" / file_id).read_bytes() == DATA
    assert not [r for r in upstream.requests if r.path == "/avatars"]


async def test_with_a_folder_an_upload_over_the_cap_leaves_nothing_behind(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url, files=FOLDER)
    async with running_gateway(config) as (base, _), httpx.AsyncClient(timeout=30) as http:
        auth = {"Authorization": f"Bearer {KEY_A}"}

        async def unannounced() -> object:  # no Content-Length: the cap is met while streaming
            for _ in range(20):
                yield b"x" * 100_000

        streamed = await http.post(f"{base}/files", content=unannounced(), headers=auth)
        multipart = await http.post(
            f"{base}/files",
            files={"file": ("big.bin", b"x" * 1_000_001, "application/octet-stream")},
            headers=auth,
        )
    assert streamed.status_code == 413 and multipart.status_code == 413
    assert streamed.json()["error"]["code"] == "file-too-large"
    folder = tmp_path / "kept" / "files"
    assert not folder.exists() or list(folder.iterdir()) == []


async def test_with_a_folder_a_binary_answer_is_kept_there_and_passed_on_to_an_upload_tool(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url, files=FOLDER)
    async with running_gateway(config) as (base, gateway):
        await gateway.ledger.open()  # files are kept where the store is open
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            report = await client.call_tool("getReport", {"id": "r1"})
            found = re.search(r'"file_id": ?"([^"]+)"', text(report))
            assert found is not None, text(report)
            passed = await client.call_tool("uploadAvatar", {"file": {"file_id": found.group(1)}})
    assert not passed.is_error, text(passed)
    assert (tmp_path / "kept" / "files" / found.group(1)).read_bytes() == PDF
    avatar = next(r for r in upstream.requests if r.path == "/avatars")
    assert parts(avatar)["file"] == ("r1.pdf", "application/pdf", PDF)
