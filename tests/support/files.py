"""Files through a gateway, for the tests of more than one folder: an API that takes and gives files
(`FILES_SPEC`), two clients, bytes that look like a multipart boundary, the upstream's routes (an
autouse fixture for the module that imports it), a config on a store, the multipart parts an upstream
received and an upload to the gateway's `/files`."""

from __future__ import annotations

from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path

import httpx
import pytest

from specbridge.access import key_sha256, new_key
from tests.support.documents import BLOBS
from tests.support.gateway import write_config
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

FILES_SPEC = (
    """\
openapi: 3.1.0
info: {title: Files fixture, version: '1'}
paths:
  /avatars:
    post:
      operationId: uploadAvatar
      summary: Upload an avatar (multipart)
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
                caption: {type: string}
      responses: {'201': {description: Stored, content: {application/json: {schema: {type: object}}}}}
"""
    + BLOBS
    + """\
  /reports/{id}:
    get:
      operationId: getReport
      summary: Download a report
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {'200': {description: The PDF, content: {application/pdf: {schema: {type: string, format: binary}}}}}
"""
)

DATA = bytes(range(256)) * 40 + b"\r\n--not-a-boundary--\r\n\x00"
PDF = b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n"
KEY_A, KEY_B = new_key(), new_key()
CLIENTS = (
    "clients:\n"
    f"  a: {{key_sha256: {key_sha256(KEY_A)}, apis: [shop]}}\n"
    f"  b: {{key_sha256: {key_sha256(KEY_B)}, apis: [shop]}}\n"
)


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route("/avatars", json_response({"stored": True}, status=201))
    upstream.route("/blobs/b1", json_response({"stored": True}))
    upstream.route(
        "/reports/r1",
        Reply(
            200,
            [
                ("Content-Type", "application/pdf"),
                ("Content-Disposition", 'attachment; filename="r1.pdf"'),
            ],
            PDF,
        ),
    )


def config_with(tmp_path: Path, upstream: Upstream, store: str, files: str = "") -> Path:
    path = write_config(tmp_path, upstream, spec=FILES_SPEC, clients=CLIENTS)
    path.write_text(path.read_text(encoding="utf-8") + f"store: '{store}'\n{files}", encoding="utf-8")
    return path


def parts(request: RecordedRequest) -> dict[str, tuple[str | None, str, bytes]]:
    """The multipart body the upstream received: name -> (filename, content type, bytes)."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    found: dict[str, tuple[str | None, str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        found[str(name)] = (
            part.get_filename(),
            part.get_content_type(),
            payload if isinstance(payload, bytes) else b"",
        )
    return found


async def upload(base: str, key: str, data: bytes, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(
            f"{base}/files", content=data, headers={"Authorization": f"Bearer {key}", **headers}
        )
