"""A real HTTP/1.1 upstream on loopback for tests: it records what arrives and answers as programmed.

    with Upstream() as upstream:                      # binds 127.0.0.1, a free port, in a thread
        upstream.route("/orders/42", json_response({"id": 42}))
        upstream.route("/old", redirect("http://169.254.169.254/latest", status=302))
        ... call upstream.url + "/orders/42" ...
        upstream.requests[-1].headers["authorization"]

As a pytest fixture: `upstream`, for every test (tests/conftest.py); a module that needs routes adds
them in an autouse fixture of its own:

    @pytest.fixture(autouse=True)
    def upstream_routes(upstream: Upstream) -> None:
        upstream.route("/products/p1", json_response({"id": "p1"}))

Routes match the path exactly (no query); unrouted paths answer with `echo()`, a JSON description of the
request. A responder is a `Reply` or a function `RecordedRequest -> Reply`. Ready-made replies:
`json_response`, `text_response`, `binary_response`, `redirect`, `echo`, `echo_header`, `gzip_bomb`,
`slow_drip`, `endless_body`, `invalid_utf8`; `Gate` holds an answer until the test lets it go, and a
`Reply(hold=event)` holds even its status line (a server that hangs). The server never sleeps in the test's thread: slow replies
wait in the server's own loop, and `stop()` cancels every open connection.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    target: str  # the request target exactly as it arrived, e.g. "/a%2Fb?x=1"
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    raw_headers: list[tuple[str, str]]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.target).query, keep_blank_values=True)


@dataclass
class Reply:
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    # When set, the body is streamed chunked from this async generator factory instead of `body`.
    stream: Callable[[], AsyncIterator[bytes]] | None = None
    # When set, nothing is answered (not even the status line) until this event is set (at most `held`
    # seconds): a server that hangs. Other connections are served meanwhile.
    hold: threading.Event | None = None
    held: float = 20.0
    # When set, the status line and headers are sent one byte every this many seconds (a server
    # dripping its head, which no per-read timeout runs out on).
    head_drip: float = 0.0


Responder = Reply | Callable[[RecordedRequest], Reply]


def json_response(value: Any, status: int = 200, headers: list[tuple[str, str]] | None = None) -> Reply:
    return Reply(status, [("Content-Type", "application/json"), *(headers or [])], json.dumps(value).encode())


def text_response(text: str, status: int = 200, content_type: str = "text/plain; charset=utf-8") -> Reply:
    return Reply(status, [("Content-Type", content_type)], text.encode())


def binary_response(data: bytes, content_type: str = "application/octet-stream") -> Reply:
    return Reply(200, [("Content-Type", content_type)], data)


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, [("Location", location)], b"")


def invalid_utf8() -> Reply:
    return Reply(200, [("Content-Type", "text/plain; charset=utf-8")], b"ok \xff\xfe\xc3( end")


def echo(request: RecordedRequest) -> Reply:
    """A JSON description of the request: method, target, headers and the body as text."""
    return json_response(
        {
            "method": request.method,
            "target": request.target,
            "headers": request.headers,
            "body": request.body.decode("utf-8", "replace"),
        }
    )


def echo_header(name: str, status: int = 200) -> Responder:
    """Answers with the value of one request header as plain text (e.g. a leaking Authorization)."""

    def responder(request: RecordedRequest) -> Reply:
        return text_response(request.headers.get(name.lower(), ""), status=status)

    return responder


def gzip_bomb(decompressed_size: int = 50 * 1024 * 1024) -> Reply:
    """A small gzip body that inflates to `decompressed_size` bytes of JSON-looking text."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * (1024 * 1024)
    parts = [compressor.compress(b'{"a": "')]
    for _ in range(decompressed_size // len(block)):
        parts.append(compressor.compress(block))
    parts.append(compressor.flush())
    return Reply(200, [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], b"".join(parts))


def gzip_response(data: bytes, content_type: str = "application/json") -> Reply:
    return Reply(200, [("Content-Type", content_type), ("Content-Encoding", "gzip")], gzip.compress(data))


def slow_drip(interval: float = 0.2, total: int = 10_000) -> Reply:
    """One byte every `interval` seconds, announced as `total` bytes: a body that never ends on time."""

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(total):
            yield b"x"
            await asyncio.sleep(interval)

    return Reply(200, [("Content-Type", "text/plain")], stream=chunks)


def endless_body(chunk: int = 64 * 1024) -> Reply:
    """A chunked body that never ends, as fast as the client reads it."""

    async def chunks() -> AsyncIterator[bytes]:
        data = b"y" * chunk
        while True:
            yield data
            await asyncio.sleep(0)

    return Reply(200, [("Content-Type", "text/plain")], stream=chunks)


class Gate:
    """An upstream answer held until the test opens the gate (bounded: it opens by itself after `limit`
    seconds); `arrived` is set once a request reached it, so the test knows the call is on the wire.

        gate = Gate()
        upstream.route("/orders", gate.reply({"id": "o1"}, status=201))
        ... await anyio.to_thread.run_sync(gate.arrived.wait, 20); gate.open.set() ...
    """

    def __init__(self, limit: float = 20) -> None:
        self.open = threading.Event()
        self.arrived = threading.Event()
        self.limit = limit

    def reply(self, value: Any, status: int = 200) -> Responder:
        def responder(request: RecordedRequest) -> Reply:
            self.arrived.set()

            async def body() -> AsyncIterator[bytes]:
                await asyncio.to_thread(self.open.wait, self.limit)
                yield json_response(value).body

            return Reply(status, [("Content-Type", "application/json")], stream=body)

        return responder


_REASONS = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently", 302: "Found",
            303: "See Other", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
            401: "Unauthorized", 404: "Not Found", 500: "Internal Server Error"}  # fmt: skip


