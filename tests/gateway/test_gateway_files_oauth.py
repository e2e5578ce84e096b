"""`/files` behind the same identity as the MCP endpoints (issue 31, item 2): a gateway whose every API
takes OAuth tokens and that has no `clients:` may be served off loopback, and its `/files` then takes no
request without a credential; an access token its API takes uploads, and the file is that caller's
alone, usable in its own calls and "not found" for any other caller."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from specbridge._errors import ErrorCode
from specbridge.config import load_config
from specbridge.gateway import exposure_refusal
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

RESOURCE = f"{IN_PROCESS}/shop/mcp"
FILES_SPEC = """\
openapi: 3.1.0
info: {title: Files fixture, version: '1'}
paths:
  /blobs/{name}:
    put:
      operationId: putBlob
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content: {application/octet-stream: {schema: {type: string, format: binary}}}
      responses: {'200': {description: Stored, content: {application/json: {schema: {type: object}}}}}
"""


@pytest.fixture
def issuer(upstream: Upstream) -> Issuer:
    minted = Issuer(upstream.url)
    upstream.route("/jwks", json_response(minted.jwks()))
    upstream.route("/blobs/b1", json_response({"stored": True}))
    return minted


def oauth_only(tmp_path: Path, upstream: Upstream, audience: str = RESOURCE) -> Path:
    oauth = (
        f"oauth: {{issuer: {upstream.url}, jwks_uri: {upstream.url}/jwks, audience: {audience}, "
        "allow_unknown_clients: true}\n"
    )
    return write_config(tmp_path, upstream, spec=FILES_SPEC, extra=oauth)


def test_a_config_whose_every_api_takes_tokens_may_be_served_off_loopback(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = load_config(oauth_only(tmp_path, upstream, "https://mcp.example.com/shop/mcp"))
    assert not config.clients
    assert exposure_refusal("0.0.0.0", config) is None


async def test_files_of_a_gateway_without_clients_take_no_request_without_a_credential(
    tmp_path: Path, upstream: Upstream, issuer: Issuer
) -> None:
    async with (
        in_process_gateway(oauth_only(tmp_path, upstream)) as (transport, _),
        httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as http,
    ):
        posted = await http.post("/files", content=b"anyone?")
        read = await http.get("/files/f-0123456789abcdef0123456789abcdef")
        deleted = await http.delete("/files/f-0123456789abcdef0123456789abcdef")
        forged = await http.post("/files", content=b"x", headers={"Authorization": "Bearer not-a-token"})
    for answer in (posted, read, deleted):
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["code"] == str(ErrorCode.KEY_MISSING)
        assert "resource_metadata=" in answer.headers["www-authenticate"]
    assert forged.status_code == 401 and forged.json()["error"]["code"] == str(ErrorCode.TOKEN_INVALID)


async def test_a_token_uploads_a_file_of_its_own_that_its_calls_send_and_no_other_token_sees(
    tmp_path: Path, upstream: Upstream, issuer: Issuer
) -> None:
    mine = issuer.mint(aud=RESOURCE, sub="person-one")
    theirs = issuer.mint(aud=RESOURCE, sub="person-two")
    async with (
        in_process_gateway(oauth_only(tmp_path, upstream)) as (transport, _),
        httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as http,
    ):
        posted = await http.post("/files", content=b"my bytes", headers={"Authorization": f"Bearer {mine}"})
        assert posted.status_code == 201, posted.text
        file_id = posted.json()["file_id"]
        other = await http.get(f"/files/{file_id}", headers={"Authorization": f"Bearer {theirs}"})
        own = await http.get(f"/files/{file_id}", headers={"Authorization": f"Bearer {mine}"})
        async with http_client(RESOURCE, key=mine, transport=transport) as client:
            result = await client.call_tool("putBlob", {"name": "b1", "body": {"file_id": file_id}})
    assert other.status_code == 404 and other.json()["error"]["code"] == str(ErrorCode.FILE_NOT_FOUND)
    assert own.status_code == 200 and own.content == b"my bytes"
    assert not result.is_error, result
    assert upstream.requests[-1].body == b"my bytes"
