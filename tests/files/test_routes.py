"""`files/_routes.py`: `POST /files` and `GET /files/{id}` through the gateway's ASGI app in process. A
file is always served as a sandboxed attachment that cannot run on the gateway's origin, typed with one
well-formed media type; names follow the one filename rule; a multipart upload streams and stops at
`files.max_bytes` whatever its framing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest

from specbridge.gateway import Gateway
from tests.support.files import FILES_SPEC
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text, write_config
from tests.support.upstream import Reply, Upstream

PAGE = b"<!doctype html><script>document.title = 'ran'</script><p>hello</p>"
SANDBOX = "sandbox; default-src 'none'"


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    upstream.route(
        "/reports/listed",
        Reply(200, [("Content-Type", "application/octet-stream, text/html")], PAGE),
    )


@dataclass
class FilesApi:
    http: httpx2.AsyncClient
    gateway: Gateway
    transport: httpx2.ASGITransport


@asynccontextmanager
async def files_api(tmp_path: Path, upstream: Upstream, files: str = "") -> AsyncIterator[FilesApi]:
    config = write_config(tmp_path, upstream, spec=FILES_SPEC)
    config.write_text(
        config.read_text(encoding="utf-8") + f"store: 'sqlite:///{tmp_path / 'state.db'}'\n{files}",
        encoding="utf-8",
    )
    async with (
        in_process_gateway(config) as (transport, gateway),
        httpx2.AsyncClient(transport=transport, base_url=IN_PROCESS) as http,
    ):
        yield FilesApi(http, gateway, transport)


def assert_attachment(answer: httpx2.Response, content_type: str, disposition: str = "attachment") -> None:
    assert answer.status_code == 200
    assert answer.headers["content-type"] == content_type
    assert answer.headers["content-disposition"] == disposition
    assert answer.headers["content-security-policy"] == SANDBOX
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_an_uploaded_page_is_served_as_a_sandboxed_attachment(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        stored = await http.post("/files", content=PAGE, headers={"Content-Type": "text/html"})
        back = await http.get(f"/files/{stored.json()['file_id']}")
    assert stored.status_code == 201 and stored.json()["content_type"] == "text/html"
    assert_attachment(back, "text/html")
    assert back.content == PAGE


async def test_a_type_list_is_kept_as_the_type_a_browser_reads_and_served_as_an_attachment(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        listed = await http.post(
            "/files", content=PAGE, headers={"Content-Type": "application/octet-stream, text/html"}
        )
        svg = await http.post("/files", content=b"<svg/>", headers={"Content-Type": "image/svg+xml,"})
        junk = await http.post("/files", content=b"x", headers={"Content-Type": "nonsense"})
        served = [await http.get(f"/files/{answer.json()['file_id']}") for answer in (listed, svg, junk)]
    assert [answer.json()["content_type"] for answer in (listed, svg, junk)] == [
        "text/html",
        "image/svg+xml",
        "application/octet-stream",
    ]
    for answer, kind in zip(served, ("text/html", "image/svg+xml", "application/octet-stream"), strict=True):
        assert_attachment(answer, kind)


async def test_a_stored_type_that_is_not_one_media_type_is_served_as_octet_stream(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http, gateway = api.http, api.gateway
        # A record as an older gateway kept it: the type as the API or client sent it.
        record = await gateway.files.put("-", PAGE, "application/octet-stream, text/html", "page.html")
        back = await http.get(f"/files/{record.id}")
    disposition = "attachment; filename=\"page.html\"; filename*=UTF-8''page.html"
    assert_attachment(back, "application/octet-stream", disposition)


async def test_an_answer_typed_as_a_list_is_kept_as_html_and_served_as_an_attachment(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http, gateway = api.http, api.gateway
        await gateway.ledger.open()  # files are kept where the store is open
        async with http_client(f"{IN_PROCESS}/shop/mcp", transport=api.transport) as client:
            report = await client.call_tool("getReport", {"id": "listed"})
        found = re.search(r'"file_id": ?"([^"]+)"', text(report))
        assert found is not None, text(report)
        back = await http.get(f"/files/{found.group(1)}")
    assert '"content_type":"text/html"' in text(report).replace(" ", "")
    assert_attachment(back, "text/html")


@pytest.mark.parametrize(
    ("headers", "kept"),
    [
        ({"X-Filename": "..%2F..%2Fetc%2Fpasswd"}, "passwd"),
        ({"X-Filename": "%2E%2E"}, None),
        ({"X-Filename": "a%0D%0AX-Evil: 1%00.txt"}, "aX-Evil: 1.txt"),
        ({"Content-Disposition": "attachment; filename*=UTF-8''..%5C..%5Cwin.ini"}, "win.ini"),
        ({"Content-Disposition": "attachment; filename*=UTF-8''../x%E2%80%AEgpj.exe"}, "xgpj.exe"),
    ],
)
async def test_an_upload_keeps_only_the_last_printable_segment_of_its_name(
    tmp_path: Path, upstream: Upstream, headers: dict[str, str], kept: str | None
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        raw = await http.post("/files", content=b"x", headers=headers)
    assert raw.status_code == 201 and raw.json()["filename"] == kept


async def test_a_multipart_part_keeps_only_the_last_printable_segment_of_its_name(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        body = (
            b'--b\r\nContent-Disposition: form-data; name="file"; filename="../../etc/cron.d/x\x01\x7f.sh"\r\n'
            b"Content-Type: text/x-sh\r\n\r\nx\r\n--b--\r\n"
        )
        answer = await http.post(
            "/files", content=body, headers={"Content-Type": "multipart/form-data; boundary=b"}
        )
        back = await http.get(f"/files/{answer.json()['file_id']}")
    assert answer.status_code == 201
    assert (answer.json()["filename"], answer.json()["content_type"]) == ("x.sh", "text/x-sh")
    assert back.headers["content-disposition"] == "attachment; filename=\"x.sh\"; filename*=UTF-8''x.sh"


async def test_a_name_that_cannot_be_a_plain_header_value_has_an_ascii_fallback(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        stored = await http.post(
            "/files", content=b"x", headers={"X-Filename": "r%C3%A9sum%C3%A9%20%22v2%22.txt"}
        )
        back = await http.get(f"/files/{stored.json()['file_id']}")
    assert back.headers["content-disposition"] == (
        "attachment; filename=\"r_sum_ _v2_.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.txt"
    )


class Endless:
    """A request body that never ends (no length: sent chunked), counting what the gateway read."""

    def __init__(self, head: bytes) -> None:
        self.head = head
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.head
        self.sent += len(self.head)
        chunk = b"x" * 65536
        while True:
            yield chunk
            self.sent += len(chunk)


async def test_a_multipart_upload_without_a_length_stops_at_the_cap(
    tmp_path: Path, upstream: Upstream
) -> None:
    head = b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n'
    body = Endless(head)
    async with files_api(tmp_path, upstream, files="files: {max_bytes: 1MB}\n") as api:
        http = api.http
        with anyio.fail_after(30):
            answer = await http.post(
                "/files", content=body, headers={"Content-Type": "multipart/form-data; boundary=b"}
            )
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "file-too-large"
    assert body.sent < 1_000_000 + 2 * 65536  # read up to the cap, not the whole body first
    assert not list((tmp_path / "state.db").parent.glob("tmp*"))


async def test_a_second_file_part_after_the_first_is_refused_and_nothing_is_kept(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http, gateway = api.http, api.gateway
        two = await http.post(
            "/files", files=[("a", ("a.txt", b"a", "text/plain")), ("b", ("b.txt", b"b", "text/plain"))]
        )
        fields = await http.post(
            "/files", data={f"f{n}": "v" for n in range(17)}, files={"file": ("a.txt", b"a", "text/plain")}
        )
        left = await (await gateway.files.store()).sweep_files(float("inf"))
    assert two.status_code == 400 and two.json()["error"]["message"] == "send exactly one file part"
    assert fields.status_code == 400 and "too many fields" in fields.json()["error"]["message"]
    assert left == 0  # no record was left behind


async def test_a_multipart_upload_with_fields_around_its_file_keeps_the_file(
    tmp_path: Path, upstream: Upstream
) -> None:
    async with files_api(tmp_path, upstream) as api:
        http = api.http
        answer = await http.post(
            "/files",
            data={"before": "1", "after": "2"},
            files={"file": ("scan.pdf", b"%PDF" * 1000, "application/pdf")},
        )
        back = await http.get(f"/files/{answer.json()['file_id']}")
    assert answer.status_code == 201 and answer.json()["size"] == 4000
    assert back.content == b"%PDF" * 1000