class Upstream:
    """The server. `start()`/`stop()` or use it as a context manager; `url` is `http://127.0.0.1:PORT`."""

    def __init__(self, host: str = "127.0.0.1", fallback: Responder = echo) -> None:
        self.host = host
        self.fallback = fallback  # the answer for paths no route names
        self.port = 0
        self.requests: list[RecordedRequest] = []
        self._routes: dict[str, Responder] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def address(self) -> str:
        """`host:port`, the form `egress.allow` takes."""
        return f"{self.host}:{self.port}"

    def route(self, path: str, responder: Responder) -> None:
        self._routes[path] = responder

    def clear(self) -> None:
        self.requests.clear()
        self._routes.clear()

    def start(self) -> Upstream:
        self._thread = threading.Thread(target=self._run, name="upstream", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the upstream server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._shutdown)
            self._thread.join(10)

    def __enter__(self) -> Upstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the server's own thread --------------------------------------------------------------------

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        self._server = await asyncio.start_server(self._connection, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopping.wait()
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _shutdown(self) -> None:
        self._stopping.set()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        raw_headers: list[tuple[str, str]] = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                raw_headers.append((name.strip(), value.strip()))
        headers: dict[str, str] = {}
        for name, value in raw_headers:
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        body = b""
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _read_chunked(reader)
        request = RecordedRequest(method, target, headers, raw_headers, body)
        self.requests.append(request)
        responder = self._routes.get(request.path, self.fallback)
        reply = responder(request) if callable(responder) else responder
        await _write(writer, reply, head_only=method == "HEAD")
        return headers.get("connection", "").lower() != "close"


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return body
        body += await reader.readexactly(size)
        await reader.readexactly(2)


async def _write(writer: asyncio.StreamWriter, reply: Reply, head_only: bool) -> None:
    if reply.hold is not None:
        await asyncio.to_thread(reply.hold.wait, reply.held)
    status_line = f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}\r\n"
    names = {name.lower() for name, _ in reply.headers}
    headers = list(reply.headers)
    if reply.stream is None and "content-length" not in names:
        headers.append(("Content-Length", str(len(reply.body))))
    elif reply.stream is not None:
        headers.append(("Transfer-Encoding", "chunked"))
    head = status_line + "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n"
    if reply.head_drip:
        for byte in head.encode("latin-1"):
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(reply.head_drip)
    else:
        writer.write(head.encode("latin-1"))
    if head_only:
        await writer.drain()
        return
    if reply.stream is None:
        writer.write(reply.body)
        await writer.drain()
        return
    async for chunk in reply.stream():
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()


def started() -> Iterator[Upstream]:
    """A generator for a pytest fixture: `upstream = pytest.fixture(started)`."""
    with Upstream() as server:
        yield server
