"""The source documents' `attachments: [{file_id, filename?, content_type?}]` form: a tool with exactly one
file field also takes a top-level `attachments` array of one file reference, which fills that field; the
SDK client calls the gateway, and a real upstream on loopback receives the exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.files import DATA, KEY_A, config_with, parts, upload, upstream_routes
from tests.support.gateway import http_client, running_gateway, text
from tests.support.stores import namespaces, store_url
from tests.support.upstream import Upstream

__all__ = ["namespaces", "store_url", "upstream_routes"]


async def test_a_tool_with_one_file_field_serves_an_attachments_array_of_one_that_replaces_it(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp", key=KEY_A) as client:
        tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    for name, field in (("uploadAvatar", "file"), ("putBlob", "body")):
        attachments = tools[name]["properties"]["attachments"]
        assert (attachments["type"], attachments["minItems"], attachments["maxItems"]) == ("array", 1, 1)
        assert attachments["items"]["required"] == ["file_id"]
        assert field in tools[name]["required"]  # still listed: the gateway takes `attachments` instead
    assert "name" in tools["putBlob"]["required"]
    assert "attachments" not in tools["getReport"]["properties"]


async def test_a_file_given_as_attachments_goes_upstream_byte_for_byte_as_the_part_and_as_the_body(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    config = config_with(tmp_path, upstream, store_url)
    async with running_gateway(config) as (base, _):
        file_id = (await upload(base, KEY_A, DATA, **{"Content-Type": "image/png"})).json()["file_id"]
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            part = await client.call_tool(
                "uploadAvatar",
                {"attachments": [{"file_id": file_id, "filename": "me.png"}], "caption": "hi"},
            )
            raw = await client.call_tool("putBlob", {"name": "b1", "attachments": [{"file_id": file_id}]})
    assert not part.is_error and not raw.is_error, (text(part), text(raw))
    (avatar,) = [r for r in upstream.requests if r.path == "/avatars"]
    (blob,) = [r for r in upstream.requests if r.path == "/blobs/b1"]
    assert parts(avatar)["file"] == ("me.png", "image/png", DATA)
    assert parts(avatar)["caption"][2] == b"hi"
    assert "attachments" not in parts(avatar)
    assert blob.body == DATA


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"attachments": [{"file_id": "F"}], "file": {"file_id": "F"}}, "given twice"),
        ({"attachments": [{"file_id": "F"}, {"file_id": "F"}]}, "exactly one file (2 items)"),
        ({"attachments": []}, "exactly one file (0 items)"),
        ({"attachments": {"file_id": "F"}}, "exactly one file (not a list)"),
        ({"attachments": [{"file_id": "F", "path": "/etc/passwd"}]}, "attachments[0]: expected"),
        ({"caption": "no file either way"}, "file: is required"),
    ],
)
async def test_two_files_or_one_given_both_ways_is_arguments_invalid_and_nothing_is_sent(
    tmp_path: Path, upstream: Upstream, arguments: dict[str, object], says: str
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with running_gateway(config) as (base, _):
        file_id = (await upload(base, KEY_A, DATA)).json()["file_id"]
        filled = {
            name: (
                [{**item, "file_id": file_id} for item in value]
                if isinstance(value, list)
                else {**value, "file_id": file_id}
                if isinstance(value, dict)
                else value
            )
            for name, value in arguments.items()
        }
        async with http_client(f"{base}/mcp", key=KEY_A) as client:
            result = await client.call_tool("uploadAvatar", filled)
    assert result.is_error and text(result).startswith("[arguments-invalid]"), text(result)
    assert says in text(result)
    assert not [r for r in upstream.requests if r.path == "/avatars"]


async def test_an_attachment_that_is_not_the_callers_file_is_not_found(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = config_with(tmp_path, upstream, f"sqlite:///{tmp_path / 'state.db'}")
    async with running_gateway(config) as (base, _), http_client(f"{base}/mcp", key=KEY_A) as client:
        result = await client.call_tool("putBlob", {"name": "b1", "attachments": [{"file_id": "f_nope"}]})
    assert result.is_error and text(result).startswith("[file-not-found]"), text(result)
    assert not [r for r in upstream.requests if r.path == "/blobs/b1"]
